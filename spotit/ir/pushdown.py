"""A filter over inner joins as the joins' own conditions.

The canonical forms write inner joins as a set of relations: joins without conditions
under one filter that holds every condition. Encoded as written, each join is the
product of its sides (k**T rows for T relations at k rows each) before the filter
reads any condition. The same rows come out of the joins with each conjunct of the
filter in the ON of the lowest join (along the left spine) that has every column the
conjunct reads -- for inner joins, ``WHERE c`` over a product and ``JOIN ... ON c``
are one thing -- and a join whose condition looks its right side up by a key is then
one row per left row (``spotit.ir.unique``).
"""

from __future__ import annotations

from dataclasses import replace

from spotit.canonical.regions import row_refs
from spotit.canonical.trees import conjuncts
from spotit.ir import relational as R
from spotit.ir import scalar as S


def into_joins(f: R.Filter) -> R.Rel:
    """``f`` with its conjuncts moved into the inner joins below it (``f`` itself if
    there are none)."""
    spine: list[R.Join] = []  # the inner joins down the left spine, the top one first
    j = f.input
    while isinstance(j, R.Join) and j.kind == "INNER":
        spine.append(j)
        j = j.left
    if not spine:
        return f
    widths = [len(x.columns) for x in spine]
    placed: list[list[S.Expr]] = [[] for _ in spine]
    for c in conjuncts(f.predicate):
        need = max(row_refs(c), default=-1) + 1
        lowest = next(i for i in reversed(range(len(spine))) if widths[i] >= need)
        placed[lowest].append(c)
    out: R.Rel | None = None
    for join, extra in zip(reversed(spine), reversed(placed), strict=True):
        terms = ([join.condition] if join.condition is not None else []) + extra
        out = replace(join, left=join.left if out is None else out,
                      condition=S.conjoin(terms) if terms else None)
    assert out is not None
    return out

