"""The syntax tree: what the grammar recognised, before any name is resolved.

One frozen dataclass per construct of SQLite's SELECT statement. The parser
builds these from the Lark parse (``spotit.frontend.parser``); the binder
(``spotit.frontend.binder``) resolves them against a schema into the IR.
Nothing here knows about tables or types, so every construct SQLite accepts can
be represented even when the encoder does not support it yet: the binder then
names the construct in an ``unsupported`` verdict.

Positions (``pos``) are ``(line, column)`` of the construct's first token, 1-based,
and take no part in equality.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from spotit.ir.types import value_key

Pos = tuple[int, int] | None


@dataclass(frozen=True, slots=True)
class Node:
    pos: Pos = field(default=None, compare=False, kw_only=True, repr=False)


# --------------------------------------------------------------------------- expressions


@dataclass(frozen=True, slots=True)
class Expr(Node):
    pass


@dataclass(frozen=True, slots=True, eq=False)
class Literal(Expr):
    """A constant: ``None`` is NULL; ``bytes`` is a blob literal ``x'..'``.

    ``TRUE``/``FALSE`` are SQLite aliases for 1 and 0 and arrive as ints.
    Equality is by type too (``1`` and ``1.0`` are different literals in SQLite).
    """

    value: int | float | str | bytes | None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Literal) and value_key(self.value) == value_key(other.value)

    def __hash__(self) -> int:
        return hash(value_key(self.value))


@dataclass(frozen=True, slots=True)
class Name(Expr):
    """A column reference ``col``, ``tbl.col`` or ``schema.tbl.col``.

    ``double_quoted`` records whether the last part was written ``"like this"``:
    SQLite reads such a name as a string literal when no column matches it.
    """

    parts: tuple[str, ...]
    double_quoted: bool = False


@dataclass(frozen=True, slots=True)
class Parameter(Expr):
    """A bound parameter (``?``, ``?1``, ``:name``); never supported, kept to name it."""

    text: str


@dataclass(frozen=True, slots=True)
class Unary(Expr):
    """``-x``, ``+x``, ``~x`` and ``NOT x`` (op is ``"-"``, ``"+"``, ``"~"``, ``"NOT"``)."""

    op: str
    operand: Expr


@dataclass(frozen=True, slots=True)
class Binary(Expr):
    """A binary operator, spelled canonically.

    ops: ``||`` ``->`` ``->>`` ``*`` ``/`` ``%`` ``+`` ``-`` ``&`` ``|`` ``<<`` ``>>``
    ``<`` ``<=`` ``>`` ``>=`` ``=`` ``!=`` ``IS`` ``IS NOT`` ``AND`` ``OR``.
    ``==`` arrives as ``=``, ``<>`` as ``!=``, ``IS [NOT] DISTINCT FROM`` as
    ``IS NOT`` / ``IS``.
    """

    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class IsNull(Expr):
    """``x IS NULL``, ``x ISNULL``, ``x IS NOT NULL``, ``x NOTNULL``, ``x NOT NULL``."""

    operand: Expr
    negated: bool = False


@dataclass(frozen=True, slots=True)
class Like(Expr):
    """``x [NOT] LIKE|GLOB|REGEXP|MATCH pattern [ESCAPE e]`` (op upper-cased)."""

    op: str
    operand: Expr
    pattern: Expr
    escape: Expr | None = None
    negated: bool = False


@dataclass(frozen=True, slots=True)
class Between(Expr):
    operand: Expr
    low: Expr
    high: Expr
    negated: bool = False


@dataclass(frozen=True, slots=True)
class InList(Expr):
    """``x [NOT] IN (e1, e2, ...)``; ``items`` may be empty (``x IN ()`` is valid SQLite)."""

    operand: Expr
    items: tuple[Expr, ...]
    negated: bool = False


@dataclass(frozen=True, slots=True)
class InQuery(Expr):
    """``x [NOT] IN (SELECT ...)``."""

    operand: Expr
    query: Query
    negated: bool = False


@dataclass(frozen=True, slots=True)
class InTable(Expr):
    """``x [NOT] IN table_name`` (SQLite shorthand); kept so it can be named."""

    operand: Expr
    table: str
    negated: bool = False


@dataclass(frozen=True, slots=True)
class Exists(Expr):
    """``EXISTS (SELECT ...)``; ``NOT EXISTS`` is ``Unary("NOT", Exists(...))``."""

    query: Query


@dataclass(frozen=True, slots=True)
class Subquery(Expr):
    """A scalar subquery ``(SELECT ...)`` used as a value."""

    query: Query


@dataclass(frozen=True, slots=True)
class Case(Expr):
    """``CASE [operand] WHEN w THEN t ... [ELSE e] END``."""

    operand: Expr | None
    whens: tuple[tuple[Expr, Expr], ...]
    else_: Expr | None = None


@dataclass(frozen=True, slots=True)
class Cast(Expr):
    """``CAST(x AS type_name)``; ``type_name`` as written, e.g. ``"REAL"``, ``"VARCHAR(10)"``."""

    operand: Expr
    type_name: str


@dataclass(frozen=True, slots=True)
class Collate(Expr):
    operand: Expr
    collation: str


@dataclass(frozen=True, slots=True)
class Row(Expr):
    """A row value ``(a, b)``; SQLite allows them in comparisons and IN."""

    items: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class WindowSpec(Node):
    """The ``OVER (...)`` part of a window function call (or ``OVER name``)."""

    name: str | None = None
    partition_by: tuple[Expr, ...] = ()
    order_by: tuple[OrderItem, ...] = ()
    frame: str | None = None


@dataclass(frozen=True, slots=True)
class Function(Expr):
    """A function call. ``name`` is upper-cased (``COUNT``, ``STRFTIME``, ``IIF`` ...).

    ``star`` is ``COUNT(*)``; ``distinct`` is ``COUNT(DISTINCT x)``;
    ``filter`` is ``FILTER (WHERE ...)``; ``over`` makes it a window function.
    """

    name: str
    args: tuple[Expr, ...] = ()
    distinct: bool = False
    star: bool = False
    filter: Expr | None = None
    over: WindowSpec | None = None


@dataclass(frozen=True, slots=True)
class Raise(Expr):
    """``RAISE(...)``: only meaningful in triggers; kept to name it."""

    text: str


# --------------------------------------------------------------------------- queries


@dataclass(frozen=True, slots=True)
class OrderItem(Node):
    """One ORDER BY key. ``nulls`` is ``"FIRST"``, ``"LAST"`` or ``None`` (SQLite default)."""

    expr: Expr
    descending: bool = False
    nulls: str | None = None


@dataclass(frozen=True, slots=True)
class ResultColumn(Node):
    """An item of the select list: an expression with optional alias."""

    expr: Expr
    alias: str | None = None


@dataclass(frozen=True, slots=True)
class StarColumn(Node):
    """``*`` (``table`` is ``None``) or ``t.*`` in the select list."""

    table: str | None = None


@dataclass(frozen=True, slots=True)
class FromItem(Node):
    pass


@dataclass(frozen=True, slots=True)
class TableRef(FromItem):
    """A table (or CTE) named in FROM, optionally ``schema.name`` and aliased."""

    name: str
    alias: str | None = None
    schema: str | None = None


@dataclass(frozen=True, slots=True)
class SubqueryRef(FromItem):
    """A derived table ``(SELECT ...) [AS] alias``."""

    query: Query
    alias: str | None = None


@dataclass(frozen=True, slots=True)
class TableFunctionRef(FromItem):
    """A table-valued function such as ``json_each(x)``; kept to name it."""

    name: str
    args: tuple[Expr, ...]
    alias: str | None = None


@dataclass(frozen=True, slots=True)
class Join(FromItem):
    """``left <kind> JOIN right [ON cond | USING (cols)]``.

    kind: ``"INNER"``, ``"LEFT"``, ``"RIGHT"``, ``"FULL"``, ``"CROSS"`` or ``"COMMA"``
    (``FROM a, b``). ``JOIN`` alone is ``"INNER"``; ``LEFT OUTER`` is ``"LEFT"``.
    """

    kind: str
    left: FromItem
    right: FromItem
    on: Expr | None = None
    using: tuple[str, ...] | None = None
    natural: bool = False


@dataclass(frozen=True, slots=True)
class Select(Node):
    """One SELECT core (no ORDER BY/LIMIT: those belong to the enclosing ``Query``)."""

    columns: tuple[ResultColumn | StarColumn, ...]
    from_: FromItem | None = None
    where: Expr | None = None
    group_by: tuple[Expr, ...] = ()
    having: Expr | None = None
    distinct: bool = False
    windows: tuple[tuple[str, WindowSpec], ...] = ()


@dataclass(frozen=True, slots=True)
class Values(Node):
    """``VALUES (..), (..)`` as a query body."""

    rows: tuple[tuple[Expr, ...], ...]


@dataclass(frozen=True, slots=True)
class Compound(Node):
    """``left op right`` where op is ``UNION``, ``UNION ALL``, ``INTERSECT`` or ``EXCEPT``.

    Compound selects associate to the left, as in SQLite.
    """

    op: str
    left: Select | Values | Compound
    right: Select | Values


@dataclass(frozen=True, slots=True)
class CommonTable(Node):
    """One CTE of a WITH clause."""

    name: str
    query: Query
    columns: tuple[str, ...] | None = None
    materialized: bool | None = None


@dataclass(frozen=True, slots=True)
class Query(Node):
    """A whole SELECT statement, or a parenthesised one used as a subquery."""

    body: Select | Values | Compound
    with_: tuple[CommonTable, ...] = ()
    recursive: bool = False
    order_by: tuple[OrderItem, ...] = ()
    limit: Expr | None = None
    offset: Expr | None = None
