"""A proof, run on SQLite, that a query never stops on a database.

A recursive CTE ``name AS (init UNION ALL step)`` runs SQLite's queue: each row taken
from it is given to ``step`` alone, and every row ``step`` makes is queued. ``step``
sees only that row (and the database, which does not change), so two rows with the
same values (and storage classes) make the same rows. Hence if a row makes, through
one or more steps, a row equal to itself, that row is made again and again: UNION ALL
keeps every copy, and the queue never empties. (UNION would drop the copy, and a LIMIT
in the CTE stops it: neither is claimed.)

SQLite checks it: the CTE is run with one more column, each row's *ancestry* (its
ancestors' values, each serialised with its storage class, text and numbers in hex,
so that no two different rows read alike), and a row found among its own ancestors is
the proof (not where the row holds a REAL: SQLite writes 16 digits at most, and -0.0
as 0). The query must also read the whole of the CTE, and reach it: SQLite must not
finish the query as written within RUN_SECONDS while it finishes it within a quarter
of that with the CTE capped at CAPPED_ROWS rows, and also, without an error, with the
CTE's UNION ALL as a UNION that drops exactly equal rows only (the CTE's rows are then
finitely many distinct rows, read again and again: no row not met yet raises an error
later); and nothing may stop it early or later (checked on its text, conservatively):
no aggregate whose state grows (json_group_array meets SQLite's allocation limit), no
LIMIT or OFFSET, no EXISTS, no IN or scalar subquery reading the CTE (directly or
through another CTE), no window function over its rows (a running sum over repeated
rows overflows: an error, which stops the query), no function whose value is not fixed
by its arguments and the database (RANDOM(), the clock).
Only a CTE of the query's own WITH is tried, and only where sqlglot writes the query
back as SQLite compiles it (the same EXPLAIN program): the instrumented copies are
written by sqlglot.
"""

from __future__ import annotations

import re
import sqlite3
import time

import sqlglot
from sqlglot import exp

from spotit.validate import Deadline, run_query

PATH = "spotit_ancestry"
CAPPED_ROWS = 1000
RUN_SECONDS = 1.0
MAX_TRIED = 3  # CTEs whose ancestry is searched, at most
# functions whose value is not fixed by their arguments and the database (the date
# functions read the clock where a value is 'now'); a column so named is refused too
_VOLATILE = re.compile(r"\b(random|randomblob|changes|total_changes|last_insert_rowid|date|"
                       r"time|datetime|julianday|strftime|unixepoch|current_date|"
                       r"current_time|current_timestamp)\b", re.IGNORECASE)
_MARK = "spotit_mark_{}"  # string literals replaced by hand-written SQL after rendering
# aggregates whose state stays small, or grows up to SQLite's length limit and reports
# it only at the end (GROUP_CONCAT): over an endless input they never end either
_STEADY = (exp.Count, exp.Sum, exp.Avg, exp.Min, exp.Max, exp.GroupConcat)


def never_stops(conn: sqlite3.Connection, sql: str, until: float) -> str | None:
    """Why ``sql`` never stops on the database ``conn`` holds (None: not shown). The
    ancestry searches end at the ``time.monotonic()`` instant ``until``; the query's two
    timed runs take RUN_SECONDS and a quarter of it more."""
    try:
        return _never_stops(conn, sql, until)
    except Exception:  # a proof that cannot be built is no proof
        return None


def _never_stops(conn: sqlite3.Connection, sql: str, until: float) -> str | None:
    if _VOLATILE.search(sql):
        return None
    tree = sqlglot.parse_one(sql, dialect="sqlite")
    key = "with_" if tree.args.get("with_") is not None else "with"
    with_ = tree.args.get(key)
    if (with_ is None or len(list(tree.find_all(exp.With))) != 1
            or any(True for _ in tree.find_all(exp.Exists))
            or any(n.args.get("limit") is not None or n.args.get("offset") is not None
                   for n in tree.walk())):
        return None
    if any(not isinstance(f, _STEADY) for f in tree.find_all(exp.AggFunc)) \
            or "json_group" in sql.lower():
        return None  # an aggregate whose state grows with every row meets a size limit
    names = [c.alias_or_name.lower() for c in with_.expressions]
    if len(set(names)) != len(names) or not _faithful(conn, tree, sql):
        return None
    tried = 0
    for i, cte in enumerate(with_.expressions):
        if tried >= MAX_TRIED or time.monotonic() > until:
            break
        check = _ancestry_check(tree, key, i)
        if check is None or not _read_whole(tree, with_.expressions, i):
            continue
        tried += 1
        try:
            with Deadline(conn, until):
                found = conn.execute(check).fetchone()  # the row, if any
        except sqlite3.Error:
            continue
        if found is None:
            continue
        if any(isinstance(v, float) for v in found):
            # SQLite's printf writes 16 digits at most, and -0.0 as 0: two REALs may
            # read alike, so a REAL in the row proves nothing
            return None
        if not _time_goes_into(conn, tree, key, i, sql):
            return None
        return (f"its recursive CTE {cte.alias_or_name} makes the row {tuple(found)!r} out "
                "of an earlier row equal to it, so UNION ALL adds that row again and again "
                "(short of running out of memory or disk)")
    return None


def _faithful(conn: sqlite3.Connection, tree: exp.Expression, sql: str) -> bool:
    """Whether sqlglot writes ``tree`` back as SQLite compiles ``sql``: the same EXPLAIN
    program (a CAST AS BOOLEAN written back AS INTEGER, MOD as %, would not be)."""
    try:
        return (_program(conn, sql) == _program(conn, tree.sql(dialect="sqlite")))
    except sqlite3.Error:
        return False


# names of one SQLite function (sqlglot writes SUBSTR as SUBSTRING)
_ALIASES = {"substring": "substr", "ceiling": "ceil", "power": "pow", "format": "printf"}


def _program(conn: sqlite3.Connection, sql: str) -> list[tuple]:
    """SQLite's program for ``sql``, a function's name read through its aliases."""
    out = []
    for row in conn.execute("EXPLAIN " + sql).fetchall():
        p4 = row[5]
        if isinstance(p4, str) and "(" in p4:
            fn, _, rest = p4.partition("(")
            p4 = _ALIASES.get(fn.lower(), fn.lower()) + "(" + rest
        out.append((*row[:5], p4, *row[6:]))
    return out


def _time_goes_into(conn: sqlite3.Connection, tree: exp.Expression, key: str, i: int,
                    sql: str) -> bool:
    """SQLite does not finish ``sql`` within RUN_SECONDS; finishes it within a quarter
    of that with the ``i``-th CTE capped at CAPPED_ROWS rows (the query reads more of
    the CTE than the cap); and finishes it, without an error, with the CTE's UNION ALL
    as a UNION of exactly distinct rows (``_exactly_distinct``): the CTE's rows are
    finitely many distinct rows,
    made and read again and again, so no row the query has not met yet raises an error
    later (a branch that counts up to an overflow would not finish)."""
    capped = tree.copy()
    capped.args[key].expressions[i].this.set(
        "limit", exp.Limit(expression=exp.Literal.number(CAPPED_ROWS)))
    distinct = _exactly_distinct(tree, key, i)
    if distinct is None:
        return False
    for variant in (capped.sql(dialect="sqlite"), distinct):
        if isinstance(run_query(conn, variant, RUN_SECONDS / 4), str):
            return False  # an error, or out of time even so
    with Deadline(conn, time.monotonic() + RUN_SECONDS) as deadline:
        try:
            conn.execute(sql).fetchall()
        except sqlite3.Error:
            return deadline.fired
    return False  # it finished


def _exactly_distinct(tree: exp.Expression, key: str, i: int) -> str | None:
    """The query with the ``i``-th CTE's UNION ALL as a UNION that drops exactly equal
    rows only: UNION alone compares under the columns' collations ('b' and 'b ' under
    RTRIM are one row) and 0 with 0.0, so each row also carries its values serialised
    (storage class, hex, a REAL's 17 digits and the sign of its zero)."""
    body = tree.args[key].expressions[i].this
    pieces = {}
    for part, select in (("init", body.left), ("step", body.right)):
        values = [(e.this if isinstance(e, exp.Alias) else e).sql(dialect="sqlite")
                  for e in select.expressions]
        pieces[part] = _serialised([f"({v})" for v in values], signed_zero=True)
    copy = _with_marked_column(tree, key, i, "spotit_exact")
    copy.args[key].expressions[i].this.set("distinct", True)
    return _filled(copy.sql(dialect="sqlite"), pieces)


def _with_marked_column(tree: exp.Expression, key: str, i: int, column: str
                        ) -> exp.Expression:
    """A copy of ``tree`` whose ``i``-th CTE has one more column, ``column``: the marker
    literals 'init' and 'step' at the end of its two SELECTs (``_filled`` writes them)."""
    copy = tree.copy()
    target = copy.args[key].expressions[i]
    alias = target.args.get("alias")
    listed = bool(alias is not None and alias.columns)
    for part, select in (("init", target.this.left), ("step", target.this.right)):
        mark = exp.Literal.string(_MARK.format(part))
        select.select(mark if listed or part == "step" else
                      exp.alias_(mark, column, quoted=True), append=True, copy=False)
    if listed:
        alias.append("columns", exp.to_identifier(column, quoted=True))
    return copy


def _filled(text: str, pieces: dict[str, str]) -> str | None:
    """``text`` with each marker literal replaced by its hand-written SQL (None if a
    marker is not there exactly once: a literal of the query spells it too)."""
    for part, sql in pieces.items():
        marker = f"'{_MARK.format(part)}'"
        if text.count(marker) != 1:
            return None
        text = text.replace(marker, sql)
    return text


def _readers(ctes: list[exp.CTE], i: int) -> set[str]:
    """The ``i``-th CTE's name and those of the CTEs that read it, directly or not."""
    readers = {ctes[i].alias_or_name.lower()}
    grew = True
    while grew:
        grew = False
        for c in ctes:
            name = c.alias_or_name.lower()
            if name not in readers and _tables_named(c.this, readers):
                readers.add(name)
                grew = True
    return readers


def _read_whole(tree: exp.Expression, ctes: list[exp.CTE], i: int) -> bool:
    """Whether the ``i``-th CTE is read, directly or through the CTEs that read it,
    only in FROM and JOIN clauses of queries that are FROM or JOIN subqueries
    themselves, up to the outermost: never in a scalar subquery (which stops at its
    first row), IN or EXISTS; and no window function reads its rows (a running sum over
    repeated rows overflows: an error, which stops the query)."""
    readers = _readers(ctes, i)
    for window in tree.find_all(exp.Window):
        select = window.find_ancestor(exp.Select)
        if select is None or _tables_named(select, readers):
            return False
    uses = [t for t in _tables_named(tree, readers)
            if not (t.name.lower() == ctes[i].alias_or_name.lower()
                    and t.find_ancestor(exp.CTE) is ctes[i])]
    for t in uses:
        node = t
        while node.parent is not None:
            node = node.parent
            if isinstance(node, exp.In | exp.Exists) or (
                    isinstance(node, exp.Subquery)
                    and not isinstance(node.parent, exp.From | exp.Join)):
                return False
    return bool(uses)


def _ancestry_check(tree: exp.Expression, key: str, i: int) -> str | None:
    """The query that finds a row of the ``i``-th CTE among its own ancestors (the
    query's own WITH, that CTE instrumented), or None when it is not a recursion this
    module reasons about."""
    cte = tree.args[key].expressions[i]
    body = cte.this
    if not isinstance(body, exp.Union) or body.args.get("distinct") \
            or body.args.get("order") is not None:
        return None
    init, step = body.left, body.right
    name = cte.alias_or_name
    if not isinstance(step, exp.Select) or not isinstance(init, exp.Select):
        return None
    refs = _tables_named(step, {name.lower()})
    if len(refs) != 1 or any(isinstance(e, exp.Star) or (isinstance(e, exp.Column) and
                                                      isinstance(e.this, exp.Star))
                             for e in (*init.expressions, *step.expressions)):
        return None
    alias = cte.args.get("alias")
    listed = bool(alias is not None and alias.columns)
    columns = [c.name for c in alias.columns] if listed \
        else [e.alias_or_name for e in init.expressions]
    if (not columns or not all(columns) or len(columns) != len(step.expressions)
            or len({c.lower() for c in columns}) != len(columns)
            or len(columns) != len(init.expressions)):
        return None
    copy = _with_marked_column(tree, key, i, PATH)
    main = exp.select(exp.Literal.string(_MARK.format("main")))
    main.set(key, copy.args[key])
    ref = _quoted(refs[0].alias_or_name)
    row = _serialised([_quoted(c) for c in columns])
    parent = _serialised([f"{ref}.{_quoted(c)}" for c in columns])
    shown = ", ".join(_quoted(c) for c in columns)
    text = main.sql(dialect="sqlite")
    pieces = {
        "init": "'|'",
        "step": f"{ref}.{PATH} || {parent} || '|'",
        "main": (f"{shown} FROM {_quoted(name)} WHERE instr({PATH}, '|' || {row} || '|') > 0 "
                 "LIMIT 1"),
    }
    return _filled(text, pieces)


def _tables_named(node: exp.Expression, names: set[str]) -> list[exp.Table]:
    """The tables ``node`` reads that one of ``names`` (lower case) names, not in
    another schema: the CTEs of those names."""
    return [t for t in node.find_all(exp.Table)
            if t.name.lower() in names and not t.args.get("db")]


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _serialised(columns: list[str], signed_zero: bool = False) -> str:
    """One row's values as text without '|': each value's storage class, then its
    value (anything but a REAL as the hex of its bytes, NULs too, so two such values
    never read alike; a REAL as SQLite's printf writes it, 16 digits at most, and with
    ``signed_zero`` a '-' after a negative zero)."""
    sign = " || CASE WHEN {c} = 0 AND atan2({c}, -1) < 0 THEN '-' ELSE '' END" \
        if signed_zero else ""
    return " || ',' || ".join(
        f"typeof({c}) || ':' || CASE typeof({c}) WHEN 'real' THEN printf('%.17g', {c})"
        f"{sign.format(c=c)} ELSE hex({c}) END" for c in columns)
