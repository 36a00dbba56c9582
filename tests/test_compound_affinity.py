"""A compound SELECT read by an enclosing query, whose members' columns have different
affinities: SQLite's documentation calls the column's affinity indeterminate (any one
member's, and not always the same one within a query), so no proof may rest on it."""

from __future__ import annotations

import sqlite3

import pytest

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


PADDED = ("CREATE TABLE t (a INTEGER, b TEXT, r REAL, n NUMERIC, z);"
          " INSERT INTO t VALUES (1, '1', 1.0, 1, 1);"
          " INSERT INTO t VALUES (2, '2', 2.5, 'x', '2');")


@pytest.mark.parametrize("col", ["a", "b", "r", "n", "z"])
def test_sqlite_reads_a_null_padded_compound_under_its_first_members_affinity(col):
    """The ground for reading ``SELECT c ... UNION ALL SELECT NULL`` as ``c``'s affinity:
    by SQLite, flattened, kept whole by a LIMIT or an ORDER BY, and stored (a CTE read
    twice, MATERIALIZED), every comparison of the column agrees with ``c`` read alone;
    with the NULL member first, some do not."""
    conn = sqlite3.connect(":memory:")
    conn.executescript(PADDED)
    compounds = [f"SELECT {col} AS x FROM t UNION ALL SELECT NULL",
                 f"SELECT {col} AS x FROM t UNION SELECT NULL",
                 f"SELECT {col} AS x FROM t UNION ALL SELECT NULL UNION ALL SELECT {col} FROM t"]
    comparisons = ["x = '1'", "x = 1", "x = 1.0", "x = u.b", "x < '2'", "x IN ('1', 2)",
                   "x BETWEEN '1' AND '2'", "x IN (SELECT b FROM t)"]

    def rows(sql):
        return sorted(set(conn.execute(sql).fetchall()), key=repr)

    for cmp in comparisons:
        alone = rows(f"SELECT x, {cmp} FROM (SELECT {col} AS x FROM t), t AS u WHERE u.a = 1")
        for c in compounds:
            for form in (f"({c})", f"({c} LIMIT 99)", f"({c} ORDER BY 1)"):
                assert rows(f"SELECT x, {cmp} FROM {form}, t AS u "
                            "WHERE u.a = 1 AND x IS NOT NULL") == alone
            stored = rows(f"WITH w AS MATERIALIZED ({c}) SELECT x, {cmp} FROM w, t AS u "
                          "WHERE u.a = 1 AND x IS NOT NULL")
            assert stored == alone
    first = f"(SELECT NULL AS x UNION ALL SELECT {col} FROM t LIMIT 99)"
    assert any(rows(f"SELECT x, {cmp} FROM {first}, t AS u WHERE u.a = 1 AND x IS NOT NULL")
               != rows(f"SELECT x, {cmp} FROM (SELECT {col} AS x FROM t), t AS u "
                       "WHERE u.a = 1") for cmp in comparisons)


def test_a_compound_padded_with_null_is_read_under_its_first_members_affinity():
    # a UNION ALL member padded with NULL was refused as an indeterminate affinity;
    # by the test above, x = '1' is a = 1 there (an INTEGER 1 matches '1')
    ddl = "CREATE TABLE t (a INTEGER, b TEXT);"
    padded = "(SELECT a AS x, b FROM t UNION ALL SELECT NULL, b FROM t)"
    res = check(ddl, f"SELECT COUNT(x) FROM {padded} AS s", "SELECT COUNT(a) FROM t",
                bound=3)
    assert res.verdict.value == "equivalent", res.reason
    res = check(ddl, f"SELECT x FROM {padded} AS s WHERE x = '1'",
                "SELECT a FROM t WHERE a = 1", bound=3)
    assert res.verdict.value == "equivalent", res.reason
    # the NULL member first: the column has no affinity when SQLite keeps it whole
    first = "(SELECT NULL AS x UNION ALL SELECT a FROM t LIMIT 9)"
    res = check(ddl, f"SELECT x FROM {first} AS s WHERE x = '1'",
                "SELECT a FROM t WHERE a = 1", bound=3)
    assert res.verdict.value == "not_equivalent", res.reason


def test_in_reads_a_padded_compound_under_its_last_members_affinity():
    """IN takes the affinity of its compound's rightmost member (``exprINAffinity``):
    by SQLite, '1' IN (SELECT a ... UNION ALL SELECT NULL) is NULL where a = 1, and
    '1' IN (SELECT a ...) is 1. So the padding is not read away there."""
    conn = sqlite3.connect(":memory:")
    conn.executescript(PADDED)
    assert conn.execute("SELECT '1' IN (SELECT a FROM t UNION ALL SELECT NULL)"
                        ).fetchall() == [(None,)]
    assert conn.execute("SELECT '1' IN (SELECT a FROM t)").fetchall() == [(1,)]
    res = check("CREATE TABLE t (a INTEGER, b TEXT);",
                "SELECT b FROM t WHERE '1' IN (SELECT a FROM t UNION ALL SELECT NULL)",
                "SELECT b FROM t WHERE '1' IN (SELECT a FROM t)", bound=2)
    assert res.verdict.value != "equivalent", res.reason


@pytest.mark.parametrize("first", ["a + 0", "b || ''", "z", "COALESCE(a, b)", "NULL", "'7'"])
def test_sqlite_keeps_the_values_of_a_compound_whose_first_member_converts_nothing(first):
    """The ground for ``Affinity.MIXED``: where the leftmost member's column has no
    affinity (an expression, a literal) or BLOB's, every plan SQLite picks --
    flattened, kept whole, stored, read twice -- gives the members' values unconverted,
    whatever the other members' affinities. Under a leftmost INTEGER, storing converts
    a TEXT member's '5'."""
    conn = sqlite3.connect(":memory:")
    conn.executescript(PADDED)

    def rows(sql):
        return sorted(conn.execute(sql).fetchall(), key=repr)

    for other in ["a", "b", "r", "n", "z", "5", "'5'", "1.0"]:
        compound = f"SELECT {first} AS x FROM t UNION ALL SELECT {other} FROM t"
        alone = rows(f"SELECT typeof(x), x FROM ({compound})")
        for sql in (f"SELECT typeof(x), x FROM ({compound} LIMIT 99)",
                    f"SELECT typeof(x), x FROM ({compound} ORDER BY 1)",
                    f"WITH w AS MATERIALIZED ({compound}) SELECT typeof(x), x FROM w",
                    f"WITH w AS ({compound}) SELECT typeof(w1.x), w1.x FROM w AS w1, "
                    "(SELECT COUNT(*) FROM w) AS w2",
                    f"SELECT typeof(x), x FROM ({compound}) AS s, t AS u WHERE u.a = 1"):
            assert rows(sql) == alone, sql
    stored = rows("WITH w AS MATERIALIZED (SELECT a AS x FROM t UNION ALL SELECT '5') "
                  "SELECT typeof(x), x FROM w")
    assert ("integer", 5) in stored


def test_a_mixed_column_is_read_but_never_compared():
    """Spider 2.0-style FULL OUTER JOIN by UNION ALL (a stand-in for local040): the
    zipcode column is COALESCE(...) (no affinity) in one member and an INTEGER column
    in the other. Its values are the members' own (test above), so counting, summing
    and projecting it is decided; comparing it is refused, since SQLite compares it
    under either member's affinity (the first test of this file)."""
    ddl = ("CREATE TABLE trees (tree_id INTEGER, zipcode INTEGER, boro TEXT);"
           "CREATE TABLE income (zipcode INTEGER, mean REAL);")
    combined = ("(SELECT t.tree_id, COALESCE(t.zipcode, i.zipcode) AS zipcode, t.boro, i.mean "
                "FROM trees AS t LEFT JOIN income AS i ON t.zipcode = i.zipcode "
                "UNION ALL SELECT NULL, i.zipcode, NULL, i.mean FROM income AS i "
                "WHERE NOT EXISTS (SELECT 1 FROM trees AS t2 WHERE t2.zipcode = i.zipcode))")
    gold = f"SELECT boro, COUNT(tree_id), COUNT(zipcode), AVG(mean) FROM {combined} GROUP BY boro"
    res = check(ddl, gold, gold.replace("COUNT(zipcode)", "COUNT(zipcode) + 0"), bound=2)
    assert res.verdict.value == "equivalent", res.reason
    res = check(ddl, gold, gold.replace("COUNT(zipcode)", "COUNT(zipcode) + 1"), bound=2)
    assert res.verdict.value == "not_equivalent", res.reason
    compared = f"SELECT tree_id FROM {combined} AS c WHERE zipcode = '1'"
    res = check(ddl, compared, compared.replace("'1'", "1"), bound=2)
    assert res.verdict.value != "equivalent", res.reason
    # a leftmost member that converts (TEXT) with an INTEGER one: stored, its values
    # change, so even reading the column is refused
    res = check(ddl, "SELECT COUNT(x) FROM (SELECT boro AS x FROM trees UNION ALL "
                "SELECT zipcode FROM income)", "SELECT 0", bound=2)
    assert res.verdict.value in ("unsupported", "not_equivalent"), res.reason
    assert "different affinities" in res.reason
