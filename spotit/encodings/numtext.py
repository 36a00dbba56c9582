"""How SQLite reads a number out of text, as one exact decomposition.

SQLite converts text to numbers by scanning a prefix (``sqlite3AtoF``,
``sqlite3Atoi64``): leading whitespace, an optional sign, integer digits, an
optional ``.`` and fraction digits, an optional exponent; the rest is ignored
(``'12abc' + 0 = 12``, ``'abc' + 0 = 0``). A symbolic string ``s`` is split into
fresh parts

    s = W ++ G ++ I ++ P ++ R      P = "" or "." ++ F

with W maximal whitespace, G the sign ("" unless the next character is + or
-), I maximal digits, P present exactly when a "." follows, F maximal digits.
Each part is determined by s, so the defining constraint is a definition
(always satisfiable, one solution) and can be asserted globally.

From the parts: the integer prefix (CAST AS INTEGER), the numeric prefix
(arithmetic, boolean context, CAST AS REAL/NUMERIC), and well-formedness (the
whole string is a number up to surrounding spaces: NUMERIC affinity). Exact
values need ``str.to_int`` of at most 18 digits and a fraction of at most 6
digits; longer digit strings and exponents (``'1e3'``) get an uninterpreted
value (over-approximation, noted on the encoder).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from pysmt.fnode import FNode
from pysmt.typing import BOOL, INT, REAL, STRING

from spotit.encodings.builder import Builder
from spotit.ir.types import INT64_MAX, INT64_MIN
from spotit.smt import ops

WHITESPACE = " \t\n\x0b\x0c\r"  # sqlite3Isspace
MAX_INT_DIGITS = 18
MAX_FRACTION_DIGITS = 6


@dataclass(frozen=True)
class NumericText:
    has_digits: FNode  # I or F non-empty
    has_point: FNode  # P non-empty
    has_exponent: FNode  # R starts an exponent: [eE][+-]?digit
    negative: FNode
    int_value: FNode  # the integer prefix, when exact
    int_exact: FNode
    real_value: FNode  # the numeric prefix as a real, when exact
    real_exact: FNode
    well_formed: FNode  # the whole of s is a number, up to surrounding whitespace
    fraction_is_zero: FNode  # F has only zeros (1.0 reads as the integer 1 under NUMERIC)


def _char_in(b: Builder, c: FNode, chars: str) -> FNode:
    return b.or_(*(b.eq(c, b.str(x)) for x in chars))


def _digits_re(b: Builder):
    return ops.re_range(b.str("0"), b.str("9"))


def _set_re(b: Builder, chars: str):
    out = ops.str_to_re(b.str(chars[0]))
    for c in chars[1:]:
        out = ops.re_union(out, ops.str_to_re(b.str(c)))
    return out


def decompose(enc, s: FNode) -> NumericText:
    """The parts of symbolic text ``s`` (cached per term on the encoder)."""
    cache = enc.__dict__.setdefault("_numtext", {})
    hit = cache.get(s)
    if hit is None:
        hit = cache[s] = _decompose(enc, s)
    return hit


def _decompose(enc, s: FNode) -> NumericText:
    b: Builder = enc.b
    ws, sign, idig, point, fdig, rest = (b.fresh(f"num_{n}", STRING)
                                         for n in ("W", "G", "I", "P", "F", "R"))
    first = lambda x: b.char_at(x, b.int(0))  # noqa: E731
    digit = _digits_re(b)
    after_w = b.concat(sign, b.concat(idig, b.concat(point, rest)))
    after_i = b.concat(point, rest)
    defs = [
        b.eq(s, b.concat(ws, after_w)),
        ops.str_in_re(ws, ops.re_star(_set_re(b, WHITESPACE))),
        b.not_(_char_in(b, first(after_w), WHITESPACE)),
        b.or_(b.eq(sign, b.str("")), b.eq(sign, b.str("+")), b.eq(sign, b.str("-"))),
        b.implies(b.eq(sign, b.str("")),
                  b.not_(_char_in(b, first(b.concat(idig, after_i)), "+-"))),
        ops.str_in_re(idig, ops.re_star(digit)),
        b.not_(ops.str_in_re(first(after_i), digit)),
        b.eq(point, b.ite(b.eq(first(after_i), b.str(".")), b.concat(b.str("."), fdig),
                          b.str(""))),
        ops.str_in_re(fdig, ops.re_star(digit)),
        b.implies(b.eq(point, b.str("")), b.eq(fdig, b.str(""))),
        b.not_(b.and_(b.not_(b.eq(point, b.str(""))), ops.str_in_re(first(rest), digit))),
    ]
    def solve(known):
        t = known(s)
        if not t.is_constant():
            return None
        parts = split_number(t.constant_value())
        symbols = (ws, sign, idig, point, fdig, rest)
        return {sym: b.str(v) for sym, v in zip(symbols, parts, strict=True)}

    # each part is the longest of its kind where it starts: one split per text
    enc.define((ws, sign, idig, point, fdig, rest), b.and_(defs), solve=solve,
               functional=True)
    len_i, len_f = b.str_len(idig), b.str_len(fdig)
    has_digits = b.or_(b.lt(b.int(0), len_i), b.lt(b.int(0), len_f))
    has_point = b.not_(b.eq(point, b.str("")))
    sign_exp = ops.re_opt(_set_re(b, "+-"))
    exp_re = ops.re_concat(ops.re_concat(_set_re(b, "eE"), sign_exp),
                           ops.re_concat(digit, ops.re_all()))
    has_exponent = b.and_(has_digits, ops.str_in_re(rest, exp_re))
    negative = b.eq(sign, b.str("-"))
    i_num = b.ite(b.eq(len_i, b.int(0)), b.int(0), ops.str_to_int(idig))
    int_exact = b.le(len_i, b.int(MAX_INT_DIGITS))
    int_value = b.ite(negative, b.neg(i_num), i_num)
    # fraction fdig / 10^len(fdig), by cases on the length
    frac = b.real(0)
    f_num = ops.str_to_int(fdig)
    for n in range(MAX_FRACTION_DIGITS, 0, -1):
        frac = b.ite(b.eq(len_f, b.int(n)),
                     b.real_div(b.to_real(f_num), b.real(Fraction(10) ** n)), frac)
    magnitude = b.plus(b.to_real(i_num), frac)
    real_exact = b.and_(int_exact, b.le(len_f, b.int(MAX_FRACTION_DIGITS)),
                        b.not_(has_exponent))
    real_value = b.ite(negative, b.neg(magnitude), magnitude)
    ws_star = ops.re_star(_set_re(b, WHITESPACE))
    exp_full = ops.re_concat(ops.re_concat(_set_re(b, "eE"), sign_exp), ops.re_plus(digit))
    tail_ok = ops.str_in_re(rest, ops.re_concat(ops.re_opt(exp_full), ws_star))
    well_formed = b.and_(has_digits, tail_ok)
    fraction_is_zero = ops.str_in_re(fdig, ops.re_star(ops.str_to_re(b.str("0"))))
    return NumericText(has_digits, has_point, has_exponent, negative, int_value, int_exact,
                       real_value, real_exact, well_formed, fraction_is_zero)


def split_number(text: str) -> tuple[str, str, str, str, str, str]:
    """``text`` as the parts W, G, I, P, F, R of the decomposition above."""

    def digits_from(i: int) -> int:
        while i < len(text) and "0" <= text[i] <= "9":
            i += 1
        return i

    i = len(text) - len(text.lstrip(WHITESPACE))
    ws = text[:i]
    sign = text[i] if i < len(text) and text[i] in "+-" else ""
    i += len(sign)
    j = digits_from(i)
    if j < len(text) and text[j] == ".":
        k = digits_from(j + 1)
        return ws, sign, text[i:j], text[j:k], text[j + 1:k], text[k:]
    return ws, sign, text[i:j], "", "", text[j:]


def integer_fits(enc, s: FNode, nt: NumericText) -> FNode:
    """Whether the digits of ``s``'s integer prefix fit in 64 bits (SQLite then reads a
    plain integer text as an INTEGER, else as a REAL): known up to MAX_INT_DIGITS
    digits, the uninterpreted ``long_fits`` beyond (19 digits may fit)."""
    return enc.b.ite(nt.int_exact, enc.b.TRUE, uf(enc, "long_fits", BOOL, s))


def integer_reading(enc, s: FNode, nt: NumericText) -> FNode:
    """Whether SQLite reads ``s``'s numeric prefix as an INTEGER (computeNumericType):
    no digit at all ('abc', '-.', '.e5' are 0), or digits with neither '.' nor an
    exponent that fit in 64 bits ('12abc'; 19 digits may fit)."""
    b = enc.b
    return b.or_(b.not_(nt.has_digits), b.and_(b.not_(nt.has_point), b.not_(nt.has_exponent),
                                               integer_fits(enc, s, nt)))


def integer_prefix(enc, s: FNode, nt: NumericText) -> FNode:
    """The integer prefix of ``s``: exact up to MAX_INT_DIGITS digits, the
    uninterpreted ``int_prefix`` beyond. That function is SQLite's CAST(s AS INTEGER),
    which clamps to 64 bits: said, or the solver looks for a long digit string read
    past them (a timeout on CAST(t AS INTEGER) against CAST(t AS INTEGER) + 0)."""
    b = enc.b
    beyond = uf(enc, "int_prefix", INT, s)
    if beyond not in enc.ranged:
        enc.ranged.add(beyond)
        enc.side.append(b.and_(b.le(b.int(INT64_MIN), beyond), b.le(beyond, b.int(INT64_MAX))))
    return b.ite(nt.int_exact, nt.int_value, beyond)


def uf(enc, name: str, ret, arg: FNode) -> FNode:
    """An uninterpreted function of ``arg``: same input, same output."""
    return enc.b.uf(name, ret, [arg])


__all__ = ["BOOL", "INT", "REAL", "NumericText", "decompose", "integer_fits",
           "integer_prefix", "integer_reading", "uf"]
