"""The renderer: SQL that SQLite reads back as exactly the tree it came from."""

from __future__ import annotations

import dataclasses
import inspect
import math
import sqlite3

import pytest

from spotit.frontend import ast
from spotit.frontend.ast import (
    Binary,
    Compound,
    Function,
    Join,
    Literal,
    Name,
    Query,
    ResultColumn,
    Select,
    TableRef,
    Unary,
    Values,
    WindowSpec,
)
from spotit.frontend.parser import parse, parse_expression
from spotit.frontend.render import _HANDLERS, quote_identifier, render

_DB = sqlite3.connect(":memory:")


def _value(sql_expr: str) -> object:
    (value,) = _DB.execute(f"SELECT {sql_expr}").fetchone()
    return value


def test_every_node_class_has_a_rendering() -> None:
    """The fuzz harness renders mutated trees, so no node kind may be missing."""
    concrete = {
        cls
        for _, cls in inspect.getmembers(ast, inspect.isclass)
        if dataclasses.is_dataclass(cls) and cls.__module__ == ast.__name__
    }
    abstract = {ast.Node, ast.Expr, ast.FromItem}
    assert concrete - abstract == set(_HANDLERS)


def test_operators_are_fully_parenthesised() -> None:
    tree = parse_expression("a = 1 OR NOT b AND c + d * e > 2")
    assert render(tree) == "((a = 1) OR ((NOT b) AND ((c + (d * e)) > 2)))"


def test_whole_query() -> None:
    sql = (
        "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 3) "
        "SELECT DISTINCT c.n AS k, count(*) FROM c LEFT JOIN t AS u USING (n) "
        "WHERE u.x IS NOT NULL GROUP BY 1 HAVING count(*) > 0 ORDER BY k DESC NULLS LAST "
        "LIMIT 10, 5"
    )
    assert render(parse(sql)) == (
        "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT (n + 1) FROM c WHERE (n < 3)) "
        "SELECT DISTINCT c.n AS k, COUNT(*) FROM c LEFT JOIN t AS u USING (n) "
        "WHERE (u.x IS NOT NULL) GROUP BY 1 HAVING (COUNT(*) > 0) ORDER BY k DESC NULLS LAST "
        "LIMIT 5 OFFSET 10"
    )


@pytest.mark.parametrize(
    ("name", "sql"),
    [
        ("a", "a"),
        ("T1_x", "T1_x"),
        ("Free Meal", '"Free Meal"'),
        ('say "hi"', '"say ""hi"""'),
        ("select", '"select"'),
        ("Date", "Date"),  # not a keyword
        ("true", '"true"'),  # would read back as the literal 1
        ("1a", '"1a"'),
        ("é", '"é"'),
    ],
)
def test_quote_identifier(name: str, sql: str) -> None:
    assert quote_identifier(name) == sql


def test_names_keep_sqlite_string_fallback_exactly() -> None:
    # Double quotes make SQLite read an unknown column as a string; backquotes never do.
    assert render(Name(("x",), double_quoted=True)) == '"x"'
    assert render(Name(("Free Meal",))) == "`Free Meal`"
    assert render(Name(("order",))) == "`order`"
    assert render(Name(("t", "a b"), double_quoted=True)) == 't."a b"'
    assert render(Name(("my t", "a"))) == '"my t".a'
    assert _value(render(Name(("nope",), double_quoted=True))) == "nope"
    with pytest.raises(sqlite3.OperationalError, match="no such column"):
        _value(render(Name(("nope",))))


@pytest.mark.parametrize(
    ("value", "sql"),
    [
        (None, "NULL"),
        (0, "0"),
        (-5, "-5"),
        (2**63 - 1, "9223372036854775807"),
        (-(2**63), "-9223372036854775808"),
        (1.0, "1.0"),
        (-0.5, "-0.5"),
        (1e16, "1e+16"),
        (1.5e-300, "1.5e-300"),
        (math.inf, "1e999"),
        (-math.inf, "-1e999"),
        ("it's", "'it''s'"),
        ("", "''"),
        (b"\x00\xab", "X'00AB'"),
        (b"", "X''"),
    ],
)
def test_literals_read_back_identically(value: object, sql: str) -> None:
    assert render(Literal(value)) == sql  # type: ignore[arg-type]
    assert parse_expression(sql) == Literal(value)  # type: ignore[arg-type]
    got = _value(sql)
    assert got == value and type(got) is type(value)


def test_unrepresentable_values_are_refused() -> None:
    with pytest.raises(ValueError, match="NaN"):
        render(Literal(math.nan))
    with pytest.raises(ValueError, match="64-bit"):
        render(Literal(2**63))
    with pytest.raises(ValueError, match="NUL"):
        render(Literal("a\x00b"))


def test_minus_before_a_number_stays_an_operator() -> None:
    # `-1` parses as the literal -1, so the operator form needs parentheses to survive.
    negated_one = Unary("-", Literal(1))
    assert render(negated_one) == "(-(1))"
    assert parse_expression(render(negated_one)) == negated_one
    double = Unary("-", Literal(-1))
    assert render(double) == "(- -1)"  # never `--1`, which would be a comment
    assert parse_expression(render(double)) == double
    assert render(Binary("-", Literal(1), Literal(-1))) == "(1 - -1)"


def test_functions() -> None:
    assert render(Function("COUNT", star=True)) == "COUNT(*)"
    assert render(Function("COUNT", (Name(("a",)),), distinct=True)) == "COUNT(DISTINCT a)"
    assert render(Function("CURRENT_TIMESTAMP")) == "CURRENT_TIMESTAMP"
    assert render(Function("REPLACE", (Literal("a"), Literal("b"), Literal("c")))) == (
        "REPLACE('a', 'b', 'c')"
    )
    assert render(Function("LEFT", (Literal("a"),))) == "\"LEFT\"('a')"  # SQLite 3.40 needs quotes
    assert render(Function("SUM", (Name(("x",)),), over=WindowSpec("w"))) == "SUM(x) OVER w"
    assert render(Function("SUM", (Name(("x",)),), over=WindowSpec())) == "SUM(x) OVER ()"
    with pytest.raises(ValueError, match="DISTINCT"):
        render(Function("COUNT", distinct=True))


def test_joins_keep_their_grouping() -> None:
    a, b, c = TableRef("a"), TableRef("b"), TableRef("c")
    right_nested = Join("LEFT", a, Join("INNER", b, c, on=Literal(1)), on=Literal(2))
    assert render(right_nested) == "a LEFT JOIN (b JOIN c ON 1) ON 2"
    left_nested = Join("COMMA", Join("CROSS", a, b), c)
    assert render(left_nested) == "a CROSS JOIN b, c"
    natural = Join("RIGHT", a, b, natural=True)
    assert render(natural) == "a NATURAL RIGHT JOIN b"


def test_compound_operands_cannot_nest_to_the_right() -> None:
    one = Select((ResultColumn(Literal(1)),))
    with pytest.raises(ValueError, match="compound"):
        render(Compound("UNION", one, Compound("UNION", one, one)))  # type: ignore[arg-type]
    left = Compound("UNION", Compound("EXCEPT", one, one), Values(((Literal(2),),)))
    assert render(left) == "SELECT 1 EXCEPT SELECT 1 UNION VALUES (2)"


def test_offset_without_limit_uses_sqlite_no_limit() -> None:
    query = Query(Select((ResultColumn(Literal(1)),)), offset=Literal(3))
    assert render(query) == "SELECT 1 LIMIT -1 OFFSET 3"
    _DB.execute(render(query))


def test_unknown_nodes_are_refused() -> None:
    with pytest.raises(TypeError, match="no rendering"):
        render(ast.Expr())
