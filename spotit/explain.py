"""What a counterexample relies on, computed rather than guessed.

A refutation convinces a person only if the data it needs is data the real
database could hold. For a confirmed counterexample we collect the features it
has that real data often lacks -- a NULL in a column, two identical rows, a
value repeated in a column, an empty table, a value outside its column's declared
type (``--data sqlite``) -- and for each one search again (solver only, same bound)
with that feature forbidden:

- no difference within K without it (every bound proven): the difference *needs* it;
- a confirmed counterexample without it: it is *not needed*;
- otherwise (a time limit, or the new counterexample has the feature too, because
  the restriction could not forbid it exactly): unknown.

Forbidding reuses the constraint machinery (``spotit.constraints``): NOT NULL on the
column, UNIQUE over the table's columns or over the column, a table assumed non-empty,
or the ``declared`` data level. Each restriction only removes databases, so a proof
under it is a proof about the databases without the feature.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any

from spotit.errors import SpotItError
from spotit.schema import Schema
from spotit.verdict import CheckResult, Verdict

MAX_FEATURES = 6  # features searched per counterexample (the most specific first)


@dataclass(frozen=True)
class Feature:
    kind: str  # null | duplicates | repeated | empty | stored_type
    table: str
    column: str | None = None

    @property
    def detail(self) -> str:
        where = f"{self.table}.{self.column}" if self.column else self.table
        return {
            "null": f"NULL in {where}",
            "duplicates": f"two identical rows in {where}",
            "repeated": f"a non-NULL value repeated in {where}",
            "empty": f"no rows in {where}",
            "stored_type": "a value outside its column's declared type",
        }[self.kind]

    def present_in(self, counterexample: dict[str, list[dict[str, Any]]], schema: Schema
                   ) -> bool:
        rows = _rows_of(counterexample, self.table)
        if self.kind == "null":
            return any(_get(r, self.column) is None for r in rows)
        if self.kind == "duplicates":
            seen = [tuple(r.values()) for r in rows]
            return len(set(seen)) < len(seen)
        if self.kind == "repeated":
            values = [_get(r, self.column) for r in rows if _get(r, self.column) is not None]
            return len(set(values)) < len(values)
        if self.kind == "empty":
            return not rows
        return bool(_off_type(counterexample, schema))


def features(result: CheckResult, schema: Schema) -> list[Feature]:
    """The features of ``result``'s counterexample, over what the queries read."""
    cex = result.counterexample or {}
    read = result.counterexample_read or {}
    found: list[Feature] = []
    for table in dict.fromkeys([*read, *cex]):
        t = schema.table(table)
        if t is None:
            continue
        rows = _rows_of(cex, table)
        cols = read.get(table) or [c.name for c in t.columns]
        stored = {c.name.lower() for c in t.columns}
        if not rows:
            if table in read:  # an empty table the queries read
                found.append(Feature("empty", t.name))
            continue
        for col in cols:
            if col.lower() not in stored:
                continue  # the rowid: never NULL, never repeated
            f = Feature("null", t.name, col)
            if f.present_in(cex, schema):
                found.append(f)
        if Feature("duplicates", t.name).present_in(cex, schema):
            found.append(Feature("duplicates", t.name))
        for col in cols:
            if col.lower() in stored and not _unique(t, col):
                f = Feature("repeated", t.name, col)
                if f.present_in(cex, schema):
                    found.append(f)
    if result.data == "sqlite" and _off_type(cex, schema):
        found.append(Feature("stored_type", ""))
    return found[:MAX_FEATURES]


def explain(schema: Schema, gold: str, pred: str, result: CheckResult, *,
            seconds: float = 60.0, **options: Any) -> list[dict[str, Any]]:
    """``[{"feature", "detail", "needed"}]`` for a confirmed counterexample (empty for
    any other verdict). ``options`` are ``check``'s (bound, solver, semantics, now,
    dialect, data); ``seconds`` is the budget for all the searches together."""
    from spotit.pipeline import check

    if result.verdict is not Verdict.NOT_EQUIVALENT or result.counterexample is None:
        return []
    found = features(result, schema)
    out = []
    deadline = time.monotonic() + seconds
    for i, f in enumerate(found):
        left = deadline - time.monotonic()
        entry = {"feature": f.kind, "table": f.table, "column": f.column,
                 "detail": f.detail, "needed": None}
        out.append(entry)
        if left <= 0.5:
            entry["why"] = "no time left"
            continue
        try:
            restricted, opts = _without(f, schema, options)
        except SpotItError as e:
            entry["why"] = f"cannot forbid it: {e}"
            continue
        share = left / (len(found) - i)
        # the random search keeps keys and NOT NULL, not "non-empty": solver alone there
        trials = 0 if f.kind == "empty" else 100
        res = check(restricted, gold, pred, **{**opts, "timeout": share,
                                               "probe_trials": trials, "minimize": False})
        if res.verdict is Verdict.EQUIVALENT:
            entry["needed"] = True
        elif res.verdict is Verdict.NOT_EQUIVALENT and res.counterexample is not None \
                and not f.present_in(res.counterexample, schema):
            entry["needed"] = False
        else:
            entry["why"] = (res.reason if res.verdict is not Verdict.NOT_EQUIVALENT else
                            "the counterexample found without it has it too")
    return out


def _without(f: Feature, schema: Schema, options: dict[str, Any]
             ) -> tuple[Schema, dict[str, Any]]:
    """The schema (and check options) under which ``f`` cannot occur."""
    from spotit.constraints.augment import augment
    from spotit.constraints.model import ConstraintSet, NotNull, Unique

    if f.kind == "stored_type":
        return schema, {**options, "data": "declared"}
    if options.get("data") == "realistic":  # the schema given is the augmented one
        options = {**options, "data": "declared"}
    if f.kind == "empty":
        tables = tuple(replace(t, nonempty=True) if t.name == f.table else t
                       for t in schema.tables)
        return replace(schema, tables=tables, cache={}), options
    t = schema.require_table(f.table)
    if f.kind == "null":
        c = NotNull(t.name, f.column)
    elif f.kind == "repeated":
        c = Unique(t.name, (f.column,))
    else:  # duplicates: rows that differ somewhere (NULLs aside, as UNIQUE has it)
        c = Unique(t.name, tuple(col.name for col in t.columns))
    return augment(schema, ConstraintSet((c,))), options


def _rows_of(counterexample: dict, table: str) -> list[dict[str, Any]]:
    low = table.lower()
    return next((rows for name, rows in counterexample.items() if name.lower() == low), [])


def _get(row: dict[str, Any], column: str | None) -> Any:
    low = (column or "").lower()
    return next((v for k, v in row.items() if k.lower() == low), None)


def _unique(t, column: str) -> bool:
    low = column.lower()
    return any(len(k) == 1 and k[0].lower() == low for k in t.keys) or \
        (t.rowid_alias or "").lower() == low


def _off_type(counterexample: dict, schema: Schema) -> bool:
    """Some value of the counterexample is outside its column's declared domain."""
    from spotit.ir.types import Domain, StorageClass

    for table, rows in counterexample.items():
        t = schema.table(table)
        if t is None:
            continue
        for c in t.columns:
            declared = replace(c, any_storage=False).domain
            for r in rows:
                v = _get(r, c.name)
                if v is None:
                    continue
                cls = (StorageClass.INTEGER if isinstance(v, int) else StorageClass.REAL
                       if isinstance(v, float) else StorageClass.TEXT)
                if cls not in declared.storage_classes:
                    return True
                if declared in (Domain.DATE, Domain.DATETIME) and isinstance(v, str):
                    from spotit.encodings.calendar import date_text_parts

                    if date_text_parts(v, declared) is None:
                        return True
    return False
