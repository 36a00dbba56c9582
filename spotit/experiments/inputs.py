"""Reading what users already have: BIRD/Spider benchmarks, prediction files, EX labels.

Everything is checked when it is loaded, and a file that cannot be read as what it
claims to be stops the run at once with an ``InputError`` naming the file (and the
entry): a half-read prediction file would silently shift every later answer onto the
wrong question. What is wrong with a *single* prediction (empty, a placeholder such
as ``SELECT``, no entry for the question) is not an input error: it is recorded on
that question's ``Prediction`` so the run reports it and goes on.

Prediction formats are told apart by content, not by name: BIRD's official JSON
object (``"SQL\\t----- bird -----\\tdb_id"``), a plain JSON object, a JSON list (of SQL
strings in question order, or of objects with a ``question_id``), and text with one
SQL per line (optionally ``SQL<TAB>db_id``). SQL is kept as written apart from the
whitespace around it (no trailing ``;`` is dropped: SQLite accepts it).

Spider has no question ids, so a question's id is its 0-based index in dev.json,
and its comparison semantics is ``list`` exactly when the gold's outermost query has
ORDER BY -- decided by parsing the gold with sqlglot, not by looking for the words
(falling back to the text test only when sqlglot cannot parse it).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from spotit.errors import SchemaError, SpotItError
from spotit.schema import Schema, schema_from_ddl, schema_from_tables_entry

BENCHMARKS = ("bird", "spider", "spider2")
BIRD_SEPARATOR = "\t----- bird -----\t"
PLACEHOLDERS = frozenset({"select", "error", "none", "null", "n/a", "-"})
_WRAPPING = " \t\r\n;()[]{}<>\"'`"  # stripped before comparing with PLACEHOLDERS
SQL_KEYS = ("SQL", "sql", "pred", "predicted_sql")  # JSON entry keys that hold the SQL, in order


class InputError(SpotItError):
    """A benchmark, prediction or label file that cannot be used; ``str()`` is one line."""

    kind = "input"

    def __init__(self, message: str):
        super().__init__(" ".join(message.split()))


# --------------------------------------------------------------------------- benchmark


@dataclass(frozen=True)
class Question:
    question_id: str
    db_id: str
    gold: str
    question: str = ""
    evidence: str = ""
    difficulty: str = ""
    semantics: str = "set"


@dataclass
class Benchmark:
    """The questions of one dev set and the schemas of their databases (loaded on demand).

    Schemas come from a tables.json (``tables_path``: BIRD, Spider) or, for a benchmark
    that carries one schema per question (VeriEQL's), from ``ddl``: db_id -> CREATE TABLE
    text, or the ``SchemaError`` that says why that schema cannot be built."""

    name: str
    questions: list[Question]
    tables_path: Path | None = None
    ddl: dict[str, str | SchemaError] | None = None
    _entries: dict[str, dict] | None = field(default=None, init=False, repr=False, compare=False)
    _schemas: dict[str, Schema | SchemaError] = field(
        default_factory=dict, init=False, repr=False, compare=False)
    _by_id: dict[str, Question] = field(default_factory=dict, init=False, repr=False,
                                        compare=False)

    def __post_init__(self) -> None:
        if (self.tables_path is None) == (self.ddl is None):
            raise ValueError("a Benchmark needs exactly one of tables_path and ddl")
        if self.tables_path is not None:
            self.tables_path = Path(self.tables_path)
        self._by_id = {q.question_id: q for q in self.questions}

    def question(self, question_id: str) -> Question | None:
        return self._by_id.get(str(question_id))

    def schema(self, db_id: str) -> Schema:
        """The schema of ``db_id`` from the tables file; a failure is cached and re-raised."""
        if db_id not in self._schemas:
            try:
                self._schemas[db_id] = self._build(db_id)
            except SchemaError as e:
                self._schemas[db_id] = e
        found = self._schemas[db_id]
        if isinstance(found, SchemaError):
            raise found
        return found

    def _build(self, db_id: str) -> Schema:
        if self.ddl is not None:
            ddl = self.ddl.get(db_id)
            if ddl is None:
                raise SchemaError(f"db_id {db_id!r} has no schema in benchmark {self.name}")
            if isinstance(ddl, SchemaError):
                raise ddl
            return schema_from_ddl(ddl, source=f"{self.name}#{db_id}")
        entry = self._tables().get(db_id)
        if entry is None:
            raise SchemaError(f"db_id {db_id!r} is not in {self.tables_path}")
        return schema_from_tables_entry(entry, source=f"{self.tables_path}#{db_id}")

    def schema_without_keys(self, db_id: str, keys: list[tuple[str, ...]]) -> Schema:
        """The schema of ``db_id`` from the tables file without the primary keys
        ``keys`` ((table, column, ...); a test database's data repeat them)."""
        entry = dict(self._tables()[db_id])
        names = entry["column_names_original"]
        tables = entry["table_names_original"]
        drop = {tuple(c.lower() for c in k) for k in keys}
        kept = []
        for pk in entry.get("primary_keys", []):
            cols = pk if isinstance(pk, list) else [pk]
            key = (str(tables[names[cols[0]][0]]).lower(),
                   *(str(names[c][1]).lower() for c in cols))
            if key not in drop:
                kept.append(pk)
        entry["primary_keys"] = kept
        return schema_from_tables_entry(entry, source=f"{self.tables_path}#{db_id}")

    def schema_fingerprint(self, db_id: str) -> str:
        """SHA-256 of the schema's DDL: result keys change when the schema does."""
        return hashlib.sha256(self.schema(db_id).ddl.encode("utf-8")).hexdigest()

    def _tables(self) -> dict[str, dict]:
        assert self.tables_path is not None
        if self._entries is None:
            self._entries = _read_tables(self.tables_path)
        return self._entries


def load_benchmark(kind: str, dev: str | Path, tables: str | Path) -> Benchmark:
    """Read a BIRD or Spider dev.json and its tables file; any defect is an ``InputError``."""
    name = _benchmark_kind(kind)
    dev_path, tables_path = Path(dev), Path(tables)
    entries = _read_tables(tables_path)
    data = _read_json(dev_path)
    if not isinstance(data, list) or not data:
        raise InputError(f"{dev_path}: expected a non-empty JSON list of questions, "
                         f"got {_json_type(data)}")
    read = _bird_question if name == "bird" else _spider_question
    questions: list[Question] = []
    seen: dict[str, int] = {}
    for i, entry in enumerate(data):
        if not isinstance(entry, dict):
            raise InputError(f"{dev_path}: entry {i}: expected an object, got {_json_type(entry)}")
        q = read(entry, i, dev_path)
        if q.question_id in seen:
            raise InputError(f"{dev_path}: entry {i}: question_id {q.question_id} repeats "
                             f"entry {seen[q.question_id]}")
        if q.db_id not in entries:
            raise InputError(f"{dev_path}: entry {i}: db_id {q.db_id!r} is not in {tables_path}")
        seen[q.question_id] = i
        questions.append(q)
    bench = Benchmark(name, questions, tables_path)
    bench._entries = entries
    return bench


def _benchmark_kind(kind: str) -> str:
    name = str(kind).strip().lower()
    if name not in BENCHMARKS:
        raise InputError(f"unknown benchmark {kind!r}: use bird or spider")
    return name


def _bird_question(entry: dict, i: int, path: Path) -> Question:
    qid = _field(entry, "question_id", i, path, (int, str))
    return Question(
        question_id=str(qid),
        db_id=_field(entry, "db_id", i, path, (str,)),
        gold=_field(entry, "SQL", i, path, (str,)).strip(),
        question=_optional_text(entry, "question", i, path),
        evidence=_optional_text(entry, "evidence", i, path),
        difficulty=_optional_text(entry, "difficulty", i, path),
        semantics="set",
    )


def _spider_question(entry: dict, i: int, path: Path) -> Question:
    gold = _field(entry, "query", i, path, (str,)).strip()
    return Question(
        question_id=str(i),
        db_id=_field(entry, "db_id", i, path, (str,)),
        gold=gold,
        question=_optional_text(entry, "question", i, path),
        semantics="list" if outermost_order_by(gold) else "bag",
    )


def outermost_order_by(sql: str) -> bool:
    """Whether the outermost query (not a subquery) has ORDER BY, by parsing with sqlglot.

    Only if sqlglot cannot parse the SQL does this fall back to test-suite's text test
    (``'order by' in sql.lower()``), so that a question is never left without semantics.
    """
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except SqlglotError:
        return "order by" in sql.lower()
    while tree is not None:
        if tree.args.get("order") is not None:
            return True
        if not isinstance(tree, exp.Subquery):  # "(SELECT ... ORDER BY x)" at the top
            return False
        tree = tree.this
    return False


def _field(entry: dict, key: str, i: int, path: Path, types: tuple[type, ...]) -> Any:
    if key not in entry:
        raise InputError(f"{path}: entry {i}: missing key {key!r}")
    value = entry[key]
    if isinstance(value, bool) or not isinstance(value, types):
        want = " or ".join("string" if t is str else "integer" for t in types)
        raise InputError(f"{path}: entry {i}: {key!r} must be a {want}, "
                         f"got {_json_type(value)}")
    return value


def _optional_text(entry: dict, key: str, i: int, path: Path) -> str:
    value = entry.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InputError(f"{path}: entry {i}: {key!r} must be a string, got {_json_type(value)}")
    return value


def _read_tables(path: Path) -> dict[str, dict]:
    data = _read_json(path)
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a JSON list of database entries, "
                         f"got {_json_type(data)}")
    entries: dict[str, dict] = {}
    for i, entry in enumerate(data):
        if not isinstance(entry, dict) or not isinstance(entry.get("db_id"), str):
            raise InputError(f"{path}: entry {i}: expected an object with a string 'db_id'")
        if entry["db_id"] in entries:
            raise InputError(f"{path}: entry {i}: db_id {entry['db_id']!r} appears twice")
        entries[entry["db_id"]] = entry
    return entries


# --------------------------------------------------------------------------- files


def _read_text(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror or e}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 text (bad byte at offset {e.start})") from None


def _parse_json(text: str, path: Path) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: not valid JSON: {e.msg} at line {e.lineno}, "
                         f"column {e.colno}") from None
    except RecursionError:
        raise InputError(f"{path}: not valid JSON: nested too deeply") from None


def json_object_line(line: str, where: str) -> dict[str, Any]:
    """One line of a JSON-lines file, which must hold an object (``where`` names the
    file and line in the error)."""
    try:
        entry = json.loads(line)
    except json.JSONDecodeError as e:
        raise InputError(f"{where}: not valid JSON: {e.msg}") from None
    if not isinstance(entry, dict):
        raise InputError(f"{where}: expected a JSON object, got {_json_type(entry)}")
    return entry


def _read_json(path: Path) -> Any:
    return _parse_json(_read_text(path), path)


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else "an object"


# --------------------------------------------------------------------------- predictions


@dataclass(frozen=True)
class Prediction:
    question_id: str
    sql: str | None
    problem: str | None = None
    db_id: str | None = None


_NOT_JSON = object()


def load_predictions(path: str | Path, benchmark: Benchmark) -> dict[str, Prediction]:
    """One ``Prediction`` per benchmark question, from a file in any supported format."""
    path = Path(path)
    if path.is_dir():
        return _from_folder(path, benchmark)
    text = _read_text(path)
    data: Any = _NOT_JSON
    if path.suffix.lower() in (".json", ".jsonl"):
        data = _parse_json(text, path)
    elif text.lstrip()[:1] in ("[", "{"):
        # JSON by content; if it does not parse, a text file whose first line starts so
        with contextlib.suppress(json.JSONDecodeError, RecursionError):
            data = json.loads(text)
    known = {q.db_id for q in benchmark.questions}
    if data is _NOT_JSON:
        return _from_lines(text, path, benchmark, known)
    return _from_json(data, path, benchmark, known)


def _from_json(data: Any, path: Path, bench: Benchmark, known: set[str]) -> dict[str, Prediction]:
    if isinstance(data, dict):
        out: dict[str, Prediction] = {}
        for key, value in data.items():
            q = bench.question(key)
            if q is None:
                raise InputError(f"{path}: key {key!r} is not a question id of the benchmark")
            out[key] = _entry(value, q, known)
        return _fill_missing(out, bench)
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a JSON object or list of predictions, "
                         f"got {_json_type(data)}")
    keyed = [isinstance(e, dict) and "question_id" in e for e in data]
    if any(keyed):
        if not all(keyed):
            i = keyed.index(False)
            raise InputError(f"{path}: entry {i} has no 'question_id' but others have one")
        return _from_keyed_list(data, path, bench, known)
    _check_count(len(data), path, bench)
    pairs = zip(bench.questions, data, strict=True)
    return {q.question_id: _entry(value, q, known) for q, value in pairs}


def _from_keyed_list(data: list[dict], path: Path, bench: Benchmark,
                     known: set[str]) -> dict[str, Prediction]:
    out: dict[str, Prediction] = {}
    for i, entry in enumerate(data):
        qid = entry["question_id"]
        q = bench.question(str(qid)) if isinstance(qid, (int, str)) and not isinstance(
            qid, bool) else None
        if q is None:
            raise InputError(f"{path}: entry {i}: question_id {qid!r} is not a question id "
                             "of the benchmark")
        if q.question_id in out:
            raise InputError(f"{path}: entry {i}: question_id {qid!r} appears twice")
        out[q.question_id] = _entry(entry, q, known)
    return _fill_missing(out, bench)


def _from_lines(text: str, path: Path, bench: Benchmark,
                known: set[str]) -> dict[str, Prediction]:
    # split on "\n" only: str.splitlines would also break at form feeds and other
    # characters that may sit inside a SQL string literal
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    n = len(bench.questions)
    if len(lines) > n and not any(line.strip() for line in lines[n:]):
        lines = lines[:n]  # blank lines after the last prediction
    _check_count(len(lines), path, bench)
    out = {}
    for q, line in zip(bench.questions, lines, strict=True):
        sql, db_id = _split_db(line, known)
        out[q.question_id] = _prediction(q, sql, db_id)
    return out


def _check_count(count: int, path: Path, bench: Benchmark) -> None:
    if count != len(bench.questions):
        raise InputError(f"{path}: {count} predictions for {len(bench.questions)} questions")


def _from_folder(path: Path, bench: Benchmark) -> dict[str, Prediction]:
    """Spider 2.0's layout: one ``<question id>.sql`` file per answered question."""
    found = {}
    for q in bench.questions:
        file = path / f"{q.question_id}.sql"
        if file.is_file():
            found[q.question_id] = _prediction(q, _read_text(file), None)
    if not found:
        raise InputError(f"{path}: no <question id>.sql file for any question of "
                         f"{bench.name} (e.g. {bench.questions[0].question_id}.sql)")
    return _fill_missing(found, bench)


def _fill_missing(found: dict[str, Prediction], bench: Benchmark) -> dict[str, Prediction]:
    return {q.question_id: found.get(q.question_id) or Prediction(
        q.question_id, None, "no prediction for this question") for q in bench.questions}


def _entry(value: Any, q: Question, known: set[str]) -> Prediction:
    """One JSON value (a string, null, or an object holding the SQL) as a prediction."""
    db_id = None
    if isinstance(value, dict):
        key = next((k for k in SQL_KEYS if k in value), None)
        if key is None:
            return _malformed(q, f"no {'/'.join(SQL_KEYS)} key")
        if "db_id" in value:
            if not isinstance(value["db_id"], str):
                return _malformed(q, f"db_id is {_json_type(value['db_id'])}")
            db_id = value["db_id"]
        value = value[key]
    if value is None:
        return Prediction(q.question_id, None, "empty prediction", db_id)
    if not isinstance(value, str):
        return _malformed(q, f"{_json_type(value)}, not SQL text")
    sql, named = _split_db(value, known)
    return _prediction(q, sql, named or db_id)


def _malformed(q: Question, why: str) -> Prediction:
    return Prediction(q.question_id, None, f"malformed entry: {why}")


def _split_db(text: str, known: set[str]) -> tuple[str, str | None]:
    """Separate a trailing database name: BIRD's marker, or a TAB and a known db_id.

    After a plain TAB the tail counts as a database only if it names one of the
    benchmark's databases (``known``), since SQL itself may contain tabs.
    """
    if BIRD_SEPARATOR in text:
        sql, _, db_id = text.rpartition(BIRD_SEPARATOR)
        return sql, db_id.strip() or None
    if "\t" in text:
        head, tab, tail = text.rpartition("\t")
        if tab and tail.strip() in known:
            return head, tail.strip()
    return text, None


def _prediction(q: Question, text: str, db_id: str | None) -> Prediction:
    sql = text.strip()
    if not sql:
        return Prediction(q.question_id, None, "empty prediction", db_id)
    core = sql.strip(_WRAPPING).lower()  # "[ERROR]", "<none>", "SELECT;" are placeholders too
    if core in PLACEHOLDERS or not re.search("[A-Za-z]", sql):
        shown = sql if len(sql) <= 40 else sql[:37] + "..."
        return Prediction(q.question_id, None, f"placeholder prediction ({shown!r})", db_id)
    if db_id is not None and db_id != q.db_id:
        return Prediction(q.question_id, None, f"prediction names database {db_id} but the "
                          f"question is on {q.db_id}", db_id)
    return Prediction(q.question_id, sql, None, db_id)


# --------------------------------------------------------------------------- labels


def load_ex_labels(path: str | Path, benchmark: Benchmark) -> dict[str, bool]:
    """EX-TEST outcomes computed elsewhere (e.g. by BIRD's own script), so no database is needed.

    ``{"qid": true|false|0|1}`` or ``[{"sql_idx"|"question_id": ..., "res": 0|1}]``;
    only the questions the file names appear in the result.
    """
    path = Path(path)
    data = _read_json(path)
    shape = ("expected a JSON object {question_id: true|false} or a list of "
             "{question_id|sql_idx, res}")
    labels: dict[str, bool] = {}
    if isinstance(data, dict):
        items = [(f"key {k!r}", benchmark.question(k), v) for k, v in data.items()]
    elif isinstance(data, list):
        items = [_label_item(e, i, path, benchmark, shape) for i, e in enumerate(data)]
    else:
        raise InputError(f"{path}: {shape}, got {_json_type(data)}")
    for where, q, value in items:
        if q is None:
            raise InputError(f"{path}: {where} is not a question of the benchmark")
        if not (isinstance(value, bool) or (type(value) is int and value in (0, 1))):
            raise InputError(f"{path}: {where}: the label must be true, false, 0 or 1, "
                             f"got {value!r}")
        if q.question_id in labels:
            raise InputError(f"{path}: {where}: question {q.question_id} is labelled twice")
        labels[q.question_id] = bool(value)
    return labels


def _label_item(entry: Any, i: int, path: Path, bench: Benchmark,
                shape: str) -> tuple[str, Question | None, Any]:
    """(where, question or None, label) of one ``{"question_id"|"sql_idx": ..., "res": ...}``."""
    if not isinstance(entry, dict) or "res" not in entry:
        raise InputError(f"{path}: entry {i}: {shape}")
    if "question_id" in entry:
        qid = entry["question_id"]
        ok = isinstance(qid, (int, str)) and not isinstance(qid, bool)
        q = bench.question(str(qid)) if ok else None
        return f"entry {i} (question_id {qid!r})", q, entry["res"]
    idx = entry.get("sql_idx")
    if type(idx) is not int:
        raise InputError(f"{path}: entry {i}: {shape}")
    q = bench.questions[idx] if 0 <= idx < len(bench.questions) else None
    return f"entry {i} (sql_idx {idx})", q, entry["res"]


# --------------------------------------------------------------------------- arguments


def parse_named_path(arg: str, what: str) -> tuple[str, Path]:
    """``NAME=FILE`` → (NAME, FILE); a bare FILE is named by its stem. The file must exist.

    An existing file whose own name contains ``=`` is taken as a bare FILE, as is an
    argument whose part before ``=`` contains a path separator.
    """
    name, sep, file = arg.partition("=")
    if not sep or "/" in name or os.sep in name or Path(arg).expanduser().is_file():
        name, file = "", arg
    elif not name.strip():
        raise InputError(f"{what}: empty name in {arg!r} (use NAME=FILE)")
    if not file.strip():
        raise InputError(f"{what}: no file given in {arg!r}")
    path = Path(file).expanduser()
    if not path.exists():  # (a folder: Spider 2.0's predictions, one .sql file each)
        raise InputError(f"{what}: {path}: no such file")
    return name.strip() or path.stem, path


def select_questions(benchmark: Benchmark, questions: str | None = None,
                     limit: int | None = None) -> list[Question]:
    """The questions to run: the ids given (in that order), then at most ``limit`` of them."""
    chosen = list(benchmark.questions)
    if questions is not None:
        ids = [part.strip() for part in str(questions).split(",") if part.strip()]
        if not ids:
            raise InputError(f"--questions: no question ids in {questions!r}")
        if len(set(ids)) < len(ids):
            twice = next(qid for qid in ids if ids.count(qid) > 1)
            raise InputError(f"--questions: question {twice} is given twice")
        chosen = []
        for qid in ids:
            q = benchmark.question(qid)
            if q is None:
                raise InputError(f"--questions: {qid!r} is not a question id of the benchmark")
            chosen.append(q)
    if limit is not None:
        if limit < 1:
            raise InputError(f"--limit must be at least 1, got {limit}")
        chosen = chosen[:limit]
    return chosen
