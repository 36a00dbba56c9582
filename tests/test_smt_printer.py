"""The SMT-LIB printer: literals, names, sharing, depth, scopes, and solver parsing."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from fractions import Fraction
from functools import partial

import pytest
from pysmt.environment import get_env, pop_env, push_env
from pysmt.shortcuts import (
    GT,
    LT,
    And,
    Array,
    Div,
    Equals,
    Exists,
    Function,
    Int,
    Ite,
    Not,
    Plus,
    Real,
    Select,
    String,
    Symbol,
    Times,
)
from pysmt.typing import BOOL, INT, REAL, STRING, ArrayType, FunctionType, Type

from spotit.smt import ops
from spotit.smt.printer import (
    SmtLibWriter,
    collect_symbols,
    formula_size,
    int_literal,
    real_literal,
    sort_text,
    string_literal,
    symbol_text,
)
from spotit.solvers import available_solvers, get_solver
from spotit.solvers.base import Status

# Symbols are made on use, in the module's own pysmt environment (see fresh_env).
x = partial(Symbol, "x", INT)
y = partial(Symbol, "y", INT)


@pytest.fixture(autouse=True, scope="module")
def fresh_env() -> Iterator[None]:
    """A pysmt environment of our own: other modules may use the same names with other types."""
    push_env()
    yield
    pop_env()


def max_paren_depth(text: str) -> int:
    """Deepest parenthesis nesting outside string literals."""
    depth = best = 0
    for token in re.finditer(r'"[^"]*(?:""[^"]*)*"|\|[^|]*\||[()]', text):
        if token.group() == "(":
            depth += 1
            best = max(best, depth)
        elif token.group() == ")":
            depth -= 1
    return best


# -- literals and names -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("abc", '"abc"'),
        ('say "hi"', '"say ""hi"""'),
        ("a\\b", '"a\\u{5c}b"'),
        ("\\u{41}", '"\\u{5c}u{41}"'),
        ("é", '"\\u{e9}"'),
        ("😀", '"\\u{1f600}"'),
        ("\x00\n\x7f", '"\\u{0}\\u{a}\\u{7f}"'),
        ("~ !", '"~ !"'),
        ("", '""'),
    ],
)
def test_string_literal(value: str, text: str) -> None:
    assert string_literal(value) == text
    assert string_literal(value).isascii()


def test_string_literal_rejects_code_points_beyond_smtlib() -> None:
    with pytest.raises(ValueError, match="outside SMT-LIB"):
        string_literal("\U00030000")
    assert string_literal("\U0002ffff") == '"\\u{2ffff}"'


def test_numeric_literals() -> None:
    assert int_literal(5) == "5"
    assert int_literal(-5) == "(- 5)"
    assert int_literal(0) == "0"
    assert real_literal(Fraction(2)) == "2.0"
    assert real_literal(Fraction(-2)) == "(- 2.0)"
    assert real_literal(Fraction(1, 3)) == "(/ 1.0 3.0)"
    assert real_literal(Fraction(-7, 3)) == "(- (/ 7.0 3.0))"


def test_symbol_text() -> None:
    assert symbol_text("x") == "x"
    assert symbol_text("a.b!c-1") == "a.b!c-1"
    assert symbol_text("my var") == "|my var|"
    assert symbol_text("1abc") == "|1abc|"
    assert symbol_text("let") == "|let|"
    assert symbol_text("é") == "|é|"
    for bad in ("a|b", "a\\b"):
        with pytest.raises(ValueError):
            symbol_text(bad)


def test_user_symbols_that_clash_are_rejected() -> None:
    for name in ("and", "d!3", "str.len"):
        with pytest.raises(ValueError):
            SmtLibWriter().commands([GT(Symbol(name, INT), Int(0))])


def test_sort_text() -> None:
    assert sort_text(ArrayType(INT, STRING)) == "(Array Int String)"
    assert sort_text(ops.reglan()) == "RegLan"
    pair = get_env().type_manager.get_type_instance(Type("Pair", 2), INT, REAL)
    assert sort_text(pair) == "(Pair Int Real)"


# -- structure ------------------------------------------------------------------------------


def test_operator_names_follow_smtlib_2_6() -> None:
    s = Symbol("s", STRING)
    text = SmtLibWriter().commands(
        [
            Equals(ops.str_to_int(s), Int(1)),
            Equals(ops.str_from_int(x()), s),
            Equals(ops.int_div(x(), Int(2)), Int(0)),
            GT(x(), y()),
        ]
    )
    assert "str.to_int" in text and "str.from_int" in text
    assert "str.to.int" not in text and "int.to.str" not in text
    assert "(div x 2)" in text


def test_pysmt_div_prints_div_on_ints_and_slash_on_reals() -> None:
    r, q = Symbol("r_real", REAL), Symbol("q_real", REAL)
    w = SmtLibWriter()
    assert w.term(Div(x(), y())) == "(div x y)"
    assert w.term(Div(r, q)) == "(/ r_real q_real)"


def test_shared_subterms_become_define_funs() -> None:
    shared = Plus(x(), Times(y(), Int(3)))
    text = SmtLibWriter().commands([GT(shared, Int(0)), LT(shared, Int(10))])
    assert text.count("define-fun") == 1
    assert "(define-fun d!1 () Int (+ x (* y 3)))" in text
    assert "(assert (< 0 d!1))" in text and "(assert (< d!1 10))" in text


def test_subterm_used_twice_in_one_parent_is_shared() -> None:
    t = Plus(x(), Int(1))
    text = SmtLibWriter().commands([Equals(Times(t, t), Int(4))])
    assert "(define-fun d!1 () Int (+ x 1))" in text
    assert "(* d!1 d!1)" in text


def test_definitions_come_before_their_uses() -> None:
    a = Plus(x(), Int(1))
    b = Plus(a, a)
    c = Plus(b, a)
    text = SmtLibWriter().commands([GT(c, b)])
    defined: set[str] = set()
    for line in text.splitlines():
        used = set(re.findall(r"d!\d+", line))
        if line.startswith("(define-fun"):
            name = line.split()[1]
            assert used - {name} <= defined, line
            defined.add(name)
        else:
            assert used <= defined, line


def test_uninterpreted_functions_and_sorts_are_declared() -> None:
    u = Type("U", 0)
    f = Symbol("f_sorts", FunctionType(u, [INT, u]))
    c = Symbol("c", u)
    text = SmtLibWriter().commands([Equals(Function(f, [x(), c]), c)])
    assert "(declare-sort U 0)" in text
    assert "(declare-fun f_sorts (Int U) U)" in text
    assert "(declare-fun c () U)" in text


def test_builtins_are_not_declared() -> None:
    s = Symbol("s", STRING)
    text = SmtLibWriter().commands([ops.str_in_re(s, ops.re_star(ops.re_allchar()))])
    assert text.count("declare-fun") == 1  # only s
    assert "(str.in_re s (re.* re.allchar))" in text


def test_quantifiers_are_not_supported() -> None:
    with pytest.raises(NotImplementedError, match="EXISTS"):
        SmtLibWriter().commands([Exists([x()], GT(x(), Int(0)))])


def test_arrays() -> None:
    a = Symbol("arr", ArrayType(INT, INT))
    text = SmtLibWriter().commands([Equals(Select(a, x()), Int(1))])
    assert "(declare-fun arr () (Array Int Int))" in text
    with pytest.raises(NotImplementedError):
        SmtLibWriter().commands([Equals(Select(Array(INT, Int(0)), x()), Int(0))])


def test_non_boolean_assertion_is_rejected() -> None:
    with pytest.raises(ValueError, match="non-Boolean"):
        SmtLibWriter().commands([x()])


def test_script_layout() -> None:
    text = SmtLibWriter().script([GT(x(), Int(0))], check_sat=True, comments=["k = 2\nsecond"])
    lines = text.splitlines()
    assert lines[:4] == [
        "(set-option :produce-models true)",
        "(set-logic ALL)",
        "; k = 2",
        "; second",
    ]
    assert lines[-1] == "(check-sat)"


def test_script_starts_afresh() -> None:
    w = SmtLibWriter()
    w.commands([GT(x(), Int(0))])
    assert "(declare-fun x () Int)" in w.script([GT(x(), Int(1))])


# -- scopes ---------------------------------------------------------------------------------


def test_push_declares_only_new_symbols_and_pop_forgets() -> None:
    w = SmtLibWriter()
    shared = Plus(x(), Int(1))
    w.commands([GT(shared, Int(0)), LT(shared, Int(5))])
    w.push()
    inner = w.commands([GT(shared, y())])
    assert "(declare-fun y () Int)" in inner
    assert "declare-fun x" not in inner and "define-fun" not in inner
    assert "(assert (< y d!1))" in inner
    new_shared = Plus(y(), Int(2))
    inner2 = w.commands([GT(new_shared, Int(0)), LT(new_shared, Int(3))])
    assert "define-fun d!2" in inner2
    w.pop()
    again = w.commands([GT(new_shared, Int(0)), LT(new_shared, Int(3))])
    assert "(declare-fun y () Int)" in again
    assert "define-fun d!3" in again  # names are never reused
    with pytest.raises(ValueError):
        w.pop()


# -- walkers --------------------------------------------------------------------------------


def test_formula_size_counts_distinct_nodes() -> None:
    t = Plus(x(), y())
    assert formula_size([GT(t, t)]) == 4  # x, y, x+y, (x+y > x+y)
    assert formula_size([]) == 0


def test_collect_symbols() -> None:
    f = Symbol("p_collect", FunctionType(BOOL, [INT]))
    s = Symbol("s", STRING)
    found = collect_symbols([And(Function(f, [x()]), ops.str_lt(s, String("a")))])
    assert set(found) == {f, x(), s}
    with_builtins = collect_symbols([ops.str_lt(s, s)], include_builtins=True)
    assert {n.symbol_name() for n in with_builtins} == {"s", "str.<"}


# -- deep and large formulas ----------------------------------------------------------------


def ite_chain(depth: int) -> list:
    """``7 = ite(x=0, 0, ite(x=1, 1, ... -1))``: every ITE is used once (no sharing).

    (With the order reversed, x=7 deep inside, z3 times out on 50k: structure matters.)
    """
    acc = Int(-1)
    for i in reversed(range(depth)):
        acc = Ite(Equals(x(), Int(i)), Int(i), acc)
    return [Equals(Int(7), acc)]


@pytest.fixture(scope="module")
def deep_chain() -> list:
    return ite_chain(50_000)


def test_deep_chain_prints_flat(deep_chain: list) -> None:
    start = time.perf_counter()
    text = SmtLibWriter(max_depth=100).script(deep_chain)
    assert time.perf_counter() - start < 10
    assert max_paren_depth(text) <= 100 + 4
    assert text.count("define-fun") >= 50_000 // 101
    # x, -1, 0..49999, the 50k equalities and ITEs, the root (7 is among the ints)
    assert formula_size(deep_chain) == 3 * 50_000 + 3


@pytest.mark.parametrize("name", ["z3", "cvc5"])
def test_deep_chain_parses_in_both_solvers(deep_chain: list, name: str) -> None:
    if name not in available_solvers():
        pytest.skip(f"{name} not installed")
    text = SmtLibWriter().script(deep_chain)
    with get_solver(name).open(text) as session:
        assert session.error is None
        if name == "z3":  # cvc5 is cubic on deep ITE chains: parse only
            result = session.check(timeout=20)
            assert result.status is Status.SAT and result.model == {"x": 7}


def test_not_formula_nested_in_bool_ite_uses_names_only_where_needed() -> None:
    b = Symbol("b", BOOL)
    text = SmtLibWriter().commands([Not(Ite(b, Not(b), b))])
    assert "define-fun" not in text
    assert "(assert (not (ite b (not b) b)))" in text


def test_real_constants_in_context() -> None:
    r = Symbol("r", REAL)
    text = SmtLibWriter().commands([Equals(r, Real(Fraction(-1, 4)))])
    assert "(assert (= r (- (/ 1.0 4.0))))" in text


def test_failed_commands_leave_the_writer_unchanged() -> None:
    w = SmtLibWriter()
    shared = Plus(x(), Int(1))
    bad = Symbol("s_bad", STRING)
    with pytest.raises(ValueError, match="outside SMT-LIB"):
        w.commands([GT(shared, Int(0)), LT(shared, Int(5)), Equals(bad, String("\U00030000"))])
    text = w.commands([GT(shared, Int(0)), LT(shared, Int(5))])
    assert "(declare-fun x () Int)" in text and "define-fun" in text


def test_a_writer_past_its_deadline_stops_with_a_timeout_and_remembers_nothing() -> None:
    from spotit.errors import BudgetExceeded

    big = And([GT(Symbol(f"v{i}", INT), Int(i)) for i in range(6000)])
    w = SmtLibWriter()
    w.deadline = time.monotonic() - 1.0
    with pytest.raises(BudgetExceeded):
        w.script([big])
    w.deadline = None  # the same writer, without a limit, writes the whole script
    text = w.script([big])
    assert text.count("(declare-fun v") == 6000
