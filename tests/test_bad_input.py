"""Bad input gives a one-line verdict reason naming the problem, never a traceback."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

import pytest

from spotit import check

SCHEMA = "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, x INTEGER);"


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "spotit.cli", *args], capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("gold,pred,verdict,fragment", [
    ("SELEC x FROM t", "SELECT x FROM t", "error", "gold"),
    ("SELECT x FROM t", "SELECT x FROM", "error", "pred"),
    ("SELECT x FROM t", "SELECT nope FROM t", "error", "no such column: nope"),
    ("SELECT x FROM t", "SELECT x FROM missing", "error", "no such table: missing"),
    ("SELECT x FROM t", "SELECT x FROM t; SELECT 1", "error", "pred"),
    # outside the fragment, and equivalent (so random search cannot refute them either)
    ("SELECT x FROM t", "SELECT x FROM (SELECT x, NTILE(x) OVER (ORDER BY x) AS r "
     "FROM t)", "unsupported", "window function NTILE() with a non-constant"),
    ("SELECT 1 UNION SELECT 2 UNION SELECT 3", "WITH RECURSIVE r(n) AS (SELECT 1 UNION "
     "SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r", "equivalent", "no difference"),
    ("SELECT 1", "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r LIMIT 3) "
     "SELECT n FROM r", "unsupported", "ORDER BY or LIMIT in the recursive CTE"),
    # SQLite reads '1e999' as the double Inf, which no rational is (was a traceback);
    # equal on every row with a name, so random search cannot refute it either
    ("SELECT x FROM t WHERE name = '1e999' + 0 OR name IS NOT NULL",
     "SELECT x FROM t WHERE name IS NOT NULL", "unsupported", "an infinite REAL"),
    # RANDOM() draws a new value on every run: SQLite shows the same query differing
    # from itself, so neither a counterexample nor a proof means anything -- not even the
    # same plan on both sides (was `equivalent` there: the encoder builds a SELECT
    # list's values only when asked, and the fragment check never asked)
    ("SELECT random() FROM t", "SELECT random() FROM t", "unsupported", "RANDOM() (gold)"),
    ("SELECT x FROM t", "SELECT x FROM t ORDER BY RANDOM() LIMIT 1", "unsupported",
     "RANDOM() (pred)"),
    # a function outside the fragment in a SELECT list is found even when the two forms
    # are the same
    ("SELECT zeroblob(x) FROM t", "SELECT zeroblob(x) FROM t WHERE 1 = 1", "unsupported",
     "ZEROBLOB"),
    # TOTAL_CHANGES() is the connection's count of changed rows, not a value of the
    # database: 0 on a fresh connection, the rows inserted where SpotIt validates. It was
    # folded as a constant (0) and `total_changes() = 0` proved a filter that keeps all
    ("SELECT x FROM t WHERE total_changes() = 0", "SELECT x FROM t", "unsupported",
     "TOTAL_CHANGES"),
    ("SELECT total_changes() FROM t", "SELECT 0 FROM t", "unsupported", "TOTAL_CHANGES"),
])
def test_bad_queries(gold, pred, verdict, fragment):
    res = check(SCHEMA, gold, pred, bound=2)
    assert res.verdict.value == verdict
    assert fragment in res.reason
    assert "\n" not in res.reason and "Traceback" not in res.reason


def test_unknown_column_names_where(tmp_path):
    res = check(SCHEMA, "SELECT x FROM t", "SELECT t.x FROM t WHERE t.y = 1")
    assert res.verdict.value == "error"
    assert "no such column: t.y" in res.reason and "pred" in res.reason


@pytest.mark.parametrize("text,fragment", [
    ("CREATE TABLE t (", "does not load"),
    ("CREATE INDEX i ON nothing(x);", "does not load"),
    ("-- only a comment\n", "no tables"),
])
def test_bad_schema_text(tmp_path, text, fragment):
    path = tmp_path / "schema.sql"
    path.write_text(text)
    res = check(str(path), "SELECT 1", "SELECT 1")
    assert res.verdict.value == "error"
    assert fragment in res.reason and "\n" not in res.reason


def test_missing_schema_file():
    res = check("/nonexistent/schema.sql", "SELECT 1", "SELECT 1")
    assert res.verdict.value == "error" and "not found" in res.reason


def test_tables_json_unknown_db(tmp_path):
    path = tmp_path / "tables.json"
    path.write_text(json.dumps([{"db_id": "a", "table_names_original": ["t"],
                                 "column_names_original": [[-1, "*"], [0, "x"]],
                                 "column_types": ["text", "integer"],
                                 "primary_keys": [], "foreign_keys": []}]))
    res = check(str(path), "SELECT x FROM t", "SELECT x FROM t", db_id="b")
    assert res.verdict.value == "error" and "'b' is not in" in res.reason


def test_cli_bad_input_is_one_line_and_exit_zero(tmp_path):
    schema = tmp_path / "s.sql"
    schema.write_text(SCHEMA)
    p = run_cli("check", "--schema", str(schema), "--gold", "SELECT x FROM t",
                "--pred", "SELECT nope FROM t")
    assert p.returncode == 0
    assert "Traceback" not in p.stdout + p.stderr
    assert "verdict: error" in p.stdout and "no such column: nope" in p.stdout


def test_cli_usage_error_exit_two():
    p = run_cli("check", "--gold", "SELECT 1")
    assert p.returncode == 2 and "--schema" in p.stderr


def test_a_time_limit_is_kept_while_encoding():
    """A pair whose formula explodes (CTEs joined with themselves, three deep) stops at
    --timeout 5 while encoding, as a timeout saying how far it got -- not after the
    formula budget, minutes later."""
    import time

    import spotit

    ddl = "CREATE TABLE t (x INTEGER, y TEXT);"
    # (x + 0: both members' first column without affinity, which a compound read by
    # an enclosing query needs; x against x + 1 is refused as indeterminate)
    q = ("WITH a AS (SELECT x + 0 AS x, y FROM t UNION ALL SELECT x + 1, y FROM t), "
         "b AS (SELECT a1.x AS x, a2.y AS y FROM a AS a1, a AS a2, a AS a3 "
         "WHERE a1.x <= a3.x) SELECT b1.x, COUNT(*) FROM b AS b1, b AS b2, b AS b3 "
         "WHERE b1.x < b2.x AND b2.y <> b3.y GROUP BY b1.x")
    start = time.monotonic()
    # (HAVING COUNT(*) >= 0 holds for every group, but no rule says so: the formula is
    # built; `SELECT * FROM (q) WHERE 1 = 1` is q by canonical form now)
    r = spotit.check(ddl, q, q + " HAVING COUNT(*) >= 0", bound=3, timeout=5,
                     probe_trials=0)
    assert r.verdict.value == "timeout"
    assert "time limit reached while encoding" in r.reason
    # generous: on an idle machine it ends within a second of the limit
    assert time.monotonic() - start < 5 + 25


@pytest.mark.parametrize("limit", ["'1'", "' 2'", "'2.0'", "'1e0'", "'2 '", "'-1'", "2.0",
                                   "'x'", "'0x10'", "''", "2.5", "1e20"])
def test_a_limit_is_an_error_exactly_where_sqlite_says_so(limit):
    # SQLite gives a LIMIT NUMERIC affinity first ('1' is 1); `'1'` was a datatype mismatch
    query = f"SELECT x FROM t ORDER BY x LIMIT {limit}"
    conn = sqlite3.connect(":memory:")
    conn.executescript(SCHEMA)
    try:
        conn.execute(query).fetchall()
        sqlite_rejects = False
    except sqlite3.Error:
        sqlite_rejects = True
    res = check(SCHEMA, query, "SELECT x FROM t ORDER BY x LIMIT 1", bound=2)
    assert (res.verdict.value == "error") == sqlite_rejects, res.reason
    if sqlite_rejects:
        assert "LIMIT must be an integer" in res.reason


@pytest.mark.parametrize("options,fragment", [
    ({"bound": 0}, "bound must be a positive integer"),  # was `equivalent` (no rows at all)
    ({"bound": -1}, "bound must be"),
    ({"bound": None}, "bound must be"),
    ({"timeout": "x"}, "timeout must be"),
    ({"semantics": "foo"}, "semantics 'foo'"),
    ({"now": "yesterday"}, "now must be a datetime"),
    ({"probe_trials": "a"}, "probe_trials must be"),
    ({"recursion_depth": -1}, "recursion_depth must be"),
    ({"data": "realistic"}, "constraints applied"),
])
def test_bad_arguments_of_check_are_its_verdict_not_an_exception(options, fragment):
    # each raised a Python exception out of check, or (bound=0) answered wrongly
    res = check(SCHEMA, "SELECT COUNT(*) FROM t", "SELECT COUNT(x) FROM t", **options)
    assert res.verdict.value == "error", res.reason
    assert fragment in res.reason


@pytest.mark.parametrize("gold", [None, 5, b"SELECT 1"])
def test_a_query_that_is_not_text_is_named(gold):
    res = check(SCHEMA, gold, "SELECT 1")
    assert res.verdict.value == "error" and "gold must be SQL text" in res.reason


@pytest.mark.parametrize("n", [400, 2000])
def test_a_long_in_list_is_decided(n):
    """SQLite takes an IN list of any length; the IR holds it as a balanced OR tree."""
    values = ", ".join(map(str, range(n)))
    long_in = f"SELECT x FROM t WHERE x IN ({values})"
    res = check(SCHEMA, long_in, f"SELECT x FROM t WHERE x IN ({values}) AND 1 = 1", bound=2,
                timeout=120)
    assert res.verdict.value == "equivalent", res.reason
    res = check(SCHEMA, long_in, "SELECT x FROM t", bound=2, timeout=120)
    assert res.verdict.value == "not_equivalent", res.reason  # x = n is kept by one side only


def test_a_long_or_chain_is_decided():
    """400 ORs parse left-deep (SQLite's own limit is a depth of 1000); the binder reads
    the chain without recursion."""
    ors = " OR ".join(f"x = {i}" for i in range(400))
    res = check(SCHEMA, f"SELECT x FROM t WHERE {ors}", f"SELECT x FROM t WHERE {ors} OR x = -1",
                bound=2, timeout=120)
    assert res.verdict.value == "not_equivalent", res.reason  # x = -1


def test_a_long_sum_is_an_error_verdict_not_a_recursion_error():
    """A sum is not regrouped (REAL rounding and integer overflow depend on its order), so
    a chain of 400 stays too deep for the tree walks: a verdict, not a crash."""
    long_sum = " + ".join(["x"] * 400)
    res = check(SCHEMA, f"SELECT {long_sum} FROM t", "SELECT x FROM t", bound=2, timeout=60)
    assert res.verdict.value in ("error", "not_equivalent"), res.reason
    if res.verdict.value == "error":
        assert "nested too deeply" in res.reason


def test_a_binary_schema_file_is_named(tmp_path):
    path = tmp_path / "schema.sql"
    path.write_bytes(b"CREATE TABLE t (x INTEGER);\x00\xff\xfe")
    res = check(str(path), "SELECT 1", "SELECT 2")
    assert res.verdict.value == "error" and "NUL character" in res.reason


def test_a_results_file_that_is_not_sqlite_is_named(tmp_path):
    from spotit.experiments.store import ResultsStore, StoreError

    bad = tmp_path / "r.sqlite"
    bad.write_text("hello")
    for path, fragment in ((bad, "cannot be opened as a SpotIt results file"),
                           (tmp_path, "is a directory"),
                           (tmp_path / "missing" / "r.sqlite", "does not exist")):
        with pytest.raises(StoreError, match=fragment):
            ResultsStore(path)
    assert bad.read_text() == "hello"  # left as it was
    out = run_cli("audit", str(bad))
    assert out.returncode != 0 and "Traceback" not in out.stderr
    assert "cannot be opened as a SpotIt results file" in out.stderr


def test_another_programs_database_is_refused_and_left_alone(tmp_path):
    from spotit.experiments.store import ResultsStore, StoreError

    other = tmp_path / "app.sqlite"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
    conn.execute("INSERT INTO customers VALUES (1, 'a')")
    conn.commit()
    conn.close()
    before = other.read_bytes()
    with pytest.raises(StoreError, match=r"not a SpotIt results file .*customers"):
        ResultsStore(other)
    out = run_cli("audit", str(other))
    assert out.returncode != 0 and "Traceback" not in out.stderr
    assert "not a SpotIt results file" in out.stderr
    assert other.read_bytes() == before  # no table added, no switch to WAL
