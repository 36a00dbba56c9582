"""Rules on aggregates."""

from __future__ import annotations

from dataclasses import replace

from spotit.canonical.nulls import never_null
from spotit.canonical.regions import SAME_WHEN_EQUAL
from spotit.canonical.registry import rule
from spotit.canonical.trees import bottom_up, refs_to
from spotit.ir import relational as R
from spotit.ir import scalar as S
from spotit.ir.types import BINARY


@rule("COUNT of a never-NULL value")
def _count_star(plan: R.Rel, semantics: str) -> R.Rel:
    """``COUNT(x)`` counts the rows where x is not NULL, so where x can never be NULL
    (a NOT NULL column or the rowid, not NULL-padded by an outer join; a constant) it
    is ``COUNT(*)``. ``COUNT(DISTINCT x)`` is left alone."""

    def fn(node: R.Rel) -> R.Rel:
        if not isinstance(node, R.Aggregate):
            return node
        counted = [i for i, a in enumerate(node.aggs)
                   if a.func == "COUNT" and not a.distinct and a.arg is not None]
        if not counted:
            return node
        inner = never_null(node.input)
        aggs = list(node.aggs)
        for i in counted:
            arg = aggs[i].arg
            if (isinstance(arg, S.ColumnRef) and arg.depth == 0 and arg.index in inner) or (
                    isinstance(arg, S.Const) and arg.value is not None):
                aggs[i] = replace(aggs[i], arg=None)
        return node if tuple(aggs) == node.aggs else replace(node, aggs=tuple(aggs))

    return bottom_up(plan, fn)


@rule("a lone COUNT(x) counts the rows where x is not NULL")
def _lone_count(plan: R.Rel, semantics: str) -> R.Rel:
    """Without GROUP BY, ``SELECT COUNT(x) FROM … WHERE c`` is ``SELECT COUNT(*) FROM …
    WHERE c AND x IS NOT NULL``: the one result row exists either way (0 over no
    rows), and no other aggregate sees the rows the extra condition drops. So a
    join read only to count its (never-NULL) key and a count of the foreign key meet.
    Only a column of the row (not an expression, which might not be deterministic)."""

    def fn(node: R.Rel) -> R.Rel:
        if not isinstance(node, R.Aggregate) or node.keys or len(set(node.aggs)) != 1:
            return node
        a = node.aggs[0]
        x = a.arg
        if a.func != "COUNT" or a.distinct or not (isinstance(x, S.ColumnRef) and
                                                   x.depth == 0):
            return node
        rows = node.input
        cond: S.Expr = S.Not(S.IsNull(x))
        if isinstance(rows, R.Filter):
            rows, cond = rows.input, S.And(rows.predicate, cond)
        star = replace(a, arg=None)
        return replace(node, input=R.Filter(rows, cond), aggs=(star,) * len(node.aggs))

    return bottom_up(plan, fn)


@rule("repeated aggregates computed once")
def _repeated(plan: R.Rel, semantics: str) -> R.Rel:
    """An aggregate written twice (``COUNT(id), COUNT(*)`` once ids count as rows) is
    computed once and picked twice: the same value, as the binder does for a repeat
    of the same text."""

    def fn(node: R.Rel) -> R.Rel:
        if not isinstance(node, R.Aggregate) or len(set(node.aggs)) == len(node.aggs):
            return node
        nk = len(node.keys)
        first: dict[R.AggCall, int] = {}
        for a in node.aggs:
            first.setdefault(a, len(first))
        unique = tuple(first)
        where = list(range(nk)) + [nk + first[a] for a in node.aggs]
        out = node.out[:nk] + tuple(node.out[nk + node.aggs.index(a)] for a in unique)
        inner = R.Aggregate(node.input, node.keys, unique, out)
        return R.Project(inner, refs_to(node.out, where), node.out)

    return bottom_up(plan, fn)


@rule("a GROUP BY read only by its keys is a DISTINCT")
def _group_as_distinct(plan: R.Rel, semantics: str) -> R.Rel:
    """``SELECT a, b FROM … GROUP BY a, b`` is ``SELECT DISTINCT a, b FROM …``: one row
    per group either way, when every key is selected as it is and is a stored column
    under which equal means the same value (same affinity, BINARY), so that neither
    picks one of several spellings of a group's key."""

    def fn(node: R.Rel) -> R.Rel:
        if not (isinstance(node, R.Project) and isinstance(node.input, R.Aggregate)):
            return node
        agg = node.input
        nk = len(agg.keys)
        picked = [e.index if isinstance(e, S.ColumnRef) and e.depth == 0 else None
                  for e in node.exprs]
        if not nk or None in picked or set(picked) != set(range(nk)):
            return node
        if not all(isinstance(k, S.ColumnRef) and k.depth == 0 and
                   _same_when_equal(agg.input, k.index) for k in agg.keys):
            return node
        exprs = tuple(agg.keys[j] for j in picked)  # type: ignore[index]
        return R.Distinct(R.Project(agg.input, exprs, node.out))

    return bottom_up(plan, fn)


def _same_when_equal(rel: R.Rel, i: int) -> bool:
    """Column ``i`` of ``rel`` is a table's column read unchanged (or NULL-padded),
    whose equal values are the same value (``regions.SAME_WHEN_EQUAL``, BINARY)."""
    while True:
        if isinstance(rel, R.Scan):
            col = rel.columns[i]
            return col.affinity in SAME_WHEN_EQUAL and (
                col.collation is None or col.collation.name == BINARY)
        if isinstance(rel, R.Filter | R.Sort | R.Distinct):
            rel = rel.input
        elif isinstance(rel, R.Project):
            e = rel.exprs[i]
            if not (isinstance(e, S.ColumnRef) and e.depth == 0):
                return False
            rel, i = rel.input, e.index
        elif isinstance(rel, R.Join):
            nl = len(rel.left.columns)
            rel, i = (rel.left, i) if i < nl else (rel.right, i - nl)
        else:
            return False
