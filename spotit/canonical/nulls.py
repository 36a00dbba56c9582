"""Which output columns of a plan can never be NULL, whatever the database."""

from __future__ import annotations

from spotit.canonical.trees import conjuncts
from spotit.ir import relational as R
from spotit.ir import scalar as S


def never_null(rel: R.Rel) -> frozenset[int]:
    """Output columns SQLite guarantees non-NULL: declared NOT NULL (or the rowid),
    carried through operators that keep values, joined by an inner join or filtered by a
    condition that is never true on NULL (``c = x``, ``c LIKE p``, ``c IS NOT NULL``)."""
    if isinstance(rel, R.Scan):
        return rel.not_null
    if isinstance(rel, R.Filter):
        return never_null(rel.input) | rejected(rel.predicate)
    if isinstance(rel, R.Join):
        left = never_null(rel.left)
        if rel.kind != "INNER":
            return left
        shift = len(rel.left.columns)
        right = frozenset(shift + i for i in never_null(rel.right))
        return left | right | rejected(rel.condition)
    if isinstance(rel, R.Sort | R.Distinct):
        return never_null(rel.input)
    if isinstance(rel, R.Project):
        inner = never_null(rel.input)
        return frozenset(j for j, e in enumerate(rel.exprs) if _never_null(e, inner))
    if isinstance(rel, R.Aggregate):
        inner = never_null(rel.input)
        keys = [j for j, e in enumerate(rel.keys) if _never_null(e, inner)]
        counts = [len(rel.keys) + j for j, a in enumerate(rel.aggs) if a.func == "COUNT"]
        return frozenset(keys + counts)
    return frozenset()


def _never_null(e: S.Expr, inner: frozenset[int]) -> bool:
    if isinstance(e, S.ColumnRef):
        return e.depth == 0 and e.index in inner
    return isinstance(e, S.Const) and e.value is not None


def rejected(cond: S.Expr | None) -> frozenset[int]:
    """Columns of the row a row passing ``cond`` cannot hold NULL in."""
    out: set[int] = set()
    for c in conjuncts(cond):
        if isinstance(c, S.Not) and isinstance(c.operand, S.IsNull):
            c = c.operand.operand
            operands: tuple[S.Expr, ...] = (c,)
        elif isinstance(c, S.Compare):
            operands = (c.left, c.right)
        elif isinstance(c, S.Like):
            operands = (c.operand, c.pattern)
        else:
            continue
        out.update(x.index for x in operands if isinstance(x, S.ColumnRef) and x.depth == 0)
    return frozenset(out)
