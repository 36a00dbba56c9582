"""Regions: a tree of inner joins and filters seen as relations cross-joined under one
set of conjuncts, and the operator that reads a region's rows.

An inner join is a filter on the cross product (``A JOIN B ON c`` is ``σ_c(A × B)``),
so a tree of inner joins with the filters over it is a list of relations (the
*leaves*) and a list of conjuncts over their concatenated columns. The rules on joins
and on equal columns work on that view and build the plan back with ``cross``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from spotit.canonical.trees import conjuncts, has_subquery, picks, reindex
from spotit.errors import SpotItError
from spotit.ir import relational as R
from spotit.ir import scalar as S
from spotit.ir.types import BINARY, Affinity
from spotit.ir.walk import iter_exprs

# Affinities under which two stored values that ``=`` finds equal (BINARY collation)
# are the same value: an INTEGER or NUMERIC column stores an integral real as an
# integer, a REAL column every number as a real (0.0 and -0.0 alike), a TEXT column
# every number as text. A column without affinity keeps 1 and 1.0 apart.
SAME_WHEN_EQUAL = frozenset({Affinity.INTEGER, Affinity.NUMERIC, Affinity.REAL, Affinity.TEXT})


@dataclass
class Region:
    """Relations joined by cross product, conditions over their concatenated columns,
    and where each column of the region's root lies in that concatenation."""

    leaves: list[R.Rel]
    conds: list[S.Expr]
    where: list[int]

    @property
    def width(self) -> int:
        return sum(len(x.columns) for x in self.leaves)

    def starts(self) -> list[int]:
        return starts(self.leaves)

    def leaf_of(self, pos: int) -> tuple[int, int]:
        """(leaf, column in that leaf) of a position in the concatenation."""
        for li, at in reversed(list(enumerate(self.starts()))):
            if pos >= at:
                return li, pos - at
        raise IndexError(pos)

    def stored_column(self, ref: S.Expr) -> R.OutColumn | None:
        """The base-table column ``ref`` reads as it is stored, if it is a plain
        reference to a column of a table leaf."""
        if not (isinstance(ref, S.ColumnRef) and ref.depth == 0):
            return None
        li, ci = self.leaf_of(ref.index)
        leaf = self.leaves[li]
        if not isinstance(leaf, R.Scan):
            return None
        col = leaf.columns[ci]
        if ref.affinity is not col.affinity or ref.collation != col.collation:
            return None
        return col

    def identity(self, cond: S.Expr) -> tuple[S.ColumnRef, S.ColumnRef] | None:
        """The two references of ``cond`` if it is ``x = y`` between two stored columns
        where equal means the same value: same affinity (one under which equal values
        are the same), BINARY collations. Such x and y can stand for each other on
        every row that passes the condition."""
        if not (isinstance(cond, S.Compare) and cond.op == "="):
            return None
        x, y = self.stored_column(cond.left), self.stored_column(cond.right)
        if x is None or y is None or cond.left == cond.right:
            return None
        if x.affinity is not y.affinity or x.affinity not in SAME_WHEN_EQUAL:
            return None
        if not (_binary(x.collation) and _binary(y.collation)):
            return None
        return cond.left, cond.right  # type: ignore[return-value]


def _binary(c) -> bool:
    return c is None or (c.name == BINARY and not c.explicit)


def is_region(node: R.Rel) -> bool:
    return isinstance(node, R.Filter) or (isinstance(node, R.Join) and node.kind == "INNER")


def flatten(node: R.Rel, root: bool = True) -> Region:
    """The relations and conjuncts under ``node``. A condition is taken into the set
    only if moving it cannot change how often a subquery in it runs: at the root (it
    runs on every row of the region either way) or without subqueries."""
    if isinstance(node, R.Join) and node.kind == "INNER" and (
            root or node.condition is None or not has_subquery(node.condition)):
        left, right = flatten(node.left, False), flatten(node.right, False)
        shift = left.width
        right_where = [shift + w for w in right.where]
        right_conds = [reindex(c, lambda i, s=shift: i + s) for c in right.conds]
        where = left.where + right_where
        own = [reindex(c, where.__getitem__) for c in conjuncts(node.condition)]
        return Region(left.leaves + right.leaves, left.conds + right_conds + own, where)
    if isinstance(node, R.Filter) and (root or not has_subquery(node.predicate)):
        inner = flatten(node.input, root)
        own = [reindex(c, inner.where.__getitem__) for c in conjuncts(node.predicate)]
        return Region(inner.leaves, inner.conds + own, inner.where)
    chosen = picks(node)
    if chosen is not None and is_region(node.input):  # type: ignore[attr-defined]
        inner = flatten(node.input, root)  # type: ignore[attr-defined]
        return Region(inner.leaves, inner.conds, [inner.where[i] for i in chosen])
    return Region([node], [], list(range(len(node.columns))))


def cross(leaves: list[R.Rel], conds: list[S.Expr]) -> R.Rel:
    """The region's plan: the leaves cross-joined in order, under one filter."""
    body = leaves[0]
    for leaf in leaves[1:]:
        body = R.Join("INNER", body, leaf, None)
    return R.Filter(body, S.conjoin(conds)) if conds else body


def starts(leaves: list[R.Rel]) -> list[int]:
    out, at = [], 0
    for leaf in leaves:
        out.append(at)
        at += len(leaf.columns)
    return out


def row_refs(node) -> set[int]:
    """Columns of the row ``node`` is evaluated on that it reads (subqueries included)."""
    return {e.index for e, level in iter_exprs(node)
            if isinstance(e, S.ColumnRef) and e.depth == level}


@dataclass
class Reader:
    """A projection or aggregate that reads a region's rows, with an ORDER BY (and
    LIMIT) between them or not: everything that sees the region's columns."""

    node: R.Project | R.Aggregate
    sort: R.Sort | None
    region: Region

    @property
    def fields(self) -> tuple[str, ...]:
        return ("exprs",) if isinstance(self.node, R.Project) else ("keys", "aggs")

    def read(self) -> set[int]:
        """Positions in the leaves' concatenation that the reader reads."""
        own = {i for f in self.fields for i in row_refs(getattr(self.node, f))}
        if self.sort is not None:
            own |= row_refs(self.sort.keys)
        return {self.region.where[i] for i in own}

    def rebuild(self, leaves: list[R.Rel], conds: list[S.Expr],
                index: Callable[[int], int]) -> R.Rel:
        """The reader over a new region: ``conds`` are over ``leaves``' concatenation,
        and ``index`` moves a position of the old concatenation to the new one."""
        where = self.region.where

        def moved(i: int) -> int:
            return index(where[i])

        body = cross(leaves, conds)
        if self.sort is not None:
            body = replace(self.sort, input=body, keys=reindex(self.sort.keys, moved))
        return replace(self.node, input=body,
                       **{f: reindex(getattr(self.node, f), moved) for f in self.fields})


def joined_tables(node: R.Rel):
    """The reader of ``node`` if its region joins two relations or more, and (leaf
    index, table, positions of its columns) for each leaf that is a table."""
    r = reader(node)
    if r is None or len(r.region.leaves) < 2:
        return None, []
    at = r.region.starts()
    return r, [(li, leaf, set(range(at[li], at[li] + len(leaf.columns))))
               for li, leaf in enumerate(r.region.leaves) if isinstance(leaf, R.Scan)]


def reader(node: R.Rel) -> Reader | None:
    if not isinstance(node, R.Project | R.Aggregate):
        return None
    below = node.input
    sort = below if isinstance(below, R.Sort) else None
    body = sort.input if sort is not None else below
    if not is_region(body):
        return None
    return Reader(node, sort, flatten(body, root=True))


def row_bound(region: Region, rows: list[int]) -> int:
    """An upper bound on the region's rows when leaf i has at most ``rows[i]``: a leaf
    whose unique key the conjuncts fix (``key_sources``) from constants and leaves
    already counted adds no factor, every other leaf multiplies."""
    sources = [key_sources(region, li) for li in range(len(region.leaves))]
    counted: set[int] = set()
    bound = 1
    left = set(range(len(region.leaves)))
    while left:
        fixed = next((li for li in sorted(left) if any(
            all(any(s <= counted for s in column) for column in key)
            for key in sources[li])), None)
        if fixed is None:
            fixed = min(left, key=lambda li: rows[li])
            bound *= rows[fixed]
        counted.add(fixed)
        left.discard(fixed)
    return bound


def key_sources(region: Region, li: int) -> list[list[list[set[int]]]]:
    """For each unique key of leaf ``li`` (a table) whose every column a conjunct ``c =
    e`` fixes, per column the leaves each such ``e`` reads (empty for a constant). Only where
    two different key values cannot both equal e: e is converted, not the column (a
    numeric column, or e without affinity or TEXT against a TEXT column), and the
    comparison's collation is BINARY or the key's."""
    leaf = region.leaves[li]
    if not isinstance(leaf, R.Scan) or not leaf.unique:
        return []
    lo = region.starts()[li]
    span = range(lo, lo + len(leaf.columns))
    fixing: dict[int, list[tuple[str, set[int]]]] = {}
    for c in region.conds:
        if not (isinstance(c, S.Compare) and c.op == "="):
            continue
        for a, e in ((c.left, c.right), (c.right, c.left)):
            col = region.stored_column(a)
            if col is None or a.index not in span:  # type: ignore[union-attr]
                continue
            if isinstance(e, S.Const):
                reads: set[int] = set()
            elif isinstance(e, S.ColumnRef) and e.depth == 0 and e.index not in span:
                reads = {region.leaf_of(e.index)[0]}
            else:
                continue
            if not lookup_converts_only(col.affinity, S.affinity_of(e)):
                continue
            try:
                collation = S.comparison_collation(c.left, c.right)
            except SpotItError:
                continue
            fixing.setdefault(a.index - lo, []).append((collation, reads))  # type: ignore[union-attr]
    out = []
    for key in leaf.unique:
        options = [[r for coll, r in fixing.get(col, []) if coll in (BINARY, key_coll)]
                   for col, key_coll in key]
        if all(options):
            out.append(options)
    return out


def lookup_converts_only(column: Affinity, other: Affinity) -> bool:
    """Does ``column = other`` convert only the other operand (so two distinct stored
    values never both equal it)?"""
    if column.is_numeric:
        return True
    return not other.is_numeric  # TEXT converts only a NONE side; BLOB converts nothing
