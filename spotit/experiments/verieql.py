"""VeriEQL's benchmark format (``*.jsonlines``) as a benchmark ``spotit evaluate`` runs.

The SQL-equivalence community (VeriEQL, and the Calcite and literature pairs it
collects) keeps one JSON object per line: ``schema`` ({TABLE: {COLUMN: TYPE}}),
``constraint`` (a list), ``pair`` [q1, q2], ``index`` and a ``benchmark``/``name``.
Each line becomes one question with its own schema: db_id ``<file stem>-<index>``,
q1 the gold, q2 the prediction of a system named after the file. Pairs are
compared as bags, the field's convention (``--semantics`` overrides).

Constraints, as the data spells them (``T__C`` names column C of table T):
``{"not_null": {"value": "T__C"}}``, ``{"primary": [{"value": "T__C"}, ...]}`` and
``{"foreign": [{"value": "CHILD__C"}, {"value": "PARENT__C"}]}`` become NOT NULL,
PRIMARY KEY and FOREIGN KEY ... REFERENCES in the DDL. A primary key is also
NOT NULL: the standard says so, while SQLite would let a non-INTEGER key hold
NULLs. BOOLEAN columns get ``CHECK (c IN (0, 1))``: SQLite stores TRUE/FALSE
as 1/0, and any other integer would be a database the source cannot have. A
constraint of any other kind is never dropped (dropping one could only add
counterexamples, but they might be impossible databases): that pair's schema
is an error naming the kind, so its verdict says why.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from spotit.constraints.refs import split_ref
from spotit.errors import SchemaError
from spotit.experiments.inputs import (
    Benchmark,
    InputError,
    Prediction,
    Question,
    _json_type,
    _read_text,
    json_object_line,
)

NAME = "verieql"
CONSTRAINT_KINDS = ("not_null", "primary", "foreign")


def load_verieql(path: str | Path) -> tuple[Benchmark, str, dict[str, Prediction]]:
    """(benchmark, system name, the system's predictions) of one jsonlines file."""
    path = Path(path)
    questions, ddl, preds = [], {}, {}
    seen: dict[str, int] = {}
    for lineno, line in enumerate(_read_text(path).split("\n"), start=1):
        if not line.strip():
            continue
        entry = _entry(line, lineno, path)
        qid = str(entry["index"])
        if qid in seen:
            raise InputError(f"{path}: line {lineno}: index {qid} repeats line {seen[qid]}")
        seen[qid] = lineno
        db_id = f"{path.stem}-{qid}"
        gold, pred = entry["pair"]
        label = " / ".join(str(entry[k]) for k in ("benchmark", "name") if entry.get(k))
        questions.append(Question(question_id=qid, db_id=db_id, gold=gold.strip(),
                                  question=label, semantics="bag"))
        preds[qid] = Prediction(qid, pred.strip() or None,
                                None if pred.strip() else "empty prediction")
        try:
            ddl[db_id] = schema_ddl(entry["schema"], entry.get("constraint") or [])
        except SchemaError as e:
            ddl[db_id] = e
    if not questions:
        raise InputError(f"{path}: no pairs (expected one JSON object per line)")
    return Benchmark(NAME, questions, ddl=ddl), path.stem, preds


def _entry(line: str, lineno: int, path: Path) -> dict[str, Any]:
    where = f"{path}: line {lineno}"
    entry = json_object_line(line, where)
    for key in ("index", "schema", "pair"):
        if key not in entry:
            raise InputError(f"{where}: missing key {key!r}")
    index = entry["index"]
    if isinstance(index, bool) or not isinstance(index, (int, str)):
        raise InputError(f"{where}: 'index' must be an integer or string")
    pair = entry["pair"]
    if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(q, str) for q in pair)):
        raise InputError(f"{where}: 'pair' must be a list of two SQL strings")
    schema = entry["schema"]
    if not (isinstance(schema, dict) and schema and all(
            isinstance(cols, dict) and cols for cols in schema.values())):
        raise InputError(f"{where}: 'schema' must map each table to its columns and types")
    if not isinstance(entry.get("constraint") or [], list):
        raise InputError(f"{where}: 'constraint' must be a list")
    return entry


# ---------------------------------------------------------------------- schema as DDL


def schema_ddl(tables: dict[str, dict[str, str | None]], constraints: list) -> str:
    """CREATE TABLE statements for one pair; ``SchemaError`` names what cannot be expressed."""
    not_null: set[tuple[str, str]] = set()
    primary: dict[str, list[str]] = {}
    foreign: dict[str, list[tuple[str, str, str]]] = {}
    for item in constraints:
        if not isinstance(item, dict) or len(item) != 1:
            raise SchemaError(f"VeriEQL constraint {json.dumps(item)[:80]} is not "
                              "an object with one kind")
        (kind, body), = item.items()
        if kind == "not_null":
            not_null.add(_column(tables, _ref(body, kind)))
        elif kind == "primary":
            cols = [_column(tables, _ref(b, kind)) for b in _list(body, kind)]
            table = cols[0][0]
            if any(t != table for t, _ in cols) or table in primary:
                raise SchemaError(f"VeriEQL primary key {json.dumps(body)[:80]} spans tables "
                                  "or repeats one")
            primary[table] = [c for _, c in cols]
            not_null.update(cols)
        elif kind == "foreign":
            refs = _list(body, kind)
            if len(refs) != 2:
                raise SchemaError(f"VeriEQL foreign key {json.dumps(body)[:80]}: expected "
                                  "[child, parent]")
            (ct, cc), (pt, pc) = (_column(tables, _ref(r, kind)) for r in refs)
            foreign.setdefault(ct, []).append((cc, pt, pc))
        else:
            raise SchemaError(f"VeriEQL constraint kind {kind!r} is not supported "
                              f"(SpotIt reads {', '.join(CONSTRAINT_KINDS)})")
    out = []
    for table, columns in tables.items():
        parts = [_column_ddl(table, col, ctype, (table, col) in not_null)
                 for col, ctype in columns.items()]
        if table in primary:
            parts.append(f"PRIMARY KEY ({', '.join(_q(c) for c in primary[table])})")
        for cc, pt, pc in foreign.get(table, []):
            parts.append(f"FOREIGN KEY ({_q(cc)}) REFERENCES {_q(pt)} ({_q(pc)})")
        out.append(f"CREATE TABLE {_q(table)} (\n  " + ",\n  ".join(parts) + "\n);")
    return "\n".join(out) + "\n"


def _column_ddl(table: str, col: str, ctype: str | None, not_null: bool) -> str:
    if ctype is not None and not isinstance(ctype, str):
        raise SchemaError(f"type of {table}.{col} is {_json_type(ctype)}, not a type name")
    declared = (ctype or "").strip()  # no type: SQLite's column of any value
    if declared and not all(ch.isalnum() or ch in " _(),." for ch in declared):
        raise SchemaError(f"type {declared!r} of {table}.{col} is not a type name")
    text = f"{_q(col)} {declared}".rstrip()
    if not_null:
        text += " NOT NULL"
    if declared.upper() in ("BOOLEAN", "BOOL"):
        text += f" CHECK ({_q(col)} IN (0, 1))"
    return text


def _ref(body: Any, kind: str) -> str:
    if isinstance(body, dict) and isinstance(body.get("value"), str):
        return body["value"]
    raise SchemaError(f"VeriEQL {kind} constraint: expected {{\"value\": \"TABLE__COLUMN\"}}, "
                      f"got {json.dumps(body)[:80]}")


def _list(body: Any, kind: str) -> list:
    if isinstance(body, list) and body:
        return body
    raise SchemaError(f"VeriEQL {kind} constraint: expected a non-empty list, "
                      f"got {json.dumps(body)[:80]}")


def _column(tables: dict[str, dict], ref: str) -> tuple[str, str]:
    """``T__C`` as (table, column), parsed as every constraint reader parses it."""
    return split_ref(ref, tables)


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'
