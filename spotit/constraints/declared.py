"""Which declared constraints a real database's data break.

SpotIt's ``declared`` data level assumes every declared constraint holds. SQLite
enforces some of them (NOT NULL, UNIQUE and PRIMARY KEY declared in the database's own
DDL, CHECK), but not foreign keys unless ``PRAGMA foreign_keys = ON`` -- and a schema
given beside the database (a benchmark's tables.json) may declare keys the database
itself never had. Before a check against a real database, each declared constraint is
tested on its data with SQL aggregates (read-only, a time limit per query), and the
verdicts assume only those that hold there (``Schema.assume_only``).

Tested, each as SQLite computes it:

- ``foreign_key``: child rows whose key is not NULL and has no parent row with an
  equal key (``(c1, ..) NOT IN (SELECT p1, .. FROM parent WHERE p1 IS NOT NULL ..)``:
  the parent's affinity and collation apply, as in SQLite's own check);
- ``unique`` (PRIMARY KEY and UNIQUE): non-NULL keys that occur more than once;
- ``not_null``: NULLs in a NOT NULL column;
- ``check``: rows a CHECK constraint is false on (SQLite enforces CHECK on every insert
  unless ``PRAGMA ignore_check_constraints``; reported, still assumed: the DDL every
  counterexample is built with declares it);
- ``declared_type``: values outside the column's declared domain (text in an INTEGER
  column, a malformed date in a DATE column): ``Column.domain``'s storage classes, and
  SpotIt's reading of date text for DATE/DATETIME columns (``date_text_parts``: SQLite's
  own ``date('2001-02-30')`` is ``'2001-02-30'``).

A constraint whose test fails (a missing table, the time limit) is ``unchecked``, with
why, and still assumed: nothing says the data break it.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from spotit.constraints.sql import q
from spotit.schema import ForeignKey, Schema, Table

DEFAULT_TIME_LIMIT = 30.0  # seconds per test query
KINDS = ("foreign_key", "unique", "not_null", "check", "declared_type")


@dataclass(frozen=True)
class Breach:
    """A declared constraint the data break, and how many rows break it."""

    kind: str
    table: str
    columns: tuple[str, ...]
    rows: int
    parent: str | None = None  # foreign_key: the referenced table
    parent_columns: tuple[str, ...] = ()
    example: Any = None  # one offending value (key), for people

    def describe(self) -> str:
        cols = ", ".join(self.columns)
        if self.kind == "foreign_key":
            return (f"foreign key {self.table}({cols}) -> {self.parent}"
                    f"({', '.join(self.parent_columns)}): {self.rows} rows point nowhere")
        if self.kind == "unique":
            return f"key {self.table}({cols}): {self.rows} rows share a value"
        if self.kind == "not_null":
            return f"NOT NULL {self.table}.{cols}: {self.rows} NULLs"
        if self.kind == "check":
            return (f"CHECK ({cols}) of {self.table}: {self.rows} rows fail it (still "
                    "assumed: the schema text declares it)")
        return f"declared type of {self.table}.{cols}: {self.rows} values outside it"

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["columns"] = list(self.columns)
        d["parent_columns"] = list(self.parent_columns)
        d["description"] = self.describe()
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Breach:
        return cls(d["kind"], d["table"], tuple(d["columns"]), int(d["rows"]),
                   d.get("parent"), tuple(d.get("parent_columns") or ()), d.get("example"))


@dataclass
class DeclaredCheck:
    """What the data of one database say about its declared constraints."""

    database: str
    breaches: list[Breach] = field(default_factory=list)
    checked: int = 0
    unchecked: list[tuple[str, str]] = field(default_factory=list)  # (constraint, why)
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {"database": self.database, "checked": self.checked,
                "breaches": [b.to_json() for b in self.breaches],
                "unchecked": [{"constraint": c, "why": w} for c, w in self.unchecked],
                "seconds": round(self.seconds, 3)}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> DeclaredCheck:
        return cls(d["database"], [Breach.from_json(b) for b in d.get("breaches") or []],
                   int(d.get("checked") or 0),
                   [(u["constraint"], u["why"]) for u in d.get("unchecked") or []],
                   float(d.get("seconds") or 0.0))


def check_declared(schema: Schema, database: str | Path, *,
                   time_limit: float = DEFAULT_TIME_LIMIT) -> DeclaredCheck:
    """Test every declared constraint of ``schema`` on ``database`` (opened read-only)."""
    start = time.monotonic()
    out = DeclaredCheck(str(database))
    try:
        conn = sqlite3.connect(f"file:{Path(database)}?mode=ro", uri=True)
        conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
    except sqlite3.Error as e:
        out.unchecked.append(("every constraint", f"the database does not open: {e}"))
        return out
    conn.create_function("spotit_in_domain", 2, _in_domain, deterministic=True)
    try:
        for t in schema.tables:
            for name, sql, make in _tests(schema, t):
                found = _run(conn, sql, time_limit)
                if isinstance(found, str):
                    out.unchecked.append((name, found))
                    continue
                out.checked += 1
                breach = make(found)
                if breach is not None:
                    out.breaches.append(breach)
    finally:
        conn.close()
    out.seconds = time.monotonic() - start
    return out


def _run(conn: sqlite3.Connection, sql: str, time_limit: float) -> tuple | str:
    """The query's one row, or why it failed."""
    from spotit.validate import Deadline

    try:
        with Deadline(conn, time.monotonic() + time_limit) as d:
            row = conn.execute(sql).fetchone()
        if d.fired:
            return f"no answer within {time_limit:g} s"
        return tuple(row) if row is not None else (0, None)
    except sqlite3.Error as e:
        if "interrupt" in str(e).lower():
            return f"no answer within {time_limit:g} s"
        return f"SQLite: {e}"


def _tests(schema: Schema, t: Table):
    """(description, SQL returning (count, example), breach maker) per constraint."""
    name = q(t.name)
    for fk in t.foreign_keys:
        yield (_fk_text(t, fk), _fk_sql(schema, t, fk),
               lambda r, fk=fk: None if not r[0] else Breach(
                   "foreign_key", t.name, tuple(fk.columns), int(r[0]), fk.ref_table,
                   tuple(fk.ref_columns), r[1]))
    for key in t.keys:
        cols = ", ".join(q(c) for c in key)
        nonnull = " AND ".join(f"{q(c)} IS NOT NULL" for c in key)
        sql = (f"SELECT COALESCE(SUM(n), 0), MIN(k) FROM (SELECT COUNT(*) AS n, "
               f"{q(key[0])} AS k FROM {name} WHERE {nonnull} GROUP BY {cols} "
               "HAVING COUNT(*) > 1)")
        yield (f"key {t.name}({', '.join(key)})", sql,
               lambda r, key=key: None if not r[0] else Breach(
                   "unique", t.name, tuple(key), int(r[0]), example=r[1]))
    for i, check in enumerate(t.checks):
        yield (f"CHECK ({check}) of {t.name}",
               f"SELECT COUNT(*), NULL FROM {name} WHERE NOT ({check})",
               lambda r, i=i, check=check: None if not r[0] else Breach(
                   "check", t.name, (check,), int(r[0])))
    for c in t.columns:
        if c.not_null:
            yield (f"NOT NULL {t.name}.{c.name}",
                   f"SELECT COUNT(*), NULL FROM {name} WHERE {q(c.name)} IS NULL",
                   lambda r, c=c: None if not r[0] else Breach(
                       "not_null", t.name, (c.name,), int(r[0])))
        test = _type_test(c)
        if test is not None:
            yield (f"declared type of {t.name}.{c.name}",
                   f"SELECT COUNT(*), MIN({q(c.name)}) FROM {name} WHERE {q(c.name)} IS NOT "
                   f"NULL AND NOT ({test})",
                   lambda r, c=c: None if not r[0] else Breach(
                       "declared_type", t.name, (c.name,), int(r[0]), example=r[1]))


def _fk_text(t: Table, fk: ForeignKey) -> str:
    return (f"foreign key {t.name}({', '.join(fk.columns)}) -> {fk.ref_table}"
            f"({', '.join(fk.ref_columns)})")


def _fk_sql(schema: Schema, t: Table, fk: ForeignKey) -> str:
    child = [q(c) for c in fk.columns]
    parent = [q(c) for c in fk.ref_columns]
    lhs = child[0] if len(child) == 1 else f"({', '.join(child)})"
    nonnull_child = " AND ".join(f"{c} IS NOT NULL" for c in child)
    nonnull_parent = " AND ".join(f"{p} IS NOT NULL" for p in parent)
    return (f"SELECT COUNT(*), MIN({child[0]}) FROM {q(t.name)} WHERE {nonnull_child} AND "
            f"{lhs} NOT IN (SELECT {', '.join(parent)} FROM {q(fk.ref_table)} "
            f"WHERE {nonnull_parent})")


def _type_test(c) -> str | None:
    """SQL true of a non-NULL value inside the column's declared domain (None: every
    value is, as for TEXT or untyped columns)."""
    from spotit.ir.types import Domain, StorageClass

    declared = c.domain if not c.any_storage else type(c)(
        c.name, c.declared_type, c.not_null, c.collation, c.strict).domain
    if declared in (Domain.DATE, Domain.DATETIME):
        # SpotIt's own reading of date text (SQLite's date() takes '2001-02-30')
        return f"spotit_in_domain({q(c.name)}, '{declared.value}')"
    classes = declared.storage_classes
    names = {StorageClass.INTEGER: "integer", StorageClass.REAL: "real",
             StorageClass.TEXT: "text"}
    allowed = sorted(names[s] for s in classes if s in names)
    if len(allowed) == 3:
        return None
    return f"typeof({q(c.name)}) IN ({', '.join(repr(a) for a in allowed)})"


def _in_domain(value: Any, domain: str) -> int:
    from spotit.encodings.calendar import date_text_parts
    from spotit.ir.types import Domain

    return int(date_text_parts(value, Domain(domain)) is not None)


def summary_lines(check: DeclaredCheck) -> list[str]:
    """One line per breach, for the text output and the report."""
    return [b.describe() for b in check.breaches]
