"""The results store: one embedded SQLite file per evaluation (``--results``).

Tables (documented for users in docs/results-store.md):

- ``pairs``: one row per (system, question, settings): everything one check
  produced, keyed by a hash of its inputs and settings (``pair_key``). A
  re-run with the same key reuses the row; a changed prediction, gold query,
  schema or setting is a new key, so it is checked again.
- ``runs``: one row per ``spotit evaluate`` invocation: its settings and
  provenance (SpotIt version, solver versions, machine), started/finished.
- ``run_pairs``: which pairs a run covers, and what that run concluded across
  systems (EX-SpotIt+: ``refuted_by``, the system whose counterexample
  refuted this prediction).
- ``run_schemas``: the schema (DDL) and assumed constraints of each database a run
  read, so that later work on the run (``spotit audit``) needs only this file.
- ``audits``, ``audit_findings``: a gold audit of a run (``spotit.experiments.audit``);
  its own checks (between two predictions, or a prediction and a corrected gold) are
  ordinary ``pairs`` rows whose system is ``AUDIT_SYSTEM``, in no run.

Every write is one transaction in WAL mode: a ``kill -9`` at any moment
leaves every row committed before it, and nothing half-written.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from spotit.errors import SpotItError

STORE_VERSION = 1  # bump when the meaning of a stored row changes: old rows are re-run
AUDIT_SYSTEM = "<audit>"  # the system of the audit's own checks (not a --pred name)


@dataclass
class PairRecord:
    """What one (system, question) check produced, with the inputs that made it."""

    key: str
    system: str
    question_id: str
    db_id: str
    gold: str
    pred: str | None  # None: the prediction was empty, missing or malformed
    semantics: str
    verdict: str
    reason: str = ""
    seconds: float = 0.0
    question: str = ""
    difficulty: str = ""
    cex_bound: int | None = None
    proven_bound: int = 0
    found_by: str | None = None
    counterexample: dict[str, list[dict[str, Any]]] | None = None  # table -> rows
    gold_result: list[list] | None = None
    pred_result: list[list] | None = None
    vacuous: list[str] = field(default_factory=list)
    ex_test: bool | None = None  # None: unknown (no database, no label)
    ex_test_source: str = ""  # "database", "labels:<file>", or ""
    ex_test_reason: str = ""  # why EX-TEST failed or is unknown
    result: dict[str, Any] = field(default_factory=dict)  # the full CheckResult JSON

    def to_row(self) -> dict[str, Any]:
        row = asdict(self)
        for name in _JSON_FIELDS:
            row[name] = json.dumps(row[name], default=_json_default)
        row["ex_test"] = None if self.ex_test is None else int(self.ex_test)
        return row

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> PairRecord:
        data = {f.name: row[f.name] for f in fields(cls)}
        for name in _JSON_FIELDS:
            data[name] = json.loads(data[name]) if data[name] is not None else None
        data["vacuous"] = data["vacuous"] or []
        data["result"] = data["result"] or {}
        data["ex_test"] = None if row["ex_test"] is None else bool(row["ex_test"])
        return cls(**data)


_JSON_FIELDS = ("counterexample", "gold_result", "pred_result", "vacuous", "result")
_COLUMNS = [f.name for f in fields(PairRecord)]


def _json_default(v):
    if isinstance(v, bytes):
        return v.hex()
    if isinstance(v, tuple):
        return list(v)
    return str(v)


def pair_key(*, system: str, question_id: str, db_id: str, gold: str, pred: str | None,
             schema_fingerprint: str, settings: dict[str, Any], spotit_version: str) -> str:
    """SHA-256 of canonical JSON over everything that decides a check's outcome."""
    payload = {
        "system": system, "question_id": str(question_id), "db_id": db_id, "gold": gold,
        "pred": pred, "schema": schema_fingerprint, "settings": settings,
        "spotit": spotit_version, "store": STORE_VERSION,
    }
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


class StoreError(SpotItError):
    """A results file that cannot be opened or is not SQLite."""


class ResultsStore:
    """The SQLite results file; safe to reopen and resume after any interruption."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        if self.path.is_dir():
            raise StoreError(f"{self.path} is a directory, not a results file")
        if not self.path.parent.is_dir():
            raise StoreError(f"{self.path}: its directory {self.path.parent} does not exist")
        try:
            self.conn = sqlite3.connect(self.path, timeout=60, isolation_level=None)
            self.conn.row_factory = sqlite3.Row
            self._refuse_foreign()
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self._create()
        except sqlite3.Error as e:
            raise StoreError(f"{self.path} cannot be opened as a SpotIt results file "
                             f"(SQLite: {e})") from None

    def _refuse_foreign(self) -> None:
        """Another program's database is left as it was: no table, no WAL switch."""
        tables = [r[0] for r in self.conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        if tables and "meta" not in tables:
            self.conn.close()
            shown = ", ".join(tables[:5]) + (", ..." if len(tables) > 5 else "")
            raise StoreError(f"{self.path} is a SQLite database but not a SpotIt results "
                             f"file (its tables: {shown}); give a new file")

    def _create(self) -> None:
        cols = ", ".join(f'"{c}"' + (" TEXT PRIMARY KEY" if c == "key" else "")
                         for c in _COLUMNS)
        with self._tx():
            self.conn.execute(f"CREATE TABLE IF NOT EXISTS pairs ({cols}, created REAL)")
            self.conn.execute(
                "CREATE TABLE IF NOT EXISTS runs (run_id INTEGER PRIMARY KEY, started REAL, "
                "finished REAL, settings TEXT, provenance TEXT)")
            self.conn.execute(
                "CREATE TABLE IF NOT EXISTS run_pairs (run_id INTEGER, key TEXT, system TEXT, "
                "question_id TEXT, refuted_by TEXT, PRIMARY KEY (run_id, key))")
            self.conn.execute("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value)")
            self.conn.execute(
                "CREATE TABLE IF NOT EXISTS run_schemas (run_id INTEGER, db_id TEXT, "
                "fingerprint TEXT, ddl TEXT, constraints TEXT, data_check TEXT, "
                "PRIMARY KEY (run_id, db_id))")
            self.conn.execute(
                "CREATE TABLE IF NOT EXISTS audits (run_id INTEGER PRIMARY KEY, started REAL, "
                "finished REAL, settings TEXT)")
            self.conn.execute(
                "CREATE TABLE IF NOT EXISTS audit_findings (run_id INTEGER, question_id TEXT, "
                "finding TEXT, PRIMARY KEY (run_id, question_id))")
            self.conn.execute("INSERT OR IGNORE INTO meta VALUES ('store_version', ?)",
                              (STORE_VERSION,))
        have = {r[1] for r in self.conn.execute("PRAGMA table_info(run_schemas)")}
        if "data_check" not in have:  # written by an earlier SpotIt of this format
            with self._tx():
                self.conn.execute("ALTER TABLE run_schemas ADD COLUMN data_check TEXT")
        version = self.conn.execute(
            "SELECT value FROM meta WHERE name = 'store_version'").fetchone()[0]
        if int(version) != STORE_VERSION:
            raise ValueError(f"{self.path} was written by another SpotIt results format "
                             f"(version {version}, this is {STORE_VERSION}); use a new file")

    def _tx(self):
        return _Transaction(self.conn)

    # ------------------------------------------------------------------ pairs

    def known_keys(self) -> set[str]:
        return {r[0] for r in self.conn.execute("SELECT key FROM pairs")}

    def put(self, records: Iterable[PairRecord]) -> None:
        """Insert (or replace) records in one transaction."""
        rows = [r.to_row() for r in records]
        if not rows:
            return
        names = ", ".join(f'"{c}"' for c in _COLUMNS)
        marks = ", ".join(f":{c}" for c in _COLUMNS)
        now = time.time()
        with self._tx():
            self.conn.executemany(
                f"INSERT OR REPLACE INTO pairs ({names}, created) VALUES ({marks}, {now})", rows)

    def get(self, key: str) -> PairRecord | None:
        row = self.conn.execute("SELECT * FROM pairs WHERE key = ?", (key,)).fetchone()
        return PairRecord.from_row(row) if row is not None else None

    # ------------------------------------------------------------------ runs

    def start_run(self, settings: dict[str, Any], provenance: dict[str, Any]) -> int:
        with self._tx():
            cur = self.conn.execute(
                "INSERT INTO runs (started, settings, provenance) VALUES (?, ?, ?)",
                (time.time(), json.dumps(settings, sort_keys=True, default=str),
                 json.dumps(provenance, sort_keys=True, default=str)))
        return int(cur.lastrowid)

    def add_to_run(self, run_id: int, records: Iterable[PairRecord]) -> None:
        rows = [(run_id, r.key, r.system, r.question_id) for r in records]
        with self._tx():
            self.conn.executemany(
                "INSERT OR IGNORE INTO run_pairs (run_id, key, system, question_id) "
                "VALUES (?, ?, ?, ?)", rows)

    def set_refuted_by(self, run_id: int, refutations: dict[str, str]) -> None:
        """EX-SpotIt+: key -> the system whose counterexample refutes that prediction."""
        with self._tx():
            self.conn.execute("UPDATE run_pairs SET refuted_by = NULL WHERE run_id = ?",
                              (run_id,))
            self.conn.executemany(
                "UPDATE run_pairs SET refuted_by = ? WHERE run_id = ? AND key = ?",
                [(system, run_id, key) for key, system in refutations.items()])

    def put_schemas(self, run_id: int, schemas: dict[str, tuple[str, str, Any]],
                    data_checks: dict[str, Any] | None = None) -> None:
        """db_id -> (fingerprint, DDL, assumed constraints or None) of a run, and what
        each test database's data say of the declared constraints."""
        checks = data_checks or {}
        with self._tx():
            self.conn.executemany(
                "INSERT OR REPLACE INTO run_schemas VALUES (?, ?, ?, ?, ?, ?)",
                [(run_id, db, fp, ddl, None if cs is None else json.dumps(cs, default=str),
                  json.dumps(checks[db], default=str) if db in checks else None)
                 for db, (fp, ddl, cs) in schemas.items()])

    def data_checks(self, run_id: int) -> dict[str, Any]:
        """db_id -> the stored check of its test database's data (``DeclaredCheck``
        JSON), for the databases a run checked."""
        return {r["db_id"]: json.loads(r["data_check"]) for r in self.conn.execute(
            "SELECT db_id, data_check FROM run_schemas WHERE run_id = ? AND data_check IS "
            "NOT NULL", (run_id,))}

    def schemas(self, run_id: int) -> dict[str, tuple[str, str, Any]]:
        """db_id -> (fingerprint, DDL, constraints) stored for a run ({} for runs written
        before schemas were stored)."""
        return {r["db_id"]: (r["fingerprint"], r["ddl"],
                             json.loads(r["constraints"]) if r["constraints"] else None)
                for r in self.conn.execute("SELECT * FROM run_schemas WHERE run_id = ?",
                                           (run_id,))}

    def start_audit(self, run_id: int, settings: dict[str, Any]) -> None:
        with self._tx():
            self.conn.execute("INSERT OR REPLACE INTO audits VALUES (?, ?, NULL, ?)",
                              (run_id, time.time(), json.dumps(settings, sort_keys=True)))

    def put_findings(self, run_id: int, findings: Iterable[dict[str, Any]]) -> None:
        """Replace the audit findings of a run (one JSON object per question)."""
        with self._tx():
            self.conn.execute("DELETE FROM audit_findings WHERE run_id = ?", (run_id,))
            self.conn.executemany(
                "INSERT INTO audit_findings VALUES (?, ?, ?)",
                [(run_id, f["question_id"], json.dumps(f, default=_json_default))
                 for f in findings])
            self.conn.execute("UPDATE audits SET finished = ? WHERE run_id = ?",
                              (time.time(), run_id))

    def audit(self, run_id: int) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
        """(settings, findings) of the run's finished audit, or None."""
        row = self.conn.execute("SELECT * FROM audits WHERE run_id = ? AND finished IS NOT "
                                "NULL", (run_id,)).fetchone()
        if row is None:
            return None
        findings = [json.loads(r[0]) for r in self.conn.execute(
            "SELECT finding FROM audit_findings WHERE run_id = ? "
            "ORDER BY CAST(question_id AS INTEGER), question_id", (run_id,))]
        return json.loads(row["settings"] or "{}"), findings

    def finish_run(self, run_id: int) -> None:
        with self._tx():
            self.conn.execute("UPDATE runs SET finished = ? WHERE run_id = ?",
                              (time.time(), run_id))

    def runs(self) -> list[dict[str, Any]]:
        return [{"run_id": r["run_id"], "started": r["started"], "finished": r["finished"],
                 "settings": json.loads(r["settings"] or "{}"),
                 "provenance": json.loads(r["provenance"] or "{}")}
                for r in self.conn.execute("SELECT * FROM runs ORDER BY run_id")]

    def latest_run(self) -> dict[str, Any] | None:
        runs = self.runs()
        return runs[-1] if runs else None

    def run_records(self, run_id: int) -> Iterator[tuple[PairRecord, str | None]]:
        """The records a run covers, with their EX-SpotIt+ ``refuted_by``."""
        for row in self.conn.execute(
                "SELECT p.*, rp.refuted_by AS refuted_by FROM run_pairs rp "
                "JOIN pairs p ON p.key = rp.key WHERE rp.run_id = ? "
                "ORDER BY rp.system, CAST(rp.question_id AS INTEGER), rp.question_id",
                (run_id,)):
            yield PairRecord.from_row(row), row["refuted_by"]

    def records(self) -> Iterator[PairRecord]:
        """Every stored record, of every run (and the audit's own checks)."""
        for row in self.conn.execute("SELECT * FROM pairs ORDER BY system, question_id"):
            yield PairRecord.from_row(row)

    def close(self) -> None:
        self.conn.close()


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT (ROLLBACK on an exception)."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn

    def __enter__(self):
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, exc_type, exc, tb) -> None:
        self.conn.execute("ROLLBACK" if exc_type else "COMMIT")
