"""Where a plan's result may depend on SQLite's arbitrary choices.

A canonical form keeps the *set* of results a query may give. When that set has
more than one member on some database (rows tied at a LIMIT cut, a bare column, the
first row of a scalar subquery, a window over peers, the spelling a folding
collation keeps for a group), SQLite picks one, and two queries with the same form
may pick differently on the same database. The pipeline then still looks for a
database on which SQLite's actual answers differ before it reports the proof.
"""

from __future__ import annotations

from spotit.ir import relational as R
from spotit.ir import scalar as S
from spotit.ir.types import BINARY
from spotit.ir.walk import iter_exprs, iter_rels


def arbitrary_choice(plan: R.Rel) -> str | None:
    """What in ``plan`` may leave SQLite a choice (``None``: its result is determined
    by the database). Conservative: a construct that *may* choose is named."""
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
