"""Thm 1 on many rows at once (spotit.proofs.pinned_rows): compiled formulas follow
SMT-LIB as the pysmt evaluator does, the rows path reaches the batch path's outcome,
and a planted encoding bug is still caught there."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import strategies as st
from pysmt.environment import get_env, reset_env
from pysmt.shortcuts import (
    And,
    Div,
    Equals,
    Int,
    Ite,
    Not,
    Plus,
    Real,
    StrCharAt,
    StrConcat,
    StrIndexOf,
    String,
    StrLength,
    StrReplace,
    StrSubstr,
    StrToInt,
    Symbol,
    Times,
)
from pysmt.typing import BOOL, INT, REAL, STRING

from spotit.proofs import pinned_rows
from spotit.proofs.fuzz import EXPRESSION_KINDS, _pinned
from spotit.proofs.generators import DATA_LEVELS, expressions, fuzz_rows, rows_related
from spotit.proofs.pinned import PinnedCase, PinnedOutcome, check_pinned_batch
from spotit.proofs.pinned_rows import EVALUATED_ROWS, SOLVED_ELSEWHERE, check_pinned_rows
from spotit.smt import ops
from spotit.smt.compiled import UNKNOWN, Program
from spotit.smt.evaluate import evaluate
from spotit.solvers.testing import requires_solver
from tests.test_thm1_evaluated import _plus_is_off_by_one, sample


@pytest.fixture(autouse=True)
def _fresh_env():
    yield reset_env()


def _run(term, values=None, **kw):
    return Program([term]).run(values or {}, **kw)[0]


@pytest.mark.parametrize("term,expected", [
    (lambda: StrSubstr(String("abc"), Int(-1), Int(2)), ""),  # SMT-LIB, not Python's "c"
    (lambda: StrCharAt(String("abc"), Int(-2)), ""),
    (lambda: StrIndexOf(String("abcb"), String("b"), Int(-1)), -1),
    (lambda: StrIndexOf(String("abc"), String(""), Int(3)), 3),
    (lambda: StrToInt(String(" 12")), -1),
    (lambda: StrReplace(String("aXbX"), String("X"), String("")), "abX"),  # first only
    (lambda: StrReplace(String("ab"), String(""), String("-")), "-ab"),
    (lambda: ops.int_div(Int(-7), Int(2)), -4),  # Euclidean
    (lambda: ops.int_mod(Int(-7), Int(-2)), 1),
    (lambda: ops.real_to_int(Real(Fraction(-3, 2))), -2),  # floor
    (lambda: ops.str_lt(String("B"), String("a")), True),
    (lambda: ops.str_in_re(String("a%b"), ops.re_concat_all(
        [ops.str_to_re(String("a")), ops.re_all(), ops.str_to_re(String("b"))])), True),
    (lambda: Div(Real(1), Real(3)), Fraction(1, 3)),
    (lambda: StrLength(StrConcat(String("ab"), String("é"))), 3),
])
def test_compiled_formulas_follow_smtlib(term, expected):
    """The same values the evaluator the solver-free path used gives (hand-checked
    against SMT-LIB's definitions in test_thm1_evaluated)."""
    t = term()
    (walked,) = evaluate(get_env(), {}, [t])
    got = _run(t)
    assert got == expected and type(got) is type(expected)
    assert walked.constant_value() == expected


def test_an_unknown_symbol_decides_only_where_every_value_would():
    x, y = Symbol("x", INT), Symbol("y", BOOL)
    assert _run(Plus(x, Int(1))) is UNKNOWN
    assert _run(And(y, Equals(Int(1), Int(2)))) is False  # false whatever y is
    assert _run(And(y, Equals(Int(1), Int(1)))) is UNKNOWN
    assert _run(Ite(y, Int(4), Int(4))) == 4
    assert _run(Times(x, Int(0))) == 0
    assert _run(Plus(x, Int(1)), {x: 41}) == 42
    assert _run(Plus(x, Int(1)), free={x: 1}) == 2  # a free symbol's chosen value
    with pytest.warns(UserWarning, match="Division by 0"):
        zero = Div(Real(1), Real(0))
    assert _run(zero) is UNKNOWN  # unspecified in SMT-LIB: any value
    assert _run(ops.int_div(Int(1), Int(0))) is UNKNOWN


def test_an_uninterpreted_function_is_unknown_unless_read():
    from pysmt.shortcuts import Function
    from pysmt.typing import FunctionType

    r = Function(Symbol("uf!round", FunctionType(REAL, [REAL])), [Real(Fraction(1, 10))])
    # a function without a SQLite reading (a free time value's have one)
    other = Function(Symbol("uf!no_reading", FunctionType(INT, [STRING])), [String("x")])
    from spotit.encodings.rounding import sqlite_reading

    assert _run(r) is UNKNOWN
    assert _run(r, reading=sqlite_reading) == Fraction(0.1)  # the double nearest 1/10
    assert _run(other, reading=sqlite_reading) is UNKNOWN
    assert _run(other, reading=sqlite_reading, total=True) == 0  # a constant function


def test_definitions_are_followed_and_a_cycle_is_not():
    x, y, z = Symbol("x", INT), Symbol("y", INT), Symbol("z", INT)
    # z = y + 1, y = x * 2: a chain; x = y - 1 closes a cycle, which is not followed
    defs = {z: [Plus(y, Int(1))], y: [Times(x, Int(2))], x: [Plus(y, Int(-1))]}
    p = Program([z, Not(Equals(z, Int(7)))], defs)
    assert p.run({x: 3}) == [7, False]
    out = p.run({})
    assert out[0] is UNKNOWN  # nothing forces x: no value, and no endless loop


def test_an_early_run_gives_the_early_roots_as_a_full_run_does():
    x, y = Symbol("x", INT), Symbol("y", INT)
    shared = Plus(x, Int(1))
    roots = [Equals(shared, y), shared, Times(shared, Int(2)), Not(Equals(y, Int(3)))]
    p = Program(roots, {y: [Plus(shared, shared)]}, early=[3, 1])
    for values in ({x: 1}, {x: 1, y: 5}, {}):
        full, early = p.run(values), p.run(values, early=True)
        assert [early[i] for i in (1, 3)] == [full[i] for i in (1, 3)]
        assert early[0] is UNKNOWN and early[2] is UNKNOWN  # not computed
    assert p.run({x: 1}) == [False, 2, 4, True]


def _cases(n: int, seed: int, rows: int = 4) -> list[tuple]:
    return sample(st.sampled_from(DATA_LEVELS).flatmap(lambda data: st.lists(
        fuzz_rows(data), min_size=rows, max_size=rows).flatmap(lambda rs: st.tuples(
            st.lists(st.sampled_from(EXPRESSION_KINDS).flatmap(
                lambda k: expressions(k, 3, None, rows_related(rs))), min_size=6, max_size=6),
            st.just(rs), st.just(data)))), n, seed)


@requires_solver("z3")
def test_rows_and_batch_paths_agree():
    """Every outcome the rows path decides is the batch path's for that row: the same
    kind and values, and never a stronger claim (the batch path's solver may show a
    witnessed value exact, or time out: no verdict to compare)."""
    decided = compared = 0
    for exprs, rows, data in _cases(12, 3):
        exprs = list(dict.fromkeys(exprs))
        table = check_pinned_rows(_pinned(rows[0], exprs[0], data), rows, exprs, "z3", 5.0)
        for row, outcomes in zip(rows, table, strict=True):
            batch = check_pinned_batch(_pinned(row, exprs[0], data), exprs, "z3", 5.0)
            for fast, slow in zip(outcomes, batch, strict=True):
                assert (fast.expr, fast.row) == (slow.expr, row)
                if fast.path != EVALUATED_ROWS:
                    continue
                decided += 1
                if slow.kind == "error":
                    continue
                compared += 1
                what = (fast.expr, row, data, fast, slow)
                assert (fast.kind, fast.sqlite_value, fast.encoded_value) == (
                    slow.kind, slow.sqlite_value, slow.encoded_value), what
                assert slow.exact or not fast.exact, what
                if fast.exact:
                    assert fast.detail == slow.detail == "exact", what
    assert decided >= 150  # the rows path is the common one
    assert compared >= decided * 3 // 4


@requires_solver("z3")
def test_a_planted_bug_is_caught_on_the_rows_path(monkeypatch):
    case = PinnedCase((("i", "INTEGER"), ("s", "TEXT")), (0, ""), "")
    rows = [(2, "x"), (-40, None), (None, "y")]
    clean = check_pinned_rows(case, rows, ["i + 40"])
    assert [o.kind for outcomes in clean for o in outcomes] == ["ok"] * 3
    _plus_is_off_by_one(monkeypatch)
    got = [o for outcomes in check_pinned_rows(case, rows, ["i + 40"]) for o in outcomes]
    # SQLite: 42, 0, NULL; the planted bug: 43, 1, NULL
    assert [(o.kind, o.path, o.encoded_value) for o in got[:2]] == [
        ("divergence", EVALUATED_ROWS, 43), ("divergence", EVALUATED_ROWS, 1)]
    assert got[2].kind == "ok"


@requires_solver("z3")
def test_a_row_sqlite_refuses_gets_the_batch_outcome():
    case = PinnedCase((("i", "INTEGER"),), (0,), "", checks=("i <> 13",))
    got = check_pinned_rows(case, [(1,), (13,)], ["i * 2"])
    assert got[0][0].kind == "ok" and got[0][0].sqlite_value == 2
    assert got[1][0].kind == "skipped" and "refuses" in got[1][0].detail


def test_an_expression_goes_to_the_solver_on_one_row_only(monkeypatch):
    """Expressions the rows path leaves to the solver go to it on one row of the case
    each (a case of 32 rows would otherwise spend most of its time there), the row
    where most of them need it (each row sent builds a table of its own); on the other
    rows they are skipped, saying why."""
    calls = []

    def batch(case, exprs, solver, timeout):
        calls.append((case.row, tuple(exprs)))
        return [PinnedOutcome("ok", detail="by the solver", expr=x) for x in exprs]

    # "i + 1" needs the solver on rows 1 and 2, "i - 1" on rows 2 and 3: row 2 serves both
    need = {("i + 1", (1,)), ("i + 1", (2,)), ("i - 1", (2,)), ("i - 1", (3,))}
    original = pinned_rows._Table.decide
    monkeypatch.setattr(pinned_rows, "check_pinned_batch", batch)
    monkeypatch.setattr(pinned_rows._Table, "decide", lambda self, r, c: "declined" if (
        c.expr, r.row) in need else original(self, r, c))
    case = PinnedCase((("i", "INTEGER"),), (0,), "")
    got = check_pinned_rows(case, [(1,), (2,), (3,)], ["i + 1", "i - 1"])
    assert calls == [((2,), ("i + 1", "i - 1"))]
    kinds = [[(o.kind, o.detail) for o in outcomes] for outcomes in got]
    assert kinds[1] == [("ok", "by the solver")] * 2
    assert kinds[0][1] == ("ok", "exact") and kinds[2][0] == ("ok", "exact")  # decided here
    assert kinds[0][0] == kinds[2][1] == ("skipped", SOLVED_ELSEWHERE)
    assert got[2][1].row == (3,) and got[2][1].expr == "i - 1"


def test_a_refused_row_does_not_take_the_solver_check_of_another(monkeypatch):
    """A row SQLite refuses checks nothing: the expressions are skipped there without
    the solver, and one the rows path cannot decide on another row goes to the solver
    on that row (it went to the refused row, where every expression was declined, and
    was never checked)."""
    calls = []

    def batch(case, exprs, solver, timeout):
        calls.append((case.row, tuple(exprs)))
        return [PinnedOutcome("ok", detail="by the solver", expr=x) for x in exprs]

    original = pinned_rows._Table.decide
    monkeypatch.setattr(pinned_rows, "check_pinned_batch", batch)
    monkeypatch.setattr(pinned_rows._Table, "decide", lambda self, r, c: "declined" if (
        c.expr, r.row) == ("i + 1", (2,)) else original(self, r, c))
    case = PinnedCase((("i", "INTEGER"),), (0,), "", checks=("i <> 13",))
    got = check_pinned_rows(case, [(1,), (13,), (2,)], ["i + 1", "i * 2"])
    assert calls == [((2,), ("i + 1",))]
    assert [(o.kind, o.expr) for o in got[1]] == [("skipped", "i + 1"), ("skipped", "i * 2")]
    assert all("refuses" in o.detail for o in got[1])
    assert (got[2][0].kind, got[2][0].detail) == ("ok", "by the solver")


def test_a_free_time_value_is_read_as_sqlite_reads_it():
    """Text of a shape the encoding reads loosely ('2459000.5', a Julian day; '12:30')
    leaves the time value free; the rows path tries SQLite's reading as that free
    value and decides the check without the solver. JD 2459000.5 is the midnight that
    starts 2020-05-31; a time of day alone is on 2000-01-01."""
    from spotit.encodings.dates import _sqlite_time_value

    assert _sqlite_time_value("2459000.5") == (False, 0, 2020, 5, 31, 0, 2459001)
    assert _sqlite_time_value("12:30:15.25") == (False, 45015, 2000, 1, 1, 250, 2451545)
    assert _sqlite_time_value(Fraction(2459001)) == (False, 43200, 2020, 5, 31, 0, 2459001)
    assert _sqlite_time_value("x")[0] is True
    case = PinnedCase((("s", "TEXT"),), ("",), "")
    exprs = ["DATETIME(s)", "DATE(s, '+1 day')", "JULIANDAY(s)"]
    got = check_pinned_rows(case, [("2459000.5",), ("12:30",)], exprs)
    flat = [o for outcomes in got for o in outcomes]
    assert [o.sqlite_value for o in flat] == [
        "2020-05-31 00:00:00", "2020-06-01", 2459000.5,
        "2000-01-01 12:30:00", "2000-01-02", 2451545.0208333335]
    assert all(o.kind == "ok" and o.path == EVALUATED_ROWS for o in flat), flat


def test_declined_checks_are_counted_with_their_reason(monkeypatch):
    monkeypatch.setattr(pinned_rows, "check_pinned_batch", lambda case, exprs, s, t: [
        PinnedOutcome("ok", expr=x) for x in exprs])
    monkeypatch.setattr(pinned_rows._Table, "decide", lambda self, r, c: "a reason")
    from collections import Counter

    declined: Counter[str] = Counter()
    case = PinnedCase((("i", "INTEGER"),), (0,), "")
    check_pinned_rows(case, [(1,), (2,)], ["i + 1", "i - 1"], declined=declined)
    assert declined == Counter({"a reason": 4})  # each check, sent to the solver or not
