"""Calls SQLite defines as another form (LIKE(), GLOB(), IIF()), UNIXEPOCH, and date
functions without a time value, which read SQLite's clock: each against SQLite's own
answer on a database built here, at a pinned instant."""

from __future__ import annotations

import sqlite3
from datetime import datetime

import pytest

from spotit import check
from spotit.frontend.now import mentions_now, pin_now
from spotit.reference import reference_markdown

T = "CREATE TABLE t(id INTEGER PRIMARY KEY, d TEXT, s TEXT);"
NOW = datetime(2024, 2, 29, 8, 30, 0)
ROWS = [(1, "2024-02-28", "abc"), (2, "1970-01-02 00:00:01", "ABd"), (3, None, "a_c"),
        (4, "2024-03-01 12:00:00", None), (5, "not a date", "a%")]


def sqlite_rows(sql: str) -> list[tuple]:
    conn = sqlite3.connect(":memory:")
    conn.execute(T)
    conn.executemany("INSERT INTO t VALUES (?, ?, ?)", ROWS)
    return sorted(conn.execute(pin_now(sql, NOW)).fetchall(), key=repr)


# (call form, operator form): SQLite's lang_corefunc.html defines the first as the second
FORMS = [
    ("SELECT id FROM t WHERE like('a%', s)", "SELECT id FROM t WHERE s LIKE 'a%'"),
    ("SELECT id FROM t WHERE like('a!%', s, '!')",
     "SELECT id FROM t WHERE s LIKE 'a!%' ESCAPE '!'"),
    ("SELECT id FROM t WHERE glob('a*', s)", "SELECT id FROM t WHERE s GLOB 'a*'"),
    ("SELECT id, iif(s = 'abc', 1, 2) FROM t",
     "SELECT id, CASE WHEN s = 'abc' THEN 1 ELSE 2 END FROM t"),
]


@pytest.mark.parametrize("call,operator", FORMS)
def test_a_call_is_the_form_sqlite_defines_it_as(call, operator):
    assert sqlite_rows(call) == sqlite_rows(operator)
    res = check(T, call, operator, bound=2, now=NOW)
    assert res.verdict.value == "equivalent", res.reason


def test_like_and_glob_calls_keep_their_difference():
    # GLOB is case-sensitive, LIKE is not: 'ABd' tells them apart
    call, other = "SELECT id FROM t WHERE glob('a*', s)", "SELECT id FROM t WHERE like('a%', s)"
    assert sqlite_rows(call) != sqlite_rows(other)
    res = check(T, call, other, bound=2, now=NOW)
    assert res.verdict.value == "not_equivalent", res.reason


# a date function without a time value reads the clock: 'now', pinned
CLOCK = [
    ("SELECT date() FROM t", "SELECT '2024-02-29' FROM t"),
    ("SELECT strftime('%Y-%m') FROM t", "SELECT '2024-02' FROM t"),
    ("SELECT time() FROM t", "SELECT '08:30:00' FROM t"),
    ("SELECT unixepoch() FROM t", "SELECT 1709195400 FROM t"),
]


@pytest.mark.parametrize("clock,constant", CLOCK)
def test_a_date_function_without_a_time_value_reads_the_pinned_instant(clock, constant):
    assert mentions_now(clock)
    assert sqlite_rows(clock) == sqlite_rows(constant)  # at NOW, SQLite agrees
    res = check(T, clock, constant, bound=2, now=NOW)
    assert res.verdict.value == "equivalent", res.reason
    later = check(T, clock, constant, bound=2, now=datetime(2025, 3, 1, 9, 0, 0))
    assert later.verdict.value == "not_equivalent", later.reason


def test_unixepoch_is_whole_seconds_since_1970():
    # SQLite: 1970-01-02 00:00:01 is 86401 seconds; NULL and non-dates are NULL
    q = "SELECT id, unixepoch(d) FROM t"
    assert dict(sqlite_rows(q))[2] == 86401 and dict(sqlite_rows(q))[5] is None
    for other, verdict in (("SELECT id, unixepoch(d) FROM t WHERE 1 = 1", "equivalent"),
                           ("SELECT id, unixepoch(d) + 1 FROM t", "not_equivalent")):
        res = check(T, q, other, bound=2, now=NOW, timeout=120)
        assert res.verdict.value == verdict, res.reason


def test_the_forms_are_in_the_reference():
    doc = reference_markdown()
    for name in ("`LIKE`", "`GLOB`", "`IIF`", "`UNIXEPOCH`"):
        assert name in doc
