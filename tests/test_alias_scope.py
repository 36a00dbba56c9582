"""Result-column aliases where SQLite resolves them beyond WHERE: in a join's ON (it reads
ON like WHERE) and in subqueries of WHERE, GROUP BY, HAVING, ORDER BY and ON, where the
alias is its expression copied in. Each pair is equal on SQLite (checked here on a
database built here); SpotIt said `error: no such column` (a helper's hunt)."""

from __future__ import annotations

import sqlite3

import pytest

from spotit import check

DDL = ("CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, b TEXT);"
       " CREATE TABLE u(id INTEGER PRIMARY KEY, a INTEGER, b TEXT);")
ROWS = {"t": [(1, 1, "z"), (2, 2, "y"), (3, None, "2")], "u": [(1, 2, "2"), (2, 3, "1")]}

SAME = [
    ("SELECT t.a AS z FROM t JOIN u ON z = u.a", "SELECT t.a FROM t JOIN u ON t.a = u.a"),
    ("SELECT t.a AS z FROM t LEFT JOIN u ON z = u.a",
     "SELECT t.a FROM t LEFT JOIN u ON t.a = u.a"),
    ("SELECT a AS k FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.a = k)",
     "SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.a = t.a)"),
    ("SELECT a + 1 AS k FROM t WHERE k IN (SELECT a FROM u WHERE u.a = k)",
     "SELECT a + 1 FROM t WHERE a + 1 IN (SELECT a FROM u WHERE u.a = t.a + 1)"),
    ("SELECT a AS k FROM t GROUP BY a HAVING EXISTS (SELECT 1 FROM u WHERE u.a = k)",
     "SELECT a FROM t GROUP BY a HAVING EXISTS (SELECT 1 FROM u WHERE u.a = t.a)"),
    ("SELECT a AS k FROM t WHERE EXISTS (SELECT 1 FROM u WHERE EXISTS "
     "(SELECT 1 FROM u AS v WHERE v.a = k))",
     "SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u WHERE EXISTS "
     "(SELECT 1 FROM u AS v WHERE v.a = t.a))"),
    # a column of the subquery's own FROM comes before the outer alias
    ("SELECT b AS id FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.a = id)",
     "SELECT b FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.a = u.id)"),
]


def run(sql: str) -> list:
    conn = sqlite3.connect(":memory:")
    conn.executescript(DDL)
    for table, rows in ROWS.items():
        conn.executemany(f"INSERT INTO {table} VALUES (?, ?, ?)", rows)
    return sorted(conn.execute(sql).fetchall(), key=repr)


@pytest.mark.parametrize("aliased,spelled", SAME)
def test_an_alias_sqlite_resolves_is_its_expression(aliased, spelled):
    assert run(aliased) == run(spelled)
    res = check(DDL, aliased, spelled, bound=2, timeout=120)
    assert res.verdict.value == "equivalent", res.reason


def test_an_alias_in_a_subquery_is_the_outer_expression_not_its_column():
    # k is a + 1: the subquery compares u.a with t.a + 1, and t = (1, 1) finds u.a = 2
    aliased = "SELECT a + 1 AS k FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.a = k)"
    other = "SELECT a + 1 FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.a = t.a)"
    assert run(aliased) != run(other)
    res = check(DDL, aliased, other, bound=2, timeout=120)
    assert res.verdict.value == "not_equivalent", res.reason


def test_an_aliased_aggregate_in_a_subquery_is_unsupported_not_an_error():
    sql = "SELECT COUNT(*) AS k FROM t HAVING EXISTS (SELECT 1 FROM u WHERE u.a = k)"
    run(sql)  # SQLite accepts it
    res = check(DDL, sql, sql + " AND 1 = 1", bound=2)
    assert res.verdict.value == "unsupported" and "alias k" in res.reason, res.reason


def test_an_alias_in_the_select_list_stays_unknown():
    sql = "SELECT (SELECT k FROM u) AS q, a AS k FROM t"
    with pytest.raises(sqlite3.OperationalError, match="no such column: k"):
        run(sql)
    assert check(DDL, sql, "SELECT 1").verdict.value == "error"


def test_a_column_joined_later_comes_before_an_alias_in_an_inner_join_on():
    """SQLite reads an inner join's ON over the whole FROM: ``z`` is v.z, not the alias."""
    ddl = DDL + " CREATE TABLE v(id INTEGER PRIMARY KEY, c INTEGER, z INTEGER);"
    gold = "SELECT t.a AS z FROM t JOIN u ON u.a = z JOIN v ON v.id = t.id"
    conn = sqlite3.connect(":memory:")
    conn.executescript(ddl + " INSERT INTO t VALUES (1, 1, 'x'), (2, 2, 'y');"
                       " INSERT INTO u VALUES (1, 1, 'x'), (2, 5, 'q');"
                       " INSERT INTO v VALUES (1, 1, 2), (2, 7, 1);")
    as_column = "SELECT t.a FROM t JOIN u ON u.a = v.z JOIN v ON v.id = t.id"
    as_alias = "SELECT t.a FROM t JOIN u ON u.a = t.a JOIN v ON v.id = t.id"
    assert conn.execute(gold).fetchall() == conn.execute(as_column).fetchall() == [(2,)]
    assert conn.execute(as_alias).fetchall() == [(1,)]
    assert check(ddl, gold, as_column, bound=2).verdict.value == "equivalent"
    res = check(ddl, gold, as_alias, bound=2)
    assert res.verdict.value == "not_equivalent", res.reason
