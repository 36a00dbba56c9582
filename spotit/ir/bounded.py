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
        if not isinstance(node, R.Sort) or (node.limit is None and not node.offset):
            return node
        n = max_rows(node.input, k)
        if n <= node.offset:  # an OFFSET past every row the input can have
            return R.Values((), node.columns)
        if node.limit is not None and not node.offset and n <= node.limit:
            return replace(node, limit=None)
        return node

    return outer_order_and_distinct(bottom_up(plan, uncut), semantics)


UNBOUNDED = 2**62  # no useful bound on the rows


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
    if isinstance(rel, R.Distinct):
        return _at_most_values(rel.input, list(range(len(rel.input.columns))), k)
    if isinstance(rel, R.Filter | R.Project | R.Window):
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
        keys = [e for e in rel.keys if not isinstance(e, S.Const)]  # a constant: one value
        if not all(isinstance(e, S.ColumnRef) and e.depth == 0 for e in keys):
            return max_rows(rel.input, k)
        return _at_most_values(rel.input, [e.index for e in keys], k)
    if isinstance(rel, R.Recursive | R.RecursiveRef):
        return UNBOUNDED  # UNION ALL may add rows round after round
    if isinstance(rel, R.SetOp):
        left, right = max_rows(rel.left, k), max_rows(rel.right, k)
        return min(left, right) if rel.op == "INTERSECT" else (
            left if rel.op == "EXCEPT" else left + right)
    raise TypeError(f"no row bound for {type(rel).__name__}")


def _at_most_values(rel: R.Rel, columns: list[int], k: int) -> int:
    """Rows of ``rel`` that differ in ``columns`` (DISTINCT, GROUP BY keys): no more than
    ``rel`` has, nor than the value tuples those columns can take."""
    n = max_rows(rel, k)
    values = _distinct_values(rel, columns, k)
    return n if values is None else min(n, values)


def _distinct_values(rel: R.Rel, columns, k: int) -> int | None:
    """How many distinct value tuples ``columns`` of ``rel`` can take: columns read
    unchanged from the rows of some table occurrences take at most k tuples per
    occurrence (None: some column is computed or NULL-padded)."""
    occurrences = set()
    for i in columns:
        path = _source(rel, i)
        if path is None:
            return None
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
