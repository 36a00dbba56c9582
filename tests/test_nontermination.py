"""A prediction that never stops: shown by SQLite (a recursive CTE that makes a row out
of an earlier row equal to it, under UNION ALL), and only then claimed."""

from __future__ import annotations

import sqlite3
import time

import pytest

from spotit.nontermination import never_stops
from spotit.pipeline import check
from spotit.report import format_result
from spotit.schema import schema_from_ddl
from spotit.validate import run_query

RECURSION = "WITH RECURSIVE r(n) AS (SELECT {init} UNION {all} SELECT {step} FROM r{where}) "


def _query(init="1", all_="ALL", step="n", where="", outer="SELECT COUNT(*) FROM r"):
    return RECURSION.format(init=init, all=all_, step=step, where=where) + outer


def _shown(sql: str) -> str | None:
    conn = sqlite3.connect(":memory:")
    try:
        return never_stops(conn, sql, time.monotonic() + 1)
    finally:
        conn.close()


def _stops(sql: str) -> bool:
    conn = sqlite3.connect(":memory:")
    try:
        return not isinstance(run_query(conn, sql, 0.5), str)
    finally:
        conn.close()


@pytest.mark.parametrize("sql", [
    _query(),  # 1 makes 1
    _query(init="0", step="1 - n"),  # 0 makes 1 makes 0
    _query(init="'a,'", step="substr(n, instr(n, ',x') + 1)"),  # instr is 0: the same text
])
def test_a_row_made_out_of_an_equal_row_never_stops(sql):
    assert not _stops(sql)  # SQLite does not finish (half a second on one row)
    why = _shown(sql)
    assert why is not None and "recursive CTE r" in why


@pytest.mark.parametrize("sql,why", [
    (_query(all_=""), "UNION drops the copy: one row"),
    (_query(outer="SELECT n FROM r LIMIT 3"), "the LIMIT stops the reading"),
    (_query(outer="SELECT (SELECT n FROM r)"), "a scalar subquery stops at its first row"),
    (_query(step="n * 1.0", where=" WHERE typeof(n) = 'integer'"),
     "1.0 is not the INTEGER 1: two rows"),
    (_query(step="n", where=" WHERE n > 1"), "the step makes nothing out of 1"),
])
def test_what_stops_is_not_claimed(sql, why):
    assert _stops(sql), why
    assert _shown(sql) is None, why


def test_a_recursion_that_only_grows_is_not_claimed():
    """n + 1 never repeats a row: it does not stop, but no row proves it here."""
    sql = _query(step="n + 1")
    assert not _stops(sql)
    assert _shown(sql) is None


SPLIT = ("WITH RECURSIVE s(id, item, rest) AS (SELECT id, '', csv || ',' FROM t "
         "UNION ALL SELECT id, TRIM(SUBSTR(rest, 1, INSTR(rest, ',') - 1)), "
         "SUBSTR(rest, INSTR(rest, ',') + 1) FROM s WHERE rest {op} '') "
         "SELECT id, COUNT(*) FROM s GROUP BY id")


def test_a_splitter_that_never_stops_is_refuted_with_the_reason():
    """``rest >= ''`` holds of '' too: the row (id, '', '') makes itself for ever
    (by hand: TRIM(SUBSTR('', 1, -1)) and SUBSTR('', 1) are ''), while the gold splits
    each list and stops."""
    schema = schema_from_ddl("CREATE TABLE t (id INTEGER, csv TEXT);")
    res = check(schema, SPLIT.format(op="<>"), SPLIT.format(op=">="), bound=2, timeout=60)
    assert res.verdict.value == "not_equivalent", res.reason
    assert "never stops" in res.reason and "recursive CTE s" in res.reason
    assert res.pred_result is None and res.gold_result
    shown = format_result(res, schema)
    assert "predicted result: none, the prediction never stops" in shown


def test_an_endless_cte_the_query_never_reaches_is_not_claimed():
    """r never ends, but t is empty, so the LEFT JOIN never reads it: the time SQLite
    spends is big's count to three million, and the query stops. Capped at a thousand
    rows, r changes nothing and the query is as slow: no claim (whatever the machine's
    speed). (With an inner join SQLite reads r first, and never stops.)"""
    sql = ("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n FROM r), "
           "big(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM big WHERE x < 3000000) "
           "SELECT COUNT(*) FROM big UNION ALL SELECT COUNT(*) FROM t LEFT JOIN r ON t.a = r.n")
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (a INTEGER)")
    try:
        assert never_stops(conn, sql, time.monotonic() + 1) is None
        assert conn.execute(sql).fetchall() == [(3000000,), (0,)]  # it stops
    finally:
        conn.close()


# what a helper's review found claimed of queries SQLite finishes, each refused now
def _parts(sql: str):
    import sqlglot

    from spotit import nontermination as nt

    tree = sqlglot.parse_one(sql, dialect="sqlite")
    key = "with_" if tree.args.get("with_") is not None else "with"
    return nt, tree, key


def _repeat_found(sql: str, setup: str = "") -> bool:
    nt, tree, key = _parts(sql)
    check_sql = nt._ancestry_check(tree, key, 0)
    assert check_sql is not None
    conn = sqlite3.connect(":memory:")
    if setup:
        conn.executescript(setup)
    try:
        return conn.execute(check_sql).fetchone() is not None
    finally:
        conn.close()


def test_texts_that_differ_after_a_nul_are_different_rows():
    """quote() stops at a NUL: 'a' || char(0) || '0' and 'a' || char(0) || '1' read
    alike, and a counter behind a NUL looked like a cycle (it stops at 50)."""
    count = "CAST(substr(CAST(n AS BLOB), 3) AS INTEGER)"  # the digits after the NUL
    sql = (f"WITH RECURSIVE r(n) AS (SELECT 'a' || char(0) || '0' UNION ALL "
           f"SELECT 'a' || char(0) || ({count} + 1) FROM r WHERE {count} < 50) "
           "SELECT COUNT(*) FROM r")
    assert _stops(sql)
    assert not _repeat_found(sql)


def test_a_cte_named_later_in_the_with_is_the_cte_not_the_table():
    """The step reads c, a CTE written after r (SQLite resolves it so), which holds 1,
    not the table c's 0: no row passes, r stops. Read as the table, 1 repeats."""
    sql = ("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n FROM r, c WHERE c.k = 0), "
           "c(k) AS (SELECT 1) SELECT COUNT(*) FROM r")
    setup = "CREATE TABLE c (k INTEGER); INSERT INTO c VALUES (0);"
    conn = sqlite3.connect(":memory:")
    conn.executescript(setup)
    assert conn.execute(sql).fetchall() == [(1,)]
    assert not _repeat_found(sql, setup)


def test_refused_shapes():
    nt, tree, key = _parts("WITH RECURSIVE r AS (SELECT 1 AS a, 0 AS a UNION ALL "
                           "SELECT a, a + 1 FROM r) SELECT COUNT(*) FROM r")
    assert nt._ancestry_check(tree, key, 0) is None  # two columns named a
    nt, tree, key = _parts("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n FROM r), "
                           "s AS (SELECT n FROM r) SELECT (SELECT n FROM s)")
    assert not nt._read_whole(tree, tree.args[key].expressions, 0)  # a scalar subquery
    sql = ("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT CAST(n + 0.5 AS BOOLEAN) "
           "FROM r WHERE n < 5) SELECT COUNT(*) FROM r")
    nt, tree, key = _parts(sql)
    conn = sqlite3.connect(":memory:")
    assert not nt._faithful(conn, tree, sql)  # sqlglot writes AS INTEGER: 1.5 becomes 1
    assert _shown(_query(step="n", outer="SELECT COUNT(*) FROM r WHERE random() > 0")) is None


def test_a_branch_that_would_raise_an_error_later_is_not_claimed():
    """From n the step makes n again (a cycle) and n + 1, which raises an integer
    overflow at 2001: SQLite stops with that error once it gets there (a second
    helper's review, with a branch SQLite reached in 2 s). Run with UNION, each
    distinct row once, the query meets the error at once: no claim."""
    sql = ("WITH RECURSIVE r(n) AS (SELECT 0 UNION ALL SELECT CASE WHEN t.k = 1 THEN r.n "
           "WHEN r.n > 2000 THEN abs(-9223372036854775807 - 1) ELSE r.n + 1 END "
           "FROM r, t) SELECT COUNT(*) FROM r")
    conn = sqlite3.connect(":memory:")
    conn.executescript("CREATE TABLE t (k INTEGER); INSERT INTO t VALUES (1), (2);")
    try:
        assert "overflow" in run_query(conn, sql.replace("UNION ALL", "UNION"), 5)
        assert never_stops(conn, sql, time.monotonic() + 1) is None
    finally:
        conn.close()


def test_a_real_in_the_repeated_row_proves_nothing():
    """SQLite's printf writes 16 digits at most: 1.0 and 1.0000000000000002 read alike,
    as do 0.0 and -0.0 (a second helper's review)."""
    conn = sqlite3.connect(":memory:")
    assert conn.execute("SELECT printf('%.17g', 1.0) = printf('%.17g', 1.0000000000000002),"
                        " 1.0 = 1.0000000000000002").fetchone() == (1, 0)
    assert _shown(_query(init="1.5")) is None  # 1.5 makes 1.5 for ever: not claimed


def test_the_distinct_run_drops_exactly_equal_rows_only():
    """UNION compares under the column's collation: 'b' and 'b ' are one row under
    RTRIM, so a branch that grows by spaces until an error looked finite (a third
    helper's review). The distinct run keeps them apart: five rows, not one."""
    sql = ("WITH RECURSIVE r(s) AS (SELECT 'b' COLLATE RTRIM UNION ALL SELECT s || ' ' "
           "FROM r WHERE length(s) < 5) SELECT COUNT(*) FROM r")
    nt, tree, key = _parts(sql)
    conn = sqlite3.connect(":memory:")
    assert conn.execute(sql.replace("UNION ALL", "UNION")).fetchall() == [(1,)]
    assert conn.execute(nt._exactly_distinct(tree, key, 0)).fetchall() == [(5,)]


def test_an_aggregate_that_grows_without_end_is_not_claimed():
    """json_group_array's text grows with every row until SQLite refuses the
    allocation (SQLITE_NOMEM, a stop): refused by name, as is any aggregate but COUNT,
    SUM, TOTAL, AVG, MIN, MAX and GROUP_CONCAT."""
    assert _shown(_query(outer="SELECT length(json_group_array(n)) FROM r")) is None
