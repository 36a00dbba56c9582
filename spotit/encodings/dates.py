"""SQLite's date and time functions over symbolic values.

**Cells** (``calendar.py``). A DATE cell holds valid ``YYYY-MM-DD`` text (DATETIME:
``YYYY-MM-DD HH:MM:SS``, optionally followed by a fraction of a second of 1 to 3
digits, ``.0`` ... ``.999``): 0 <= y <= 9999, 1 <= m <= 12, 1 <= d <= days(m, y)
with the Gregorian leap rule. The cell is a String symbol tied to integer
parts by ``text = format(y, m, d, ...)``; the Value carries the parts
(``DateParts``), so queries see ordinary text (comparisons, LIKE, SUBSTR, ``||``
act on the text, as in SQLite) while date functions read the integers.

**Time values.** SQLite's functions first turn their argument into a time
value (https://sqlite.org/lang_datefunc.html). Here a time value is a Julian
day number ``J`` (the day, as an integer: the JD at noon) plus seconds of the
day, optionally milliseconds within the second (SQLite keeps time values in whole
milliseconds), and optionally the civil parts the input spelled out. Sources:

- a value with ``DateParts`` (date columns, results of DATE/DATETIME): exact;
- constant text or numbers: folded by SQLite itself before encoding;
- ``'now'`` (and CURRENT_DATE ...): the fixed evaluation instant;
- symbolic text: exact for ``YYYY-MM-DD``, ``YYYY-MM-DD HH:MM:SS`` (optionally
  followed by spaces, or with ``T`` instead of the space) and for text that
  cannot be a time value (NULL); numbers written as text, times of day and
  other rare shapes are over-approximated;
- INTEGER values: a Julian day number (12:00:00), exact; REAL: over-approximated.

Julian day arithmetic uses integer division by constants only (linear).
Supported modifiers: ``±N day|hour|minute|second|month|year[s]`` with integer
N, ``start of day|month|year``, and ``localtime``/``utc`` in SpotIt's fixed time zone,
UTC (they only normalise; supported on values known to lie in 0000..9999, where
SQLite's ``localtime`` is exactly that). The rest are ``unsupported`` (rare).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from fractions import Fraction
from functools import cache, lru_cache

from pysmt.fnode import FNode
from pysmt.typing import BOOL, INT, STRING

from spotit import concrete
from spotit.encodings.builder import Builder
from spotit.encodings.calendar import (
    _div,
    civil_from_day_number,
    days_in_month,
    format_date,
    format_time,
    julian_day_number,
    pad,
)
from spotit.encodings.encoder import Encoder
from spotit.encodings.registry import function
from spotit.encodings.rounding import READINGS, rounded
from spotit.encodings.values import Alt, DateParts, Value, int_value, real_value, text_value
from spotit.errors import Unsupported
from spotit.ir.types import StorageClass
from spotit.mutants import planted
from spotit.smt import ops

SECONDS_PER_DAY = 86400
LAST_DAY = 5373484  # 9999-12-31
# the seconds since 1970 SQLite's 'unixepoch' takes: Julian day 0 at noon to 9999's end
UNIX_FIRST, UNIX_END = -210866760000, 253402300800


# ---------------------------------------------------------------------- time values


@dataclass(frozen=True)
class TimeValue:
    """A time value: NULL flag and seconds of the day, plus the day as a Julian day
    number and/or as civil (y, m, d) parts -- whichever is known; the other is
    derived on demand (civil parts are cheap, day numbers need division).
    ``civil`` holds the parts as the input spelled them: SQLite prints
    '2021-02-30' back unchanged, while its Julian day is that of 2021-03-02.
    ``four_digit_year``: the year is known to lie in 0..9999."""

    null: FNode
    secs: FNode
    day_number: FNode | None = None
    civil: tuple[FNode, FNode, FNode] | None = None
    clock: tuple[FNode, FNode, FNode] | None = None
    four_digit_year: bool = False
    normalized: bool = True  # the civil parts are a real calendar date (d <= days(m))
    # milliseconds within the second (0..999), None: 0. DATE, DATETIME, TIME and the
    # integer STRFTIME fields ignore them; JULIANDAY, %J and %f show them.
    ms: FNode | None = None

    def day(self, b: Builder) -> FNode:
        if self.day_number is not None:
            return self.day_number
        assert self.civil is not None
        return julian_day_number(b, *self.civil)

    def ymd(self, b: Builder) -> tuple[FNode, FNode, FNode]:
        return self.civil if self.civil is not None else civil_from_day_number(b, self.day(b))

    def hms(self, b: Builder) -> tuple[FNode, FNode, FNode]:
        if self.clock is not None:
            return self.clock
        s = self.secs
        h = _div(b, s, 3600)
        rest = b.minus(s, b.times(b.int(3600), h))
        mi = _div(b, rest, 60)
        return h, mi, b.minus(rest, b.times(b.int(60), mi))

    def millis(self, b: Builder) -> FNode:
        return self.ms if self.ms is not None else b.int(0)

    def instant_ms(self, b: Builder) -> FNode:
        """The instant in milliseconds: (day * 86400 + secs) * 1000 + ms."""
        secs = b.plus(b.times(self.day(b), b.int(SECONDS_PER_DAY)), self.secs)
        out = b.times(secs, b.int(1000))
        return out if self.ms is None else b.plus(out, self.ms)


def _from_parts(b: Builder, y, m, d, H, M, S, null, ms=None, four_digit_year: bool = True
                ) -> TimeValue:
    secs = b.sum([b.times(b.int(3600), H), b.times(b.int(60), M), S])
    return TimeValue(null, secs, None, (y, m, d), (H, M, S), four_digit_year, ms=ms)


def now_value(enc: Encoder) -> TimeValue:
    n: datetime = enc.options.now
    if planted("now-in-local-time"):
        n += timedelta(hours=14)
    b = enc.b
    return _from_parts(b, *(b.int(x) for x in (n.year, n.month, n.day, n.hour, n.minute,
                                                n.second)), b.FALSE)


_DIGITS = "0123456789"


def _digits_re(b: Builder, n: int):
    d = ops.re_range(b.str("0"), b.str("9"))
    out = d
    for _ in range(n - 1):
        out = ops.re_concat(out, d)
    return out


def _lit_re(b: Builder, s: str):
    return ops.str_to_re(b.str(s))


def _uf(enc: Encoder, name: str, ret, arg: FNode) -> FNode:
    return enc.b.uf(name, ret, [arg])


_TIME_START = set("0123456789+-. \t\n\x0b\x0c\rnN")


def time_value(enc: Encoder, v: Value) -> TimeValue:
    """SQLite's reading of ``v`` as a time value (see the module docstring)."""
    b = enc.b
    if v.is_constant() and isinstance(v.constant(), str) and v.constant().lower() == "now":
        return now_value(enc)
    cases: list[tuple[FNode, TimeValue]] = []
    for a in v.alts:
        if a.date is not None:
            p = a.date
            # DATE() of a Julian day before year 0 is '-4712-03-03': not ordered parts
            # may hold such a year, which is then written signed again
            cases.append((a.guard, _from_parts(b, p.y, p.m, p.d, p.H, p.M, p.S, b.FALSE,
                                               p.ms, four_digit_year=p.ordered)))
        elif a.cls is StorageClass.TEXT:
            cases.append((a.guard, _parse_text(enc, a.term)))
        elif a.cls is StorageClass.INTEGER:
            cases.append((a.guard, _julian_integer(b, a.term)))
        else:
            cases.append((a.guard, _julian_real(enc, a.term)))
    return _by_class(b, v, cases)


def _by_class(b: Builder, v: Value, cases: list[tuple[FNode, TimeValue]]) -> TimeValue:
    """The time value of each of ``v``'s storage classes, chosen by its guard (NULL
    where ``v`` is)."""
    if not cases:
        return TimeValue(b.TRUE, b.int(0), b.int(0))
    out = cases[-1][1]
    for guard, tv in reversed(cases[:-1]):
        out = _choose_tv(b, guard, tv, out)
    return replace(out, null=b.or_(v.null, out.null))


def _choose_tv(b: Builder, c: FNode, x: TimeValue, y: TimeValue) -> TimeValue:
    def pick(p, q):
        return tuple(b.ite(c, u, v) for u, v in zip(p, q, strict=True))

    civil = None
    if x.civil is not None or y.civil is not None:
        # keep the spelled-out parts of one side ('2021-02-30' prints back as is)
        civil = pick(x.ymd(b), y.ymd(b))
    if x.day_number is not None and y.day_number is not None:
        day = b.ite(c, x.day_number, y.day_number)
    elif civil is not None:
        day = None
    else:
        day = b.ite(c, x.day(b), y.day(b))
    clock = pick(x.clock, y.clock) if x.clock is not None and y.clock is not None else None
    ms = None
    if x.ms is not None or y.ms is not None:
        ms = b.ite(c, x.millis(b), y.millis(b))
    return TimeValue(b.ite(c, x.null, y.null), b.ite(c, x.secs, y.secs), day,
                     civil, clock, x.four_digit_year and y.four_digit_year,  # type: ignore
                     x.normalized and y.normalized, ms)


def _julian_integer(b: Builder, x: FNode) -> TimeValue:
    """An INTEGER x is the Julian day x at noon (valid from 0 to 9999-12-31)."""
    ok = b.and_(b.le(b.int(0), x), b.le(x, b.int(LAST_DAY)))
    return TimeValue(b.not_(ok), b.int(43200), x)


def _julian_real(enc: Encoder, r: FNode) -> TimeValue:
    enc.approximate("a non-integral Julian day number")
    return TimeValue(_uf(enc, "jd_null", BOOL, r), _uf(enc, "jd_secs", INT, r),
                     _uf(enc, "jd_day", INT, r), ms=_free_ms(enc, "jd_ms", r))


@lru_cache(maxsize=4096)
def _sqlite_time_value(arg: object) -> tuple[bool, int, int, int, int, int, int] | None:
    """SQLite's own reading of ``arg`` (text, or a REAL as a Julian day) as a time value:
    (null, seconds of the day, y, m, d, milliseconds, Julian day number); None where it
    has none that these parts spell (a year outside 0..9999). Remembered: each of the
    six parts' readings asks for it, on every row check that meets the argument."""
    value = float(arg) if isinstance(arg, (int, Fraction)) and not isinstance(arg, bool) \
        else arg
    try:
        text = concrete.evaluate("strftime('%Y %m %d %H %M %f', ?) || ' ' || "
                                 "CAST(julianday(date(?)) + 0.5 AS INTEGER)", (value, value))
    except concrete.SqliteEvalError:
        return None
    if text is None:
        return True, 0, 0, 0, 0, 0, 0
    m = re.fullmatch(r"(\d{4}) (\d\d) (\d\d) (\d\d) (\d\d) (\d\d)\.(\d{3}) (\d+)", text)
    if m is None:
        return None
    y, mo, d, hh, mm, ss, ms, day = (int(g) for g in m.groups())
    return False, hh * 3600 + mm * 60 + ss, y, mo, d, ms, day


def _time_value_part(index: int):
    def reading(arg: object):
        parts = _sqlite_time_value(arg)
        return None if parts is None else parts[index]
    return reading


# what SQLite reads where the encoding leaves a time value free (rounding.READINGS): a
# Python check of a case (proofs.pinned_rows) tries it as the functions' interpretation,
# and checks every assertion on it; the solver is never told it
for _name, _index in (("tv_null", 0), ("tv_secs", 1), ("tv_y", 2), ("tv_m", 3), ("tv_d", 4),
                      ("tv_ms", 5), ("jd_null", 0), ("jd_secs", 1), ("jd_day", 6),
                      ("jd_ms", 5)):
    READINGS[f"uf!{_name}"] = _time_value_part(_index)


def _free_ms(enc: Encoder, name: str, arg: FNode) -> FNode:
    """Milliseconds of a free reading (SQLite rounds time values to milliseconds)."""
    b = enc.b
    ms = _uf(enc, name, INT, arg)
    enc.side.append(b.and_(b.le(b.int(0), ms), b.le(ms, b.int(999))))
    return ms


def _shape(b: Builder, s: FNode, template: str, offset: int = 0) -> FNode:
    """s has ``template`` at ``offset``: '9' a digit, ' ' a space or 'T', other
    characters themselves. Character tests, which solvers handle better than
    regular expressions."""
    tests = []
    for i, t in enumerate(template):
        ch = b.char_at(s, b.int(offset + i))
        if t == "9":
            tests.append(ops.str_is_digit(ch))
        elif t == " ":
            tests.append(b.or_(b.eq(ch, b.str(" ")), b.eq(ch, b.str("T"))))
        else:
            tests.append(b.eq(ch, b.str(t)))
    return b.and_(tests)


def _only_spaces_after(b: Builder, s: FNode, n: int) -> FNode:
    tail = b.substr(s, b.int(n), b.minus(b.str_len(s), b.int(n)))
    return b.or_(b.eq(b.str_len(s), b.int(n)),
                 ops.str_in_re(tail, ops.re_star(_lit_re(b, " "))))


DATE_SHAPE = "9999-99-99"
DATETIME_SHAPE = "9999-99-99 99:99:99"


def _parse_text(enc: Encoder, s: FNode) -> TimeValue:
    """Exact for ``YYYY-MM-DD`` and ``YYYY-MM-DD HH:MM:SS`` with an optional fraction
    of 1 to 3 digits (plus trailing spaces; ``T`` for the space) and for text SQLite
    cannot read (NULL); the remaining rare shapes (numbers as Julian days, times of
    day, longer fractions, time zones, 'now' stored as text) get a free,
    over-approximated reading."""
    b = enc.b
    sub = lambda i, n: ops.str_to_int(b.substr(s, b.int(i), b.int(n)))  # noqa: E731
    y, m, d = sub(0, 4), sub(5, 2), sub(8, 2)
    H, M, S = sub(11, 2), sub(14, 2), sub(17, 2)
    date_head = _shape(b, s, DATE_SHAPE)
    is_date = b.and_(date_head, _only_spaces_after(b, s, len(DATE_SHAPE)))
    is_datetime = b.and_(_shape(b, s, DATETIME_SHAPE),
                         _only_spaces_after(b, s, len(DATETIME_SHAPE)))
    ymd_ok = b.and_(b.le(b.int(1), m), b.le(m, b.int(12)), b.le(b.int(1), d),
                    b.le(d, b.int(31)))
    hms_ok = b.and_(b.le(H, b.int(24)), b.le(M, b.int(59)), b.le(S, b.int(59)))
    zero = b.int(0)
    # parts as spelled: the day may run past the month's end ('2021-02-30')
    exact_date = replace(_from_parts(b, y, m, d, zero, zero, zero, b.not_(ymd_ok)),
                         normalized=False)
    exact_dt = replace(_from_parts(b, y, m, d, H, M, S, b.not_(b.and_(ymd_ok, hms_ok))),
                       normalized=False)
    # 'YYYY-MM-DD HH:MM:SS.f' with 1 to 3 digits: f milliseconds, padded to 3 digits
    frac_shapes = [(n, b.and_(_shape(b, s, DATETIME_SHAPE + "." + "9" * n),
                              _only_spaces_after(b, s, len(DATETIME_SHAPE) + 1 + n)))
                   for n in (1, 2, 3)]
    is_fraction = b.or_(*(shape for _, shape in frac_shapes))
    ms = sub(20, 3)
    for n, shape in frac_shapes[:2]:
        ms = b.ite(shape, b.times(sub(20, n), b.int(10 ** (3 - n))), ms)
    exact_frac = replace(exact_dt, ms=ms)
    # What else SQLite might read (a superset): a number (a Julian day; it starts
    # like a number and ends in a digit, '.' or a space), a date followed by a time
    # that is not in the exact shape, a negative year, a time of day, 'now'.
    first = b.char_at(s, b.int(0))
    last = b.char_at(s, b.minus(b.str_len(s), b.int(1)))
    number_like = b.and_(
        b.or_(ops.str_is_digit(first), *(b.eq(first, b.str(c)) for c in "+-. \t\n\r")),
        b.or_(ops.str_is_digit(last), b.eq(last, b.str(".")), b.eq(last, b.str(" "))),
    )
    maybe = b.or_(
        number_like,
        b.and_(date_head, _shape(b, s, " 99:99", len(DATE_SHAPE))),
        _shape(b, s, "-" + DATE_SHAPE),
        _shape(b, s, "99:99"),
        b.eq(b.str_len(s), b.int(3)),  # 'now' in any case
    )
    enc.approximate("a time value read from symbolic text of an unusual shape",
                    b.not_(b.and_(maybe, b.not_(is_date), b.not_(is_datetime),
                                  b.not_(is_fraction))))
    free = TimeValue(_uf(enc, "tv_null", BOOL, s), _uf(enc, "tv_secs", INT, s), None,
                     (_uf(enc, "tv_y", INT, s), _uf(enc, "tv_m", INT, s),
                      _uf(enc, "tv_d", INT, s)), None, False, False,
                     _free_ms(enc, "tv_ms", s))
    enc.side.append(b.and_(b.le(zero, free.secs), b.le(free.secs, b.int(SECONDS_PER_DAY))))
    null_tv = TimeValue(b.TRUE, zero, None, (zero, zero, zero), (zero, zero, zero), True)
    out = _choose_tv(b, maybe, free, null_tv)
    out = _choose_tv(b, is_fraction, exact_frac, out)
    out = _choose_tv(b, is_datetime, exact_dt, out)
    return _choose_tv(b, is_date, exact_date, out)


# ---------------------------------------------------------------------- modifiers

# SQLite 3.40's spellings, exactly: any case; the number right after its sign, then
# whitespace, the unit (an 's' allowed), nothing after; 'start of ' with one space
# each. Anything else ('+ 5 days', ' +5 days', '+5 days ', 'start  of month') is an
# error there (NULL) or another modifier: unsupported here, never read loosely
_MOD_RE = re.compile(r"([+-]?)(\d+)\s+(day|hour|minute|second|month|year)s?\Z",
                     re.IGNORECASE | re.ASCII)
_START_RE = re.compile(r"start of (day|month|year)\Z", re.IGNORECASE)
# SQLite refuses a move of this many units or more (its float limits, measured on
# 3.40), even one a later modifier would undo; a month or year move that large leaves
# the years -4713..9999 (NULL anyway)
MOVE_LIMITS = {"second": 464269992787968, "minute": 7737900007424, "hour": 128969998336,
               "day": 5373485}


def parse_modifier(text: object) -> tuple[str, str, int] | None:
    """``("start", unit, 0)`` or ``("move", unit, n)`` for a modifier SQLite reads so,
    None for any other text."""
    if not isinstance(text, str):
        return None
    if hit := _START_RE.match(text):
        return "start", hit.group(1).lower(), 0
    if hit := _MOD_RE.match(text):
        n = int(hit.group(2)) * (-1 if hit.group(1) == "-" else 1)
        return "move", hit.group(3).lower(), n
    return None


def apply_modifier(enc: Encoder, tv: TimeValue, mod: Value) -> TimeValue:
    b = enc.b
    if not mod.is_constant():
        raise Unsupported("date modifier that is not a constant (nor [sign ||] n || ' unit')")
    text = mod.constant()
    if text is None:
        return replace(tv, null=b.TRUE)
    parsed = parse_modifier(text)
    if parsed is None:
        raise Unsupported(f"date modifier '{text}'")
    kind, unit, n = parsed
    zero = b.int(0)
    if kind == "start" and unit == "day":
        return replace(tv, secs=zero, clock=(zero, zero, zero), ms=None)
    if kind == "start":
        y, m, _ = tv.ymd(b)
        m2 = b.int(1) if unit == "year" else m
        return TimeValue(tv.null, zero, None, (y, m2, b.int(1)), (zero, zero, zero),
                         tv.four_digit_year, True)
    if unit in ("month", "year"):
        return _add_months(b, tv, n * (12 if unit == "year" else 1))
    if abs(n) >= MOVE_LIMITS[unit]:
        return replace(tv, null=b.TRUE)
    seconds = n * {"day": SECONDS_PER_DAY, "hour": 3600, "minute": 60, "second": 1}[unit]
    return _add_seconds(b, tv, seconds)


@dataclass(frozen=True)
class ComputedMove:
    """A modifier computed as ``[sign] || n || ' <unit>'`` (``'-' || ROW_NUMBER() OVER
    (...) || ' days'``, the gaps-and-islands idiom), recognised in the call's IR
    (``spotit.encodings.calls``): ``n`` is the number's value. Never a constant, never a
    time-zone word."""

    sign: str  # '', '+' or '-': the literal before the number
    unit: str  # day, hour, minute, second, month or year
    n: Value

    def is_constant(self) -> bool:
        return False


# the literal after the number: whitespace, then the unit (an 's' allowed), nothing after
COMPUTED_UNIT_RE = re.compile(r"\s+(day|hour|minute|second|month|year)s?\Z",
                              re.IGNORECASE | re.ASCII)
MONTHS_EXACT = 200000  # a computed move of more months leaves years -4713..9999 from any
_UNIT_SECONDS = {"day": SECONDS_PER_DAY, "hour": 3600, "minute": 60, "second": 1}


def _computed_move(enc: Encoder, tv: TimeValue, mod: ComputedMove) -> TimeValue:
    """SQLite's move by a computed modifier: exact where the number is an INTEGER (its
    text is then the decimal digits, '-' in front if negative: '--3 days' and '+-3 days'
    are no modifier, NULL); NULL where it is NULL; where it is a REAL or a text (2.5 is
    '2.5 days', '1e1' ten days, 'x' none), a free reading of that value, an
    over-approximation whose candidates SQLite checks."""
    b = enc.b
    n = mod.n
    ints = n.alt(StorageClass.INTEGER)
    is_int = b.FALSE if ints is None else b.and_(b.not_(n.null), ints.guard)
    k = b.int(0) if ints is None else ints.term
    moved_by = b.neg(k) if mod.sign == "-" else k
    spelled = b.TRUE if mod.sign == "" else b.le(b.int(0), k)
    if planted("computed-move-signed-twice"):
        spelled = b.TRUE
    if mod.unit in ("month", "year"):
        # the civil date first, as for a constant move (a Julian day out of range has
        # none); past MONTHS_EXACT months every year in range is left (NULL on SQLite
        # 3.40 as far as measured), read freely all the same
        months = b.times(moved_by, b.int(12)) if mod.unit == "year" else moved_by
        within = b.and_(b.le(months, b.int(MONTHS_EXACT)), b.le(b.int(-MONTHS_EXACT), months))
        moved = _add_months(b, tv, months)  # the caller checked the range where needed
    else:
        limit = MOVE_LIMITS[mod.unit]
        within = b.and_(b.lt(moved_by, b.int(limit)), b.lt(b.int(-limit), moved_by))
        moved = _add_seconds(b, tv, b.times(moved_by, b.int(_UNIT_SECONDS[mod.unit])))
    moved = replace(moved, null=b.or_(moved.null, b.not_(spelled), b.not_(within)))
    out = moved
    others = [a for a in n.alts if a.cls is not StorageClass.INTEGER]
    exact = is_int
    if mod.unit in ("month", "year") and ints is not None:
        others.append(replace(ints, guard=b.and_(ints.guard, b.not_(within))))
        exact = b.and_(is_int, within)
    if others:
        enc.approximate("a date modifier computed from a number that is not an INTEGER "
                        "(or of too many months)", b.or_(n.null, exact))
        # what SQLite's move reads of the time value: the instant for days to seconds;
        # for months and years the civil date as held ('2021-02-30' moves otherwise
        # than the same instant, 2021-03-02, does) and the clock
        state = ([tv.instant_ms(b)] if mod.unit not in ("month", "year") else
                 [*tv.ymd(b), tv.secs, tv.millis(b), tv.null])
        for alt in others:  # a free reading, the same for the same value and time value
            name = f"move_{mod.unit}_{mod.sign or 'bare'}_{alt.cls.value.lower()}!"
            key = [alt.term, *state]
            # civil parts, as a free reading of odd time text (``time_value``) has them
            # (a NULL time value stays NULL through every modifier)
            free = TimeValue(b.or_(tv.null, b.uf(name + "null", BOOL, key)),
                             b.uf(name + "secs", INT, key),
                             None, tuple(b.uf(name + p, INT, key) for p in "ymd"), None,
                             False, False, b.uf(name + "ms", INT, key))
            enc.side.append(b.and_(b.le(b.int(0), free.secs),
                                   b.lt(free.secs, b.int(SECONDS_PER_DAY)),
                                   b.le(b.int(0), free.ms), b.le(free.ms, b.int(999))))
            out = _choose_tv(b, alt.guard, free, out)
    return _choose_tv(b, n.null, replace(tv, null=b.TRUE), out)


def _add_seconds(b: Builder, tv: TimeValue, seconds: int | FNode) -> TimeValue:
    """The time value ``seconds`` (a constant or a term) later, normalised. It may leave
    SQLite's range and come back ('-1 day', '+2 days' on Julian day 0): only a later step
    that needs the civil date, and the end (``_time_value_of``), check the range."""
    step = b.int(seconds) if isinstance(seconds, int) else seconds
    total = b.plus(b.plus(b.times(tv.day(b), b.int(SECONDS_PER_DAY)), tv.secs), step)
    day = b.floordiv(total, SECONDS_PER_DAY)
    secs = b.minus(total, b.times(day, b.int(SECONDS_PER_DAY)))
    return TimeValue(tv.null, secs, day, ms=tv.ms)  # whole seconds: ms stay


def _checked(b: Builder, tv: TimeValue) -> TimeValue:
    """NULL unless SQLite's Julian day (in milliseconds) is within 0 .. 9999-12-31
    23:59:59.999: the day number counts from noon, so day 0 is valid from 12:00:00."""
    ok = b.and_(b.le(b.int(SECONDS_PER_DAY // 2),
                     b.plus(b.times(tv.day(b), b.int(SECONDS_PER_DAY)), tv.secs)),
                b.le(tv.day(b), b.int(LAST_DAY)))
    return replace(tv, null=b.or_(tv.null, b.not_(ok)))


def _add_months(b: Builder, tv: TimeValue, months: int | FNode) -> TimeValue:
    """SQLite adds to the month, carries into the year, then lets a day past the
    month's end roll into the next month (2021-01-31 +1 month = 2021-03-03).
    Linear: months is a constant (or a term: divided by the constant 12) and d <= 31,
    so the roll is at most one month."""
    y, m, d = tv.ymd(b)
    if isinstance(months, int):
        q, r = (b.int(x) for x in divmod(months, 12))
    else:
        q = b.floordiv(months, 12)
        r = b.minus(months, b.times(q, b.int(12)))
    m1 = b.plus(m, r)
    carry = b.lt(b.int(12), m1)
    y2 = b.plus(b.plus(y, q), b.ite(carry, b.int(1), b.int(0)))
    m2 = b.ite(carry, b.minus(m1, b.int(12)), m1)
    dim = days_in_month(b, y2, m2)
    over = b.lt(dim, d)
    december = b.eq(m2, b.int(12))
    d3 = b.ite(over, b.minus(d, dim), d)
    m3 = b.ite(over, b.ite(december, b.int(1), b.plus(m2, b.int(1))), m2)
    y3 = b.ite(b.and_(over, december), b.plus(y2, b.int(1)), y2)
    if planted("date-month-clamp"):
        y3, m3, d3 = y2, m2, b.ite(over, dim, d)
    # SQLite computes the Julian day of a year outside -4713..9999 as an error (NULL);
    # a year that starts in 0..9999 and moves forward cannot fall below. A day before
    # Julian day 0 is checked where the range is (``_time_value_of``)
    out = b.lt(b.int(9999), y3)
    constant = isinstance(months, int)
    if not constant or months < 0 or not tv.four_digit_year:
        out = b.or_(out, b.lt(y3, b.int(-4713)))
    return TimeValue(b.or_(tv.null, out), tv.secs, None, (y3, m3, d3), tv.clock,
                     constant and months == 0 and tv.four_digit_year,
                     tv.normalized,  # conservative: a raw clock may read 24:00:00
                     tv.ms)


def _time_value_of(enc: Encoder, args: list[Value]) -> TimeValue:
    """The time value of a date function's arguments, with SQLite's range checks: a
    modifier may move it out of range and back (its Julian day is only a number), but
    one that needs the civil date of a Julian day out of range is an error, and the
    result must be in range (``DATE(0, 'start of year')`` is NULL: before day 0)."""
    b = enc.b
    first = 1
    if len(args) > 1 and _is_unixepoch(args[1]):
        tv, in_range, civil, first = _unix_time_value(enc, args[0]), False, False, 2
    else:
        tv = time_value(enc, args[0])
        in_range = _always_in_range(args[0])
        civil = True  # SQLite holds the civil date (read from text, or a 'start of')
    for i, mod in enumerate(args[first:], start=first - 1):
        if _is_unixepoch(mod):
            # only right after a number: anywhere else SQLite's modifier fails (NULL)
            tv = replace(tv, null=b.TRUE)
            continue
        if isinstance(mod, ComputedMove):
            if mod.unit in ("month", "year") and not civil and not in_range:
                tv = _checked(b, tv)  # as for a constant move: the civil date first
            tv = _computed_move(enc, tv, mod)
            in_range, civil = False, False
            continue
        zone = _time_zone_modifier(mod)
        if zone is None:
            parsed = parse_modifier(mod.constant() if mod.is_constant() else None)
            kind = _modifier_kind(parsed)
            if kind != "seconds" and not civil and not in_range:
                tv = _checked(b, tv)  # the civil date of a Julian day out of range
            tv = apply_modifier(enc, tv, mod)
            in_range = in_range and _keeps_range(parsed)
            civil = kind == "start"
            continue
        if not in_range:
            raise Unsupported(f"date modifier '{zone}' on a time value that may be outside "
                              "0000-01-01..9999-12-31 (SQLite's localtime then maps years)")
        # the fixed time zone is UTC: 'localtime' and 'utc' only normalise (SQLite's
        # toLocaltime with a zero offset), exact on every time value in range; a value
        # read from date parts (a cell, a date function, 'now') is normal already
        if args[0].is_constant() and not _is_now(args[0]):
            tv = _constant_time(enc, args[0].constant()) if i == 0 else \
                _add_seconds(enc.b, tv, 0)
            civil = False
    return tv if in_range else _checked(b, tv)


def _word(mod: Value | ComputedMove) -> str | None:
    """A constant text modifier in lower case (SQLite matches its words in any case,
    with nothing around them); None for anything else."""
    if isinstance(mod, ComputedMove) or not mod.is_constant() \
            or not isinstance(mod.constant(), str):
        return None
    return mod.constant().lower()


def _is_unixepoch(mod: Value | ComputedMove) -> bool:
    return _word(mod) == "unixepoch"


def _unix_time_value(enc: Encoder, v: Value) -> TimeValue:
    """``v`` read as seconds since 1970-01-01 00:00:00 (the modifier 'unixepoch' right
    after it): SQLite takes the number ``v`` reads as (an INTEGER, a REAL, numeric
    text), as milliseconds ``s * 1000 + 210866760000000`` rounded, valid from Julian
    day 0 (-4713-11-24 12:00:00) to the end of 9999; date text is no number (NULL).
    An INTEGER is exact (its day and second of the day by floor division); a REAL or
    a text's number is a function of it (over-approximated)."""
    b = enc.b
    cases: list[tuple[FNode, TimeValue]] = []
    for a in v.alts:
        if a.date is not None:  # date text ('2020-01-01') is not a number: NULL
            cases.append((a.guard, TimeValue(b.TRUE, b.int(0), b.int(0))))
        elif a.cls is StorageClass.INTEGER:
            s = a.term
            ok = b.and_(b.le(b.int(UNIX_FIRST), s), b.lt(s, b.int(UNIX_END)))
            days = b.floordiv(s, SECONDS_PER_DAY)
            secs = b.minus(s, b.times(days, b.int(SECONDS_PER_DAY)))
            cases.append((a.guard, TimeValue(b.not_(ok), secs, b.plus(b.int(epoch_day()),
                                                                      days))))
        else:
            enc.approximate("'unixepoch' of a REAL or of text")
            kind = "text" if a.cls is StorageClass.TEXT else "real"  # one function each
            cases.append((a.guard, TimeValue(
                _uf(enc, f"unix_null_{kind}", BOOL, a.term),
                _uf(enc, f"unix_secs_{kind}", INT, a.term),
                _uf(enc, f"unix_day_{kind}", INT, a.term),
                ms=_free_ms(enc, f"unix_ms_{kind}", a.term))))
    return _by_class(b, v, cases)


def _modifier_kind(parsed: tuple[str, str, int] | None) -> str:
    """Of a modifier ``parse_modifier`` read: 'start' (of day, month, year: SQLite then
    holds a civil date), 'months' (and years: they need the civil date first),
    'seconds' (days to seconds: Julian day arithmetic alone) or 'other'."""
    if parsed is None:
        return "other"
    if parsed[0] == "start":
        return "start"
    return "months" if parsed[1] in ("month", "year") else "seconds"


def _time_zone_modifier(mod: Value) -> str | None:
    """'localtime' or 'utc' (any case, nothing around it, as SQLite matches them)."""
    return mod.constant() if _word(mod) in ("localtime", "utc") else None


def _constant_time(enc: Encoder, c) -> TimeValue:
    """SQLite's time value of the constant ``c`` (normalised, NULL if none), as numbers."""
    from spotit import concrete

    b = enc.b
    text = concrete.evaluate("strftime('%Y %m %d %H %M %f', ?, '+0 seconds')", (c,))
    if text is None:
        return TimeValue(b.TRUE, b.int(0), b.int(0))
    y, m, d, H, M, f = text.split()
    ms = round(float(f) * 1000)
    return _from_parts(b, *(b.int(int(x)) for x in (y, m, d, H, M)), b.int(ms // 1000),
                       b.FALSE, b.int(ms % 1000))


def _is_now(v: Value) -> bool:
    return isinstance(v.constant(), str) and v.constant().strip().lower() == "now"


def _always_in_range(v: Value) -> bool:
    """SQLite reads ``v`` as NULL or as a time value within 0000-01-01..9999-12-31 (the
    range of date text; where SQLite's 'localtime' with a zero offset is the identity)."""
    if v.is_constant():
        c = v.constant()
        if c is None or _is_now(v):
            return True
        from spotit import concrete

        try:
            jd = concrete.evaluate("julianday(?)", (c,))
        except concrete.SqliteEvalError:
            return False
        return jd is not None and 1721059.5 <= jd < LAST_DAY + 0.5
    # parts of a date before year 0 ('-4713-11-24', DATE(0)) read as midnight: before
    # Julian day 0 at noon, out of range
    return bool(v.alts) and all(a.date is not None and a.date.ordered for a in v.alts)


def _keeps_range(parsed: tuple[str, str, int] | None) -> bool:
    """A modifier (as ``parse_modifier`` read it) that cannot move a time value of
    0000..9999 out of that range: a 'start of', or months and years forward (a year
    past 9999 is NULL at once)."""
    if parsed is None:
        return False
    kind, unit, n = parsed
    return kind == "start" or (unit in ("month", "year") and n >= 0)


def _parts_dict(b: Builder, tv: TimeValue) -> dict[str, FNode]:
    y, m, d = tv.ymd(b)
    H, M, S = tv.hms(b)
    return {"y": y, "m": m, "d": d, "H": H, "M": M, "S": S}


def _text_with_parts(b: Builder, tv: TimeValue, text: FNode, has_time: bool) -> Value:
    """Date text, with its parts as a view when they are a valid date in 0..9999
    (the view's comparisons assume exactly such text, see textorder)."""
    p = _parts_dict(b, tv)
    parts = DateParts(p["y"], p["m"], p["d"], p["H"], p["M"], p["S"], has_time,
                      tv.normalized and tv.four_digit_year)
    return Value(tv.null, (Alt(StorageClass.TEXT, b.TRUE, text, parts),))


# ---------------------------------------------------------------------- functions


@function("DATE", arity=(1, None), arg_kinds=("date", "modifier"), returns="text",
          differs_in=(), mutants=("date-month-clamp", "now-in-local-time",
                                  "computed-move-signed-twice"))
def fn_date(enc: Encoder, args: list[Value]) -> Value:
    b = enc.b
    tv = _time_value_of(enc, args)
    p = _parts_dict(b, tv)
    text = format_date(b, {k: p[k] for k in "ymd"}, signed_year=not tv.four_digit_year)
    zero = b.int(0)
    return _text_with_parts(b, replace(tv, secs=zero, clock=(zero, zero, zero)), text, False)


@function("DATETIME", arity=(1, None), arg_kinds=("date", "modifier"), returns="text",
          differs_in=(), mutants=("date-month-clamp", "now-in-local-time"))
def fn_datetime(enc: Encoder, args: list[Value]) -> Value:
    b = enc.b
    tv = _time_value_of(enc, args)
    text = format_date(b, _parts_dict(b, tv), signed_year=not tv.four_digit_year)
    return _text_with_parts(b, tv, text, True)


@function("TIME", arity=(1, None), arg_kinds=("date", "modifier"), returns="text",
          differs_in=(), mutants=("date-month-clamp", "now-in-local-time"))
def fn_time(enc: Encoder, args: list[Value]) -> Value:
    b = enc.b
    tv = _time_value_of(enc, args)
    return text_value(b, format_time(b, _parts_dict(b, tv)), tv.null)


@function("JULIANDAY", arity=(1, None), arg_kinds=("date", "modifier"), returns="numeric",
          differs_in=(), mutants=("date-month-clamp", "now-in-local-time"))
def fn_julianday(enc: Encoder, args: list[Value]) -> Value:
    """The Julian day as a REAL: day number - 0.5 + seconds / 86400 (+ milliseconds /
    86400000), rounded to a double as SQLite's one division of its integer milliseconds
    by 86400000.0 is; for a constant, the same rounding of the same rational (SQLite's
    double, read back to its milliseconds), so equal instants give equal doubles.
    """
    b = enc.b
    if all(v.is_constant() for v in args) and not any(
            isinstance(v.constant(), str) and v.constant().strip().lower() == "now"
            for v in args):
        from fractions import Fraction

        from spotit import concrete

        try:
            jd = concrete.evaluate(f"julianday({', '.join('?' for _ in args)})",
                                   tuple(v.constant() for v in args))
        except concrete.SqliteEvalError:
            jd = None
        if jd is None:
            return Value(b.TRUE, ())
        return real_value(b, rounded(enc, b.real(Fraction(round(jd * SECONDS_PER_DAY * 1000),
                                                          SECONDS_PER_DAY * 1000))))
    tv = _time_value_of(enc, args)
    if tv.ms is None:
        jd = b.plus(b.to_real(b.minus(b.times(tv.day(b), b.int(SECONDS_PER_DAY)),
                                      b.int(43200))), b.to_real(tv.secs))
        return real_value(b, rounded(enc, b.real_div(jd, b.real(SECONDS_PER_DAY)),
                                     b.not_(tv.null)), tv.null)
    jd_ms = b.minus(tv.instant_ms(b), b.int(43200 * 1000))
    return real_value(b, rounded(enc, b.real_div(b.to_real(jd_ms),
                                                 b.real(SECONDS_PER_DAY * 1000)),
                                 b.not_(tv.null)), tv.null)


@function("CURRENT_DATE", arity=(0, 0), returns="text",
          differs_in=(), mutants=("now-in-local-time",))
def fn_current_date(enc: Encoder, args: list[Value]) -> Value:
    return fn_date(enc, [text_value(enc.b, enc.b.str("now"))])


@function("CURRENT_TIMESTAMP", arity=(0, 0), returns="text",
          differs_in=(), mutants=("now-in-local-time",))
def fn_current_timestamp(enc: Encoder, args: list[Value]) -> Value:
    return fn_datetime(enc, [text_value(enc.b, enc.b.str("now"))])


@function("CURRENT_TIME", arity=(0, 0), returns="text",
          differs_in=(), mutants=("now-in-local-time",))
def fn_current_time(enc: Encoder, args: list[Value]) -> Value:
    return fn_time(enc, [text_value(enc.b, enc.b.str("now"))])


_DIRECTIVES = set("dfHjJmMsSwWY%")


@function("STRFTIME", arity=(2, None), arg_kinds=("fmt", "date", "modifier"), returns="text",
          differs_in=(), mutants=("date-month-clamp", "now-in-local-time"))
def fn_strftime(enc: Encoder, args: list[Value]) -> Value:
    """STRFTIME(format, time, modifiers...) with a constant format: %Y %m %d %H %M %S
    %f %j %w %W %s %J %% and literal text."""
    b = enc.b
    fmt_v = args[0]
    if not fmt_v.is_constant():
        raise Unsupported("STRFTIME with a non-constant format")
    fmt = fmt_v.constant()
    if fmt is None:
        return Value(b.TRUE, ())
    # the format is text as SQLite spells it: a REAL in 15 significant digits
    # (-8.15862134795342e-18), not Python's shortest round trip (...53421e-18)
    fmt = str(concrete.evaluate("CAST(? AS TEXT)", (fmt,)))
    tv = _time_value_of(enc, args[1:])
    p = _parts_dict(b, tv) if any(c in fmt for c in "YmdHMSfjWw") else {}
    pieces: list[FNode] = []
    i = 0
    while i < len(fmt):
        c = fmt[i]
        if c != "%":
            pieces.append(b.str(c))
            i += 1
            continue
        if i + 1 >= len(fmt):
            return Value(b.TRUE, ())  # a trailing % makes SQLite return NULL
        k = fmt[i + 1]
        if k not in _DIRECTIVES:
            if not _sqlite_knows(k):
                return Value(b.TRUE, ())  # a directive this SQLite does not know: NULL
            raise Unsupported(f"STRFTIME directive %{k}")
        pieces.append(_directive(enc, k, tv, p))
        i += 2
    text = b.str("")
    for piece in pieces:
        text = b.concat(text, piece)
    view = _padded_view(enc, fmt, tv, p)
    return Value(tv.null, (Alt(StorageClass.TEXT, b.TRUE, text, None, view),))


@cache
def _sqlite_knows(directive: str) -> bool:
    """Whether the SQLite here has STRFTIME directive %``directive``: where it has not
    (3.40's %y, %e, %F, ...), its STRFTIME is NULL whatever the time value, and later
    versions know more of them -- so this SQLite is asked, not a list."""
    return concrete.evaluate("strftime(?, '2021-03-04 05:06:07.891')",
                             ("%" + directive,)) is not None


_WIDTHS = {"m": 2, "d": 2, "H": 2, "M": 2, "S": 2, "Y": 4}


def _padded_view(enc: Encoder, fmt: str, tv: TimeValue, p: dict[str, FNode]):
    """A Padded view when the format is zero-padded integer directives, one or several
    with the same separators between them ('%Y', '%Y-%m', '%H:%M')."""
    from spotit.encodings.textorder import Padded

    parts = re.findall(r"%[A-Za-z%]|[^%]+", fmt)
    if not parts or any(x.startswith("%") == parts[0].startswith("%") for x in parts[1::2]) \
            or not parts[0].startswith("%") or not parts[-1].startswith("%"):
        return None  # fields and separators alternate, a field first and last
    b = enc.b
    x: FNode | None = None
    width, layout = 0, []
    for part in parts:
        if not part.startswith("%"):
            if any(c not in _SEPARATORS for c in part):
                return None
            layout.append(part)
            continue
        k = part[1]
        if k not in _WIDTHS or (k == "Y" and not tv.four_digit_year):
            return None
        w = _WIDTHS[k]
        field = p["y" if k == "Y" else k]
        x = field if x is None else b.plus(b.times(x, b.int(10 ** w)), field)
        width += w
        layout.append(w)
    assert x is not None
    return Padded(x, width, tuple(layout) if len(layout) > 1 else ())


_SEPARATORS = set("-/:. ")


def _directive(enc: Encoder, k: str, tv: TimeValue, p: dict[str, FNode]) -> FNode:
    b = enc.b
    if k == "%":
        return b.str("%")
    if k == "Y":
        return pad(b, p["y"], 4, signed=not tv.four_digit_year)
    if k in "mdHMS":
        return pad(b, p[k], 2)
    if k == "f":  # SS.SSS
        return b.concat(pad(b, p["S"], 2), b.concat(b.str("."), pad(b, tv.millis(b), 3)))
    if k == "j":
        start = julian_day_number(b, p["y"], b.int(1), b.int(1))
        return pad(b, b.plus(b.minus(tv.day(b), start), b.int(1)), 3)
    if k == "w":  # 0 = Sunday
        return ops.str_from_int(b.floormod(b.plus(tv.day(b), b.int(1)), 7))
    if k == "W":  # week of the year, weeks start on Monday
        start = julian_day_number(b, p["y"], b.int(1), b.int(1))
        yday = b.minus(tv.day(b), start)
        monday_based = b.floormod(tv.day(b), 7)  # 0 = Monday
        week = _div_sym(b, b.minus(b.plus(yday, b.int(7)), monday_based), 7)
        return pad(b, week, 2)
    if k == "s":
        from spotit.encodings.conversions import int_text

        return int_text(b, _unix_seconds(b, tv))
    if k == "J":
        enc.approximate("STRFTIME('%J') text of a symbolic Julian day")
        # a function of the instant to the millisecond: equal instants print alike,
        # and distinct ones (ms apart included) are free to print differently
        return _uf(enc, "jd_text", STRING, tv.instant_ms(b))
    raise Unsupported(f"STRFTIME directive %{k}")


def epoch_day() -> int:
    """The Julian day number of 1970-01-01, whose midnight Unix time counts from."""
    return 2440587 if planted("unix-epoch-day-off") else 2440588


def _unix_seconds(b: Builder, tv: TimeValue) -> FNode:
    """Whole seconds since 1970-01-01 00:00:00 (SQLite: ``iJD / 1000 - 210866760000``,
    the milliseconds dropped)."""
    return b.plus(b.times(b.minus(tv.day(b), b.int(epoch_day())), b.int(SECONDS_PER_DAY)),
                  tv.secs)


@function("UNIXEPOCH", arity=(0, None), arg_kinds=("date", "modifier"), returns="numeric",
          differs_in=("*",), mutants=("unix-epoch-day-off", "date-month-clamp"))
def fn_unixepoch(enc: Encoder, args: list[Value]) -> Value:
    """UNIXEPOCH(time, modifiers...): STRFTIME('%s', ...) as an INTEGER (SQLite computes
    both alike); no argument is 'now'."""
    b = enc.b
    tv = _time_value_of(enc, args or [text_value(b, b.str("now"))])
    return int_value(b, _unix_seconds(b, tv), tv.null)


def _div_sym(b: Builder, a: FNode, n: int) -> FNode:
    return _div(b, a, n)
