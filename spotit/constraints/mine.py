"""Observed constraints of a real SQLite database (``spotit constraints mine``).

Everything is computed by SQLite, with aggregates over each table (COUNT,
COUNT(DISTINCT), MIN/MAX, SUMs of GLOB tests) and a few GROUP BY/HAVING and
EXCEPT queries, never a Python loop over rows. The database is opened
read-only. With ``sample`` each table is replaced (in the connection's TEMP
schema, which shadows it) by at most that many rows drawn with ``ORDER BY
random()``; the bound is written in the output. A temporary copy keeps each
column's affinity but not its collation, so on a sample text compares BINARY.

Found: NOT NULL, UNIQUE, numeric ranges (MIN/MAX of all-numeric columns), small
categorical domains, text patterns (date, datetime, digits, upper, lower),
single-column functional dependencies X -> Y (X not unique, Y not constant;
at most ``max_columns`` columns per table) and inclusion dependencies between
columns of different tables (into a column unique in its table, both numeric
or both text, at most ``max_inclusions`` tested). Each carries its support
(rows, or non-NULL rows, it was tested on) and, below 1, its confidence.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from spotit.constraints.model import (
    Constraint,
    ConstraintSet,
    FunctionalDependency,
    Inclusion,
    InList,
    NotNull,
    Pattern,
    Range,
    Unique,
)
from spotit.constraints.sql import q, row_check
from spotit.errors import ConstraintError
from spotit.schema import Schema, schema_from_sqlite_file

PATTERN_ORDER = ("date", "datetime", "digits", "upper", "lower")


@dataclass
class _Stats:
    name: str
    nonnull: int
    distinct: int
    numeric: int  # integer or real values
    text: int
    minimum: object
    maximum: object
    patterns: dict[str, int]
    cased: dict[str, int]  # values with at least one upper / lower case letter


@dataclass(frozen=True)
class MineOptions:
    tables: tuple[str, ...] = ()  # none: every table
    min_support: int = 1
    confidence: float = 1.0
    sample: int | None = None
    max_domain: int = 10
    max_columns: int = 12
    max_inclusions: int = 200


def _connect(path: str | Path) -> sqlite3.Connection:
    if not Path(path).exists():
        raise ConstraintError(f"database not found: {path}")
    try:
        conn = sqlite3.connect(f"file:{Path(path)}?mode=ro", uri=True)
        conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
    except sqlite3.Error as e:
        raise ConstraintError(f"{path} is not a readable SQLite database: {e}") from None
    return conn


def _pattern_sql(col: str, name: str) -> str:
    check = row_check(Pattern("t", col, pattern=name))
    assert check is not None
    return check.split(" OR ", 1)[1]  # the condition without its "IS NULL OR"


def _column_stats(conn: sqlite3.Connection, table: str, cols: list[str]) -> tuple[int, list]:
    parts = ["COUNT(*)"]
    for c in cols:
        x = q(c)
        parts += [f"COUNT({x})", f"COUNT(DISTINCT {x})",
                  f"SUM(typeof({x}) IN ('integer', 'real'))", f"SUM(typeof({x}) = 'text')",
                  f"MIN({x})", f"MAX({x})"]
        parts += [f"SUM(typeof({x}) = 'text' AND ({_pattern_sql(c, p)}))"
                  for p in PATTERN_ORDER]
        parts += [f"SUM({x} GLOB '*[A-Z]*')", f"SUM({x} GLOB '*[a-z]*')"]
    row = conn.execute(f"SELECT {', '.join(parts)} FROM {q(table)}").fetchone()
    n, out, i = int(row[0]), [], 1
    width = 6 + len(PATTERN_ORDER) + 2
    for c in cols:
        v = row[i:i + width]
        i += width
        pats = {p: int(v[6 + j] or 0) for j, p in enumerate(PATTERN_ORDER)}
        out.append(_Stats(c, int(v[0]), int(v[1]), int(v[2] or 0), int(v[3] or 0), v[4], v[5],
                          pats, {"upper": int(v[-2] or 0), "lower": int(v[-1] or 0)}))
    return n, out


def _per_column(conn, table: str, n: int, st: _Stats, o: MineOptions) -> list[Constraint]:
    out: list[Constraint] = []
    if n and st.nonnull / n >= o.confidence:
        conf = st.nonnull / n
        out.append(NotNull(table, st.name, support=n, confidence=None if conf == 1 else conf))
    if st.nonnull < o.min_support or not st.nonnull:
        return out
    if st.distinct == st.nonnull and st.nonnull > 1:
        out.append(Unique(table, (st.name,), support=st.nonnull))
    if st.numeric == st.nonnull:
        out.append(Range(table, st.name, st.minimum, st.maximum,  # type: ignore[arg-type]
                         support=st.nonnull))
    if st.distinct <= o.max_domain and st.distinct < st.nonnull:
        values = tuple(r[0] for r in conn.execute(
            f"SELECT DISTINCT {q(st.name)} FROM {q(table)} WHERE {q(st.name)} IS NOT NULL "
            f"ORDER BY 1"))
        out.append(InList(table, st.name, values, support=st.nonnull))
    if st.text == st.nonnull:
        for p in PATTERN_ORDER:
            trivial = p in ("upper", "lower") and not st.cased[p]
            if st.patterns[p] == st.nonnull and not trivial:
                out.append(Pattern(table, st.name, pattern=p, support=st.nonnull))
                break
    return out


def _dependencies(conn, table: str, stats: list[_Stats], o: MineOptions) -> list[Constraint]:
    out: list[Constraint] = []
    cols = stats[:o.max_columns]
    for x in cols:
        if x.nonnull < o.min_support or x.distinct == x.nonnull or not x.distinct:
            continue  # a unique column determines everything: nothing to say
        groups = x.distinct
        for y in cols:
            if y is x or (y.distinct <= 1 and y.nonnull in (0, x.nonnull)):
                continue
            (bad,), = conn.execute(
                f"SELECT COUNT(*) FROM (SELECT 1 FROM (SELECT DISTINCT {q(x.name)}, "
                f"{q(y.name)} FROM {q(table)} WHERE {q(x.name)} IS NOT NULL) "
                f"GROUP BY {q(x.name)} HAVING COUNT(*) > 1)").fetchall()
            conf = 1 - bad / groups
            if conf >= o.confidence:
                out.append(FunctionalDependency(table, (x.name,), (y.name,), support=x.nonnull,
                                                confidence=None if conf == 1 else conf))
    return out


def _inclusions(conn, stats: dict[str, list[_Stats]], o: MineOptions) -> list[Constraint]:
    out: list[Constraint] = []
    keys = [(t, s) for t, ss in stats.items() for s in ss
            if s.nonnull and s.distinct == s.nonnull]
    tested = 0
    for t, a in ((t, s) for t, ss in stats.items() for s in ss):
        if a.nonnull < o.min_support or not a.nonnull:
            continue
        kind = "num" if a.numeric == a.nonnull else "text" if a.text == a.nonnull else None
        for u, b in keys:
            if u == t or kind is None or a.distinct > b.distinct:
                continue
            if (b.numeric == b.nonnull) != (kind == "num"):
                continue
            if kind == "num" and not (b.minimum <= a.minimum and a.maximum <= b.maximum):
                continue
            if tested >= o.max_inclusions:
                return out
            tested += 1
            (missing,), = conn.execute(
                f"SELECT COUNT(*) FROM (SELECT {q(a.name)} FROM {q(t)} WHERE {q(a.name)} IS "
                f"NOT NULL EXCEPT SELECT {q(b.name)} FROM {q(u)})").fetchall()
            conf = 1 - missing / a.distinct
            if conf >= o.confidence:
                out.append(Inclusion(t, (a.name,), u, (b.name,), support=a.nonnull,
                                     confidence=None if conf == 1 else conf))
    return out


def mine(db: str | Path, options: MineOptions | None = None) -> tuple[ConstraintSet, Schema]:
    """The constraints observed in the database file ``db``, and its schema."""
    o = options or MineOptions()
    schema = schema_from_sqlite_file(db)
    names = [t.name for t in schema.tables]
    if o.tables:
        names = []
        for want in o.tables:
            t = schema.table(want)
            if t is None:
                raise ConstraintError(f"no table named {want} in {db}")
            names.append(t.name)
    conn = _connect(db)
    try:
        if o.sample is not None:
            for t in names:
                conn.execute(f"CREATE TEMP TABLE {q(t)} AS SELECT * FROM main.{q(t)} "
                             f"ORDER BY random() LIMIT {int(o.sample)}")
        found: list[Constraint] = []
        stats: dict[str, list[_Stats]] = {}
        for t in names:
            cols = [c.name for c in schema.require_table(t).columns]
            n, st = _column_stats(conn, t, cols)
            if n < o.min_support:
                continue
            stats[t] = st
            for s in st:
                found += _per_column(conn, t, n, s, o)
            found += _dependencies(conn, t, st, o)
        found += _inclusions(conn, stats, o)
    except sqlite3.Error as e:
        raise ConstraintError(f"mining {db}: {e}") from None
    finally:
        conn.close()
    return ConstraintSet(tuple(found), (), str(db), o.sample), schema

