"""A proof, run on SQLite, that a query never stops on a database.

A recursive CTE ``name AS (init UNION ALL step)`` runs SQLite's queue: each row taken
from it is given to ``step`` alone, and every row ``step`` makes is queued. ``step``
sees only that row (and the database, which does not change), so two rows with the
same values (and storage classes) make the same rows. Hence if a row makes, through
one or more steps, a row equal to itself, that row is made again and again: UNION ALL
keeps every copy, and the queue never empties. (UNION would drop the copy, and a LIMIT
in the CTE stops it: neither is proved here.)

SQLite checks it: the CTE is run with one more column, each row's *ancestry* (its
ancestors' values, each serialised with its storage class and in hex, so that no two
different rows read alike), and a row found among its own ancestors is the proof. The
query must also read the whole of the CTE, and reach it: one with a LIMIT, EXISTS, an
IN or scalar subquery over it (which may stop at a row) is not claimed, and SQLite
must finish the query with the CTE capped where it does not finish it as written.
"""

from __future__ import annotations

import sqlite3
import time

import sqlglot
from sqlglot import exp

from spotit.validate import Deadline, run_query

PATH = "spotit_ancestry"
# functions whose value is not fixed by their arguments and the database
_VOLATILE = {"RANDOM", "RANDOMBLOB", "CHANGES", "TOTAL_CHANGES", "LAST_INSERT_ROWID"}


# rows the recursion is capped at to see that the query's time goes into it, and the
# time the query is given: it must run out of it, while capped it ends within a quarter
CAPPED_ROWS = 1000
RUN_SECONDS = 1.0


def never_stops(conn: sqlite3.Connection, sql: str, until: float) -> str | None:
    """Why ``sql`` never stops on the database ``conn`` holds (None: not shown), found
    by SQLite before the ``time.monotonic()`` instant ``until`` (plus RUN_SECONDS and a
    quarter of it, for the query itself).

    Three runs on SQLite make the claim: a row of a recursive CTE found among its own
    ancestors (the CTE never ends); the query, which SQLite does not finish within
    RUN_SECONDS; and the query with that CTE capped at CAPPED_ROWS rows, which it
    finishes within a quarter of that. The query therefore reads more of the CTE than
    the cap, and one that reads a CTE only whole (no LIMIT, EXISTS, IN or scalar
    subquery to stop early; checked on its text) then reads it for ever."""
    try:
        tree = sqlglot.parse_one(sql, dialect="sqlite")
    except sqlglot.errors.ParseError:
        return None
    if _stops_early(tree) or "'now'" in sql.lower() or any(
            (isinstance(f, exp.Anonymous) and f.name.upper() in _VOLATILE)
            or isinstance(f, exp.Rand) for f in tree.find_all(exp.Func)):
        return None
    for i, cte in enumerate(tree.find_all(exp.CTE)):
        check = _ancestry_check(cte)
        if check is None or not _read_whole(tree, cte):
            continue
        try:
            with Deadline(conn, until):
                found = conn.execute(check).fetchone()  # the row, if any
        except sqlite3.Error:
            continue
        if found is None or not _time_goes_into(conn, tree, i, sql):
            continue
        return (f"its recursive CTE {cte.alias_or_name} makes the row {tuple(found)!r} out "
                "of an earlier row equal to it, so UNION ALL adds that row again and again")
    return None


def _time_goes_into(conn: sqlite3.Connection, tree: exp.Expression, i: int, sql: str
                    ) -> bool:
    """SQLite does not finish ``sql`` within RUN_SECONDS, and finishes it within a
    quarter of that with its ``i``-th CTE capped at CAPPED_ROWS rows."""
    capped = tree.copy()
    body = list(capped.find_all(exp.CTE))[i].this
    body.set("limit", exp.Limit(expression=exp.Literal.number(CAPPED_ROWS)))
    if isinstance(run_query(conn, capped.sql(dialect="sqlite"), RUN_SECONDS / 4), str):
        return False  # an error, or out of time even so
    with Deadline(conn, time.monotonic() + RUN_SECONDS) as deadline:
        try:
            conn.execute(sql).fetchall()
        except sqlite3.Error:
            return deadline.fired
    return False  # it finished


def _stops_early(tree: exp.Expression) -> bool:
    """A LIMIT or OFFSET anywhere, an EXISTS: the query may stop before it has read a
    CTE to its end."""
    return any(q.args.get("limit") is not None or q.args.get("offset") is not None
               for q in tree.find_all(exp.Select, exp.Union)) \
        or any(True for _ in tree.find_all(exp.Exists))


def _read_whole(tree: exp.Expression, cte: exp.CTE) -> bool:
    """Whether ``cte`` is used outside its own body, and only in FROM and JOIN clauses
    of queries that are FROM or JOIN subqueries themselves, up to the outermost: not
    in a scalar subquery (which stops at its first row), IN or EXISTS."""
    name = cte.alias_or_name.lower()
    uses = [t for t in tree.find_all(exp.Table)
            if t.name.lower() == name and not t.args.get("db")
            and t.find_ancestor(exp.CTE) is not cte]
    for t in uses:
        node = t
        while node.parent is not None:
            node = node.parent
            if isinstance(node, exp.In | exp.Exists) or (
                    isinstance(node, exp.Subquery)
                    and not isinstance(node.parent, exp.From | exp.Join)):
                return False
    return bool(uses)


def _ancestry_check(cte: exp.CTE) -> str | None:
    """The query that finds a row of ``cte`` among its own ancestors, or None when
    ``cte`` is not a recursion this module reasons about."""
    body = cte.this
    if not isinstance(body, exp.Union) or body.args.get("distinct") \
            or body.args.get("limit") is not None or body.args.get("offset") is not None \
            or body.args.get("order") is not None:
        return None
    init, step = body.left, body.right
    name = cte.alias_or_name
    if not isinstance(step, exp.Select) or not isinstance(init, exp.Select):
        return None
    refs = [t for t in step.find_all(exp.Table) if t.name.lower() == name.lower()
            and not t.args.get("db")]
    if len(refs) != 1 or any(isinstance(e, exp.Star) or (isinstance(e, exp.Column) and
                                                      isinstance(e.this, exp.Star))
                             for e in (*init.expressions, *step.expressions)):
        return None
    alias = cte.args.get("alias")
    columns = [c.name for c in alias.columns] if alias is not None and alias.columns \
        else [e.alias_or_name for e in init.expressions]
    if not columns or not all(columns) or len(columns) != len(step.expressions):
        return None
    ref = refs[0].alias_or_name
    new_init = init.copy().select(exp.Literal.string("|"), append=True)
    parent = _serialised([f'"{ref}"."{c}"' for c in columns])
    new_step = step.copy().select(
        sqlglot.parse_one(f'"{ref}".{PATH} || {parent} || \'|\'', dialect="sqlite"),
        append=True)
    head = ", ".join(f'"{c}"' for c in [*columns, PATH])
    instrumented = (f'"{name}"({head}) AS ({new_init.sql(dialect="sqlite")} UNION ALL '
                    f'{new_step.sql(dialect="sqlite")})')
    earlier = _earlier_ctes(cte)
    if earlier is None:
        return None
    row = _serialised([f'"{c}"' for c in columns])
    shown = ", ".join(f'"{c}"' for c in columns)
    return (f"WITH RECURSIVE {', '.join([*earlier, instrumented])} "
            f"SELECT {shown} FROM \"{name}\" WHERE instr({PATH}, '|' || {row} || '|') > 0 "
            "LIMIT 1")


def _serialised(columns: list[str]) -> str:
    """One row's values as hex text: each value's storage class, then its value (text
    quoted, a REAL to 17 digits, so two different values never read alike)."""
    parts = [f"typeof({c}) || ':' || CASE typeof({c}) WHEN 'real' THEN printf('%.17g', {c}) "
             f"ELSE quote({c}) END" for c in columns]
    return "hex(" + " || ',' || ".join(parts) + ")"


def _earlier_ctes(cte: exp.CTE) -> list[str] | None:
    """The CTEs ``cte`` may read: those before it in its WITH, and before each CTE that
    holds that WITH, outwards."""
    out: list[str] = []
    node: exp.Expression | None = cte
    while node is not None:
        with_ = node.parent
        if not isinstance(with_, exp.With):
            return None
        before = []
        for c in with_.expressions:
            if c is node:
                break
            before.append(c.sql(dialect="sqlite"))
        out = before + out
        node = with_.parent.find_ancestor(exp.CTE) if with_.parent is not None else None
    return out
