"""Arithmetic, CAST and numeric functions with SQLite's INTEGER/REAL rules.

INTEGER op INTEGER stays INTEGER (``/`` truncates toward zero, ``%`` keeps the
dividend's sign); anything with a REAL is REAL; ``/`` or ``%`` by zero is NULL;
text operands are converted to numbers first (``conversions.to_numeric``).

An INTEGER ``+``, ``-``, ``*`` or negation whose result leaves 64 bits is REAL,
as SQLite's VDBE switches to doubles on overflow. A REAL result is the exact
rational passed through ``rounding.rounded`` (SQLite computes in doubles), and an
INTEGER operand of REAL arithmetic is made a double first (``rounding.promoted``).
"""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction

from pysmt.fnode import FNode
from pysmt.typing import BOOL, REAL

from spotit.encodings import conversions as C
from spotit.encodings.builder import Builder, int_interval
from spotit.encodings.encoder import Encoder, Env
from spotit.encodings.registry import encodes, function
from spotit.encodings.rounding import EDGE_ROUNDING, READINGS, magnitude, promoted, rounded
from spotit.encodings.values import Alt, Value, int_value, normalize, null_value, real_value
from spotit.errors import Unsupported
from spotit.ir import scalar as S
from spotit.ir.types import INT64_MAX, INT64_MIN, Affinity, StorageClass
from spotit.mutants import planted

INT_C, REAL_C = StorageClass.INTEGER, StorageClass.REAL


def _numeric_pairs(b: Builder, x: Value, y: Value):
    for ax in x.alts:
        for ay in y.alts:
            yield ax, ay, b.and_(ax.guard, ay.guard)


def _from_cases(b: Builder, null: FNode, int_cases, real_cases) -> Value:
    alts = []
    for cls, cases in ((INT_C, int_cases), (REAL_C, real_cases)):
        cases = [(g, t) for g, t in cases if not g.is_false()]
        if cases:
            guard = b.or_(g for g, _ in cases)
            term = b.select(cases[:-1], cases[-1][1])
            alts.append(Alt(cls, guard, term))
    return normalize(b, Value(null, tuple(alts)))


def arith(enc: Encoder, op: str, x: Value, y: Value) -> Value:
    """``x op y`` for ``+ - * /`` on numeric values (callers convert text first)."""
    b = enc.b
    null = b.or_(x.null, y.null)
    int_cases, real_cases, zero_div = [], [], []
    for ax, ay, g in _numeric_pairs(b, x, y):
        both_int = ax.cls is INT_C and ay.cls is INT_C
        p, q = ax.term, ay.term
        taken = b.and_(b.not_(null), g)
        if op == "/":
            zero = b.int(0) if ay.cls is INT_C else b.real(0)
            zero_div.append(b.and_(g, b.eq(q, zero)))
        if not both_int:  # an INTEGER operand is made a double first
            p = promoted(enc, p, taken) if ax.cls is INT_C else p
            q = promoted(enc, q, taken) if ay.cls is INT_C else q
        if op == "/":
            if both_int and planted("int-division-real"):
                real_cases.append((g, b.real_div(b.to_real(p), b.to_real(q))))
            elif both_int:
                quotient = b.int_div_trunc(p, q)
                bounds = int_interval(p)
                if bounds is not None and bounds[0] > INT64_MIN:
                    int_cases.append((g, quotient))
                else:  # INT64_MIN / -1 leaves 64 bits: SQLite divides the doubles
                    over = b.and_(b.eq(p, b.int(INT64_MIN)), b.eq(q, b.int(-1)))
                    int_cases.append((b.and_(g, b.not_(over)), quotient))
                    real_cases.append((b.and_(g, over), b.real(2**63)))
            else:
                real_cases.append((g, rounded(enc, b.real_div(p, q), taken)))
            continue
        fn = {"+": b.plus, "-": b.minus, "*": b.times}[op]
        if both_int:
            small = op in "+-" and any(_small_constant(t) for t in (p, q))
            _int_or_overflow(enc, g, fn(p, q), int_cases, real_cases, taken, small,
                             in_doubles=lambda t, p=p, q=q, fn=fn: rounded(
                                 enc, fn(promoted(enc, p, t), promoted(enc, q, t)), t))
        else:
            real_cases.append((g, rounded(enc, fn(p, q), taken)))
    if zero_div:
        null = b.or_(null, b.and_(b.not_(null), b.or_(zero_div)))
    return _from_cases(b, null, int_cases, real_cases)


def _small_constant(t: FNode) -> bool:
    return t.is_int_constant() and abs(t.constant_value()) <= EDGE_ROUNDING


def _int_or_overflow(enc: Encoder, g: FNode, r: FNode, int_cases: list, real_cases: list,
                     taken: FNode, near_edge: bool = False, in_doubles=None) -> None:
    """An integer result ``r`` under guard ``g``: INTEGER within 64 bits, else REAL:
    SQLite redoes the operation on the operands made doubles (``in_doubles``, given
    where the result is REAL: two roundings, not one). ``near_edge``: ``r`` is a 64-bit
    integer moved by at most ``EDGE_ROUNDING`` (``x + 1``, ``-x``), so where it
    overflows the doubles' result is +-2**63 (half their spacing there is 1024)."""
    b = enc.b
    bounds = int_interval(r)
    if bounds is not None and bounds[0] >= INT64_MIN and bounds[1] <= INT64_MAX:
        int_cases.append((g, r))
        return
    fits = b.and_(b.le(b.int(INT64_MIN), r), b.le(r, b.int(INT64_MAX)))
    int_cases.append((b.and_(g, fits), r))
    if near_edge:
        edge = b.ite(b.lt(b.int(0), r), b.real(2**63), b.real(-(2**63)))
    else:
        edge = in_doubles(b.and_(taken, b.not_(fits)))
    real_cases.append((b.and_(g, b.not_(fits)), edge))


def remainder(enc: Encoder, x: Value, y: Value) -> Value:
    """``x % y``: SQLite takes both operands as CAST makes them INTEGER (a REAL
    truncated and saturated, a text by its integer prefix, as the VDBE reads it: so
    ``'1e1' % 7`` is 1.0, not 3.0, and ``7 % '5e-1'`` is 2.0, not NULL), the
    remainder keeping the dividend's sign; NULL if the divisor so read is 0; REAL
    when either operand reads as a REAL number (``to_numeric``), else INTEGER."""
    b = enc.b
    ix, iy = C.to_integer(enc, x), C.to_integer(enc, y)  # the operands
    if not (ix.alts and iy.alts):  # an operand that is always NULL
        return null_value(b)
    null = b.or_(x.null, y.null)
    p, q = ix.alts[0].term, iy.alts[0].term
    rem = b.int_rem_trunc(p, q)
    if planted("modulo-floor"):  # the divisor's sign, as Python's %
        rem = b.ite(b.and_(b.not_(b.eq(rem, b.int(0))),
                           b.not_(b.eq(b.lt(rem, b.int(0)), b.lt(q, b.int(0))))),
                    b.plus(rem, q), rem)
    both_int = b.and_(C.integer_class(enc, x), C.integer_class(enc, y))
    null = b.or_(null, b.eq(q, b.int(0)))
    taken = b.and_(b.not_(null), b.not_(both_int))
    return _from_cases(b, null, [(both_int, rem)],
                       [(b.not_(both_int), promoted(enc, rem, taken))])


@encodes(S.Arith)
def encode_arith(enc: Encoder, e: S.Arith, env: Env) -> Value:
    x, y = enc.value(e.left, env), enc.value(e.right, env)
    if e.op == "%":
        return remainder(enc, x, y)
    return arith(enc, e.op, C.to_numeric(enc, x), C.to_numeric(enc, y))


@encodes(S.Negate)
def encode_negate(enc: Encoder, e: S.Negate, env: Env) -> Value:
    b = enc.b
    x = C.to_numeric(enc, enc.value(e.operand, env))
    int_cases, real_cases = [], []
    for a in x.alts:
        if a.cls is INT_C:  # -(-2**63) is REAL
            _int_or_overflow(enc, a.guard, b.neg(a.term), int_cases, real_cases,
                             b.and_(b.not_(x.null), a.guard), near_edge=True)
        else:
            real_cases.append((a.guard, b.neg(a.term)))
    return _from_cases(b, x.null, int_cases, real_cases)


@encodes(S.StoredAs)
def encode_stored_as(enc: Encoder, e: S.StoredAs, env: Env) -> Value:
    return C.stored_value(enc, enc.value(e.operand, env), e.affinity)


@encodes(S.Cast)
def encode_cast(enc: Encoder, e: S.Cast, env: Env) -> Value:
    v = enc.value(e.operand, env)
    if e.target is Affinity.INTEGER:
        return C.to_integer(enc, v)
    if e.target is Affinity.REAL:
        return C.to_real(enc, v)
    if e.target is Affinity.TEXT:
        return C.to_text(enc, v)
    if e.target is Affinity.NUMERIC:
        return C.cast_numeric(enc, v)
    raise Unsupported(f"CAST AS {e.type_name or 'BLOB'}")


@function("ABS", arity=(1, 1), arg_kinds=("num",), returns="numeric",
          differs_in=(), mutants=("abs-int-as-real",))
def fn_abs(enc: Encoder, args: list[Value]) -> Value:
    """|x|; text is read as a REAL first (SQLite's absFunc: an INTEGER stays INTEGER,
    anything else becomes a double; exact for INTEGER and REAL input)."""
    b = enc.b
    x = args[0]
    text = x.alt(StorageClass.TEXT)
    if text is not None:
        enc.approximate("ABS of text")
        # only the text: an INTEGER beside it in the same value stays INTEGER
        read = C.to_real(enc, Value(b.FALSE, (replace(text, guard=b.TRUE),)))
        alts = [a for a in x.alts if a.cls is not StorageClass.TEXT]
        alts = C.merge_alt(b, alts, Alt(REAL_C, text.guard, read.alts[0].term))
        x = Value(x.null, tuple(alts))
    alts = []
    for a in x.alts:
        zero = b.int(0) if a.cls is INT_C else b.real(0)
        alts.append(Alt(a.cls, a.guard, b.ite(b.lt(a.term, zero), b.neg(a.term), a.term)))
    if planted("abs-int-as-real"):
        return normalize(b, Value(x.null, tuple(
            Alt(REAL_C, a.guard, b.to_real(a.term) if a.cls is INT_C else a.term)
            for a in alts)))
    return Value(x.null, tuple(alts))


@function("SIGN", arity=(1, 1), arg_kinds=("any",), returns="numeric",
          differs_in=(), mutants=("sign-text-prefix",))
def fn_sign(enc: Encoder, args: list[Value]) -> Value:
    """-1, 0 or 1 by the sign of a number (SQLite 3.35+); NULL for NULL and for text
    that is not a number as a whole (``SIGN(' 12 ') = 1``, ``SIGN('12abc')`` is NULL)."""
    b = enc.b
    n = C.as_number(enc, args[0])  # NULL for text that is not a number as a whole
    if planted("sign-text-prefix"):
        n = C.to_numeric(enc, args[0])
    if not n.alts:
        return null_value(b)
    signs = []
    for a in n.alts:
        zero = b.int(0) if a.cls is INT_C else b.real(0)
        signs.append((a.guard, b.ite(b.lt(a.term, zero), b.int(-1),
                                     b.ite(b.eq(a.term, zero), b.int(0), b.int(1)))))
    term = signs[-1][1]
    for guard, sign in reversed(signs[:-1]):
        term = b.ite(guard, sign, term)
    return int_value(b, term, n.null)


ROUND_DIGITS_MODELLED = 15  # ROUND(x, n) for n up to this: a double's decimal precision
EXACT_DOUBLE_INTEGERS = 2**52  # beyond, every double is an integer: ROUND leaves it
PRINTF_NUDGE = Fraction(3e-16)  # relative, added to printf's half-unit rounder


def _sqlite_round(x: float, digits: int) -> Fraction | None:
    from spotit.concrete import evaluate

    value = evaluate(f"ROUND(?, {digits})", (x,))
    return Fraction(value) if isinstance(value, float) else None


def _nudged_reading(digits: int):
    """SQLite's choice at ``x`` of ``uf!round_nudged_<digits>``: whether ROUND(x, digits)
    is the nudged rounding (True where both are the same), None if it is neither."""
    def reading(x: Fraction) -> bool | None:
        x = _double(x)
        if x is None:  # no double: SQLite never rounds it
            return None
        size, scale = abs(x), Fraction(10) ** digits
        whole = math.floor(size * scale + Fraction(1, 2))
        nudged = math.floor(size * scale + Fraction(1, 2) + size * PRINTF_NUDGE * scale)
        sqlite = _sqlite_round(float(x), digits)
        if sqlite is None:
            return None
        if abs(sqlite) == _double(nudged / scale):
            return True
        return False if abs(sqlite) == _double(whole / scale) else None
    return reading


def _double(q: Fraction) -> Fraction | None:
    """The double nearest ``q``, None past the largest (a nudge near DBL_MAX goes there)."""
    try:
        return Fraction(float(q))
    except OverflowError:
        return None


def _printf_reading(digits: int):
    """SQLite's ``uf!round_printf_<digits>`` at ``x``: |ROUND(x, digits)|, the decimal
    its printf wrote read back."""
    def reading(x: Fraction) -> Fraction | None:
        x = _double(x)
        sqlite = None if x is None else _sqlite_round(float(x), digits)
        return None if sqlite is None else abs(sqlite)
    return reading


for _digits in range(1, ROUND_DIGITS_MODELLED + 1):
    READINGS[f"uf!round_nudged_{_digits}"] = _nudged_reading(_digits)
    READINGS[f"uf!round_printf_{_digits}"] = _printf_reading(_digits)


@function("ROUND", arity=(1, 2), arg_kinds=("num", "digits"), returns="numeric",
          differs_in=(), mutants=("round-half-even",))
def fn_round(enc: Encoder, args: list[Value]) -> Value:
    """ROUND(x[, n]) as SQLite 3.40's ``roundFunc`` computes it, on the double's exact
    value. A double beyond 2**52 is returned as it is. ``n = 0``: ``x ± 0.5`` in doubles
    (a rounding), truncated. ``n >= 1``: SQLite prints x with ``"%!.*f"`` and reads the
    text back; its printf adds ``|x|·3e-16`` to the half-unit rounder where
    ``n + exponent2(x)/3 < 15`` (so 0.285, the double 0.28499999999999998, is 0.29 at two
    digits): there the value is the half-up rounding or that nudged one (a function of
    x chooses; they differ only within 3e-16 relative of a decimal tie); elsewhere
    printf's digits run past a double's precision (ROUND(2147483648, 12) is
    2147483647.999999) and the value is a free function of x. Always approximate:
    validation on SQLite decides."""
    b = enc.b
    x = C.to_real(enc, args[0])
    digits = 0
    null = x.null
    if len(args) == 2:
        n = args[1]
        if not n.is_constant():
            raise Unsupported("ROUND with a non-constant number of digits")
        c = n.constant()
        if c is None:
            return Value(b.TRUE, ())
        digits = round_digits(c)
        if digits > ROUND_DIGITS_MODELLED:
            # past a double's precision its printf's digits drift: ROUND(2020.0, 16) is
            # 2019.999999999999 (SQLite 3.40), ROUND(123.456, 17) is 123.456
            raise Unsupported(f"ROUND to {digits} digits (more than "
                              f"{ROUND_DIGITS_MODELLED}: SQLite's printf digits)")
    if not x.alts:
        enc.approximate("ROUND on exact rationals")
        return x
    r = x.alts[0].term
    taken = b.not_(null)
    size = magnitude(b, r)
    half = b.real(Fraction(1, 2))
    scale = b.real(Fraction(10) ** digits)
    if digits == 0:
        # (sqlite_int64)(r + 0.5): the sum is a double first (0.49999999999999994 + 0.5
        # is 1.0); exact where that rounding is the identity (rounding.rounded)
        whole = b.to_real(b.real_trunc(rounded(enc, b.plus(size, half), taken)))
    else:
        scaled = b.times(size, scale)
        whole = b.to_real(b.real_trunc(b.plus(scaled, half)))
        nudged = b.to_real(b.real_trunc(b.plus(b.plus(scaled, half), b.times(
            b.times(size, b.real(PRINTF_NUDGE)), scale))))
        up = b.uf(f"round_nudged_{digits}", BOOL, [r], [REAL])
        limit = Fraction(1, 4) if digits == 15 else Fraction(2) ** (45 - 3 * digits)
        drifting = b.uf(f"round_printf_{digits}", REAL, [r], [REAL])
        enc.reading_points += [(r, up), (r, drifting)]
        nudging = b.lt(size, b.real(limit))
        # exact where the nudge changes nothing (away from a decimal tie) and the
        # digits do not drift: the range searched first, SQLite's value there
        enc.approximate("ROUND on exact rationals", b.implies(
            taken, b.and_(nudging, b.eq(nudged, whole))))
        whole = b.ite(nudging, b.ite(up, nudged, whole), b.times(drifting, scale))
    if planted("round-half-even"):  # a tie goes to the even neighbour
        exact = b.times(size, scale)
        tie = b.eq(b.minus(exact, b.to_real(b.real_trunc(exact))), half)
        odd = b.not_(b.eq(b.int_rem_trunc(b.real_trunc(whole), b.int(2)), b.int(0)))
        whole = b.ite(b.and_(tie, odd), b.to_real(b.real_trunc(exact)), whole)
    unsigned = b.real_div(whole, scale)
    signed = b.ite(b.le(b.real(0), r), unsigned, b.neg(unsigned))
    # SQLite reads the printed decimal back as a double; beyond 2**52 nothing changes
    value = rounded(enc, signed, taken)
    return real_value(b, b.ite(b.lt(b.real(EXACT_DOUBLE_INTEGERS), size), r, value), null)


def round_digits(c: int | float | str | bytes) -> int:
    """ROUND's digit count as SQLite reads a constant: ``sqlite3_value_int`` (text by its
    integer prefix, ``''`` and ``'abc'`` are 0, REAL truncated, 64 bits cut to 32),
    then clamped to 0..30."""
    from spotit.concrete import evaluate

    n = evaluate("CAST(? AS INTEGER)", (c,))
    n = ((int(n or 0) + 2**31) % 2**32) - 2**31
    return max(0, min(n, 30))


def _scalar_extreme(enc: Encoder, args: list[Value], want_max: bool, collation: str
                    ) -> Value:
    """Multi-argument MIN/MAX: NULL if any argument is NULL, else the extreme one
    under ``collation``. On a tie MAX keeps the earlier argument and MIN takes the
    later one (SQLite's ``minmaxFunc``: ``min(1, 1.0)`` is 1.0)."""
    from spotit.encodings.collation import ordered_before
    from spotit.encodings.values import choose

    b = enc.b
    null = b.or_(v.null for v in args)
    if planted("minmax-skips-null"):
        return _extreme_of_present(enc, args, want_max, collation)
    best = args[0]
    for v in args[1:]:
        if want_max:
            better = ordered_before(enc, best, v, collation)
        else:
            better = b.not_(ordered_before(enc, best, v, collation))
        best = choose(b, better, v, best)
    return Value(null, best.alts)


def _extreme_of_present(enc: Encoder, args: list[Value], want_max: bool, collation: str
                        ) -> Value:
    """The minmax-skips-null mutant: the extreme of the non-NULL arguments."""
    from spotit.encodings.collation import ordered_before
    from spotit.encodings.values import choose

    b = enc.b
    best = null_value(b)
    for v in args:
        better = (ordered_before(enc, best, v, collation) if want_max
                  else b.not_(ordered_before(enc, best, v, collation)))
        best = choose(b, b.and_(b.not_(v.null), b.or_(best.null, better)), v, best)
    return best


@function("MAX", arity=(2, None), arg_kinds=("any", "any"), collation=True, returns="any",
          differs_in=(), mutants=("minmax-skips-null",))
def fn_max(enc: Encoder, args: list[Value], collation: str) -> Value:
    return _scalar_extreme(enc, args, True, collation)


@function("MIN", arity=(2, None), arg_kinds=("any", "any"), collation=True, returns="any",
          differs_in=(), mutants=("minmax-skips-null",))
def fn_min(enc: Encoder, args: list[Value], collation: str) -> Value:
    return _scalar_extreme(enc, args, False, collation)
