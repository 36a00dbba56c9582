"""Date modifiers as SQLite 3.40 spells them. It reads '+5 years' in any case with
any whitespace between number and unit, but not '+ 5 years', ' +5 years', '+5 years '
or 'start  of month' (errors: NULL); the encoding used to read those loosely, as dates.
SQLite also refuses a move of too many units even when a later one undoes it. SQLite's
answer is computed in each check; the encoding must match it or say unsupported."""

from __future__ import annotations

import sqlite3

import pytest

from spotit.proofs.pinned import PinnedCase, check_pinned

READ = ["'+5  years'", "'5 years'", "'+05 days'", "'+5 DAYS'", "'START OF MONTH'",
        "'+5' || char(9) || 'day'", "'-5373484 days', '+5373484 days'",
        "'-5373485 days', '+5373485 days'", "'+128969998336 hours'",
        "'-128969998335 hours', '+128969998335 hours'"]
REFUSED = ["'+ 5 years'", "' +5 years'", "'+5 years '", "'- 5 days'", "'+5days'",
           "'start  of month'", "'start of month '", "'+5 day' || char(9)"]


def _sqlite(mods: str):
    return sqlite3.connect(":memory:").execute(
        f"SELECT DATE('2000-01-01', {mods})").fetchone()[0]


def test_sqlite_refuses_these_spellings_and_moves():
    assert all(_sqlite(m) is None for m in REFUSED)
    assert _sqlite("'-5373485 days', '+5373485 days'") is None
    assert _sqlite("'-5373484 days', '+5373484 days'") == "2000-01-01"


@pytest.mark.parametrize("mods", READ)
def test_a_spelling_sqlite_reads_is_exact(mods):
    out = check_pinned(PinnedCase((("d", "DATE"),), ("2000-01-01",), f"DATE(d, {mods})"))
    assert (out.kind, out.exact) == ("ok", True), out


@pytest.mark.parametrize("mods", REFUSED)
def test_a_spelling_sqlite_refuses_is_not_read_as_a_date(mods):
    out = check_pinned(PinnedCase((("d", "DATE"),), ("2000-01-01",), f"DATE(d, {mods})"))
    assert out.kind == "unsupported" and "date modifier" in out.detail, out


# a modifier computed as [sign ||] n || ' unit': the gaps-and-islands idiom
# DATE(d, '-' || ROW_NUMBER() OVER (...) || ' days')
COMPUTED = ["'-' || n || ' days'", "'+' || n || ' days'", "n || ' days'",
            "'-' || n || ' hours'", "n || '  MINUTES'", "'+' || (n - 2) || ' second'",
            "'+' || n || ' months'", "n || ' years'", "'-' || n || ' month'"]
NUMBERS = [("INTEGER", 3), ("INTEGER", -3), ("INTEGER", 0), ("INTEGER", None),
           ("INTEGER", 5373485), ("INTEGER", -5373484), ("INTEGER", 11), ("INTEGER", 95999),
           ("INTEGER", -24000)]
ODD = [("REAL", 2.5), ("REAL", 2.0), ("TEXT", "3"), ("TEXT", "x"), ("TEXT", "1e1")]


def _months(mod: str, n: int | None) -> int:
    return abs(n or 0) * (12 if "year" in mod else 1) if "month" in mod or "year" in mod else 0


@pytest.mark.parametrize("mod, column", [
    (mod, column) for mod in COMPUTED for column in NUMBERS
    if _months(mod, column[1]) <= 200000])  # more months: read freely (below)
def test_a_move_by_an_integer_is_exact(mod, column):
    """SQLite's answer at each integer (the '+-3 days' of a negative one after a sign
    is no modifier: NULL; a move past its limit: NULL) is the encoding's, exactly."""
    typ, n = column
    out = check_pinned(PinnedCase((("d", "DATETIME"), ("n", typ)),
                                  ("2000-03-01 10:00:00", n), f"DATETIME(d, {mod})"))
    assert (out.kind, out.exact) == ("ok", True), out


@pytest.mark.parametrize("mod", [*COMPUTED[:3], COMPUTED[6]])
@pytest.mark.parametrize("column", [*ODD, ("INTEGER", 10**12), ("INTEGER", 2**31)])
def test_a_move_by_another_value_admits_sqlites_answer(mod, column):
    """A REAL or a text (2.5 is '2.5 days', '1e1' is ten days, 'x' no modifier) is read
    freely: an over-approximation that must still admit SQLite's answer (asked of a
    number, UNIXEPOCH's: the solver does not find the free date behind a DATETIME text
    in the harness's time)."""
    typ, n = column
    out = check_pinned(PinnedCase((("d", "DATETIME"), ("n", typ)),
                                  ("2000-03-01 10:00:00", n), f"UNIXEPOCH(d, {mod})"))
    assert out.kind == "ok", out


def test_a_computed_month_move_starts_from_the_date_as_written():
    """A month move starts from the civil date SQLite parsed ('2021-02-30' + 1 month is
    '2021-03-30'), while after '+0 days' it starts from the instant (2021-03-02, so
    '2021-04-02'): SQLite's answers below. A free reading keyed on the instant alone
    made the two equal: a wrong 'equivalent' (a helper's hunt)."""
    import spotit

    ddl = "CREATE TABLE t (d TEXT, x REAL, n INTEGER)"
    conn = sqlite3.connect(":memory:")
    conn.execute(ddl)
    conn.execute("INSERT INTO t VALUES ('2021-02-30', 1.0, 1)")
    gold, pred = ("SELECT DATE(d, {} || ' months') FROM t",
                  "SELECT DATE(d, '+0 days', {} || ' months') FROM t")
    assert conn.execute(gold.format("x")).fetchall() == [("2021-03-30",)]
    assert conn.execute(pred.format("x")).fetchall() == [("2021-04-02",)]
    for v in ("x", "n"):
        r = spotit.check(ddl, gold.format(v), pred.format(v), bound=1, timeout=10)
        assert r.verdict.value != "equivalent", r.reason
    for expr in ("DATE(d, n || ' months')", "DATE(d, '+0 days', n || ' months')"):
        out = check_pinned(PinnedCase((("d", "TEXT"), ("n", "INTEGER")), ("2021-02-30", 1),
                                      expr))
        assert (out.kind, out.exact) == ("ok", True), out


# 'unixepoch': the number before it is seconds since 1970-01-01 00:00:00
UNIX = [1700000000, 0, -1, 86399, 86400, -86401, -210866760000, -210866760001,
        253402300799, 253402300800, None]


def test_sqlite_reads_unixepoch_so():
    """SQLite's answers these tests stand on (3.40): a day's second by floor division,
    Julian day 0 at noon the first second it takes, 9999's last second the last; only
    right after the number; date text is no number."""
    conn = sqlite3.connect(":memory:")

    def q(sql):
        return conn.execute(f"SELECT {sql}").fetchone()[0]
    assert q("DATETIME(1700000000, 'unixepoch')") == "2023-11-14 22:13:20"
    assert q("DATETIME(-1, 'unixepoch')") == "1969-12-31 23:59:59"
    assert q("DATETIME(-210866760000, 'unixepoch')") == "-4713-11-24 12:00:00"
    assert q("DATETIME(-210866760001, 'unixepoch')") is None
    assert q("DATETIME(253402300800, 'unixepoch')") is None
    assert q("DATETIME(0, '+1 day', 'unixepoch')") is None
    assert q("DATETIME('2020-01-01', 'unixepoch')") is None


@pytest.mark.parametrize("n", UNIX)
@pytest.mark.parametrize("call", ["DATETIME(n, 'unixepoch')", "DATE(n, 'UnixEpoch', '+1 month')",
                                  "STRFTIME('%s %Y %H', n, 'unixepoch')",
                                  "TIME(n, 'unixepoch', 'start of day', '+1 second')",
                                  "DATETIME(n, '+1 day', 'unixepoch')"])
def test_unixepoch_of_an_integer_is_exact(call, n):
    out = check_pinned(PinnedCase((("n", "INTEGER"),), (n,), call))
    assert (out.kind, out.exact) == ("ok", True), out


@pytest.mark.parametrize("column", [("REAL", 1.5), ("REAL", -0.0005), ("TEXT", "1700000000"),
                                    ("TEXT", " 17 "), ("TEXT", "abc"), ("DATE", "2020-01-01")])
def test_unixepoch_of_another_value_admits_sqlites_answer(column):
    typ, v = column
    out = check_pinned(PinnedCase((("n", typ),), (v,), "UNIXEPOCH(n, 'unixepoch')"))
    assert out.kind == "ok", out


def test_localtime_after_unixepoch_is_refused():
    """Seconds since 1970 may lie before the year 0, where SQLite's 'localtime' maps
    years (tests/test_time_zone.py): refused by name, as any value that may lie there."""
    out = check_pinned(PinnedCase((("n", "INTEGER"),), (1700000000,),
                                  "DATETIME(n, 'unixepoch', 'localtime')"))
    assert out.kind == "unsupported" and "localtime" in out.detail, out
