"""Linear-time formula passes, written as pysmt ``DagWalker``s.

pysmt's own ``get_free_variables()`` builds a frozenset per sub-term, which is
quadratic on the deep ITE chains our encodings produce (a 90k-node DAG took
22 s). These walkers visit each DAG node once, iteratively (no recursion limit),
and accumulate into one collection instead of returning per-node results.
"""

from __future__ import annotations

from collections.abc import Iterable

import pysmt.operators as op
from pysmt.environment import Environment
from pysmt.fnode import FNode
from pysmt.walkers import DagWalker, handles

from spotit.smt.ops import BUILTIN_NAMES

_ALL_NODE_TYPES = frozenset(op.ALL_TYPES)


class _NodeCounter(DagWalker):
    """Visits every distinct node once; the memo table *is* the set of visited nodes."""

    @handles(_ALL_NODE_TYPES)
    def walk_any(self, formula: FNode, args: list[None], **kwargs: object) -> None:
        return None


class _SymbolCollector(DagWalker):
    """Records user symbols (constants and function symbols) in first-visit order."""

    def __init__(self, env: Environment | None, include_builtins: bool) -> None:
        super().__init__(env)
        self.found: dict[FNode, None] = {}  # an ordered set
        self.include_builtins = include_builtins

    def _record(self, symbol: FNode) -> None:
        if self.include_builtins or symbol.symbol_name() not in BUILTIN_NAMES:
            self.found[symbol] = None

    @handles(_ALL_NODE_TYPES - {op.SYMBOL, op.FUNCTION})
    def walk_other(self, formula: FNode, args: list[None], **kwargs: object) -> None:
        return None

    def walk_symbol(self, formula: FNode, args: list[None], **kwargs: object) -> None:
        self._record(formula)

    def walk_function(self, formula: FNode, args: list[None], **kwargs: object) -> None:
        self._record(formula.function_name())


def formula_size(nodes: Iterable[FNode], env: Environment | None = None) -> int:
    """Number of distinct DAG nodes reachable from ``nodes`` (shared nodes count once).

    Function symbols of applications are not nodes of the DAG and are not counted.

    Example:
        >>> from pysmt.shortcuts import Int, Plus, Symbol
        >>> from pysmt.typing import INT
        >>> x = Symbol("x", INT)
        >>> formula_size([Plus(x, x), Plus(x, Int(1))])
        4
    """
    walker = _NodeCounter(env)
    for node in nodes:
        walker.walk(node)
    return len(walker.memoization)


def collect_symbols(
    nodes: Iterable[FNode], env: Environment | None = None, *, include_builtins: bool = False
) -> tuple[FNode, ...]:
    """User symbols in ``nodes``, each once, in a deterministic (walk) order.

    Includes the function symbols of applications; leaves out the reserved
    names of :data:`spotit.smt.ops.BUILTIN_NAMES` unless ``include_builtins``.

    Example:
        >>> from pysmt.shortcuts import And, Symbol
        >>> sorted(s.symbol_name() for s in collect_symbols([And(Symbol("a"), Symbol("b"))]))
        ['a', 'b']
    """
    walker = _SymbolCollector(env, include_builtins)
    for node in nodes:
        walker.walk(node)
    return tuple(walker.found)
