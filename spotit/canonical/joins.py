"""Inner joins as a set of relations and a set of conditions.

An inner join is a filter on the cross product (``A JOIN B ON c`` is ``σ_c(A × B)``),
and the cross product is commutative and associative up to the order of columns,
so a tree of inner joins with the filters over it is a *set* of relations and a
*set* of conjuncts. SQLite's planner itself picks the join order, which is why no
result may depend on it: where one does (ties under ORDER BY ... LIMIT, a bare
column), it is one of SQLite's arbitrary choices either way.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import permutations, product

from spotit.canonical.registry import rule
from spotit.canonical.trees import (
    bottom_up,
    conjuncts,
    has_subquery,
    picks,
    refs_to,
    reindex,
    sort_key,
)
from spotit.ir import relational as R
from spotit.ir import scalar as S
from spotit.ir.walk import iter_exprs

# orderings of identical relations (a self-join) tried to find the least form
MAX_ORDERINGS = 120


@dataclass
class _Region:
    """Relations joined by cross product, conditions over their concatenated columns,
    and where each column of the region's root lies in that concatenation."""

    leaves: list[R.Rel]
    conds: list[S.Expr]
    where: list[int]

    @property
    def width(self) -> int:
        return sum(len(x.columns) for x in self.leaves)


@rule("inner joins as a set of relations")
def _inner_joins(plan: R.Rel, semantics: str) -> R.Rel:
    """Inner joins and the filters over them are a set of relations with a set of
    conjuncts: relations and conjuncts in a canonical order (duplicate conjuncts
    once), the joined columns picked back in the query's order."""
    return bottom_up(plan, _canonical_region)


def _canonical_region(node: R.Rel) -> R.Rel:
    if not _is_region(node):
        return node
    region = _flatten(node, root=True)
    best: tuple[str, list[R.Rel], list[S.Expr], list[int]] | None = None
    old_start = _starts(region.leaves)
    for order in _orderings(region.leaves):
        leaves = [region.leaves[i] for i in order]
        new_start = _starts(leaves)
        move: dict[int, int] = {}
        for new_pos, i in enumerate(order):
            for c in range(len(region.leaves[i].columns)):
                move[old_start[i] + c] = new_start[new_pos] + c
        conds = _canonical_conjuncts(reindex(tuple(region.conds), move.__getitem__))
        key = sort_key((tuple(leaves), tuple(conds)))
        if best is None or key < best[0]:
            best = (key, leaves, conds, [move[w] for w in region.where])
    assert best is not None
    _, leaves, conds, where = best
    body = _cross(leaves, conds)
    if where != list(range(len(body.columns))):
        body = R.Project(body, refs_to(node.columns, where), node.columns)
    return node if body == node else body


def _cross(leaves: list[R.Rel], conds: list[S.Expr]) -> R.Rel:
    """The region's plan: the leaves cross-joined in order, under one filter."""
    body = leaves[0]
    for leaf in leaves[1:]:
        body = R.Join("INNER", body, leaf, None)
    return R.Filter(body, S.conjoin(conds)) if conds else body


def _is_region(node: R.Rel) -> bool:
    return isinstance(node, R.Filter) or (isinstance(node, R.Join) and node.kind == "INNER")


def _flatten(node: R.Rel, root: bool) -> _Region:
    """The relations and conjuncts under ``node``. A condition is taken into the set
    only if moving it cannot change how often a subquery in it runs: at the root (it
    runs on every row of the region either way) or without subqueries."""
    if isinstance(node, R.Join) and node.kind == "INNER" and (
            root or node.condition is None or not has_subquery(node.condition)):
        left, right = _flatten(node.left, False), _flatten(node.right, False)
        shift = left.width
        right_where = [shift + w for w in right.where]
        right_conds = [reindex(c, lambda i, s=shift: i + s) for c in right.conds]
        where = left.where + right_where
        own = [reindex(c, where.__getitem__) for c in conjuncts(node.condition)]
        return _Region(left.leaves + right.leaves, left.conds + right_conds + own, where)
    if isinstance(node, R.Filter) and (root or not has_subquery(node.predicate)):
        inner = _flatten(node.input, root)
        own = [reindex(c, inner.where.__getitem__) for c in conjuncts(node.predicate)]
        return _Region(inner.leaves, inner.conds + own, inner.where)
    chosen = picks(node)
    if chosen is not None and _is_region(node.input):  # type: ignore[attr-defined]
        inner = _flatten(node.input, root)  # type: ignore[attr-defined]
        return _Region(inner.leaves, inner.conds, [inner.where[i] for i in chosen])
    return _Region([node], [], list(range(len(node.columns))))


def _starts(leaves: list[R.Rel]) -> list[int]:
    out, at = [], 0
    for leaf in leaves:
        out.append(at)
        at += len(leaf.columns)
    return out


def _orderings(leaves: list[R.Rel]):
    """Leaf orders sorted by key; identical leaves (a self-join) are interchangeable,
    so their orders are all tried (up to ``MAX_ORDERINGS``) and the least form wins."""
    keys = [sort_key(x) for x in leaves]
    ranked = sorted(range(len(leaves)), key=lambda i: keys[i])
    groups: list[list[int]] = []
    for i in ranked:
        if groups and keys[groups[-1][0]] == keys[i]:
            groups[-1].append(i)
        else:
            groups.append([i])
    count = 1
    for g in groups:
        for n in range(2, len(g) + 1):
            count *= n
    if count > MAX_ORDERINGS:
        yield ranked
        return
    for choice in product(*(permutations(g) for g in groups)):
        yield [i for g in choice for i in g]


def _canonical_conjuncts(conds: tuple[S.Expr, ...]) -> list[S.Expr]:
    unique = {sort_key(c): c for c in conds}
    return [unique[k] for k in sorted(unique)]


@rule("join to a referenced row that only checks it exists")
def _existence_joins(plan: R.Rel, semantics: str) -> R.Rel:
    """``A JOIN P ON A.c = P.k``, where A.c is a foreign key into P's unique key k and
    nothing else reads P, keeps each A row with a non-NULL c exactly once (the key is
    unique, and the foreign key says the row exists): it is ``A WHERE A.c IS NOT
    NULL``. Only where the lookup is a plain ``=`` (``Scan.references``)."""
    return bottom_up(plan, _without_existence_joins)


def _without_existence_joins(node: R.Rel) -> R.Rel:
    if not isinstance(node, R.Project | R.Aggregate) or not _is_region(node.input):
        return node
    region = _flatten(node.input, root=True)
    if len(region.leaves) < 2:
        return node
    fields_ = ("exprs",) if isinstance(node, R.Project) else ("keys", "aggs")
    read = {region.where[i] for f in fields_ for i in _row_refs(getattr(node, f))}
    starts = _starts(region.leaves)
    for li, leaf in enumerate(region.leaves):
        span = set(range(starts[li], starts[li] + len(leaf.columns)))
        if not isinstance(leaf, R.Scan) or read & span:
            continue
        touching = [c for c in region.conds if _row_refs(c) & span]
        children = [_referencing(c, region, li) for c in touching]
        keys = {ref.index for cond in touching for ref in _parent_refs(cond, span)}
        if not touching or None in children or len(keys) != 1:
            continue  # joined other than by foreign keys into one key column
        width = len(leaf.columns)

        def moved(i: int, lo: int = starts[li], w: int = width) -> int:
            return i if i < lo else i - w

        first, *rest = [reindex(c, moved) for c in children]
        conds = [reindex(c, moved) for c in region.conds if not any(c is t for t in touching)]
        # every child equals the one key value, which exists: all equal, and not NULL
        conds.append(S.Not(S.IsNull(first)))
        conds.extend(S.Compare("=", first, other) for other in rest)
        body = _cross(region.leaves[:li] + region.leaves[li + 1:], conds)
        return replace(node, input=body, **{
            f: reindex(getattr(node, f), lambda i: moved(region.where[i])) for f in fields_})
    return node


def _row_refs(node) -> set[int]:
    """Columns of the row ``node`` is evaluated on that it reads (subqueries included)."""
    return {e.index for e, level in iter_exprs(node)
            if isinstance(e, S.ColumnRef) and e.depth == level}


def _parent_refs(cond: S.Expr, span: set[int]) -> list[S.ColumnRef]:
    return [e for e, level in iter_exprs(cond)
            if isinstance(e, S.ColumnRef) and e.depth == level and e.index in span]


def _referencing(cond: S.Expr, region: _Region, parent: int) -> S.ColumnRef | None:
    """The child column of ``cond`` if it is ``child = parent key`` along a plain
    foreign key of another leaf into leaf ``parent``; else None."""
    if not (isinstance(cond, S.Compare) and cond.op == "="):
        return None
    starts = _starts(region.leaves)
    pleaf = region.leaves[parent]
    assert isinstance(pleaf, R.Scan)
    for a, p in ((cond.left, cond.right), (cond.right, cond.left)):
        if not (isinstance(a, S.ColumnRef) and isinstance(p, S.ColumnRef)
                and a.depth == 0 and p.depth == 0):
            continue
        pcol = p.index - starts[parent]
        if not 0 <= pcol < len(pleaf.columns):
            continue
        for ci, leaf in enumerate(region.leaves):
            if ci == parent or not isinstance(leaf, R.Scan):
                continue
            acol = a.index - starts[ci]
            if 0 <= acol < len(leaf.columns) and (acol, pleaf.table, pcol) in leaf.references:
                return a
    return None
