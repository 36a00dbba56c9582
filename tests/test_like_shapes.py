"""LIKE patterns with a fixed part at a fixed place ('a_c', 'ab%', '%_c') are encoded
as a length and one character per position (``strings._positional_like``): checked
against SQLite's own answer on pinned rows, with both solvers, for the edge cases of
that encoding -- ``_`` on any character, case folding of ASCII letters only, strings
shorter than, as long as and longer than the pattern."""

from __future__ import annotations

import sqlite3

import pytest

from spotit.proofs.pinned import PinnedCase, check_pinned
from spotit.solvers.testing import BOTH_SOLVERS

PATTERNS = ["abc", "a_c", "ab%", "%bc", "_b%", "%b_", "A.c", "é_", "%é", "__"]
TEXTS = ["abc", "ABC", "aXc", "ab", "abcd", "xbc", "", "é1", "É1", "a.c", "xé"]


def sqlite_like(text: str, pattern: str) -> int:
    return sqlite3.connect(":memory:").execute("SELECT ? LIKE ?", (text, pattern)).fetchone()[0]


def test_the_cases_cover_both_answers():
    answers = {(p, sqlite_like(t, p)) for p in PATTERNS for t in TEXTS}
    assert all((p, 1) in answers and (p, 0) in answers for p in PATTERNS)


@pytest.mark.parametrize("solver", BOTH_SOLVERS)
@pytest.mark.parametrize("pattern", PATTERNS)
def test_positional_like_agrees_with_sqlite(solver, pattern):
    for text in TEXTS:
        case = PinnedCase((("s", "TEXT"),), (text,), f"s LIKE '{pattern}'")
        out = check_pinned(case, solver=solver, solver_free=False)
        assert out.kind == "ok", (text, pattern, out)
