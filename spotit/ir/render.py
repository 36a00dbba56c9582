"""Render closed IR expressions back to SQLite SQL.

Used to let SQLite itself compute constant subexpressions (constant folding
that is exact by construction) and LIMIT/OFFSET values. Expressions that read
a row or a subquery are not closed and render as ``None``.
"""

from __future__ import annotations

from spotit.ir import scalar as S
from spotit.ir.determinism import VOLATILE
from spotit.ir.types import Affinity

_CAST_NAMES = {
    Affinity.INTEGER: "INTEGER",
    Affinity.REAL: "REAL",
    Affinity.TEXT: "TEXT",
    Affinity.NUMERIC: "NUMERIC",
    Affinity.BLOB: "BLOB",
}


def sql_literal(v: int | float | str | None) -> str:
    """A SQLite literal for a Python value (reals keep a decimal point or exponent)."""
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, int):
        if v == -(2**63):  # 9223372036854775808 alone would be read as a REAL
            return f"({v + 1} - 1)"
        return str(v) if v >= 0 else f"({v})"
    if isinstance(v, float):
        if v != v:
            return "NULL"
        if v in (float("inf"), float("-inf")):
            return "(9e999)" if v > 0 else "(-9e999)"
        r = repr(v)
        if "e" not in r and "." not in r:
            r += ".0"
        return r if v >= 0 else f"({r})"
    return "'" + str(v).replace("'", "''") + "'"


# functions written between their two arguments: the JSON arrows ``x -> p``, ``x ->> p``
INFIX_CALLS = frozenset({"->", "->>"})


def call_sql(name: str, args: list[str]) -> str:
    """A call of ``name`` on arguments already in SQL: as a function, or as the operator
    it is written as."""
    if name == "+":
        return f"(+ {args[0]})"
    if name in INFIX_CALLS:
        return f"({args[0]} {name} {args[1]})"
    return f"{name}({', '.join(args)})"


def render_expr(e: S.Expr) -> str | None:
    """SQL text for a closed expression, or None if it reads a row or a subquery."""
    try:
        return _render(e)
    except _NotClosed:
        return None


class _NotClosed(Exception):
    pass


def operator_sql(e: S.Expr, r) -> str | None:
    """SQL for an operator node with its operands rendered by ``r``; None for what is
    not an operator here (constants, references, calls, COLLATE, subqueries). Shared
    by constant folding and the plan renderer (``spotit.ir.to_sql``)."""
    if isinstance(e, S.Negate):
        return f"(- {r(e.operand)})"
    if isinstance(e, S.Arith | S.Compare):
        return f"({r(e.left)} {e.op} {r(e.right)})"
    if isinstance(e, S.Concat):
        return f"({r(e.left)} || {r(e.right)})"
    if isinstance(e, S.Is):
        return f"({r(e.left)} IS {r(e.right)})"
    if isinstance(e, S.IsNull):
        return f"({r(e.operand)} IS NULL)"
    if isinstance(e, S.And | S.Or):
        return f"({r(e.left)} {'AND' if isinstance(e, S.And) else 'OR'} {r(e.right)})"
    if isinstance(e, S.Not):
        return f"(NOT {r(e.operand)})"
    if isinstance(e, S.Like):
        esc = f" ESCAPE {r(e.escape)}" if e.escape is not None else ""
        return f"({r(e.operand)} {'GLOB' if e.glob else 'LIKE'} {r(e.pattern)}{esc})"
    if isinstance(e, S.Case):
        whens = " ".join(f"WHEN {r(c)} THEN {r(v)}" for c, v in e.whens)
        return f"(CASE {whens} ELSE {r(e.else_)} END)"
    if isinstance(e, S.Cast):
        return f"CAST({r(e.operand)} AS {_CAST_NAMES[e.target]})"
    return None


def _render(e: S.Expr) -> str:
    r = _render
    if isinstance(e, S.Const):
        return sql_literal(e.value)
    if (text := operator_sql(e, r)) is not None:
        return text
    if isinstance(e, S.Call):
        if e.name in VOLATILE:
            raise _NotClosed  # not a function of its arguments
        if any(isinstance(a, S.Const) and a.value == "now" for a in e.args):
            raise _NotClosed  # 'now' is the evaluation instant, fixed elsewhere
        if any(isinstance(a, S.Const) and isinstance(a.value, str) and
               a.value.lower() in ("localtime", "utc") for a in e.args[1:]):
            raise _NotClosed  # SpotIt's time zone (UTC), not this machine's
        if e.name == "JULIANDAY":
            raise _NotClosed  # SQLite's double would not equal the exact value of a cell's
        return call_sql(e.name, [r(a) for a in e.args])
    raise _NotClosed
