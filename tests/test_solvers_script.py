"""The light SMT-LIB scan used by the z3 backend."""

from __future__ import annotations

import pytest

from spotit.solvers.script import scan, unquote, without_spans


def test_declared_constants_with_sorts() -> None:
    facts = scan(
        "(declare-fun x () Int)\n(declare-fun |a b| () (Array Int  String))\n"
        "(declare-const c Bool)(declare-fun f (Int) Int)\n"
        "; (declare-fun commented () Int)\n"
        '(assert (= s "(declare-fun fake () Int)"))(define-fun d!1 () Int 3)'
    )
    assert facts.constants == [("x", "Int"), ("a b", "(Array Int String)"), ("c", "Bool")]
    assert facts.skipped == [] and facts.scope_commands == []


def test_queries_are_located_and_removed() -> None:
    text = '(assert true)(check-sat)\n(get-value (x (f "(check-sat)")))(echo "a""b")(exit)'
    facts = scan(text)
    assert without_spans(text, facts.skipped) == "(assert true)\n"


def test_check_sat_assuming_is_one_command() -> None:
    facts = scan("(check-sat-assuming (a (not b)))")
    assert facts.skipped == [(0, len("(check-sat-assuming (a (not b)))"))]


def test_scope_commands_are_reported() -> None:
    assert scan("(push 1)(pop 1)(reset-assertions)(reset)").scope_commands == [
        "push",
        "pop",
        "reset-assertions",
        "reset",
    ]
    assert scan("(declare-fun push-count () Int)").scope_commands == []
    assert scan("(declare-fun push-count () Int)").constants == [("push-count", "Int")]


def test_unterminated_command() -> None:
    with pytest.raises(ValueError):
        scan("(check-sat")


def test_unquote() -> None:
    assert unquote("|a b|") == "a b"
    assert unquote("x") == "x"
