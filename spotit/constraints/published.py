"""Importers for the two published constraint formats: VeriEQL's and SpotIt+'s.

Both spell columns ``TABLE__COLUMN`` (``spotit.constraints.refs``). VeriEQL's
``constraint`` list has ``not_null``, ``primary`` and ``foreign``. SpotIt+'s mined
files map a db_id to a list of lists of constraint objects: ``primary``,
``foreign``, ``not_null``, ``between`` ([ref, lo, hi]; a bound of magnitude
1e308 or more means "no bound"), ``in`` ([ref, [values]]) and ``dependency``:
``{"values": [A, B]}`` is the functional dependency A -> B, and
``{"values": [A, B], "type": "ordering", "operator": op}`` says ``A op B`` within
each row (both columns of one table).

These files are best-effort (mined, partly by an LLM): a constraint that does
not fit the schema or the format is skipped, and the message saying which and
why is kept in ``ConstraintSet.skipped`` (printed and stored by the callers);
nothing is dropped silently.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from spotit.constraints.model import (
    Compare,
    Constraint,
    ConstraintSet,
    ForeignKey,
    FunctionalDependency,
    InList,
    NotNull,
    PrimaryKey,
    Range,
)
from spotit.constraints.refs import resolve, schema_columns, split_ref
from spotit.errors import ConstraintError
from spotit.schema import Schema

UNBOUNDED = 1e308


def _ref(body: Any) -> str:
    if isinstance(body, dict) and isinstance(body.get("value"), str):
        return body["value"]
    if isinstance(body, str):
        return body
    raise ConstraintError(f"expected {{\"value\": \"TABLE__COLUMN\"}}, got {_show(body)}")


def _show(x: Any) -> str:
    return json.dumps(x)[:100]


def _same_table(refs: list[tuple[str, str]], what: str) -> str:
    tables = {t for t, _ in refs}
    if len(tables) != 1:
        raise ConstraintError(f"{what} spans tables {', '.join(sorted(tables))}")
    return refs[0][0]


def _bound(x: Any) -> int | float | str | None:
    if isinstance(x, bool) or not isinstance(x, int | float | str):
        raise ConstraintError(f"a bound must be a number or text, got {_show(x)}")
    if isinstance(x, int | float) and abs(x) >= UNBOUNDED:
        return None
    return x


def _one(kind: str, body: Any, cols: Callable[[Any], tuple[str, str]]) -> Constraint:
    """One constraint object of either format (SpotIt+'s kinds include VeriEQL's)."""
    if kind == "not_null":
        t, c = cols(body)
        return NotNull(t, c)
    if kind == "primary":
        if not isinstance(body, list) or not body:
            raise ConstraintError(f"primary: expected a list of columns, got {_show(body)}")
        refs = [cols(b) for b in body]
        return PrimaryKey(_same_table(refs, "primary key"), tuple(c for _, c in refs))
    if kind == "foreign":
        if not isinstance(body, list) or len(body) != 2:
            raise ConstraintError(f"foreign: expected [child, parent], got {_show(body)}")
        (ct, cc), (pt, pc) = cols(body[0]), cols(body[1])
        return ForeignKey(ct, (cc,), pt, (pc,))
    if kind == "between":
        if not isinstance(body, list) or len(body) != 3:
            raise ConstraintError(f"between: expected [column, low, high], got {_show(body)}")
        t, c = cols(body[0])
        return Range(t, c, _bound(body[1]), _bound(body[2]))
    if kind == "in":
        if not (isinstance(body, list) and len(body) == 2 and isinstance(body[1], list)
                and body[1]):
            raise ConstraintError(f"in: expected [column, [values]], got {_show(body)}")
        t, c = cols(body[0])
        values = tuple(_bound(v) for v in body[1])
        if any(v is None for v in values):
            raise ConstraintError(f"in: a value is not a number or text in {_show(body)}")
        return InList(t, c, values)  # type: ignore[arg-type]
    if kind == "dependency":
        vals = body.get("values") if isinstance(body, dict) else None
        if not (isinstance(vals, list) and len(vals) == 2):
            raise ConstraintError(f"dependency: expected {{\"values\": [A, B]}}, got "
                                  f"{_show(body)}")
        refs = [cols(v) for v in vals]
        t = _same_table(refs, "dependency")
        (_, a), (_, b) = refs
        if body.get("type") is None:
            return FunctionalDependency(t, (a,), (b,))
        if body.get("type") == "ordering":
            return Compare(t, a, str(body.get("operator")), b)
        raise ConstraintError(f"dependency of unknown type {body.get('type')!r}")
    raise ConstraintError(f"unknown constraint kind {kind!r}")


def _read(items: list, schema: Schema, source: str, kinds: tuple[str, ...] | None
          ) -> ConstraintSet:
    tables = schema_columns(schema)

    def cols(body: Any) -> tuple[str, str]:
        return split_ref(_ref(body), tables)

    out: list[Constraint] = []
    skipped: list[str] = []
    for n, item in enumerate(items, start=1):
        try:
            if not isinstance(item, dict) or len(item) != 1:
                raise ConstraintError(f"expected an object with one kind, got {_show(item)}")
            (kind, body), = item.items()
            if kinds is not None and kind not in kinds:
                raise ConstraintError(f"kind {kind!r} is not one of {', '.join(kinds)}")
            out.append(resolve(_one(kind, body, cols), schema))
        except (ConstraintError, ValueError) as e:
            skipped.append(f"constraint {n} ({_show(item)[:60]}): {e}")
    return ConstraintSet(tuple(dict.fromkeys(out)), tuple(skipped), source)


VERIEQL_KINDS = ("not_null", "primary", "foreign")


def read_verieql(data: list | dict, schema: Schema, source: str = "") -> ConstraintSet:
    """A VeriEQL ``constraint`` list (or a benchmark line holding one)."""
    items = data.get("constraint") or [] if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise ConstraintError(f"{source}: VeriEQL 'constraint' must be a list")
    return _read(items, schema, source, VERIEQL_KINDS)


def read_spotit_plus(data: dict, schema: Schema, db_id: str | None, source: str = ""
                     ) -> ConstraintSet:
    """The constraints of ``db_id`` in a SpotIt+ file (db_id -> list of lists)."""
    if db_id is None:
        if len(data) != 1:
            raise ConstraintError(f"{source} is a SpotIt+ constraint file for "
                                  f"{len(data)} databases: give the database with --db-id")
        db_id = next(iter(data))
    if db_id not in data:
        raise ConstraintError(f"{source} has no constraints for db_id {db_id!r} (it has: "
                              f"{', '.join(sorted(data))})")
    groups = data[db_id]
    if not isinstance(groups, list) or not all(isinstance(g, list) for g in groups):
        raise ConstraintError(f"{source}: the entry of {db_id!r} is not a list of lists")
    return _read([c for g in groups for c in g], schema, source, None)
