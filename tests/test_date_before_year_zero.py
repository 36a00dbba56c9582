"""DATE() of a small Julian day is a date before year 0 ('-4712-03-03'); a date function
reading that text again must write the year signed again. The encoding took the parts
of such text as a four-digit year and wrote '000-03-03 00:00:00' (found by the fuzz with
REAL cells in a DATETIME column, stop 30). SQLite's answer is computed in each check."""

from __future__ import annotations

import sqlite3

import pytest

from spotit.proofs.pinned import PinnedCase, check_pinned
from spotit.solvers.testing import BOTH_SOLVERS

EXPRS = ["DATETIME(DATE(dt))", "DATE(DATE(dt), '+1 day')", "STRFTIME('%Y', DATE(dt))",
         "DATETIME(DATETIME(dt))"]


def test_sqlite_writes_these_years_signed():
    conn = sqlite3.connect(":memory:")
    assert conn.execute("SELECT DATETIME(DATE(100.0))").fetchone()[0] == "-4712-03-03 00:00:00"


@pytest.mark.parametrize("solver", BOTH_SOLVERS)
@pytest.mark.parametrize("expr", EXPRS)
@pytest.mark.parametrize("day", [100.0, 1000.0])
def test_date_text_with_a_negative_year_read_again(expr, day, solver):
    out = check_pinned(PinnedCase((("dt", "DATETIME"),), (day,), expr, data="sqlite"),
                       solver, timeout=20.0)
    if out.kind == "error" and out.detail.startswith("timeout"):
        pytest.skip(f"{solver} timed out: inconclusive")
    assert out.kind == "ok", out
