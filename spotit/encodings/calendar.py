"""Calendar arithmetic and date text, shared by date cells and date functions.

Gregorian dates with 0 <= y <= 9999; Julian day numbers (the JD at noon of a
day) from civil dates and back, using integer division by constants only, so
every formula stays in linear integer arithmetic.
"""

from __future__ import annotations

import re

from pysmt.fnode import FNode
from pysmt.typing import INT

from spotit.encodings.builder import Builder
from spotit.encodings.values import DateParts
from spotit.ir.types import Domain
from spotit.smt import ops

DATE_PARTS = ("y", "m", "d")
DATETIME_PARTS = ("y", "m", "d", "H", "M", "S")
DATETIME_CELL_PARTS = (*DATETIME_PARTS, "ms", "flen")  # plus the fraction of a second


# ---------------------------------------------------------------------- calendar


def is_leap(b: Builder, y: FNode) -> FNode:
    def divisible(n: int) -> FNode:
        return b.eq(b.floormod(y, n), b.int(0))

    return b.and_(divisible(4), b.or_(b.not_(divisible(100)), divisible(400)))


def days_in_month(b: Builder, y: FNode, m: FNode) -> FNode:
    feb = b.ite(is_leap(b, y), b.int(29), b.int(28))
    thirty = b.or_(*(b.eq(m, b.int(x)) for x in (4, 6, 9, 11)))
    return b.ite(b.eq(m, b.int(2)), feb, b.ite(thirty, b.int(30), b.int(31)))


def valid_date(b: Builder, y: FNode, m: FNode, d: FNode) -> FNode:
    return b.and_(
        b.le(b.int(0), y), b.le(y, b.int(9999)),
        b.le(b.int(1), m), b.le(m, b.int(12)),
        b.le(b.int(1), d), b.le(d, days_in_month(b, y, m)),
    )


def _div(b: Builder, a: FNode, n: int) -> FNode:
    """Floor division by a positive constant."""
    return b.floordiv(a, n)


def julian_day_number(b: Builder, y: FNode, m: FNode, d: FNode) -> FNode:
    """Day number of y-m-d (d may run past the month end, as SQLite allows)."""
    a = b.ite(b.le(m, b.int(2)), b.int(1), b.int(0))
    yy = b.minus(b.plus(y, b.int(4800)), a)
    mm = b.minus(b.plus(m, b.times(b.int(12), a)), b.int(3))
    terms = [
        d,
        _div(b, b.plus(b.times(b.int(153), mm), b.int(2)), 5),
        b.times(b.int(365), yy),
        _div(b, yy, 4),
        b.neg(_div(b, yy, 100)),
        _div(b, yy, 400),
        b.int(-32045),
    ]
    return b.sum(terms)


def julian_day_number_int(y: int, m: int, d: int) -> int:
    a = 1 if m <= 2 else 0
    yy, mm = y + 4800 - a, m + 12 * a - 3
    return d + (153 * mm + 2) // 5 + 365 * yy + yy // 4 - yy // 100 + yy // 400 - 32045


def civil_from_day_number(b: Builder, j: FNode) -> tuple[FNode, FNode, FNode]:
    """(y, m, d) of a Julian day number (Fliegel and Van Flandern)."""
    if j.is_constant():
        v = int(j.constant_value())
        y, m, d = _civil(v)
        return b.int(y), b.int(m), b.int(d)
    t = b.int
    l1 = b.plus(j, t(68569))
    n = _div(b, b.times(t(4), l1), 146097)
    l2 = b.minus(l1, _div(b, b.plus(b.times(t(146097), n), t(3)), 4))
    i = _div(b, b.times(t(4000), b.plus(l2, t(1))), 1461001)
    l3 = b.plus(b.minus(l2, _div(b, b.times(t(1461), i), 4)), t(31))
    jj = _div(b, b.times(t(80), l3), 2447)
    d = b.minus(l3, _div(b, b.times(t(2447), jj), 80))
    l4 = _div(b, jj, 11)
    m = b.minus(b.plus(jj, t(2)), b.times(t(12), l4))
    y = b.plus(b.plus(b.times(t(100), b.minus(n, t(49))), i), l4)
    return y, m, d


def _civil(j: int) -> tuple[int, int, int]:
    l1 = j + 68569
    n = 4 * l1 // 146097
    l2 = l1 - (146097 * n + 3) // 4
    i = 4000 * (l2 + 1) // 1461001
    l3 = l2 - 1461 * i // 4 + 31
    jj = 80 * l3 // 2447
    d = l3 - 2447 * jj // 80
    l4 = jj // 11
    return 100 * (n - 49) + i + l4, jj + 2 - 12 * l4, d


# ---------------------------------------------------------------------- text


def pad(b: Builder, x: FNode, width: int, *, signed: bool = False) -> FNode:
    """Zero-padded decimal text of ``0 <= x < 10**width`` (C's ``%0<width>d``).

    With ``signed``, negative x are written like printf does: ``-`` then the
    digits padded to ``width - 1``.
    """
    if x.is_constant():
        return b.str(f"{x.constant_value():0{width}d}")
    if signed:
        neg = b.concat(b.str("-"), pad(b, b.neg(x), width - 1))
        return b.ite(b.lt(x, b.int(0)), neg, pad(b, x, width))
    digits = ops.str_from_int(x)
    out = digits
    for w in range(width - 1, 0, -1):
        out = b.ite(b.lt(x, b.int(10 ** w)), b.concat(b.str("0" * (width - w)), digits), out)
    return out


def format_date(b: Builder, parts: dict[str, FNode], *, signed_year: bool = False) -> FNode:
    """``YYYY-MM-DD[ HH:MM:SS]``; with ``signed_year`` a negative year is written
    ``-`` plus four digits, as SQLite's DATE() does (``-0001-01-01``)."""
    year = pad(b, parts["y"], 4)
    if signed_year:
        year = b.ite(b.lt(parts["y"], b.int(0)),
                     b.concat(b.str("-"), pad(b, b.neg(parts["y"]), 4)), year)
    text = b.concat(b.concat(year, b.str("-")),
                    b.concat(pad(b, parts["m"], 2), b.concat(b.str("-"), pad(b, parts["d"], 2))))
    if "H" in parts:
        text = b.concat(text, b.concat(b.str(" "), format_time(b, parts)))
    return text


def format_time(b: Builder, parts: dict[str, FNode]) -> FNode:
    return b.concat(
        b.concat(pad(b, parts["H"], 2), b.str(":")),
        b.concat(pad(b, parts["M"], 2), b.concat(b.str(":"), pad(b, parts["S"], 2))),
    )


def fraction_text(b: Builder, ms: FNode, flen: FNode) -> FNode:
    """The fraction of a second as DATETIME cells spell it: ``''`` when ``flen`` is 0,
    else ``'.'`` and the first ``flen`` digits of ``ms`` written with three."""
    if ms.is_constant() and flen.is_constant():
        return b.str(fraction_suffix(int(ms.constant_value()), int(flen.constant_value())))
    out = b.concat(b.str("."), pad(b, ms, 3))
    for n in (2, 1):
        digits = b.concat(b.str("."), pad(b, b.floordiv(ms, 10 ** (3 - n)), n))
        out = b.ite(b.eq(flen, b.int(n)), digits, out)
    return b.ite(b.eq(flen, b.int(0)), b.str(""), out)


def fraction_suffix(ms: int, flen: int) -> str:
    return "" if flen == 0 else "." + f"{ms:03d}"[:flen]


def valid_fraction(b: Builder, ms: FNode, flen: FNode) -> FNode:
    """0 <= flen <= 3 and ms in 0..999 with only ``flen`` significant digits."""
    return b.and_(
        b.le(b.int(0), flen), b.le(flen, b.int(3)),
        b.le(b.int(0), ms), b.le(ms, b.int(999)),
        *(b.implies(b.eq(flen, b.int(n)), b.eq(b.floormod(ms, 10 ** (3 - n)), b.int(0)))
          for n in (0, 1, 2)),
    )


def symbolic_date_text(b: Builder, base: str, domain: Domain, symbols: dict[str, FNode]
                       ) -> tuple[FNode, FNode, DateParts]:
    """A date(time) cell: its text symbol, the constraint tying it to valid parts, the parts.

    A DATETIME cell also has a fraction of a second (``ms``, ``flen``, see
    ``DateParts``): '2010-07-19 19:37:33', '... 19:37:33.0', '... 19:37:33.25'."""
    names = DATETIME_CELL_PARTS if domain is Domain.DATETIME else DATE_PARTS
    parts = {}
    for n in names:
        parts[n] = symbols[f"date_{n}"] = b.sym(f"{base}!{n}", INT)
    ok = [valid_date(b, parts["y"], parts["m"], parts["d"])]
    if domain is Domain.DATETIME:
        ok += [b.le(b.int(0), parts["H"]), b.le(parts["H"], b.int(23)),
               b.le(b.int(0), parts["M"]), b.le(parts["M"], b.int(59)),
               b.le(b.int(0), parts["S"]), b.le(parts["S"], b.int(59)),
               valid_fraction(b, parts["ms"], parts["flen"])]
    text = format_date(b, parts)  # reaches the solver only if a string operation reads it
    if domain is Domain.DATETIME:
        text = b.concat(text, fraction_text(b, parts["ms"], parts["flen"]))
    zero = b.int(0)
    dp = DateParts(parts["y"], parts["m"], parts["d"], parts.get("H", zero),
                   parts.get("M", zero), parts.get("S", zero), domain is Domain.DATETIME,
                   True, parts.get("ms"), parts.get("flen"))
    return text, b.and_(*ok), dp


def decode_date_text(symbols: dict[str, FNode], domain: Domain, model: dict) -> str:
    names = DATETIME_CELL_PARTS if domain is Domain.DATETIME else DATE_PARTS
    v = {n: int(model.get(symbols[f"date_{n}"].symbol_name(), 0) or 0) for n in names}
    text = f"{v['y']:04d}-{v['m']:02d}-{v['d']:02d}"
    if domain is Domain.DATETIME:
        text += f" {v['H']:02d}:{v['M']:02d}:{v['S']:02d}"
        text += fraction_suffix(v["ms"], v["flen"])
    return text


_DATE_TEXT = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_DATETIME_TEXT = re.compile(r"(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?")


def date_text_parts(text: object, domain: Domain) -> dict[str, int] | None:
    """The parts (as named by the cell's symbols) of text in the DATE or DATETIME
    domain, or None if the domain does not hold it."""
    if not isinstance(text, str):
        return None
    pattern = _DATETIME_TEXT if domain is Domain.DATETIME else _DATE_TEXT
    hit = pattern.fullmatch(text)
    if hit is None or not text.isascii():
        return None
    g = hit.groups()
    y, m, d = int(g[0]), int(g[1]), int(g[2])
    if not (1 <= m <= 12 and 1 <= d <= _days_in_month_int(y, m)):
        return None
    out = {"y": y, "m": m, "d": d}
    if domain is Domain.DATETIME:
        H, M, S = int(g[3]), int(g[4]), int(g[5])
        if H > 23 or M > 59 or S > 59:
            return None
        frac = g[6] or ""
        out.update(H=H, M=M, S=S, ms=int(frac.ljust(3, "0")), flen=len(frac))
    return out


def pin_date_text(b: Builder, symbols: dict[str, FNode], text: object, domain: Domain
                  ) -> list[FNode] | None:
    """Formulas fixing a date(time) cell (its ``symbols``) to ``text``; None if the
    column's domain does not hold that text."""
    parts = date_text_parts(text, domain)
    if parts is None:
        return None
    return [b.eq(symbols[f"date_{n}"], b.int(v)) for n, v in parts.items()]


def _days_in_month_int(y: int, m: int) -> int:
    if m == 2:
        return 29 if y % 4 == 0 and (y % 100 != 0 or y % 400 == 0) else 28
    return 30 if m in (4, 6, 9, 11) else 31
