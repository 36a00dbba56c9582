"""Our one SMT-LIB 2.6 printer: pysmt formulas to text that z3 and cvc5 both read.

pysmt's printers are unusable for us (see ``toolchain-notes.md``): they write
pre-2.6 names (``str.to.int``), put raw UTF-8 into string literals, and their
first call is quadratic on deep DAGs. This printer is

- **iterative**: explicit stacks, so a 100k-deep ITE chain is no problem;
- **linear**: one pass to count uses, one to write; each node body is written once
  and the output is joined once;
- **flat**: a compound subterm used more than once becomes
  ``(define-fun d!N () Sort body)``, written before the first command that needs it.
  Nesting is also cut at ``max_depth`` by naming the deep subterm, so the solvers'
  parsers never see deep nesting (no ``let``: it nests by construction);
- **incremental**: the writer remembers which symbols it declared and which
  subterms it named, and :meth:`SmtLibWriter.push`/:meth:`SmtLibWriter.pop`
  mirror the solver's scopes (SMT-LIB scopes declarations and definitions too).

Literals: integers ``5``/``(- 5)``; reals ``2.0``, ``(/ 1.0 3.0)``, ``(- 2.5)``-style
decimals only, so they are well sorted even in strict mixed Int/Real logics;
strings with ``"`` doubled and every character outside printable ASCII, and the
backslash, as ``\\u{hex}`` (so no ``\\u`` in the data can be misread as an escape).

The spec: https://smt-lib.org/papers/smt-lib-reference-v2.6-r2021-05-12.pdf and the
strings theory at https://smt-lib.org/theories-UnicodeStrings.shtml.

Example:
    >>> from pysmt.shortcuts import GT, Int, Plus, Symbol
    >>> from pysmt.typing import INT
    >>> x = Symbol("x", INT)
    >>> print(SmtLibWriter().commands([GT(Plus(x, Int(-1)), Int(0))]), end="")
    (declare-fun x () Int)
    (assert (< 0 (+ x (- 1))))
"""

from __future__ import annotations

import contextlib
import gc
import re
import time
from collections.abc import Iterator, Sequence
from fractions import Fraction

import pysmt.operators as op
from pysmt.environment import Environment, get_env
from pysmt.fnode import FNode
from pysmt.typing import PySMTType

from spotit.errors import BudgetExceeded
from spotit.smt.ops import BUILTIN_NAMES, MAX_CHAR, REGLAN_NAME
from spotit.smt.walkers import collect_symbols, formula_size

DEFAULT_MAX_DEPTH = 200
"""Deepest nesting written inline; a deeper subterm gets a ``define-fun`` of its own."""

_DEF_PREFIX = "d!"
_DEF_NAME = re.compile(r"d!\d+\Z")

# Operators written as ``(name arg ...)`` with a fixed name.
_OP_NAMES: dict[int, str] = {
    op.AND: "and",
    op.OR: "or",
    op.NOT: "not",
    op.IMPLIES: "=>",
    op.IFF: "=",
    op.EQUALS: "=",
    op.PLUS: "+",
    op.MINUS: "-",
    op.TIMES: "*",
    op.LE: "<=",
    op.LT: "<",
    op.ITE: "ite",
    op.TOREAL: "to_real",
    op.STR_LENGTH: "str.len",
    op.STR_CONCAT: "str.++",
    op.STR_CONTAINS: "str.contains",
    op.STR_INDEXOF: "str.indexof",
    op.STR_REPLACE: "str.replace",
    op.STR_SUBSTR: "str.substr",
    op.STR_PREFIXOF: "str.prefixof",
    op.STR_SUFFIXOF: "str.suffixof",
    op.STR_TO_INT: "str.to_int",
    op.INT_TO_STR: "str.from_int",
    op.STR_CHARAT: "str.at",
    op.ARRAY_SELECT: "select",
    op.ARRAY_STORE: "store",
}
# pysmt's argument orders equal SMT-LIB's for all of these (StrPrefixOf(s, t) is
# "s is a prefix of t" = (str.prefixof s t), StrContains(s, t) = (str.contains s t),
# StrIndexOf(s, t, i) = (str.indexof s t i)); tests/test_smt_printer.py checks it
# against both solvers.

_LEAVES = frozenset({op.SYMBOL, op.BOOL_CONSTANT, op.INT_CONSTANT, op.REAL_CONSTANT,
                     op.STR_CONSTANT})  # fmt: skip

# Names a user symbol must not have: quoting does not help, as ``|and|`` *is* ``and``.
_THEORY_NAMES = frozenset(_OP_NAMES.values()) | BUILTIN_NAMES | {
    "true", "false", "distinct", "xor", ">=", ">", "/", "div", "const", "as",
}  # fmt: skip

# SMT-LIB reserved words and command names: legal only when quoted.
_RESERVED_WORDS = frozenset({
    "!", "_", "as", "BINARY", "DECIMAL", "exists", "forall", "HEXADECIMAL", "let", "match",
    "NUMERAL", "par", "STRING", "assert", "check-sat", "check-sat-assuming", "declare-const",
    "declare-datatype", "declare-datatypes", "declare-fun", "declare-sort", "define-fun",
    "define-fun-rec", "define-funs-rec", "define-sort", "echo", "exit", "get-assertions",
    "get-assignment", "get-info", "get-model", "get-option", "get-proof",
    "get-unsat-assumptions", "get-unsat-core", "get-value", "pop", "push", "reset",
    "reset-assertions", "set-info", "set-logic", "set-option",
})  # fmt: skip

_SIMPLE_SYMBOL = re.compile(r"[A-Za-z~!@$%^&*_+=<>.?/-][0-9A-Za-z~!@$%^&*_+=<>.?/-]*\Z")
# Everything but printable ASCII without '"' and '\': those are doubled or escaped.
_STRING_SPECIAL = re.compile(r"[^\x20\x21\x23-\x5b\x5d-\x7e]")


def _escape_char(match: re.Match[str]) -> str:
    char = match.group()
    if char == '"':
        return '""'
    code = ord(char)
    if code > MAX_CHAR:
        raise ValueError(f"character U+{code:04X} is outside SMT-LIB strings (max U+{MAX_CHAR:X})")
    return f"\\u{{{code:x}}}"


def string_literal(value: str) -> str:
    """An SMT-LIB 2.6 string literal for ``value`` (pure printable ASCII on output).

    Example:
        >>> print(string_literal('say "hé"\\\\'))
        "say ""h\\u{e9}""\\u{5c}"
    """
    return f'"{_STRING_SPECIAL.sub(_escape_char, value)}"'


def int_literal(value: int) -> str:
    """``5`` or ``(- 5)``: SMT-LIB numerals are never negative."""
    return str(value) if value >= 0 else f"(- {-value})"


def real_literal(value: Fraction) -> str:
    """``2.0``, ``(/ 1.0 3.0)`` or ``(- (/ 1.0 3.0))``: exact, with Real-sorted decimals."""
    num, den = abs(value.numerator), value.denominator
    body = f"{num}.0" if den == 1 else f"(/ {num}.0 {den}.0)"
    return body if value >= 0 else f"(- {body})"


def symbol_text(name: str) -> str:
    """``name`` as an SMT-LIB symbol: as is when simple, else quoted ``|name|``.

    Raises:
        ValueError: ``name`` contains ``|`` or ``\\`` (no SMT-LIB symbol can).
    """
    if "|" in name or "\\" in name:
        raise ValueError(f"symbol name {name!r} contains '|' or '\\', not allowed in SMT-LIB")
    if _SIMPLE_SYMBOL.match(name) and name not in _RESERVED_WORDS:
        return name
    return f"|{name}|"


def sort_text(sort: PySMTType) -> str:
    """The SMT-LIB name of a pysmt type (Bool, Int, Real, String, RegLan, arrays, ...)."""
    if sort.is_bool_type():
        return "Bool"
    if sort.is_int_type():
        return "Int"
    if sort.is_real_type():
        return "Real"
    if sort.is_string_type():
        return "String"
    if sort.is_array_type():
        return f"(Array {sort_text(sort.index_type)} {sort_text(sort.elem_type)})"
    if sort.is_bv_type():
        return f"(_ BitVec {sort.width})"
    if sort.is_custom_type():
        base = symbol_text(sort.basename)
        if not sort.args:
            return base
        return f"({base} {' '.join(sort_text(a) for a in sort.args)})"
    raise NotImplementedError(f"SMT-LIB printer: no sort for pysmt type {sort}")


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic GC: printing allocates only acyclic garbage, and with a large
    heap the collector's passes doubled the printing time (1.1 s vs 0.5 s, 100k nodes)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _is_leaf(node: FNode) -> bool:
    return node.node_type() in _LEAVES


class SmtLibWriter:
    """Writes SMT-LIB 2.6 commands for pysmt formulas, remembering what it declared.

    One writer corresponds to one solver session: :meth:`commands` emits only
    declarations and definitions the session has not seen, and :meth:`push` /
    :meth:`pop` follow the session's scopes. Definition names ``d!N`` are never
    reused, even after a pop, so a popped name can never be confused with a new one.
    """

    def __init__(self, env: Environment | None = None, *, max_depth: int = DEFAULT_MAX_DEPTH):
        if max_depth < 1:
            raise ValueError("max_depth must be at least 1")
        self._env = env if env is not None else get_env()
        self._max_depth = max_depth
        self._declared: set[FNode] = set()  # user symbols (constants and functions)
        self._sorts: set[str] = set()  # declared uninterpreted sorts
        self._names: dict[FNode, str] = {}  # shared subterm -> d!N
        self._trail: list[tuple[int, object]] = []  # undo log for pop()
        self._marks: list[int] = []
        self._counter = 0
        self._leaf_text: dict[FNode, str] = {}  # pure cache, not scoped
        # a time limit (time.monotonic()): writing a formula of millions of nodes takes
        # seconds, and a check's --timeout covers it (BudgetExceeded past it)
        self.deadline: float | None = None
        self._ticks = 0

    # -- scopes -------------------------------------------------------------------------

    def push(self) -> None:
        """Open a scope: what is declared or named from now on is forgotten by :meth:`pop`."""
        self._marks.append(len(self._trail))

    def pop(self) -> None:
        """Close the innermost scope, forgetting its declarations and definitions."""
        if not self._marks:
            raise ValueError("pop() without a matching push()")
        self._undo(self._marks.pop())

    def _undo(self, mark: int) -> None:
        for kind, key in reversed(self._trail[mark:]):
            if kind == 0:
                self._declared.discard(key)  # type: ignore[arg-type]
            elif kind == 1:
                self._sorts.discard(key)  # type: ignore[arg-type]
            else:
                del self._names[key]  # type: ignore[index]
        del self._trail[mark:]

    @property
    def depth(self) -> int:
        """Number of open scopes."""
        return len(self._marks)

    def reset(self) -> None:
        """Forget everything (a new script); definition numbering still goes on."""
        self._declared.clear()
        self._sorts.clear()
        self._names.clear()
        self._trail.clear()
        self._marks.clear()

    # -- output ------------------------------------------------------------------------

    def script(
        self,
        assertions: Sequence[FNode],
        *,
        check_sat: bool = False,
        comments: Sequence[str] = (),
    ) -> str:
        """A complete, standalone script for ``assertions``.

        Starts afresh (:meth:`reset`), so it declares everything it uses; afterwards
        the writer describes this script, and :meth:`commands` can extend it.
        ``:produce-models`` comes before ``set-logic`` as SMT-LIB requires (start mode).
        """
        self.reset()
        lines = ["(set-option :produce-models true)", "(set-logic ALL)"]
        for comment in comments:
            lines.extend(f"; {line}".rstrip() for line in comment.splitlines() or [""])
        head = "\n".join(lines) + "\n"
        tail = "(check-sat)\n" if check_sat else ""
        return head + self.commands(assertions) + tail

    def commands(self, assertions: Sequence[FNode]) -> str:
        """Declarations, definitions and one ``(assert ...)`` per formula, in that order.

        Only symbols and shared subterms new to this writer are declared/defined.
        Every assertion must be Boolean. On an error the writer's state is unchanged.
        """
        stc = self._env.stc
        for formula in assertions:
            if not stc.get_type(formula).is_bool_type():
                raise ValueError(f"cannot assert a non-Boolean term: {formula}")
        with _gc_paused():
            return self._commands(assertions)

    def _commands(self, assertions: Sequence[FNode]) -> str:
        """The body of :meth:`commands`, all or nothing."""
        stc = self._env.stc
        mark = len(self._trail)
        try:
            order, uses, new_symbols = self._scan(assertions)
            named = self._choose_names(order, uses)
            out: list[str] = []
            for symbol in new_symbols:
                self._declare(symbol, out)
            for node in named:
                sort = sort_text(stc.get_type(node))
                out.append(f"(define-fun {self._names[node]} () {sort} ")
                self._write(node, out, body=True)
                out.append(")\n")
            for formula in assertions:
                out.append("(assert ")
                self._write(formula, out, body=False)
                out.append(")\n")
        except BaseException:
            self._undo(mark)  # nothing was emitted, so nothing may be remembered
            raise
        return "".join(out)

    def term(self, node: FNode) -> str:
        """One term as text, using (not extending) the writer's names and declarations."""
        out: list[str] = []
        self._write(node, out, body=False)
        return "".join(out)

    # -- passes ------------------------------------------------------------------------

    def _scan(self, roots: Sequence[FNode]) -> tuple[list[FNode], dict[FNode, int], list[FNode]]:
        """Post-order of new compound nodes, their use counts, and new user symbols."""
        names = self._names
        uses: dict[FNode, int] = {}
        done: set[FNode] = set()
        order: list[FNode] = []
        new_symbols: dict[FNode, None] = {}
        stack: list[tuple[FNode, bool]] = []

        def see(node: FNode) -> None:
            if node.node_type() == op.SYMBOL:
                self._note_symbol(node, new_symbols)
            elif not _is_leaf(node) and node not in names:
                count = uses.get(node)
                uses[node] = 1 if count is None else count + 1
                if node not in done:
                    # Pushed again even if already waiting deeper in the stack: it must
                    # be finished before the node being expanded now (post-order).
                    stack.append((node, False))

        for root in roots:
            see(root)
            while stack:
                self._tick()
                node, expanded = stack.pop()
                if expanded:
                    done.add(node)
                    order.append(node)
                    continue
                if node in done:
                    continue
                stack.append((node, True))
                kind = node.node_type()
                if kind == op.FUNCTION:
                    self._note_symbol(node.function_name(), new_symbols)
                elif kind not in _OP_NAMES and kind != op.DIV:
                    raise NotImplementedError(
                        f"SMT-LIB printer: operator {op.op_to_str(kind)} is not supported"
                    )
                for child in node.args():
                    see(child)
        return order, uses, list(new_symbols)

    def _note_symbol(self, symbol: FNode, new_symbols: dict[FNode, None]) -> None:
        if symbol in self._declared or symbol in new_symbols:
            return
        name = symbol.symbol_name()
        if name in BUILTIN_NAMES:
            return
        if name in _THEORY_NAMES:
            raise ValueError(f"symbol name {name!r} is an SMT-LIB operator; rename it")
        if _DEF_NAME.match(name):
            raise ValueError(f"symbol name {name!r} is reserved for the printer's definitions")
        symbol_text(name)  # validates
        new_symbols[symbol] = None

    def _choose_names(self, order: list[FNode], uses: dict[FNode, int]) -> list[FNode]:
        """Name shared nodes and nodes nested deeper than ``max_depth``; post-order."""
        names = self._names
        depth: dict[FNode, int] = {}
        named: list[FNode] = []
        limit = self._max_depth
        for node in order:
            inner = 0
            for child in node.args():
                d = depth.get(child, 0)  # leaves and named nodes: 0
                if d > inner:
                    inner = d
            if uses[node] > 1 or inner >= limit:
                self._counter += 1
                names[node] = f"{_DEF_PREFIX}{self._counter}"
                self._trail.append((2, node))
                named.append(node)
            else:
                depth[node] = inner + 1
        return named

    def _declare(self, symbol: FNode, out: list[str]) -> None:
        sort = symbol.symbol_type()
        if sort.is_function_type():
            params = " ".join(sort_text(p) for p in sort.param_types)
            self._declare_sorts([*sort.param_types, sort.return_type], out)
            ret = sort_text(sort.return_type)
        else:
            params = ""
            self._declare_sorts([sort], out)
            ret = sort_text(sort)
        out.append(f"(declare-fun {symbol_text(symbol.symbol_name())} ({params}) {ret})\n")
        self._declared.add(symbol)
        self._trail.append((0, symbol))

    def _declare_sorts(self, sorts: list[PySMTType], out: list[str]) -> None:
        """``declare-sort`` for uninterpreted sorts (every custom type but RegLan)."""
        todo = list(sorts)
        while todo:
            sort = todo.pop()
            if sort.is_array_type():
                todo += [sort.index_type, sort.elem_type]
            elif sort.is_custom_type():
                todo += list(sort.args)
                if sort.basename != REGLAN_NAME and sort.basename not in self._sorts:
                    out.append(f"(declare-sort {symbol_text(sort.basename)} {sort.arity})\n")
                    self._sorts.add(sort.basename)
                    self._trail.append((1, sort.basename))

    def _write(self, root: FNode, out: list[str], *, body: bool) -> None:
        """Append the text of ``root``; named subterms by name (``root`` too unless ``body``)."""
        names = self._names
        append = out.append
        stack: list[FNode | str] = [root]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                append(item)
                continue
            self._tick()
            if not (body and item is root):
                name = names.get(item)
                if name is not None:
                    append(name)
                    continue
            if _is_leaf(item):
                append(self._leaf(item))
                continue
            append(f"({self._op_name(item)}")
            stack.append(")")
            for child in reversed(item.args()):
                stack.append(child)
                stack.append(" ")

    def _tick(self) -> None:
        self._ticks += 1
        if self.deadline is not None and not self._ticks & 0xFFF \
                and time.monotonic() > self.deadline:
            raise BudgetExceeded("time limit reached while writing the formula")

    def _op_name(self, node: FNode) -> str:
        kind = node.node_type()
        name = _OP_NAMES.get(kind)
        if name is not None:
            return name
        if kind == op.FUNCTION:
            symbol = node.function_name()
            return self._leaf(symbol)
        if kind == op.DIV:
            return "div" if self._env.stc.get_type(node).is_int_type() else "/"
        raise NotImplementedError(
            f"SMT-LIB printer: operator {op.op_to_str(kind)} is not supported"
        )

    def _leaf(self, node: FNode) -> str:
        text = self._leaf_text.get(node)
        if text is None:
            text = _leaf_text(node)
            self._leaf_text[node] = text
        return text


def _leaf_text(node: FNode) -> str:
    kind = node.node_type()
    if kind == op.SYMBOL:
        name = node.symbol_name()
        return name if name in BUILTIN_NAMES else symbol_text(name)
    if kind == op.BOOL_CONSTANT:
        return "true" if node.constant_value() else "false"
    if kind == op.INT_CONSTANT:
        return int_literal(node.constant_value())
    if kind == op.REAL_CONSTANT:
        return real_literal(Fraction(node.constant_value()))
    if kind == op.STR_CONSTANT:
        return string_literal(node.constant_value())
    raise NotImplementedError(f"SMT-LIB printer: no literal for {op.op_to_str(kind)}")


__all__ = [
    "DEFAULT_MAX_DEPTH",
    "MAX_CHAR",
    "SmtLibWriter",
    "collect_symbols",
    "formula_size",
    "int_literal",
    "real_literal",
    "sort_text",
    "string_literal",
    "symbol_text",
]
