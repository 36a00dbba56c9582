"""RIGHT JOIN: ``a RIGHT JOIN b ON c`` is ``b LEFT JOIN a ON c`` with the columns put
back in a, b order. With USING or NATURAL SQLite reads the shared column from the
right table (in ``x``, ``*`` and ``a.*`` alike), which the binder does not model: such
a join is outside the fragment."""

from __future__ import annotations

import sqlite3

import pytest

from spotit import check

DDL = "CREATE TABLE t (x INTEGER, a TEXT); CREATE TABLE u (x INTEGER, b TEXT);"
ROWS = "INSERT INTO t VALUES (1, 't1'); INSERT INTO u VALUES (1, 'u1'), (3, 'u3');"


def sqlite_result(sql: str) -> list[tuple]:
    conn = sqlite3.connect(":memory:")
    conn.executescript(DDL + ROWS)
    return sorted(conn.execute(sql).fetchall(), key=repr)


@pytest.mark.parametrize("using", ["USING (x)", "NATURAL"])
def test_right_join_using_is_outside_the_fragment(using):
    # by SQLite: the unmatched right row (3, 'u3') shows x = 3 through the USING column
    # and NULL through t.x, so the pair differs (SpotIt said `equivalent`, reading x from
    # t as it is for LEFT JOIN)
    join = "t NATURAL RIGHT JOIN u" if using == "NATURAL" else f"t RIGHT JOIN u {using}"
    gold, pred = f"SELECT x FROM {join}", f"SELECT t.x FROM {join}"
    assert sqlite_result(gold) != sqlite_result(pred)
    res = check(DDL, gold, pred, bound=2)
    assert res.verdict.value in ("unsupported", "not_equivalent"), res.reason
    assert "RIGHT JOIN with USING or NATURAL" in res.reason


def test_right_join_on_keeps_both_sides_in_order():
    # by SQLite: the right join keeps u's unmatched row with NULLs on t's side, and
    # the columns come in t, u order, as the left join with the sides swapped gives
    gold = "SELECT t.x, t.a, u.x, u.b FROM t RIGHT JOIN u ON t.x = u.x"
    pred = "SELECT t.x, t.a, u.x, u.b FROM u LEFT JOIN t ON t.x = u.x"
    assert sqlite_result(gold) == sqlite_result(pred)
    assert check(DDL, gold, pred, bound=3).verdict.value == "equivalent"
    star = check(DDL, "SELECT * FROM t RIGHT JOIN u ON t.x = u.x", pred, bound=3)
    assert star.verdict.value == "equivalent", star.reason
    inner = check(DDL, gold, "SELECT t.x, t.a, u.x, u.b FROM t JOIN u ON t.x = u.x",
                  bound=2)
    assert inner.verdict.value == "not_equivalent" and inner.cex_rows["u"]
