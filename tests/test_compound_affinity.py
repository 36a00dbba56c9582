"""A compound SELECT read by an enclosing query, whose members' columns have different
affinities: SQLite's documentation calls the column's affinity indeterminate (any one
member's, and not always the same one within a query), so no proof may rest on it."""

from __future__ import annotations

import sqlite3

from spotit import check

DDL = ("CREATE TABLE t (id INTEGER PRIMARY KEY, x INTEGER, y TEXT);"
       " CREATE TABLE s (id INTEGER PRIMARY KEY, tid INTEGER, x INTEGER, y TEXT);")
MIXED = "(SELECT x AS c FROM t UNION ALL SELECT y || '' FROM s{limit})"


def test_sqlite_reads_a_mixed_compound_column_either_way():
    # by SQLite 3.40: flattened, the WHERE goes into each member (y || '' has no
    # affinity: '1' = 1 is false); kept whole by a LIMIT, the column is INTEGER
    conn = sqlite3.connect(":memory:")
    conn.executescript(DDL + "INSERT INTO s VALUES (1, NULL, NULL, '1');")
    flat = conn.execute(f"SELECT c FROM {MIXED.format(limit='')} WHERE c = 1").fetchall()
    whole = conn.execute(f"SELECT c FROM {MIXED.format(limit=' LIMIT 10')} WHERE c = 1"
                         ).fetchall()
    assert flat == [] and whole == [("1",)]


def test_no_proof_rests_on_an_indeterminate_affinity():
    # was `equivalent` by canonical form ("constants under comparison affinity"), taking
    # the first member's INTEGER affinity; SQLite tells them apart on the row above
    sub = MIXED.format(limit="")
    gold, pred = f"SELECT c FROM {sub} WHERE c = '1'", f"SELECT c FROM {sub} WHERE c = 1"
    res = check(DDL, gold, pred, bound=2)
    assert res.verdict.value in ("unsupported", "not_equivalent"), res.reason
    assert "different affinities in its members (INTEGER and NONE" in res.reason


def test_a_compound_of_one_affinity_and_an_outermost_one_are_still_proved():
    same = "(SELECT x AS c FROM t UNION ALL SELECT x FROM s)"
    res = check(DDL, f"SELECT c FROM {same} WHERE c = '1'",
                f"SELECT c FROM {same} WHERE c = 1", bound=2)
    assert res.verdict.value == "equivalent", res.reason
    top = check(DDL, "SELECT x FROM t UNION SELECT y FROM s",
                "SELECT y FROM s UNION SELECT x FROM t", bound=2)
    assert top.verdict.value == "equivalent", top.reason
