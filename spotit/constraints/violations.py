"""Which constraints a concrete database breaks, as SQLite computes it.

The database is built with the *original* schema (it may well break the
assumed constraints, so the augmented schema could not hold it) and each
constraint's violation query (``spotit.constraints.sql``) is run on it: the
answer is SQLite's, not a re-implementation of its comparison rules.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from spotit.constraints.model import Constraint, ConstraintSet
from spotit.constraints.sql import violation_query
from spotit.errors import ConstraintError
from spotit.schema import Schema
from spotit.validate import Rows, build_database


@dataclass(frozen=True)
class Violation:
    constraint: Constraint
    count: int  # offending rows (groups, for keys and functional dependencies)

    def describe(self) -> str:
        return self.constraint.describe()


def violations(schema: Schema, rows: Rows, constraints: ConstraintSet) -> list[Violation]:
    """The constraints ``rows`` (table -> stored rows) violates, in the set's order."""
    try:
        conn = build_database(schema, rows)
    except sqlite3.Error as e:
        raise ConstraintError(f"the database does not load into the schema: {e}") from None
    try:
        return violations_in(conn, constraints)
    finally:
        conn.close()


def violations_in(conn: sqlite3.Connection, constraints: ConstraintSet) -> list[Violation]:
    """The constraints the database open on ``conn`` violates."""
    out = []
    for c in constraints:
        try:
            (count,), = conn.execute(violation_query(c)).fetchall()
        except sqlite3.Error as e:
            raise ConstraintError(f"cannot evaluate {c.describe()}: {e}") from None
        if count:
            out.append(Violation(c, int(count)))
    return out
