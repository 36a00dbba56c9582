"""The date modifiers 'localtime' and 'utc': SpotIt's time zone is UTC.

With a zero offset both only normalise a time value, which is what ``'+0 seconds'``
does; SQLite agrees with that on every time value in 0000-01-01..9999-12-31 (checked
below in a process whose TZ is UTC), but outside that range its 'localtime' maps years
and returns other dates, so the encoding refuses values that may lie there.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime

import pytest

from spotit import check
from spotit.frontend.now import pin_now

SCHEMA = "CREATE TABLE t(d DATE, s DATETIME, x INTEGER, txt TEXT);"

IN_RANGE = ["'2020-01-01'", "'2020-02-29 23:59:59.5'", "'2020-02-29T23:59:59'", "'0000-01-01'",
            "'9999-12-31 23:59:59'", "'12:30'", "'2100-02-28 12:00'", "'1969-12-31 23:59:59.999'",
            "'2038-01-19 03:14:08'", "'2020-02-30'", "2459000.5", "NULL", "'abc'"]
MODIFIERS = [["'localtime'"], ["'utc'"], ["'LocalTime'"], ["'localtime'", "'utc'"],
             ["'start of month'", "'localtime'"], ["'localtime'", "'+1 day'"]]


def test_sqlite_in_utc_agrees_with_the_rewrite():
    """In UTC, 'localtime'/'utc' on an in-range time value equal '+0 seconds'."""
    calls = [f"{f}({v}, {', '.join(m)})" for f in ("date", "datetime", "time", "julianday")
             for v in IN_RANGE for m in MODIFIERS]
    script = ("import json, sqlite3, sys; c = sqlite3.connect(':memory:'); "
              "print(json.dumps([c.execute('SELECT ' + q).fetchone()[0] "
              "for q in json.loads(sys.argv[1])]))")
    env = {**os.environ, "TZ": "UTC"}
    out = subprocess.run([sys.executable, "-c", script, json.dumps(calls)], env=env,
                         capture_output=True, text=True, check=True)
    real = json.loads(out.stdout)
    import sqlite3

    c = sqlite3.connect(":memory:")
    now = datetime(2024, 1, 1)
    for call, value in zip(calls, real, strict=True):
        pinned = pin_now(f"SELECT {call}", now)
        assert "localtime" not in pinned.lower()
        assert c.execute(pinned).fetchone()[0] == value, call


def test_pin_rewrites_only_modifiers():
    now = datetime(2024, 1, 1)
    assert pin_now("SELECT 'localtime', date(d, 'utc') FROM t", now) == \
        "SELECT 'localtime', DATE(d, '+0 seconds') FROM t"
    assert pin_now("SELECT date(d, ' utc') FROM t", now) == "SELECT date(d, ' utc') FROM t"


@pytest.mark.parametrize("gold", [
    "SELECT datetime(x, 'localtime') FROM t",  # an integer is a Julian day: -1 maps years
    "SELECT date(d, '+1 day', 'localtime') FROM t",  # 9999-12-31 +1 day leaves the range
    "SELECT date(txt, 'utc') FROM t",  # text may be a number
    "SELECT date(-1, 'localtime') FROM t",
])
def test_values_that_may_leave_the_range_are_unsupported(gold):
    r = check(SCHEMA, gold, "SELECT 1 FROM t", bound=1, probe_trials=0)
    assert r.verdict.value == "unsupported", r.reason
    assert "date modifier" in r.reason and "outside 0000-01-01..9999-12-31" in r.reason


def test_constant_in_range_is_normalised():
    r = check(SCHEMA, "SELECT date('2020-02-30', 'localtime') FROM t",
              "SELECT '2020-03-01' FROM t", bound=2, probe_trials=0)
    assert r.verdict.value == "equivalent", r.reason


@pytest.mark.parametrize("expr", [
    "IIF(x = 1, 'now', d)",              # through IIF/CASE
    "COALESCE(txt, 'now')",              # through COALESCE
    "(SELECT 'now')",                    # through a subquery
])
def test_now_computed_by_an_expression_is_unsupported(expr):
    """SQLite reads the clock wherever a date function meets 'now', but only a written
    'now' is pinned before SQLite runs: pinning a computed one in the encoding alone
    would make it prove what the real clock refutes (here: DATE(now) = 2024-01-01)."""
    gold = f"SELECT x FROM t WHERE DATE({expr}) = '2024-01-01'"
    pred = "SELECT x FROM t WHERE x = 1 AND txt IS NULL"
    r = check(SCHEMA, gold, pred, bound=2, now=datetime(2024, 1, 1), probe_trials=0)
    assert r.verdict.value == "unsupported", r.reason
    assert "'now' computed" in r.reason


def test_now_spelled_by_an_expression_is_read_as_unknown_text():
    """Text SpotIt cannot fold (``'no' || 'w'``) is read as a time value of an unusual
    shape, over-approximated: never proved equal to a fixed date; the difference the
    real clock makes is found and confirmed by SQLite."""
    gold = "SELECT x FROM t WHERE DATE('no' || 'w') = '2024-01-01'"
    r = check(SCHEMA, gold, "SELECT x FROM t WHERE x = 1 AND txt IS NULL", bound=2,
              now=datetime(2024, 1, 1), probe_trials=0)
    assert r.verdict.value in ("unsupported", "not_equivalent"), r.reason


@pytest.mark.parametrize("args", ["d, 'local' || 'time'", "d, IIF(x, 'utc', '+1 day')"])
def test_zone_modifier_computed_by_an_expression_is_unsupported(args):
    r = check(SCHEMA, f"SELECT DATE({args}) FROM t", "SELECT DATE(d) FROM t", bound=2,
              probe_trials=0)
    assert r.verdict.value in ("unsupported", "not_equivalent"), r.reason
    if r.verdict.value == "unsupported":
        assert "computed" in r.reason


def test_written_now_is_still_checked():
    r = check(SCHEMA, "SELECT DATE('now') FROM t", "SELECT DATE('2024-01-01') FROM t",
              bound=2, now=datetime(2024, 1, 1), probe_trials=0)
    assert r.verdict.value == "equivalent", r.reason
