"""Tree helpers the rules share: a name-blind sort key, bottom-up rebuilding of
operators (subqueries included), and re-indexing of column references."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields, is_dataclass, replace
from functools import lru_cache
from typing import Any

from spotit.ir import relational as R
from spotit.ir import scalar as S
from spotit.ir.walk import iter_exprs, rewrite

SUBQUERIES = (S.InSubquery, S.Exists, S.ScalarSubquery)


def sort_key(node: Any) -> str:
    """A total order on IR trees that ignores what equality ignores (names, spellings):
    two equal trees have the same key, so sorting by it is canonical."""
    return repr(_key(node))


@lru_cache(maxsize=65536)
def _key_cached(node: Any) -> tuple:
    return _key_uncached(node)


def _key(node: Any) -> Any:
    try:
        return _key_cached(node)
    except TypeError:  # unhashable: compute directly
        return _key_uncached(node)


def _key_uncached(node: Any) -> Any:
    if isinstance(node, tuple):
        return ("(", tuple(_key(x) for x in node))
    if is_dataclass(node) and not isinstance(node, type):
        return (type(node).__name__,
                tuple(_key(getattr(node, f.name)) for f in fields(node) if f.compare))
    return (type(node).__name__, repr(node))


def has_subquery(node: Any) -> bool:
    return any(isinstance(e, SUBQUERIES) for e, _ in iter_exprs(node))


def reindex(node: Any, index: Callable[[int], int]) -> Any:
    """``node`` with every reference to the row it is evaluated on (``depth`` equal to
    the subquery level) moved to column ``index(old)``; the reference keeps its
    affinity and collation, which say how the value behaves, not where it is."""

    def fn(e: S.Expr, level: int) -> S.Expr | None:
        if isinstance(e, S.ColumnRef) and e.depth == level:
            new = index(e.index)
            return e if new == e.index else replace(e, index=new)
        return None

    return rewrite(node, fn)


def picks(p: R.Rel) -> tuple[int, ...] | None:
    """The input columns a projection only picks (``None`` if it computes anything)."""
    if not isinstance(p, R.Project):
        return None
    if not all(isinstance(e, S.ColumnRef) and e.depth == 0 for e in p.exprs):
        return None
    return tuple(e.index for e in p.exprs)  # type: ignore[union-attr]


def refs_to(cols: Sequence[R.OutColumn], positions: Mapping[int, int] | Sequence[int]
            ) -> tuple[S.ColumnRef, ...]:
    """References, as the binder makes them, to column ``positions[j]`` for each of
    ``cols`` (the columns they stand for)."""
    return tuple(S.ColumnRef(0, positions[j], c.affinity, c.name, c.collation)
                 for j, c in enumerate(cols))


def conjuncts(e: S.Expr | None) -> list[S.Expr]:
    if e is None:
        return []
    if isinstance(e, S.And):
        return conjuncts(e.left) + conjuncts(e.right)
    return [e]


def bottom_up(node: Any, fn: Callable[[R.Rel], R.Rel]) -> Any:
    """``fn`` on every operator, inputs and subqueries first; untouched subtrees are
    returned as the same objects (so rules can tell whether they changed anything)."""
    if isinstance(node, tuple):
        out = tuple(bottom_up(x, fn) for x in node)
        return node if all(a is b for a, b in zip(out, node, strict=True)) else out
    if not isinstance(node, (S.Expr, *R.NODES)):
        return node
    changes = {}
    for f in fields(node):
        if not f.init:
            continue
        old = getattr(node, f.name)
        new = bottom_up(old, fn)
        if new is not old:
            changes[f.name] = new
    node = replace(node, **changes) if changes else node
    return fn(node) if isinstance(node, R.Rel) else node
