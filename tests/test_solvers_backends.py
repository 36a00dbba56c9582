"""Both backends behind one interface: statuses, errors, sessions, models."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from fractions import Fraction

import pytest
from pysmt.environment import pop_env, push_env
from pysmt.shortcuts import (
    GT,
    LT,
    And,
    Equals,
    Int,
    Not,
    Or,
    Plus,
    Real,
    String,
    Symbol,
    Times,
)
from pysmt.typing import BOOL, INT, REAL, STRING

from spotit.errors import SolverError
from spotit.smt.printer import SmtLibWriter
from spotit.solvers import DEFAULT_SOLVER, available_solvers, get_solver
from spotit.solvers.base import SolveResult, Status, one_line
from spotit.solvers.testing import requires_solver


@pytest.fixture(autouse=True, scope="module")
def fresh_env() -> Iterator[None]:
    """A pysmt environment of our own: other modules may use the same names with other types."""
    push_env()
    yield
    pop_env()


SOLVERS = [pytest.param("z3", marks=requires_solver("z3")),
           pytest.param("cvc5", marks=requires_solver("cvc5")),
           pytest.param("yices", marks=requires_solver("yices"))]  # fmt: skip

X_GT_41 = "(set-logic ALL)\n(declare-fun x () Int)\n(assert (> x 41))\n"


def pigeonhole(holes: int) -> str:
    """holes+1 pigeons in ``holes`` holes: UNSAT, and exponential for resolution."""
    pigeons = holes + 1
    lines = ["(set-logic ALL)"]
    lines += [f"(declare-fun p{i}_{j} () Bool)" for i in range(pigeons) for j in range(holes)]
    for i in range(pigeons):
        lines.append("(assert (or " + " ".join(f"p{i}_{j}" for j in range(holes)) + "))")
    for j in range(holes):
        for i in range(pigeons):
            for k in range(i + 1, pigeons):
                lines.append(f"(assert (or (not p{i}_{j}) (not p{k}_{j})))")
    return "\n".join(lines) + "\n"


# -- factory ----------------------------------------------------------------------------------


def test_factory() -> None:
    assert DEFAULT_SOLVER == "z3"
    assert set(available_solvers()) <= {"z3", "cvc5", "yices"}
    with pytest.raises(SolverError, match="unknown solver 'mathsat'"):
        get_solver("mathsat")


def test_missing_binding_is_a_clear_solver_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import spotit.solvers as solvers

    solvers._solver_class.cache_clear()
    monkeypatch.setitem(sys.modules, "cvc5", None)  # makes `import cvc5` fail
    try:
        with pytest.raises(SolverError) as info:
            get_solver("cvc5")
        assert str(info.value) == "solver 'cvc5' is not installed: pip install cvc5"
        assert "cvc5" not in available_solvers()
    finally:
        monkeypatch.undo()
        solvers._solver_class.cache_clear()


def test_rlimit_must_be_positive() -> None:
    with pytest.raises(ValueError):
        get_solver(DEFAULT_SOLVER, rlimit=0)


# -- one-shot checks --------------------------------------------------------------------------


@pytest.mark.parametrize("name", SOLVERS)
def test_sat_and_unsat(name: str) -> None:
    solver = get_solver(name)
    sat = solver.check(X_GT_41 + "(assert (< x 43))\n(check-sat)\n", timeout=10)
    assert sat.status is Status.SAT and sat.model == {"x": 42}
    assert sat.seconds > 0 and sat.reason == "" and sat.solver == name
    unsat = solver.check(X_GT_41 + "(assert (< x 42))", timeout=10)
    assert unsat.status is Status.UNSAT and unsat.model is None


@pytest.mark.parametrize("name", SOLVERS)
def test_tiny_timeout_on_hard_instance(name: str) -> None:
    start = time.perf_counter()
    result = get_solver(name).check(pigeonhole(14), timeout=0.2)
    assert result.status is Status.TIMEOUT, result
    assert result.reason
    assert time.perf_counter() - start < 5


@pytest.mark.parametrize("name", SOLVERS)
def test_resource_limit_is_a_timeout(name: str) -> None:
    if name == "yices":
        pytest.skip("yices has no resource limit (rlimit raises ValueError)")
    result = get_solver(name, rlimit=2000).check(pigeonhole(14), timeout=10)
    assert result.status is Status.TIMEOUT, result


@pytest.mark.parametrize("name", SOLVERS)
def test_exhausted_budget(name: str) -> None:
    result = get_solver(name).check(X_GT_41, timeout=0)
    assert result.status is Status.TIMEOUT


@pytest.mark.parametrize("name", SOLVERS)
@pytest.mark.parametrize(
    ("script", "fragment"),
    [
        ("(declare-fun x () Int)(assert (> x 41)", ""),
        ("(declare-fun x () Int)(assert (> y 41))", "y"),
        ("(declare-fun x () Int)(assert x)", ""),
        ("(declare-fun x () Int)(push 1)", "push"),
        ("(declare-fun x () Int)(reset)", "reset"),
        ("garbage", ""),
    ],
)
def test_malformed_script_is_an_error_with_a_reason(name: str, script: str, fragment: str) -> None:
    result = get_solver(name).check(script, timeout=10)
    assert result.status is Status.ERROR
    assert result.reason.startswith(name) and "\n" not in result.reason
    assert fragment in result.reason


@pytest.mark.parametrize("name", SOLVERS)
def test_queries_in_the_script_are_skipped(name: str) -> None:
    script = (
        X_GT_41 + "(set-info :status unsat)\n(check-sat)\n(get-model)\n"
        '(get-value (x))\n(echo "(check-sat)")\n(assert (< x 43))\n(exit)\n'
    )
    result = get_solver(name).check(script, timeout=10)
    assert result.status is Status.SAT and result.model == {"x": 42}


@pytest.mark.parametrize("name", SOLVERS)
def test_script_without_set_logic(name: str) -> None:
    result = get_solver(name).check("(declare-const x Int)(assert (= x 3))", timeout=10)
    assert result.model == {"x": 3}


# -- sessions ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", SOLVERS)
def test_assumptions(name: str) -> None:
    script = (
        "(declare-fun a () Bool)(declare-fun b () Bool)(declare-fun x () Int)"
        "(assert (=> a (> x 5)))(assert (=> b (< x 3)))"
    )
    with get_solver(name).open(script) as session:
        assert session.check(assumptions=[("a", True), ("b", True)]).status is Status.UNSAT
        both_false = session.check(assumptions=[("a", False), ("b", False)])
        assert both_false.status is Status.SAT
        assert both_false.model is not None and both_false.model["a"] is False
        only_a = session.check(assumptions=[("a", True)], timeout=10)
        assert only_a.status is Status.SAT and only_a.model and only_a.model["x"] > 5
        bad = session.check(assumptions=[("x", True)])
        assert bad.status is Status.ERROR and "'x'" in bad.reason
        assert session.check().status is Status.SAT  # assumptions don't stick


@pytest.mark.parametrize("name", SOLVERS)
def test_push_pop_scopes_assertions_and_declarations(name: str) -> None:
    with get_solver(name).open(X_GT_41) as session:
        session.push()
        session.add("(declare-fun y () Int)(assert (= y x))(assert (< y 40))")
        assert session.check().status is Status.UNSAT
        session.pop()
        assert session.depth == 0
        first = session.check()
        assert first.status is Status.SAT and set(first.model or {}) == {"x"}
        session.push()
        session.add('(declare-fun y () String)(assert (= y "again"))')  # redeclared
        again = session.check()
        assert again.status is Status.SAT and again.model and again.model["y"] == "again"
        session.pop()
        session.pop()  # one too many: poisons
        assert session.check().status is Status.ERROR
        assert "pop() without a matching push()" in (session.error or "")


@pytest.mark.parametrize("name", SOLVERS)
def test_failed_add_poisons_the_session(name: str) -> None:
    with get_solver(name).open(X_GT_41) as session:
        session.add("(assert (> nope 1))")
        assert session.error is not None
        session.add("(assert (< x 50))")  # ignored after the failure
        result = session.check()
        assert result.status is Status.ERROR and "nope" in result.reason


@pytest.mark.parametrize("name", SOLVERS)
def test_closed_session(name: str) -> None:
    session = get_solver(name).open(X_GT_41)
    session.close()
    session.close()
    assert session.check().status is Status.ERROR


@pytest.mark.parametrize("name", SOLVERS)
def test_writer_and_session_stay_in_step(name: str) -> None:
    x, y = Symbol("x", INT), Symbol("y", INT)
    shared = Plus(x, Times(Int(2), y))
    writer = SmtLibWriter()
    with get_solver(name).open(writer.script([GT(shared, Int(0))])) as session:
        for bound in (3, 5):
            writer.push()
            session.push()
            z = Symbol("z", INT)
            session.add(writer.commands([LT(shared, Int(bound)), Equals(z, shared),
                                         Equals(y, Int(1))]))  # fmt: skip
            result = session.check(timeout=10)
            assert result.status is Status.SAT, result.reason
            assert result.model and 0 < result.model["z"] < bound
            writer.pop()
            session.pop()
        assert session.error is None


# -- models -----------------------------------------------------------------------------------

STRINGS = ['he said "hi"', "back\\slash", "\\u{41}", "é", "😀", "\x00\x01\n\t\x7f", "\ud800",
           "\U0002ffff", "", " "]  # fmt: skip


@pytest.mark.parametrize("name", SOLVERS)
def test_string_values_come_back_exactly(name: str) -> None:
    symbols = [Symbol(f"str{i}", STRING) for i in range(len(STRINGS))]
    script = SmtLibWriter().script(
        [Equals(sym, String(v)) for sym, v in zip(symbols, STRINGS, strict=True)]
    )
    result = get_solver(name).check(script, timeout=10)
    assert result.model == {f"str{i}": v for i, v in enumerate(STRINGS)}


def test_both_backends_return_the_same_unique_model() -> None:
    if set(available_solvers()) != {"z3", "cvc5"}:
        pytest.skip("needs both solvers")
    a, n, r, s = Symbol("flag", BOOL), Symbol("n", INT), Symbol("ratio", REAL), Symbol("w", STRING)
    formula = And(
        Not(a),
        Equals(Times(Int(3), n), Int(-21)),
        Equals(Times(Real(4), r), Real(-1)),
        Equals(s, String('ünï\\"')),
        Or(a, GT(n, Int(-8))),
    )
    script = SmtLibWriter().script([formula])
    models = [get_solver(name).check(script, timeout=10).model for name in ("z3", "cvc5")]
    assert (
        models[0]
        == models[1]
        == {
            "flag": False,
            "n": -7,
            "ratio": Fraction(-1, 4),
            "w": 'ünï\\"',
        }
    )


@requires_solver("z3")
def test_z3_irrational_real_is_approximated() -> None:
    script = "(declare-fun r () Real)(assert (= (* r r) 2.0))(assert (> r 0.0))"
    result = get_solver("z3").check(script, timeout=10)
    assert result.status is Status.SAT and result.model
    value = result.model["r"]
    assert isinstance(value, Fraction) and abs(value * value - 2) < Fraction(1, 10**25)


@pytest.mark.parametrize("name", SOLVERS)
def test_unused_declarations_are_in_the_model(name: str) -> None:
    script = "(declare-fun used () Int)(declare-fun unused () Int)(assert (= used 1))"
    result = get_solver(name).check(script, timeout=10)
    assert result.model is not None and result.model["used"] == 1 and "unused" in result.model


def test_one_line() -> None:
    assert one_line(Exception(b'(error "line 1 column 2: bad")\n')) == "line 1 column 2: bad"
    assert one_line(RuntimeError("a\n  b")) == "a b"
    assert one_line(ValueError()) == "ValueError"
    assert len(one_line("x" * 1000)) == 500


def test_solve_result_helpers() -> None:
    assert SolveResult(Status.SAT, {}).is_sat
    assert SolveResult(Status.UNSAT).is_unsat
    assert Status("timeout") is Status.TIMEOUT
