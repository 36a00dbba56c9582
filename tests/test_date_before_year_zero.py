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


# SQLite checks a time value's range (Julian day 0 at noon .. 9999-12-31) at the end,
# and where a modifier needs the civil date of a Julian day the arithmetic moved;
# in between a Julian day is only a number. The encoding checked every step and never
# the end: DATE(0, 'start of year') is -4713-01-01, before day 0, NULL in SQLite, and
# was encoded as that text (found by the stop-31 soak); DATE(0, '-1 day', '+2 days') is
# -4713-11-25 and was encoded as NULL. SQLite's value is computed in each check.
RANGE_EXPRS = [
    "DATE(i, 'start of year')", "DATE(i, 'start of month')", "DATE(i, 'start of day')",
    "DATE(i, '-1 day', '+2 days')", "DATETIME(i, '-1 hour')", "DATE(DATE(i))",
    "DATE(i, 'start of month', '+1 month')", "DATE(i, '-1 month', '+1 month')",
    "DATE(i, '-1 day', '+1 day', 'start of month')", "DATE(i, '+12 hours', '-1 second')",
    "DATE(i, '-12 hours', 'start of day', '+1 day')", "DATE(i, '-4714 years', '+4714 years')",
]


def test_sqlite_checks_the_range_at_the_end_and_before_a_civil_step():
    conn = sqlite3.connect(":memory:")
    values = [conn.execute(f"SELECT {e}").fetchone()[0] for e in (
        "DATE(0, 'start of year')", "DATE(0, '-1 day', '+2 days')",
        "DATE(0, 'start of month', '+1 month')", "DATE(0, '-1 day', '+1 day', 'start of month')")]
    assert values == [None, "-4713-11-25", "-4713-12-01", None]


@pytest.mark.parametrize("solver", BOTH_SOLVERS)
@pytest.mark.parametrize("expr", RANGE_EXPRS)
@pytest.mark.parametrize("day", [0, 1, 40, 5373484])
def test_the_range_is_sqlites_around_julian_day_zero_and_9999(expr, day, solver):
    out = check_pinned(PinnedCase((("i", "INTEGER"),), (day,), expr), solver, timeout=20.0)
    if out.kind == "error" and out.detail.startswith("timeout"):
        pytest.skip(f"{solver} timed out: inconclusive")
    assert (out.kind, out.exact) == ("ok", True), out


def test_a_start_of_year_before_day_zero_is_not_proven_equivalent():
    """Rows whose start of year is before Julian day 0 are filtered out by SQLite (i = 0
    to 38 are days of the year -4713); the BETWEEN keeps them: not equivalent."""
    from spotit import check

    res = check("CREATE TABLE t (i INTEGER);",
                "SELECT i FROM t WHERE DATE(i, 'start of year') IS NOT NULL",
                "SELECT i FROM t WHERE i BETWEEN 0 AND 5373484", bound=2, probe_trials=0)
    assert res.verdict.value == "not_equivalent", res.reason
