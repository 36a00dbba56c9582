"""Each constraint as SQL: the CHECK a row must pass, and the query counting violations.

Row-level kinds (range, IN, pattern, compare) are one boolean expression over a
row, used both as a ``CHECK`` in the augmented schema (SQLite enforces it, and
SpotIt's encoding of CHECK is what its fuzz tests cover) and, negated, in the
``WHERE`` of the violation query: a CHECK fails only when its expression is
FALSE, and ``WHERE NOT (e)`` keeps exactly those rows (NULL is not FALSE).

Literals keep their storage class (``5``, ``5.0``, ``'5'``), so a bound means in
a CHECK what it means to SQLite: the column's affinity is applied to it, then
values compare in SQLite's order (NULL < numbers < text, text by the column's
collation). Numbers sort before all text, so ``c >= 5`` alone would let any
text through; a range whose only bound is a number also requires ``c < ''``
(every number is below the empty text, no text is). See docs/constraints.md.
"""

from __future__ import annotations

from spotit.constraints.model import (
    Compare,
    Constraint,
    ForeignKey,
    FunctionalDependency,
    InList,
    NotNull,
    Pattern,
    PrimaryKey,
    Range,
    Scalar,
    Unique,
)

_D = "[0-9]"
GLOBS = {
    "date": f"{_D * 4}-{_D * 2}-{_D * 2}",
    "datetime": f"{_D * 4}-{_D * 2}-{_D * 2} {_D * 2}:{_D * 2}:{_D * 2}",
}


def q(name: str) -> str:
    """A quoted identifier."""
    return '"' + name.replace('"', '""') + '"'


def literal(v: Scalar) -> str:
    """A SQL literal of the same storage class as ``v``."""
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        text = repr(v)
        if text in ("inf", "-inf", "nan"):
            raise ValueError(f"no SQL literal for {v}")
        return text if any(ch in text for ch in ".e") else text + ".0"
    return "'" + str(v).replace("'", "''") + "'"


def row_check(c: Constraint) -> str | None:
    """The CHECK expression of a row-level constraint (None for the other kinds)."""
    if isinstance(c, Range):
        col = q(c.column)
        if c.min is not None and c.max is not None:
            cond = f"{col} BETWEEN {literal(c.min)} AND {literal(c.max)}"
        elif c.min is not None:
            cond = f"{col} >= {literal(c.min)}"
            if not isinstance(c.min, str):
                cond += f" AND {col} < ''"
        elif c.max is not None:
            cond = f"{col} <= {literal(c.max)}"
        else:
            return None
        return f"{col} IS NULL OR ({cond})"
    if isinstance(c, InList):
        return f"{q(c.column)} IS NULL OR {q(c.column)} IN ({', '.join(map(literal, c.values))})"
    if isinstance(c, Pattern):
        col = q(c.column)
        if c.glob is not None:
            cond = f"{col} GLOB {literal(c.glob)}"
        elif c.pattern in GLOBS:
            cond = f"{col} GLOB {literal(GLOBS[c.pattern])}"
        elif c.pattern == "upper":
            cond = f"{col} NOT GLOB '*[a-z]*'"
        elif c.pattern == "lower":
            cond = f"{col} NOT GLOB '*[A-Z]*'"
        else:  # digits: non-empty, nothing but ASCII digits
            cond = f"{col} GLOB '[0-9]*' AND {col} NOT GLOB '*[^0-9]*'"
        return f"{col} IS NULL OR ({cond})"
    if isinstance(c, Compare):
        return f"{q(c.left)} {c.op} {q(c.right)}"
    return None


def _all_set(alias: str, cols: tuple[str, ...]) -> str:
    return " AND ".join(f"{alias}.{q(x)} IS NOT NULL" for x in cols)


def violation_query(c: Constraint) -> str:
    """A query whose single value counts the rows (or groups, for keys and functional
    dependencies) of a database that break ``c``."""
    t = q(c.table)
    check = row_check(c)
    if check is not None:
        return f"SELECT COUNT(*) FROM {t} AS r WHERE NOT ({check})"
    if isinstance(c, NotNull):
        return f"SELECT COUNT(*) FROM {t} WHERE {q(c.column)} IS NULL"
    if isinstance(c, Unique | PrimaryKey):
        cols = ", ".join(q(x) for x in c.columns)
        dup = (f"SELECT COUNT(*) FROM (SELECT 1 FROM {t} AS r WHERE {_all_set('r', c.columns)} "
               f"GROUP BY {cols} HAVING COUNT(*) > 1)")
        if isinstance(c, Unique):
            return dup
        nulls = " OR ".join(f"{q(x)} IS NULL" for x in c.columns)
        return f"SELECT ({dup}) + (SELECT COUNT(*) FROM {t} WHERE {nulls})"
    if isinstance(c, ForeignKey):
        match = " AND ".join(f"p.{q(pc)} = c.{q(cc)}"
                             for cc, pc in zip(c.columns, c.ref_columns, strict=True))
        return (f"SELECT COUNT(*) FROM {t} AS c WHERE {_all_set('c', c.columns)} AND NOT EXISTS "
                f"(SELECT 1 FROM {q(c.ref_table)} AS p WHERE {match})")
    if isinstance(c, FunctionalDependency):
        x = ", ".join(q(v) for v in c.determinant)
        y = ", ".join(q(v) for v in c.dependent)
        return (f"SELECT COUNT(*) FROM (SELECT 1 FROM (SELECT DISTINCT {x}, {y} FROM {t} AS r "
                f"WHERE {_all_set('r', c.determinant)}) GROUP BY {x} HAVING COUNT(*) > 1)")
    raise ValueError(f"no violation query for {c.kind}")
