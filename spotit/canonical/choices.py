"""Where a plan's result may depend on SQLite's arbitrary choices.

A canonical form keeps the *set* of results a query may give. When that set has
more than one member on some database (rows tied at a LIMIT cut, a bare column, the
first row of a scalar subquery, a window over peers, the spelling a folding
collation keeps for a group), SQLite picks one, and two queries with the same form
may pick differently on the same database. The pipeline then still looks for a
database on which SQLite's actual answers differ before it reports the proof. When rows
are compared in order, the order SQLite gives rows that no ORDER BY fixes is one more
such choice (``order_choice``).
"""

from __future__ import annotations

from spotit.canonical.nulls import never_null
from spotit.ir import relational as R
from spotit.ir import scalar as S
from spotit.ir.types import BINARY
from spotit.ir.unique import at_most_one_row, unique_columns
from spotit.ir.walk import iter_exprs, iter_rels


def arbitrary_choice(plan: R.Rel, ordered: bool = False) -> str | None:
    """What in ``plan`` may leave SQLite a choice (``None``: its result is determined
    by the database), with ``ordered`` when rows are compared in order. Conservative: a
    construct that *may* choose is named."""
    order = order_choice(plan) if ordered else None
    other = _value_choice(plan)
    if order and other:  # name both: the order may be fixed where the values are not
        return f"{order}, and {other}"
    return order or other


def _value_choice(plan: R.Rel) -> str | None:
    """What in ``plan`` may leave SQLite a choice of the rows or values (not of their
    order)."""
    for rel in iter_rels(plan):
        if isinstance(rel, R.Sort) and (rel.limit is not None or rel.offset):
            return "rows tied under ORDER BY ... LIMIT"
        if isinstance(rel, R.Aggregate) and any(a.func in ("BARE", "GROUP_CONCAT")
                                                for a in rel.aggs):
            return "a bare column or the order of GROUP_CONCAT"
        if isinstance(rel, R.Window):
            return "a window function over peers"
        if isinstance(rel, R.Distinct | R.SetOp) and any(
                c != BINARY for c in R.collation_names(rel.columns)):
            return "the spelling a collation keeps for a group"
        if isinstance(rel, R.Aggregate) and any(S.collation_name(k) != BINARY
                                                for k in rel.keys):
            return "the spelling a collation keeps for a group"
    for e, _ in iter_exprs(plan):
        if isinstance(e, S.ScalarSubquery):
            return "the first row of a scalar subquery"
    return None


def order_choice(plan: R.Rel) -> str | None:
    """What of the order of ``plan``'s rows SQLite chooses (``None``: nothing, the
    outermost ORDER BY orders every two rows, or there is at most one). Two plans with
    one form may choose differently: a DISTINCT and a GROUP BY, a join read from its
    other side, a condition an index answers, each return tied rows in their own order."""
    top = plan
    while isinstance(top, R.Project):
        top = top.input
    if at_most_one_row(top):
        return None
    if not (isinstance(top, R.Sort) and top.keys):
        return "the order of rows without ORDER BY"
    if _tie_free(top):
        return None
    return "the order of rows tied under ORDER BY"


def _tie_free(sort: R.Sort) -> bool:
    """Some ORDER BY term is a column no two rows share (unique under BINARY, never
    NULL: two NULLs tie), so no two rows tie on every term."""
    unique, present = unique_columns(sort.input), never_null(sort.input)
    return any(isinstance(k.expr, S.ColumnRef) and k.expr.depth == 0
               and k.expr.index in unique and k.expr.index in present
               and k.collation == BINARY for k in sort.keys)
