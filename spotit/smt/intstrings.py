"""Text as integers when a formula only ever compares text for equality.

Most formulas of real query pairs use strings only through ``=`` (cells equal
to literals or to other cells), ``ite`` and uninterpreted functions; the
string theory is then much more than they need and costs (on BIRD-dev pairs at
k = 3 with z3: median 0.89 s with strings against 0.14 s with integers for
satisfiable formulas, and 14 of 118 unknown/timeouts against none). For such a
formula, each string literal becomes a distinct integer and each string symbol
an integer symbol. Over infinite domains with equality only this is
equisatisfiable, so proofs stay proofs and every model maps back to strings:
a literal's integer to the literal, any other integer to a fresh string no
literal equals. The only non-equality use allowed is the domain constraint
"no NUL character in a cell", which is dropped (a relaxation: fresh strings
never contain NUL).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pysmt import operators as op
from pysmt.fnode import FNode
from pysmt.typing import INT, STRING, FunctionType, PySMTType

from spotit.smt.ops import BUILTIN_NAMES

_FIRST_ID = 1_000_000  # literals get 1_000_000, 1_000_001, ... (any distinct ints would do)
_SUFFIX = "!as_int"  # the integer twin of a text symbol or function


_STRING_THEORY = frozenset(op.STR_OPERATORS) | frozenset(op.STR_RELATIONS) | {
    op.STR_TO_INT, op.INT_TO_STR}


def _is_nul_guard(node: FNode) -> bool:
    """``not (str.contains x "\\x00")``: the text domain's NUL exclusion."""
    if not node.is_not():
        return False
    inner = node.arg(0)
    return (inner.node_type() == op.STR_CONTAINS and inner.arg(1).is_string_constant()
            and inner.arg(1).constant_value() == "\x00")


def _stringy(t: PySMTType) -> bool:
    if t is STRING:
        return True
    if t.is_function_type():
        return t.return_type is STRING or any(a is STRING for a in t.param_types)
    return False


class IntStrings:
    """Converts equality-only string formulas to integers, consistently across calls."""

    def __init__(self, mgr):
        self.mgr = mgr
        self.ids: dict[str, int] = {}  # string literal (or decoded fresh string) -> int
        self.strings: dict[int, str] = {}
        self.symbols: dict[str, FNode] = {}  # original String symbol name -> Int symbol
        self._memo: dict[FNode, FNode] = {}

    # ------------------------------------------------------------------ eligibility

    @staticmethod
    def eligible(roots: Iterable[FNode]) -> bool:
        """Do the formulas touch strings only through =, ite, constants, symbols and
        uninterpreted functions (plus the NUL domain guard)?"""
        seen: set[FNode] = set()
        stack = list(roots)
        while stack:
            n = stack.pop()
            if n in seen:
                continue
            seen.add(n)
            if _is_nul_guard(n):
                continue
            t = n.node_type()
            if t == op.FUNCTION:
                name = n.function_name().symbol_name()
                if name in BUILTIN_NAMES and _stringy(n.function_name().symbol_type()):
                    return False
            elif t in (op.SYMBOL, op.STR_CONSTANT, op.ITE, op.EQUALS):
                pass
            elif t in _STRING_THEORY or n.get_type() is STRING:
                return False
            stack.extend(n.args())
        return True

    # ------------------------------------------------------------------ conversion

    def literal_id(self, s: str) -> int:
        i = self.ids.get(s)
        if i is None:
            i = _FIRST_ID + len(self.ids)
            while i in self.strings:
                i += 1
            self.ids[s] = i
            self.strings[i] = s
        return i

    def convert(self, formulas: Sequence[FNode]) -> list[FNode]:
        return [self._convert(f) for f in formulas]

    def _convert(self, root: FNode) -> FNode:
        stack = [(root, False)]
        while stack:
            n, children_done = stack.pop()
            if n in self._memo:
                continue
            if children_done:
                self._memo[n] = self._rebuild(n)
                continue
            stack.append((n, True))
            if not _is_nul_guard(n):
                stack.extend((a, False) for a in n.args() if a not in self._memo)
        return self._memo[root]

    def _rebuild(self, n: FNode) -> FNode:
        m = self.mgr
        if _is_nul_guard(n):
            return m.TRUE()
        t = n.node_type()
        if t == op.STR_CONSTANT:
            return m.Int(self.literal_id(n.constant_value()))
        if t == op.SYMBOL:
            if n.symbol_type() is STRING:
                return self._int_symbol(n.symbol_name())
            return n
        args = [self._memo[a] for a in n.args()]
        if t == op.FUNCTION:
            f = n.function_name()
            if _stringy(f.symbol_type()):
                ft = f.symbol_type()
                params = [INT if p is STRING else p for p in ft.param_types]
                ret = INT if ft.return_type is STRING else ft.return_type
                f = m.Symbol(f.symbol_name() + _SUFFIX, FunctionType(ret, params))
            return m.Function(f, args)
        if t == op.EQUALS:
            return m.Equals(*args)
        if t == op.ITE:
            return m.Ite(*args)
        if all(a is b for a, b in zip(args, n.args(), strict=True)):
            return n
        return m.create_node(t, tuple(args), n._content.payload)

    def _int_symbol(self, name: str) -> FNode:
        s = self.symbols.get(name)
        if s is None:
            s = self.symbols[name] = self.mgr.Symbol(name + _SUFFIX, INT)
        return s

    # ------------------------------------------------------------------ models

    def decode_model(self, model: dict) -> dict:
        """The model with every converted text symbol's value as a string again."""
        out = dict(model)
        for name, sym in self.symbols.items():
            v = model.get(sym.symbol_name())
            if v is not None:
                out[name] = self.string_of(int(v))
        return out

    def string_of(self, i: int) -> str:
        """The literal numbered ``i``, or a fresh short string no literal equals."""
        s = self.strings.get(i)
        if s is None:
            k = len(self.strings)
            while True:
                s = _short_name(k)
                if s not in self.ids:
                    break
                k += 1
            self.ids[s] = i
            self.strings[i] = s
        return s


def _short_name(k: int) -> str:
    """'a', 'b', ..., 'z', 'aa', 'ab', ... for k = 0, 1, ..."""
    out = ""
    k += 1
    while k:
        k, r = divmod(k - 1, 26)
        out = chr(ord("a") + r) + out
    return out
