"""SQLite's math functions (compiled into the sqlite3 module SpotIt runs with).

Exact where rationals say it: CEIL/CEILING, FLOOR, TRUNC of a number (an INTEGER stays
itself, a REAL goes to the integral REAL), MOD (C's ``fmod`` on the two doubles, which
is exact: ``x - y * trunc(x / y)``, NULL for ``y = 0``; of two INTEGERs the integer
remainder while both are within 2**53, free beyond, where their doubles are others:
``MOD(2**53 + 1, 2)`` is 0.0) and PI (the double). The
transcendental ones -- SQRT, EXP, LN, LOG, LOG10, LOG2, POWER, the trigonometric and
hyperbolic functions, DEGREES, RADIANS -- are uninterpreted functions of their
arguments' doubles (the same arguments give the same value; anything else is free,
NULL included, as SQLite gives for a domain error; ATAN2 and POWER are free at a zero
first argument, whose sign -- lost in the rationals -- decides ±pi, ±inf): registered
``exact=False``, so a model is a candidate SQLite must confirm, and ``READINGS`` gives
SQLite's own value for the fuzz's admissibility check.

Every math function first applies numeric affinity to its arguments
(``sqlite3_value_numeric_type``): text that is a number as a whole becomes it (an
integer text an INTEGER, so CEIL(' 12 ') is 12), and any other text, like NULL, gives
NULL (``CEIL('12abc')``, ``MOD('x', 2)``).
"""

from __future__ import annotations

import math
from fractions import Fraction

from pysmt.typing import BOOL, REAL

from spotit import concrete
from spotit.encodings import conversions as C
from spotit.encodings.encoder import Encoder
from spotit.encodings.registry import function
from spotit.encodings.rounding import READINGS
from spotit.encodings.values import Alt, Value, null_value, real_value
from spotit.ir.types import StorageClass
from spotit.mutants import planted

INT_C, REAL_C, TEXT_C = StorageClass.INTEGER, StorageClass.REAL, StorageClass.TEXT


def _real(enc: Encoder, v: Value):
    """(NULL flag, the double as a REAL term) of an argument."""
    n = C.as_number(enc, v)
    r = C.to_real(enc, Value(n.null, n.alts))
    if not r.alts:
        return enc.b.TRUE, enc.b.real(0)
    return r.null, r.alts[0].term


# ---------------------------------------------------------------------- exact ones


def _integral(enc: Encoder, args: list[Value], name: str, op) -> Value:
    """CEIL/FLOOR/TRUNC: an INTEGER unchanged, a REAL to ``op`` of it (a REAL)."""
    b = enc.b
    x = C.as_number(enc, args[0])
    alts = []
    for a in x.alts:
        if a.cls is INT_C:
            alts.append(a)
        else:
            alts.append(Alt(REAL_C, a.guard, b.to_real(op(b, a.term))))
    return Value(x.null, tuple(alts))


def _floor(b, r):
    from spotit.smt import ops

    if planted("floor-as-trunc"):
        return b.real_trunc(r)
    return ops.real_to_int(r)


def _ceil(b, r):
    from spotit.smt import ops

    if planted("ceil-as-trunc"):
        return b.real_trunc(r)
    return b.neg(ops.real_to_int(b.neg(r)))


@function("CEIL", "CEILING", arity=(1, 1), arg_kinds=("num",), returns="numeric",
          differs_in=(), mutants=("ceil-as-trunc",))
def fn_ceil(enc: Encoder, args: list[Value]) -> Value:
    """The least integral value not below x (an INTEGER stays itself)."""
    return _integral(enc, args, "CEIL", _ceil)


@function("FLOOR", arity=(1, 1), arg_kinds=("num",), returns="numeric",
          differs_in=(), mutants=("floor-as-trunc",))
def fn_floor(enc: Encoder, args: list[Value]) -> Value:
    """The greatest integral value not above x (an INTEGER stays itself)."""
    return _integral(enc, args, "FLOOR", _floor)


@function("TRUNC", arity=(1, 1), arg_kinds=("num",), returns="numeric",
          differs_in=(), mutants=("trunc-as-floor",))
def fn_trunc(enc: Encoder, args: list[Value]) -> Value:
    """x without its fraction, toward zero (an INTEGER stays itself)."""
    return _integral(enc, args, "TRUNC", _trunc)


def _trunc(b, r):
    from spotit.smt import ops

    if planted("trunc-as-floor"):
        return ops.real_to_int(r)
    return b.real_trunc(r)


@function("MOD", arity=(2, 2), arg_kinds=("num", "num"), returns="numeric",
          differs_in=(), mutants=("mod-sign-of-divisor",))
def fn_mod(enc: Encoder, args: list[Value]) -> Value:
    """C's fmod of the two doubles, a REAL with the sign of x; NULL when y is 0 (SQLite
    gives NULL for the NaN) or either is NULL. fmod is exact in doubles."""
    b = enc.b
    args = [C.as_number(enc, a) for a in args]
    if all(a.classes == {INT_C} for a in args):
        # two INTEGERs: C's remainder of the integers, as a REAL, while both are doubles
        # exactly (within 2**53); beyond, fmod of their doubles, which is another value
        # (MOD(2**53 + 1, 2) is 0.0): free there, a candidate SQLite must confirm
        (x, y), big = (a.alts[0].term for a in args), b.int(2**53)
        within = b.and_(*(b.and_(b.le(b.neg(big), t), b.le(t, big)) for t in (x, y)))
        null = b.or_(args[0].null, args[1].null, b.eq(y, b.int(0)))
        enc.approximate("MOD of integers beyond 2**53", b.or_(null, within))
        r = b.int_rem_trunc(x, y)
        if planted("mod-sign-of-divisor"):
            r = b.ite(b.and_(b.lt(r, b.int(0)), b.lt(b.int(0), y)), b.plus(r, y), r)
        return real_value(b, b.ite(within, b.to_real(r), b.fresh("mod_big", REAL)), null)
    nx, x = _real(enc, args[0])
    ny, y = _real(enc, args[1])
    zero = b.eq(y, b.real(0))
    q = b.real_trunc(b.real_div(x, y))
    if planted("mod-sign-of-divisor"):
        from spotit.smt import ops

        q = ops.real_to_int(b.real_div(x, y))
    r = b.minus(x, b.times(y, b.to_real(q)))
    return real_value(b, r, b.or_(nx, ny, zero))


@function("PI", arity=(0, 0), returns="numeric", differs_in=(), mutants=("pi-single-precision",))
def fn_pi(enc: Encoder, args: list[Value]) -> Value:
    """The double nearest to pi."""
    if planted("pi-single-precision"):
        return real_value(enc.b, enc.b.real(Fraction(3.1415927410125732)))
    return real_value(enc.b, enc.b.real(Fraction(math.pi)))


# ---------------------------------------------------------------------- transcendental

# name -> (SQLite spelling for its own value, arguments)
TRANSCENDENTAL = {
    "SQRT": 1, "EXP": 1, "LN": 1, "LOG10": 1, "LOG2": 1, "SIN": 1, "COS": 1, "TAN": 1,
    "ASIN": 1, "ACOS": 1, "ATAN": 1, "SINH": 1, "COSH": 1, "TANH": 1, "ASINH": 1,
    "ACOSH": 1, "ATANH": 1, "DEGREES": 1, "RADIANS": 1, "ATAN2": 2, "POWER": 2,
}


# functions whose value at a zero first argument depends on the zero's sign
SIGNED_ZERO = frozenset({"ATAN2", "POWER"})


def _free_of(enc: Encoder, name: str, args: list[Value]) -> Value:
    """An uninterpreted function of the arguments' doubles: a REAL, or NULL (a domain
    error) by another uninterpreted function of them; NULL for a NULL argument."""
    b = enc.b
    read = [_real(enc, a) for a in args]
    terms = [t for _, t in read]
    value = b.uf(f"math_{name.lower()}", REAL, terms, [REAL] * len(terms))
    if name in SIGNED_ZERO:
        # the doubles 0.0 and -0.0 are one rational here, and ATAN2(±0, -1) is ±pi,
        # POWER(±0, -1) ±inf: at a zero first argument the value is free
        zero = b.eq(terms[0], b.real(0))
        enc.approximate(f"{name} of a zero first argument (its sign)",
                        b.or_(read[0][0], b.not_(zero)))
        value = b.ite(zero, b.fresh(f"math_{name.lower()}_zero", REAL), value)
    undefined = b.uf(f"math_{name.lower()}_null", BOOL, terms, [REAL] * len(terms))
    if planted("math-domain-error-number"):
        undefined = b.FALSE
    if len(terms) == 1:
        enc.reading_points += [(terms[0], value), (terms[0], undefined)]
    return real_value(b, value, b.or_(*(n for n, _ in read), undefined))


def _register(name: str, n: int, aliases: tuple[str, ...] = ()) -> None:
    kinds = ("num",) * n

    @function(name, *aliases, arity=(n, n), arg_kinds=kinds, exact=False, returns="numeric",
              differs_in=(), mutants=("math-domain-error-number",))
    def encode(enc: Encoder, args: list[Value], name=name) -> Value:
        return _free_of(enc, name, args)

    if n == 1:
        def reading(x, name=name):
            value = concrete.evaluate(f"{name}(?)", (float(Fraction(x)),))
            return Fraction(value) if isinstance(value, float) and math.isfinite(
                value) else None

        def undefined(x, name=name):
            return concrete.evaluate(f"{name}(?)", (float(Fraction(x)),)) is None

        READINGS[f"uf!math_{name.lower()}"] = reading
        READINGS[f"uf!math_{name.lower()}_null"] = undefined


for _name, _n in TRANSCENDENTAL.items():
    _register(_name, _n, ("POW",) if _name == "POWER" else ())


@function("LOG", arity=(1, 2), arg_kinds=("num", "num"), exact=False, returns="numeric",
          differs_in=(), mutants=("math-domain-error-number",))
def fn_log(enc: Encoder, args: list[Value]) -> Value:
    """LOG(x) is the base-10 logarithm, LOG(b, x) the base-b one: uninterpreted. In
    LOG(b, x) SQLite reads x as any numeric context does (``sqlite3_value_double``:
    the number prefix of a text, LOG(10, '100abc') = 2.0), b as the others (a text
    that is not a number as a whole gives NULL)."""
    if len(args) == 1:
        return _free_of(enc, "LOG10", args)
    return _free_of(enc, "LOG", [args[0], C.to_numeric(enc, args[1])])


__all__ = ["TRANSCENDENTAL", "fn_ceil", "fn_floor", "fn_log", "fn_mod", "fn_pi", "fn_trunc",
           "null_value"]
