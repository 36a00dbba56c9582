"""SMT-LIB 2.6 operators that pysmt lacks, as reserved-name function symbols.

pysmt has no ``str.<``, no regular expressions, no ``str.replace_all`` and no
integer ``div``/``mod``/``abs``. Adding real node types to pysmt means touching
its type checker, printers and every converter, so instead each operator is a
pysmt *function symbol whose name is the SMT-LIB operator*, e.g.
``Symbol("str.<", FunctionType(BOOL, [STRING, STRING]))`` applied with
``Function``. Our printer (:mod:`spotit.smt.printer`) writes such applications
as ``(str.< a b)`` and never declares the names in :data:`BUILTIN_NAMES`, so the
solver reads its own built-in operator.

Warning:
    This only works on the SMT-LIB *text* path. A native pysmt solver (or
    pysmt's ``simplify()``) sees these as uninterpreted functions, under which
    e.g. ``str.< "b" "a"`` is satisfiable: unsound. Never hand formulas built
    with these helpers to a pysmt ``Solver``.

pysmt refuses to re-create a symbol name with another type, so every name has
exactly one signature; n-ary operators (``re.++``, ``re.union``) are folded
from their binary form. Where pysmt has an exact native operator
(``str.to_int``, ``str.from_int``) the helper uses it, so native tools still
understand it.

Every helper takes an optional ``mgr``: the :class:`FormulaManager` the
arguments were built with. By default it is the manager of the *current*
environment (``get_env()`` at call time, not at import time).

Example:
    >>> from pysmt.shortcuts import String, Symbol
    >>> from pysmt.typing import STRING
    >>> s = Symbol("s", STRING)
    >>> str_lt(String("abc"), s).function_name().symbol_name()
    'str.<'
"""

from __future__ import annotations

from collections.abc import Sequence

from pysmt.environment import get_env
from pysmt.fnode import FNode
from pysmt.formula import FormulaManager
from pysmt.typing import BOOL, INT, REAL, STRING, PySMTType

REGLAN_NAME = "RegLan"
"""Name of the SMT-LIB sort of regular languages (a custom pysmt type of arity 0)."""

MAX_CHAR = 0x2FFFF
"""Largest code point of an SMT-LIB string character (theory UnicodeStrings)."""

STAND_IN_CHARS = 0x2F800
"""From here to MAX_CHAR, a character of a symbolic text stands for any character SQLite
text may hold at or above it (to U+10FFFF, beyond SMT-LIB's strings): a database with
such characters maps onto one in this range, keeping their order and every literal,
so no literal may hold one (``Builder.str``) and UNICODE and CHAR are free here."""

_STR_LT = "str.<"
_STR_LE = "str.<="
_STR_TO_CODE = "str.to_code"
_STR_FROM_CODE = "str.from_code"
_STR_IS_DIGIT = "str.is_digit"
_STR_REPLACE_ALL = "str.replace_all"
_STR_IN_RE = "str.in_re"
_STR_TO_RE = "str.to_re"
_RE_STAR = "re.*"
_RE_PLUS = "re.+"
_RE_OPT = "re.opt"
_RE_CONCAT = "re.++"
_RE_UNION = "re.union"
_RE_INTER = "re.inter"
_RE_COMP = "re.comp"
_RE_RANGE = "re.range"
_RE_ALLCHAR = "re.allchar"
_RE_ALL = "re.all"
_RE_NONE = "re.none"
_DIV = "div"
_MOD = "mod"
_ABS = "abs"
_TO_INT = "to_int"
_IS_INT = "is_int"

BUILTIN_NAMES: frozenset[str] = frozenset(
    {
        _STR_LT, _STR_LE, _STR_TO_CODE, _STR_FROM_CODE, _STR_IS_DIGIT, _STR_REPLACE_ALL,
        _STR_IN_RE, _STR_TO_RE, _RE_STAR, _RE_PLUS, _RE_OPT, _RE_CONCAT, _RE_UNION,
        _RE_INTER, _RE_COMP, _RE_RANGE, _RE_ALLCHAR, _RE_ALL, _RE_NONE,
        _DIV, _MOD, _ABS, _TO_INT, _IS_INT,
        # Native pysmt operators the printer spells in SMT-LIB 2.6; reserved all the same.
        "str.to_int", "str.from_int",
    }
)  # fmt: skip
"""Symbol names that denote solver built-ins: the printer must never declare them."""


def _manager(mgr: FormulaManager | None) -> FormulaManager:
    return mgr if mgr is not None else get_env().formula_manager


def reglan(mgr: FormulaManager | None = None) -> PySMTType:
    """The ``RegLan`` sort, from the type manager of ``mgr``'s environment."""
    return _manager(mgr).env.type_manager.Type(REGLAN_NAME, 0)


_R = "RegLan"  # placeholder for the RegLan sort, which lives in each environment's type manager

# One fixed signature per reserved name, so that an ill-typed call fails in pysmt's
# type checker instead of re-declaring the name with a wrong type.
_SIGNATURES: dict[str, tuple[PySMTType | str, tuple[PySMTType | str, ...]]] = {
    _STR_LT: (BOOL, (STRING, STRING)),
    _STR_LE: (BOOL, (STRING, STRING)),
    _STR_TO_CODE: (INT, (STRING,)),
    _STR_FROM_CODE: (STRING, (INT,)),
    _STR_IS_DIGIT: (BOOL, (STRING,)),
    _STR_REPLACE_ALL: (STRING, (STRING, STRING, STRING)),
    _STR_IN_RE: (BOOL, (STRING, _R)),
    _STR_TO_RE: (_R, (STRING,)),
    _RE_STAR: (_R, (_R,)),
    _RE_PLUS: (_R, (_R,)),
    _RE_OPT: (_R, (_R,)),
    _RE_COMP: (_R, (_R,)),
    _RE_CONCAT: (_R, (_R, _R)),
    _RE_UNION: (_R, (_R, _R)),
    _RE_INTER: (_R, (_R, _R)),
    _RE_RANGE: (_R, (STRING, STRING)),
    _DIV: (INT, (INT, INT)),
    _MOD: (INT, (INT, INT)),
    _ABS: (INT, (INT,)),
    _TO_INT: (INT, (REAL,)),
    _IS_INT: (BOOL, (REAL,)),
}


def _sort(mgr: FormulaManager, sort: PySMTType | str) -> PySMTType:
    return reglan(mgr) if isinstance(sort, str) else sort


def _apply(mgr: FormulaManager, name: str, *args: FNode) -> FNode:
    """Apply the reserved function symbol ``name`` with its fixed signature."""
    ret, params = _SIGNATURES[name]
    fn_type = mgr.env.type_manager.FunctionType(_sort(mgr, ret), [_sort(mgr, p) for p in params])
    return mgr.Function(mgr.Symbol(name, fn_type), args)


# -- strings -------------------------------------------------------------------------------


def str_lt(a: FNode, b: FNode, *, mgr: FormulaManager | None = None) -> FNode:
    """``(str.< a b)``: strict lexicographic order by code point (SQLite BINARY on UTF-8)."""
    return _apply(_manager(mgr), _STR_LT, a, b)


def str_le(a: FNode, b: FNode, *, mgr: FormulaManager | None = None) -> FNode:
    """``(str.<= a b)``: reflexive lexicographic order by code point."""
    return _apply(_manager(mgr), _STR_LE, a, b)


def str_to_int(s: FNode, *, mgr: FormulaManager | None = None) -> FNode:
    """``(str.to_int s)``: the decimal value of ``s``, -1 unless ``s`` is all digits.

    Uses pysmt's native ``StrToInt``; our printer spells it ``str.to_int`` (2.6), not
    pysmt's ``str.to.int``.
    """
    return _manager(mgr).StrToInt(s)


def str_from_int(n: FNode, *, mgr: FormulaManager | None = None) -> FNode:
    """``(str.from_int n)``: decimal digits of ``n``, ``""`` when ``n`` is negative."""
    return _manager(mgr).IntToStr(n)


def str_to_code(s: FNode, *, mgr: FormulaManager | None = None) -> FNode:
    """``(str.to_code s)``: the code point of a one-character ``s``, else -1."""
    return _apply(_manager(mgr), _STR_TO_CODE, s)


def str_from_code(n: FNode, *, mgr: FormulaManager | None = None) -> FNode:
    """``(str.from_code n)``: the one-character string with code point ``n``, else ``""``."""
    return _apply(_manager(mgr), _STR_FROM_CODE, n)


def str_is_digit(s: FNode, *, mgr: FormulaManager | None = None) -> FNode:
    """``(str.is_digit s)``: ``s`` is a single character in ``0``-``9``."""
    return _apply(_manager(mgr), _STR_IS_DIGIT, s)


def str_replace_all(
    s: FNode, old: FNode, new: FNode, *, mgr: FormulaManager | None = None
) -> FNode:
    """``(str.replace_all s old new)``: every non-overlapping ``old``, left to right.

    SMT-LIB leaves ``s`` unchanged when ``old`` is empty (unlike SQLite's REPLACE,
    which also does, so this matches).
    """
    return _apply(_manager(mgr), _STR_REPLACE_ALL, s, old, new)


# -- regular expressions ---------------------------------------------------------------------


def str_in_re(s: FNode, r: FNode, *, mgr: FormulaManager | None = None) -> FNode:
    """``(str.in_re s r)``: ``s`` is in the language ``r``."""
    return _apply(_manager(mgr), _STR_IN_RE, s, r)


def str_to_re(s: FNode, *, mgr: FormulaManager | None = None) -> FNode:
    """``(str.to_re s)``: the language containing exactly ``s``."""
    return _apply(_manager(mgr), _STR_TO_RE, s)


def _re_unary(name: str, r: FNode, mgr: FormulaManager | None) -> FNode:
    return _apply(_manager(mgr), name, r)


def re_star(r: FNode, *, mgr: FormulaManager | None = None) -> FNode:
    """``(re.* r)``: Kleene star."""
    return _re_unary(_RE_STAR, r, mgr)


def re_plus(r: FNode, *, mgr: FormulaManager | None = None) -> FNode:
    """``(re.+ r)``: one or more repetitions."""
    return _re_unary(_RE_PLUS, r, mgr)


def re_opt(r: FNode, *, mgr: FormulaManager | None = None) -> FNode:
    """``(re.opt r)``: zero or one occurrence."""
    return _re_unary(_RE_OPT, r, mgr)


def re_comp(r: FNode, *, mgr: FormulaManager | None = None) -> FNode:
    """``(re.comp r)``: complement with respect to all strings."""
    return _re_unary(_RE_COMP, r, mgr)


def _re_binary(name: str, a: FNode, b: FNode, mgr: FormulaManager | None) -> FNode:
    return _apply(_manager(mgr), name, a, b)


def re_concat(a: FNode, b: FNode, *, mgr: FormulaManager | None = None) -> FNode:
    """Binary ``(re.++ a b)``; see :func:`re_concat_all` for more operands."""
    return _re_binary(_RE_CONCAT, a, b, mgr)


def re_union(a: FNode, b: FNode, *, mgr: FormulaManager | None = None) -> FNode:
    """Binary ``(re.union a b)``; see :func:`re_union_all` for more operands."""
    return _re_binary(_RE_UNION, a, b, mgr)


def re_inter(a: FNode, b: FNode, *, mgr: FormulaManager | None = None) -> FNode:
    """Binary ``(re.inter a b)``: intersection."""
    return _re_binary(_RE_INTER, a, b, mgr)


def _fold_right(name: str, parts: Sequence[FNode], unit: FNode, mgr: FormulaManager) -> FNode:
    """Right-nested fold (``a (b c)``): pysmt fixes one arity per symbol name."""
    if not parts:
        return unit
    acc = parts[-1]
    for part in reversed(parts[:-1]):
        acc = _apply(mgr, name, part, acc)
    return acc


def re_concat_all(parts: Sequence[FNode], *, mgr: FormulaManager | None = None) -> FNode:
    """``re.++`` of any number of languages; no parts gives ``(str.to_re "")``."""
    m = _manager(mgr)
    return _fold_right(_RE_CONCAT, parts, str_to_re(m.String(""), mgr=m), m)


def re_union_all(parts: Sequence[FNode], *, mgr: FormulaManager | None = None) -> FNode:
    """``re.union`` of any number of languages; no parts gives ``re.none``."""
    m = _manager(mgr)
    return _fold_right(_RE_UNION, parts, re_none(mgr=m), m)


def re_range(lo: FNode, hi: FNode, *, mgr: FormulaManager | None = None) -> FNode:
    """``(re.range lo hi)``: single characters from ``lo`` to ``hi``.

    Both must be one-character strings, otherwise the language is empty.
    """
    return _apply(_manager(mgr), _RE_RANGE, lo, hi)


def re_allchar(*, mgr: FormulaManager | None = None) -> FNode:
    """``re.allchar``: every one-character string."""
    m = _manager(mgr)
    return m.Symbol(_RE_ALLCHAR, reglan(m))


def re_all(*, mgr: FormulaManager | None = None) -> FNode:
    """``re.all``: every string."""
    m = _manager(mgr)
    return m.Symbol(_RE_ALL, reglan(m))


def re_none(*, mgr: FormulaManager | None = None) -> FNode:
    """``re.none``: the empty language."""
    m = _manager(mgr)
    return m.Symbol(_RE_NONE, reglan(m))


def re_below(c: str, *, mgr: FormulaManager | None = None) -> FNode:
    """The strings ordered before the constant ``c`` by ``str.<``, as a regular
    language: ``x < c`` is ``(str.in_re x (re_below c))``.

    Why: a solver's ``str.<`` against a constant works character by character
    through length splits (z3 5.4 took 6 to 15 s, cvc5 over 30 s, to decide
    ``'2017-01-01' <= x <= '2017-12-31 23:59:59'`` with ``x`` outside 2017), while the
    same order as a membership is decided in a tenth of a second by both
    (``spotit.encodings.textorder.constant_order`` says how the encoder uses it). The
    language, for ``c = c0 rest``: the empty string, every string whose first
    character is below ``c0``, and ``c0`` followed by a string below ``rest``; below
    ``""`` nothing is.
    """
    m = _manager(mgr)
    tail = None  # the empty language, left out of the unions
    for ch in reversed(c):
        parts = [str_to_re(m.String(""), mgr=m)]
        if ord(ch) > 0:
            parts.append(re_concat(re_range(m.String(chr(0)), m.String(chr(ord(ch) - 1)),
                                            mgr=m), re_all(mgr=m), mgr=m))
        if tail is not None:
            parts.append(re_concat(str_to_re(m.String(ch), mgr=m), tail, mgr=m))
        tail = re_union_all(parts, mgr=m)
    return re_none(mgr=m) if tail is None else tail


# -- integer and real arithmetic ---------------------------------------------------------------


def int_div(a: FNode, b: FNode, *, mgr: FormulaManager | None = None) -> FNode:
    """``(div a b)``: SMT-LIB Euclidean division (remainder never negative).

    Not pysmt's ``Div``: its simplifier and native solvers may apply another
    rounding, and it warns on a literal zero divisor. Division by zero is
    uninterpreted in SMT-LIB: the encoder must guard it.
    """
    return _apply(_manager(mgr), _DIV, a, b)


def int_mod(a: FNode, b: FNode, *, mgr: FormulaManager | None = None) -> FNode:
    """``(mod a b)``: Euclidean remainder, ``0 <= r < |b|`` (differs from SQLite ``%``)."""
    return _apply(_manager(mgr), _MOD, a, b)


def int_abs(a: FNode, *, mgr: FormulaManager | None = None) -> FNode:
    """``(abs a)`` on integers."""
    return _apply(_manager(mgr), _ABS, a)


def real_to_int(x: FNode, *, mgr: FormulaManager | None = None) -> FNode:
    """``(to_int x)``: floor of a real (not truncation: ``to_int(-1.5) = -2``)."""
    return _apply(_manager(mgr), _TO_INT, x)


def real_is_int(x: FNode, *, mgr: FormulaManager | None = None) -> FNode:
    """``(is_int x)``: the real ``x`` has no fractional part."""
    return _apply(_manager(mgr), _IS_INT, x)


__all__ = [
    "BUILTIN_NAMES",
    "REGLAN_NAME",
    "int_abs",
    "int_div",
    "int_mod",
    "re_all",
    "re_allchar",
    "re_below",
    "re_comp",
    "re_concat",
    "re_concat_all",
    "re_inter",
    "re_none",
    "re_opt",
    "re_plus",
    "re_range",
    "re_star",
    "re_union",
    "re_union_all",
    "real_is_int",
    "real_to_int",
    "reglan",
    "str_from_code",
    "str_from_int",
    "str_in_re",
    "str_is_digit",
    "str_le",
    "str_lt",
    "str_replace_all",
    "str_to_code",
    "str_to_int",
    "str_to_re",
]
