"""SpotIt's own constraint file format, and reading any of the three formats.

The native format (docs/constraints.md) is a JSON object::

    {"format": "spotit-constraints", "version": 1, "sample": null,
     "constraints": [{"kind": "not_null", "table": "t", "column": "a"}, ...]}

Each constraint object has ``kind`` and the fields of its dataclass in
``spotit.constraints.model`` (lists for column tuples), plus optional
``support`` and ``confidence``. A native file is written on purpose, so one
bad constraint fails the whole load, naming it. ``load_constraints`` tells the
formats apart by shape: an object with ``constraints`` is native; a list, or an
object with ``constraint``, is VeriEQL's; an object mapping db_ids to lists of
lists is SpotIt+'s (``spotit.constraints.published``).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from spotit.constraints.model import KINDS, Constraint, ConstraintSet
from spotit.constraints.published import read_spotit_plus, read_verieql
from spotit.constraints.refs import resolve
from spotit.errors import ConstraintError
from spotit.schema import Schema

FORMAT = "spotit-constraints"
VERSION = 1
_TUPLES = ("columns", "ref_columns", "determinant", "dependent", "values")


def constraint_to_json(c: Constraint) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": c.kind}
    for f in dataclasses.fields(c):
        v = getattr(c, f.name)
        if v is None and f.name in ("support", "confidence", "min", "max", "pattern", "glob"):
            continue
        out[f.name] = list(v) if isinstance(v, tuple) else v
    return out


def constraint_from_json(obj: Any) -> Constraint:
    """One native constraint object (names not yet checked against a schema)."""
    if not isinstance(obj, dict) or not isinstance(obj.get("kind"), str):
        raise ConstraintError(f"a constraint must be an object with a 'kind', got "
                              f"{json.dumps(obj)[:80]}")
    cls = KINDS.get(obj["kind"])
    if cls is None:
        raise ConstraintError(f"unknown constraint kind {obj['kind']!r} (known: "
                              f"{', '.join(KINDS)})")
    names = {f.name for f in dataclasses.fields(cls)}
    extra = set(obj) - names - {"kind"}
    if extra:
        raise ConstraintError(f"{obj['kind']} constraint has unknown fields "
                              f"{', '.join(sorted(extra))}")
    args = {k: tuple(v) if k in _TUPLES and isinstance(v, list) else v
            for k, v in obj.items() if k != "kind"}
    try:
        return cls(**args)
    except (TypeError, ValueError) as e:
        raise ConstraintError(f"bad {obj['kind']} constraint {json.dumps(obj)[:80]}: {e}"
                              ) from None


def to_json(cs: ConstraintSet, **header: Any) -> dict[str, Any]:
    return {"format": FORMAT, "version": VERSION, **header, "sample": cs.sample,
            "constraints": [constraint_to_json(c) for c in cs]}


def write_constraints(cs: ConstraintSet, path: str | Path, **header: Any) -> None:
    Path(path).write_text(json.dumps(to_json(cs, **header), indent=1) + "\n", encoding="utf-8")


def read_native(data: dict, schema: Schema, source: str = "") -> ConstraintSet:
    items = data.get("constraints")
    if not isinstance(items, list):
        raise ConstraintError(f"{source}: 'constraints' must be a list")
    out = []
    for n, obj in enumerate(items, start=1):
        try:
            out.append(resolve(constraint_from_json(obj), schema))
        except ConstraintError as e:
            raise ConstraintError(f"{source}: constraint {n}: {e.message}") from None
    sample = data.get("sample")
    return ConstraintSet(tuple(dict.fromkeys(out)), (), source,
                         sample if isinstance(sample, int) else None)


def detect(data: Any) -> str:
    """``native``, ``verieql`` or ``spotit_plus``, from the JSON's shape."""
    if isinstance(data, dict) and "constraints" in data:
        return "native"
    if isinstance(data, list) or (isinstance(data, dict) and "constraint" in data):
        return "verieql"
    if isinstance(data, dict) and data and all(
            isinstance(v, list) and all(isinstance(g, list) for g in v) for v in data.values()):
        return "spotit_plus"
    raise ConstraintError("not a constraint file: expected SpotIt's format (an object with "
                          "'constraints'), a VeriEQL 'constraint' list, or a SpotIt+ file "
                          "(db_id -> list of lists)")


def load_constraints(path: str | Path, schema: Schema, db_id: str | None = None
                     ) -> ConstraintSet:
    """The constraints in ``path`` (any of the three formats), resolved against ``schema``.
    ``db_id`` picks the database of a SpotIt+ file."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise ConstraintError(f"cannot read constraint file {path}: {e}") from None
    except json.JSONDecodeError as e:
        raise ConstraintError(f"{path} is not JSON: {e}") from None
    kind = detect(data)
    if kind == "native":
        return read_native(data, schema, str(path))
    if kind == "verieql":
        return read_verieql(data, schema, str(path))
    return read_spotit_plus(data, schema, db_id, str(path))


def file_for(path: str | Path, db_id: str | None) -> Path | None:
    """The constraint file for ``db_id``: ``path`` itself, or in a directory
    ``<db_id>.json`` or SpotIt+'s ``<db_id>_constraints*.json`` (None: no file there)."""
    path = Path(path)
    if not path.is_dir():
        if not path.exists():
            raise ConstraintError(f"constraint file not found: {path}")
        return path
    if db_id is None:
        raise ConstraintError(f"{path} is a directory of constraint files: give a db_id")
    found = sorted({*path.glob(f"{db_id}.json"), *path.glob(f"{db_id}_constraints*.json")})
    if len(found) > 1:
        raise ConstraintError(f"more than one constraint file for {db_id} in {path}: "
                              f"{', '.join(p.name for p in found)}")
    return found[0] if found else None
