"""Columns a join makes equal, read through one of them."""

from __future__ import annotations

from spotit.canonical.regions import reader
from spotit.canonical.registry import rule
from spotit.canonical.trees import bottom_up, reindex, sort_key
from spotit.ir import relational as R
from spotit.ir import scalar as S


@rule("columns equal by a join read through one")
def _read_through_one(plan: R.Rel, semantics: str) -> R.Rel:
    """On every row that passes ``x = y``, where x and y are stored columns that are the
    same value whenever they are equal (``Region.identity``), x can stand for y: each
    set of columns the conditions make equal is read through its first column (in the
    region's canonical order), and its equalities become ``first = other``."""
    return bottom_up(plan, _through_first)


def _through_first(node: R.Rel) -> R.Rel:
    r = reader(node)
    if r is None or len(r.region.leaves) < 2:
        return node
    region = r.region
    parent: dict[int, int] = {}
    refs: dict[int, S.ColumnRef] = {}
    equalities = []

    def find(i: int) -> int:
        while parent.get(i, i) != i:
            i = parent[i]
        return i

    for c in region.conds:
        pair = region.identity(c)
        if pair is None:
            continue
        equalities.append(c)
        for x in pair:
            refs.setdefault(x.index, x)
        a, b = find(pair[0].index), find(pair[1].index)
        parent[max(a, b)] = min(a, b)
    if not equalities:
        return node
    first = {i: find(i) for i in refs}

    def through(i: int) -> int:
        return first.get(i, i)

    kept = [c for c in region.conds if not any(c is e for e in equalities)]
    # an equality already `first = other` stays as it is (its operands' order is the
    # business of the comparison rule); the others are replaced by the missing ones
    spokes = {}
    for c in equalities:
        a, b = c.left.index, c.right.index  # type: ignore[attr-defined]
        if first[a] in (a, b):
            spokes.setdefault(b if first[a] == a else a, c)
    for i, ref in sorted(refs.items()):
        if first[i] != i and i not in spokes:
            spokes[i] = S.Compare("=", refs[first[i]], ref)
    conds = [reindex(c, through) for c in kept] + list(spokes.values())
    before = sorted(sort_key(c) for c in region.conds)
    if sorted(sort_key(c) for c in conds) == before and r.read() == {through(i) for i in r.read()}:
        return node
    return r.rebuild(region.leaves, conds, through)
