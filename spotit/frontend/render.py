"""Syntax tree back to SQLite SQL that means exactly what the tree means.

Counterexamples, fuzzing and error messages all show SQL rendered from a tree, and the fuzz
harness renders mutated trees and runs them on SQLite; so the output must never depend on
operator precedence or on how a name happens to be spelled. Every operator expression is
therefore wrapped in parentheses, and identifiers are quoted whenever they are not plain.

Quoting keeps one distinction that matters to SQLite: a double-quoted column name becomes a
string literal when no column matches it, a name in backquotes or a bare one never does. So the
last part of a ``Name`` is written in double quotes exactly when ``double_quoted`` is set, and in
backquotes when it merely needs quoting (``parse(render(tree)) == tree`` depends on it).

Example:
    >>> from spotit.frontend.parser import parse
    >>> render(parse("select a from t where x = 1 or y = 2 and z = 3"))
    'SELECT a FROM t WHERE ((x = 1) OR ((y = 2) AND (z = 3)))'
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from spotit.frontend import ast

__all__ = ["SQLITE_KEYWORDS", "quote_identifier", "render"]

# https://sqlite.org/lang_keywords.html (147 words), plus TRUE and FALSE, which the parser reads
# as the literals 1 and 0 when they stand alone.
SQLITE_KEYWORDS = frozenset(
    """
    ABORT ACTION ADD AFTER ALL ALTER ALWAYS ANALYZE AND AS ASC ATTACH AUTOINCREMENT BEFORE
    BEGIN BETWEEN BY CASCADE CASE CAST CHECK COLLATE COLUMN COMMIT CONFLICT CONSTRAINT CREATE
    CROSS CURRENT CURRENT_DATE CURRENT_TIME CURRENT_TIMESTAMP DATABASE DEFAULT DEFERRABLE
    DEFERRED DELETE DESC DETACH DISTINCT DO DROP EACH ELSE END ESCAPE EXCEPT EXCLUDE EXCLUSIVE
    EXISTS EXPLAIN FAIL FILTER FIRST FOLLOWING FOR FOREIGN FROM FULL GENERATED GLOB GROUP GROUPS
    HAVING IF IGNORE IMMEDIATE IN INDEX INDEXED INITIALLY INNER INSERT INSTEAD INTERSECT INTO IS
    ISNULL JOIN KEY LAST LEFT LIKE LIMIT MATCH MATERIALIZED NATURAL NO NOT NOTHING NOTNULL NULL
    NULLS OF OFFSET ON OR ORDER OTHERS OUTER OVER PARTITION PLAN PRAGMA PRECEDING PRIMARY QUERY
    RAISE RANGE RECURSIVE REFERENCES REGEXP REINDEX RELEASE RENAME REPLACE RESTRICT RETURNING
    RIGHT ROLLBACK ROW ROWS SAVEPOINT SELECT SET TABLE TEMP TEMPORARY THEN TIES TO TRANSACTION
    TRIGGER UNBOUNDED UNION UNIQUE UPDATE USING VACUUM VALUES VIEW VIRTUAL WHEN WHERE WINDOW
    WITH WITHOUT TRUE FALSE
    """.split()  # noqa: SIM905 - a word list reads better than 149 quoted strings
)

# Keywords that SQLite (and our grammar) also accept as the name of a called function.
_KEYWORD_FUNCTIONS = frozenset({"LIKE", "GLOB", "REGEXP", "MATCH", "REPLACE"})
# Niladic keywords that the parser turns into ``Function(name)``: written without parentheses.
_KEYWORD_VALUES = frozenset({"CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIMESTAMP"})

_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def render(node: ast.Node) -> str:
    """Render any syntax-tree node (a whole query, a clause item or an expression) as SQL."""
    try:
        handler = _HANDLERS[type(node)]
    except KeyError:
        raise TypeError(f"render: no rendering for {type(node).__name__}") from None
    return handler(node)


def quote_identifier(name: str, quote: str = '"') -> str:
    """``name`` as written bare when SQLite reads it back unchanged, else quoted with ``quote``."""
    if _PLAIN.match(name) and name.upper() not in SQLITE_KEYWORDS:
        return name
    _check_text(name)
    return quote + name.replace(quote, quote * 2) + quote


def _check_text(text: str) -> None:
    # sqlite3 refuses SQL containing NUL, and no SQLite literal or identifier can hold one.
    if "\x00" in text:
        raise ValueError("render: SQL text cannot contain a NUL character")


# --------------------------------------------------------------------------- expressions


def _literal(node: ast.Literal) -> str:
    value = node.value
    if value is None:
        return "NULL"
    if isinstance(value, bool):  # not produced by the parser, but means 1/0 if a mutation makes it
        return str(int(value))
    if isinstance(value, int):
        if not _INT64_MIN <= value <= _INT64_MAX:
            raise ValueError(f"render: integer literal {value} is outside SQLite's 64-bit range")
        return str(value)
    if isinstance(value, float):
        return _real(value)
    if isinstance(value, str):
        _check_text(value)
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, bytes):
        return "X'" + value.hex().upper() + "'"
    raise TypeError(f"render: unexpected literal value {value!r}")


def _real(value: float) -> str:
    """A REAL literal that reads back as exactly ``value`` (and stays REAL, never INTEGER)."""
    if math.isnan(value):
        raise ValueError("render: SQLite has no NaN literal (it stores NaN as NULL)")
    if math.isinf(value):
        return "1e999" if value > 0 else "-1e999"
    text = repr(value)  # shortest round-tripping form; always has a '.' or an exponent
    return text if ("." in text or "e" in text) else text + ".0"


def _name(node: ast.Name) -> str:
    *qualifiers, last = node.parts
    if node.double_quoted:
        _check_text(last)
        last_sql = '"' + last.replace('"', '""') + '"'
    else:
        last_sql = quote_identifier(last, "`")
    return ".".join([*(quote_identifier(q) for q in qualifiers), last_sql])


def _parameter(node: ast.Parameter) -> str:
    return node.text


def _unary(node: ast.Unary) -> str:
    operand = render(node.operand)
    if node.op == "NOT":
        return f"(NOT {operand})"
    if node.op == "-" and isinstance(node.operand, ast.Literal) and operand[0].isdigit():
        # The parser reads `-1` as the literal -1, so keep this minus an operator.
        return f"(-({operand}))"
    # `- -1` must keep its space: `--1` would start a comment.
    sep = " " if operand.startswith("-") else ""
    return f"({node.op}{sep}{operand})"


def _binary(node: ast.Binary) -> str:
    return f"({render(node.left)} {node.op} {render(node.right)})"


def _not(negated: bool) -> str:
    return "NOT " if negated else ""


def _is_null(node: ast.IsNull) -> str:
    return f"({render(node.operand)} IS {_not(node.negated)}NULL)"


def _like(node: ast.Like) -> str:
    escape = f" ESCAPE {render(node.escape)}" if node.escape is not None else ""
    return f"({render(node.operand)} {_not(node.negated)}{node.op} {render(node.pattern)}{escape})"


def _between(node: ast.Between) -> str:
    return (
        f"({render(node.operand)} {_not(node.negated)}BETWEEN "
        f"{render(node.low)} AND {render(node.high)})"
    )


def _in_list(node: ast.InList) -> str:
    items = ", ".join(render(item) for item in node.items)
    return f"({render(node.operand)} {_not(node.negated)}IN ({items}))"


def _in_query(node: ast.InQuery) -> str:
    return f"({render(node.operand)} {_not(node.negated)}IN ({render(node.query)}))"


def _in_table(node: ast.InTable) -> str:
    table = quote_identifier(node.table)
    return f"({render(node.operand)} {_not(node.negated)}IN {table})"


def _exists(node: ast.Exists) -> str:
    return f"EXISTS ({render(node.query)})"


def _subquery(node: ast.Subquery) -> str:
    return f"({render(node.query)})"


def _case(node: ast.Case) -> str:
    parts = ["CASE"]
    if node.operand is not None:
        parts.append(render(node.operand))
    for when, then in node.whens:
        parts.append(f"WHEN {render(when)} THEN {render(then)}")
    if node.else_ is not None:
        parts.append(f"ELSE {render(node.else_)}")
    parts.append("END")
    return " ".join(parts)


def _cast(node: ast.Cast) -> str:
    _check_text(node.type_name)
    return f"CAST({render(node.operand)} AS {node.type_name})"


def _collate(node: ast.Collate) -> str:
    return f"({render(node.operand)} COLLATE {quote_identifier(node.collation)})"


def _row(node: ast.Row) -> str:
    return "(" + ", ".join(render(item) for item in node.items) + ")"


def _function(node: ast.Function) -> str:
    name = node.name
    if name.upper() in _KEYWORD_VALUES and not (node.args or node.star or node.distinct):
        call = name.upper()
    else:
        if not (_PLAIN.match(name) and name.upper() in _KEYWORD_FUNCTIONS):
            name = quote_identifier(name)
        if node.star:
            args = "*"
        elif node.distinct and not node.args:
            raise ValueError(f"render: {name}(DISTINCT) needs an argument")
        else:
            args = ("DISTINCT " if node.distinct else "") + ", ".join(map(render, node.args))
        call = f"{name}({args})"
    if node.filter is not None:
        call += f" FILTER (WHERE {render(node.filter)})"
    if node.over is not None:
        call += f" OVER {render(node.over)}"
    return call


def _window_spec(node: ast.WindowSpec) -> str:
    """``name`` alone, or the parenthesised definition (what follows OVER / ``w AS``)."""
    if node.name is not None and not (node.partition_by or node.order_by or node.frame):
        return quote_identifier(node.name)
    parts = []
    if node.name is not None:
        parts.append(quote_identifier(node.name))
    if node.partition_by:
        parts.append("PARTITION BY " + ", ".join(map(render, node.partition_by)))
    if node.order_by:
        parts.append("ORDER BY " + ", ".join(map(render, node.order_by)))
    if node.frame:
        parts.append(node.frame)
    return "(" + " ".join(parts) + ")"


def _raise(node: ast.Raise) -> str:
    return f"RAISE({node.text})"


# --------------------------------------------------------------------------- queries


def _order_item(node: ast.OrderItem) -> str:
    text = render(node.expr)
    if node.descending:
        text += " DESC"
    if node.nulls is not None:
        text += f" NULLS {node.nulls}"
    return text


def _alias(alias: str | None) -> str:
    return f" AS {quote_identifier(alias)}" if alias is not None else ""


def _result_column(node: ast.ResultColumn) -> str:
    return render(node.expr) + _alias(node.alias)


def _star_column(node: ast.StarColumn) -> str:
    return "*" if node.table is None else f"{quote_identifier(node.table)}.*"


def _table_ref(node: ast.TableRef) -> str:
    name = quote_identifier(node.name)
    if node.schema is not None:
        name = f"{quote_identifier(node.schema)}.{name}"
    return name + _alias(node.alias)


def _subquery_ref(node: ast.SubqueryRef) -> str:
    return f"({render(node.query)})" + _alias(node.alias)


def _table_function_ref(node: ast.TableFunctionRef) -> str:
    args = ", ".join(map(render, node.args))
    return f"{quote_identifier(node.name)}({args})" + _alias(node.alias)


def _join(node: ast.Join) -> str:
    right = render(node.right)
    if isinstance(node.right, ast.Join):  # joins associate to the left: keep the grouping
        right = f"({right})"
    if node.kind == "COMMA":
        if node.natural:
            raise ValueError("render: a comma join cannot be NATURAL")
        text = f"{render(node.left)}, {right}"
    else:
        kind = "" if node.kind == "INNER" else f"{node.kind} "
        text = f"{render(node.left)} {'NATURAL ' if node.natural else ''}{kind}JOIN {right}"
    if node.on is not None:
        text += f" ON {render(node.on)}"
    if node.using is not None:
        text += " USING (" + ", ".join(map(quote_identifier, node.using)) + ")"
    return text


def _select(node: ast.Select) -> str:
    parts = ["SELECT DISTINCT" if node.distinct else "SELECT"]
    parts.append(", ".join(map(render, node.columns)))
    if node.from_ is not None:
        parts.append("FROM " + render(node.from_))
    if node.where is not None:
        parts.append("WHERE " + render(node.where))
    if node.group_by:
        parts.append("GROUP BY " + ", ".join(map(render, node.group_by)))
    if node.having is not None:
        parts.append("HAVING " + render(node.having))
    if node.windows:
        defs = (f"{quote_identifier(n)} AS {_window_definition(w)}" for n, w in node.windows)
        parts.append("WINDOW " + ", ".join(defs))
    return " ".join(parts)


def _window_definition(spec: ast.WindowSpec) -> str:
    text = _window_spec(spec)
    return text if text.startswith("(") else f"({text})"


def _values(node: ast.Values) -> str:
    rows = ("(" + ", ".join(map(render, row)) + ")" for row in node.rows)
    return "VALUES " + ", ".join(rows)


def _compound(node: ast.Compound) -> str:
    if isinstance(node.right, ast.Compound):
        # SQLite has no parenthesised compound operands: this tree cannot be written.
        raise ValueError("render: the right operand of a compound select must be a simple select")
    return f"{render(node.left)} {node.op} {render(node.right)}"


def _common_table(node: ast.CommonTable) -> str:
    name = quote_identifier(node.name)
    if node.columns is not None:
        name += "(" + ", ".join(map(quote_identifier, node.columns)) + ")"
    hint = {None: "", True: "MATERIALIZED ", False: "NOT MATERIALIZED "}[node.materialized]
    return f"{name} AS {hint}({render(node.query)})"


def _query(node: ast.Query) -> str:
    parts = []
    if node.with_:
        head = "WITH RECURSIVE" if node.recursive else "WITH"
        parts.append(head + " " + ", ".join(map(render, node.with_)))
    parts.append(render(node.body))
    if node.order_by:
        parts.append("ORDER BY " + ", ".join(map(render, node.order_by)))
    if node.limit is not None or node.offset is not None:
        # OFFSET needs a LIMIT; a negative LIMIT means "no limit".
        limit = render(node.limit) if node.limit is not None else "-1"
        parts.append(f"LIMIT {limit}")
        if node.offset is not None:
            parts.append(f"OFFSET {render(node.offset)}")
    return " ".join(parts)


_HANDLERS: dict[type[Any], Callable[[Any], str]] = {
    ast.Literal: _literal,
    ast.Name: _name,
    ast.Parameter: _parameter,
    ast.Unary: _unary,
    ast.Binary: _binary,
    ast.IsNull: _is_null,
    ast.Like: _like,
    ast.Between: _between,
    ast.InList: _in_list,
    ast.InQuery: _in_query,
    ast.InTable: _in_table,
    ast.Exists: _exists,
    ast.Subquery: _subquery,
    ast.Case: _case,
    ast.Cast: _cast,
    ast.Collate: _collate,
    ast.Row: _row,
    ast.WindowSpec: _window_spec,
    ast.Function: _function,
    ast.Raise: _raise,
    ast.OrderItem: _order_item,
    ast.ResultColumn: _result_column,
    ast.StarColumn: _star_column,
    ast.TableRef: _table_ref,
    ast.SubqueryRef: _subquery_ref,
    ast.TableFunctionRef: _table_function_ref,
    ast.Join: _join,
    ast.Select: _select,
    ast.Values: _values,
    ast.Compound: _compound,
    ast.CommonTable: _common_table,
    ast.Query: _query,
}
