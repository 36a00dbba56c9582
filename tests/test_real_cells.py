"""A REAL cell holds a double: what the solver picks for it must be one, or the
database SQLite judges is not the one the solver found (it holds the nearest double).

Before: a difference that needs a REAL just above a large constant (``r > 1.7e308``)
was reported `spurious` (the solver picked 1.7e308 plus a little, which SQLite stores
as 1.7e308), and a cell beyond the largest double stopped a check with an internal
error (``OverflowError`` while decoding a BIRD pair's model)."""

from __future__ import annotations

import math
import sqlite3
import sys
from fractions import Fraction

import pytest

from spotit import check
from spotit.encodings.builder import Builder
from spotit.encodings.database import SymbolicDatabase, _python_value
from spotit.ir.types import StorageClass
from spotit.schema import schema_from_ddl

DDL = "CREATE TABLE t (id INTEGER PRIMARY KEY, r REAL NOT NULL);"
SCHEMA = schema_from_ddl(DDL)


def _rows_where(condition: str, r: float) -> list:
    con = sqlite3.connect(":memory:")
    con.execute(DDL)
    con.execute("INSERT INTO t VALUES (1, ?)", (r,))
    return con.execute(f"SELECT id FROM t WHERE {condition}").fetchall()


@pytest.mark.parametrize("condition", [
    "r > 1.7e308",                         # the next double above 1.7e308
    "r / 2 > 8.98e307",                    # r near the largest double
    "r > 0.1 AND r < 0.1000000000000001",  # a few doubles in a narrow window
])
def test_a_difference_that_needs_a_particular_double_is_confirmed(condition):
    # independently of SpotIt: a double satisfies the condition, so the two differ
    lo = {"r > 1.7e308": 1.7e308, "r / 2 > 8.98e307": 1.797e308,
          "r > 0.1 AND r < 0.1000000000000001": 0.1}[condition]
    assert _rows_where(condition, math.nextafter(lo, math.inf)) == [(1,)]
    res = check(SCHEMA, f"SELECT id FROM t WHERE {condition}", "SELECT id FROM t WHERE 0",
                probe_trials=0, timeout=60)
    assert res.verdict.value == "not_equivalent", res.reason
    (row,) = res.counterexample["t"]
    assert _rows_where(condition, row["r"]) == [(1,)]


def test_a_cell_between_two_doubles_gets_a_fact_that_excludes_the_gap():
    b = Builder()
    db = SymbolicDatabase(SCHEMA, 1, b)
    cell = db.cell("t", 0, 1)
    (alt,) = [a for a in cell.alts if a.cls is StorageClass.REAL]
    v = Fraction(1, 10)  # not a double: 0.1 is 0.1000000000000000055...
    lo, hi = math.nextafter(0.1, 0), 0.1
    assert Fraction(lo) < v < Fraction(hi)
    (fact,) = db.between_doubles({alt.term.symbol_name(): v})
    assert fact == b.or_(b.le(alt.term, b.real(Fraction(lo))),
                         b.le(b.real(Fraction(hi)), alt.term))
    assert db.between_doubles({alt.term.symbol_name(): Fraction(0.5)}) == []  # a double


def test_a_value_beyond_the_doubles_decodes_to_the_largest_one():
    assert _python_value(StorageClass.REAL, 10**400) == sys.float_info.max
    assert _python_value(StorageClass.REAL, -(10**400)) == -sys.float_info.max


def test_round_readings_at_the_largest_double():
    """The fuzz (seed 83) reached ROUND's reading of a REAL cell at DBL_MAX: the nudged
    rounding lies past the largest double, and float() raised OverflowError. SQLite's
    ROUND(1.7976931348623157e308, 1) is that double itself: the plain rounding."""
    import sqlite3
    import sys
    from fractions import Fraction

    from spotit.encodings.numeric import _nudged_reading, _printf_reading

    top = sys.float_info.max
    assert sqlite3.connect(":memory:").execute("SELECT ROUND(?, 1)", (top,)).fetchone()[0] == top
    assert _nudged_reading(1)(Fraction(top)) is False
    assert _printf_reading(1)(Fraction(top)) == Fraction(top)
    assert _nudged_reading(1)(Fraction(top) * 2) is None  # no double: no reading
