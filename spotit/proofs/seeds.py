"""Seed queries for the end-to-end part of ``spotit fuzz``, from a user's files.

The hand-written seeds of :mod:`spotit.proofs.queries` are 30-odd shapes over
two small schemas, each aimed at an operator. Real text-to-SQL output has other
shapes: the bundled corpus (``bundled_seeds``: 269 BIRD-style queries over three
schemas, written here) and a user's own queries, from two inputs:

- a benchmark's gold file with its tables file (BIRD ``dev.json`` +
  ``dev_tables.json``, Spider ``dev.json`` + ``tables.json``), read by the same
  reader as ``spotit evaluate`` (:mod:`spotit.experiments.inputs`); each query
  runs over its own database's schema;
- a file of queries, one per line (text after a tab is ignored, as in BIRD's
  prediction files), with one schema (``--schema``: DDL, a SQLite file or a
  tables.json entry, whatever ``spotit check --schema`` reads).

A seed is kept when sqlglot parses it, SQLite prepares it on the schema and
SpotIt binds it; the others are counted by reason, never silently dropped.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import sqlglot

from spotit.errors import SpotItError
from spotit.frontend.binder import bind
from spotit.frontend.parser import parse
from spotit.schema import Schema, load_schema


@dataclass(frozen=True)
class Seed:
    ddl: str  # the schema the query runs on, as DDL
    sql: str
    origin: str  # where it came from: "FILE:LINE" or "FILE#question_id"


@dataclass
class SeedSet:
    source: str
    seeds: tuple[Seed, ...] = ()
    skipped: Counter = field(default_factory=Counter)  # reason -> seeds left out

    def to_json(self) -> dict:
        return {"file": self.source, "loaded": len(self.seeds),
                "skipped": dict(self.skipped.most_common())}

    def summary(self) -> str:
        left = ", ".join(f"{reason} {n}" for reason, n in self.skipped.most_common())
        return (f"seeds: {len(self.seeds)} from {self.source}"
                + (f" ({sum(self.skipped.values())} left out: {left})" if left else ""))


def load_seeds(path: str | Path, *, schema: str | Path | None = None,
               tables: str | Path | None = None) -> SeedSet:
    """The usable seeds of ``path`` (see the module docstring).

    Raises:
        SpotItError: the file, schema or tables file does not load, or nothing in it
            is usable.
    """
    path = Path(path)
    if tables is not None:
        pairs = _benchmark_queries(path, Path(tables))
    elif schema is not None:
        loaded = load_schema(schema)
        pairs = [(loaded, sql, f"{path}:{line}") for line, sql in _lines(path)]
    else:
        raise SpotItError("seeds need a schema: --schema FILE for a file of queries, or "
                          "--tables FILE for a benchmark's dev.json")
    out = SeedSet(str(path))
    seeds = []
    for sch, sql, origin in pairs:
        reason = _unusable(sch, sql)
        if reason is None:
            seeds.append(Seed(sch.ddl, sql, origin))
        else:
            out.skipped[reason] += 1
    out.seeds = tuple(seeds)
    if not seeds:
        raise SpotItError(f"{path}: no usable seed query ({out.summary()})")
    return out


CORPUS = ("school", "racing", "retail")  # spotit/examples/seeds/<name>.sql, .queries.sql


@lru_cache(maxsize=1)
def bundled_seeds() -> tuple[Seed, ...]:
    """The bundled corpus: BIRD-style queries (joins, evidence formulas, dates as text,
    quoted identifiers, ORDER BY ... LIMIT, subqueries) written for SpotIt over three
    schemas in ``spotit/examples/seeds`` (so the package needs no data set)."""
    folder = Path(__file__).resolve().parent.parent / "examples" / "seeds"
    out: list[Seed] = []
    for name in CORPUS:
        out += load_seeds(folder / f"{name}.queries.sql", schema=folder / f"{name}.sql").seeds
    return tuple(out)


def _lines(path: Path) -> list[tuple[int, str]]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise SpotItError(f"{path}: cannot read the seed queries: {e}") from e
    out = []
    for i, line in enumerate(text.splitlines(), 1):
        sql = line.split("\t", 1)[0].strip().rstrip(";").strip()
        if sql and not sql.startswith("--"):
            out.append((i, sql))
    return out


def _benchmark_queries(dev: Path, tables: Path) -> list[tuple[Schema, str, str]]:
    from spotit.experiments.inputs import load_benchmark

    try:
        first = json.loads(dev.read_text(encoding="utf-8"))[0]
    except (OSError, UnicodeDecodeError, ValueError, IndexError, KeyError, TypeError) as e:
        raise SpotItError(f"{dev}: not a benchmark's dev.json: {e}") from e
    kind = "bird" if isinstance(first, dict) and "SQL" in first else "spider"
    bench = load_benchmark(kind, dev, tables)
    out = []
    for q in bench.questions:
        try:
            out.append((bench.schema(q.db_id), q.gold, f"{dev}#{q.question_id}"))
        except SpotItError:
            continue  # a schema that does not load: its questions are left out below
    return out


def _unusable(schema: Schema, sql: str) -> str | None:
    """Why ``sql`` cannot seed the fuzz on ``schema``, or None."""
    try:
        sqlglot.parse_one(sql, dialect="sqlite")
    except sqlglot.errors.SqlglotError:
        return "sqlglot cannot parse it"
    conn = schema.create_database()
    try:
        conn.execute(f"EXPLAIN {sql}")
    except sqlite3.Error as e:
        return f"SQLite rejects it ({str(e).split(':')[0]})"
    finally:
        conn.close()
    try:
        bind(parse(sql), schema)
    except SpotItError as e:
        return f"SpotIt does not support it ({str(e).split(':')[0]})"
    return None
