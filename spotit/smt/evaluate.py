"""Formulas evaluated on known symbol values, without a solver, in SMT-LIB's semantics.

pysmt's :class:`Simplifier` folds constants, but where SMT-LIB and Python differ
it follows Python (``str.substr`` with a negative start, ``str.to_int`` of
``" 1"``, ``str.indexof`` from a negative position) and it leaves our
reserved-name operators (:mod:`spotit.smt.ops`) alone. :class:`Evaluator`
replaces the known symbols while it simplifies (one DAG walk, no separate
substitution), follows SMT-LIB in those places, and evaluates the reserved
operators. Where SMT-LIB leaves a value unspecified (division by zero) it keeps
the term: a result that is not a constant means "ask the solver".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction

from pysmt.environment import Environment
from pysmt.fnode import FNode
from pysmt.simplifier import Simplifier

from spotit.smt.ops import MAX_CHAR
from spotit.smt.regex_eval import NotConstant, in_re


class Evaluator(Simplifier):
    """Simplify with ``values`` (symbol -> constant, or an uninterpreted function's
    application to constants -> constant) substituted."""

    def __init__(self, env: Environment, values: Mapping[FNode, FNode]):
        super().__init__(env)
        self.values = values

    def walk_symbol(self, formula: FNode, args, **kwargs) -> FNode:
        return self.values.get(formula, formula)

    # -- SMT-LIB's string semantics where Python's differ ------------------------------------

    def walk_str_charat(self, formula: FNode, args, **kwargs) -> FNode:
        s, i = args
        if s.is_string_constant() and i.is_int_constant():
            return self.manager.String(str_at(s.constant_value(), int(i.constant_value())))
        return self.manager.StrCharAt(s, i)

    def walk_str_substr(self, formula: FNode, args, **kwargs) -> FNode:
        s, i, n = args
        if s.is_string_constant() and i.is_int_constant() and n.is_int_constant():
            return self.manager.String(str_substr(s.constant_value(), int(i.constant_value()),
                                                  int(n.constant_value())))
        return self.manager.StrSubstr(s, i, n)

    def walk_str_indexof(self, formula: FNode, args, **kwargs) -> FNode:
        s, t, i = args
        if s.is_string_constant() and t.is_string_constant() and i.is_int_constant():
            return self.manager.Int(str_indexof(s.constant_value(), t.constant_value(),
                                                int(i.constant_value())))
        return self.manager.StrIndexOf(s, t, i)

    def walk_str_to_int(self, formula: FNode, args, **kwargs) -> FNode:
        s = args[0]
        if s.is_string_constant():
            return self.manager.Int(str_to_int(s.constant_value()))
        return self.manager.StrToInt(s)

    def walk_str_prefixof(self, formula: FNode, args, **kwargs) -> FNode:
        s, t = args  # pysmt's own rebuilds a partly known one with a misspelt method
        if s.is_string_constant() and t.is_string_constant():
            return self.manager.Bool(t.constant_value().startswith(s.constant_value()))
        return self.manager.StrPrefixOf(s, t)

    def walk_str_suffixof(self, formula: FNode, args, **kwargs) -> FNode:
        s, t = args
        if s.is_string_constant() and t.is_string_constant():
            return self.manager.Bool(t.constant_value().endswith(s.constant_value()))
        return self.manager.StrSuffixOf(s, t)

    def walk_div(self, formula: FNode, args, **kwargs) -> FNode:
        a, b = args
        if a.is_constant() and b.is_constant() and not b.is_zero():
            if a.is_real_constant():
                return self.manager.Real(_fraction(a) / _fraction(b))
            return self.manager.Int(euclid_div(int(a.constant_value()),
                                               int(b.constant_value())))
        return self.manager.Div(a, b)

    # -- the reserved-name operators ---------------------------------------------------------

    def walk_function(self, formula: FNode, args, **kwargs) -> FNode:
        name = formula.function_name().symbol_name()
        value = _apply(name, args) if all(_constant(a) for a in args) else None
        if value is None:  # an uninterpreted function: known at this point, or kept
            application = self.manager.Function(formula.function_name(), args)
            return self.values.get(application, application)
        if isinstance(value, bool):
            return self.manager.Bool(value)
        if isinstance(value, int):
            return self.manager.Int(value)
        return self.manager.String(value)


def evaluate(env: Environment, values: Mapping[FNode, FNode], formulas: Iterable[FNode]
             ) -> list[FNode]:
    """Each formula simplified with ``values`` substituted (shared subterms once)."""
    ev = Evaluator(env, values)
    return [ev.simplify(f) for f in formulas]


def _constant(a: FNode) -> bool:
    """A constant argument: a literal, or a RegLan term (:func:`in_re` checks its parts)."""
    if a.is_constant():
        return True
    t = a.get_type()
    return not (t.is_int_type() or t.is_real_type() or t.is_string_type() or t.is_bool_type())


def _apply(name: str, args) -> bool | int | str | None:
    """The value of a reserved operator on constants; None where it has none here."""
    return apply_reserved(name, [a.constant_value() if a.is_constant() else a for a in args])


def apply_reserved(name: str, v: list) -> bool | int | str | None:
    """The value of a reserved operator on Python values (a RegLan argument as its
    term); None where it has none here."""
    if name == "str.<":
        return v[0] < v[1]
    if name == "str.<=":
        return v[0] <= v[1]
    if name == "str.to_code":
        return ord(v[0]) if len(v[0]) == 1 else -1
    if name == "str.from_code":
        return chr(v[0]) if 0 <= v[0] <= MAX_CHAR else ""
    if name == "str.is_digit":
        return len(v[0]) == 1 and "0" <= v[0] <= "9"
    if name == "str.replace_all":
        return v[0] if v[1] == "" else v[0].replace(v[1], v[2])
    if name == "str.in_re":
        try:
            return in_re(v[0], v[1])
        except NotConstant:
            return None
    if name in ("div", "mod"):
        if v[1] == 0:
            return None  # unspecified in SMT-LIB: the solver may pick any value
        q = euclid_div(int(v[0]), int(v[1]))
        return q if name == "div" else int(v[0]) - int(v[1]) * q
    if name == "abs":
        return abs(int(v[0]))
    if name == "to_int":
        return _floor(Fraction(v[0]))
    if name == "is_int":
        return Fraction(v[0]).denominator == 1
    return None


# -- SMT-LIB's semantics on Python values (here and in spotit.smt.compiled) ----------------

def str_at(text: str, k: int) -> str:
    return text[k] if 0 <= k < len(text) else ""


def str_substr(text: str, k: int, m: int) -> str:
    return text[k:k + m] if 0 <= k < len(text) and m > 0 else ""


def str_indexof(text: str, t: str, k: int) -> int:
    return text.find(t, k) if 0 <= k <= len(text) else -1


def str_to_int(text: str) -> int:
    return int(text) if text != "" and all("0" <= c <= "9" for c in text) else -1


def str_from_int(n: int) -> str:
    return str(n) if n >= 0 else ""


def euclid_div(a: int, b: int) -> int:
    """SMT-LIB ``div``: ``a = b*q + r`` with ``0 <= r < |b|``."""
    q = a // b if b > 0 else -(a // -b)
    return q


def _floor(x: Fraction) -> int:
    return x.numerator // x.denominator


def _fraction(a: FNode) -> Fraction:
    return Fraction(a.constant_value())  # pysmt's Fraction, or gmpy's mpq (a Rational)
