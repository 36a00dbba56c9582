"""The data ladder: ``--data declared`` (each column holds values of its declared type)
against ``--data sqlite`` (any value SQLite stores there). Verdicts derived by hand:

- ``a + 0 = a`` against ``a IS NOT NULL`` on an INTEGER column: for every integer
  (and real) ``a + 0 = a``; but SQLite stores the text ``''`` in an INTEGER column as
  text, ``'' + 0`` is 0 and 0 = '' is false (a number is never equal to a text).
- On a TEXT column a number is stored as text, so ``s = 5`` and ``s = '5'`` agree at
  every level (the literal gets the column's TEXT affinity).
- A STRICT table enforces its types: ``sqlite`` assumes nothing more than ``declared``.
"""

from __future__ import annotations

import json
import sqlite3

import pytest

from spotit import cli
from spotit.pipeline import check
from spotit.schema import schema_from_ddl

SCHEMA = "CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER, s TEXT, d DATE);"
PLUS_ZERO = ("SELECT id FROM t WHERE a + 0 = a", "SELECT id FROM t WHERE a IS NOT NULL")


def _differ_on_sqlite(ddl: str, counterexample: dict, gold: str, pred: str) -> bool:
    conn = sqlite3.connect(":memory:")
    conn.executescript(ddl)
    for table, rows in counterexample.items():
        for row in rows:
            cols = ", ".join(f'"{c}"' for c in row)
            conn.execute(f'INSERT INTO "{table}" ({cols}) VALUES ({", ".join("?" * len(row))})',
                         list(row.values()))
    return sorted(conn.execute(gold).fetchall()) != sorted(conn.execute(pred).fetchall())


@pytest.mark.parametrize("solver", ["z3", "cvc5"])
def test_text_in_an_integer_column_needs_the_sqlite_level(solver):
    gold, pred = PLUS_ZERO
    declared = check(SCHEMA, gold, pred, bound=2, solver=solver, probe_trials=0)
    assert declared.verdict.value == "equivalent" and declared.data == "declared"
    anything = check(SCHEMA, gold, pred, bound=2, solver=solver, probe_trials=0, data="sqlite")
    assert anything.verdict.value == "not_equivalent" and anything.data == "sqlite"
    # only a text can do it (the search may keep a second row it could not drop: data
    # "sqlite" also searches numeric-looking text, which SQLite would store as a number)
    assert any(isinstance(row["a"], str) for row in anything.counterexample["t"])
    assert _differ_on_sqlite(SCHEMA, anything.counterexample, gold, pred)


def test_dates_that_are_not_dates():
    """The issue's pair: equal on valid dates, not on text SQLite keeps in a DATE column."""
    gold = "SELECT id FROM t WHERE d LIKE '2012%'"
    pred = "SELECT id FROM t WHERE STRFTIME('%Y', d) = '2012'"
    assert check(SCHEMA, gold, pred, bound=1, probe_trials=0).verdict.value == "equivalent"
    res = check(SCHEMA, gold, pred, bound=1, data="sqlite", timeout=60)
    assert res.verdict.value == "not_equivalent", res.reason
    assert _differ_on_sqlite(SCHEMA, res.counterexample, gold, pred)


@pytest.mark.parametrize("ddl", [
    SCHEMA,  # a TEXT column turns numbers into text at every level
    "CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER, s TEXT, d TEXT) STRICT;",
])
def test_what_sqlite_enforces_stays(ddl):
    text = ("SELECT id FROM t WHERE s = 5", "SELECT id FROM t WHERE s = '5'")
    assert check(ddl, *text, bound=2, probe_trials=0, data="sqlite").verdict.value == \
        "equivalent"
    if "STRICT" in ddl:
        res = check(ddl, *PLUS_ZERO, bound=2, probe_trials=0, data="sqlite")
        assert res.verdict.value == "equivalent"


def test_schema_levels_change_only_unenforced_columns():
    s = schema_from_ddl(SCHEMA).with_data("sqlite")
    t = s.require_table("t")
    domains = {c.name: c.domain.value for c in t.columns}
    assert domains == {"id": "integer", "a": "any", "s": "text", "d": "any"}
    assert schema_from_ddl(SCHEMA).with_data("declared").require_table("t").columns[3] \
        .domain.value == "date"


def test_every_verdict_says_its_level(capsys):
    gold, pred = PLUS_ZERO
    assert cli.main(["check", "--schema", SCHEMA, "--gold", gold, "--pred", pred, "--bound",
                     "1", "--probe-trials", "0", "--data", "sqlite", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["data"] == "sqlite"
    assert cli.main(["check", "--schema", SCHEMA, "--gold", gold, "--pred", pred, "--bound",
                     "1", "--probe-trials", "0"]) == 0
    out = capsys.readouterr().out
    assert "verdict: equivalent" in out and "data: declared" in out
    bad = check(SCHEMA, gold, pred, data="realistic-ish")
    assert bad.verdict.value == "error" and "data level" in bad.reason


def test_realistic_level_assumes_the_constraints(tmp_path, capsys):
    """``a > 1`` and ``a >= 1`` differ only when a = 1; with every a at least 5 assumed
    (a range constraint), they are equivalent under ``realistic`` and not otherwise."""
    cs = tmp_path / "c.json"
    cs.write_text(json.dumps({"constraints": [
        {"kind": "range", "table": "t", "column": "a", "min": 5}]}))
    gold, pred = "SELECT id FROM t WHERE a > 1", "SELECT id FROM t WHERE a >= 1"
    base = ["check", "--schema", SCHEMA, "--gold", gold, "--pred", pred, "--bound", "2",
            "--json", "--no-explain"]
    assert cli.main([*base, "--data", "realistic", "--constraints", str(cs)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["verdict"], out["data"]) == ("equivalent", "realistic")
    assert cli.main(base) == 0
    assert json.loads(capsys.readouterr().out)["verdict"] == "not_equivalent"
    with pytest.raises(SystemExit, match="needs --constraints"):
        cli.main([*base, "--data", "realistic"])


@pytest.mark.parametrize("solver", ["z3", "cvc5"])
def test_values_sqlite_would_convert_are_searched_last(solver):
    """At the sqlite level a numeric column is also searched with numeric-looking text,
    which SQLite stores as a number: a superset, declared as an approximation whose
    exact range (no text starting like a number) is searched first, so the
    counterexample's text is one SQLite keeps as text."""
    from spotit.encodings.database import CONVERTED_ON_INSERT

    gold, pred = PLUS_ZERO
    res = check(SCHEMA, gold, pred, bound=2, solver=solver, probe_trials=0, data="sqlite")
    assert res.verdict.value == "not_equivalent"
    assert CONVERTED_ON_INSERT in res.approximations
    texts = [row["a"] for row in res.counterexample["t"] if isinstance(row["a"], str)]
    assert texts and all(t == "" or t[0] not in "0123456789+-. " for t in texts), texts
    conn = sqlite3.connect(":memory:")
    conn.executescript(SCHEMA)
    for t in texts:  # stored as given: still text in the INTEGER column
        conn.execute("INSERT INTO t (a) VALUES (?)", (t,))
    assert {r[0] for r in conn.execute("SELECT typeof(a) FROM t")} == {"text"}
