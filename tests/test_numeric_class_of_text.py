"""Which texts SQLite reads as an INTEGER and which as a REAL, in the three places it
decides: CAST AS NUMERIC (sqlite3VdbeMemNumerify: an integer prefix that fits, else a
whole double within 2**51), comparison with a NUMERIC column (applyNumericAffinity
without trying for an integer: '1.0' compares as the REAL it reads) and a value stored
by a NUMERIC column (whole doubles strictly inside the 64-bit range become INTEGERs).

The encoding used to class point text by its digits ('123456789012345678.0' an
INTEGER, exactly) and 19-digit integer text as a REAL; SQLite disagrees on both. Each
case is checked by Thm 1 on a pinned row: the encoding must admit SQLite's own answer,
which the check computes by running the expression (the text of the value tells the
classes apart: '12' against '12.0')."""

from __future__ import annotations

import sqlite3

import pytest

from spotit.proofs.pinned import PinnedCase, check_pinned
from spotit.solvers.testing import BOTH_SOLVERS

TEXTS = [
    "9223372036854775807",  # INT64_MAX: INTEGER
    "-9223372036854775808",
    "1234567890123456789",
    "9223372036854775808",  # one past: REAL
    "123456789012345678.0",  # whole, but past 2**51: REAL under CAST
    "2251799813685247.0",  # 2**51 - 1: INTEGER
    "2251799813685248.0",  # 2**51: REAL under CAST, INTEGER when stored
    "-2251799813685248.0",
    "1.00000000000000001",  # the double is 1.0: INTEGER 1
    "1125899906842624.1",  # rounds to a whole double
    "12.",
    "1.0abc",
    "1.5abc",
    "1.5e2",
    "-0.0",
    "-.",
    " 42 ",
]



def _typeof(ddl: str, row: tuple, expr: str) -> str:
    conn = sqlite3.connect(":memory:")
    conn.execute(ddl)
    conn.execute(f"INSERT INTO t VALUES ({', '.join('?' * len(row))})", row)
    return conn.execute(f"SELECT typeof({expr}) FROM t").fetchone()[0]


def test_sqlite_classes_these_texts_both_ways():
    """The cases matter: SQLite's CAST gives INTEGER for some, REAL for others."""
    case = PinnedCase((("s", "TEXT"),), ("",), "")
    kinds = {t: _typeof(case.ddl, (t,), "CAST(s AS NUMERIC)") for t in TEXTS}
    assert kinds["1234567890123456789"] == kinds["1.00000000000000001"] == "integer"
    assert kinds["123456789012345678.0"] == kinds["2251799813685248.0"] == "real"


def _check(case: PinnedCase, solver: str):
    out = check_pinned(case, solver, timeout=20.0)
    if out.kind == "error" and out.detail.startswith("timeout"):
        pytest.skip(f"{solver} timed out: inconclusive")
    assert out.kind == "ok", out


@pytest.mark.parametrize("solver", BOTH_SOLVERS)
@pytest.mark.parametrize("text", TEXTS)
def test_cast_as_numeric(text, solver):
    _check(PinnedCase((("s", "TEXT"),), (text,),
                      "CAST(s AS NUMERIC) || ''"), solver)


@pytest.mark.parametrize("solver", BOTH_SOLVERS)
@pytest.mark.parametrize("text,number", [
    ("123456789012345678.0", 123456789012345678),  # the REAL read is ...680: unequal
    ("123456789012345678.0", 123456789012345680),
    ("1.0", 1),
    ("9223372036854775807", 9223372036854775807),
    ("2251799813685249.0", 2251799813685249),
])
def test_comparison_with_a_numeric_column(text, number, solver):
    _check(PinnedCase((("s", "TEXT"), ("n", "NUMERIC")), (text, number),
                      "CASE WHEN n = s THEN 'eq' WHEN n < s THEN 'lt' ELSE 'gt' END"), solver)


@pytest.mark.parametrize("solver", BOTH_SOLVERS)
@pytest.mark.parametrize("text", ["123456789012345678.0", "2251799813685248.0", "12.",
                                  "-9223372036854775808.0", "1234567890123456789"])
def test_value_a_numeric_column_stores(text, solver):
    _check(PinnedCase((("s", "TEXT"),), (text,), "g || ''",
                      generated=(("g", "NUMERIC AS (s)"),)), solver)


def test_an_infinite_sqlite_value_is_skipped_not_a_crash():
    """'1e400' + 0 is Inf in SQLite; overflow to infinity is outside the model
    (docs/semantics.md), so the pinned check says so instead of failing inside."""
    case = PinnedCase((("s", "TEXT"),), ("1e400",), "s + 0")
    assert _typeof(case.ddl, case.row, "s + 0") == "real"
    out = check_pinned(case, "z3", timeout=5.0)
    assert out.kind == "skipped" and "infinite" in out.detail, out


# % reads a text operand as CAST AS INTEGER does (its integer prefix, the VDBE's
# sqlite3VdbeIntValue), while its class comes from the number it reads as: '1e1' % 7
# is 1.0 (not 10 % 7), 7 % '5e-1' is 2.0 (a divisor of 5, not 0: not NULL), and the
# 16 digits of '4503599627370495.9' stay exact (the double rounds up to ...496). The
# encoding truncated the REAL reading; the fuzz found '1e1' % i on a pinned row.
REMAINDER_TEXTS = ["1e1", "-1e1", " 1e1x", "1.9e1", "5e-1", ".5e1", "1e20",
                   "4503599627370495.9", "12abc", "1.5", "", "-."]


def test_sqlite_reads_a_remainders_text_operand_by_its_integer_prefix():
    case = PinnedCase((("s", "TEXT"),), ("",), "")
    conn = sqlite3.connect(":memory:")
    assert conn.execute("SELECT '1e1' % 7, '1e1' + 0, 7 % '5e-1', 7 % 0.5").fetchone() == (
        1.0, 10.0, 2.0, None)
    assert _typeof(case.ddl, ("1e1",), "s % 7") == "real"
    assert _typeof(case.ddl, ("12abc",), "s % 7") == "integer"


@pytest.mark.parametrize("solver", BOTH_SOLVERS)
@pytest.mark.parametrize("text", REMAINDER_TEXTS)
@pytest.mark.parametrize("expr", ["s % 7 || ''", "7 % s || ''", "(s % -3) + i",
                                  "{t} % i || ''", "(i + 2) % {t} || ''"])
def test_remainder_of_text(text, expr, solver):
    """On a column (the exponent's reading is approximate there: SQLite's value must be
    admitted) and as a literal (exact: SQLite's value and no other)."""
    expr = expr.format(t="'" + text + "'")
    _check(PinnedCase((("s", "TEXT"), ("i", "INTEGER")), (text, 5), expr), solver)
