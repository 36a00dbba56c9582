"""Which columns of a relation no two of its rows share, and which joins are lookups.

A join whose right side has at most one row matching each left row (``a.cid = c.id``
with ``c.id`` a key of c, or the GROUP BY key of an aggregated CTE) is a lookup: it
gives at most one row per left row, where the join of T such relations at k rows
each is k**T candidate rows for the encoding. ``spotit.encodings.relational`` encodes
a lookup as one row per left row.

Unique here means: no two rows hold non-NULL values equal as SQLite's ``=`` compares
them under BINARY with no affinity conversion (integers and reals by value, text only
with text): a declared key (unique under its collation, which is BINARY or coarser),
the one GROUP BY key of an aggregate, the one column of a DISTINCT, every column of a
relation of at most one row. A lookup needs a conjunct ``x = y`` of the ON condition
with y such a column of the right side, x read from the left row only, compared under
BINARY and without an affinity conversion of y (which could make '1' and '01' both
equal to 1).
"""

from __future__ import annotations

from spotit.canonical.trees import conjuncts
from spotit.ir import relational as R
from spotit.ir import scalar as S
from spotit.ir.types import BINARY, Affinity


def unique_columns(rel: R.Rel) -> frozenset[int]:
    """Output columns of ``rel`` no two of its rows share a non-NULL value of."""
    if isinstance(rel, R.Scan):
        return frozenset(key[0][0] for key in rel.unique if len(key) == 1)
    if at_most_one_row(rel):
        return frozenset(range(len(rel.columns)))
    if isinstance(rel, R.Aggregate):
        return frozenset((0,)) if len(rel.keys) == 1 else frozenset()
    if isinstance(rel, R.Distinct):
        inner = unique_columns(rel.input)
        return inner | frozenset((0,)) if len(rel.columns) == 1 else inner
    if isinstance(rel, R.Project):
        inner = unique_columns(rel.input)
        return frozenset(i for i, e in enumerate(rel.exprs)
                         if isinstance(e, S.ColumnRef) and e.depth == 0 and e.index in inner)
    if isinstance(rel, R.Filter | R.Window):
        return unique_columns(rel.input)  # fewer rows, or the same with columns added
    if isinstance(rel, R.Sort):
        return unique_columns(rel.input)  # the same rows (LIMIT: some of them), reordered
    return frozenset()


def at_most_one_row(rel: R.Rel) -> bool:
    """Whether ``rel`` never has two rows (an aggregate without GROUP BY, LIMIT 1)."""
    if isinstance(rel, R.Aggregate):
        return not rel.keys
    if isinstance(rel, R.Sort) and rel.limit is not None and rel.limit <= 1:
        return True
    if isinstance(rel, R.Values):
        return len(rel.rows) <= 1
    if isinstance(rel, R.Project | R.Filter | R.Window | R.Sort | R.Distinct):
        return at_most_one_row(rel.input)
    return False


def is_lookup(join: R.Join) -> bool:
    """Whether each left row of ``join`` matches at most one right row."""
    if at_most_one_row(join.right):
        return True
    if join.condition is None:
        return False
    width = len(join.left.columns)
    keys = unique_columns(join.right)
    if not keys:
        return False
    return any(_looks_up(c, width, keys) for c in conjuncts(join.condition))


def _looks_up(c: S.Expr, width: int, keys: frozenset[int]) -> bool:
    if not isinstance(c, S.Compare) or c.op != "=":
        return False
    for key, other in ((c.right, c.left), (c.left, c.right)):
        if (isinstance(key, S.ColumnRef) and key.depth == 0 and key.index >= width
                and key.index - width in keys and isinstance(other, S.ColumnRef)
                and other.depth == 0 and other.index < width
                and S.comparison_collation(c.left, c.right) == BINARY
                and not _converts(S.affinity_of(other), S.affinity_of(key))):
            return True
    return False


def _converts(other: Affinity, key: Affinity) -> bool:
    """Whether comparing changes the key side's values (SQLite's datatype3 rules)."""
    return (other.is_numeric and not key.is_numeric) or (
        other is Affinity.TEXT and key is Affinity.NONE)
