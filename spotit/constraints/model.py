"""What the real data is assumed to satisfy: one frozen dataclass per kind of constraint.

A constraint names a table and columns of the schema (resolved to the schema's
own spelling by ``spotit.constraints.refs``) and may carry where it came from:
``support`` (rows it was seen to hold on) and ``confidence`` (the share of
rows or groups that satisfy it, for approximate mined ones). The meaning of
each kind, NULLs included, is in docs/constraints.md; how each becomes SQL is
in ``spotit.constraints.sql``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import ClassVar

Scalar = int | float | str

NAMED_PATTERNS = ("date", "datetime", "upper", "lower", "digits")
COMPARISONS = ("<", "<=", ">", ">=", "=", "<>")


@dataclass(frozen=True)
class Constraint:
    """Base: the table it constrains and its provenance (not part of its identity)."""

    kind: ClassVar[str] = ""
    table: str
    support: int | None = field(default=None, compare=False, kw_only=True)
    confidence: float | None = field(default=None, compare=False, kw_only=True)

    def columns_used(self) -> tuple[str, ...]:
        """Every column of ``table`` it reads."""
        raise NotImplementedError

    def describe(self) -> str:
        """A one-line human description, e.g. ``NOT NULL schools.County``."""
        raise NotImplementedError


def _cols(table: str, cols: tuple[str, ...]) -> str:
    inner = ", ".join(cols)
    return f"{table}.{inner}" if len(cols) == 1 else f"{table}({inner})"


@dataclass(frozen=True)
class NotNull(Constraint):
    kind: ClassVar[str] = "not_null"
    column: str

    def columns_used(self) -> tuple[str, ...]:
        return (self.column,)

    def describe(self) -> str:
        return f"NOT NULL {self.table}.{self.column}"


@dataclass(frozen=True)
class Unique(Constraint):
    """No two rows with every column non-NULL share the values (SQLite's UNIQUE)."""

    kind: ClassVar[str] = "unique"
    columns: tuple[str, ...]

    def columns_used(self) -> tuple[str, ...]:
        return self.columns

    def describe(self) -> str:
        return f"UNIQUE {_cols(self.table, self.columns)}"


@dataclass(frozen=True)
class PrimaryKey(Constraint):
    """UNIQUE and NOT NULL on every column (the standard's key, not SQLite's looser one)."""

    kind: ClassVar[str] = "primary_key"
    columns: tuple[str, ...]

    def columns_used(self) -> tuple[str, ...]:
        return self.columns

    def describe(self) -> str:
        return f"PRIMARY KEY {_cols(self.table, self.columns)}"


@dataclass(frozen=True)
class ForeignKey(Constraint):
    """Every row whose ``columns`` are all non-NULL has a row of ``ref_table`` with
    equal ``ref_columns`` (an inclusion dependency, as SpotIt encodes foreign keys)."""

    kind: ClassVar[str] = "foreign_key"
    columns: tuple[str, ...]
    ref_table: str
    ref_columns: tuple[str, ...]

    def columns_used(self) -> tuple[str, ...]:
        return self.columns

    def describe(self) -> str:
        return (f"FOREIGN KEY {_cols(self.table, self.columns)} -> "
                f"{_cols(self.ref_table, self.ref_columns)}")


@dataclass(frozen=True)
class Inclusion(ForeignKey):
    """Same meaning as a foreign key, without claiming the referenced columns are a key."""

    kind: ClassVar[str] = "inclusion"

    def describe(self) -> str:
        return (f"INCLUSION {_cols(self.table, self.columns)} ⊆ "
                f"{_cols(self.ref_table, self.ref_columns)}")


@dataclass(frozen=True)
class Range(Constraint):
    """``column`` is NULL or lies in [min, max] in SQLite's order (either side optional)."""

    kind: ClassVar[str] = "range"
    column: str
    min: Scalar | None = None
    max: Scalar | None = None

    def columns_used(self) -> tuple[str, ...]:
        return (self.column,)

    def describe(self) -> str:
        lo = "" if self.min is None else f"{self.min!r} <= "
        hi = "" if self.max is None else f" <= {self.max!r}"
        return f"RANGE {lo}{self.table}.{self.column}{hi}"


@dataclass(frozen=True)
class InList(Constraint):
    """``column`` is NULL or one of ``values`` (a categorical domain)."""

    kind: ClassVar[str] = "in"
    column: str
    values: tuple[Scalar, ...]

    def columns_used(self) -> tuple[str, ...]:
        return (self.column,)

    def describe(self) -> str:
        shown = ", ".join(repr(v) for v in self.values[:6])
        more = ", ..." if len(self.values) > 6 else ""
        return f"IN {self.table}.{self.column} ∈ {{{shown}{more}}}"


@dataclass(frozen=True)
class Pattern(Constraint):
    """``column`` is NULL or its text matches a named pattern or a GLOB pattern."""

    kind: ClassVar[str] = "pattern"
    column: str
    pattern: str | None = None  # one of NAMED_PATTERNS
    glob: str | None = None

    def __post_init__(self) -> None:
        if (self.pattern is None) == (self.glob is None):
            raise ValueError("a pattern constraint has exactly one of pattern, glob")
        if self.pattern is not None and self.pattern not in NAMED_PATTERNS:
            raise ValueError(f"unknown named pattern {self.pattern!r} "
                             f"(known: {', '.join(NAMED_PATTERNS)})")

    def columns_used(self) -> tuple[str, ...]:
        return (self.column,)

    def describe(self) -> str:
        what = self.pattern if self.pattern is not None else f"GLOB {self.glob!r}"
        return f"PATTERN {self.table}.{self.column} {what}"


@dataclass(frozen=True)
class FunctionalDependency(Constraint):
    """Two rows whose ``determinant`` columns are all non-NULL and equal have equal
    ``dependent`` columns, NULL counting as a value (as DISTINCT compares)."""

    kind: ClassVar[str] = "functional_dependency"
    determinant: tuple[str, ...]
    dependent: tuple[str, ...]

    def columns_used(self) -> tuple[str, ...]:
        return self.determinant + self.dependent

    def describe(self) -> str:
        return (f"FD {self.table}: {', '.join(self.determinant)} -> "
                f"{', '.join(self.dependent)}")


@dataclass(frozen=True)
class Compare(Constraint):
    """Within each row, ``left op right`` is not FALSE (NULL on either side passes)."""

    kind: ClassVar[str] = "compare"
    left: str
    op: str
    right: str

    def __post_init__(self) -> None:
        if self.op not in COMPARISONS:
            raise ValueError(f"unknown comparison {self.op!r} (known: {', '.join(COMPARISONS)})")

    def columns_used(self) -> tuple[str, ...]:
        return (self.left, self.right)

    def describe(self) -> str:
        return f"COMPARE {self.table}: {self.left} {self.op} {self.right}"


KINDS: dict[str, type[Constraint]] = {c.kind: c for c in (
    NotNull, Unique, PrimaryKey, ForeignKey, Inclusion, Range, InList, Pattern,
    FunctionalDependency, Compare)}


@dataclass(frozen=True)
class ConstraintSet:
    """Constraints over one schema, plus what an import skipped (and why) and how
    they were obtained (a miner's sample bound, the source file)."""

    constraints: tuple[Constraint, ...] = ()
    skipped: tuple[str, ...] = ()  # one message per constraint left out of an import
    source: str = ""
    sample: int | None = None  # mined from at most this many rows per table (None: all)

    def __iter__(self) -> Iterator[Constraint]:
        return iter(self.constraints)

    def __len__(self) -> int:
        return len(self.constraints)

    def of_kind(self, kind: str) -> tuple[Constraint, ...]:
        return tuple(c for c in self.constraints if c.kind == kind)

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for c in self.constraints:
            out[c.kind] = out.get(c.kind, 0) + 1
        return out
