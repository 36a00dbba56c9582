"""A catalogue of hand-labelled formulas, printed and solved by both solvers.

Each entry says whether the formula is satisfiable (derived by hand, written next
to it) and, where the model is unique, what it is. For every SAT answer the model
is asserted back (with the formula) into *both* solvers, which must then agree it
is SAT: the model satisfies the formula as the solvers read our text.

The entries also pin pysmt's argument orders (prefixof, suffixof, contains,
indexof, replace) to SMT-LIB's: with the arguments swapped, each labelled
entry would change its answer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from functools import partial

import pytest
from pysmt.environment import pop_env, push_env
from pysmt.fnode import FNode
from pysmt.shortcuts import (
    GE,
    GT,
    LE,
    LT,
    And,
    Bool,
    Div,
    Equals,
    Function,
    Iff,
    Implies,
    Int,
    IntToStr,
    Ite,
    Minus,
    Not,
    Or,
    Plus,
    Real,
    StrCharAt,
    StrConcat,
    StrContains,
    StrIndexOf,
    String,
    StrLength,
    StrPrefixOf,
    StrReplace,
    StrSubstr,
    StrSuffixOf,
    StrToInt,
    Symbol,
    Times,
    ToReal,
)
from pysmt.typing import BOOL, INT, REAL, STRING, FunctionType

from spotit.smt import ops
from spotit.smt.printer import SmtLibWriter, collect_symbols
from spotit.solvers import get_solver
from spotit.solvers.base import Status, Value
from spotit.solvers.testing import BOTH_SOLVERS

TIMEOUT = 20.0

# Symbols are made on use, in the module's own pysmt environment (see fresh_env).
a, b = partial(Symbol, "a", BOOL), partial(Symbol, "b", BOOL)
x, y = partial(Symbol, "x", INT), partial(Symbol, "y", INT)
q, r = partial(Symbol, "q", INT), partial(Symbol, "rem", INT)
u, v = partial(Symbol, "u", REAL), partial(Symbol, "v", REAL)
s = partial(Symbol, "s", STRING)
f = partial(Symbol, "f", FunctionType(INT, [INT]))
p = partial(Symbol, "p", FunctionType(BOOL, [INT]))
S = String

TRICKY = 'say "hi" \\ \\u{41} é 😀 \x00 \n \x7f ~'


@dataclass(frozen=True)
class Example:
    name: str
    build: Callable[[], FNode]
    sat: bool
    model: dict[str, Value] = field(default_factory=dict)  # expected values, if unique


EXAMPLES = [
    # -- Bool: connectives, iff printed as =, implies
    Example("contradiction", lambda: And(a(), Not(a())), False),
    Example("modus ponens", lambda: And(Implies(a(), b()), a(), Not(b())), False),
    Example("iff", lambda: And(Iff(a(), Not(b())), a()), True, {"a": True, "b": False}),
    Example("iff unsat", lambda: And(Iff(a(), b()), a(), Not(b())), False),
    Example("or", lambda: And(Or(a(), b()), Not(a())), True, {"a": False, "b": True}),
    # -- Int
    Example(
        "linear system",
        lambda: And(Equals(Plus(x(), y()), Int(10)), Equals(Minus(x(), y()), Int(4))),
        True,
        {"x": 7, "y": 3},
    ),
    Example("no even 7", lambda: Equals(Times(Int(2), x()), Int(7)), False),
    Example("gap", lambda: And(GT(x(), Int(5)), LT(x(), Int(6))), False),
    Example(
        "negative literal",
        lambda: And(Equals(Times(x(), x()), Int(25)), LT(x(), Int(0))),
        True,
        {"x": -5},
    ),
    Example("ge le", lambda: And(GE(x(), Int(-3)), LE(x(), Int(-3))), True, {"x": -3}),
    # pysmt's own Div on Int operands must print as div (Euclidean): -7 div 2 = -4.
    Example(
        "pysmt int div",
        lambda: And(Equals(x(), Int(-7)), Equals(Div(x(), Int(2)), y())),
        True,
        {"x": -7, "y": -4},
    ),
    # -- Real
    Example("third", lambda: Equals(Times(Real(3), u()), Real(1)), True, {"u": Fraction(1, 3)}),
    Example(
        "negative fraction",
        lambda: Equals(u(), Real(Fraction(-7, 3))),
        True,
        {"u": Fraction(-7, 3)},
    ),
    Example("to_real", lambda: Equals(ToReal(x()), Real(Fraction(5, 2))), False),
    Example(
        "real slash",
        lambda: And(Equals(v(), Real(4)), Equals(Div(u(), v()), Real(2))),
        True,
        {"u": Fraction(8), "v": Fraction(4)},
    ),
    # -- String (pysmt native operators)
    Example("concat", lambda: Equals(StrConcat(s(), S("b")), S("ab")), True, {"s": "a"}),
    # prefixof(x, y): x is a prefix of y. Swapped, a 3-char s can't be a prefix of "ab".
    Example(
        "prefix and suffix",
        lambda: And(
            Equals(StrLength(s()), Int(3)), StrPrefixOf(S("ab"), s()), StrSuffixOf(S("bc"), s())
        ),
        True,
        {"s": "abc"},
    ),
    Example(
        "suffix order",
        lambda: And(StrSuffixOf(s(), S("abc")), Equals(StrLength(s()), Int(2))),
        True,
        {"s": "bc"},
    ),
    # contains(x, y): x contains y. Swapped, a 3-char s can't contain "abcd".
    Example(
        "contains order",
        lambda: And(
            StrContains(S("abcd"), s()), Equals(StrLength(s()), Int(3)), Not(Equals(s(), S("abc")))
        ),
        True,
        {"s": "bcd"},
    ),
    # indexof("abcabc", s, 1) = 3 holds only for s = "a" among 1-char strings.
    Example(
        "indexof order",
        lambda: And(
            Equals(StrIndexOf(S("abcabc"), s(), Int(1)), Int(3)), Equals(StrLength(s()), Int(1))
        ),
        True,
        {"s": "a"},
    ),
    Example(
        "replace first",
        lambda: Equals(StrReplace(S("aXbX"), S("X"), s()), S("a--bX")),
        True,
        {"s": "--"},
    ),
    Example("substr", lambda: Not(Equals(StrSubstr(S("hello"), Int(1), Int(3)), S("ell"))), False),
    Example(
        "char at non-ascii", lambda: Equals(StrCharAt(S("héllo"), Int(1)), s()), True, {"s": "é"}
    ),
    Example(
        "str.to_int",
        lambda: And(Equals(StrToInt(s()), Int(42)), Equals(StrLength(s()), Int(2))),
        True,
        {"s": "42"},
    ),
    Example("str.to_int negative", lambda: Not(Equals(StrToInt(S("-5")), Int(-1))), False),
    Example("str.from_int no leading zeros", lambda: Equals(IntToStr(x()), S("007")), False),
    Example(
        "str.from_int negative", lambda: And(Equals(IntToStr(x()), S("")), GE(x(), Int(0))), False
    ),
    # The literal survives printing: \u{41} in the data is 6 characters, not "A".
    Example(
        "tricky literal",
        lambda: And(Equals(s(), S(TRICKY)), Equals(StrLength(s()), Int(len(TRICKY)))),
        True,
        {"s": TRICKY},
    ),
    Example("escape is data", lambda: Equals(S("\\u{41}"), S("A")), False),
    Example(
        "nul and quote", lambda: Equals(StrConcat(s(), S('"')), S('\x00"')), True, {"s": "\x00"}
    ),
    # -- UF and ITE
    Example(
        "uf congruence",
        lambda: And(
            Equals(Function(f(), [x()]), Int(1)),
            Equals(Function(f(), [y()]), Int(2)),
            Equals(x(), y()),
        ),
        False,
    ),
    Example(
        "uf predicate",
        lambda: And(Function(p(), [x()]), Not(Function(p(), [Int(3)])), Equals(x(), Int(3))),
        False,
    ),
    Example(
        "uf sat",
        lambda: And(Equals(Function(f(), [x()]), Int(1)), Equals(x(), Int(2))),
        True,
        {"x": 2},
    ),
    Example(
        "ite abs",
        lambda: And(Equals(Ite(GT(x(), Int(0)), x(), Minus(Int(0), x())), Int(5)), LT(x(), Int(0))),
        True,
        {"x": -5},
    ),
    Example("bool ite", lambda: And(Ite(a(), b(), Not(b())), a(), Not(b())), False),
    # -- reserved-name operators
    Example("str.< holds", lambda: Not(ops.str_lt(S("abc"), S("abd"))), False),
    Example("str.< strict", lambda: ops.str_lt(S("b"), S("a")), False),
    Example(
        "str.< code points",
        lambda: And(ops.str_lt(S("B"), S("a")), ops.str_lt(S("z"), S("é"))),
        True,
    ),
    Example("str.<= reflexive", lambda: Not(ops.str_le(s(), s())), False),
    Example(
        "str.< bounds",
        lambda: And(
            ops.str_lt(S("a"), s()),
            ops.str_lt(s(), S("b")),
            Equals(StrLength(s()), Int(2)),
            StrSuffixOf(S("a"), s()),
        ),
        True,
        {"s": "aa"},
    ),
    # div/mod are Euclidean: -7 = 2*(-4) + 1 ; 7 = (-2)*(-3) + 1.
    Example(
        "div mod negative",
        lambda: And(
            Equals(x(), Int(-7)),
            Equals(q(), ops.int_div(x(), Int(2))),
            Equals(r(), ops.int_mod(x(), Int(2))),
        ),
        True,
        {"x": -7, "q": -4, "rem": 1},
    ),
    Example(
        "div negative divisor",
        lambda: And(
            Equals(y(), Int(-2)),
            Equals(q(), ops.int_div(Int(7), y())),
            Equals(r(), ops.int_mod(Int(7), y())),
        ),
        True,
        {"y": -2, "q": -3, "rem": 1},
    ),
    Example("abs", lambda: And(Equals(ops.int_abs(x()), Int(3)), LT(x(), Int(0))), True, {"x": -3}),
    Example(
        "to_int floors",
        lambda: And(Equals(u(), Real(Fraction(-3, 2))), Equals(x(), ops.real_to_int(u()))),
        True,
        {"u": Fraction(-3, 2), "x": -2},
    ),
    Example("is_int", lambda: ops.real_is_int(Real(Fraction(5, 2))), False),
    Example(
        "to_code / from_code",
        lambda: And(Equals(ops.str_to_code(S("a")), x()), Equals(ops.str_from_code(Int(233)), s())),
        True,
        {"x": 97, "s": "é"},
    ),
    Example("is_digit", lambda: And(ops.str_is_digit(S("7")), Not(ops.str_is_digit(S("x")))), True),
    Example("is_digit one char", lambda: ops.str_is_digit(S("12")), False),
    Example(
        "replace_all",
        lambda: Equals(ops.str_replace_all(S("a-b-c"), S("-"), s()), S("a+b+c")),
        True,
        {"s": "+"},
    ),
    Example(
        "regex digits",
        lambda: And(
            ops.str_in_re(
                s(),
                ops.re_concat_all(
                    [
                        ops.str_to_re(S("ab")),
                        ops.re_star(ops.re_range(S("0"), S("9"))),
                        ops.str_to_re(S("c")),
                    ]
                ),
            ),
            Equals(StrLength(s()), Int(5)),
            Equals(StrToInt(StrSubstr(s(), Int(2), Int(2))), Int(42)),
        ),
        True,
        {"s": "ab42c"},
    ),
    Example(
        "re.+ not empty", lambda: ops.str_in_re(S(""), ops.re_plus(ops.str_to_re(S("a")))), False
    ),
    Example(
        "re.comp of all",
        lambda: ops.str_in_re(s(), ops.re_inter(ops.re_all(), ops.re_comp(ops.re_all()))),
        False,
    ),
    Example("re.none", lambda: ops.str_in_re(s(), ops.re_none()), False),
    Example(
        "re.opt",
        lambda: And(
            ops.str_in_re(
                s(), ops.re_concat(ops.re_opt(ops.str_to_re(S("x"))), ops.str_to_re(S("y")))
            ),
            Equals(StrLength(s()), Int(2)),
        ),
        True,
        {"s": "xy"},
    ),
    Example(
        "re.union",
        lambda: And(
            ops.str_in_re(s(), ops.re_union_all([ops.str_to_re(S(w)) for w in ("a", "bb", "ccc")])),
            Equals(StrLength(s()), Int(2)),
        ),
        True,
        {"s": "bb"},
    ),
    Example(
        "like %x%",
        lambda: And(
            ops.str_in_re(
                s(), ops.re_concat_all([ops.re_all(), ops.str_to_re(S("%")), ops.re_all()])
            ),
            Equals(StrLength(s()), Int(1)),
        ),
        True,
        {"s": "%"},
    ),
    Example(
        "allchar",
        lambda: And(
            ops.str_in_re(s(), ops.re_concat(ops.re_allchar(), ops.re_allchar())),
            Equals(StrLength(s()), Int(3)),
        ),
        False,
    ),
    Example(
        "allchar non-ascii",
        lambda: And(
            ops.str_in_re(s(), ops.re_allchar()), Equals(ops.str_to_code(s()), Int(0x1F600))
        ),
        True,
        {"s": "😀"},
    ),
    # -- names that need quoting
    Example(
        "quoted names",
        lambda: And(
            Equals(Symbol("my var", INT), Int(1)),
            Equals(Symbol("1abc", INT), Int(2)),
            Symbol("let", BOOL),
            Equals(Symbol("é", INT), Int(3)),
        ),
        True,
        {"my var": 1, "1abc": 2, "let": True, "é": 3},
    ),
    # -- sharing: the shared sum is a define-fun
    Example(
        "shared",
        lambda: And(
            GT(Plus(x(), Times(y(), Int(2))), Int(3)),
            LT(Plus(x(), Times(y(), Int(2))), Int(5)),
            Equals(y(), Int(1)),
        ),
        True,
        {"x": 2, "y": 1},
    ),
    Example("true", lambda: Bool(True), True),
]



@pytest.fixture(autouse=True, scope="module")
def fresh_env() -> Iterator[None]:
    """A pysmt environment of our own: other modules may use the same names with other types."""
    push_env()
    yield
    pop_env()


def pin(model: dict[str, Value], formula: FNode) -> list[FNode]:
    """Equalities fixing every nullary symbol of ``formula`` to its model value."""
    literals = []
    for symbol in collect_symbols([formula]):
        name = symbol.symbol_name()
        if symbol.symbol_type().is_function_type() or name not in model:
            continue
        value = model[name]
        if isinstance(value, bool):
            literals.append(symbol if value else Not(symbol))
        elif isinstance(value, int):
            literals.append(Equals(symbol, Int(value)))
        elif isinstance(value, Fraction):
            literals.append(Equals(symbol, Real(value)))
        else:
            literals.append(Equals(symbol, String(value)))
    return literals


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.name)
@pytest.mark.parametrize("solver_name", BOTH_SOLVERS)
def test_catalogue(example: Example, solver_name: str) -> None:
    formula = example.build()
    script = SmtLibWriter().script([formula], check_sat=True, comments=[example.name])
    result = get_solver(solver_name).check(script, timeout=TIMEOUT)
    expected = Status.SAT if example.sat else Status.UNSAT
    assert result.status is expected, result.reason
    if not example.sat:
        assert result.model is None
        return
    model = dict(result.model or {})
    names = {sym.symbol_name() for sym in collect_symbols([formula])
             if not sym.symbol_type().is_function_type()}  # fmt: skip
    assert set(model) == names  # every declared constant, nothing else (no d!N)
    for name, value in example.model.items():
        assert model[name] == value and type(model[name]) is type(value), name
    pinned = SmtLibWriter().script([formula, *pin(model, formula)])
    for other in ("z3", "cvc5"):
        back = get_solver(other).check(pinned, timeout=TIMEOUT)
        assert back.status is Status.SAT, f"{other} rejects the {solver_name} model: {back}"
