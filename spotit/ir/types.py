"""SQLite's storage classes, type affinity, and the domains SpotIt gives columns.

SQLite is dynamically typed: every value has a *storage class* (NULL, INTEGER,
REAL, TEXT, BLOB) and every column and some expressions have an *affinity*
that steers conversions in comparisons and on insertion
(https://sqlite.org/datatype3.html). SpotIt keeps both apart: the encoder
tracks which storage classes a value may take, the binder tracks affinities.

The *domain* of a column is the set of values the symbolic database may put in
it. SpotIt searches databases whose cells have the storage class the declared
type suggests (an INTEGER column holds integers or NULL, a DATE column holds
valid ``YYYY-MM-DD`` text or NULL, ...). "Equivalent within K" is always
relative to these domains; see ``docs/semantics.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from spotit.errors import Unsupported

MIXED_COMPARED = ("a comparison of a column of a compound SELECT whose members have "
                  "different affinities (SQLite compares it under one member's affinity "
                  "or another's)")


class StorageClass(Enum):
    """The non-NULL storage classes SpotIt models (BLOB is not modelled)."""

    INTEGER = "integer"
    REAL = "real"
    TEXT = "text"

    @property
    def is_numeric(self) -> bool:
        return self is not StorageClass.TEXT


class Affinity(Enum):
    """Column affinity (https://sqlite.org/datatype3.html#type_affinity).

    ``BLOB`` is a column's (declared without a type, or BLOB); ``NONE`` is "no
    affinity": literals and most expressions. Both store values unconverted, but
    in a comparison only ``NONE`` takes the other side's TEXT affinity: a BLOB
    column compared with a TEXT column is compared as stored (SQLite's
    sqlite3CompareAffinity: both sides columns, neither numeric -> no conversion).
    """

    TEXT = "TEXT"
    NUMERIC = "NUMERIC"
    INTEGER = "INTEGER"
    REAL = "REAL"
    BLOB = "BLOB"
    NONE = "NONE"
    # a column of a compound SELECT read as a table whose members' affinities differ
    # where its values do not depend on it (the leftmost member's converts nothing):
    # SQLite compares it under one member's affinity or another's, so the binder
    # refuses any comparison that reads it (spotit.frontend.binder)
    MIXED = "MIXED"

    @property
    def converts(self) -> bool:
        """Does storing a value under this affinity change it?"""
        if self is Affinity.MIXED:
            raise Unsupported(MIXED_COMPARED)
        return self not in (Affinity.BLOB, Affinity.NONE)

    @property
    def is_numeric(self) -> bool:
        return self in (Affinity.NUMERIC, Affinity.INTEGER, Affinity.REAL)


NO_AFFINITY = Affinity.NONE


def affinity_of_declared_type(declared: str) -> Affinity:
    """SQLite's five rules, in order, for the affinity of a declared column type."""
    t = declared.upper()
    if "INT" in t:
        return Affinity.INTEGER
    if "CHAR" in t or "CLOB" in t or "TEXT" in t:
        return Affinity.TEXT
    if "BLOB" in t or not t.strip():
        return Affinity.BLOB
    if "REAL" in t or "FLOA" in t or "DOUB" in t:
        return Affinity.REAL
    return Affinity.NUMERIC


class Domain(Enum):
    """What values a column of the symbolic database may hold (besides NULL)."""

    INTEGER = "integer"  # 64-bit integers
    REAL = "real"  # reals (modelled as rationals, see docs/semantics.md)
    TEXT = "text"  # any string without NUL characters
    DATE = "date"  # valid 'YYYY-MM-DD' text
    DATETIME = "datetime"  # valid 'YYYY-MM-DD HH:MM:SS' text
    NUMERIC = "numeric"  # an integer or a real (NUMERIC affinity columns)
    ANY = "any"  # integer, real or text (columns declared without a type)

    @property
    def storage_classes(self) -> frozenset[StorageClass]:
        return _DOMAIN_CLASSES[self]


_DOMAIN_CLASSES = {
    Domain.INTEGER: frozenset({StorageClass.INTEGER}),
    Domain.REAL: frozenset({StorageClass.REAL}),
    Domain.TEXT: frozenset({StorageClass.TEXT}),
    Domain.DATE: frozenset({StorageClass.TEXT}),
    Domain.DATETIME: frozenset({StorageClass.TEXT}),
    Domain.NUMERIC: frozenset({StorageClass.INTEGER, StorageClass.REAL}),
    Domain.ANY: frozenset({StorageClass.INTEGER, StorageClass.REAL, StorageClass.TEXT}),
}


# PostgreSQL's types of documents and shapes, as schemas ported to SQLite declare them
# (NUMERIC affinity; POINT's is INTEGER): their values are text there
# ('{"en": "Abakan"}', '(129.7,62.0)')
TEXT_DOCUMENTS = frozenset({"JSON", "JSONB", "POINT", "LINE", "LSEG", "BOX", "PATH",
                            "POLYGON", "CIRCLE"})


def domain_of_declared_type(declared: str) -> Domain:
    """The domain SpotIt searches for a column with this declared type."""
    t = declared.strip().upper()
    base = t.split("(")[0].strip()
    if base == "DATE":
        return Domain.DATE
    if base in ("DATETIME", "TIMESTAMP"):
        return Domain.DATETIME
    if base in TEXT_DOCUMENTS:  # a document (text), or a bare number
        return Domain.ANY
    affinity = affinity_of_declared_type(declared)
    if affinity is Affinity.INTEGER:
        return Domain.INTEGER
    if affinity is Affinity.REAL:
        return Domain.REAL
    if affinity is Affinity.TEXT:
        return Domain.TEXT
    if affinity is Affinity.BLOB:
        return Domain.ANY
    if base in ("NUMBER",):  # Spider's tables.json spelling of "integer or real"
        return Domain.NUMERIC
    if base in ("BOOLEAN", "BOOL"):
        return Domain.INTEGER
    if base == "TIME":
        return Domain.TEXT
    return Domain.NUMERIC


BINARY = "BINARY"
MODELLED_COLLATIONS = frozenset({"BINARY", "NOCASE", "RTRIM"})


@dataclass(frozen=True, slots=True)
class Collation:
    """The collating sequence an expression brings to a comparison
    (https://sqlite.org/datatype3.html#collation).

    ``explicit`` marks a ``COLLATE`` operator somewhere in the expression; it wins
    over the collation of a column. An expression with neither has no collation
    (``None`` where a ``Collation`` is expected), and a comparison of two such
    falls back to BINARY.
    """

    name: str = BINARY
    explicit: bool = False
    origin: str = field(default="", compare=False)  # "table.column" of a declared one

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", self.name.upper())

    def checked_name(self) -> str:
        """The name, if SpotIt models this collation (else ``unsupported``)."""
        if self.name not in MODELLED_COLLATIONS:
            from spotit.errors import Unsupported

            where = f" on {self.origin}" if self.origin else ""
            raise Unsupported(f"collation {self.name}{where}")
        return self.name


COLUMN_BINARY = Collation(BINARY)


def value_key(v: object) -> tuple:
    """The identity of a literal value as SQLite sees it. Python has
    ``0 == 0.0 == False`` and ``0.0 == -0.0``; SQLite tells them apart
    (``0 || ''`` is ``'0'``, ``0.0 || ''`` is ``'0.0'``), so equality, hashing and
    caches of values use this key."""
    return type(v), repr(v)


# INT64 bounds: SQLite integers are 64-bit; the symbolic database respects them.
INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
