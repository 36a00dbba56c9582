"""A join that only asks whether a matching row exists is an ``IN``."""

from __future__ import annotations

from spotit.canonical.joins import references
from spotit.canonical.regions import joined_tables, lookup_converts_only, row_refs
from spotit.canonical.registry import rule
from spotit.canonical.trees import bottom_up, has_subquery, reindex
from spotit.errors import SpotItError
from spotit.ir import relational as R
from spotit.ir import scalar as S
from spotit.ir.types import BINARY
from spotit.ir.walk import iter_exprs

AS_IN = "join to a row found by its key, nothing of it read, as IN"


@rule(AS_IN)
def _semijoins(plan: R.Rel, semantics: str) -> R.Rel:
    """``A JOIN P ON x = P.k WHERE c(P)``, where k is a unique key of P and nothing of
    P is read, keeps each A row at most once (no two P rows have the same k), and
    exactly when a P row with that k passes c: it is ``A WHERE x IN (SELECT k FROM P
    WHERE c)``, which SQLite compares as ``x = k`` (same affinity and collation rules)
    and which, like the join, keeps no row when x is NULL or nothing matches."""
    return bottom_up(plan, _as_in)


def _as_in(node: R.Rel) -> R.Rel:
    r, tables = joined_tables(node)
    if r is None:
        return node
    region, read = r.region, r.read()
    for li, leaf, span in tables:
        lo, width = min(span), len(leaf.columns)
        if read & span:
            continue
        touching = [c for c in region.conds if row_refs(c) & span]
        lookups = [c for c in touching if not row_refs(c) <= span]
        local = [c for c in touching if row_refs(c) <= span]
        if len(lookups) != 1 or not all(_movable(c) for c in local):
            continue
        found = _key_lookup(lookups[0], region, leaf, span)
        if found is None:
            continue
        x, key = found
        if isinstance(x, S.ColumnRef) and references(region, x.index, key.index) and all(
                row_refs(c) <= {key.index} for c in local):
            continue  # a foreign key into P read only as its key: P is an existence check

        def moved(i: int, lo: int = lo, w: int = width) -> int:
            return i if i < lo else i - w

        inner: R.Rel = leaf
        if local:
            inner = R.Filter(leaf, S.conjoin([reindex(c, lambda i, lo=lo: i - lo)
                                              for c in local]))
        col = leaf.columns[key.index - lo]
        query = R.Project(inner, (reindex(key, lambda i, lo=lo: i - lo),),
                          (R.OutColumn("", col.affinity, col.collation),))
        conds = [reindex(c, moved) for c in region.conds if not any(c is t for t in touching)]
        conds.append(S.InSubquery(reindex(x, moved), query))
        return r.rebuild(region.leaves[:li] + region.leaves[li + 1:], conds, moved)
    return node


def _movable(c: S.Expr) -> bool:
    """Can ``c`` move into a subquery over P unchanged: no subquery of its own, and no
    reference to a row further out than the one it is evaluated on."""
    return not has_subquery(c) and not any(
        isinstance(e, S.ColumnRef) and e.depth > level for e, level in iter_exprs(c))


def _key_lookup(c: S.Expr, region, leaf: R.Scan, span: set[int]
                ) -> tuple[S.Expr, S.ColumnRef] | None:
    """(x, P.k) if ``c`` is ``x = P.k`` for a one-column unique key k of P, x reading
    none of P, that no two P rows can both satisfy, and that ``x IN (SELECT k ...)``
    compares under the same collation."""
    if not (isinstance(c, S.Compare) and c.op == "="):
        return None
    for x, k in ((c.left, c.right), (c.right, c.left)):
        col = region.stored_column(k)
        if col is None or k.index not in span or row_refs(x) & span or not _movable(x):
            continue
        lo = min(span)
        unique = {key[0][1] for key in leaf.unique if len(key) == 1
                  and key[0][0] == k.index - lo}
        try:
            collation = S.comparison_collation(c.left, c.right)
            in_collation = S.comparison_collation(x, k)
        except SpotItError:
            return None
        if (unique and collation == in_collation
                and (collation == BINARY or collation in unique)
                and lookup_converts_only(col.affinity, S.affinity_of(x))):
            return x, k  # type: ignore[return-value]
    return None
