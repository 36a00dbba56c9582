"""Rules on the shape of a plan: labels, projections, the ORDER BYs nothing reads and
the outermost DISTINCT."""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any

from spotit.canonical.registry import rule
from spotit.canonical.trees import SUBQUERIES, bottom_up, picks, refs_to, reindex
from spotit.ir import relational as R
from spotit.ir import scalar as S
from spotit.ir.types import BINARY, Affinity
from spotit.ir.walk import iter_exprs, rewrite, without_names


@rule("column names")
def _names(plan: R.Rel, semantics: str) -> R.Rel:
    """Output column names are labels: the binder resolved every name to a position."""
    return without_names(plan)


@rule("re-projection merged")
def _merge_projections(plan: R.Rel, semantics: str) -> R.Rel:
    """A projection of a projection that only picks columns or constants (a derived
    table that renames or re-projects) is one projection; the outermost projection
    that picks every column in order (``SELECT * FROM (q)``) is q: above the result
    nothing reads its columns' affinity or collation (so the outermost projection
    does not keep them either)."""
    plan = bottom_up(plan, _merged)
    if not isinstance(plan, R.Project):
        return plan
    if picks(plan) == tuple(range(len(plan.input.columns))):
        return plan.input
    exprs = tuple(replace(e, affinity=Affinity.NONE, collation=None)
                  if isinstance(e, S.ColumnRef) and e.depth == 0 else e for e in plan.exprs)
    out = tuple(replace(c, affinity=Affinity.NONE, collation=None) for c in plan.out)
    return R.Project(plan.input, exprs, out)


def _merged(p: R.Rel) -> R.Rel:
    if not isinstance(p, R.Project):
        return p
    if (picks(p) == tuple(range(len(p.input.columns)))
            and without_names(p.out) == without_names(p.input.columns)):
        return p.input  # picks every column, as it is
    if not isinstance(p.input, R.Project):
        return p
    inner = p.input
    only_picks = all(isinstance(e, S.Const) or (isinstance(e, S.ColumnRef) and e.depth == 0)
                     for e in inner.exprs)
    if not only_picks or any(isinstance(e, SUBQUERIES) for e, _ in iter_exprs(p.exprs)):
        return p
    # A reference keeps its own affinity and collation (a derived-table column is a
    # column: BINARY where its expression has none). A constant has neither, so it
    # may only stand alone as an output, where the output column says how it behaves.
    inside = [e for x in p.exprs if not isinstance(x, S.ColumnRef)
              for e, _ in iter_exprs(x)]
    if any(isinstance(e, S.ColumnRef) and e.depth == 0
           and isinstance(inner.exprs[e.index], S.Const) for e in inside):
        return p

    def substitute(e: S.Expr, level: int) -> S.Expr | None:
        if isinstance(e, S.ColumnRef) and e.depth == 0:
            x = inner.exprs[e.index]
            if isinstance(x, S.ColumnRef):
                return replace(x, affinity=e.affinity, collation=e.collation)
            return x
        return None

    return R.Project(inner.input, rewrite(p.exprs, substitute), p.out)


@rule("column picks pulled up")
def _pull_picks(plan: R.Rel, semantics: str) -> R.Rel:
    """A projection that only picks columns commutes with the operators above it that
    work row by row or on expressions of the row: a filter, a sort (with or without
    LIMIT: picking columns keeps the rows and their number), a join on either side
    (picked columns of a NULL-padded row are NULL either way), a GROUP BY, which
    then reads the columns directly, and a window (its calls read them directly)."""
    return bottom_up(plan, _pulled)


def _pulled(node: R.Rel) -> R.Rel:
    if isinstance(node, R.Filter | R.Sort | R.Aggregate) and picks(node.input) is not None:
        p = node.input
        chosen = picks(p)
        assert isinstance(p, R.Project) and chosen is not None
        fields_ = ("predicate",) if isinstance(node, R.Filter) else (
            ("keys",) if isinstance(node, R.Sort) else ("keys", "aggs"))
        moved = replace(node, input=p.input, **{
            f: reindex(getattr(node, f), chosen.__getitem__) for f in fields_})
        return moved if isinstance(node, R.Aggregate) else replace(p, input=moved)
    if isinstance(node, R.Window) and (chosen := picks(node.input)) is not None:
        # the window's calls read the picked columns where they are; the rows and their
        # order (a partition's, where no ORDER BY sets it) are the projection's input's
        inner = node.input.input  # type: ignore[attr-defined]
        width, calls = len(inner.columns), node.out[len(node.input.columns):]
        moved = R.Window(inner, reindex(node.calls, chosen.__getitem__),
                         (*inner.columns, *calls))
        where = chosen + tuple(width + j for j in range(len(calls)))
        return R.Project(moved, refs_to(node.out, where), node.out)
    if isinstance(node, R.Join):
        left, right = picks(node.left), picks(node.right)
        if left is None and right is None:
            return node
        lin = node.left.input if left is not None else node.left  # type: ignore[attr-defined]
        rin = node.right.input if right is not None else node.right  # type: ignore[attr-defined]
        nl, wl = len(node.left.columns), len(lin.columns)
        lmap = left if left is not None else tuple(range(nl))
        rmap = tuple(wl + i for i in (right if right is not None
                                      else range(len(node.right.columns))))
        where = lmap + rmap
        cond = reindex(node.condition, where.__getitem__) if node.condition else None
        joined = R.Join(node.kind, lin, rin, cond)
        return R.Project(joined, refs_to(node.columns, where), node.columns)
    return node


@rule("result order and duplicates")
def outer_order_and_distinct(plan: R.Rel, semantics: str) -> R.Rel:
    """An ORDER BY without LIMIT/OFFSET whose row order reaches nothing that reads it
    (the result compared as a set or bag; a GROUP BY that only counts and takes MIN/MAX
    under BINARY; IN, EXISTS: ``_reads_order``) is dropped: SQLite does not define the
    order of a subquery's rows either (docs/semantics.md, arbitrary choices). Compared
    as sets, the outermost
    DISTINCT (over BINARY columns: a folding collation picks one spelling of a group)
    does not change the result either."""
    plan = _drop_unread(plan, semantics == "list")
    if semantics != "set":
        return plan
    if _plain_distinct(plan):
        return outer_order_and_distinct(plan.input, semantics)  # type: ignore[attr-defined]
    if isinstance(plan, R.Project) and _plain_distinct(plan.input):
        return replace(plan, input=outer_order_and_distinct(plan.input.input, semantics))
    return plan


def _plain_distinct(plan: R.Rel) -> bool:
    return isinstance(plan, R.Distinct) and all(
        c == BINARY for c in R.collation_names(plan.columns))


def _drop_unread(node: Any, observed: bool) -> Any:
    """``node`` without the unread sorts below it; ``observed``: whether the order of
    its rows can reach the result (or a scalar subquery's first row)."""
    if isinstance(node, tuple):
        out = tuple(_drop_unread(x, observed) for x in node)
        return node if all(a is b for a, b in zip(out, node, strict=True)) else out
    if isinstance(node, R.Recursive) or not isinstance(node, (S.Expr, *R.NODES)):
        return node  # a recursion's rounds: SQLite's queue, left as written
    if (isinstance(node, R.Sort) and not observed and node.limit is None
            and node.offset == 0):
        return _drop_unread(node.input, False)
    changes = {}
    for f in fields(node):
        if not f.init:
            continue
        old = getattr(node, f.name)
        reads = _reads_order(node, observed) if isinstance(old, R.Rel) else False
        new = _drop_unread(old, reads)
        if new is not old:
            changes[f.name] = new
    return replace(node, **changes) if changes else node


def _reads_order(parent: Any, observed: bool) -> bool:
    """Whether the order of ``parent``'s input rows can matter. Conservative: a window
    (its peers), a sort with LIMIT (its ties), a scalar subquery (its first row), a
    GROUP BY unless it only counts and takes MIN/MAX under BINARY (GROUP_CONCAT and a
    bare column take a row of choice, MIN/MAX under NOCASE the first of 'a' and 'A',
    SUM/TOTAL/AVG of REALs round in the order they add), DISTINCT and a compound that
    drops duplicates under a folding collation (the first spelling stays) read it; the
    operators that pass rows on in the order they came (projection, filter, join,
    DISTINCT, compound) read it where their own order is read."""
    if isinstance(parent, S.ScalarSubquery | R.Window):
        return True
    if isinstance(parent, S.Expr):  # IN (subquery), EXISTS
        return False
    if isinstance(parent, R.Sort):
        return observed or parent.limit is not None or parent.offset != 0
    if isinstance(parent, R.Aggregate):
        return not (all(S.collation_name(k) == BINARY for k in parent.keys) and all(
            a.func == "COUNT" or (a.func in ("MIN", "MAX") and a.arg is not None
                                  and S.collation_name(a.arg) == BINARY)
            for a in parent.aggs))
    if isinstance(parent, R.Distinct) and any(
            c != BINARY for c in R.collation_names(parent.columns)):
        return True
    if isinstance(parent, R.SetOp) and not (parent.op == "UNION" and parent.all) and any(
            c != BINARY for c in R.compound_collations(parent)):
        return True
    return observed
