"""Compare structured text without string theory.

Two kinds of TEXT values have a known shape:

- date(time) text ``YYYY-MM-DD[ HH:MM:SS[.f]]`` with integer parts (``DateParts``;
  ``.f`` is a fraction of a second of 1 to 3 digits, DATETIME cells only);
- zero-padded decimals of an integer ``0 <= x < 10**w`` (``STRFTIME('%m', d)``),
  a ``Padded`` view.

Within one shape, text order *is* the order of the integer key (dates: the
tuple (y, m, d[, H, M, S[, ms, flen]]); padded: x). So comparing such text
with a constant string c reduces to comparing the key with the key of the
smallest text of that shape that is >= c, found by binary search in Python;
and comparing two values of one shape compares their keys. The results are
exactly the text comparisons (BINARY collation), without asking the solver
to reason about ``str.from_int``.

Fractions of a second: the 1111 spellings ``''``, ``'.0'`` ... ``'.9'``,
``'.00'`` ... ``'.999'`` sorted as strings are sorted by (ms, flen) (a
fraction that is a prefix of another sorts first; otherwise the first
differing digit decides, and so does ms). A fractional datetime text is
therefore increasing in ``seconds * 1111 + rank(suffix)``, and the binary
search runs over that index.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from pysmt.fnode import FNode
from pysmt.typing import INT

from spotit.encodings.builder import Builder
from spotit.encodings.calendar import _civil, julian_day_number_int
from spotit.encodings.values import DateParts


@dataclass(frozen=True, slots=True)
class Padded:
    """Text that is ``x`` written with exactly ``width`` digits (0 <= x < 10**width).

    ``layout``, if any, splits the digits into runs with the same separators always
    between them (``STRFTIME('%Y-%m', d)`` is ``(4, '-', 2)`` over ``x = y * 100 + m``):
    text order is still the order of x, since every text has its separators at the
    same places."""

    x: FNode
    width: int
    layout: tuple[int | str, ...] = ()

    def same_shape(self, other) -> bool:
        return (isinstance(other, Padded) and other.width == self.width
                and other.layout == self.layout)


def render_padded(n: int, width: int, layout: tuple[int | str, ...] = ()) -> str:
    digits = str(n).zfill(width)
    if not layout:
        return digits
    out, at = [], 0
    for part in layout:
        if isinstance(part, str):
            out.append(part)
        else:
            out.append(digits[at:at + part])
            at += part
    return "".join(out)


@dataclass(frozen=True, slots=True)
class CaseMap:
    """Text that is ``source`` with ASCII letters upper-cased (``upper``) or lower-cased.

    LIKE folds ASCII case itself, so LIKE on the mapped text is LIKE on the
    source; equality with a constant is a case-insensitive match of the source.
    """

    source: FNode
    upper: bool


FIRST_DAY = julian_day_number_int(0, 1, 1)
LAST_DAY = julian_day_number_int(9999, 12, 31)


def _date_text(day: int) -> str:
    y, m, d = _civil(day)
    return f"{y:04d}-{m:02d}-{d:02d}"


def _datetime_text(n: int) -> str:
    day, s = divmod(n, 86400)
    return f"{_date_text(day)} {s // 3600:02d}:{s % 3600 // 60:02d}:{s % 60:02d}"


# every fraction of a second a DATETIME cell may spell, in text order, with its (ms, flen)
SUFFIXES: tuple[str, ...] = tuple(sorted(
    [""] + [f".{i:0{n}d}" for n in (1, 2, 3) for i in range(10 ** n)]))
SUFFIX_KEYS: tuple[tuple[int, int], ...] = tuple(
    (int(x[1:].ljust(3, "0")) if x else 0, len(x) - 1 if x else 0) for x in SUFFIXES)


def _fractional_text(n: int) -> str:
    sec, rank = divmod(n, len(SUFFIXES))
    return _datetime_text(sec) + SUFFIXES[rank]


def _first_at_least(lo: int, hi: int, text: Callable[[int], str], c: str) -> int | None:
    """Smallest n in [lo, hi] with text(n) >= c (text is increasing), None if none."""
    if text(hi) < c:
        return None
    while lo < hi:
        mid = (lo + hi) // 2
        if text(mid) >= c:
            hi = mid
        else:
            lo = mid + 1
    return lo


@lru_cache(maxsize=4096)
def date_bound(c: str, has_time: bool, fractional: bool = False
               ) -> tuple[tuple[int, ...] | None, bool]:
    """(key of the smallest date(time) text >= c or None, whether that text equals c).

    With ``fractional`` the texts are datetimes with an optional fraction of a
    second and the key is (y, m, d, H, M, S, ms, flen)."""
    if fractional:
        assert has_time
        width = len(SUFFIXES)
        n = _first_at_least(FIRST_DAY * 86400 * width, (LAST_DAY * 86400 + 86400) * width - 1,
                            _fractional_text, c)
        if n is None:
            return None, False
        sec, rank = divmod(n, width)
        day, s = divmod(sec, 86400)
        key = (*_civil(day), s // 3600, s % 3600 // 60, s % 60, *SUFFIX_KEYS[rank])
        return key, _fractional_text(n) == c
    if has_time:
        n = _first_at_least(FIRST_DAY * 86400, LAST_DAY * 86400 + 86399, _datetime_text, c)
        if n is None:
            return None, False
        day, s = divmod(n, 86400)
        key = (*_civil(day), s // 3600, s % 3600 // 60, s % 60)
        return key, _datetime_text(n) == c
    n = _first_at_least(FIRST_DAY, LAST_DAY, _date_text, c)
    if n is None:
        return None, False
    return _civil(n), _date_text(n) == c


@lru_cache(maxsize=4096)
def padded_bound(c: str, width: int, layout: tuple[int | str, ...] = ()
                 ) -> tuple[int | None, bool]:
    def text(x: int) -> str:
        return render_padded(x, width, layout)

    n = _first_at_least(0, 10 ** width - 1, text, c)
    if n is None:
        return None, False
    return n, text(n) == c


def _unordered(view) -> bool:
    """Date text whose order is not the order of its parts (negative or raw dates)."""
    return isinstance(view, DateParts) and not view.ordered


def date_key(b: Builder, p: DateParts, fractional: bool | None = None) -> list[FNode]:
    """The parts in text order; ``fractional`` (default: whether ``p`` is) appends
    (ms, flen), which are 0 for text without a fraction."""
    if not p.has_time:
        return [p.y, p.m, p.d]
    key = [p.y, p.m, p.d, p.H, p.M, p.S]
    if fractional is None:
        fractional = p.fractional
    if fractional:
        key += [p.ms, p.flen] if p.fractional else [b.int(0), b.int(0)]
    return key


def _date_keys(b: Builder, x: DateParts, y: DateParts) -> tuple[list[FNode], list[FNode]]:
    """Comparable keys of two date texts with the same ``has_time``."""
    frac = x.has_time and (x.fractional or y.fractional)
    return date_key(b, x, frac), date_key(b, y, frac)


def lex_lt(b: Builder, xs: Sequence[FNode], ys: Sequence[FNode]) -> FNode:
    out = b.FALSE
    for x, y in reversed(list(zip(xs, ys, strict=True))):
        out = b.or_(b.lt(x, y), b.and_(b.eq(x, y), out))
    return out


def lex_eq(b: Builder, xs: Sequence[FNode], ys: Sequence[FNode]) -> FNode:
    return b.and_(b.eq(x, y) for x, y in zip(xs, ys, strict=True))


def _ints(b: Builder, key) -> list[FNode]:
    return [b.int(v) for v in key]


# ---------------------------------------------------------------------- public


def shaped_lt(b: Builder, x, x_term: FNode, y, y_term: FNode) -> FNode | None:
    """text(x) < text(y) when a shape makes it cheap, else None (use string theory).

    ``x``/``y`` are the alternatives' views (DateParts, Padded or None).
    """
    if _unordered(x) or _unordered(y):
        return None
    if isinstance(x, DateParts) and isinstance(y, DateParts) and x.has_time == y.has_time:
        return lex_lt(b, *_date_keys(b, x, y))
    if isinstance(x, Padded) and x.same_shape(y):
        return b.lt(x.x, y.x)
    if y is None and y_term.is_constant():
        return _lt_const(b, x, y_term.constant_value())
    if x is None and x_term.is_constant():
        ge = _lt_const(b, y, x_term.constant_value(), strict=False)
        return None if ge is None else b.not_(ge)
    return None


def shaped_eq(b: Builder, x, x_term: FNode, y, y_term: FNode) -> FNode | None:
    if isinstance(x, DateParts) and isinstance(y, DateParts):
        if x.has_time != y.has_time:
            return b.FALSE
        return lex_eq(b, *_date_keys(b, x, y))
    if _unordered(x) or _unordered(y):
        return None
    if isinstance(x, Padded) and x.same_shape(y):
        return b.eq(x.x, y.x)
    if y is None and y_term.is_constant():
        return _eq_const(b, x, y_term.constant_value())
    if x is None and x_term.is_constant():
        return _eq_const(b, y, x_term.constant_value())
    return None


def _lt_const(b: Builder, view, c: str, strict: bool = True) -> FNode | None:
    """text < c (or text <= c when not strict)."""
    if isinstance(view, DateParts):
        key, exact = date_bound(c, view.has_time, view.fractional)
        if key is None:
            return b.TRUE
        mine = date_key(b, view)
        lt = lex_lt(b, mine, _ints(b, key))
        return lt if strict or not exact else b.or_(lt, lex_eq(b, mine, _ints(b, key)))
    if isinstance(view, Padded):
        n, exact = padded_bound(c, view.width, view.layout)
        if n is None:
            return b.TRUE
        lt = b.lt(view.x, b.int(n))
        return lt if strict or not exact else b.le(view.x, b.int(n))
    return None


def ci_literal_re(b: Builder, text: str):
    """Regex matching exactly ``text`` up to ASCII case."""
    from spotit.smt import ops

    out = ops.str_to_re(b.str(""))
    for ch in text:
        piece = ops.str_to_re(b.str(ch))
        if ch.isascii() and ch.isalpha():
            piece = ops.re_union(ops.str_to_re(b.str(ch.lower())),
                                 ops.str_to_re(b.str(ch.upper())))
        out = ops.re_concat(out, piece)
    return out


def case_map_can_hold(view: CaseMap, c: str) -> bool:
    """Whether mapped text can contain ``c`` (upper-cased text has no a-z ...)."""
    bad = str.islower if view.upper else str.isupper
    return not any(ch.isascii() and bad(ch) for ch in c)


def note_case_mapped_constant(enc, x, y) -> None:
    """UPPER/LOWER text (or a NOCASE key) compared with a constant is decided on its
    source by a regular expression (exact at any length). When the mapped symbol is
    used elsewhere too (a UNIQUE key, DISTINCT), say what it then is: LOWER of text
    matching 'abc' up to case is 'abc'. True of the mapping, so it only adds
    precision, and it is asserted only if the symbol is used."""
    from spotit.ir.types import StorageClass
    from spotit.smt import ops

    b = enc.b
    for u, c in ((x, y), (y, x)):
        a, k = u.alt(StorageClass.TEXT), c.alt(StorageClass.TEXT)
        if a is None or k is None or not isinstance(a.shape, CaseMap) \
                or not k.term.is_constant() or not a.term.is_symbol():
            continue
        text = k.term.constant_value()
        if case_map_can_hold(a.shape, text):
            enc.define((a.term,), b.implies(ops.str_in_re(a.shape.source, ci_literal_re(b, text)),
                                            b.eq(a.term, b.str(text))))


def _eq_const(b: Builder, view, c: str) -> FNode | None:
    if isinstance(view, CaseMap):
        from spotit.smt import ops

        if not case_map_can_hold(view, c):
            return b.FALSE
        return ops.str_in_re(view.source, ci_literal_re(b, c))
    if isinstance(view, DateParts):
        key, exact = date_bound(c, view.has_time, view.fractional)
        return lex_eq(b, date_key(b, view), _ints(b, key)) if exact and key else b.FALSE
    if isinstance(view, Padded):
        n, exact = padded_bound(c, view.width, view.layout)
        return b.eq(view.x, b.int(n)) if exact and n is not None else b.FALSE
    return None


def prefix_match(b: Builder, view, prefix: str) -> FNode | None:
    """text starts with ``prefix``: the texts with a prefix form an interval."""
    if view is None or _unordered(view):
        return None
    if not prefix:
        return b.TRUE
    upper = prefix[:-1] + chr(ord(prefix[-1]) + 1)
    ge = _lt_const(b, view, prefix)
    lt = _lt_const(b, view, upper)
    if ge is None or lt is None:
        return None
    return b.and_(b.not_(ge), lt)


# ---------------------------------------------------------------------- text against a constant


def text_lt(enc, x: FNode, y: FNode) -> FNode:
    """``x < y`` on text (BINARY collation: code-point order), through
    :func:`constant_order` when one side is a constant and the other is not."""
    b: Builder = enc.b
    if x.is_constant() == y.is_constant():
        return b.lt(x, y)  # two constants fold there
    if y.is_constant():
        return b.eq(constant_order(enc, x, y.constant_value()), b.int(-1))
    return b.eq(constant_order(enc, y, x.constant_value()), b.int(1))


def constant_order(enc, x: FNode, c: str) -> FNode:
    """An integer that is -1, 0 or 1 as the text ``x`` is below, equal to or above the
    constant ``c``: one per (text, constant), so every comparison of ``x`` with ``c``
    reads the same symbol.

    Why not SMT-LIB's ``str.<``: z3 5.4 takes seconds to time-outs to search a text
    range with it (``'2017-01-01' <= x <= '2017-12-31 23:59:59'``: 9 s sat, over 10 s
    unsat), cvc5 over 20 s for ``not str.<``. Why not only a regular-language
    membership (``ops.re_below``), which decides such a range in 0.1 s: proofs relating
    comparisons with the *same* constant (``x < c OR x = c`` against ``x <= c``) then
    make the solver compare languages, 0.3 s at 19 characters and 3-5 s at 43, where
    ``str.<`` knows the order's axioms. Defined by the membership below ``c`` and the
    equality with ``c``, the sign makes those proofs arithmetic (0.00-0.03 s) and keeps
    the ranges fast (0.1-0.3 s); measured in ``benchmarks/bench_text_order.py``.
    """
    cache = enc.__dict__.setdefault("_text_order", {})
    key = (x, c)
    hit = cache.get(key)
    if hit is not None:
        return hit
    from spotit.smt import ops

    b: Builder = enc.b
    sign = cache[key] = b.fresh("text_cmp", INT)
    below = ops.str_in_re(x, ops.re_below(c))
    # above c is what is neither: a third membership for it slowed z3 from 1.2 to 2.3 s
    # and cvc5 from 3.5 to 9.3 s on a refuted pair over three date constants
    enc.define((sign,), b.and_(b.le(b.int(-1), sign), b.le(sign, b.int(1)),
                               b.iff(b.eq(sign, b.int(-1)), below),
                               b.iff(b.eq(sign, b.int(0)), b.eq(x, b.str(c)))),
               solve=lambda known: _solve_sign(b, sign, known(x), c), functional=True)
    return sign


def _solve_sign(b: Builder, sign: FNode, x: FNode, c: str) -> dict[FNode, FNode] | None:
    if not x.is_constant():
        return None
    v = x.constant_value()
    return {sign: b.int((v > c) - (v < c))}
