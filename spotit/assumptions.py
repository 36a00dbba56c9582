"""What a verdict assumed beyond what SQLite enforces: declared foreign keys.

SQLite enforces NOT NULL, PRIMARY KEY, UNIQUE and CHECK on every insert; it does not
enforce foreign keys unless ``PRAGMA foreign_keys = ON``, and real databases (BIRD's
among them) hold rows whose key points nowhere. At the ``declared`` data level SpotIt
assumes the declared foreign keys hold -- in its bounded search, in its random search,
and in the canonical-form rule that drops a join to a referenced row -- so every
verdict lists the ones it relied on (``CheckResult.assumed``):

- ``equivalent``: each foreign key in force over a table the queries read, with
  ``needed``: ``false`` when the same check without any foreign key also proves the
  queries equivalent (or their canonical forms are equal without them), ``true`` when
  without them a counterexample exists (the foreign keys it breaks are the needed
  ones), ``null`` when that second check was not decided in its share of the time;
- ``not_equivalent``: the foreign keys in force over the counterexample's tables (the
  search assumed them, and the counterexample satisfies them); ``needed`` is null: a
  counterexample is a real database whatever the assumptions.

``[]`` means the verdict assumed nothing SQLite does not enforce. ``not_assumed`` lists
the declared foreign keys over tables the queries read that were *not* assumed, and
why (``--data sqlite``, or the real database's data break them).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from spotit.schema import ForeignKey, Schema, Table

KIND = "foreign_key"


def fk_json(t: Table, fk: ForeignKey, **more: Any) -> dict[str, Any]:
    return {"kind": KIND,
            "child": ", ".join(f"{t.name}.{c}" for c in fk.columns),
            "parent": ", ".join(f"{fk.ref_table}.{c}" for c in fk.ref_columns), **more}


def tables_read(plans) -> set[str]:
    """Lower-case names of the base tables the plans scan."""
    from spotit.ir import relational as R
    from spotit.ir.walk import iter_rels

    out: set[str] = set()
    for plan in plans:
        for rel in iter_rels(plan):
            if isinstance(rel, R.Scan):
                out.add(rel.table.lower())
    return out


def in_force(schema: Schema, tables: set[str]) -> list[tuple[Table, ForeignKey]]:
    """The foreign keys SpotIt assumes whose child table is among ``tables``."""
    return [(t, fk) for t in schema.tables if t.name.lower() in tables
            for fk in t.foreign_keys]


def not_assumed(schema: Schema, tables: set[str]) -> list[dict[str, Any]]:
    return [fk_json(t, fk, why=why) for t in schema.tables if t.name.lower() in tables
            for fk, why in t.dropped_foreign_keys]


def dangling(schema: Schema, rows: dict[str, list[tuple]], t: Table, fk: ForeignKey) -> int:
    """Rows of ``t`` in the database ``rows`` whose key for ``fk`` points nowhere, as
    SQLite's own ``PRAGMA foreign_key_check`` counts them."""
    from spotit.validate import broken_keys, build_database, key_of

    try:
        conn = build_database(schema, rows)
    except sqlite3.Error:
        return 0
    try:
        return broken_keys(conn)[key_of(t.name, fk)]
    finally:
        conn.close()


def canonical_without(schema: Schema, gold: str, pred: str, semantics: str) -> bool:
    """Do the two queries have the same canonical form when no foreign key is assumed?"""
    from spotit.canonical import canonical
    from spotit.frontend.binder import bind
    from spotit.frontend.parser import parse

    bare = schema.dropping_foreign_keys(lambda t, fk: True, "")
    try:
        g = canonical(bind(parse(gold), bare), semantics)[0]
        p = canonical(bind(parse(pred), bare), semantics)[0]
    except Exception:
        return False
    return g == p
