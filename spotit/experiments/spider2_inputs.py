"""Spider 2.0-lite's SQLite tasks as a benchmark: task list, gold SQL, evaluation
metadata and schemas, in the layout of the Spider2 repository (or flattened).

- ``--dev``: ``spider2-lite.jsonl`` (one task per line: ``instance_id``, ``db``,
  ``question``); only the SQLite tasks (``local*``) are read.
- ``--tables``: the schemas, per database ``<db>.sql`` (CREATE TABLE statements) or
  ``<db>/DDL.csv`` (the repository's ``resource/databases/sqlite``; a ``DDL`` column),
  folder names matched without regard to case, ``-`` or ``_``.
- ``--gold``: the folder of gold SQL files ``<instance_id>.sql`` (or its parent
  holding ``sql/``) and the metadata ``spider2lite_eval*.jsonl``
  (``condition_cols``, ``ignore_order``) in it or its parent.

Where a task has several gold results (``<id>_a.csv``, ``_b``, ... with one list of
condition columns each), the public SQL's result is compared on the first list that
fits its width (the others' results are not public: a prediction that matches only
another of them passes the evaluator but not SpotIt's comparison).

A task is a question only with both a public gold query and its metadata; the
others are counted in ``Spider2Tasks.skipped`` (the evaluator scores no task
without metadata; most gold is not public). Each question's semantics is
``spider2`` (or ``spider2-ordered``) with its condition columns.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

from spotit.encodings.equivalence import Spider2
from spotit.errors import SchemaError
from spotit.experiments.inputs import Benchmark, InputError, Question, json_object_line

csv.field_size_limit(1 << 26)


@dataclass
class Spider2Tasks:
    benchmark: Benchmark
    skipped: dict[str, int] = field(default_factory=dict)  # why -> how many tasks


def load_spider2(dev: str | Path, tables: str | Path, gold: str | Path | None = None
                 ) -> Spider2Tasks:
    dev_path = Path(dev)
    gold_dir = _gold_dir(dev_path, gold)
    sql_dir = gold_dir / "sql" if (gold_dir / "sql").is_dir() else gold_dir
    meta = _metadata(gold_dir)
    tasks = _tasks(dev_path)
    skipped: dict[str, int] = {}
    questions: list[Question] = []
    for t in tasks:
        qid = t["instance_id"]
        if not qid.startswith("local"):
            _count(skipped, "not a SQLite task")
            continue
        path = sql_dir / f"{qid}.sql"
        if not path.is_file():
            _count(skipped, "gold SQL not public")
            continue
        if qid not in meta:
            _count(skipped, "no evaluation metadata")
            continue
        try:
            sql = path.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as e:
            raise InputError(f"{path}: cannot read: {e}") from None
        questions.append(Question(qid, t["db"], sql, question=t.get("question") or "",
                                  semantics=_semantics(meta[qid], path).value))
    if not questions:
        raise InputError(f"{dev_path}: no SQLite task has both a gold query in {sql_dir} "
                         f"and evaluation metadata")
    ddl = {db: _schema_text(Path(tables), db) for db in sorted({q.db_id for q in questions})}
    return Spider2Tasks(Benchmark("spider2", questions, ddl=ddl), skipped)


def _count(skipped: dict[str, int], why: str) -> None:
    skipped[why] = skipped.get(why, 0) + 1


def _gold_dir(dev: Path, gold: str | Path | None) -> Path:
    # by default the repository layout: spider2-lite/evaluation_suite/gold by the tasks
    found = Path(gold) if gold is not None else dev.parent / "evaluation_suite" / "gold"
    if not found.is_dir():
        raise InputError(f"no gold folder {found}: give it with --gold (the folder of "
                         f"<instance_id>.sql files and spider2lite_eval.jsonl)")
    return found


def _metadata(gold_dir: Path) -> dict[str, dict]:
    files = sorted(gold_dir.glob("spider2lite_eval*.jsonl")) or sorted(
        gold_dir.parent.glob("spider2lite_eval*.jsonl"))
    if not files:
        raise InputError(f"no spider2lite_eval*.jsonl (condition_cols, ignore_order) in "
                         f"{gold_dir} or {gold_dir.parent}")
    out: dict[str, dict] = {}
    for path in files:
        for i, entry in enumerate(_jsonl(path)):
            if not isinstance(entry.get("instance_id"), str):
                raise InputError(f"{path}: line {i + 1}: no instance_id")
            out[entry["instance_id"]] = entry
    return out


def _tasks(path: Path) -> list[dict]:
    tasks = []
    for i, entry in enumerate(_jsonl(path)):
        for key in ("instance_id", "db"):
            if not isinstance(entry.get(key), str):
                raise InputError(f"{path}: line {i + 1}: {key} missing or not text")
        tasks.append(entry)
    return tasks


def _jsonl(path: Path) -> list[dict]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: cannot read: {e}") from None
    return [json_object_line(line, f"{path}: line {i + 1}")
            for i, line in enumerate(lines) if line.strip()]


def _semantics(entry: dict, where: Path) -> Spider2:
    cols = entry.get("condition_cols") or None
    if cols is None:
        alternatives = None
    elif all(isinstance(c, list) or c is None for c in cols):
        # one list per gold result (<id>_a.csv, _b, ...): the first that fits
        alternatives = [c or [] for c in cols]
        if not all(alternatives):  # a result compared on all columns: no list fits all
            alternatives = None
    else:
        alternatives = [cols]
    if alternatives is not None and not all(isinstance(i, int) and i >= 0
                                            for alt in alternatives for i in alt):
        raise InputError(f"{where.name}: condition_cols {cols!r}: expected a list of "
                         f"column indexes (or one list per gold result)")
    return Spider2(tuple(tuple(a) for a in alternatives) if alternatives else None,
                   not bool(entry.get("ignore_order")))


def _norm(name: str) -> str:
    return name.lower().replace("-", "_")


def _schema_text(tables: Path, db: str) -> str | SchemaError:
    """The CREATE TABLE text of ``db``, or why there is none (costs its tasks only)."""
    if not tables.is_dir():
        raise InputError(f"{tables}: expected the folder of schemas (<db>.sql or <db>/DDL.csv)")
    for entry in tables.iterdir():
        if _norm(entry.stem if entry.is_file() else entry.name) != _norm(db):
            continue
        if entry.is_file() and entry.suffix.lower() == ".sql":
            return entry.read_text(encoding="utf-8")
        ddl_csv = entry / "DDL.csv"
        if entry.is_dir() and ddl_csv.is_file():
            return _from_ddl_csv(ddl_csv)
    return SchemaError(f"no schema for database {db} in {tables} (<db>.sql or <db>/DDL.csv)")


def _from_ddl_csv(path: Path) -> str | SchemaError:
    with path.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows or "DDL" not in rows[0]:
        return SchemaError(f"{path}: no DDL column")
    # SQLite's own tables (sqlite_sequence, sqlite_stat1) cannot be created
    kept = [r["DDL"].strip().rstrip(";") for r in rows if r.get("DDL")
            and not str(r.get("table_name", "")).lower().startswith("sqlite_")]
    return ";\n".join(kept) + ";"
