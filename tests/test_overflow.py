"""64-bit overflow, as SQLite has it: an INTEGER ``+ - *`` (or negation) whose result
leaves 64 bits is computed again in doubles and is REAL; CAST of a REAL beyond 64 bits
to INTEGER, and ``%`` of such a REAL, saturate at the nearest 64-bit integer.

Found by the fuzz (``(n + i) * n`` with ``n = 10000000000``: SQLite 1e20, the encoding
then the integer 10**20) and it made ``a*b`` and ``CAST(a*b AS INTEGER)`` "equivalent":
on ``a = 2**62, b = 4`` SQLite gives 1.8446744073709552e19 against 9223372036854775807.
Every expected value below is SQLite's, computed in the test.
"""

from __future__ import annotations

import sqlite3

import pytest

from spotit.pipeline import check
from spotit.proofs.fuzz import _pinned
from spotit.proofs.pinned import check_pinned

BIG = 9223372036854775807
# the fuzz table's columns: i INTEGER, r REAL, s, d, dt, n NUMERIC, a, sn, sr
ROW = (BIG, 1e10, "x", "2020-01-01", None, -BIG - 1, None, "a", "a")


@pytest.mark.parametrize("expr", [
    "i + 1", "n - 1", "-n", "n * n", "(i * 2) / 2", "i * -1", "CAST(i * 3 AS INTEGER)",
    "CAST(r * r AS INTEGER)", "CAST(-r * r AS INTEGER)", "(r * r) % 7", "(n * n) % 10",
    "(-r * r) % 10", "CAST(i + i AS TEXT) IS NOT NULL", "i + 1 > i",
])
def test_overflowing_expressions_take_sqlites_value(expr):
    out = check_pinned(_pinned(ROW, expr), "z3", timeout=20)
    assert out.kind == "ok", out


def test_the_fuzz_case_in_a_numeric_column():
    row = ("a ", 45.625, 1e10, "2020", None, 1e10, None, "a%b", "a%b")
    out = check_pinned(_pinned(row, "(((n + i) * n) - 2)", "sqlite"), "z3", timeout=20)
    assert out.kind == "ok" and out.sqlite_value == 1e20, out


SCHEMA = "CREATE TABLE t (a INTEGER, b INTEGER);"


def _confirmed(gold: str, pred: str, solver: str) -> None:
    res = check(SCHEMA, gold, pred, bound=1, solver=solver, probe_trials=0)
    assert res.verdict.value == "not_equivalent", res.reason
    (row,) = res.counterexample["t"]
    conn = sqlite3.connect(":memory:")
    conn.execute(SCHEMA)
    conn.execute("INSERT INTO t VALUES (?, ?)", (row["a"], row["b"]))
    assert conn.execute(gold).fetchall() != conn.execute(pred).fetchall()


def test_a_product_and_its_cast_differ_on_overflow():
    _confirmed("SELECT a * b FROM t", "SELECT CAST(a * b AS INTEGER) FROM t", "z3")


def test_cvc5_never_calls_them_equivalent():
    """cvc5 tends to pick products just past -2**63, where the double rounds to -2**63
    itself: a candidate SQLite does not confirm (REALs are exact rationals), never a
    proof."""
    res = check(SCHEMA, "SELECT a * b FROM t", "SELECT CAST(a * b AS INTEGER) FROM t",
                bound=1, solver="cvc5", probe_trials=0)
    assert res.verdict.value in ("not_equivalent", "spurious"), res.reason


def test_commuted_products_stay_equivalent():
    """Overflow is symmetric: a*b and b*a agree on every database (hand derivation)."""
    res = check(SCHEMA, "SELECT a * b FROM t", "SELECT b * a FROM t", bound=2)
    assert res.verdict.value == "equivalent", res.reason
