"""Text as integers for equality-only formulas: when it applies, and that it changes
no verdict."""

from __future__ import annotations

import pytest
from pysmt.environment import reset_env
from pysmt.typing import INT, STRING

from spotit.encodings.builder import Builder
from spotit.pipeline import Checker, CheckOptions, check
from spotit.schema import schema_from_ddl
from spotit.smt import ops
from spotit.smt.intstrings import IntStrings
from spotit.smt.printer import SmtLibWriter
from spotit.solvers import get_solver
from spotit.solvers.base import Status
from spotit.solvers.testing import BOTH_SOLVERS

SHOP = schema_from_ddl("""
CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, city TEXT);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id),
                     note TEXT);
""")


@pytest.fixture
def b():
    reset_env()
    return Builder()


def test_equality_ite_and_nul_guard_are_eligible(b):
    x, y = b.sym("x", STRING), b.sym("y", STRING)
    f = b.and_(b.eq(x, b.str("a")), b.not_(b.eq(b.ite(b.sym("p", b.TRUE.get_type()), x, y),
                                                    b.str("b"))),
               b.not_(b.m.StrContains(x, b.str("\x00"))))
    assert IntStrings.eligible([f])


@pytest.mark.parametrize("make", [
    lambda b, x: b.eq(b.str_len(x), b.int(2)),
    lambda b, x: ops.str_lt(x, b.str("m")),
    lambda b, x: b.m.StrPrefixOf(b.str("a"), x),
    lambda b, x: b.eq(ops.str_to_int(x), b.int(3)),
    lambda b, x: b.m.StrContains(x, b.str("a")),
])
def test_any_other_string_operation_is_not(b, make):
    assert not IntStrings.eligible([make(b, b.sym("x", STRING))])


@pytest.mark.parametrize("solver", BOTH_SOLVERS)
def test_conversion_keeps_satisfiability_and_decodes_to_strings(b, solver):
    x, y, z = (b.sym(n, STRING) for n in "xyz")
    # x and y differ from both literals and from each other; z equals "a"
    sat = b.and_(b.not_(b.eq(x, b.str("a"))), b.not_(b.eq(x, b.str("b"))),
                 b.not_(b.eq(y, b.str("a"))), b.not_(b.eq(x, y)), b.eq(z, b.str("a")))
    unsat = b.and_(b.eq(x, b.str("a")), b.eq(y, b.str("b")), b.eq(x, y))
    conv = IntStrings(b.m)
    res = get_solver(solver).check(SmtLibWriter().script(conv.convert([sat])))
    assert res.status is Status.SAT
    model = conv.decode_model(res.model)
    assert model["z"] == "a"
    assert model["x"] not in ("a", "b") and model["y"] != "a" and model["x"] != model["y"]
    res = get_solver(solver).check(SmtLibWriter().script(IntStrings(b.m).convert([unsat])))
    assert res.status is Status.UNSAT


def test_converted_symbols_are_integers(b):
    conv = IntStrings(b.m)
    (f,) = conv.convert([b.eq(b.sym("x", STRING), b.str("a"))])
    assert conv.symbols["x"].symbol_type() is INT and "String" not in SmtLibWriter().script([f])


def test_pipeline_uses_integers_only_for_equality_only_pairs():
    checker = Checker(SHOP, CheckOptions(bound=1))
    eq_gold = checker.plan("SELECT name FROM customers WHERE city = 'Paris'", "gold")
    eq_pred = checker.plan("SELECT name FROM customers WHERE city = 'Rome'", "pred")
    enc, _ = checker.encode(1, eq_gold, eq_pred)
    assert enc.int_strings is not None
    like_pred = checker.plan("SELECT name FROM customers WHERE city LIKE 'R%'", "pred")
    enc, _ = checker.encode(1, eq_gold, like_pred)
    assert enc.int_strings is None


@pytest.mark.parametrize("gold,pred,expect,k", [
    # by hand: a customer in Paris is in the first result only
    ("SELECT name FROM customers WHERE city = 'Paris'",
     "SELECT name FROM customers WHERE city = 'paris'", "not_equivalent", 1),
    # by hand: IN is a disjunction of equalities
    ("SELECT name FROM customers WHERE city = 'Paris' OR city = 'Rome'",
     "SELECT name FROM customers WHERE city IN ('Rome', 'Paris')", "equivalent", None),
    # by hand: a note equal to the city but not to the name (two different strings)
    ("SELECT c.id FROM customers c JOIN orders o ON o.customer_id = c.id WHERE o.note = c.city",
     "SELECT c.id FROM customers c JOIN orders o ON o.customer_id = c.id WHERE o.note = c.name",
     "not_equivalent", 1),
])
@pytest.mark.parametrize("solver", BOTH_SOLVERS)
def test_verdicts_through_integer_text(gold, pred, expect, k, solver):
    res = check(SHOP, gold, pred, bound=2, solver=solver, probe_trials=0)
    assert res.verdict.value == expect, res.reason
    if k is not None:
        assert res.cex_bound == k and res.cex_found_by == "solver"
