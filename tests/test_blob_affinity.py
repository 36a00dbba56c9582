"""A column declared without a type has BLOB affinity, which is not "no affinity".

SQLite (sqlite3CompareAffinity): when both sides of a comparison are columns and
neither is numeric, nothing is converted -- so an untyped column holding 1 is not
equal to a TEXT column holding '1', nor to ``CAST(x AS TEXT)``; only an expression
without affinity (``+x``, a literal) takes the TEXT side's affinity. SpotIt used to
treat the untyped column as "no affinity" and proved such pairs equivalent (the
random search hid it). Every expected value here is SQLite's, computed in the test.
"""

from __future__ import annotations

import sqlite3

import pytest

from spotit.pipeline import check
from spotit.proofs.fuzz import _pinned
from spotit.proofs.pinned import check_pinned

# the fuzz table: i INTEGER, r REAL, s TEXT, d DATE, dt DATETIME, n NUMERIC, a (untyped),
# sn TEXT COLLATE NOCASE, sr TEXT COLLATE RTRIM
ROW = (1, 1.0, "1", None, None, 1, 1, "1", "1")


@pytest.mark.parametrize("expr", [
    "a = s", "s = a", "a = CAST(a AS TEXT)", "CAST(a AS TEXT) = a", "+a = s", "a = +s",
    "a = sn", "a IN (SELECT s FROM t AS t2)", "s IN (SELECT a FROM t AS t2)", "a = '1'",
    "a = i", "a = r", "n = s", "a IN (s, 2)", "s IN (a, 2)",
])
def test_comparisons_with_an_untyped_column(expr):
    out = check_pinned(_pinned(ROW, expr), "z3", timeout=20)
    assert out.kind == "ok", out


SCHEMA = "CREATE TABLE t (id INTEGER PRIMARY KEY, x, y TEXT);"
PAIRS = [
    ("SELECT id FROM t WHERE x = CAST(x AS TEXT)", "SELECT id FROM t WHERE x IS NOT NULL"),
    ("SELECT id FROM t WHERE x = y", "SELECT id FROM t WHERE +x = y"),
    ("SELECT id FROM t WHERE x IN (SELECT y FROM t)",
     "SELECT id FROM t WHERE +x IN (SELECT y FROM t)"),
]


def _differ(counterexample: dict, gold: str, pred: str) -> bool:
    conn = sqlite3.connect(":memory:")
    conn.execute(SCHEMA)
    for row in counterexample["t"]:
        conn.execute("INSERT INTO t (id, x, y) VALUES (?, ?, ?)", (row["id"], row["x"], row["y"]))
    return sorted(conn.execute(gold).fetchall()) != sorted(conn.execute(pred).fetchall())


@pytest.mark.parametrize("solver", ["z3", "cvc5"])
@pytest.mark.parametrize("gold, pred", PAIRS)
def test_the_solver_alone_refutes(gold, pred, solver):
    res = check(SCHEMA, gold, pred, bound=2, solver=solver, probe_trials=0)
    assert res.verdict.value == "not_equivalent", res.reason
    assert _differ(res.counterexample, gold, pred)


def test_a_literal_still_takes_text_affinity():
    """``+x`` has no affinity: compared with a TEXT column it becomes text, so these are
    the same on every database (hand derivation: both convert x to its text)."""
    res = check(SCHEMA, "SELECT id FROM t WHERE +x = y", "SELECT id FROM t WHERE "
                "CAST(x AS TEXT) = y", bound=2, probe_trials=0)
    assert res.verdict.value == "equivalent", res.reason
