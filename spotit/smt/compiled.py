"""Formulas compiled once into Python and evaluated on many assignments.

The Thm 1 fuzz checks one expression's encoding on many pinned rows; walking the
pysmt DAG with :class:`spotit.smt.evaluate.Evaluator` for every row builds new
nodes at each step and costs tens of milliseconds. A :class:`Program` turns the
DAG into one generated Python function over plain values (bool, int,
``Fraction``, str), in SMT-LIB's semantics as :mod:`spotit.smt.evaluate`
states them (the same value-level functions), and runs it in about a
microsecond per node.

Three-valued: a symbol the assignment does not give, a division by zero, an
uninterpreted function are :data:`UNKNOWN`, which propagates except where the
known arguments decide (``false and x``, ``ite(c, t, t)``). A known result is the
value in every interpretation that extends the assignment, so callers may only
ever lose answers to UNKNOWN, never get a wrong one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any

from pysmt import operators as op
from pysmt.fnode import FNode

from spotit.smt import evaluate as smt
from spotit.smt.regex_eval import NotConstant, in_re


class _Unknown:
    __slots__ = ()

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()
U = UNKNOWN


class NotCompilable(Exception):
    """A node kind this compiler has no semantics for (the caller keeps the walker)."""


# -- the operators on values: UNKNOWN in, UNKNOWN out, unless the known ones decide ---------

def _and(*a):
    if False in a:
        return False
    return U if U in a else True


def _or(*a):
    if True in a:
        return True
    return U if U in a else False


def _not(a):
    return U if a is U else not a


def _implies(a, b):
    if a is False or b is True:
        return True
    return U if a is U or b is U else False


def _iff(a, b):
    return U if a is U or b is U else a == b


def _ite(c, t, e):
    if c is U:
        return t if t is not U and t == e and type(t) is type(e) else U
    return t if c else e


def _eq(a, b):
    return U if a is U or b is U else a == b


def _le(a, b):
    return U if a is U or b is U else a <= b


def _lt(a, b):
    return U if a is U or b is U else a < b


def _plus(*a):
    return U if U in a else sum(a)


def _minus(a, b):
    return U if a is U or b is U else a - b


def _times(zero, *a):
    if any(x is not U and x == 0 for x in a):
        return zero
    if U in a:
        return U
    out = a[0]
    for x in a[1:]:
        out = out * x
    return out


def _div_real(a, b):
    return U if a is U or b is U or b == 0 else Fraction(a) / b


def _div_int(a, b):
    return U if a is U or b is U or b == 0 else smt.euclid_div(a, b)


def _toreal(a):
    return U if a is U else Fraction(a)


def _str1(f: Callable) -> Callable:
    def g(*a):
        return U if U in a else f(*a)
    return g


_STRINGS = {
    op.STR_LENGTH: _str1(len),
    op.STR_CONCAT: _str1(lambda *a: "".join(a)),
    op.STR_CONTAINS: _str1(lambda s, t: t in s),
    op.STR_INDEXOF: _str1(smt.str_indexof),
    op.STR_REPLACE: _str1(lambda s, t, u: s.replace(t, u, 1)),
    op.STR_SUBSTR: _str1(smt.str_substr),
    op.STR_PREFIXOF: _str1(lambda s, t: t.startswith(s)),
    op.STR_SUFFIXOF: _str1(lambda s, t: t.endswith(s)),
    op.STR_TO_INT: _str1(smt.str_to_int),
    op.INT_TO_STR: _str1(smt.str_from_int),
    op.STR_CHARAT: _str1(smt.str_at),
}

_FIXED = {op.AND: _and, op.OR: _or, op.NOT: _not, op.IMPLIES: _implies, op.IFF: _iff,
          op.ITE: _ite, op.EQUALS: _eq, op.LE: _le, op.LT: _lt, op.PLUS: _plus,
          op.MINUS: _minus, op.TIMES: _times, op.TOREAL: _toreal, **_STRINGS}


def _in_re(s, r):
    if s is U or r is U:
        return U
    try:
        return _member(s, r)
    except NotConstant:
        return U


@lru_cache(maxsize=1 << 14)
def _member(s: str, r: FNode) -> bool:
    """:func:`in_re`, remembered: a Program runs on many rows and expressions of one
    table, which test the same strings against the same constant regular expressions
    (``r`` is hash-consed; a pysmt node never changes)."""
    return in_re(s, r)


def _call(name, reading, total, default, args):
    """A reserved-name operator (:func:`spotit.smt.evaluate.apply_reserved`), or an
    uninterpreted ``uf!`` one as ``reading`` (name, first argument) gives it; with
    ``total``, ``default`` where it gives none (a constant function is one
    interpretation of any uninterpreted function)."""
    if U in args:
        return U
    if name.startswith("uf!"):
        v = reading(name, args[0]) if reading is not None else None
        if v is None and total:
            return default
    else:
        v = smt.apply_reserved(name, list(args))
    return U if v is None else v


def _symbol(values, free, s, defined):
    v = values.get(s, U)
    if v is not U:
        return v
    for d in defined:
        if d is not U:
            return d
    return free.get(s, U)


def python_value(c: FNode) -> bool | int | Fraction | str:
    """A pysmt constant as the plain value a Program computes with."""
    v = c.constant_value()
    if c.is_real_constant():
        return Fraction(v)
    if c.is_int_constant():
        return int(v)
    if c.is_bool_constant():
        return bool(v)
    return str(v)


def plain_value(f: FNode) -> Any:
    """The plainest value of ``f``'s sort."""
    t = f.get_type()
    if t.is_bool_type():
        return False
    if t.is_int_type():
        return 0
    if t.is_real_type():
        return Fraction(0)
    return ""


def _is_reglan(f: FNode) -> bool:
    t = f.get_type()
    return not (t.is_int_type() or t.is_real_type() or t.is_string_type() or t.is_bool_type()
                or t.is_function_type())


def _free_of_symbols(f: FNode) -> bool:
    """A RegLan term: constant if no string symbol occurs in it (its ``re.*`` names are
    symbols too, of the RegLan sort)."""
    todo, seen = [f], set()
    while todo:
        g = todo.pop()
        if g in seen:
            continue
        seen.add(g)
        if g.is_symbol() and not _is_reglan(g) and not g.get_type().is_function_type():
            return False
        todo.extend(g.args())
    return True


class Program:
    """``roots`` compiled once; ``run`` gives their values under an assignment.

    ``definitions``: symbol -> terms asserted equal to it. A symbol the assignment
    does not give takes the first of its terms that is known (a value every model
    shares when the terms' inputs are forced: :func:`spotit.proofs.determined.forced`
    finds the same values in rounds). A definition that reaches back to its own
    symbol is not followed there.

    ``early``: indices of roots a run may ask for alone (``run(..., early=True)``):
    their code comes first, and such a run stops after it."""

    def __init__(self, roots: Sequence[FNode],
                 definitions: Mapping[FNode, Sequence[FNode]] | None = None,
                 early: Sequence[int] = ()):
        self.roots = tuple(roots)
        self.definitions = _acyclic(definitions or {})
        self.symbols: list[FNode] = []
        self._code: dict[FNode, str] = {}
        self._consts: list[Any] = []
        self._lines: list[str] = []
        first = sorted(set(early))
        for i in first:  # post-order: the early roots' code is a prefix of the body
            self._compile(self.roots[i])
        n_early = len(self._lines)
        outs = [self._compile(r) for r in self.roots]
        shown = set(first)
        partial = [o if i in shown else "U" for i, o in enumerate(outs)]
        head = "\n".join(f"    {line}" for line in self._lines[:n_early])
        tail = "\n".join(f"    {line}" for line in self._lines[n_early:])
        src = (f"def program(V, F, R, T, E):\n{head}\n"
               f"    if E:\n        return [{', '.join(partial)}]\n{tail}\n"
               f"    return [{', '.join(outs)}]\n")
        scope: dict[str, Any] = {"U": U, "K": self._consts}
        scope.update({f"_{k}": f for k, f in _NAMED.items()})
        exec(_code(src), scope)
        self._program = scope["program"]
        self.size = len(self._lines)

    def run(self, values: Mapping[FNode, Any], free: Mapping[FNode, Any] | None = None,
            reading: Callable[[str, Any], Any] | None = None, total: bool = False,
            early: bool = False) -> list[Any]:
        """The roots' values. ``values``: symbol -> value. ``free``: values for symbols
        neither ``values`` nor a definition gives (else they are UNKNOWN). ``reading``:
        values of the uninterpreted ``uf!`` functions (name, argument) -> value or None
        (else they are UNKNOWN, or with ``total`` the plainest value of their sort).
        ``early``: only the early roots are computed (the others are UNKNOWN); each has
        the value a full run gives it."""
        return self._program(values, free if free is not None else {}, reading, total,
                             early)

    # -- code generation ---------------------------------------------------------------------

    def _const(self, value: Any) -> str:
        self._consts.append(value)
        return f"K[{len(self._consts) - 1}]"

    def _emit(self, expr: str) -> str:
        name = f"v{len(self._lines)}"
        self._lines.append(f"{name} = {expr}")
        return name

    def _compile(self, root: FNode) -> str:
        # iterative post-order: encodings nest deeper than Python's recursion limit
        stack: list[tuple[FNode, bool]] = [(root, False)]
        while stack:
            f, expanded = stack.pop()
            if f in self._code:
                continue
            kids = self._children(f)
            if not expanded:
                stack.append((f, True))
                stack.extend((k, False) for k in reversed(kids) if k not in self._code)
                continue
            self._code[f] = self._node(f, [self._code[k] for k in kids])
        return self._code[root]

    def _children(self, f: FNode) -> list[FNode]:
        if f.is_symbol():
            return list(self.definitions.get(f, ()))
        if f.is_function_application():
            return [a for a in f.args() if not _is_reglan(a)]
        if f.is_constant():
            return []
        return list(f.args())

    def _node(self, f: FNode, args: list[str]) -> str:
        if f.is_constant():
            return self._const(python_value(f))
        if f.is_symbol():
            if f.get_type().is_function_type():
                raise NotCompilable(f"function symbol {f}")
            self.symbols.append(f)
            s = self._const(f)
            defs = ", ".join(args)
            return self._emit(f"_symbol(V, F, {s}, ({defs}{',' if args else ''}))")
        kind = f.node_type()
        if f.is_function_application():
            name = f.function_name().symbol_name()
            if name == "str.in_re":
                regex = f.arg(1)
                r = self._const(regex) if _free_of_symbols(regex) else "U"
                return self._emit(f"_in_re({args[0]}, {r})")
            default = self._const(plain_value(f))
            return self._emit(f"_call({self._const(name)}, R, T, {default}, "
                              f"({', '.join(args)},))")
        if kind == op.TIMES:
            zero = self._const(Fraction(0) if f.get_type().is_real_type() else 0)
            return self._emit(f"_times({zero}, {', '.join(args)})")
        if kind == op.DIV:
            fn = "_div_real" if f.get_type().is_real_type() else "_div_int"
            return self._emit(f"{fn}({', '.join(args)})")
        if kind == op.EQUALS and f.arg(0) is f.arg(1):
            return self._const(True)
        name = _OP_NAMES.get(kind)
        if name is None:
            raise NotCompilable(op.op_to_str(kind))
        return self._emit(f"_{name}({', '.join(args)})")


@lru_cache(maxsize=256)
def _code(src: str):
    """``src`` compiled: the same expression on the same table gives the same source
    (its constants are the scope's ``K``), and Python's compiler is most of the cost."""
    return compile(src, "<spotit.smt.compiled>", "exec")


def _acyclic(definitions: Mapping[FNode, Sequence[FNode]]) -> dict[FNode, tuple[FNode, ...]]:
    """``definitions`` without the terms that reach back to their own symbol through
    other definitions (x = f(y), y = g(x)): what is left orders the symbols."""
    from spotit.smt.walkers import collect_symbols

    state: dict[FNode, int] = {}  # 1: being visited, 2: done
    kept: dict[FNode, tuple[FNode, ...]] = {}
    for root in definitions:
        if root in state:
            continue
        # iterative depth-first visit: (symbol, index of its next term)
        stack: list[tuple[FNode, int, list[FNode]]] = [(root, 0, [])]
        state[root] = 1
        while stack:
            x, i, keep = stack.pop()
            terms = definitions[x]
            if i == len(terms):
                kept[x], state[x] = tuple(keep), 2
                continue
            t = terms[i]
            deps = [s for s in collect_symbols([t]) if s in definitions]
            if any(state.get(s) == 1 for s in deps):
                stack.append((x, i + 1, keep))  # a cycle: not followed here
                continue
            todo = [s for s in deps if s not in state]
            if todo:
                stack.append((x, i, keep))  # come back to this term after its inputs
                state[todo[0]] = 1
                stack.append((todo[0], 0, []))
                continue
            stack.append((x, i + 1, [*keep, t]))
    return kept


_OP_NAMES = {op.AND: "and", op.OR: "or", op.NOT: "not", op.IMPLIES: "implies",
             op.IFF: "iff", op.ITE: "ite", op.EQUALS: "eq", op.LE: "le", op.LT: "lt",
             op.PLUS: "plus", op.MINUS: "minus", op.TIMES: "times", op.TOREAL: "toreal",
             **{k: f"str{k}" for k in _STRINGS}}
_NAMED: dict[str, Callable] = {
    "and": _and, "or": _or, "not": _not, "implies": _implies, "iff": _iff, "ite": _ite,
    "eq": _eq, "le": _le, "lt": _lt, "plus": _plus, "minus": _minus, "times": _times,
    "toreal": _toreal, "div_real": _div_real, "div_int": _div_int, "symbol": _symbol,
    "call": _call, "in_re": _in_re, **{f"str{k}": f for k, f in _STRINGS.items()}}
