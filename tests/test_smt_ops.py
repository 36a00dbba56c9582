"""Reserved-name operators: signatures, environments, folds."""

from __future__ import annotations

from collections.abc import Iterator

import pysmt.operators as op
import pytest
from pysmt.environment import Environment, get_env, pop_env, push_env
from pysmt.exceptions import PysmtTypeError
from pysmt.shortcuts import Int, Real, String, Symbol
from pysmt.typing import BOOL, INT, STRING

from spotit.smt import ops
from spotit.smt.printer import SmtLibWriter


@pytest.fixture(autouse=True, scope="module")
def fresh_env() -> Iterator[None]:
    """A pysmt environment of our own: other modules may use the same names with other types."""
    push_env()
    yield
    pop_env()


def test_builtin_names_cover_every_reserved_symbol() -> None:
    s = Symbol("s_ops", STRING)
    x = Symbol("x_ops", INT)
    terms = [
        ops.str_lt(s, s), ops.str_le(s, s), ops.str_to_code(s), ops.str_from_code(x),
        ops.str_is_digit(s), ops.str_replace_all(s, s, s), ops.str_in_re(s, ops.re_all()),
        ops.re_star(ops.str_to_re(s)), ops.re_plus(ops.re_allchar()), ops.re_opt(ops.re_none()),
        ops.re_concat(ops.re_all(), ops.re_all()), ops.re_union(ops.re_all(), ops.re_all()),
        ops.re_inter(ops.re_all(), ops.re_all()), ops.re_comp(ops.re_all()),
        ops.re_range(s, s), ops.int_div(x, x), ops.int_mod(x, x), ops.int_abs(x),
        ops.real_to_int(Real(1)), ops.real_is_int(Real(1)),
    ]  # fmt: skip
    for term in terms:
        head = term.function_name() if term.is_function_application() else term
        assert head.symbol_name() in ops.BUILTIN_NAMES, term


def test_result_types() -> None:
    s = Symbol("s_ops", STRING)
    x = Symbol("x_ops", INT)
    assert ops.str_lt(s, s).get_type() == BOOL
    assert ops.int_div(x, x).get_type() == INT
    assert ops.str_from_code(x).get_type() == STRING
    assert ops.re_star(ops.str_to_re(s)).get_type() == ops.reglan()
    assert str(ops.reglan()) == "RegLan"


def test_ill_typed_call_fails_without_poisoning_the_name() -> None:
    with pytest.raises(PysmtTypeError):
        ops.str_lt(Int(1), Int(2))
    # The reserved name still has its right signature afterwards.
    assert ops.str_lt(String("a"), String("b")).get_type() == BOOL


def test_native_operators_for_str_to_int_and_from_int() -> None:
    s = Symbol("s_ops", STRING)
    assert ops.str_to_int(s).node_type() == op.STR_TO_INT
    assert ops.str_from_int(Int(3)).node_type() == op.INT_TO_STR


def test_folds_are_right_nested_and_have_units() -> None:
    a, b, c = (ops.str_to_re(String(t)) for t in "abc")
    folded = ops.re_concat_all([a, b, c])
    assert folded.args()[0] is a and folded.args()[1].args() == (b, c)
    assert ops.re_concat_all([a]) is a
    assert ops.re_union_all([]) is ops.re_none()
    empty = ops.re_concat_all([])
    assert empty.args() == (String(""),)


def test_helpers_follow_the_current_environment() -> None:
    push_env()
    try:
        env = get_env()
        mgr = env.formula_manager
        s = mgr.Symbol("s", STRING)
        term = ops.str_in_re(s, ops.re_plus(ops.str_to_re(mgr.String("a"))))
        text = SmtLibWriter(env).commands([term])
        assert '(str.in_re s (re.+ (str.to_re "a")))' in text
    finally:
        pop_env()


def test_helpers_take_an_explicit_manager() -> None:
    env = Environment()
    mgr = env.formula_manager
    x = mgr.Symbol("x", INT)
    term = mgr.Equals(ops.int_mod(x, mgr.Int(3), mgr=mgr), mgr.Int(1))
    assert "(mod x 3)" in SmtLibWriter(env).commands([term])


# -- text order against a constant as a regular language -----------------------------------

# the ends of the character range and their neighbours, and two ordinary letters
_ALPHABET = (chr(0), chr(1), "a", "b", chr(ops.MAX_CHAR - 1), chr(ops.MAX_CHAR))


def _words(max_len: int) -> list[str]:
    words, layer = [""], [""]
    for _ in range(max_len):
        layer = [w + c for w in layer for c in _ALPHABET]
        words += layer
    return words


def test_order_language_is_the_code_point_order() -> None:
    """Every word up to 3 characters against every constant up to 2, by the language's
    own semantics (``regex_eval``), is in it exactly when Python's code-point order
    (which is SMT-LIB's ``str.<``) says so."""
    from spotit.smt.regex_eval import in_re

    for c in _words(2):
        lang = ops.re_below(c)
        for x in _words(3):
            assert in_re(x, lang) == (x < c), (repr(x), repr(c))


def test_order_language_of_a_long_constant() -> None:
    """The language nests once per character: a constant of thousands (a pasted
    paragraph) is built and evaluated without running out of stack."""
    from spotit.smt.regex_eval import in_re

    c = "ab" * 2000
    lang = ops.re_below(c)
    assert in_re(c[:-1], lang) and in_re(c[:-1] + "a", lang)
    assert not in_re(c, lang) and not in_re(c + "a", lang) and not in_re("b", lang)


@pytest.mark.parametrize("solver_name", ["z3", "cvc5"])
def test_solvers_read_the_order_language_as_the_order(solver_name: str) -> None:
    """On every word up to 2 characters (ground terms: no search), the solver's value
    of each membership is its own ``str.<``: the printed languages mean to it what they
    mean here."""
    from pysmt.shortcuts import And, Iff, Not

    from spotit.solvers import available_solvers, get_solver
    from spotit.solvers.base import Status

    if solver_name not in available_solvers():
        pytest.skip(f"{solver_name} not installed")
    facts = [Iff(ops.str_in_re(String(w), ops.re_below(c)), ops.str_lt(String(w), String(c)))
             for c in _words(2) for w in _words(2)]
    script = SmtLibWriter().script([Not(And(facts))], check_sat=True)
    result = get_solver(solver_name).check(script, timeout=120)
    assert result.status is Status.UNSAT, result.reason


@pytest.mark.parametrize("c", ["", "b", "a\x00", "ba", "2017-12-31"], ids=repr)
def test_order_language_is_str_lt_for_every_string(c: str) -> None:
    """z3 finds no string at all on which the membership and ``str.<`` differ (z3 only:
    cvc5's ``str.<`` times out on these, which is why the language exists)."""
    from pysmt.shortcuts import And, Not

    from spotit.solvers import available_solvers, get_solver
    from spotit.solvers.base import Status

    if "z3" not in available_solvers():
        pytest.skip("z3 not installed")
    x = Symbol("x_order", STRING)
    member, order = ops.str_in_re(x, ops.re_below(c)), ops.str_lt(x, String(c))
    for differ in (And(member, Not(order)), And(Not(member), order)):
        script = SmtLibWriter().script([differ], check_sat=True)
        result = get_solver("z3").check(script, timeout=60)
        assert result.status is Status.UNSAT, (differ, result.reason)
