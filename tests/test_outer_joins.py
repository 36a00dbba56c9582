"""RIGHT and FULL joins. ``a RIGHT JOIN b ON c`` is ``b LEFT JOIN a ON c`` with the
columns put back in a, b order; ``a FULL JOIN b ON c`` is the LEFT JOIN's rows, then the
b rows no a row matches, NULL-padded. With USING or NATURAL SQLite reads the shared
column from the right table (RIGHT) or from whichever side is not NULL (FULL), which the
binder does not model: such joins are outside the fragment."""

from __future__ import annotations

import sqlite3

import pytest

from spotit import check
from tests.solver_limits import HANG_SECONDS, limited

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


def test_full_join_using_is_outside_the_fragment():
    # by SQLite: x is 3 on u's unmatched row, where t.x is NULL
    join = "t FULL JOIN u USING (x)"
    assert sqlite_result(f"SELECT x FROM {join}") != sqlite_result(f"SELECT t.x FROM {join}")
    res = check(DDL, f"SELECT x FROM {join}", f"SELECT t.x FROM {join}", bound=2)
    assert "FULL OUTER JOIN with USING or NATURAL" in res.reason


FULL = "SELECT t.x, t.a, u.x, u.b FROM t FULL JOIN u ON t.x = u.x"
# the same rows written without FULL JOIN, as SQLite's documentation defines it
FULL_BY_HAND = ("SELECT t.x, t.a, u.x, u.b FROM t LEFT JOIN u ON t.x = u.x UNION ALL "
                "SELECT NULL, NULL, u.x, u.b FROM u WHERE NOT EXISTS "
                "(SELECT 1 FROM t WHERE t.x = u.x)")


def test_full_join_is_the_left_join_and_the_unmatched_right_rows():
    assert sqlite_result(FULL) == sqlite_result(FULL_BY_HAND)
    assert sqlite_result(FULL) == [(1, "t1", 1, "u1"), (None, None, 3, "u3")]
    res = check(DDL, FULL, FULL_BY_HAND, bound=3)
    assert res.verdict.value == "equivalent", res.reason
    swapped = check(DDL, FULL, "SELECT t.x, t.a, u.x, u.b FROM u FULL OUTER JOIN t "
                    "ON u.x = t.x", bound=3)
    assert swapped.verdict.value == "equivalent", swapped.reason


@pytest.mark.parametrize("other", [
    "SELECT t.x, t.a, u.x, u.b FROM t LEFT JOIN u ON t.x = u.x",
    "SELECT t.x, t.a, u.x, u.b FROM t RIGHT JOIN u ON t.x = u.x",
])
def test_full_join_differs_from_either_one_sided_join(other):
    # by hand: an unmatched row on the side the one-sided join drops
    res = check(DDL, FULL, other, bound=2)
    assert res.verdict.value == "not_equivalent", res.reason
    conn = sqlite3.connect(":memory:")
    conn.executescript(DDL)
    for table, rows in res.cex_rows.items():
        for row in rows:
            conn.execute(f"INSERT INTO {table} VALUES ({', '.join('?' * len(row))})",
                         tuple(row.values()) if isinstance(row, dict) else tuple(row))
    assert sorted(conn.execute(FULL).fetchall(), key=repr) != \
        sorted(conn.execute(other).fetchall(), key=repr)


@pytest.mark.parametrize("sql", [
    # ON reading a row of the outer query, inside a correlated subquery
    "SELECT a.id, (SELECT COUNT(*) FROM w AS c FULL JOIN w AS d ON c.p = d.o "
    "AND d.id = a.id) FROM w AS a",
    # a FULL JOIN followed by another join on its padded side
    "SELECT a.id, b.id, c.id FROM w AS a FULL JOIN w AS b ON a.p = b.o "
    "FULL JOIN w AS c ON c.o = b.p",
    # ON holding a subquery that reads the right row
    "SELECT a.id, b.id FROM w AS a FULL JOIN w AS b ON a.p IN "
    "(SELECT o FROM w AS z WHERE z.id = b.id)",
])
def test_full_join_encoding_is_sqlite_on_pinned_rows(sql):
    from spotit.proofs.relations import QueryCase, check_query

    rows = ((1, 1, -1.5, "a", None), (2, None, 0.2, "a", None), (1, 3, 1.0, "B ", 1),
            (None, 2, 1.0, "b", 1))
    out = check_query(QueryCase(rows, sql), limited(), HANG_SECONDS)
    assert out.kind == "ok", out


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
