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
query must read the whole of the CTE for the query not to stop either: one with a
LIMIT that no ORDER BY needs, or with the CTE under EXISTS or a scalar subquery (which
stop at a first row), is not claimed.
"""

from __future__ import annotations

import sqlite3

import sqlglot
from sqlglot import exp

from spotit.validate import Deadline

PATH = "spotit_ancestry"
# functions whose value is not fixed by their arguments and the database
_VOLATILE = {"RANDOM", "RANDOMBLOB", "CHANGES", "TOTAL_CHANGES", "LAST_INSERT_ROWID"}


def never_stops(conn: sqlite3.Connection, sql: str, until: float) -> str | None:
    """Why ``sql`` never stops on the database ``conn`` holds (None: not shown), found
    by SQLite before the ``time.monotonic()`` instant ``until``."""
    try:
        tree = sqlglot.parse_one(sql, dialect="sqlite")
    except sqlglot.errors.ParseError:
        return None
    if _stops_early(tree) or any((isinstance(f, exp.Anonymous) and f.name.upper() in
                                 _VOLATILE) or isinstance(f, exp.Rand)
                                 for f in tree.find_all(exp.Func)):
        return None
    for cte in tree.find_all(exp.CTE):
        check = _ancestry_check(cte)
        if check is None or not _read_whole(tree, cte):
            continue
        try:
            with Deadline(conn, until):
                found = conn.execute(check).fetchone()  # the row, if any
        except sqlite3.Error:
            continue
        if found is not None:
            return (f"its recursive CTE {cte.alias_or_name} makes the row {tuple(found)!r} "
                    "out of an earlier row equal to it, so UNION ALL adds that row again "
                    "and again")
    return None


def _stops_early(tree: exp.Expression) -> bool:
    """A LIMIT with no ORDER BY to sort the whole input first, an EXISTS: the query may
    stop before it has read a CTE to its end."""
    for select in tree.find_all(exp.Select, exp.Union):
        if select.args.get("limit") is not None and not select.args.get("order"):
            cte = select.find_ancestor(exp.CTE)
            if cte is None or select is not cte.this:
                return True
    return any(True for _ in tree.find_all(exp.Exists))


def _read_whole(tree: exp.Expression, cte: exp.CTE) -> bool:
    """Whether every use of ``cte`` outside its own body is a FROM or JOIN of a SELECT
    that is not a scalar subquery (which stops at its first row)."""
    name = cte.alias_or_name.lower()
    uses = [t for t in tree.find_all(exp.Table)
            if t.name.lower() == name and not t.args.get("db")
            and t.find_ancestor(exp.CTE) is not cte]
    if not uses:
        return False
    for t in uses:
        select = t.find_ancestor(exp.Select)
        sub = select.parent if select is not None else None
        while isinstance(sub, exp.Union):
            sub = sub.parent
        if isinstance(sub, exp.Subquery) and not isinstance(sub.parent, (exp.From, exp.Join)):
            return False  # a scalar subquery or IN: a scalar subquery stops at a row
    return True


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
