"""The yices backend: yices-smt2 over pipes, its logic, its limits and its z3 fallback."""

from __future__ import annotations

import os
import time
from fractions import Fraction

import pytest

from spotit.pipeline import check
from spotit.solvers import get_solver
from spotit.solvers.base import Status
from spotit.solvers.testing import requires_solver
from spotit.solvers.yices import NONLINEAR_LOGIC, parse_sexpr, uses_strings, value_of
from tests.fixtures import load_pairs
from tests.test_solvers_backends import pigeonhole

pytestmark = requires_solver("yices")

HEADER = "(set-option :produce-models true)\n(set-logic ALL)\n"


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_values_and_sexpressions() -> None:
    assert value_of("true") is True and value_of("false") is False
    assert value_of("42") == 42 and value_of(["-", "7"]) == -7
    assert value_of(["/", ["-", "1"], "4"]) == Fraction(-1, 4)
    assert value_of("2.50") == Fraction(5, 2) and value_of(["-", "0.5"]) == Fraction(-1, 2)
    with pytest.raises(ValueError):
        value_of(["f", "1"])
    assert parse_sexpr('((|a b| (- 1)) (s "x"")"))') == [["|a b|", ["-", "1"]], ["s", '"x"")"']]
    with pytest.raises(ValueError):
        parse_sexpr("((a 1)")


def test_string_detection_skips_literal_symbols_and_comments() -> None:
    assert uses_strings("(declare-fun |String| () Int) ; str.len\n(assert (> |String| 0))") is None
    assert uses_strings("(declare-fun s () String)") == "String"
    assert uses_strings("(assert (= x (str.len y)))") == "str.len"
    assert uses_strings('(assert (= x "a"))') == '"a"'
    assert uses_strings("(declare-fun score.re () Int)") is None


def test_models_of_every_sort() -> None:
    script = HEADER + (
        "(declare-fun n () Int)(declare-fun r () Real)(declare-fun b () Bool)"
        "(declare-fun |odd name| () Real)"
        "(assert (= (* 3 n) (- 21)))(assert (= (* 4 r) (- 1)))(assert (not b))"
        "(assert (= |odd name| 2.5))(check-sat)"
    )
    result = get_solver("yices").check(script, timeout=10)
    assert result.status is Status.SAT and result.reason == ""
    assert result.model == {"n": -7, "r": Fraction(-1, 4), "b": False,
                            "odd name": Fraction(5, 2)}  # fmt: skip


@pytest.mark.parametrize("fallback", ["z3", None])
def test_nonlinear_goes_to_the_fallback_or_mcsat(fallback: str | None) -> None:
    script = HEADER + "(declare-fun x () Int)(assert (> x 2))"
    with get_solver("yices", fallback=fallback).open(script) as session:
        assert session.check().status is Status.SAT
        session.push()
        session.add("(declare-fun y () Int)(assert (= (* x y) 12))(assert (> y 1))")
        result = session.check(timeout=10)
        assert result.status is Status.SAT and result.model
        assert result.model["x"] * result.model["y"] == 12
        if fallback is None:
            assert session._logic == NONLINEAR_LOGIC  # type: ignore[attr-defined]
            assert result.reason == ""
        else:
            assert result.reason == "yices: non-linear arithmetic: answered by z3"
        session.pop()
        assert session.check(assumptions=[]).status is Status.SAT


def test_contradictory_assumptions_are_unsat_even_in_mcsat() -> None:
    script = "(set-logic QF_NIRA)(declare-fun a () Bool)(declare-fun x () Int)(assert (> x 0))"
    with get_solver("yices").open(script) as session:
        assert session.check(assumptions=[("a", True), ("a", False)]).status is Status.UNSAT
        assert session.check(assumptions=[("a", True), ("a", True)]).status is Status.SAT


def test_timeout_kills_the_process_and_the_session_goes_on() -> None:
    with get_solver("yices").open(pigeonhole(14)) as session:
        pid = session._proc.proc.pid  # type: ignore[attr-defined]
        start = time.perf_counter()
        result = session.check(timeout=0.3)
        assert result.status is Status.TIMEOUT and "killed" in result.reason
        assert time.perf_counter() - start < 0.3 + 1.0
        assert _gone(pid)
        session.push()  # restarts by replaying the script
        session.add("(assert p0_0)(assert (not p0_0))")
        assert session.check(timeout=10).status is Status.UNSAT
        session.pop()
        assert session.error is None


def test_error_is_surfaced_and_poisons() -> None:
    with get_solver("yices").open(HEADER + "(declare-fun x () Int)") as session:
        session.add("(assert (> x nope))")
        result = session.check()
        assert result.status is Status.ERROR
        assert result.reason.startswith("yices") and "undefined term: nope" in result.reason


def test_strings_go_to_z3_or_are_refused() -> None:
    script = HEADER + '(declare-fun s () String)(assert (= (str.len s) 2))(assert (= s "hi"))'
    result = get_solver("yices").check(script, timeout=10)
    assert result.status is Status.SAT and result.model == {"s": "hi"}
    assert "yices does not support strings" in result.reason and "z3" in result.reason
    refused = get_solver("yices", fallback=None).check(script, timeout=10)
    assert refused.status is Status.ERROR and "does not support strings" in refused.reason


def test_rlimit_is_refused() -> None:
    with pytest.raises(ValueError, match="rlimit"):
        get_solver("yices", rlimit=100)


# -- whole checks -----------------------------------------------------------------------------

SCHEMA = "CREATE TABLE t(a INTEGER);"


def test_check_not_equivalent_with_the_hand_derived_counterexample() -> None:
    # a = 1 satisfies a >= 1 but not a > 1: one row with a = 1 tells them apart
    r = check(SCHEMA, "SELECT a FROM t WHERE a > 1", "SELECT a FROM t WHERE a >= 1", bound=2,
              solver="yices", probe_trials=0)
    assert r.verdict.value == "not_equivalent" and r.cex_found_by == "solver", r.reason
    assert r.counterexample == {"t": [{"a": 1}]}


def test_check_equivalent() -> None:
    # on INTEGER, a + 0 = a is true exactly when a is not NULL (NULL + 0 is NULL)
    r = check(SCHEMA, "SELECT a FROM t WHERE a + 0 = a", "SELECT a FROM t WHERE a IS NOT NULL",
              bound=2, solver="yices", probe_trials=0)
    assert r.verdict.value == "equivalent", r.reason
    assert all(b.status == "unsat" for b in r.per_bound)


def test_check_with_strings_says_z3_answered() -> None:
    schema = "CREATE TABLE u(s TEXT);"
    r = check(schema, "SELECT s FROM u WHERE s LIKE 'a%'", "SELECT s FROM u WHERE s = 'a'",
              bound=1, solver="yices", probe_trials=0, int_strings=False)
    assert r.verdict.value == "not_equivalent", r.reason
    assert "answered by z3" in r.per_bound[-1].answers


@requires_solver("z3")
@pytest.mark.parametrize("pair", load_pairs("core.sql")[:8], ids=str)
def test_same_verdicts_as_z3(pair) -> None:
    verdicts = [check(pair.schema_ddl, pair.gold, pair.pred, bound=2, solver=name,
                      semantics=pair.semantics, probe_trials=0, timeout=60).verdict
                for name in ("z3", "yices")]  # fmt: skip
    assert verdicts[0] == verdicts[1]
