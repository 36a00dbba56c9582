"""The text of a REAL computed by arithmetic is SQLite's text of a double.

The encoding models REAL as exact rationals and folds constant arithmetic
exactly; a REAL-to-text shortcut for constants that are doubles made
``CAST(((r*0 + 1e6) + 0.3) - 1e6 AS TEXT) = '0.3'`` hold for every non-NULL r,
so the pair below was proven equivalent. SQLite computes the sum in doubles:
the text is '0.300000000046566' (checked below), the WHERE is false, and the
queries differ on any row with a non-NULL r. Found in review, kept here."""

from __future__ import annotations

import sqlite3

from spotit.pipeline import check
from spotit.schema import schema_from_ddl
from spotit.solvers.testing import requires_solver

DDL = "CREATE TABLE t (r REAL);"
GOLD = "SELECT r FROM t WHERE CAST(((r*0 + 1e6) + 0.3) - 1e6 AS TEXT) = '0.3'"
PRED = "SELECT r FROM t WHERE r IS NOT NULL"


def test_sqlite_gives_the_text_of_the_double():
    conn = sqlite3.connect(":memory:")
    conn.executescript(DDL + "INSERT INTO t VALUES (2.0);")
    assert conn.execute(GOLD).fetchall() == []
    assert conn.execute(PRED).fetchall() == [(2.0,)]


@requires_solver("z3")
def test_the_pair_is_not_called_equivalent():
    res = check(schema_from_ddl(DDL), GOLD, PRED, bound=1, solver="z3", probe_trials=0,
                timeout=60)
    assert res.verdict.value == "not_equivalent", (res.verdict, res.reason)


DIGITLESS_DDL = "CREATE TABLE t (s TEXT);"
DIGITLESS_GOLD = "SELECT CAST(s + 0 AS TEXT) FROM t"
DIGITLESS_PRED = ("SELECT CASE WHEN s GLOB '.*' THEN CAST(CAST(s + 0 AS REAL) AS TEXT) "
                  "ELSE CAST(s + 0 AS TEXT) END FROM t")


def test_text_with_a_point_and_no_digit_is_integer_zero_in_sqlite():
    """'.', '-.' and '.e5' have no digit: their numeric reading is INTEGER 0, not 0.0
    (a text starting with '.' used to be classed REAL whatever followed)."""
    conn = sqlite3.connect(":memory:")
    conn.executescript(DIGITLESS_DDL + "INSERT INTO t VALUES ('.');")
    assert conn.execute(DIGITLESS_GOLD).fetchall() == [("0",)]
    assert conn.execute(DIGITLESS_PRED).fetchall() == [("0.0",)]
    assert conn.execute("SELECT typeof('-.x' + 0), typeof('.5' + 0)").fetchone() == (
        "integer", "real")


@requires_solver("z3")
def test_a_digitless_point_text_is_a_counterexample():
    schema = schema_from_ddl(DIGITLESS_DDL)
    res = check(schema, DIGITLESS_GOLD, DIGITLESS_PRED, bound=2, solver="z3",
                probe_trials=0, timeout=60)
    assert res.verdict.value == "not_equivalent", res
