"""Rules on aggregates."""

from __future__ import annotations

from dataclasses import replace

from spotit.canonical.nulls import never_null
from spotit.canonical.registry import rule
from spotit.canonical.trees import bottom_up, refs_to
from spotit.ir import relational as R
from spotit.ir import scalar as S


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
