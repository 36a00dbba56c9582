"""Dates and datetimes: (year, month, day[, hour, minute, second]) integers and their text.

A DATE cell holds valid ``YYYY-MM-DD`` text (DATETIME: ``YYYY-MM-DD HH:MM:SS``):
0 <= y <= 9999, 1 <= m <= 12, 1 <= d <= days(m, y) with the Gregorian leap
rule. The cell's value is a String symbol tied to its integer parts by
``text = format(y, m, d, ...)``; queries see ordinary text (so comparisons,
LIKE, SUBSTR and ``||`` act on the text, as in SQLite), while date functions
can read the integer parts directly.
"""

from __future__ import annotations

from pysmt.fnode import FNode
from pysmt.typing import INT, STRING

from spotit.encodings.builder import Builder
from spotit.ir.types import Domain
from spotit.smt import ops

DATE_PARTS = ("y", "m", "d")
DATETIME_PARTS = ("y", "m", "d", "H", "M", "S")


def is_leap(b: Builder, y: FNode) -> FNode:
    div = lambda n: b.eq(ops.int_mod(y, b.int(n)), b.int(0))  # noqa: E731
    return b.and_(div(4), b.or_(b.not_(div(100)), div(400)))


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


def pad(b: Builder, x: FNode, width: int) -> FNode:
    """Zero-padded decimal text of ``0 <= x < 10**width``."""
    digits = ops.str_from_int(x)
    out = digits
    for w in range(width - 1, 0, -1):
        out = b.ite(b.lt(x, b.int(10 ** w)), b.concat(b.str("0" * (width - w)), digits), out)
    return out


def format_date(b: Builder, parts: dict[str, FNode]) -> FNode:
    text = b.concat(b.concat(pad(b, parts["y"], 4), b.str("-")),
                    b.concat(pad(b, parts["m"], 2), b.concat(b.str("-"), pad(b, parts["d"], 2))))
    if "H" in parts:
        time = b.concat(
            b.concat(pad(b, parts["H"], 2), b.str(":")),
            b.concat(pad(b, parts["M"], 2), b.concat(b.str(":"), pad(b, parts["S"], 2))),
        )
        text = b.concat(text, b.concat(b.str(" "), time))
    return text


def symbolic_date_text(b: Builder, base: str, domain: Domain, symbols: dict[str, FNode]
                       ) -> tuple[FNode, FNode]:
    """A date(time) cell: its text symbol and the constraint tying it to valid parts."""
    names = DATETIME_PARTS if domain is Domain.DATETIME else DATE_PARTS
    parts = {}
    for n in names:
        parts[n] = symbols[f"date_{n}"] = b.sym(f"{base}!{n}", INT)
    text = symbols["text"] = b.sym(f"{base}!t", STRING)
    ok = [valid_date(b, parts["y"], parts["m"], parts["d"])]
    if domain is Domain.DATETIME:
        ok += [b.le(b.int(0), parts["H"]), b.le(parts["H"], b.int(23)),
               b.le(b.int(0), parts["M"]), b.le(parts["M"], b.int(59)),
               b.le(b.int(0), parts["S"]), b.le(parts["S"], b.int(59))]
    ok.append(b.eq(text, format_date(b, parts)))
    return text, b.and_(*ok)


def decode_date_text(symbols: dict[str, FNode], domain: Domain, model: dict) -> str:
    names = DATETIME_PARTS if domain is Domain.DATETIME else DATE_PARTS
    v = {n: int(model.get(symbols[f"date_{n}"].symbol_name(), 0) or 0) for n in names}
    text = f"{v['y']:04d}-{v['m']:02d}-{v['d']:02d}"
    if domain is Domain.DATETIME:
        text += f" {v['H']:02d}:{v['M']:02d}:{v['S']:02d}"
    return text
