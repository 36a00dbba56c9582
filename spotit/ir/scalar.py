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

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from spotit.ir.types import NO_AFFINITY, Affinity, value_key

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
    depth: int
    index: int
    affinity: Affinity = NO_AFFINITY
    name: str = field(default="", compare=False)


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
class Call(Expr):
    """A scalar function by canonical upper-case name (``SUBSTR``, ``COALESCE`` ...).

    Functions are looked up in the function registry of ``spotit.encodings``;
    a name without an entry is ``unsupported``.
    """

    name: str
    args: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class InSubquery(Expr):
    """``x IN (SELECT y ...)``; the subquery has exactly one column."""

    operand: Expr
    query: Rel


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
    if isinstance(e, Cast):
        return (e.operand,)
    if isinstance(e, Call):
        return e.args
    if isinstance(e, InSubquery):
        return (e.operand,)
    return ()


def affinity_of(e: Expr) -> Affinity:
    """The affinity an expression carries into a comparison (datatype3.html §4.2).

    A column reference has its column's affinity, ``CAST(x AS T)`` has T's;
    every other expression has none. (Scalar subqueries whose single column is
    a column reference carry that column's affinity too.)
    """
    if isinstance(e, ColumnRef):
        return e.affinity
    if isinstance(e, Cast):
        return e.target
    if isinstance(e, ScalarSubquery):
        return e.query.columns[0].affinity if e.query.columns else NO_AFFINITY
    return NO_AFFINITY


def is_boolean(e: Expr) -> bool:
    """Whether the expression's natural value is a truth value (0/1/NULL)."""
    return isinstance(e, Compare | Is | IsNull | And | Or | Not | Like | InSubquery | Exists)
