"""The narrowest standard SMT-LIB logic of a formula, computed from the formula.

Solver people sort benchmarks by logic and run a solver only on the logics it
supports, so ``(set-logic ALL)`` hides what a file needs. One linear pass over the
DAG collects the features that decide the logic: quantifiers, uninterpreted
functions, arrays, strings, integer and real arithmetic, and whether any
multiplication or division is non-linear (SMT-LIB's linear fragments allow a
product only with a numeral factor and ``div``/``mod``/``/`` only by a non-zero
numeral). The name is then looked up among the logics SMT-LIB defines
(https://smt-lib.org/logics.shtml); a combination without a standard name (text
with real arithmetic, say) is ``ALL``, never a narrower logic that would be wrong.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import pysmt.operators as op
from pysmt.fnode import FNode
from pysmt.typing import INT, REAL, STRING

from spotit.smt.ops import BUILTIN_NAMES, REGLAN_NAME

STANDARD_LOGICS = frozenset({
    "QF_UF", "QF_LIA", "QF_NIA", "QF_LRA", "QF_NRA", "QF_LIRA", "QF_NIRA",
    "QF_UFLIA", "QF_UFNIA", "QF_UFLRA", "QF_UFNRA", "QF_UFLIRA", "QF_UFNIRA",
    "QF_ALIA", "QF_ANIA", "QF_AUFLIA", "QF_AUFNIA", "QF_AX",
    "QF_S", "QF_SLIA", "QF_SNIA",
    "UF", "LIA", "NIA", "LRA", "NRA", "UFLIA", "UFNIA", "UFLRA", "UFNRA", "UFLIRA",
    "UFNIRA", "AUFLIA", "AUFNIA", "AUFLIRA", "AUFNIRA", "ALIA", "ANIA",
})  # fmt: skip
"""Logic names defined by SMT-LIB (and used by its benchmark library)."""

_STRING_BUILTINS = frozenset(n for n in BUILTIN_NAMES if n.startswith(("str.", "re.")))
_NONLINEAR_IF_VARIABLE_DIVISOR = frozenset({"div", "mod"})
_MIXING = frozenset({"to_int", "is_int"})  # Real -> Int: the formula mixes both


@dataclass
class Features:
    """What a formula uses; :meth:`logic` names the narrowest logic that allows it."""

    quantifiers: bool = False
    uninterpreted: bool = False
    arrays: bool = False
    strings: bool = False
    ints: bool = False
    reals: bool = False
    nonlinear: bool = False

    def logic(self) -> str:
        arith = ""
        if self.ints or self.reals:
            kind = "N" if self.nonlinear else "L"
            sorts = "IRA" if self.ints and self.reals else "IA" if self.ints else "RA"
            arith = kind + sorts
        if self.strings:
            if self.reals or self.arrays or self.uninterpreted:
                return "ALL"
            # the string theory has Int (str.len, str.indexof): QF_S is text alone
            name = "S" + ("" if not self.ints else arith)
        else:
            name = ("A" if self.arrays else "") + ("UF" if self.uninterpreted else "") + arith
            if self.arrays and not arith and not self.uninterpreted:
                name = "AX"
            if not name:
                name = "UF"  # Boolean structure only: the core theory
        name = name if self.quantifiers else "QF_" + name
        return name if name in STANDARD_LOGICS else "ALL"


def features(formulas: Iterable[FNode]) -> Features:
    """The features of ``formulas`` (each shared DAG node visited once, iteratively)."""
    found = Features()
    seen: set[int] = set()
    stack = list(formulas)
    while stack:
        node = stack.pop()
        if node.node_id() in seen:
            continue
        seen.add(node.node_id())
        _note(node, found)
        stack.extend(node.args())
    return found


def logic_of(formulas: Iterable[FNode]) -> str:
    """The narrowest standard SMT-LIB logic covering ``formulas`` (``ALL`` if none)."""
    return features(formulas).logic()


def _note(node: FNode, found: Features) -> None:
    t = node.get_type()
    _note_sort(t, found)
    kind = node.node_type()
    if kind in (op.FORALL, op.EXISTS):
        found.quantifiers = True
    elif kind in (op.ARRAY_SELECT, op.ARRAY_STORE, op.ARRAY_VALUE):
        found.arrays = True
    elif kind in op.STR_OPERATORS or kind in (op.STR_TO_INT, op.INT_TO_STR):
        found.strings = True
        found.ints = found.ints or kind in (op.STR_LENGTH, op.STR_INDEXOF, op.STR_TO_INT,
                                            op.INT_TO_STR, op.STR_SUBSTR, op.STR_CHARAT)
    elif kind == op.TOREAL:
        found.ints = found.reals = True
    elif kind == op.TIMES:
        if sum(1 for a in node.args() if not a.is_constant()) > 1:
            found.nonlinear = True
    elif kind == op.DIV:
        if not node.arg(1).is_constant() or node.arg(1).constant_value() == 0:
            found.nonlinear = True
    elif kind == op.POW:
        found.nonlinear = True
    elif kind == op.FUNCTION:
        name = node.function_name().symbol_name()
        ftype = node.function_name().symbol_type()
        for p in ftype.param_types:
            _note_sort(p, found)
        if name in _STRING_BUILTINS:
            found.strings = True
        elif name in _NONLINEAR_IF_VARIABLE_DIVISOR:
            divisor = node.arg(1)
            if not divisor.is_constant() or divisor.constant_value() == 0:
                found.nonlinear = True
        elif name in _MIXING:
            found.ints = found.reals = True
        elif name not in BUILTIN_NAMES:
            found.uninterpreted = True


def _note_sort(t, found: Features) -> None:
    if t is INT:
        found.ints = True
    elif t is REAL:
        found.reals = True
    elif t is STRING or getattr(t, "name", None) == REGLAN_NAME:
        found.strings = True
    elif t.is_array_type():
        found.arrays = True
        _note_sort(t.index_type, found)
        _note_sort(t.elem_type, found)
