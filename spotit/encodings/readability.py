"""Constraints that make a counterexample easier to read.

Tried after a counterexample is found (and dropped if they make it
unsatisfiable or unconfirmed): small integers, reals in halves, short
printable strings, dates in recent years, datetimes in whole seconds. They
only choose among databases the search already allows, so they never affect
a verdict.
"""

from __future__ import annotations

from pysmt.fnode import FNode
from pysmt.typing import INT, REAL, STRING

from spotit.encodings.encoder import Encoder
from spotit.smt import ops

# strength: (integer range, string length, year range); integers of the "tiny"
# strength are also non-negative.
_LIMITS = {
    "tiny": (9, 3, (2000, 2025)),
    "small": (10, 6, (1990, 2030)),
    "medium": (1000, 16, (1900, 2100)),
}


# DATETIME cells: most fraction digits (each a zero) per strength; medium: any fraction
_FRACTION_DIGITS = {"tiny": 0, "small": 1}
_REAL_STEPS = {"medium": 16}  # a REAL cell is a multiple of 1/step (default 1/2)


def nice_value_constraints(enc: Encoder, strength: str) -> FNode | None:
    """One conjunction over every cell the encoding created, or None if there are none."""
    b = enc.b
    bound, length, (y0, y1) = _LIMITS[strength]
    printable = ops.re_star(ops.re_range(b.str(" "), b.str("~")))
    out = []
    for _key, symbols in enc.db.cell_symbols():
        for role, sym in symbols.items():
            t = sym.get_type()
            if role == "date_y":
                out += [b.le(b.int(y0), sym), b.le(sym, b.int(y1))]
            elif role == "date_flen" and strength in _FRACTION_DIGITS:
                # whole seconds first; then at most BIRD's '.0'; any fraction last
                out.append(b.le(sym, b.int(_FRACTION_DIGITS[strength])))
            elif role == "date_ms" and strength in _FRACTION_DIGITS:
                out.append(b.eq(sym, b.int(0)))
            elif role.startswith("date_") or (role == "text" and "date_y" in symbols):
                continue
            elif t is INT:
                low = 0 if strength == "tiny" else -bound
                out += [b.le(b.int(low), sym), b.le(sym, b.int(bound))]
            elif t is REAL:
                # halves, or at "medium" sixteenths (0.25 shows what two decimals do):
                # small dyadic fractions are doubles exactly, so SQLite stores the value
                # the solver chose
                out += [b.le(b.real(-bound), sym), b.le(sym, b.real(bound)),
                        ops.real_is_int(b.times(sym, b.real(_REAL_STEPS.get(strength, 2))))]
            elif t is STRING:
                out += [b.le(b.str_len(sym), b.int(length)), ops.str_in_re(sym, printable)]
    return b.and_(out) if out else None
