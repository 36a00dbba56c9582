"""Scalar expressions of the IR: resolved, typed by affinity, ready to encode.

Each class is one operator with its SQLite meaning; each has exactly one
encoding function in ``spotit.encodings`` (checked at import). Sugar that
SQLite defines in terms of other operators (BETWEEN, IIF, simple CASE, ``<>``,
IN-lists ...) is desugared by the binder, so the core stays small.

Column references are positional: ``ColumnRef(depth, index)`` names column
``index`` of the row that is ``depth`` subquery levels out (0 = the row of the
operator evaluating the expression).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from spotit.ir.types import BINARY, COLUMN_BINARY, NO_AFFINITY, Affinity, Collation, value_key

if TYPE_CHECKING:
    from spotit.ir.relational import Rel


@dataclass(frozen=True, slots=True)
class Expr:
    pass


@dataclass(frozen=True, slots=True, eq=False)
class Const(Expr):
    """A literal: int, float, str or None (NULL).

    Equality is by storage class too: Python has ``0 == 0.0 == False``, SQLite
    does not (``0 || ''`` is ``'0'``, ``0.0 || ''`` is ``'0.0'``), and plans are
    compared and deduplicated by equality.
    """

    value: int | float | str | None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Const) and value_key(self.value) == value_key(other.value)

    def __hash__(self) -> int:
        return hash(value_key(self.value))


@dataclass(frozen=True, slots=True)
class ColumnRef(Expr):
    """Column ``index`` of the row ``depth`` levels out.

    ``collation`` is what the reference brings to a comparison: a table or
    derived-table column has its column's collating sequence (BINARY unless
    declared); a reference the binder made to a GROUP BY key or an aggregate
    keeps the behaviour of the expression it stands for (possibly explicit, or
    none).
    """

    depth: int
    index: int
    affinity: Affinity = NO_AFFINITY
    name: str = field(default="", compare=False)
    collation: Collation | None = COLUMN_BINARY


@dataclass(frozen=True, slots=True)
class Negate(Expr):
    """Unary minus (``+x`` is the identity and never reaches the IR)."""

    operand: Expr


@dataclass(frozen=True, slots=True)
class Arith(Expr):
    """``+ - * / %`` with SQLite's integer/real rules; ``/`` and ``%`` by zero are NULL."""

    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class Concat(Expr):
    """``||``: both sides as text; NULL if either is NULL."""

    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class Compare(Expr):
    """``= != < <= > >=`` with SQLite's affinity conversions and three-valued result."""

    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class Is(Expr):
    """``a IS b``: like ``=`` but NULL IS NULL is true and the result is never NULL."""

    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class IsNull(Expr):
    operand: Expr


@dataclass(frozen=True, slots=True)
class And(Expr):
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class Or(Expr):
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class Not(Expr):
    operand: Expr


@dataclass(frozen=True, slots=True)
class Like(Expr):
    """``x LIKE p [ESCAPE e]`` (ASCII case-insensitive) or ``x GLOB p`` (case-sensitive)."""

    operand: Expr
    pattern: Expr
    escape: Expr | None = None
    glob: bool = False


@dataclass(frozen=True, slots=True)
class Case(Expr):
    """Searched CASE: the first ``when`` that is TRUE picks its result, else ``else_``."""

    whens: tuple[tuple[Expr, Expr], ...]
    else_: Expr


@dataclass(frozen=True, slots=True)
class Cast(Expr):
    """``CAST(x AS <type>)``; ``target`` is the affinity the type name gives."""

    operand: Expr
    target: Affinity
    type_name: str = field(default="", compare=False)


@dataclass(frozen=True, slots=True)
class Collate(Expr):
    """``x COLLATE name``: the value of x, with an explicit collating sequence for the
    comparison, DISTINCT, GROUP BY or ORDER BY it takes part in."""

    operand: Expr
    collation: str


@dataclass(frozen=True, slots=True)
class StoredAs(Expr):
    """The value a column of ``affinity`` stores for ``operand``: a generated column's
    value (unlike CAST, text that is not a number stays text in a numeric column)."""

    operand: Expr
    affinity: Affinity


@dataclass(frozen=True, slots=True)
class Call(Expr):
    """A scalar function by canonical upper-case name (``SUBSTR``, ``COALESCE`` ...).

    Functions are looked up in the function registry of ``spotit.encodings``;
    a name without an entry is ``unsupported``.
    """

    name: str
    args: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class InSubquery(Expr):
    """``x IN (SELECT y ...)``; the subquery has exactly one column, or, for a row
    value ``(x, x2, ...) IN (SELECT y, y2, ...)``, one per operand: ``rest`` holds the
    operands after the first (empty for a scalar IN)."""

    operand: Expr
    query: Rel
    rest: tuple[Expr, ...] = ()


@dataclass(frozen=True, slots=True)
class Exists(Expr):
    query: Rel


@dataclass(frozen=True, slots=True)
class ScalarSubquery(Expr):
    """The first row's single column of a subquery, NULL when it has no rows."""

    query: Rel


def children(e: Expr) -> tuple[Expr, ...]:
    """Direct scalar children (subqueries are not descended into)."""
    if isinstance(e, Negate | IsNull | Not):
        return (e.operand,)
    if isinstance(e, Arith | Concat | Compare | Is | And | Or):
        return (e.left, e.right)
    if isinstance(e, Like):
        return (e.operand, e.pattern) + ((e.escape,) if e.escape is not None else ())
    if isinstance(e, Case):
        return (*(x for w in e.whens for x in w), e.else_)
    if isinstance(e, Cast | Collate | StoredAs):
        return (e.operand,)
    if isinstance(e, Call):
        return e.args
    if isinstance(e, InSubquery):
        return (e.operand, *e.rest)
    return ()


def affinity_of(e: Expr) -> Affinity:
    """The affinity an expression carries into a comparison (datatype3.html §4.2).

    A column reference has its column's affinity, ``CAST(x AS T)`` has T's;
    every other expression has none. (Scalar subqueries whose single column is
    a column reference carry that column's affinity too.)
    """
    if isinstance(e, ColumnRef):
        return e.affinity
    if isinstance(e, Collate):
        return affinity_of(e.operand)
    if isinstance(e, Cast):
        return e.target
    if isinstance(e, ScalarSubquery):
        return e.query.columns[0].affinity if e.query.columns else NO_AFFINITY
    return NO_AFFINITY


def conjoin(terms: Sequence[Expr]) -> Expr:
    """``t1 AND t2 AND ...``; ``terms`` non-empty."""
    return _chain(And, terms)


def disjoin(terms: Sequence[Expr]) -> Expr:
    """``t1 OR t2 OR ...``; ``terms`` non-empty."""
    return _chain(Or, terms)


def _chain(kind: type[And] | type[Or], terms: Sequence[Expr]) -> Expr:
    """A balanced tree, operands left to right: AND and OR are associative in SQLite's
    three-valued logic and keep their left-to-right order, and a tree of depth log n lets
    every walk take an IN list of thousands of values (left-deep, 200 blew the stack)."""
    if len(terms) == 1:
        return terms[0]
    mid = len(terms) // 2
    return kind(_chain(kind, terms[:mid]), _chain(kind, terms[mid:]))


def is_boolean(e: Expr) -> bool:
    """Whether the expression's natural value is a truth value (0/1/NULL)."""
    return isinstance(e, Compare | Is | IsNull | And | Or | Not | Like | InSubquery | Exists)


# ---------------------------------------------------------------------- collations


def collation_of(e: Expr) -> Collation | None:
    """The collating sequence ``e`` brings to a comparison (SQLite's
    ``sqlite3ExprCollSeq``): the leftmost ``COLLATE`` anywhere in it (not inside
    subqueries), else the collation of a column reference, seen through CAST and
    unary ``+``; any other expression has none."""
    while True:
        if isinstance(e, ColumnRef):
            return e.collation
        if isinstance(e, Collate):
            return Collation(e.collation, explicit=True)
        if isinstance(e, Cast) or (isinstance(e, Call) and e.name == "+"):
            e = e.operand if isinstance(e, Cast) else e.args[0]
            continue
        inner = next((c for c in _collation_order(e) if has_explicit_collation(c)), None)
        if inner is None:
            return None
        e = inner


def has_explicit_collation(e: Expr) -> bool:
    """Whether a COLLATE operator appears in ``e`` (SQLite's EP_Collate flag)."""
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, Collate):
            return True
        if isinstance(x, ColumnRef) and x.collation is not None and x.collation.explicit:
            return True
        stack.extend(children(x))
    return False


def _collation_order(e: Expr) -> tuple[Expr, ...]:
    """Children in the order SQLite searches them for a COLLATE: LIKE and GLOB are
    function calls whose first argument is the pattern."""
    if isinstance(e, Like):
        return (e.pattern, e.operand) + ((e.escape,) if e.escape is not None else ())
    return children(e)


def binary_collation(left: Collation | None, right: Collation | None) -> str:
    """The collation of a comparison of operands bringing these collations
    (``sqlite3BinaryCompareCollSeq``): explicit before column, left before right."""
    for c in (left, right):
        if c is not None and c.explicit:
            return c.checked_name()
    for c in (left, right):
        if c is not None:
            return c.checked_name()
    return BINARY


def comparison_collation(left: Expr, right: Expr) -> str:
    """The collating sequence of ``left <op> right`` (=, <>, <, IS, ...)."""
    return binary_collation(collation_of(left), collation_of(right))


def collation_name(e: Expr) -> str:
    """The collation of ``e`` used on its own (DISTINCT, GROUP BY, ORDER BY, MIN/MAX):
    its collation, BINARY if it has none."""
    c = collation_of(e)
    return c.checked_name() if c is not None else BINARY
