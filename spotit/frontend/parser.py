"""SQL text to syntax tree: Lark's LALR parser over ``grammar/sqlite.lark`` with one Transformer.

The grammar accepts essentially every single SELECT statement SQLite accepts, so that a query
outside SpotIt's fragment still parses and the binder can name what it does not support. Every
alias in the grammar is one method of ``_ToAst``, which builds exactly one ``ast`` node; a rule
without a method raises instead of leaking a raw Lark ``Tree`` into later stages.

The Transformer runs inside the parser (Lark's ``transformer=`` option): each method is called as
its rule is reduced, so no parse tree is built and no second pass is needed, which halves the
time per query. For the same reason positions come from tokens, not from Lark's ``meta``
(``propagate_positions`` would cost as much again): a node's position is that of its first token
kept in the tree, which is why the keywords that start a construct (SELECT, CASE, NULL, ...) are
named terminals in the grammar. Exceptions raised by the methods reach the caller unwrapped.

Where SQLite has several spellings for one meaning, the tree keeps one: ``==`` is ``=``, ``<>``
is ``!=``, ``IS [NOT] DISTINCT FROM`` is ``IS [NOT]``, ``x IS NULL``/``ISNULL``/``NOT NULL`` are
``IsNull``, ``LIMIT m, n`` is ``LIMIT n OFFSET m``, a minus sign directly before a number is part
of the literal (``-1``), and TRUE/FALSE are 1/0 -- except after IS, where SQLite makes them a
truth test that the tree has no node for, so ``x IS TRUE`` becomes the CASE it equals.

Example:
    >>> parse("SELECT name FROM t LIMIT 5, 10").limit
    Literal(value=10)
    >>> parse_expression("x NOT BETWEEN 1 AND 2").negated
    True
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken, VisitError

from spotit.errors import ParseError, Unsupported
from spotit.frontend import ast
from spotit.frontend.render import render

__all__ = ["parse", "parse_expression"]

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_DECIMAL = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")
_HEX = re.compile(r"0[xX][0-9A-Fa-f]+\Z")


def parse(sql: str) -> ast.Query:
    """Parse one SELECT statement (an optional trailing ``;`` and comments are fine).

    Raises:
        ParseError: the text is not a single SELECT statement in SQLite's syntax; the message
            names the offending token and what was expected there, ``pos`` is its position.
        Unsupported: valid SQLite that the syntax tree cannot represent (see ``_gap``).
    """
    result = _run(sql, "statement")
    assert isinstance(result, ast.Query)
    return result


def parse_expression(text: str) -> ast.Expr:
    """Parse a lone expression such as ``a + 1 > b`` (mainly for tests and tools)."""
    result = _run(text, "expression")
    assert isinstance(result, ast.Expr)
    return result


@functools.cache
def _lark() -> Lark:
    """The parser, built on first use. Analysing the grammar takes about a second, so Lark also
    keeps the result on disk (``cache=True``, keyed by a hash of the grammar and options)."""
    return Lark.open(
        "grammar/sqlite.lark",
        rel_to=__file__,
        parser="lalr",
        strict=True,
        maybe_placeholders=False,
        start=["statement", "expression"],
        transformer=_ToAst(),
        lexer_callbacks={"NAME": _reserved_word},
        cache=True,
    )


# Words SQLite never accepts as a bare name (they are not in its %fallback ID list); checked
# against SQLite itself by the tests. NULL is one too, though it is also a literal.
RESERVED_WORDS = frozenset(
    """
    ADD ALL ALTER AND AS AUTOINCREMENT BETWEEN CASE CHECK COLLATE COMMIT CONSTRAINT CREATE
    DEFAULT DEFERRABLE DELETE DISTINCT DROP ELSE ESCAPE EXCEPT EXISTS FOREIGN FROM GROUP HAVING
    IN INDEX INSERT INTERSECT INTO IS ISNULL JOIN LIMIT NOT NOTHING NOTNULL NULL ON OR ORDER
    PRIMARY REFERENCES RETURNING SELECT SET TABLE THEN TO TRANSACTION UNION UNIQUE UPDATE USING
    VALUES WHEN WHERE
    """.split()  # noqa: SIM905 - a word list reads better than 58 quoted strings
)


def _reserved_word(token: Token) -> Token:
    """Keep a reserved word a keyword even where the grammar cannot accept it.

    The contextual lexer reads a word as a keyword only where the parser can take that keyword,
    and as a name elsewhere, which is right for SQLite's many non-reserved words (``date``,
    ``first``, ``match``) but would read ``SELECT FROM t`` as selecting a column named FROM.
    Turning such a word back into its keyword makes the parser reject it the way SQLite does,
    with an error that says what was expected instead.
    """
    word = token.upper()
    return token.update(type=word) if word in RESERVED_WORDS else token


def _run(text: str, start: str) -> Any:
    parser = _lark()
    try:
        return parser.parse(text, start=start)
    except UnexpectedInput as exc:
        raise _syntax_error(text, exc, parser) from None
    except VisitError as exc:  # only a tree-walking Transformer wraps errors; never hide them
        raise exc.orig_exc from None


# --------------------------------------------------------------------------- syntax errors

# Shown instead of the names of regexp terminals when reporting what was expected.
_TERMINAL_DESCRIPTIONS = {
    "NAME": "a name",
    "DQ_NAME": "a name",
    "BQ_NAME": "a name",
    "BR_NAME": "a name",
    "STRING": "a string",
    "NUMBER": "a number",
    "BLOB": "a blob",
    "PARAMETER": "a parameter",
    "$END": "end of input",
}
_UNTERMINATED = {
    "'": "unterminated string literal",
    '"': "unterminated quoted name",
    "`": "unterminated quoted name",
    "[": "unterminated quoted name",
}


def _syntax_error(text: str, exc: UnexpectedInput, parser: Lark) -> ParseError:
    """One line naming the offending token and what the grammar expected there."""
    if isinstance(exc, UnexpectedCharacters):
        pos = (exc.line, exc.column)
        char = text[exc.pos_in_stream or 0]
        if char in _UNTERMINATED:
            return ParseError(_UNTERMINATED[char], pos=pos)
        return ParseError(f"syntax error at {char!r} (unexpected character)", pos=pos)
    if not isinstance(exc, UnexpectedToken):  # pragma: no cover - LALR raises only these two
        return ParseError(f"syntax error: {exc}")
    token = exc.token
    expected = set(exc.expected)
    if token.type == "$END":
        lines = text.split("\n")
        return ParseError(
            f"syntax error at end of input (expected {_describe(expected, parser)})",
            pos=(len(lines), len(lines[-1]) + 1),
        )
    pos = (token.line, token.column)
    if expected <= {"SEMICOLON", "$END"}:  # only reachable after a complete statement and `;`
        return ParseError(f"syntax error at {str(token)!r}: only one statement is allowed", pos=pos)
    return ParseError(
        f"syntax error at {str(token)!r} (expected {_describe(expected, parser)})", pos=pos
    )


def _describe(expected: set[str], parser: Lark) -> str:
    """What the grammar expected, in words: 'an expression', or a short list of tokens."""
    if "NUMBER" in expected:  # a number is only ever expected where an expression may start
        return "an expression"
    words: list[str] = []
    for name in sorted(expected, key=lambda n: (n in _TERMINAL_DESCRIPTIONS, n)):
        if name in _TERMINAL_DESCRIPTIONS:
            word = _TERMINAL_DESCRIPTIONS[name]
        else:
            value = parser.get_terminal(name).pattern.value
            word = value.upper() if value.replace("_", "").isalpha() else repr(value)
        if word not in words:
            words.append(word)
    if len(words) > 6:
        words = [*words[:5], "..."]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


# --------------------------------------------------------------------------- building the tree


@dataclass(frozen=True, slots=True)
class _Ident:
    """A name as written: its text (quotes removed), whether it was in double quotes, where."""

    text: str
    double_quoted: bool
    pos: ast.Pos


@dataclass(frozen=True, slots=True)
class _Part:
    """An optional piece of a larger construct (a clause, a modifier), tagged by kind."""

    kind: str
    value: Any = None
    pos: ast.Pos = None


def _at(*items: Any) -> ast.Pos:
    """The position of the first item that has one: a token, a node or an identifier."""
    for item in items:
        if isinstance(item, Token):
            return (item.line, item.column)  # type: ignore[return-value]
        pos = getattr(item, "pos", None)
        if pos is not None:
            return pos
    return None


def _gap(construct: str, *items: Any) -> Unsupported:
    """Valid SQLite that ``ast`` has no node for; the message names the construct."""
    return Unsupported(construct, pos=_at(*items))


def _parts(items: tuple[Any, ...]) -> dict[str, Any]:
    return {p.kind: p.value for p in items if isinstance(p, _Part)}


def _number(token: Token, negate: bool = False) -> int | float:
    """The value SQLite gives a numeric literal (optionally with a minus sign before it).

    Decimal integers beyond 64 bits become REAL, except that ``-9223372036854775808`` is the
    smallest integer; hex literals are 64-bit two's complement and may not overflow.
    """
    text = str(token)
    if _HEX.match(text):
        value = int(text, 16)
        if value > 2**64 - 1 or (negate and value == 2**63):
            sign = "-" if negate else ""
            raise ParseError(f"hex literal too big: {sign}{text}", pos=_at(token))
        if value > _INT64_MAX:
            value -= 2**64
        return -value if negate else value
    if not _DECIMAL.match(text):
        raise ParseError(f"unrecognized token: {text!r}", pos=_at(token))
    if text.isdigit():
        value = -int(text) if negate else int(text)
        if _INT64_MIN <= value <= _INT64_MAX:
            return value
    real = float(text)
    return -real if negate else real


def _unquote(text: str) -> str:
    quote = text[0]
    return text[1:-1].replace(quote * 2, quote)


def _name_text(item: _Ident | Token) -> str:
    """An alias or collation may be a name or a string literal (SQLite accepts both)."""
    return item.text if isinstance(item, _Ident) else _unquote(str(item))


_BINARY_OPS = {"==": "=", "<>": "!="}


@v_args(inline=True)
class _ToAst(Transformer[Token, Any]):
    """One method per grammar alias; each returns an ``ast`` node or a piece of one."""

    def __default__(self, data: Any, children: Any, meta: Any) -> Any:
        if data.startswith("_"):
            # Lark's helper rules for repetitions (``("," x)*``): the parser splices the
            # children of this Tree into the enclosing rule, so it never reaches the caller.
            return Tree(data, children)
        # Any other rule without a method here is a bug: never let a raw Tree through.
        raise Unsupported(f"grammar rule {data!r}", pos=_at(*children))

    # ----------------------------------------------------------------------- statements

    def statement(self, query: ast.Query, *semicolons: Token) -> ast.Query:
        return query

    def expression(self, expr: ast.Expr) -> ast.Expr:
        return expr

    def query(self, *items: Any) -> ast.Query:
        parts = _parts(items)
        body = next(i for i in items if isinstance(i, ast.Select | ast.Values | ast.Compound))
        recursive, ctes = parts.get("with", (False, ()))
        limit, offset = parts.get("limit", (None, None))
        return ast.Query(
            body,
            with_=ctes,
            recursive=recursive,
            order_by=parts.get("order_by", ()),
            limit=limit,
            offset=offset,
            pos=_at(*items),
        )

    def with_clause(self, with_: Token, *items: Any) -> _Part:
        recursive = isinstance(items[0], Token)
        ctes = tuple(i for i in items if isinstance(i, ast.CommonTable))
        return _Part("with", (recursive, ctes), _at(with_))

    def common_table(self, name: _Ident, *items: Any) -> ast.CommonTable:
        columns = next((i for i in items if isinstance(i, tuple)), None)
        materialized = next((i for i in items if isinstance(i, bool)), None)
        return ast.CommonTable(
            name.text, items[-1], columns=columns, materialized=materialized, pos=name.pos
        )

    def column_names(self, *names: _Ident) -> tuple[str, ...]:
        return tuple(n.text for n in names)

    def materialized(self) -> bool:
        return True

    def not_materialized(self) -> bool:
        return False

    def compound(self, left: Any, op: str, right: Any) -> ast.Compound:
        return ast.Compound(op, left, right, pos=_at(left))

    def union(self) -> str:
        return "UNION"

    def union_all(self) -> str:
        return "UNION ALL"

    def intersect(self) -> str:
        return "INTERSECT"

    def except_(self) -> str:
        return "EXCEPT"

    def select_core(self, select: Token, *items: Any) -> ast.Select:
        parts = _parts(items)
        columns = tuple(i for i in items if isinstance(i, ast.ResultColumn | ast.StarColumn))
        distinct = isinstance(items[0], Token) and items[0].type == "DISTINCT"
        return ast.Select(
            columns,
            from_=parts.get("from"),
            where=parts.get("where"),
            group_by=parts.get("group_by", ()),
            having=parts.get("having"),
            distinct=distinct,
            windows=parts.get("window", ()),
            pos=_at(select),
        )

    def values(self, values: Token, *rows: tuple[ast.Expr, ...]) -> ast.Values:
        return ast.Values(rows, pos=_at(values))

    def value_row(self, exprs: tuple[ast.Expr, ...]) -> tuple[ast.Expr, ...]:
        return exprs

    def star_column(self, star: Token) -> ast.StarColumn:
        return ast.StarColumn(pos=_at(star))

    def table_star(self, table: _Ident) -> ast.StarColumn:
        return ast.StarColumn(table.text, pos=table.pos)

    def expr_column(self, expr: ast.Expr, alias: str | None = None) -> ast.ResultColumn:
        return ast.ResultColumn(expr, alias, pos=expr.pos)

    def alias(self, name: _Ident | Token) -> str:
        if isinstance(name, Token) and name.type != "STRING":
            return str(name)  # a non-reserved keyword used as a bare alias
        return _name_text(name)

    def table_alias(self, alias: str | Token) -> str:
        return str(alias)

    def from_clause(self, source: ast.FromItem) -> _Part:
        return _Part("from", source)

    def where_clause(self, expr: ast.Expr) -> _Part:
        return _Part("where", expr)

    def group_by(self, exprs: tuple[ast.Expr, ...]) -> _Part:
        return _Part("group_by", exprs)

    def having(self, expr: ast.Expr) -> _Part:
        return _Part("having", expr)

    def window_clause(self, *defs: tuple[str, ast.WindowSpec]) -> _Part:
        return _Part("window", defs)

    def window_def(self, name: _Ident, spec: ast.WindowSpec) -> tuple[str, ast.WindowSpec]:
        return (name.text, spec)

    def order_by(self, *items: ast.OrderItem) -> _Part:
        return _Part("order_by", items)

    def ordering_term(self, expr: ast.Expr, *modifiers: _Part) -> ast.OrderItem:
        parts = _parts(modifiers)
        descending = parts.get("descending", False)
        return ast.OrderItem(expr, descending, parts.get("nulls"), pos=expr.pos)

    def asc(self) -> _Part:
        return _Part("descending", False)

    def desc(self) -> _Part:
        return _Part("descending", True)

    def nulls_first(self) -> _Part:
        return _Part("nulls", "FIRST")

    def nulls_last(self) -> _Part:
        return _Part("nulls", "LAST")

    def limit(self, limit: ast.Expr) -> _Part:
        return _Part("limit", (limit, None))

    def limit_offset(self, limit: ast.Expr, offset: ast.Expr) -> _Part:
        return _Part("limit", (limit, offset))

    def limit_comma(self, offset: ast.Expr, limit: ast.Expr) -> _Part:
        # SQLite's `LIMIT m, n` skips m rows and returns n: the offset comes first.
        return _Part("limit", (limit, offset))

    # ----------------------------------------------------------------------- FROM

    def comma_join(self, left: Any, right: Any, *constraint: _Part) -> ast.Join:
        return self._join("COMMA", False, left, right, constraint)

    def join(self, left: Any, op: tuple[str, bool], right: Any, *constraint: _Part) -> ast.Join:
        kind, natural = op
        return self._join(kind, natural, left, right, constraint)

    @staticmethod
    def _join(kind: str, natural: bool, left: Any, right: Any, constraint: Any) -> ast.Join:
        parts = _parts(constraint)
        return ast.Join(
            kind,
            left,
            right,
            on=parts.get("on"),
            using=parts.get("using"),
            natural=natural,
            pos=_at(left),
        )

    def join_operator(self, *items: Any) -> tuple[str, bool]:
        natural = bool(items) and isinstance(items[0], Token)  # the NATURAL keyword
        kind = items[-1] if items and not isinstance(items[-1], Token) else "INNER"
        return kind, natural

    def inner(self) -> str:
        return "INNER"

    def left(self) -> str:
        return "LEFT"

    def right(self) -> str:
        return "RIGHT"

    def full(self) -> str:
        return "FULL"

    def cross(self) -> str:
        return "CROSS"

    def on(self, expr: ast.Expr) -> _Part:
        return _Part("on", expr)

    def using(self, *names: _Ident) -> _Part:
        return _Part("using", tuple(n.text for n in names))

    def table_ref(self, *items: Any) -> ast.TableRef:
        names = [i for i in items if isinstance(i, _Ident)]
        alias = next((i for i in items if isinstance(i, str)), None)
        schema = names[0].text if len(names) == 2 else None
        return ast.TableRef(names[-1].text, alias, schema, pos=names[0].pos)

    def index_hint(self, *items: Any) -> _Part:
        return _Part("index_hint")  # INDEXED BY / NOT INDEXED never change a result

    def table_function(self, name: _Ident, *items: Any) -> ast.TableFunctionRef:
        args = next((i for i in items if isinstance(i, tuple)), ())
        alias = next((i for i in items if isinstance(i, str)), None)
        return ast.TableFunctionRef(name.text, args, alias, pos=name.pos)

    def subquery_ref(self, query: ast.Query, alias: str | None = None) -> ast.SubqueryRef:
        return ast.SubqueryRef(query, alias, pos=query.pos)

    def parenthesised_join(self, source: ast.FromItem, alias: str | None = None) -> ast.FromItem:
        if alias is not None:
            raise _gap("alias on a parenthesised join", source)
        return source

    # ----------------------------------------------------------------------- operators

    def or_(self, left: ast.Expr, right: ast.Expr) -> ast.Binary:
        return ast.Binary("OR", left, right, pos=left.pos)

    def and_(self, left: ast.Expr, right: ast.Expr) -> ast.Binary:
        return ast.Binary("AND", left, right, pos=left.pos)

    def not_(self, not_: Token, operand: ast.Expr) -> ast.Unary:
        return ast.Unary("NOT", operand, pos=_at(not_))

    def binop(self, left: ast.Expr, op: Token, right: ast.Expr) -> ast.Binary:
        return ast.Binary(_BINARY_OPS.get(str(op), str(op)), left, right, pos=left.pos)

    def unary(self, op: Token, operand: ast.Expr) -> ast.Unary:
        return ast.Unary(str(op), operand, pos=_at(op))

    def negative_number(self, minus: Token, number: Token) -> ast.Literal:
        return ast.Literal(_number(number, negate=True), pos=_at(minus))

    def is_(self, left: ast.Expr, right: ast.Expr) -> ast.Expr:
        if right == ast.Literal(None):
            return ast.IsNull(left, pos=left.pos)
        return ast.Binary("IS", left, right, pos=left.pos)

    def is_not(self, left: ast.Expr, right: ast.Expr) -> ast.Expr:
        if right == ast.Literal(None):
            return ast.IsNull(left, negated=True, pos=left.pos)
        return ast.Binary("IS NOT", left, right, pos=left.pos)

    def is_distinct(self, left: ast.Expr, right: ast.Expr) -> ast.Expr:
        return self.is_not(left, right)  # IS DISTINCT FROM is IS NOT

    def is_not_distinct(self, left: ast.Expr, right: ast.Expr) -> ast.Expr:
        return self.is_(left, right)  # IS NOT DISTINCT FROM is IS

    def is_truth(self, operand: ast.Expr, value: Token) -> ast.Case:
        return self._truth(operand, value, negated=False)

    def is_not_truth(self, operand: ast.Expr, value: Token) -> ast.Case:
        return self._truth(operand, value, negated=True)

    @staticmethod
    def _truth(operand: ast.Expr, value: Token, negated: bool) -> ast.Case:
        """``x IS [NOT] TRUE|FALSE`` tests x as a boolean, which ``ast`` has no node for.

        It is exactly ``CASE WHEN x THEN 1 ELSE 0 END`` (``NOT x`` for FALSE, 0 and 1
        swapped for IS NOT): NULL is neither true nor false, and SQLite evaluates a CASE
        condition, NOT and IS TRUE with the same boolean conversion.
        """
        pos = operand.pos
        condition = operand if value.type == "TRUE" else ast.Unary("NOT", operand, pos=pos)
        hit, miss = (
            (ast.Literal(0), ast.Literal(1)) if negated else (ast.Literal(1), ast.Literal(0))
        )
        return ast.Case(None, ((condition, hit),), miss, pos=pos)

    def like(
        self,
        operand: ast.Expr,
        op: tuple[str, bool],
        pattern: ast.Expr,
        escape: ast.Expr | None = None,
    ) -> ast.Like:
        name, negated = op
        return ast.Like(name, operand, pattern, escape, negated, pos=operand.pos)

    def like_op(self, *tokens: Token) -> tuple[str, bool]:
        return tokens[-1].type, len(tokens) == 2  # the terminal names the keyword: LIKE, GLOB...

    def between_op(self, *not_: Token) -> bool:
        return bool(not_)

    def in_op(self, *not_: Token) -> bool:
        return bool(not_)

    def between(
        self, operand: ast.Expr, negated: bool, low: ast.Expr, high: ast.Expr
    ) -> ast.Between:
        return ast.Between(operand, low, high, negated, pos=operand.pos)

    def in_list(
        self, operand: ast.Expr, negated: bool, items: tuple[ast.Expr, ...] = ()
    ) -> ast.InList:
        return ast.InList(operand, items, negated, pos=operand.pos)

    def in_query(self, operand: ast.Expr, negated: bool, query: ast.Query) -> ast.InQuery:
        return ast.InQuery(operand, query, negated, pos=operand.pos)

    def in_table(self, operand: ast.Expr, negated: bool, *names: _Ident) -> ast.InTable:
        if len(names) > 1:
            raise _gap("schema-qualified table after IN", names[0])
        return ast.InTable(operand, names[0].text, negated, pos=operand.pos)

    def in_table_function(self, operand: ast.Expr, negated: bool, *items: Any) -> ast.Expr:
        raise _gap("table-valued function after IN", *items)

    def isnull(self, operand: ast.Expr) -> ast.IsNull:
        return ast.IsNull(operand, pos=operand.pos)

    def notnull(self, operand: ast.Expr) -> ast.IsNull:
        return ast.IsNull(operand, negated=True, pos=operand.pos)

    def collate(self, operand: ast.Expr, collation: _Ident | Token) -> ast.Collate:
        return ast.Collate(operand, _name_text(collation), pos=operand.pos)

    # ----------------------------------------------------------------------- atoms

    def number(self, token: Token) -> ast.Literal:
        return ast.Literal(_number(token), pos=_at(token))

    def string(self, token: Token) -> ast.Literal:
        return ast.Literal(_unquote(str(token)), pos=_at(token))

    def blob(self, token: Token) -> ast.Literal:
        digits = str(token)[2:-1]
        if len(digits) % 2 or not re.fullmatch(r"[0-9A-Fa-f]*", digits):
            raise ParseError(f"unrecognized token: {str(token)!r}", pos=_at(token))
        return ast.Literal(bytes.fromhex(digits), pos=_at(token))

    def null(self, token: Token) -> ast.Literal:
        return ast.Literal(None, pos=_at(token))

    def true(self, token: Token) -> ast.Literal:
        return ast.Literal(1, pos=_at(token))

    def false(self, token: Token) -> ast.Literal:
        return ast.Literal(0, pos=_at(token))

    def current_date(self, token: Token) -> ast.Function:
        return ast.Function("CURRENT_DATE", pos=_at(token))

    def current_time(self, token: Token) -> ast.Function:
        return ast.Function("CURRENT_TIME", pos=_at(token))

    def current_timestamp(self, token: Token) -> ast.Function:
        return ast.Function("CURRENT_TIMESTAMP", pos=_at(token))

    def parameter(self, token: Token) -> ast.Parameter:
        return ast.Parameter(str(token), pos=_at(token))

    def column(self, *names: _Ident) -> ast.Name:
        parts = tuple(n.text for n in names)
        return ast.Name(parts, names[-1].double_quoted, pos=names[0].pos)

    def row(self, *items: ast.Expr) -> ast.Row:
        return ast.Row(items, pos=items[0].pos)

    def subquery(self, query: ast.Query) -> ast.Subquery:
        return ast.Subquery(query, pos=query.pos)

    def exists(self, exists: Token, query: ast.Query) -> ast.Exists:
        return ast.Exists(query, pos=_at(exists))

    def case(self, case: Token, *items: Any) -> ast.Case:
        operand = items[0] if isinstance(items[0], ast.Expr) else None
        whens = tuple(i for i in items if isinstance(i, tuple))
        return ast.Case(operand, whens, _parts(items).get("else"), pos=_at(case))

    def when(self, condition: ast.Expr, result: ast.Expr) -> tuple[ast.Expr, ast.Expr]:
        return (condition, result)

    def else_(self, result: ast.Expr) -> _Part:
        return _Part("else", result)

    def cast(self, cast: Token, operand: ast.Expr, type_name: str) -> ast.Cast:
        return ast.Cast(operand, type_name, pos=_at(cast))

    def type_name(self, *items: _Ident | str) -> str:
        words = " ".join(i.text for i in items if isinstance(i, _Ident))
        sizes = [i for i in items if isinstance(i, str)]
        return f"{words}({', '.join(sizes)})" if sizes else words

    def signed_number(self, *tokens: Token) -> str:
        return "".join(map(str, tokens))

    def function(self, name: _Ident, *items: Any) -> ast.Function:
        parts = _parts(items)
        distinct, args = parts.get("args", (False, ()))
        return ast.Function(
            name.text.upper(),
            args,
            distinct=distinct,
            star="star" in parts,
            filter=parts.get("filter"),
            over=next((i for i in items if isinstance(i, ast.WindowSpec)), None),
            pos=name.pos,
        )

    def star_arg(self, star: Token) -> _Part:
        return _Part("star")

    def arg_list(self, *items: Any) -> _Part:
        distinct = isinstance(items[0], Token) and items[0].type == "DISTINCT"
        return _Part("args", (distinct, items[-1]))

    def filter(self, condition: ast.Expr) -> _Part:
        return _Part("filter", condition)

    def over_spec(self, spec: ast.WindowSpec) -> ast.WindowSpec:
        return spec

    def over_name(self, name: _Ident) -> ast.WindowSpec:
        return ast.WindowSpec(name.text, pos=name.pos)

    def window_spec(self, *items: Any) -> ast.WindowSpec:
        parts = _parts(items)
        base = next((i.text for i in items if isinstance(i, _Ident)), None)
        return ast.WindowSpec(
            base,
            partition_by=parts.get("partition_by", ()),
            order_by=parts.get("order_by", ()),
            frame=parts.get("frame"),
            pos=_at(*items),
        )

    def partition_by(self, exprs: tuple[ast.Expr, ...]) -> _Part:
        return _Part("partition_by", exprs, _at(*exprs))

    # ``WindowSpec.frame`` is a string: the frame is kept as canonical SQL text.

    def frame(self, *words: str) -> _Part:
        return _Part("frame", " ".join(words))

    def rows(self) -> str:
        return "ROWS"

    def range(self) -> str:
        return "RANGE"

    def groups(self) -> str:
        return "GROUPS"

    def frame_start(self, bound: str) -> str:
        return bound

    def frame_between(self, start: str, end: str) -> str:
        return f"BETWEEN {start} AND {end}"

    def unbounded_preceding(self) -> str:
        return "UNBOUNDED PRECEDING"

    def preceding(self, offset: ast.Expr) -> str:
        return f"{render(offset)} PRECEDING"

    def current_row(self) -> str:
        return "CURRENT ROW"

    def following(self, offset: ast.Expr) -> str:
        return f"{render(offset)} FOLLOWING"

    def unbounded_following(self) -> str:
        return "UNBOUNDED FOLLOWING"

    def exclude_no_others(self) -> str:
        return "EXCLUDE NO OTHERS"

    def exclude_current_row(self) -> str:
        return "EXCLUDE CURRENT ROW"

    def exclude_group(self) -> str:
        return "EXCLUDE GROUP"

    def exclude_ties(self) -> str:
        return "EXCLUDE TIES"

    def raise_ignore(self, raise_: Token) -> ast.Raise:
        return ast.Raise("IGNORE", pos=_at(raise_))

    def raise_error(self, raise_: Token, action: str, message: ast.Expr) -> ast.Raise:
        return ast.Raise(f"{action}, {render(message)}", pos=_at(raise_))

    def rollback(self) -> str:
        return "ROLLBACK"

    def abort(self) -> str:
        return "ABORT"

    def fail(self) -> str:
        return "FAIL"

    def expr_list(self, *exprs: ast.Expr) -> tuple[ast.Expr, ...]:
        return exprs

    # ----------------------------------------------------------------------- names

    def bare_name(self, token: Token) -> _Ident:
        return _Ident(str(token), False, _at(token))

    def double_quoted_name(self, token: Token) -> _Ident:
        return _Ident(_unquote(str(token)), True, _at(token))

    def backquoted_name(self, token: Token) -> _Ident:
        return _Ident(_unquote(str(token)), False, _at(token))

    def bracketed_name(self, token: Token) -> _Ident:
        return _Ident(str(token)[1:-1], False, _at(token))
