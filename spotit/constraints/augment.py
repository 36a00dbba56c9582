"""Constraints as assumptions: the *augmented schema*, an ordinary schema that declares them.

NOT NULL is added to the column definitions; UNIQUE and primary keys become
``UNIQUE (...)`` table constraints (plus NOT NULL on their columns: a primary key
here is the standard's, never SQLite's NULL-admitting one); foreign keys and
inclusion dependencies become ``FOREIGN KEY ... REFERENCES`` (SpotIt encodes a
foreign key exactly as an inclusion dependency); row-level kinds become
``CHECK``. SpotIt's encoding already covers all of these, and SQLite enforces
NOT NULL, UNIQUE and CHECK when a counterexample is built, so a counterexample
found under the augmented schema is confirmed to satisfy them by SQLite itself.

Functional dependencies have no DDL form: they are carried on ``Table`` and
encoded pairwise over present rows (``spotit.encodings.database``); like
foreign keys (SQLite does not enforce them unless asked), they are confirmed on
the built database by ``spotit.constraints.violations``.
"""

from __future__ import annotations

import dataclasses

from spotit import ddl as ddl_text
from spotit.constraints.model import (
    ConstraintSet,
    ForeignKey,
    FunctionalDependency,
    NotNull,
    PrimaryKey,
    Unique,
)
from spotit.constraints.sql import q, row_check
from spotit.errors import ConstraintError
from spotit.schema import Schema, Table, schema_from_ddl


@dataclasses.dataclass
class _Additions:
    not_null: set[str] = dataclasses.field(default_factory=set)  # lower-case column names
    extra: list[str] = dataclasses.field(default_factory=list)  # table constraints, SQL
    fds: list[tuple[tuple[str, ...], tuple[str, ...]]] = dataclasses.field(
        default_factory=list)


def _lower(cols: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(c.lower() for c in cols)


def _additions(schema: Schema, constraints: ConstraintSet) -> dict[str, _Additions]:
    out: dict[str, _Additions] = {}
    for c in constraints:
        t = schema.require_table(c.table)
        add = out.setdefault(t.name, _Additions())
        if isinstance(c, NotNull | PrimaryKey):
            cols = (c.column,) if isinstance(c, NotNull) else c.columns
            add.not_null |= {x.lower() for x in cols if not t.column(x).not_null}
        if isinstance(c, Unique | PrimaryKey):
            if _lower(c.columns) not in {_lower(k) for k in t.keys}:
                add.extra.append(f"UNIQUE ({', '.join(q(x) for x in c.columns)})")
        elif isinstance(c, ForeignKey):
            declared = {(_lower(f.columns), f.ref_table.lower(), _lower(f.ref_columns))
                        for f in t.foreign_keys}
            if (_lower(c.columns), c.ref_table.lower(), _lower(c.ref_columns)) not in declared:
                add.extra.append(
                    f"FOREIGN KEY ({', '.join(q(x) for x in c.columns)}) REFERENCES "
                    f"{q(c.ref_table)} ({', '.join(q(x) for x in c.ref_columns)})")
        elif isinstance(c, FunctionalDependency):
            add.fds.append((c.determinant, c.dependent))
        else:
            check = row_check(c)
            if check is not None:
                add.extra.append(f"CHECK ({check})")
    for add in out.values():
        add.extra = list(dict.fromkeys(add.extra))
        add.fds = list(dict.fromkeys(add.fds))
    return out


def augment(schema: Schema, constraints: ConstraintSet) -> Schema:
    """``schema`` with ``constraints`` declared (the constraints must be resolved
    against it, see ``spotit.constraints.refs``)."""
    if not len(constraints):
        return schema
    return _declare(schema, _additions(schema, constraints))


def with_checks(schema: Schema, table: str, checks: list[str]) -> Schema:
    """``schema`` with ``CHECK (e)`` declared on ``table`` for each SQL expression ``e``
    (an explanation's restriction that no constraint kind states)."""
    if not checks:
        return schema
    name = schema.require_table(table).name
    return _declare(schema, {name: _Additions(extra=[f"CHECK ({c})" for c in checks])})


def _declare(schema: Schema, additions: dict[str, _Additions]) -> Schema:
    conn = schema.create_database()
    try:
        rows = conn.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE "
            "'sqlite_%' ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'view' THEN 1 ELSE 2 END, "
            "rowid").fetchall()
    finally:
        conn.close()
    statements = []
    for kind, name, sql in rows:
        add = additions.get(name) if kind == "table" else None
        if add is not None and (add.not_null or add.extra):
            try:
                sql = ddl_text.amend_table(sql, add.not_null, add.extra)
            except ddl_text.DdlError as e:
                raise ConstraintError(f"cannot add constraints to table {name}: {e}") from None
        statements.append(sql)
    try:
        augmented = schema_from_ddl(";\n".join(statements) + ";\n",
                                    source=f"{schema.source} + constraints")
    except ConstraintError:
        raise
    except Exception as e:  # a constraint SQLite refuses to declare
        raise ConstraintError(f"the constraints do not load into the schema: {e}") from None
    tables: list[Table] = []
    for t in augmented.tables:
        add = additions.get(t.name)
        fds = tuple(add.fds) if add is not None else ()
        tables.append(dataclasses.replace(t, functional_dependencies=fds) if fds else t)
    return dataclasses.replace(augmented, tables=tuple(tables), cache={})
