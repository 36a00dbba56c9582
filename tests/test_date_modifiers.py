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
