"""GROUP_CONCAT: exact where a group's non-NULL values are all the same value (every
order then gives the same text), an over-approximation elsewhere. Verdicts are
SQLite's: differences are confirmed on SQLite by the pipeline and shown again here
on a database built by hand; equivalences are checked on random databases."""

from __future__ import annotations

import sqlite3

import pytest

from spotit import check
from spotit.encodings.equivalence import Semantics
from spotit.probe import probe
from spotit.schema import schema_from_ddl

DDL = "CREATE TABLE t (id INTEGER PRIMARY KEY, g TEXT, v INTEGER, s TEXT);"
SCHEMA = schema_from_ddl(DDL)


def run(sql: str, rows) -> set:
    db = sqlite3.connect(":memory:")
    db.execute(DDL)
    db.executemany("INSERT INTO t VALUES (?, ?, ?, ?)", rows)
    return set(db.execute(sql).fetchall())


@pytest.mark.parametrize("gold,pred,rows", [
    # two rows of one group: 'x,x' is not MAX's 'x'
    ("SELECT g, GROUP_CONCAT(s) FROM t GROUP BY g", "SELECT g, MAX(s) FROM t GROUP BY g",
     [(1, "a", 0, "x"), (2, "a", 0, "x")]),
    # the separator shows
    ("SELECT GROUP_CONCAT(s) FROM t", "SELECT GROUP_CONCAT(s, ';') FROM t",
     [(1, "a", 0, "x"), (2, "a", 0, "x")]),
    # over no rows: one row holding NULL, not no row
    ("SELECT GROUP_CONCAT(v, '-') FROM t WHERE id = 1",
     "SELECT CAST(v AS TEXT) FROM t WHERE id = 1", []),
    # an integer's text: '7', not 7
    ("SELECT GROUP_CONCAT(v) FROM t", "SELECT MAX(v) FROM t", [(1, "a", 7, "x")]),
])
def test_differences_are_found(gold, pred, rows):
    assert run(gold, rows) != run(pred, rows)  # SQLite shows the difference
    res = check(SCHEMA, gold, pred, bound=3, timeout=60)
    assert res.verdict.value == "not_equivalent", res.reason


@pytest.mark.parametrize("gold,pred", [
    # within a group of g, every g is the same value: its text, once
    ("SELECT g, GROUP_CONCAT(DISTINCT g) FROM t GROUP BY g", "SELECT g, g FROM t GROUP BY g"),
    ("SELECT id, GROUP_CONCAT(s, ' | ') FROM t GROUP BY id", "SELECT id, s FROM t"),
])
def test_equivalences_are_proved(gold, pred):
    res = check(SCHEMA, gold, pred, bound=3, timeout=60)
    assert res.verdict.value == "equivalent", res.reason
    assert probe(SCHEMA, gold, pred, Semantics.SET, trials=2000, seconds=20, max_rows=4,
                 seed=2) is None


def test_a_separator_that_is_not_a_constant_is_unsupported():
    res = check(SCHEMA, "SELECT GROUP_CONCAT(s, g) FROM t", "SELECT GROUP_CONCAT(s) FROM t",
                bound=2, probe_trials=0)
    assert res.verdict.value == "unsupported"
    assert "separator" in res.reason


def test_the_default_separator_written_out_is_the_same_call():
    """GROUP_CONCAT(s) and GROUP_CONCAT(s, ',') are one call in SQLite (its default
    separator is ','): was `spurious` (two independent orders); now one canonical form.
    ', ' is another separator."""
    rows = [(1, "a", 1, "x"), (2, "a", 2, "y"), (3, "b", 3, None)]
    gold = "SELECT g, GROUP_CONCAT(s) FROM t GROUP BY g"
    written = "SELECT g, GROUP_CONCAT(s, ',') FROM t GROUP BY g"
    assert run(gold, rows) == run(written, rows)
    r = check(DDL, gold, written, bound=3)
    assert r.verdict.value == "equivalent", r.reason
    r = check(DDL, gold, written.replace("','", "', '"), bound=3)
    assert r.verdict.value == "not_equivalent", r.reason
