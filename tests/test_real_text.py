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
