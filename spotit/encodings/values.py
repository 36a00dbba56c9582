"""Symbolic SQLite values and truth values.

A ``Value`` is a NULL flag plus one *alternative* per storage class the value
may have: ``Alt(cls, guard, term)`` says "when ``guard`` holds the value is of
class ``cls`` and equals ``term``" (an Int, Real or String term). When not NULL
exactly one guard holds. Most values have one alternative with guard TRUE; a
``CASE`` mixing types, a text-to-number conversion (INTEGER or REAL) or an
untyped column has several.

A ``Truth`` is SQL's three-valued logic as two flags: ``t`` (is TRUE) and
``f`` (is FALSE), never both; neither means NULL. Then AND, OR and NOT are
plain boolean formulas (``t = t1 & t2``, ``f = f1 | f2``, ...).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pysmt.fnode import FNode
from pysmt.typing import INT, REAL, STRING

from spotit.encodings.builder import Builder
from spotit.errors import Unsupported
from spotit.ir.types import StorageClass
from spotit.smt.ops import STAND_IN_CHARS

if TYPE_CHECKING:
    from spotit.encodings.textorder import CaseMap, Padded

SORT_OF = {StorageClass.INTEGER: INT, StorageClass.REAL: REAL, StorageClass.TEXT: STRING}
_ORDER = (StorageClass.INTEGER, StorageClass.REAL, StorageClass.TEXT)


@dataclass(frozen=True, slots=True)
class DateParts:
    """Integer parts of TEXT known to be SQLite's date text ``YYYY-MM-DD[ HH:MM:SS[.f]]``
    (a negative year written ``-YYYY``; two-digit month, day and clock fields).

    ``has_time`` says whether the text shows the time; without it the time is
    midnight. Date functions read these instead of parsing the text, and two such
    texts are equal exactly when their parts are. ``ordered``: the parts are a
    valid date with a year in 0..9999, so text order is the order of the parts
    (comparisons with constants, LIKE prefixes, SUBSTR by position rely on it).

    ``ms``/``flen`` (only with ``has_time``; both None or both set): the text may
    end in a fraction of a second, ``flen`` digits (0..3; 0: no fraction, no dot)
    spelling ``ms // 10**(3 - flen)`` milliseconds (0..999, a multiple of
    ``10**(3 - flen)``), as DATETIME cells may hold ('2010-07-19 19:37:33.0').
    None: the text has no fraction (the same as ``ms = flen = 0``). Text order
    of such texts is the order of (y, m, d, H, M, S, ms, flen): '' < '.0' <
    '.00' < '.000' < '.001' < ... < '.1' < '.10' < '.100' < '.101' ...
    """

    y: FNode
    m: FNode
    d: FNode
    H: FNode
    M: FNode
    S: FNode
    has_time: bool
    ordered: bool = True
    ms: FNode | None = None
    flen: FNode | None = None

    @property
    def fractional(self) -> bool:
        """The text may carry a fraction of a second."""
        return self.ms is not None


@dataclass(frozen=True, slots=True)
class Alt:
    cls: StorageClass
    guard: FNode
    term: FNode
    date: DateParts | None = None
    shape: Padded | CaseMap | None = None  # see textorder

    @property
    def view(self):
        """The structured shape of this TEXT alternative, if known."""
        return self.date if self.date is not None else self.shape


@dataclass(frozen=True, slots=True)
class Value:
    null: FNode
    alts: tuple[Alt, ...]

    def alt(self, cls: StorageClass) -> Alt | None:
        for a in self.alts:
            if a.cls is cls:
                return a
        return None

    @property
    def classes(self) -> frozenset[StorageClass]:
        return frozenset(a.cls for a in self.alts)

    def is_constant(self) -> bool:
        """Known before solving: constant NULL flag and a single constant alternative."""
        if self.null.is_true():
            return True
        return (
            self.null.is_false()
            and len(self.alts) == 1
            and self.alts[0].guard.is_true()
            and self.alts[0].term.is_constant()
        )

    def constant(self):
        """The Python value of a constant Value (None for NULL)."""
        if self.null.is_true():
            return None
        a = self.alts[0]
        v = a.term.constant_value()
        if a.cls is StorageClass.REAL:
            return float(v)
        if a.cls is StorageClass.INTEGER:
            return int(v)
        return str(v)


@dataclass(frozen=True, slots=True)
class Truth:
    t: FNode
    f: FNode

    def null(self, b: Builder) -> FNode:
        return b.and_(b.not_(self.t), b.not_(self.f))


# ---------------------------------------------------------------------- constructors


def null_value(b: Builder) -> Value:
    return Value(b.TRUE, ())


def single(b: Builder, cls: StorageClass, term: FNode, null: FNode | None = None) -> Value:
    return Value(null if null is not None else b.FALSE, (Alt(cls, b.TRUE, term),))


def int_value(b: Builder, term: FNode, null: FNode | None = None) -> Value:
    return single(b, StorageClass.INTEGER, term, null)


def real_value(b: Builder, term: FNode, null: FNode | None = None) -> Value:
    return single(b, StorageClass.REAL, term, null)


def text_value(b: Builder, term: FNode, null: FNode | None = None) -> Value:
    return single(b, StorageClass.TEXT, term, null)


def constant(b: Builder, v: int | float | str | None) -> Value:
    """The Value of a Python constant as SQLite would store it."""
    if v is None:
        return null_value(b)
    if isinstance(v, bool):
        v = int(v)
    if isinstance(v, int):
        return int_value(b, b.int(v))
    if isinstance(v, float):
        if not math.isfinite(v):  # '1e999' read as a number: SQLite's Inf has no rational
            raise Unsupported("an infinite REAL")
        return real_value(b, b.real(v))
    if "\x00" in v:  # made by CHAR(0) folded: SQLite's functions read a NUL as the end
        raise Unsupported("a text holding a NUL character")
    if (c := next((c for c in v if ord(c) >= STAND_IN_CHARS), None)) is not None:
        raise Unsupported(f"a text holding the character U+{ord(c):04X}: characters from "
                          "U+2F800 on stand for all those SQLite text holds beyond SMT-LIB's "
                          "strings")
    return text_value(b, b.str(v))


def with_null(b: Builder, v: Value, extra_null: FNode) -> Value:
    """``v``, but also NULL when ``extra_null`` holds."""
    return Value(b.or_(v.null, extra_null), v.alts)


def choose(b: Builder, cond: FNode, then: Value, other: Value) -> Value:
    """``then`` when ``cond`` holds, else ``other`` (merging alternatives by class)."""
    if cond.is_true():
        return then
    if cond.is_false():
        return other
    alts = []
    for cls in _ORDER:
        x, y = then.alt(cls), other.alt(cls)
        if x is None and y is None:
            continue
        if x is not None and y is not None:
            alts.append(Alt(cls, b.ite(cond, x.guard, y.guard), b.ite(cond, x.term, y.term),
                            _merge_dates(b, cond, x.date, y.date),
                            _merge_shape(b, cond, x.shape, y.shape)))
        elif x is not None:
            alts.append(Alt(cls, b.and_(cond, x.guard), x.term, x.date, x.shape))
        else:
            assert y is not None
            alts.append(Alt(cls, b.and_(b.not_(cond), y.guard), y.term, y.date, y.shape))
    null = b.ite(cond, then.null, other.null)
    return _drop_impossible(b, Value(null, tuple(alts)))


def _merge_dates(b: Builder, cond: FNode, x: DateParts | None, y: DateParts | None
                 ) -> DateParts | None:
    if x is None or y is None or x.has_time != y.has_time:
        return None
    ms = flen = None
    if x.fractional or y.fractional:  # a text without a fraction has ms = flen = 0
        zero = b.int(0)
        ms = b.ite(cond, x.ms if x.fractional else zero, y.ms if y.fractional else zero)
        flen = b.ite(cond, x.flen if x.fractional else zero, y.flen if y.fractional else zero)
    return DateParts(*(b.ite(cond, getattr(x, f), getattr(y, f)) for f in "ymdHMS"),
                     x.has_time, x.ordered and y.ordered, ms, flen)


def _merge_shape(b: Builder, cond: FNode, x, y):
    from spotit.encodings.textorder import Padded

    if isinstance(x, Padded) and x.same_shape(y):
        return Padded(b.ite(cond, x.x, y.x), x.width, x.layout)
    return None


def choose_many(b: Builder, cases: list[tuple[FNode, Value]], default: Value) -> Value:
    """The first case whose condition holds, else ``default``."""
    out = default
    for cond, v in reversed(cases):
        out = choose(b, cond, v, out)
    return out


def _drop_impossible(b: Builder, v: Value) -> Value:
    alts = tuple(a for a in v.alts if not a.guard.is_false())
    if len(alts) == 1 and not alts[0].guard.is_true():
        # the only class possible when not NULL: its guard is implied
        a = alts[0]
        alts = (Alt(a.cls, b.TRUE, a.term, a.date, a.shape),)
    if not alts:
        return Value(b.TRUE, ())
    return Value(v.null, alts)


def normalize(b: Builder, v: Value) -> Value:
    return _drop_impossible(b, v)


# ---------------------------------------------------------------------- truth values


def truth_const(b: Builder, value: bool | None) -> Truth:
    if value is None:
        return Truth(b.FALSE, b.FALSE)
    return Truth(b.bool(value), b.bool(not value))


def truth_and(b: Builder, x: Truth, y: Truth) -> Truth:
    return Truth(b.and_(x.t, y.t), b.or_(x.f, y.f))


def truth_or(b: Builder, x: Truth, y: Truth) -> Truth:
    return Truth(b.or_(x.t, y.t), b.and_(x.f, y.f))


def truth_not(x: Truth) -> Truth:
    return Truth(x.f, x.t)


def truth_of_bool(b: Builder, cond: FNode, null: FNode) -> Truth:
    """A comparison's truth: ``cond`` decides unless ``null``."""
    nn = b.not_(null)
    return Truth(b.and_(nn, cond), b.and_(nn, b.not_(cond)))


def truth_to_value(b: Builder, x: Truth) -> Value:
    """A truth used as a value: INTEGER 1 / 0, or NULL."""
    return int_value(b, b.ite(x.t, b.int(1), b.int(0)), x.null(b))
