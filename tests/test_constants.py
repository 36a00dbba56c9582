"""Literals keep their storage class: Python's 0 == 0.0 == False must not leak into
plans, caches or verdicts (bugs the fuzzer found)."""

from __future__ import annotations

from spotit.concrete import apply_affinity, evaluate
from spotit.ir.scalar import Const
from spotit.ir.types import Affinity
from spotit.pipeline import check

SCHEMA = "CREATE TABLE t (id INTEGER PRIMARY KEY, x INTEGER);"


def test_constants_of_different_classes_are_different_nodes():
    assert Const(0) != Const(0.0) and Const(1) != Const(True)
    assert Const(0.0) != Const(-0.0)
    assert Const(2) == Const(2) and len({Const(0), Const(0.0), Const("0")}) == 3


def test_sqlite_folding_cache_tells_0_and_0_0_apart():
    # by SQLite: CAST(0 AS TEXT) is '0', CAST(0.0 AS TEXT) is '0.0', whatever ran first
    assert evaluate("CAST(? AS TEXT)", (0,)) == "0"
    assert evaluate("CAST(? AS TEXT)", (0.0,)) == "0.0"
    assert apply_affinity(0, Affinity.TEXT) == "0"
    assert apply_affinity(0.0, Affinity.TEXT) == "0.0"


def test_integer_and_real_literal_are_not_the_same_plan():
    # x = 1: x || 0 is '10', x || 0.0 is '10.0'; one row of t tells them apart (the
    # plans once compared equal, and the pair was called equivalent without a search)
    res = check(SCHEMA, "SELECT x || 0 FROM t", "SELECT x || 0.0 FROM t", bound=2,
                probe_trials=0)
    assert res.verdict.value == "not_equivalent" and res.cex_bound == 1
