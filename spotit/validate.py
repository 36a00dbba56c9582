"""Run queries on a concrete database in real SQLite and compare results as BIRD does.

A counterexample is only reported once SQLite confirms it. Because SQLite
leaves the order of tied or unordered rows undefined, the database is loaded
twice (rows inserted in the found order, and reversed with
``PRAGMA reverse_unordered_selects``) and the results must differ in every
combination: a difference that depends on the order SQLite happens to pick is
not a counterexample.
"""

from __future__ import annotations

import sqlite3
import time
from collections import Counter
from dataclasses import dataclass

from spotit.encodings.equivalence import Comparison, Semantics, Spider2
from spotit.schema import Schema

Rows = dict[str, list[tuple]]
PROGRESS_OPCODES = 1000  # how often (SQLite VM instructions) a time limit is checked


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def build_database(schema: Schema, rows: Rows, *, reverse: bool = False,
                   path: str = ":memory:") -> sqlite3.Connection:
    """A SQLite database with ``schema`` and ``rows`` (insertion reversed if asked)."""
    conn = schema.create_database(path)
    insert_rows(conn, schema, rows, reverse=reverse)
    conn.commit()
    if reverse:
        conn.execute("PRAGMA reverse_unordered_selects = ON")
    return conn


def insert_rows(conn: sqlite3.Connection, schema: Schema, rows: Rows, *,
                reverse: bool = False) -> None:
    """Insert ``rows`` (table name -> tuples in column order), optionally reversed."""
    for table, trows in rows.items():
        if not trows:
            continue
        t = schema.require_table(table)
        names = t.row_columns(len(trows[0]))
        cols = ", ".join(_q(c) for c in names)
        marks = ", ".join("?" for _ in names)
        seq = list(reversed(trows)) if reverse else trows
        conn.executemany(f"INSERT INTO {_q(t.name)} ({cols}) VALUES ({marks})", seq)


class Deadline:
    """SQLite interrupted once ``time.monotonic()`` passes ``at`` (``None``: never), from
    ``with Deadline(conn, at) as d:``; ``d.fired`` says whether it was."""

    def __init__(self, conn: sqlite3.Connection, at: float | None):
        self.conn, self.at, self.fired = conn, at, False

    def _over(self) -> bool:
        self.fired = time.monotonic() > self.at
        return self.fired

    def __enter__(self) -> Deadline:
        if self.at is not None:
            self.conn.set_progress_handler(self._over, PROGRESS_OPCODES)
        return self

    def __exit__(self, *exc) -> None:
        if self.at is not None:
            self.conn.set_progress_handler(None, 0)


def broken_keys(conn: sqlite3.Connection) -> Counter[tuple[str, frozenset[str], str]]:
    """Rows ``PRAGMA foreign_key_check`` finds pointing nowhere in ``conn``, per key:
    (child table, child columns, parent table), names lower-cased."""
    try:
        found = conn.execute("PRAGMA foreign_key_check").fetchall()
    except sqlite3.Error:
        return Counter()
    out: Counter[tuple[str, frozenset[str], str]] = Counter()
    keys: dict[str, dict[int, tuple[frozenset[str], str]]] = {}
    for table, _rowid, _parent, fk_id in found:
        if table not in keys:  # the PRAGMA's ids group the columns of one key
            by_id: dict[int, tuple[set[str], str]] = {}
            for row in conn.execute(f'PRAGMA foreign_key_list("{table}")').fetchall():
                by_id.setdefault(row[0], (set(), str(row[2]).lower()))[0].add(
                    str(row[3]).lower())
            keys[table] = {i: (frozenset(c), p) for i, (c, p) in by_id.items()}
        if (key := keys[table].get(fk_id)) is not None:
            out[(table.lower(), *key)] += 1
    return out


def key_of(table: str, fk) -> tuple[str, frozenset[str], str]:
    """``broken_keys``'s name for the foreign key ``fk`` of ``table``."""
    return table.lower(), frozenset(c.lower() for c in fk.columns), fk.ref_table.lower()


def _broken_assumed_key(conn: sqlite3.Connection, schema: Schema) -> str | None:
    """A foreign key the schema assumes that SQLite's own check finds broken in ``conn``
    (None: none). The encoding reads a key as ``=`` under the parent's collation, which
    every database SQLite's check accepts satisfies; where the two columns' affinities
    differ it admits more (INTEGER 1 beside the TEXT key ' 1'), and such a database is
    no counterexample."""
    broken = broken_keys(conn)
    if not broken:
        return None
    for t in schema.tables:
        for fk in t.foreign_keys:
            if broken[key_of(t.name, fk)]:
                return f"{t.name}({', '.join(fk.columns)}) -> {fk.ref_table}"
    return None


def run_query(conn: sqlite3.Connection, sql: str, time_limit: float | None = None
              ) -> list[tuple] | str:
    """The rows of ``sql``, or the error message SQLite raised (or that it ran out of time)."""
    at = None if time_limit is None else time.monotonic() + time_limit
    with Deadline(conn, at) as deadline:
        try:
            return conn.execute(sql).fetchall()
        except (sqlite3.Error, OverflowError) as e:
            if deadline.fired:
                return f"ran out of time ({time_limit:g} s)"
            return f"{type(e).__name__}: {e}"


def column_names(schema: Schema, sql: str) -> list[str]:
    """The result column names SQLite gives ``sql`` (empty if it does not prepare)."""
    conn = schema.create_database()
    try:
        cur = conn.execute(sql)
        return [d[0] for d in cur.description or ()]
    except sqlite3.Error:
        return []
    finally:
        conn.close()


def results_differ(a: list[tuple], b: list[tuple], semantics: Comparison) -> bool:
    """Whether the comparison tells gold result ``a`` from prediction result ``b``."""
    if isinstance(semantics, Spider2):
        from spotit.spider2 import results_match

        return not results_match(a, b, semantics)
    if semantics is Semantics.SET:
        return set(a) != set(b)
    if semantics is Semantics.BAG:
        return Counter(a) != Counter(b)
    return list(a) != list(b)


EQUAL_RESULTS = "SQLite gives equal results on this database"


@dataclass
class Validation:
    confirmed: bool
    gold_rows: list[tuple] | None
    pred_rows: list[tuple] | None
    note: str = ""


def validate(schema: Schema, rows: Rows, gold: str, pred: str, semantics: Comparison,
             time_limit: float | None = None, until: float | None = None) -> Validation:
    """Do ``gold`` and ``pred`` differ on this database, whatever order SQLite picks?

    ``time_limit`` (seconds per query) is for queries nobody has vetted, such as another
    system's prediction on a counterexample (EX-SpotIt+); ``until`` (a
    ``time.monotonic()`` instant) bounds all four runs together: a check's deadline,
    which a query that never ends on this database (a recursion around a cycle) must not
    pass."""

    def limit() -> float | None:
        if until is None:
            return time_limit
        left = max(0.05, until - time.monotonic())
        return left if time_limit is None else min(left, time_limit)

    runs = []
    for reverse in (False, True):
        try:
            conn = build_database(schema, rows, reverse=reverse)
        except (sqlite3.Error, UnicodeEncodeError) as e:
            # (a lone surrogate in a text: no UTF-8 database holds one)
            return Validation(False, None, None, f"the database does not load: {e}")
        if not reverse and (broken := _broken_assumed_key(conn, schema)) is not None:
            conn.close()
            return Validation(False, None, None, f"the database breaks the assumed foreign "
                              f"key {broken} as SQLite's own check reads it")
        try:
            runs.append((run_query(conn, gold, limit()), run_query(conn, pred, limit())))
        finally:
            conn.close()
    g0, p0 = runs[0]
    for g, p in runs:
        for res, who in ((g, "gold"), (p, "pred")):
            if isinstance(res, str):
                return Validation(False, None, None, f"{who} query failed on SQLite: {res}")
    golds = [g for g, _ in runs]
    preds = [p for _, p in runs]
    differ_all = all(results_differ(g, p, semantics) for g in golds for p in preds)
    if differ_all:
        return Validation(True, g0, p0)
    differ_some = any(results_differ(g, p, semantics) for g, p in runs)
    note = ("the results differ only for some orders of tied or unordered rows"
            if differ_some else EQUAL_RESULTS)
    return Validation(False, g0, p0, note)
