"""The SQL parser, construct by construct: the exact syntax tree each one becomes."""

from __future__ import annotations

import sqlite3

import pytest

from spotit.errors import ParseError, Unsupported
from spotit.frontend import ast
from spotit.frontend.ast import (
    Between,
    Binary,
    Case,
    Cast,
    Collate,
    CommonTable,
    Compound,
    Exists,
    Function,
    InList,
    InQuery,
    InTable,
    IsNull,
    Join,
    Like,
    Literal,
    Name,
    OrderItem,
    Parameter,
    Query,
    Raise,
    ResultColumn,
    Row,
    Select,
    StarColumn,
    Subquery,
    SubqueryRef,
    TableFunctionRef,
    TableRef,
    Unary,
    Values,
    WindowSpec,
)
from spotit.frontend.parser import RESERVED_WORDS, _lark, parse, parse_expression
from spotit.frontend.render import render


def n(*parts: str, dq: bool = False) -> Name:
    return Name(parts, dq)


def lit(value: object) -> Literal:
    return Literal(value)  # type: ignore[arg-type]


def select(sql: str) -> Select:
    body = parse(sql).body
    assert isinstance(body, Select)
    return body


def first_expr(sql: str) -> ast.Expr:
    column = select(sql).columns[0]
    assert isinstance(column, ResultColumn)
    return column.expr


# --------------------------------------------------------------------------- queries


def test_simple_select_shape() -> None:
    assert parse("SELECT a, b AS c FROM t WHERE x = 1") == Query(
        Select(
            (ResultColumn(n("a")), ResultColumn(n("b"), "c")),
            from_=TableRef("t"),
            where=Binary("=", n("x"), lit(1)),
        )
    )


def test_trailing_semicolons_and_comments() -> None:
    expected = parse("SELECT 1")
    assert parse("SELECT 1;") == expected
    assert parse("SELECT 1;;") == expected
    assert parse("-- leading\nSELECT /* inline */ 1 -- trailing") == expected
    assert parse("SELECT 1 /* never closed") == expected  # SQLite accepts this too


def test_distinct_and_all() -> None:
    assert select("SELECT DISTINCT a FROM t").distinct
    assert not select("SELECT ALL a FROM t").distinct
    assert not select("SELECT a FROM t").distinct


def test_star_columns_and_aliases() -> None:
    assert select("SELECT *, t.*, a x, b AS y, c 'z', d AS \"w w\" FROM t").columns == (
        StarColumn(),
        StarColumn("t"),
        ResultColumn(n("a"), "x"),
        ResultColumn(n("b"), "y"),
        ResultColumn(n("c"), "z"),
        ResultColumn(n("d"), "w w"),
    )


def test_clauses() -> None:
    s = select("SELECT a, count(*) FROM t WHERE b > 1 GROUP BY a, c HAVING count(*) > 2")
    assert s.where == Binary(">", n("b"), lit(1))
    assert s.group_by == (n("a"), n("c"))
    assert s.having == Binary(">", Function("COUNT", star=True), lit(2))
    assert select("SELECT 1 HAVING 1").having == lit(1)  # HAVING without GROUP BY parses


def test_order_by() -> None:
    q = parse("SELECT a FROM t ORDER BY a, b ASC, c DESC, d NULLS FIRST, e DESC NULLS LAST")
    assert q.order_by == (
        OrderItem(n("a")),
        OrderItem(n("b")),
        OrderItem(n("c"), descending=True),
        OrderItem(n("d"), nulls="FIRST"),
        OrderItem(n("e"), descending=True, nulls="LAST"),
    )
    collated = parse("SELECT a FROM t ORDER BY a COLLATE NOCASE DESC").order_by
    assert collated == (OrderItem(Collate(n("a"), "NOCASE"), descending=True),)


def test_limit_and_offset() -> None:
    assert parse("SELECT a FROM t LIMIT 5").limit == lit(5)
    q = parse("SELECT a FROM t LIMIT 5 OFFSET 10")
    assert (q.limit, q.offset) == (lit(5), lit(10))


def test_limit_comma_means_offset_first() -> None:
    # SQLite: `LIMIT m, n` skips m rows and returns n.
    q = parse("SELECT a FROM t LIMIT 10, 5")
    assert (q.limit, q.offset) == (lit(5), lit(10))
    assert q == parse("SELECT a FROM t LIMIT 5 OFFSET 10")


def test_compound_selects_associate_left_and_share_order_by() -> None:
    q = parse("SELECT 1 UNION SELECT 2 UNION ALL SELECT 3 EXCEPT SELECT 4 ORDER BY 1 LIMIT 2")
    one, two, three, four = (Select((ResultColumn(lit(i)),)) for i in range(1, 5))
    assert q.body == Compound(
        "EXCEPT", Compound("UNION ALL", Compound("UNION", one, two), three), four
    )
    assert q.order_by == (OrderItem(lit(1)),)
    assert q.limit == lit(2)
    assert parse("SELECT 1 INTERSECT SELECT 2").body == Compound("INTERSECT", one, two)


def test_values() -> None:
    assert parse("VALUES (1, 'a'), (2, NULL)").body == Values(
        ((lit(1), lit("a")), (lit(2), lit(None)))
    )
    assert parse("SELECT 1 UNION VALUES (2)").body == Compound(
        "UNION", Select((ResultColumn(lit(1)),)), Values(((lit(2),),))
    )


def test_with_clause() -> None:
    q = parse(
        "WITH RECURSIVE c(x, y) AS (SELECT 1, 2), d AS MATERIALIZED (SELECT 3), "
        "e AS NOT MATERIALIZED (SELECT 4) SELECT x FROM c"
    )
    assert q.recursive
    assert [(c.name, c.columns, c.materialized) for c in q.with_] == [
        ("c", ("x", "y"), None),
        ("d", None, True),
        ("e", None, False),
    ]
    assert q.with_[0] == CommonTable(
        "c", Query(Select((ResultColumn(lit(1)), ResultColumn(lit(2))))), ("x", "y")
    )
    assert not parse("WITH c AS (SELECT 1) SELECT * FROM c").recursive


# --------------------------------------------------------------------------- FROM


def test_table_references() -> None:
    assert select("SELECT 1 FROM t").from_ == TableRef("t")
    assert select("SELECT 1 FROM t AS x").from_ == TableRef("t", "x")
    assert select("SELECT 1 FROM t x").from_ == TableRef("t", "x")
    assert select("SELECT 1 FROM main.t AS x").from_ == TableRef("t", "x", "main")
    assert select("SELECT 1 FROM `my table` 'x'").from_ == TableRef("my table", "x")


def test_index_hints_are_dropped() -> None:
    assert select("SELECT 1 FROM t AS x INDEXED BY i").from_ == TableRef("t", "x")
    assert select("SELECT 1 FROM t NOT INDEXED").from_ == TableRef("t")


@pytest.mark.parametrize(
    ("join", "kind", "natural"),
    [
        ("JOIN", "INNER", False),
        ("INNER JOIN", "INNER", False),
        ("LEFT JOIN", "LEFT", False),
        ("LEFT OUTER JOIN", "LEFT", False),
        ("RIGHT OUTER JOIN", "RIGHT", False),
        ("FULL JOIN", "FULL", False),
        ("CROSS JOIN", "CROSS", False),
        ("NATURAL JOIN", "INNER", True),
        ("NATURAL LEFT OUTER JOIN", "LEFT", True),
    ],
)
def test_join_kinds(join: str, kind: str, natural: bool) -> None:
    source = select(f"SELECT 1 FROM a {join} b").from_
    assert source == Join(kind, TableRef("a"), TableRef("b"), natural=natural)


def test_join_constraints_and_associativity() -> None:
    source = select("SELECT 1 FROM a, b JOIN c ON a.x = c.x LEFT JOIN d USING (y, z)").from_
    assert source == Join(
        "LEFT",
        Join(
            "INNER",
            Join("COMMA", TableRef("a"), TableRef("b")),
            TableRef("c"),
            on=Binary("=", n("a", "x"), n("c", "x")),
        ),
        TableRef("d"),
        using=("y", "z"),
    )


def test_parenthesised_join_groups_to_the_right() -> None:
    source = select("SELECT 1 FROM a JOIN (b JOIN c ON 1) ON 2").from_
    inner = Join("INNER", TableRef("b"), TableRef("c"), on=lit(1))
    assert source == Join("INNER", TableRef("a"), inner, on=lit(2))


def test_derived_tables_and_table_functions() -> None:
    inner = Query(Select((ResultColumn(lit(1)),)))
    assert select("SELECT 1 FROM (SELECT 1) AS s").from_ == SubqueryRef(inner, "s")
    assert select("SELECT 1 FROM (SELECT 1)").from_ == SubqueryRef(inner)
    assert select("SELECT key FROM json_each('[1]') j").from_ == TableFunctionRef(
        "json_each", (lit("[1]"),), "j"
    )


def test_window_clause() -> None:
    s = select("SELECT rank() OVER w FROM t WINDOW w AS (PARTITION BY a ORDER BY b DESC)")
    assert s.windows == (
        ("w", WindowSpec(partition_by=(n("a"),), order_by=(OrderItem(n("b"), True),))),
    )
    assert s.columns == (ResultColumn(Function("RANK", over=WindowSpec("w"))),)


# --------------------------------------------------------------------------- expressions


def test_precedence_layers() -> None:
    assert parse_expression("a OR b AND c") == Binary("OR", n("a"), Binary("AND", n("b"), n("c")))
    assert parse_expression("NOT a = b") == Unary("NOT", Binary("=", n("a"), n("b")))
    assert parse_expression("a + b * c") == Binary("+", n("a"), Binary("*", n("b"), n("c")))
    assert parse_expression("a || b * c") == Binary("*", Binary("||", n("a"), n("b")), n("c"))
    assert parse_expression("a < b = c") == Binary("=", Binary("<", n("a"), n("b")), n("c"))
    assert parse_expression("a & b < c") == Binary("<", Binary("&", n("a"), n("b")), n("c"))
    assert parse_expression("-a COLLATE x") == Collate(Unary("-", n("a")), "x")
    assert parse_expression("a - b - c") == Binary("-", Binary("-", n("a"), n("b")), n("c"))


def test_between_and_is_not_logical_and() -> None:
    assert parse_expression("a BETWEEN 1 AND 2 AND b") == Binary(
        "AND", Between(n("a"), lit(1), lit(2)), n("b")
    )
    assert parse_expression("a NOT BETWEEN b + 1 AND c") == Between(
        n("a"), Binary("+", n("b"), lit(1)), n("c"), negated=True
    )


@pytest.mark.parametrize(
    ("text", "op"),
    [
        ("a == b", "="),
        ("a <> b", "!="),
        ("a != b", "!="),
        ("a IS b", "IS"),
        ("a IS NOT b", "IS NOT"),
        ("a IS DISTINCT FROM b", "IS NOT"),
        ("a IS NOT DISTINCT FROM b", "IS"),
        ("a -> b", "->"),
        ("a ->> b", "->>"),
        ("a << b", "<<"),
        ("a % b", "%"),
        ("a | b", "|"),
    ],
)
def test_canonical_operator_spelling(text: str, op: str) -> None:
    assert parse_expression(text) == Binary(op, n("a"), n("b"))


def test_unary_operators() -> None:
    assert parse_expression("NOT a") == Unary("NOT", n("a"))
    assert parse_expression("-a") == Unary("-", n("a"))
    assert parse_expression("+a") == Unary("+", n("a"))
    assert parse_expression("~a") == Unary("~", n("a"))
    assert parse_expression("NOT EXISTS (SELECT 1)") == Unary(
        "NOT", Exists(Query(Select((ResultColumn(lit(1)),))))
    )


def test_is_true_and_is_false_are_truth_tests() -> None:
    # SQLite: `2 IS TRUE` is 1 but `2 IS 1` is 0; the tree has no truth-test node, so the
    # parser writes the test as the CASE it equals.
    true, false = lit(1), lit(0)
    assert parse_expression("a IS TRUE") == Case(None, ((n("a"), true),), false)
    assert parse_expression("a IS NOT TRUE") == Case(None, ((n("a"), false),), true)
    assert parse_expression("a IS FALSE") == Case(None, ((Unary("NOT", n("a")), true),), false)
    assert parse_expression("a IS DISTINCT FROM FALSE") == parse_expression("a IS NOT FALSE")
    assert parse_expression("a IS NOT DISTINCT FROM TRUE") == parse_expression("a IS TRUE")
    assert parse_expression("a IS TRUE + 1") == Binary("IS", n("a"), Binary("+", true, lit(1)))
    assert parse_expression("a = TRUE") == Binary("=", n("a"), true)
    db = sqlite3.connect(":memory:")
    for value in ("2", "0", "0.5", "NULL", "'a'", "'1a'", "x'01'"):
        for test in ("IS TRUE", "IS NOT TRUE", "IS FALSE", "IS NOT FALSE"):
            sql = f"{value} {test}"
            rendered = render(parse_expression(sql))
            assert (
                db.execute(f"SELECT {sql}").fetchall()
                == db.execute(f"SELECT {rendered}").fetchall()
            ), sql


def test_like_family() -> None:
    assert parse_expression("a LIKE 'x%'") == Like("LIKE", n("a"), lit("x%"))
    assert parse_expression("a not like 'x' escape '!'") == Like(
        "LIKE", n("a"), lit("x"), lit("!"), negated=True
    )
    assert parse_expression("a GLOB 'x*'") == Like("GLOB", n("a"), lit("x*"))
    assert parse_expression("a NOT REGEXP b") == Like("REGEXP", n("a"), n("b"), negated=True)
    assert parse_expression("a MATCH b") == Like("MATCH", n("a"), n("b"))


def test_null_tests() -> None:
    for text in ("a IS NULL", "a ISNULL"):
        assert parse_expression(text) == IsNull(n("a"))
    for text in ("a IS NOT NULL", "a NOTNULL", "a NOT NULL"):
        assert parse_expression(text) == IsNull(n("a"), negated=True)


def test_in_forms() -> None:
    one = Query(Select((ResultColumn(lit(1)),)))
    assert parse_expression("a IN (1, 2)") == InList(n("a"), (lit(1), lit(2)))
    assert parse_expression("a NOT IN ()") == InList(n("a"), (), negated=True)
    assert parse_expression("a IN (SELECT 1)") == InQuery(n("a"), one)
    assert parse_expression("a IN ((SELECT 1))") == InList(n("a"), (Subquery(one),))
    assert parse_expression("a NOT IN t") == InTable(n("a"), "t", negated=True)
    assert parse_expression("(a, b) IN (SELECT 1)") == InQuery(Row((n("a"), n("b"))), one)


def test_subqueries_in_expressions() -> None:
    one = Query(Select((ResultColumn(lit(1)),)))
    assert parse_expression("(SELECT 1)") == Subquery(one)
    assert parse_expression("EXISTS (SELECT 1)") == Exists(one)
    assert parse_expression("(a)") == n("a")
    assert parse_expression("(a, 1)") == Row((n("a"), lit(1)))


def test_case() -> None:
    assert parse_expression("CASE a WHEN 1 THEN 'x' WHEN 2 THEN 'y' END") == Case(
        n("a"), ((lit(1), lit("x")), (lit(2), lit("y")))
    )
    assert parse_expression("CASE WHEN a THEN 1 ELSE 0 END") == Case(
        None, ((n("a"), lit(1)),), lit(0)
    )


@pytest.mark.parametrize(
    ("written", "type_name"),
    [
        ("REAL", "REAL"),
        ("integer", "integer"),
        ("VARCHAR(10)", "VARCHAR(10)"),
        ("DECIMAL ( 10 , 2 )", "DECIMAL(10, 2)"),
        ("DOUBLE PRECISION", "DOUBLE PRECISION"),
        ("NUMERIC(-1, +2)", "NUMERIC(-1, +2)"),
    ],
)
def test_cast(written: str, type_name: str) -> None:
    assert parse_expression(f"CAST(a AS {written})") == Cast(n("a"), type_name)


def test_function_calls() -> None:
    assert parse_expression("count(*)") == Function("COUNT", star=True)
    assert parse_expression("Count(DISTINCT a)") == Function("COUNT", (n("a"),), distinct=True)
    assert parse_expression("count(ALL a)") == Function("COUNT", (n("a"),))
    assert parse_expression("random()") == Function("RANDOM")
    assert parse_expression("strftime('%Y', d)") == Function("STRFTIME", (lit("%Y"), n("d")))
    for name in ("date", "time", "replace", "left", "like", "glob", "match", "min", "max"):
        assert parse_expression(f"{name}(a)") == Function(name.upper(), (n("a"),))


def test_aggregate_filter_and_windows() -> None:
    assert parse_expression("sum(a) FILTER (WHERE b > 0)") == Function(
        "SUM", (n("a"),), filter=Binary(">", n("b"), lit(0))
    )
    assert parse_expression(
        "sum(a) OVER (PARTITION BY b, c ORDER BY d ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)"
    ) == Function(
        "SUM",
        (n("a"),),
        over=WindowSpec(
            partition_by=(n("b"), n("c")),
            order_by=(OrderItem(n("d")),),
            frame="ROWS BETWEEN 1 PRECEDING AND CURRENT ROW",
        ),
    )
    assert parse_expression("row_number() OVER ()") == Function("ROW_NUMBER", over=WindowSpec())
    assert parse_expression("rank() OVER w") == Function("RANK", over=WindowSpec("w"))
    assert parse_expression("rank() OVER (w ORDER BY a)").over == WindowSpec(  # type: ignore[attr-defined]
        "w", order_by=(OrderItem(n("a")),)
    )


@pytest.mark.parametrize(
    ("written", "frame"),
    [
        ("ROWS UNBOUNDED PRECEDING", "ROWS UNBOUNDED PRECEDING"),
        ("range between 1 + 1 preceding and unbounded following",
         "RANGE BETWEEN (1 + 1) PRECEDING AND UNBOUNDED FOLLOWING"),
        ("GROUPS CURRENT ROW EXCLUDE TIES", "GROUPS CURRENT ROW EXCLUDE TIES"),
        ("ROWS 2 FOLLOWING EXCLUDE NO OTHERS", "ROWS 2 FOLLOWING EXCLUDE NO OTHERS"),
        ("ROWS 2 PRECEDING EXCLUDE CURRENT ROW", "ROWS 2 PRECEDING EXCLUDE CURRENT ROW"),
        ("ROWS 2 PRECEDING EXCLUDE GROUP", "ROWS 2 PRECEDING EXCLUDE GROUP"),
    ],
)  # fmt: skip
def test_window_frames_are_canonical_text(written: str, frame: str) -> None:
    spec = parse_expression(f"sum(a) OVER (ORDER BY b {written})").over  # type: ignore[attr-defined]
    assert spec.frame == frame


def test_raise() -> None:
    assert parse_expression("RAISE(IGNORE)") == Raise("IGNORE")
    assert parse_expression("raise(abort, 'no')") == Raise("ABORT, 'no'")


# --------------------------------------------------------------------------- atoms


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("0", 0),
        ("42", 42),
        ("0x1F", 31),
        ("0XFFFFFFFFFFFFFFFF", -1),  # hex literals are 64-bit two's complement
        ("9223372036854775807", 2**63 - 1),
        ("9223372036854775808", 9.223372036854775808e18),  # too big for INTEGER: REAL
        ("-9223372036854775808", -(2**63)),  # ... except as SQLite's smallest integer
        ("-9223372036854775809", -9.223372036854775809e18),
        ("1.5", 1.5),
        (".5", 0.5),
        ("1.", 1.0),
        ("1e10", 1e10),
        ("1.5E-3", 0.0015),
        ("-1", -1),
        ("- 2.5", -2.5),
        ("'it''s'", "it's"),
        ("''", ""),
        ("x'0aFF'", b"\x0a\xff"),
        ("X''", b""),
        ("NULL", None),
        ("TRUE", 1),
        ("false", 0),
    ],
)
def test_literals(text: str, value: object) -> None:
    result = parse_expression(text)
    assert result == Literal(value)  # type: ignore[arg-type]
    assert type(result.value) is type(value)  # type: ignore[attr-defined]


def test_literal_values_agree_with_sqlite() -> None:
    db = sqlite3.connect(":memory:")
    for text in ("0x7FFFFFFFFFFFFFFF", "-9223372036854775808", "9223372036854775808", "1e400"):
        (expected,) = db.execute(f"SELECT {text}").fetchone()
        assert parse_expression(text) == Literal(expected)


def test_current_time_keywords_are_niladic_functions() -> None:
    assert parse_expression("CURRENT_DATE") == Function("CURRENT_DATE")
    assert parse_expression("current_time") == Function("CURRENT_TIME")
    assert parse_expression("Current_Timestamp") == Function("CURRENT_TIMESTAMP")


@pytest.mark.parametrize("text", ["?", "?1", ":name", "@name", "$name"])
def test_parameters(text: str) -> None:
    assert parse_expression(text) == Parameter(text)


def test_names() -> None:
    assert parse_expression("a") == n("a")
    assert parse_expression("t.a") == n("t", "a")
    assert parse_expression("s.t.a") == n("s", "t", "a")
    assert parse_expression("Mixed_Case$1") == n("Mixed_Case$1")
    assert parse_expression("café") == n("café")


def test_quoted_names() -> None:
    assert parse_expression('"x ""y"""') == n('x "y"', dq=True)
    assert parse_expression("`Free Meal Count (K-12)`") == n("Free Meal Count (K-12)")
    assert parse_expression("`a``b`") == n("a`b")
    assert parse_expression("[x y]") == n("x y")
    # Only the last part's quoting matters: SQLite's string fallback is for bare column names.
    assert parse_expression('"t".a') == n("t", "a")
    assert parse_expression('t."a"') == n("t", "a", dq=True)
    assert select('SELECT "a" AS "b" FROM "t"').columns == (ResultColumn(n("a", dq=True), "b"),)
    assert select('SELECT 1 FROM "t"').from_ == TableRef("t")


@pytest.mark.parametrize(
    "word",
    ["date", "time", "year", "type", "name", "count", "position", "rank", "min", "max", "first",
     "last", "replace", "key", "value", "desc", "asc", "end", "match", "like", "left", "right",
     "rows", "range", "partition", "offset", "filter", "over", "window", "current", "row", "do",
     "no", "nulls", "cast", "raise", "with", "recursive", "materialized", "ignore", "temp"],
)  # fmt: skip
def test_non_reserved_keywords_work_as_names(word: str) -> None:
    assert select(f"SELECT t.{word} FROM t").columns == (ResultColumn(n("t", word)),)
    assert select(f"SELECT a AS {word} FROM t").columns == (ResultColumn(n("a"), word),)
    assert select(f"SELECT a FROM t AS {word}").from_ == TableRef("t", word)
    assert select(f"SELECT 1 FROM {word}").from_ == TableRef(word)
    if word not in ("cast", "raise"):  # these two must be followed by `(` at an expression start
        assert select(f"SELECT {word} FROM t WHERE {word} = 1").where == Binary(
            "=", n(word), lit(1)
        )


@pytest.mark.parametrize(
    "word", ["desc", "asc", "end", "nulls", "offset", "partition", "rows", "range", "groups"]
)
def test_keywords_as_bare_aliases(word: str) -> None:
    assert select(f"SELECT a {word} FROM t").columns == (ResultColumn(n("a"), word),)
    assert select(f"SELECT a FROM t {word} WHERE 1").from_ == TableRef("t", word)


def test_like_keywords_as_bare_table_alias() -> None:
    assert select("SELECT 1 FROM t match JOIN u glob ON 1").from_ == Join(
        "INNER", TableRef("t", "match"), TableRef("u", "glob"), on=lit(1)
    )


def test_bird_style_queries() -> None:
    q = parse(
        "SELECT CAST(SUM(CASE WHEN T2.`County Name` = 'Alameda' THEN 1 ELSE 0 END) AS REAL) * 100"
        " / COUNT(T1.id) FROM frpm AS T1 INNER JOIN schools AS T2 ON T1.CDSCode = T2.CDSCode"
        " WHERE strftime('%Y', T1.date) = '2012' AND T2.name = \"Ha\" ORDER BY 1 DESC LIMIT 1"
    )
    s = q.body
    assert isinstance(s, Select)
    assert s.from_ == Join(
        "INNER",
        TableRef("frpm", "T1"),
        TableRef("schools", "T2"),
        on=Binary("=", n("T1", "CDSCode"), n("T2", "CDSCode")),
    )
    assert s.where == Binary(
        "AND",
        Binary("=", Function("STRFTIME", (lit("%Y"), n("T1", "date"))), lit("2012")),
        Binary("=", n("T2", "name"), n("Ha", dq=True)),
    )


# --------------------------------------------------------------------------- positions


def test_positions_are_first_tokens() -> None:
    q = parse("SELECT a,\n  b + 1 AS c\nFROM t\nWHERE NOT x")
    s = q.body
    assert isinstance(s, Select)
    assert q.pos == s.pos == (1, 1)
    assert s.columns[0].pos == (1, 8)
    b_plus_1 = s.columns[1]
    assert isinstance(b_plus_1, ResultColumn)
    assert b_plus_1.expr.pos == (2, 3)
    assert s.from_ is not None and s.from_.pos == (3, 6)
    assert s.where is not None and s.where.pos == (4, 7)
    assert parse("WITH c AS (SELECT 1) SELECT 1").pos == (1, 1)
    assert parse_expression("  CASE WHEN 1 THEN NULL END").pos == (1, 3)


def test_positions_take_no_part_in_equality() -> None:
    assert parse("SELECT a FROM t") == parse("select   a\nfrom t")


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("sql", "message", "pos"),
    [
        ("SELECT FROM t", "syntax error at 'FROM' (expected an expression)", (1, 8)),
        ("SELEC 1", "syntax error at 'SELEC' (expected SELECT, VALUES or WITH)", (1, 1)),
        ("SELECT 'it''s", "unterminated string literal", (1, 8)),
        ('SELECT "a', "unterminated quoted name", (1, 8)),
        ("SELECT 1; SELECT 2", "syntax error at 'SELECT': only one statement is allowed", (1, 11)),
        ("SELECT a FROM t WHERE", "syntax error at end of input (expected an expression)", (1, 22)),
        ("SELECT a\nFROM t\nWHERE x = = 1", "syntax error at '=' (expected an expression)",
         (3, 11)),
        ("SELECT 1abc", "unrecognized token: '1abc'", (1, 8)),
        ("SELECT x'abc'", "unrecognized token: \"x'abc'\"", (1, 8)),
        ("SELECT 0x10000000000000000", "hex literal too big: 0x10000000000000000", (1, 8)),
        ("SELECT #", "syntax error at '#' (unexpected character)", (1, 8)),
        ("SELECT a.null FROM t", "syntax error at 'null' (expected '*' or a name)", (1, 10)),
        ("SELECT 1 FROM order", "syntax error at 'order' (expected '(' or a name)", (1, 15)),
    ],
)  # fmt: skip
def test_syntax_errors(sql: str, message: str, pos: tuple[int, int]) -> None:
    with pytest.raises(ParseError) as info:
        parse(sql)
    assert (info.value.message, info.value.pos) == (message, pos)
    assert str(info.value) == f"{message} (line {pos[0]}, column {pos[1]})"


def test_reserved_words_are_never_names() -> None:
    # The contextual lexer would otherwise read `SELECT a LIKE FROM t` as `a LIKE "FROM" AS t`.
    with pytest.raises(ParseError, match="syntax error at 'FROM'"):
        parse("SELECT a LIKE FROM t")
    with pytest.raises(ParseError):
        parse("SELECT 1 FROM t AS select")


def test_reserved_words_match_sqlite() -> None:
    """RESERVED_WORDS is exactly the keywords SQLite refuses as a bare name everywhere."""
    from spotit.frontend.render import SQLITE_KEYWORDS

    db = sqlite3.connect(":memory:")
    refused = set()
    for word in SQLITE_KEYWORDS - {"TRUE", "FALSE"}:
        tries = (
            f'SELECT x.{word} FROM (SELECT 1 AS "{word}") AS x',
            f"SELECT 1 FROM (SELECT 1) AS {word}",
            f"SELECT 1 AS {word}",
        )
        if all(_fails(db, sql) for sql in tries):
            refused.add(word)
    assert refused | {"NULL"} == RESERVED_WORDS


def _fails(db: sqlite3.Connection, sql: str) -> bool:
    try:
        db.execute(sql)
    except sqlite3.Error:
        return True
    return False


@pytest.mark.parametrize(
    ("sql", "construct"),
    [
        ("SELECT 1 FROM (a JOIN b) AS x", "alias on a parenthesised join"),
        ("SELECT 1 WHERE a IN main.t", "schema-qualified table after IN"),
        ("SELECT 1 WHERE a IN json_each('[1]')", "table-valued function after IN"),
    ],
)
def test_valid_sqlite_the_tree_cannot_hold(sql: str, construct: str) -> None:
    with pytest.raises(Unsupported) as info:
        parse(sql)
    assert info.value.construct == construct
    assert info.value.pos is not None


def test_parse_expression_rejects_statements() -> None:
    with pytest.raises(ParseError):
        parse_expression("SELECT 1")


# --------------------------------------------------------------------------- the grammar


def test_every_rule_has_a_constructor() -> None:
    """Each alias (or non-inlined rule) names a Transformer method, so no raw Tree escapes."""
    from spotit.frontend.parser import _ToAst

    lark = _lark()
    missing = set()
    for rule in lark.rules:
        name = rule.alias or rule.origin.name
        if name.startswith("_"):  # spliced into the parent rule
            continue
        kept = [s for s in rule.expansion if not getattr(s, "filter_out", False)]
        if not rule.alias and rule.options.expand1 and len(kept) == 1:
            continue  # a `?rule` alternative with one child is that child
        if not hasattr(_ToAst, name):
            missing.add(name)
    assert not missing


def test_parser_is_built_once() -> None:
    assert _lark() is _lark()
