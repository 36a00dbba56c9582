"""Generic traversal and rewriting of IR trees (scalar and relational together).

Nodes are frozen dataclasses, so rewriting rebuilds them bottom-up. The walk
tracks the *subquery level*: it rises by one when entering the query of an
``InSubquery``, ``Exists`` or ``ScalarSubquery``, and is unchanged inside the
operators of a query (whose expressions all see their own input at depth 0).
So a ``ColumnRef`` with ``depth == level`` refers to the row of the expression
the walk started from.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

from spotit.ir import relational as R
from spotit.ir import scalar as S

_SUBQUERY_HOLDERS = (S.InSubquery, S.Exists, S.ScalarSubquery)

ExprFn = Callable[[S.Expr, int], S.Expr | None]


def rewrite(node: Any, fn: ExprFn, level: int = 0) -> Any:
    """Rebuild ``node`` (an Expr, Rel, or container of them), replacing expressions.

    ``fn(expr, level)`` is tried on every scalar expression top-down; when it
    returns a node, that node replaces the expression and is not descended into.
    """
    if isinstance(node, S.Expr):
        out = fn(node, level)
        if out is not None:
            return out
        return _rebuild(node, fn, level + 1 if isinstance(node, _SUBQUERY_HOLDERS) else level,
                        subquery_field="query" if isinstance(node, _SUBQUERY_HOLDERS) else None,
                        base_level=level)
    if isinstance(node, R.NODES):
        return _rebuild(node, fn, level, None, level)
    if isinstance(node, tuple):
        return tuple(rewrite(x, fn, level) for x in node)
    return node


def _rebuild(node: Any, fn: ExprFn, sub_level: int, subquery_field: str | None,
             base_level: int) -> Any:
    changes = {}
    for f in dataclasses.fields(node):
        if not f.init:
            continue
        old = getattr(node, f.name)
        lvl = sub_level if f.name == subquery_field else base_level
        new = rewrite(old, fn, lvl)
        if new is not old:
            changes[f.name] = new
    return dataclasses.replace(node, **changes) if changes else node


def iter_exprs(node: Any, level: int = 0) -> Iterator[tuple[S.Expr, int]]:
    """Every scalar expression under ``node`` (pre-order) with its subquery level."""
    stack: list[tuple[Any, int]] = [(node, level)]
    while stack:
        n, lvl = stack.pop()
        if isinstance(n, tuple):
            stack.extend((x, lvl) for x in reversed(n))
            continue
        if isinstance(n, S.Expr):
            yield n, lvl
        if isinstance(n, (S.Expr, *R.NODES)):
            inner = lvl + 1 if isinstance(n, _SUBQUERY_HOLDERS) else lvl
            for f in reversed(dataclasses.fields(n)):
                child = getattr(n, f.name)
                if isinstance(child, (S.Expr, tuple, *R.NODES)):
                    stack.append((child, inner if f.name == "query" else lvl))


def iter_rels(node: Any) -> Iterator[R.Rel]:
    """Every relational operator under ``node``, subqueries included."""
    seen: list[Any] = [node]
    while seen:
        n = seen.pop()
        if isinstance(n, tuple):
            seen.extend(n)
            continue
        if isinstance(n, R.Rel):
            yield n
        if isinstance(n, (S.Expr, *R.NODES)):
            for f in dataclasses.fields(n):
                child = getattr(n, f.name)
                if isinstance(child, (S.Expr, tuple, *R.NODES)):
                    seen.append(child)


def max_outer_depth(rel: R.Rel) -> int:
    """How many levels out of ``rel`` its column references reach (0: uncorrelated)."""
    worst = 0
    for e, lvl in iter_exprs(rel):
        if isinstance(e, S.ColumnRef) and e.depth > lvl:
            worst = max(worst, e.depth - lvl)
    return worst


def without_names(node: Any) -> Any:
    """``node`` with every output column name blanked.

    The binder resolves names to positions, so names are labels only: two plans
    equal without them compute the same rows (``SELECT Name`` and ``SELECT name``).
    """
    if isinstance(node, R.OutColumn):
        return dataclasses.replace(node, name="") if node.name else node
    if isinstance(node, tuple):
        out = tuple(without_names(x) for x in node)
        return node if all(a is b for a, b in zip(out, node, strict=True)) else out
    if isinstance(node, (S.Expr, *R.NODES)):
        changes = {}
        for f in dataclasses.fields(node):
            if f.init:
                old = getattr(node, f.name)
                new = without_names(old)
                if new is not old:
                    changes[f.name] = new
        return dataclasses.replace(node, **changes) if changes else node
    return node
