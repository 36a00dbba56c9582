"""SQL of other dialects as SQLite SQL with the same meaning, or ``unsupported``.

SpotIt decides everything by SQLite's semantics, so a query written for another
engine (Calcite's ANSI SQL, Postgres, MySQL) is first transpiled with sqlglot.
sqlglot aims at *running* the query elsewhere, not at keeping its meaning on
every database; so every rule here is either a rewrite that keeps the meaning
exactly, or a refusal (``Unsupported`` naming the construct) where SQLite's
meaning would differ. This is the only module where dialect differences live;
docs/dialects.md is the table of its rules and says why each one holds.

Types matter for some rules (``CAST(x AS INTEGER)`` is the identity on
integers but rounds reals in Postgres): given the schema, the query's types are
inferred with sqlglot; an expression whose type is not known counts as one
that could differ, so without a schema such constructs are refused.

Example:
    >>> to_sqlite("SELECT $f1 FROM t ORDER BY $f1 NULLS LAST FETCH FIRST 2 ROWS ONLY",
    ...           "generic")
    'SELECT `$f1` FROM t ORDER BY `$f1` NULLS LAST LIMIT 2'
"""

from __future__ import annotations

import itertools
import re
import sqlite3
from collections.abc import Callable, Iterator
from typing import ClassVar

import sqlglot
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.dialects.sqlite import SQLite
from sqlglot.errors import ErrorLevel, SqlglotError, UnsupportedError
from sqlglot.parser import IsPredicatePrecedence
from sqlglot.tokens import TokenType

from spotit.errors import ParseError, SpotItError, Unsupported
from spotit.ir.render import INFIX_CALLS
from spotit.schema import Schema

SQLITE = "sqlite"
GENERIC = ("generic", "ansi")  # sqlglot's generic dialect (Calcite's ANSI SQL)
# only dialects whose differences from SQLite have been gone through (docs/dialects.md):
# for any other, sqlglot's transpilation alone could change a query's meaning unnoticed
VETTED = ("postgres", "mysql")
_SAFE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class _SQLiteBackticks(SQLite):
    """SQLite, quoting identifiers with backticks: a backticked name that does not
    resolve is an error, never the string literal a double-quoted one falls back to."""

    class Tokenizer(SQLite.Tokenizer):
        IDENTIFIERS: ClassVar[list] = ["`", '"', ("[", "]")]


class _Ansi(Dialect):
    """sqlglot's generic dialect, except that ``IS [NOT] TRUE|FALSE|NULL`` binds looser
    than comparisons, as the standard's boolean test does (and Calcite, Postgres,
    MySQL, SQLite): ``a = NULL IS TRUE`` is ``(a = NULL) IS TRUE``, which the generic
    parser would read as ``a = (NULL IS TRUE)`` -- true when a is 0."""

    class Parser(Dialect.parser_class):
        IS_PREDICATE_PRECEDENCE = IsPredicatePrecedence.LOW


def dialect_names() -> list[str]:
    """Every name ``--dialect`` accepts."""
    return [SQLITE, *GENERIC, *VETTED]


def to_sqlite(sql: str, dialect: str = SQLITE, *, schema: Schema | None = None,
              ordered: bool = True) -> str:
    """``sql`` written in ``dialect``, as SQLite SQL with the same result on every database.

    ``ordered``: whether the order of the outermost result counts (list semantics).
    Raises ``Unsupported`` naming the construct whose meaning SQLite would change,
    ``ParseError`` when the text is not SQL of that dialect.
    """
    name = dialect.strip().lower()
    if name == SQLITE:
        return sql
    if name not in dialect_names():
        raise SpotItError(f"unknown or unvetted dialect {dialect!r}; one of: "
                          f"{', '.join(dialect_names())}")
    read = "" if name in GENERIC else name
    tree = _parse(sql, read or _Ansi, name)
    if not read:  # the standard's exact / exact is exact: Calcite truncates, like SQLite
        for node in tree.find_all(exp.Div):
            node.set("typed", True)
    typed = _annotated(tree, schema)
    for refuse in _REFUSALS:
        refuse(_Query(tree, typed, read, name, ordered, sql))
    for rewrite in _REWRITES:
        rewrite(tree, read)
    _quote_names(tree)
    try:
        out = tree.sql(dialect=_SQLiteBackticks, unsupported_level=ErrorLevel.RAISE)
    except UnsupportedError as e:
        raise Unsupported(f"{name} construct SQLite cannot express: "
                          f"{str(e).splitlines()[0]}") from None
    _same_meaning(out, name)
    if schema is not None:
        _known_functions(out, schema)
    return out


def _differs_in(name: str) -> tuple[str, ...]:
    """The dialects whose function ``name`` means otherwise than SQLite's (``"*"``: every
    one): the ``differs_in`` of its registration, the one place this is said."""
    import spotit.encodings  # noqa: F401  (every registration has run)
    from spotit.encodings.registry import FUNCTIONS

    spec = FUNCTIONS.get(name)
    return () if spec is None else spec.differs_in


def _same_meaning(sqlite_sql: str, dialect: str) -> None:
    """A function call the source dialect means otherwise than SQLite is unsupported."""
    try:
        tokens = SQLite().tokenize(sqlite_sql)
    except SqlglotError:
        return
    for tok, after in itertools.pairwise(tokens):
        if tok.text in INFIX_CALLS:  # an operator registered as a function (x -> p)
            name = tok.text
        elif after.token_type is TokenType.L_PAREN:
            name = tok.text.upper()
        else:
            continue
        where = _differs_in(name)
        if "*" in where or dialect in where:
            raise Unsupported(f"{'operator' if name in INFIX_CALLS else 'function'} {name} "
                              f"in {dialect} SQL (its meaning there is "
                              "not SQLite's)")


# ---------------------------------------------------------------------- parsing, types


class _Query:
    """One query as parsed (``tree``, rewritten in place) and typed (a typed copy)."""

    def __init__(self, tree: exp.Expression, typed: exp.Expression | None, read: str,
                 name: str, ordered: bool, text: str):
        self.tree, self.typed, self.read, self.name = tree, typed, read, name
        self.ordered, self.text = ordered, text

    def typed_nodes(self, kind: type) -> Iterator[exp.Expression]:
        """Nodes of ``kind`` in the typed copy (the parsed tree when typing failed)."""
        yield from (self.typed if self.typed is not None else self.tree).find_all(kind)


def _parse(sql: str, read: str | type[Dialect], name: str) -> exp.Expression:
    try:
        trees = sqlglot.parse(sql, read=read)
    except SqlglotError as e:
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise ParseError(f"not {name} SQL that sqlglot can read: {first}") from None
    trees = [t for t in trees if t is not None]
    if len(trees) != 1:
        raise ParseError(f"expected one {name} statement, got {len(trees)}")
    return trees[0]


def _annotated(tree: exp.Expression, schema: Schema | None) -> exp.Expression | None:
    """A copy of ``tree`` with sqlglot's types (columns typed from ``schema``)."""
    from sqlglot.optimizer.annotate_types import annotate_types
    from sqlglot.optimizer.qualify import qualify

    mapping = {} if schema is None else {
        t.name: {c.name: c.declared_type or "UNKNOWN" for c in t.columns} for t in schema.tables}
    try:
        copy = tree.copy()
        if mapping:
            copy = qualify(copy, schema=mapping, quote_identifiers=False)
        return annotate_types(copy, schema=mapping or None)
    except (SqlglotError, KeyError, ValueError, TypeError, AttributeError):
        return None  # every type unknown: type-dependent constructs are refused


_INT = {exp.DataType.Type.INT, exp.DataType.Type.BIGINT, exp.DataType.Type.SMALLINT,
        exp.DataType.Type.TINYINT}
_REAL = {exp.DataType.Type.DOUBLE, exp.DataType.Type.FLOAT}
_TEXT = {exp.DataType.Type.VARCHAR, exp.DataType.Type.TEXT, exp.DataType.Type.CHAR,
         exp.DataType.Type.NCHAR, exp.DataType.Type.NVARCHAR}


def _family(node: exp.Expression) -> str:
    """int / real / text / date / bool / null, or unknown."""
    if isinstance(node, exp.Null):
        return "null"
    t = node.type
    if t is None:
        return "unknown"
    kind = t.this
    if kind in _INT:
        return "int"
    if kind in _REAL:
        return "real"
    if kind in _TEXT:
        return "text"
    if kind is exp.DataType.Type.DATE:
        return "date"
    if kind is exp.DataType.Type.BOOLEAN:
        return "bool"
    if kind is exp.DataType.Type.NULL:
        return "null"
    return "unknown"


# ---------------------------------------------------------------------- refusals


def _grouping(q: _Query) -> None:
    """ROLLUP / CUBE / GROUPING SETS: SQLite has no multi-level grouping."""
    for kind, what in ((exp.Rollup, "GROUP BY ROLLUP"), (exp.Cube, "GROUP BY CUBE"),
                       (exp.GroupingSets, "GROUP BY GROUPING SETS")):
        if next(q.tree.find_all(kind), None) is not None:
            raise Unsupported(f"{what} (SQLite has no multi-level grouping)")


def _lateral(q: _Query) -> None:
    if next(q.tree.find_all(exp.Lateral), None) is not None:
        raise Unsupported("LATERAL (SQLite has no lateral joins)")


def _bag_set_operations(q: _Query) -> None:
    """EXCEPT ALL / INTERSECT ALL keep multiplicities; SQLite's EXCEPT/INTERSECT do not."""
    for kind, what in ((exp.Except, "EXCEPT ALL"), (exp.Intersect, "INTERSECT ALL")):
        if any(node.args.get("distinct") is False for node in q.tree.find_all(kind)):
            raise Unsupported(f"{what} (SQLite only has the duplicate-removing form)")


def _division(q: _Query) -> None:
    """MySQL's ``/`` is decimal division rounded to div_precision_increment (4) digits:
    ``1 / 3`` is 0.3333, not SQLite's 0 (integers) or 0.333... (reals)."""
    if q.read == "mysql" and next(q.tree.find_all(exp.Div), None) is not None:
        raise Unsupported("MySQL division / (decimal, rounded to 4 digits)")


def _avg(q: _Query) -> None:
    """AVG of integers: Calcite's is an INTEGER (truncated), Postgres's an exact
    NUMERIC, MySQL's a DECIMAL with 4 more digits; SQLite's a REAL."""
    for node in q.typed_nodes(exp.Avg):
        if _family(node.this) != "real":
            raise Unsupported(f"AVG of a {_family(node.this)} argument in {q.name} "
                              "(the result type differs from SQLite's REAL)")


_CAST_OK = {  # target family -> operand families for which SQLite's CAST gives the same value
    "int": {"int", "bool"},
    "real": {"int", "real"},
    "text": {"int", "text", "date"},
    "bool": {"bool"},
    "date": {"date"},
}


def _cast_target(to: exp.DataType) -> str:
    kind = to.this
    if kind in _INT:
        return "int"
    if kind in _REAL:
        return "real"
    if kind in _TEXT:
        return "text" if not to.expressions else "text(n)"  # VARCHAR(n) truncates, CHAR pads
    if kind is exp.DataType.Type.BOOLEAN:
        return "bool"
    if kind is exp.DataType.Type.DATE:
        return "date"
    return "other"


def _casts(q: _Query) -> None:
    """A CAST keeps its meaning only where SQLite converts the same way: integers to
    text or real, text to text, booleans (0/1) to integers; NULL to anything."""
    for node in q.typed_nodes(exp.Cast):
        operand = _family(node.this)
        if operand == "null" or _date_literal(node):
            continue
        target = _cast_target(node.to)
        if operand not in _CAST_OK.get(target, set()):
            raise Unsupported(f"CAST of a {operand} value AS {node.to.sql()} "
                              f"(SQLite's conversion differs from {q.name}'s)")


def _date_literal(node: exp.Cast) -> bool:
    """``DATE '2020-12-11'`` / ``CAST('2020-12-11' AS DATE)``: a valid date's text is
    exactly how SpotIt's (and the database's) DATE values are stored."""
    from datetime import date

    if _cast_target(node.to) != "date" or not (isinstance(node.this, exp.Literal)
                                               and node.this.is_string):
        return False
    text = node.this.this
    try:
        return len(text) == 10 and date.fromisoformat(text).isoformat() == text
    except ValueError:
        return False


def _like(q: _Query) -> None:
    """LIKE is case-sensitive outside SQLite; it becomes GLOB (``_glob``), which needs a
    constant pattern. ILIKE folds non-ASCII letters too, which SQLite cannot."""
    if next(q.tree.find_all(exp.ILike), None) is not None:
        raise Unsupported("ILIKE (case folding beyond ASCII)")
    for node in q.tree.find_all(exp.Like):
        extra = {k for k, v in node.args.items() if v is not None} - {
            "this", "expression", "negate"}
        if isinstance(node.parent, exp.Escape) or extra:
            raise Unsupported("LIKE ... ESCAPE")
        if not (isinstance(node.expression, exp.Literal) and node.expression.is_string):
            raise Unsupported(f"LIKE with a non-constant pattern (case-sensitive in {q.name}, "
                              "not in SQLite)")


def _concat(q: _Query) -> None:
    """CONCAT: Postgres skips NULL arguments and spells booleans 't'; SQLite 3.40 has
    no CONCAT. Rewritten with ``||`` (``_concat_pipes``) for text and integer arguments."""
    for node in q.typed_nodes(exp.Concat):
        for arg in node.expressions:
            if _family(arg) not in ("text", "int", "null"):
                raise Unsupported(f"CONCAT of a {_family(arg)} argument in {q.name}")


def _null_order(q: _Query) -> None:
    """ANSI SQL leaves the place of NULLs in ORDER BY to the implementation (Calcite puts
    them last, SQLite first): refused where the order changes the result -- in a window,
    with LIMIT/OFFSET, or the outermost ORDER BY when the order counts -- unless NULLS
    FIRST/LAST is written. Other dialects' defaults are made explicit by sqlglot."""
    if q.read:
        return
    flips = _implicit_null_order(q.text)
    implicit = {id(k) for k, flip in zip(q.tree.find_all(exp.Ordered), flips, strict=False)
                if flip}

    def refuse_implicit(order: exp.Expression, where: str) -> None:
        for key in order.expressions:
            if id(key) in implicit and not isinstance(key.this, exp.Literal):
                raise Unsupported(f"ORDER BY {key.this.sql()}{where} without NULLS "
                                  "FIRST/LAST (NULL order is implementation-defined in ANSI "
                                  "SQL)")

    for window in q.tree.find_all(exp.Window):  # a window's order is always read
        if (order := window.args.get("order")) is not None:
            refuse_implicit(order, " in a window")
    for select in q.tree.find_all(exp.Query):
        order = select.args.get("order")
        if order is None:
            continue
        limited = select.args.get("limit") is not None or select.args.get("offset") is not None
        outermost = select is q.tree and q.ordered
        if not (limited or outermost):
            continue
        refuse_implicit(order, "")


def _implicit_null_order(sql: str) -> list[bool]:
    """For each ORDER BY key in parse order: whether it leaves NULLS FIRST/LAST unsaid,
    i.e. its NULL order flips when the dialect's default does."""
    small = sqlglot.parse_one(sql, read=_Ansi)
    large = sqlglot.parse_one(sql, read=_NullsLarge)
    return [bool(a.args.get("nulls_first")) != bool(b.args.get("nulls_first"))
            for a, b in zip(small.find_all(exp.Ordered), large.find_all(exp.Ordered),
                            strict=False)]


class _NullsLarge(_Ansi):
    NULL_ORDERING = "nulls_are_large"


def _count_args(q: _Query) -> None:
    """Calcite's COUNT(a, b) (rows where every argument is non-NULL): SQLite has no such."""
    for node in q.tree.find_all(exp.Count):
        inner = node.this.expressions if isinstance(node.this, exp.Distinct) else []
        if node.args.get("expressions") or len(inner) > 1:
            raise Unsupported("COUNT of several arguments")


_EXTRACT = {"YEAR": "%Y", "MONTH": "%m", "DAY": "%d"}


def _extract(q: _Query) -> None:
    """EXTRACT(YEAR|MONTH|DAY FROM d) of a DATE: the number in d's 'YYYY-MM-DD' text."""
    for node in q.typed_nodes(exp.Extract):
        part = node.this.name.upper()
        if part not in _EXTRACT or _family(node.expression) not in ("date", "null"):
            raise Unsupported(f"EXTRACT({part} FROM a {_family(node.expression)} value)")


def _functions(q: _Query) -> None:
    """Functions sqlglot would rewrite into SQLite ones of another meaning."""
    if next(q.tree.find_all(exp.AnyValue), None) is not None:
        # sqlglot writes MAX: one fixed choice where the source allows any value
        raise Unsupported("ANY_VALUE (any value of the group; SQLite's MAX is one choice)")
    for kind in (exp.Greatest, exp.Least):
        if next(q.tree.find_all(kind), None) is not None:
            raise Unsupported(f"{kind.__name__.upper()} (NULL arguments: ignored in Postgres, "
                              "NULL in MySQL and Calcite, SQLite's MAX/MIN differ again)")
    for node in q.typed_nodes(exp.LogicalAnd):
        _only(node.this, ("bool",), "BOOL_AND (sqlglot's MIN)", q)
    for node in q.typed_nodes(exp.LogicalOr):
        _only(node.this, ("bool",), "BOOL_OR (sqlglot's MAX)", q)
    for node in q.typed_nodes(exp.Mod):  # SQLite's % works on integers only
        _only(node.this, ("int",), "MOD / %", q)
        _only(node.expression, ("int",), "MOD / %", q)
    for node in q.typed_nodes(exp.Round):  # Postgres rounds float8 half to even
        _only(node.this, ("int",), "ROUND", q)
    if any(node.args.get("binary") for node in q.tree.find_all(exp.Length)):
        # sqlglot writes SQLite's LENGTH, which counts characters: 'é' is 2 against 1
        raise Unsupported(f"LENGTH in {q.name} (it counts bytes; SQLite's LENGTH counts "
                          "characters: CHAR_LENGTH is the same)")


def _only(node: exp.Expression, families: tuple[str, ...], what: str, q: _Query) -> None:
    if _family(node) not in (*families, "null"):
        raise Unsupported(f"{what} of a {_family(node)} value in {q.name}")


def _char_literals(q: _Query) -> None:
    """In ANSI SQL (and Calcite) 'ab' is a CHAR(2): where a UNION/INTERSECT/EXCEPT column
    or a CASE combines string literals of different lengths, the shorter ones are padded
    with spaces ('ab' becomes 'ab ' beside 'abc'). SQLite has no such padding."""
    if q.read:
        return
    for node in q.tree.find_all(exp.SetOperation):
        if isinstance(node.parent, exp.SetOperation):
            continue  # the outermost set operation sees every branch
        selects = [b for b in _branches(node) if isinstance(b, exp.Select)]
        for column in zip(*(b.expressions for b in selects), strict=False):
            _same_length([e.unalias() for e in column], "UNION/INTERSECT/EXCEPT column")
    for node in q.tree.find_all(exp.Case):
        _same_length([i.args.get("true") for i in node.args.get("ifs") or []]
                     + [node.args.get("default")], "CASE")


def _branches(node: exp.Expression) -> Iterator[exp.Expression]:
    while isinstance(node, exp.Subquery):
        node = node.this
    if isinstance(node, exp.SetOperation):
        yield from _branches(node.this)
        yield from _branches(node.expression)
    else:
        yield node


def _same_length(values: list, where: str) -> None:
    lengths = {len(v.this) for v in values
               if isinstance(v, exp.Literal) and v.is_string}
    if len(lengths) > 1:
        raise Unsupported(f"string literals of different lengths in one {where} "
                          "(CHAR(n) padding in ANSI SQL)")


def _transpiled_otherwise(q: _Query) -> None:
    """Constructs sqlglot writes for SQLite with another meaning."""
    for node in q.tree.find_all(exp.Fetch):
        options = node.args.get("limit_options")
        if options is not None and (options.args.get("with_ties") or
                                    options.args.get("percent")):
            raise Unsupported("FETCH FIRST ... WITH TIES or PERCENT (sqlglot writes a plain "
                              "LIMIT)")
    if next(q.tree.find_all(exp.ConcatWs), None) is not None:
        raise Unsupported("CONCAT_WS (sqlglot's SQLite text reads the separator as the "
                          "first value)")
    for node in q.tree.find_all(exp.Cast):
        if node.to.this is exp.DataType.Type.FLOAT:
            raise Unsupported(f"CAST AS {node.to.sql(dialect=q.read or None)} (a single "
                              f"precision float in {q.name}; SQLite's REAL is a double)")
    for node in q.tree.find_all(exp.Substring):
        start = node.args.get("start")
        if not (isinstance(start, exp.Literal) and not start.is_string
                and start.this.isdigit() and int(start.this) >= 1):
            raise Unsupported(f"SUBSTRING from a position that may be below 1 in {q.name} "
                              "(where it counts from differs: MySQL gives '' at 0, Postgres "
                              "counts a negative start before the text)")
    for node in q.typed_nodes(exp.DPipe):
        if "bool" in (_family(node.this), _family(node.expression)):
            raise Unsupported(f"|| of a boolean in {q.name} (its text is not SQLite's 1/0)")
    for kind, name in ((exp.DateAdd, "DATE_ADD"), (exp.DateSub, "DATE_SUB")):
        for node in q.typed_nodes(kind):
            if _family(node.this) not in ("date", "null"):
                raise Unsupported(f"{name} of a value that is not a DATE in {q.name} "
                                  "(SQLite's DATE() would drop its time)")


_REFUSALS: tuple[Callable[[_Query], None], ...] = (
    _grouping, _lateral, _bag_set_operations, _division, _avg, _casts, _like, _concat,
    _null_order, _count_args, _extract, _functions, _char_literals, _transpiled_otherwise,
)


# ---------------------------------------------------------------------- rewrites


def _glob(tree: exp.Expression, read: str) -> None:
    """``x LIKE 'p'`` (case-sensitive) as ``x GLOB 'q'``: ``%`` is ``*``, ``_`` is ``?``,
    and GLOB's own ``*``, ``?``, ``[`` are bracketed; a backslash escapes the next
    character in Postgres and MySQL patterns."""
    for node in list(tree.find_all(exp.Like)):
        pattern = node.expression.this
        glob: exp.Expression = exp.Glob(this=node.this, expression=exp.Literal.string(
            _glob_pattern(pattern, backslash=read in ("postgres", "mysql"))))
        if node.args.get("negate"):  # NOT LIKE
            glob = exp.Not(this=glob)
        node.replace(glob)


def _glob_pattern(pattern: str, *, backslash: bool) -> str:
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if backslash and c == "\\" and i + 1 < len(pattern):
            i += 1
            c = pattern[i]
            out.append(f"[{c}]" if c in "*?[" else c)
        elif c == "%":
            out.append("*")
        elif c == "_":
            out.append("?")
        else:
            out.append(f"[{c}]" if c in "*?[" else c)
        i += 1
    return "".join(out)


def _concat_pipes(tree: exp.Expression, read: str) -> None:
    """CONCAT(a, b, ...) as ``a || b || ...``; where CONCAT skips NULLs (Postgres),
    each argument is COALESCE(a, '')."""
    for node in list(tree.find_all(exp.Concat)):
        skip_null = bool(node.args.get("coalesce"))  # sqlglot knows each dialect's
        parts = [exp.Coalesce(this=a, expressions=[exp.Literal.string("")]) if skip_null else a
                 for a in node.expressions]
        joined = parts[0]
        for part in parts[1:]:
            joined = exp.DPipe(this=joined, expression=part)
        node.replace(exp.Paren(this=joined) if len(parts) > 1 else joined)


def _column_lists(tree: exp.Expression, read: str) -> None:
    """``(VALUES ...) AS t (a, b)``: SQLite has no derived column lists; VALUES columns
    are named column1, column2, ... so ``(SELECT column1 AS a, ... FROM (VALUES ...))``
    is the same table. A SELECT's own output columns are renamed instead."""
    for alias in list(tree.find_all(exp.TableAlias)):
        names = alias.args.get("columns")
        source = alias.parent
        if not names or isinstance(source, exp.CTE):
            continue  # WITH t (a, b) AS (...) is SQLite too
        if isinstance(source, exp.Values):
            select = exp.select(*(exp.alias_(exp.column(f"column{i + 1}"), n.copy())
                                  for i, n in enumerate(names)))
            bare = source.copy()
            bare.set("alias", None)
            select = select.from_(exp.Subquery(this=bare))
            source.replace(exp.Subquery(this=select, alias=exp.TableAlias(
                this=alias.this.copy())))
        elif isinstance(source, exp.Subquery):
            _rename_outputs(source.this, names)
            alias.set("columns", None)
        else:
            raise Unsupported(f"column list on {type(source).__name__.lower()} "
                              f"{alias.this.sql()}")


def _rename_outputs(query: exp.Expression, names: list[exp.Identifier]) -> None:
    while isinstance(query, (exp.Union, exp.Except, exp.Intersect, exp.Subquery)):
        query = query.this  # a compound query is named by its first SELECT
    if not isinstance(query, exp.Select) or any(
            isinstance(e, exp.Star) or (isinstance(e, exp.Column) and e.is_star)
            for e in query.expressions):
        raise Unsupported("derived column list over SELECT * or a non-SELECT")
    if len(query.expressions) != len(names):
        raise Unsupported("derived column list of the wrong length")
    query.set("expressions", [exp.alias_(e.unalias() if isinstance(e, exp.Alias) else e,
                                         n.copy()) for e, n in zip(query.expressions, names,
                                                                   strict=True)])


def _dates(tree: exp.Expression, read: str) -> None:
    """Date literals as their text; EXTRACT of a date as STRFTIME's number."""
    for node in list(tree.find_all(exp.Cast)):
        if _date_literal(node):
            node.replace(node.this.copy())
    for node in list(tree.find_all(exp.Extract)):
        fmt = _EXTRACT[node.this.name.upper()]
        node.replace(exp.Cast(this=exp.Anonymous(this="STRFTIME", expressions=[
            exp.Literal.string(fmt), node.expression.copy()]), to=exp.DataType.build("INTEGER")))


_REWRITES: tuple[Callable[[exp.Expression, str], None], ...] = (
    _glob, _concat_pipes, _column_lists, _dates,
)


def _quote_names(tree: exp.Expression) -> None:
    """Quote the identifiers SQLite would not read bare (``$f1``, ``EXPR$0``)."""
    for ident in tree.find_all(exp.Identifier):
        if not ident.quoted and not _SAFE_NAME.match(ident.name):
            ident.set("quoted", True)


# ---------------------------------------------------------------------- functions

_NO_SUCH_FUNCTION = re.compile(r"no such function: (\S+)")


def _known_functions(sql: str, schema: Schema) -> None:
    """A function SQLite lacks (STDDEV_POP, BIT_AND, ANY_VALUE, ...) is unsupported."""
    conn = schema.create_database()
    try:
        conn.execute("EXPLAIN " + sql)
    except (sqlite3.Error, sqlite3.Warning) as e:
        missing = _NO_SUCH_FUNCTION.search(str(e))
        if missing:
            raise Unsupported(f"function {missing.group(1).upper()} (SQLite has none)"
                              ) from None
    finally:
        conn.close()
