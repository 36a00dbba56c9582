"""Plans at a bound: what can be simplified when every table has at most k rows.

The bounded search only looks at databases of at most k rows per table, so a plan
may be rewritten for bound k by anything that is exact on those databases. One such
rewrite matters in practice: ``ORDER BY ... LIMIT n`` over an input that can never
have more than n rows cuts nothing (a top-10 over at most five groups, a top-5 of
rows joined to the one parent row their key names), and then,
compared as sets or bags, the outermost ORDER BY does not matter either. The solver
is spared the ranks and tie-breaks it would otherwise have to reason about.
"""

from __future__ import annotations

from dataclasses import replace
from math import prod

from spotit.ir import relational as R
from spotit.ir import scalar as S


def at_bound(plan: R.Rel, k: int, semantics: str) -> R.Rel:
    """``plan`` simplified for databases of at most ``k`` rows per table."""
    from spotit.canonical.shapes import outer_order_and_distinct
    from spotit.canonical.trees import bottom_up

    def uncut(node: R.Rel) -> R.Rel:
        if (isinstance(node, R.Sort) and node.limit is not None and not node.offset
                and max_rows(node.input, k) <= node.limit):
            return replace(node, limit=None)
        return node

    return outer_order_and_distinct(bottom_up(plan, uncut), semantics)


def max_rows(rel: R.Rel, k: int) -> int:
    """An upper bound on the rows ``rel`` returns when every table has at most k."""
    if isinstance(rel, R.Scan):
        return k
    if isinstance(rel, R.Values):
        return len(rel.rows)
    if isinstance(rel, R.Filter) or (isinstance(rel, R.Join) and rel.kind == "INNER"):
        from spotit.canonical.regions import flatten, row_bound

        region = flatten(rel)
        if len(region.leaves) > 1 or region.conds:
            return row_bound(region, [max_rows(x, k) for x in region.leaves])
    if isinstance(rel, R.Filter | R.Project | R.Distinct | R.Window):
        return max_rows(rel.input, k)
    if isinstance(rel, R.Sort):
        n = max_rows(rel.input, k)
        return n if rel.limit is None else min(n, rel.limit)
    if isinstance(rel, R.Join):
        left, right = max_rows(rel.left, k), max_rows(rel.right, k)
        return left * (right if rel.kind == "INNER" else max(right, 1))
    if isinstance(rel, R.Aggregate):
        if not rel.keys:
            return 1
        return min(max_rows(rel.input, k), _groups(rel, k))
    if isinstance(rel, R.SetOp):
        left, right = max_rows(rel.left, k), max_rows(rel.right, k)
        return min(left, right) if rel.op == "INTERSECT" else (
            left if rel.op == "EXCEPT" else left + right)
    raise TypeError(f"no row bound for {type(rel).__name__}")


def _groups(agg: R.Aggregate, k: int) -> int:
    """Distinct GROUP BY keys: keys read from the rows of some table occurrences take
    at most k values per occurrence (a constant key, one); else no better bound."""
    occurrences = set()
    for key in agg.keys:
        if isinstance(key, S.Const):
            continue
        path = _source(agg.input, key.index) if (
            isinstance(key, S.ColumnRef) and key.depth == 0) else None
        if path is None:
            return max_rows(agg.input, k)
        occurrences.add(path)
    return prod(k for _ in occurrences)


def _source(rel: R.Rel, i: int) -> tuple[str, ...] | None:
    """The table occurrence (a path from ``rel``) column ``i`` of ``rel`` is read from
    unchanged, or None (computed, NULL-padded, or behind an aggregate)."""
    if isinstance(rel, R.Scan):
        return ()
    if isinstance(rel, R.Filter | R.Sort | R.Distinct):
        inner = _source(rel.input, i)
        return None if inner is None else ("input", *inner)
    if isinstance(rel, R.Project):
        e = rel.exprs[i]
        if not (isinstance(e, S.ColumnRef) and e.depth == 0):
            return None
        inner = _source(rel.input, e.index)
        return None if inner is None else ("input", *inner)
    if isinstance(rel, R.Join):
        nl = len(rel.left.columns)
        if i < nl:
            inner = _source(rel.left, i)
            return None if inner is None else ("left", *inner)
        if rel.kind != "INNER":
            return None  # NULL padding adds a value
        inner = _source(rel.right, i - nl)
        return None if inner is None else ("right", *inner)
    return None
