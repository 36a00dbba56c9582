"""Relational operators of the IR.

A query is a tree of these. Every operator knows its output columns (name and
affinity). Scalar expressions inside an operator refer to the operator's
*input* row with depth-0 ``ColumnRef``s; for ``Join`` that row is the left row
followed by the right row, for ``Aggregate`` it is an input row (keys and
aggregate arguments), and a ``Filter`` above an ``Aggregate`` sees the
aggregate's output (keys, then aggregate values).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from spotit.ir.types import BINARY, NO_AFFINITY, Affinity, Collation

if TYPE_CHECKING:
    from spotit.ir.scalar import Expr


@dataclass(frozen=True, slots=True)
class OutColumn:
    """An output column: its name, affinity, and the collation its expression brings
    to a comparison (``None``: none; a base table's column has its declared one)."""

    name: str
    affinity: Affinity = NO_AFFINITY
    collation: Collation | None = None


@dataclass(frozen=True, slots=True)
class Rel:
    @property
    def columns(self) -> tuple[OutColumn, ...]:
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class Scan(Rel):
    """All rows of a base table (``table`` is the schema's spelling of its name).
    ``not_null``: the columns SQLite never lets hold NULL (NOT NULL, the rowid).
    ``references``: (column, parent table, parent column) of the single-column foreign
    keys whose lookup is a plain ``=`` (same affinity, BINARY on both sides) into a
    unique parent key -- a non-NULL value has exactly one parent row. ``unique``: the
    keys no two rows may share, as (column, collation it is unique under) pairs."""

    table: str
    out: tuple[OutColumn, ...]
    not_null: frozenset[int] = frozenset()
    references: frozenset[tuple[int, str, int]] = frozenset()
    unique: tuple[tuple[tuple[int, str], ...], ...] = ()

    @property
    def columns(self) -> tuple[OutColumn, ...]:
        return self.out


@dataclass(frozen=True, slots=True)
class Values(Rel):
    """Literal rows (``VALUES ...``, and ``SELECT`` without FROM is one empty row)."""

    rows: tuple[tuple[Expr, ...], ...]
    out: tuple[OutColumn, ...]

    @property
    def columns(self) -> tuple[OutColumn, ...]:
        return self.out


@dataclass(frozen=True, slots=True)
class Filter(Rel):
    input: Rel
    predicate: Expr

    @property
    def columns(self) -> tuple[OutColumn, ...]:
        return self.input.columns


@dataclass(frozen=True, slots=True)
class Project(Rel):
    input: Rel
    exprs: tuple[Expr, ...]
    out: tuple[OutColumn, ...]

    @property
    def columns(self) -> tuple[OutColumn, ...]:
        return self.out


@dataclass(frozen=True, slots=True)
class Join(Rel):
    """``kind`` is ``"INNER"`` (CROSS and comma joins too) or ``"LEFT"``."""

    kind: str
    left: Rel
    right: Rel
    condition: Expr | None = None

    @property
    def columns(self) -> tuple[OutColumn, ...]:
        return self.left.columns + self.right.columns


@dataclass(frozen=True, slots=True)
class AggCall:
    """One aggregate: ``func`` in COUNT, SUM, TOTAL, AVG, MIN, MAX, GROUP_CONCAT.

    ``arg`` is None for ``COUNT(*)``. ``func == "BARE"`` is a bare column next to
    aggregates (``SELECT name, MAX(x)``): SQLite takes it from the row that gave
    the single MIN/MAX of the query, otherwise from an arbitrary row of the group.
    """

    func: str
    arg: Expr | None = None
    distinct: bool = False
    separator: Expr | None = None


@dataclass(frozen=True, slots=True)
class Aggregate(Rel):
    """GROUP BY ``keys`` (none: one group over all rows, even when empty)."""

    input: Rel
    keys: tuple[Expr, ...]
    aggs: tuple[AggCall, ...]
    out: tuple[OutColumn, ...]

    @property
    def columns(self) -> tuple[OutColumn, ...]:
        return self.out


@dataclass(frozen=True, slots=True)
class Distinct(Rel):
    input: Rel

    @property
    def columns(self) -> tuple[OutColumn, ...]:
        return self.input.columns


@dataclass(frozen=True, slots=True)
class SetOp(Rel):
    """``op`` is ``"UNION"``, ``"INTERSECT"`` or ``"EXCEPT"``; ``all`` only with UNION."""

    op: str
    all: bool
    left: Rel
    right: Rel

    @property
    def columns(self) -> tuple[OutColumn, ...]:
        return self.left.columns


@dataclass(frozen=True, slots=True)
class RecursiveRef(Rel):
    """The rows a recursive CTE's step reads: the rows the previous step added (SQLite's
    queue, one level at a time). ``name`` is the CTE's; ``out`` its columns."""

    name: str
    out: tuple[OutColumn, ...]

    @property
    def columns(self) -> tuple[OutColumn, ...]:
        return self.out


@dataclass(frozen=True, slots=True)
class Recursive(Rel):
    """``WITH RECURSIVE name AS (init UNION [ALL] step)``: ``init``'s rows, then ``step``
    over the rows the previous round added (``ref``), round after round, until a round
    adds none. UNION (``all`` false) adds only rows not seen before, compared as
    DISTINCT does; UNION ALL adds every row. The step reads ``ref`` exactly once, in a
    FROM, never in a subquery (SQLite's rule), so a round over several rows is the union
    of the rounds over each."""

    init: Rel
    step: Rel
    all: bool
    ref: RecursiveRef

    @property
    def columns(self) -> tuple[OutColumn, ...]:
        return self.ref.out


@dataclass(frozen=True, slots=True)
class SortKey:
    expr: Expr
    descending: bool = False
    nulls_first: bool | None = None  # None: SQLite's default (NULLs first ascending)
    collation: str = BINARY


@dataclass(frozen=True, slots=True)
class Sort(Rel):
    """ORDER BY ``keys`` then keep rows ``offset .. offset+limit-1`` (None: no bound).

    Rows that tie on every key may come in any order: SQLite does not define it.
    """

    input: Rel
    keys: tuple[SortKey, ...]
    limit: int | None = None
    offset: int = 0

    @property
    def columns(self) -> tuple[OutColumn, ...]:
        return self.input.columns


@dataclass(frozen=True, slots=True)
class FrameBound:
    """One end of a window frame: ``kind`` is ``UNBOUNDED PRECEDING``, ``PRECEDING``,
    ``CURRENT ROW``, ``FOLLOWING`` or ``UNBOUNDED FOLLOWING``; ``offset`` the constant
    of ``N PRECEDING`` / ``N FOLLOWING``."""

    kind: str
    offset: int | float | None = None


@dataclass(frozen=True, slots=True)
class Frame:
    """``unit`` (ROWS, RANGE, GROUPS) BETWEEN ``start`` AND ``end`` EXCLUDE ``exclude``
    (NO OTHERS, CURRENT ROW, GROUP, TIES). ``exclude_written``: the query has an
    EXCLUDE clause, even ``EXCLUDE NO OTHERS`` -- SQLite then computes each row's frame
    afresh, which GROUP_CONCAT's empty text shows (``''``, not NULL)."""

    unit: str
    start: FrameBound
    end: FrameBound
    exclude: str = "NO OTHERS"
    exclude_written: bool = False


# SQLite's default frame: RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW (without an
# ORDER BY every row of the partition is a peer of every other, so: the whole partition)
DEFAULT_FRAME = Frame("RANGE", FrameBound("UNBOUNDED PRECEDING"), FrameBound("CURRENT ROW"))


@dataclass(frozen=True, slots=True)
class WindowCall:
    """``func(args) OVER (PARTITION BY partition ORDER BY order frame)``; expressions
    are over the window operator's input row. ``func`` is upper case (ROW_NUMBER,
    RANK, SUM ...); what each computes is its encoding's business."""

    func: str
    args: tuple[Expr, ...] = ()
    partition: tuple[Expr, ...] = ()
    order: tuple[SortKey, ...] = ()
    frame: Frame = DEFAULT_FRAME


@dataclass(frozen=True, slots=True)
class Window(Rel):
    """Every input row, followed by the value of each window function on it (SQLite
    evaluates windows after WHERE, GROUP BY and HAVING, before DISTINCT and ORDER BY)."""

    input: Rel
    calls: tuple[WindowCall, ...]
    out: tuple[OutColumn, ...]

    @property
    def columns(self) -> tuple[OutColumn, ...]:
        return self.out


# the IR's nodes that hold expressions (walkers descend into these)
NODES = (Rel, AggCall, SortKey, WindowCall)


def collation_names(columns: tuple[OutColumn, ...]) -> tuple[str, ...]:
    """The collation each column is deduplicated and sorted by (BINARY if none)."""
    return tuple(c.collation.checked_name() if c.collation is not None else BINARY
                 for c in columns)


def compound_leaves(r: Rel) -> list[Rel]:
    """The SELECTs of a compound, left to right (a single SELECT is its own leaf)."""
    out: list[Rel] = []
    while isinstance(r, SetOp):
        out.append(r.right)
        r = r.left
    out.append(r)
    return out[::-1]


def compound_collations(r: Rel) -> tuple[str, ...]:
    """Per column, the collation a compound dedups and sorts by: the first SELECT,
    left to right, whose expression has one (SQLite's ``multiSelectCollSeq``)."""
    leaves = compound_leaves(r)
    out = []
    for i in range(len(r.columns)):
        c = next((x.columns[i].collation for x in leaves if x.columns[i].collation), None)
        out.append(c.checked_name() if c is not None else BINARY)
    return tuple(out)


def in_operand_collation(r: Rel, i: int = 0) -> Collation | None:
    """What the subquery of ``x IN (SELECT ...)`` brings to ``x = y``: column ``i``
    (the first, or a row value's i-th) of its last SELECT (SQLite reads the compound's
    rightmost member)."""
    while isinstance(r, Sort | SetOp):
        r = r.input if isinstance(r, Sort) else r.right
    return r.columns[i].collation


def inputs(r: Rel) -> tuple[Rel, ...]:
    if isinstance(r, Filter | Project | Aggregate | Distinct | Sort | Window):
        return (r.input,)
    if isinstance(r, Join | SetOp):
        return (r.left, r.right)
    return ()
