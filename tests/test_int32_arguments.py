"""Integer arguments SQLite reads with ``sqlite3_value_int`` are cut to 32 bits, and
ROUND past a double's precision prints digits SpotIt does not model. Both were
found by ``spotit fuzz`` (reproducers in ``tests/regressions/``); every expected value
here is SQLite's own answer, asked in the test."""

from __future__ import annotations

import sqlite3

import pytest

from spotit.pipeline import check
from spotit.proofs.pinned import PinnedCase, check_pinned
from spotit.schema import schema_from_ddl
from spotit.solvers.testing import BOTH_SOLVERS

CUT = [  # (expression over s = 'abc', i = 4294967298), what 32 bits make of it
    "SUBSTR(s, 4294967298, 1)",  # start 2
    "SUBSTR(s, 1, 2147483648)",  # length -2147483648: nothing after start 1
    "SUBSTR(s, 0, 2147483647)",
    "SUBSTR(s, 0, 9223372036854775807)",  # length -1
    "SUBSTR(s, 2, -4294967295)",  # length 1
    "SUBSTR(s, i, 1)",
    "SUBSTR(s, 1, i)",
]


def _sqlite(expr: str) -> object:
    conn = sqlite3.connect(":memory:")
    return conn.execute(f"SELECT {expr} FROM (SELECT 'abc' AS s, 4294967298 AS i)"
                        ).fetchone()[0]


def test_sqlite_cuts_substr_arguments_to_32_bits():
    """The premise, on the SQLite the checks run against: 4294967298 reads as 2."""
    assert _sqlite("SUBSTR(s, 4294967298, 1)") == "b"
    assert _sqlite("SUBSTR(s, 1, 2147483648)") == ""
    assert _sqlite("SUBSTR(s, 1, 4294967297)") == "a"


@pytest.mark.parametrize("solver", BOTH_SOLVERS)
@pytest.mark.parametrize("expr", CUT)
def test_substr_of_a_cut_argument_is_sqlites(expr, solver):
    case = PinnedCase((("s", "TEXT"), ("i", "INTEGER")), ("abc", 4294967298), expr)
    for solver_free in (True, False):
        out = check_pinned(case, solver, timeout=20.0, solver_free=solver_free)
        assert (out.kind, out.sqlite_value) == ("ok", _sqlite(expr)), out
        assert out.exact, out


@pytest.mark.parametrize("solver", BOTH_SOLVERS)
def test_a_length_past_32_bits_is_refuted_by_the_solver(solver):
    """SUBSTR(s, 1, 2147483648) is '' for every s, so it differs from s on any
    non-empty text: the solver (random search off) finds such a database and SQLite
    confirms it. At 1c09da0 the encoding read the length as 64 bits, allowed only s
    itself, and the run ended in a timeout at k = 1."""
    schema = schema_from_ddl("CREATE TABLE t (id INTEGER PRIMARY KEY, s TEXT)")
    res = check(schema, "SELECT SUBSTR(s, 1, 2147483648) FROM t", "SELECT s FROM t",
                bound=2, solver=solver, probe_trials=0, timeout=60)
    assert res.verdict.value == "not_equivalent", res.reason
    rows = res.counterexample["t"]
    assert any(r["s"] not in (None, "") for r in rows)


def test_round_past_fifteen_digits_is_unsupported_not_modelled():
    """SQLite's ROUND(2020.0, 16) is 2019.999999999999 (its printf's digits past a
    double's precision), ROUND(123.456, 17) is 123.456: no exact-rational rule gives
    both, so more than 15 digits is named unsupported, never approximated."""
    conn = sqlite3.connect(":memory:")
    assert conn.execute("SELECT ROUND(2020.0, 16)").fetchone()[0] != 2020.0
    assert conn.execute("SELECT ROUND(2020.0, 15)").fetchone()[0] == 2020.0
    schema = schema_from_ddl("CREATE TABLE t (id INTEGER PRIMARY KEY, r REAL)")
    res = check(schema, "SELECT ROUND(r, 16) FROM t", "SELECT ROUND(r, 15) FROM t",
                bound=1, probe_trials=0, timeout=30)
    assert res.verdict.value == "unsupported" and "ROUND to 16 digits" in res.reason
    ok = check(schema, "SELECT ROUND(r, 15) FROM t", "SELECT ROUND(r, 15) FROM t",
               bound=1, probe_trials=0, timeout=30)
    assert ok.verdict.value == "equivalent"
