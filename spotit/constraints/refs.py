"""Names in constraints: ``T__C`` references and case-insensitive lookup in the schema.

Published constraint files spell a column as ``TABLE__COLUMN`` (VeriEQL as the
schema does, SpotIt+ upper-cased). Table and column names are matched without
regard to case, as SQLite matches identifiers, and every constraint is
rewritten to the schema's own spelling, so later SQL and reports agree with it.
A name that matches nothing (or more than one thing) is a ``ConstraintError``
that names it.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping

from spotit.constraints.model import Constraint, ForeignKey
from spotit.errors import ConstraintError
from spotit.schema import Schema, Table


def _plain(name: str) -> str:
    """A name as SpotIt+ writes it: upper case, each other character than a letter or
    digit an underscore (``District Code`` is ``DISTRICT_CODE``)."""
    return re.sub(r"[^0-9A-Za-z]", "_", name).lower()


def split_ref(ref: str, tables: Mapping[str, Iterable[str]]) -> tuple[str, str]:
    """``T__C`` as (table, column) in ``tables``' spelling; names may contain ``__``.
    Names match without regard to case; failing that, with every character other than
    a letter or digit read as ``_`` (SpotIt+'s spelling), when that is unambiguous."""
    found: list[tuple[str, str]] = []
    for norm in (str.lower, _plain):
        low = norm(ref)
        for table, columns in tables.items():
            if low.startswith(norm(table) + "__"):
                rest = low[len(norm(table)) + 2:]
                found += [(table, c) for c in columns if norm(c) == rest]
        if found:
            break
    if len(found) != 1:
        why = "no" if not found else "more than one"
        raise ConstraintError(f"constraint names {ref!r}: {why} such table__column")
    return found[0]


def schema_columns(schema: Schema) -> dict[str, list[str]]:
    """Table name -> stored column names, for ``split_ref``."""
    return {t.name: [c.name for c in t.columns] for t in schema.tables}


def _table(schema: Schema, name: str, what: str) -> Table:
    t = schema.table(name)
    if t is None:
        raise ConstraintError(f"{what} names unknown table {name!r}")
    return t


def _column(t: Table, name: str, what: str) -> str:
    i = t.column_index(name)
    if i is None:
        raise ConstraintError(f"{what} names unknown column {t.name}.{name}")
    return t.columns[i].name


def resolve(c: Constraint, schema: Schema) -> Constraint:
    """``c`` with the schema's spelling of every name; ``ConstraintError`` if one is unknown."""
    what = f"{c.kind} constraint"
    t = _table(schema, c.table, what)
    changes: dict[str, object] = {"table": t.name}
    for f in dataclasses.fields(c):
        value = getattr(c, f.name)
        if f.name in ("column", "left", "right"):
            changes[f.name] = _column(t, value, what)
        elif f.name in ("columns", "determinant", "dependent"):
            if not value:
                raise ConstraintError(f"{what} on {t.name} lists no columns in {f.name}")
            changes[f.name] = tuple(_column(t, v, what) for v in value)
    if isinstance(c, ForeignKey):
        parent = _table(schema, c.ref_table, what)
        changes["ref_table"] = parent.name
        changes["ref_columns"] = tuple(_column(parent, v, what) for v in c.ref_columns)
        if len(c.ref_columns) != len(c.columns):
            raise ConstraintError(f"{what} on {t.name}: {len(c.columns)} columns reference "
                                  f"{len(c.ref_columns)}")
    return dataclasses.replace(c, **changes)  # type: ignore[arg-type]
