"""Division by a count: a divisor with few possible integer values (a COUNT is a sum
of 0/1 terms) is encoded as one division by a constant per value, which keeps the
formula linear. Verdicts are confirmed by SQLite; the value sets are derived by hand."""

from __future__ import annotations

import pytest
from pysmt.shortcuts import Symbol
from pysmt.typing import BOOL, INT

from spotit import check
from spotit.encodings.builder import Builder, small_int_range
from spotit.encodings.equivalence import Semantics
from spotit.pipeline import Checker, CheckOptions
from spotit.probe import probe
from spotit.schema import schema_from_ddl

SCHEMA = schema_from_ddl("CREATE TABLE t (id INTEGER PRIMARY KEY, g TEXT, v INTEGER);")
# sums that cannot leave 64 bits: a SUM that does is an error on SQLite, which the
# encoding does not model (docs/semantics.md), and with REAL rounding modelled an
# overflowing COUNT(*) * (SUM(v) / COUNT(*)) would be a candidate SQLite cannot run
BOUNDED = schema_from_ddl("CREATE TABLE t (id INTEGER PRIMARY KEY, g TEXT, "
                          "v INTEGER CHECK (v BETWEEN -1000000 AND 1000000));")


def test_values_read_from_the_shape_of_a_term():
    b = Builder()
    p, q = Symbol("p", BOOL), Symbol("q", BOOL)
    one_or_zero = b.ite(p, b.int(1), b.int(0))
    assert small_int_range(b.plus(one_or_zero, b.ite(q, b.int(1), b.int(0)))) == {0, 1, 2}
    assert small_int_range(b.to_real(b.ite(p, b.int(3), b.int(-1)))) == {3, -1}
    assert small_int_range(b.plus(one_or_zero, Symbol("x", INT))) is None  # unbounded
    many = b.m.Plus([b.ite(Symbol(f"r{i}", BOOL), b.int(1), b.int(0)) for i in range(200)])
    assert small_int_range(many) is None  # more values than are worth a case each


def _has_symbolic_division(formulas) -> bool:
    seen, todo = set(), list(formulas)
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        if f.is_div() and not f.arg(1).is_constant():
            return True
        todo.extend(f.args())
    return False


@pytest.mark.parametrize("schema,gold,pred,same", [
    # AVG adds up in doubles, SUM in integers: beyond 2**53 they differ (SQLite confirms)
    (SCHEMA, "SELECT CAST(SUM(v) AS REAL) / COUNT(v) FROM t", "SELECT AVG(v) FROM t", False),
    (BOUNDED, "SELECT CAST(SUM(v) AS REAL) / COUNT(v) FROM t", "SELECT AVG(v) FROM t", True),
    (SCHEMA, "SELECT CAST(SUM(v) AS REAL) / COUNT(v) FROM t",
     "SELECT SUM(v) * 1.0 / COUNT(v) FROM t", True),
    (SCHEMA, "SELECT g, CAST(SUM(v) AS REAL) * 100 / COUNT(*) FROM t GROUP BY g",
     "SELECT g, TOTAL(v) * 100 / COUNT(id) FROM t GROUP BY g", False),  # SUM of NULLs
    (SCHEMA, "SELECT SUM(v) / COUNT(v) FROM t", "SELECT AVG(v) FROM t", False),  # integer division
    (BOUNDED, "SELECT SUM(v) % COUNT(*) FROM t",
     "SELECT SUM(v) - COUNT(*) * (SUM(v) / COUNT(*)) FROM t", True),
])
def test_division_by_a_count(schema, gold, pred, same):
    checker = Checker(schema, CheckOptions(bound=3))
    _, formulas = checker.encode(3, checker.plan(gold, "gold"), checker.plan(pred, "pred"))
    assert not _has_symbolic_division(formulas)
    res = check(schema, gold, pred, bound=3, timeout=60)
    past_exact_sums = schema is SCHEMA and pred == "SELECT AVG(v) FROM t" and "CAST" in gold
    if past_exact_sums:
        # where AVG's double sum loses an integer depends on the order SQLite adds the
        # rows in, which is not modelled: a candidate may go unconfirmed, never "equivalent"
        assert res.verdict.value in ("not_equivalent", "spurious"), res.reason
    else:
        assert res.verdict.value == ("equivalent" if same else "not_equivalent"), res.reason
    found = probe(schema, gold, pred, Semantics.SET, trials=2000, seconds=20, max_rows=3, seed=3)
    if past_exact_sums:
        assert found is None  # the difference needs sums past 2**53, beyond random values
    else:
        assert (found is None) == same  # SQLite agrees on random databases
