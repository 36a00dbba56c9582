"""The rounding of REAL arithmetic: SQLite computes in IEEE doubles, the encoding in
exact rationals, and each REAL result passes through ``round``.

``round`` is an uninterpreted function of the exact result, so equal exact values
round alike (``x * 100.0 / y`` and ``CAST(x AS REAL) * 100 / y`` are one term),
constrained by what every round-to-nearest function satisfies:

- it is within half an ulp: ``|round(t) - t| <= 2**-53 * |t| + 2**-1075``;
- it is the identity on an integer of at most 2**53 in magnitude (a double), and
  an integer on any integer (every double beyond 2**53 is one);
- it is monotone (``t <= t'`` implies ``round(t) <= round(t')``), stated for the
  pairs of the first ``MONOTONE_POINTS`` applications of a formula, and against
  the doubles ``FIXED`` (0, the bounds of exact integers and of 64-bit integers).

IEEE's rounding is one interpretation of it, so a difference SQLite's doubles
make is a model, and ``equivalent`` proven with ``round`` free holds in doubles.
Where ``round`` is the identity the encoding is the exact one: that is the range
the pipeline searches first (``Encoder.approximate``), so a difference exact
arithmetic shows is found as before. A constant result is rounded here, in
Python's doubles (the same IEEE operations). Overflow to infinity is not modelled.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import Any

from pysmt.fnode import FNode
from pysmt.operators import MINUS, PLUS, TIMES, TOREAL
from pysmt.typing import REAL

from spotit import concrete
from spotit.encodings.builder import Builder, int_interval
from spotit.encodings.encoder import Encoder
from spotit.smt import ops
from spotit.smt.evaluate import Evaluator

UNIT = Fraction(1, 2**53)  # round-to-nearest's relative error
SUBNORMAL = Fraction(1, 2**1075)  # its absolute error below the normal range
EXACT_INTEGERS = 2**53  # every integer up to this magnitude is a double
EDGE_ROUNDING = 1024  # half the spacing of doubles just beyond 64-bit integers
MONOTONE_POINTS = 16
FIXED = (0, -(2**53), 2**53, -(2**63), 2**63)
APPROXIMATION = "rounding of REAL arithmetic to doubles"
SUM_ORDER = ("the order SQLite adds a REAL sum's rows in is not modelled (it can change "
             "the sum's last bits)")


def rounded(enc: Encoder, exact: FNode, taken: FNode | None = None) -> FNode:
    """SQLite's double for the exact REAL ``exact``; ``taken``: when it is the value
    at all (its alternative's guard), so that elsewhere it cannot make a result
    inexact."""
    b = enc.b
    points = enc.rounding_points
    if exact in points:  # the same exact value: the same application
        return points[exact]
    if exact.is_constant():
        value = Fraction(exact.constant_value())
        try:
            double = b.real(Fraction(float(value)))
        except OverflowError:
            double = None
        if double is not None:
            if value.denominator != 1:
                # a symbolic value equal to it rounds alike, and ones beside it in order
                enc.side.append(b.eq(_round(b, exact), double))
                _monotone(enc, exact, double)
                points[exact] = double
            return double
    elif (is_integral(exact) and _within(exact, EXACT_INTEGERS)) or _is_double(exact):
        return exact
    r = _round(b, exact)
    size = magnitude(b, exact)
    slack = b.plus(b.times(b.real(UNIT), size), b.real(SUBNORMAL))
    enc.side.append(b.le(b.minus(r, exact), slack))
    enc.side.append(b.le(b.minus(exact, r), slack))
    small = b.and_(b.le(b.real(-EXACT_INTEGERS), exact), b.le(exact, b.real(EXACT_INTEGERS)))
    if is_integral(exact):
        # a double next to an integer is an integer (doubles beyond 2**53 all are)
        enc.side.append(b.implies(small, b.eq(r, exact)))
        enc.side.append(ops.real_is_int(r))
    for c in FIXED:
        enc.side.append(b.implies(b.le(exact, b.real(c)), b.le(r, b.real(c))))
        enc.side.append(b.implies(b.le(b.real(c), exact), b.le(b.real(c), r)))
    _monotone(enc, exact, r)
    points[exact] = r
    same = b.eq(r, exact)
    enc.approximate(APPROXIMATION, same if taken is None else b.implies(taken, same),
                    refined=True)
    return r


def _monotone(enc: Encoder, exact: FNode, r: FNode) -> None:
    """``round`` is monotone between this rounding and the earlier ones."""
    b = enc.b
    points = enc.rounding_points
    if len(points) < MONOTONE_POINTS:
        for t, other in points.items():
            if t.is_constant() and exact.is_constant():
                continue
            enc.side.append(b.implies(b.le(exact, t), b.le(r, other)))
            enc.side.append(b.implies(b.le(t, exact), b.le(other, r)))


def accumulated(enc: Encoder, exact: FNode, size: FNode, n: int, taken: FNode) -> FNode:
    """A sum of at most ``n`` values added one by one in doubles (SQLite's ``rSum``):
    each addition rounds, so the result is within ``(n - 1) * 2**-53 * size`` of the
    exact sum, ``size`` being the sum of the values' magnitudes; integers add up
    exactly while ``size`` is at most 2**53. The result is a function of the exact
    sum: the order SQLite adds the rows in (which can change the last bits of a sum
    of non-integral values) is not modelled, see docs/semantics.md."""
    b = enc.b
    if n <= 1:
        return exact  # 0.0 + x is x
    if not is_integral(exact):
        enc.unmodelled.add(SUM_ORDER)
    r = b.uf("accumulate", REAL, [exact], [REAL])
    slack = b.plus(b.times(b.real((n - 1) * UNIT), size), b.real((n - 1) * SUBNORMAL))
    enc.side.append(b.le(b.minus(r, exact), slack))
    enc.side.append(b.le(b.minus(exact, r), slack))
    # zeros add up to exactly 0.0 (TOTAL of nothing); integers exactly up to 2**53
    enc.side.append(b.implies(b.eq(size, b.real(0)), b.eq(r, exact)))
    if is_integral(exact):
        enc.side.append(b.implies(b.le(size, b.real(EXACT_INTEGERS)), b.eq(r, exact)))
    same = b.eq(r, exact)
    enc.approximate(APPROXIMATION, b.implies(taken, same), refined=True)
    return r


def slid(enc: Encoder, exact: FNode, seen: FNode) -> FNode:
    """A sliding window frame's sum: SQLite adds each row entering the frame to a
    running double and subtracts each leaving one, so its error depends on the rows
    that went before (``TOTAL(x) OVER (ROWS 1 PRECEDING)`` over 1e16, 1.0, 1.0 gives
    1.0 on the third row). Free, but exact while every value ever added is an integer
    and their magnitudes ``seen`` (the partition's) add up to at most 2**53."""
    b = enc.b
    if not is_integral(exact):
        enc.unmodelled.add(SUM_ORDER)
    r = b.fresh("sliding_sum", REAL)
    enc.side.append(b.implies(b.eq(seen, b.real(0)), b.eq(r, exact)))
    if is_integral(exact):
        enc.side.append(b.implies(b.le(seen, b.real(EXACT_INTEGERS)), b.eq(r, exact)))
    # exact means r = exact even where the frame is empty and r unread: a model can
    # always choose so (r is free there), and an empty frame's TOTAL is then 0.0
    enc.approximate(APPROXIMATION, b.eq(r, exact), refined=True)
    return r


def sums_exact(values: Iterable[object], times: int = 1) -> bool:
    """Whether every sum of some of ``values`` (a pinned table's cells, text by SQLite's
    numeric reading), each taken up to ``times`` times, added in any order and
    subtracted again, is exact in doubles: each is a multiple of 2**-q (every double
    is, for some q) and their magnitudes, ``times`` over, add up to at most 2**(53 - q).
    Then a REAL sum's exact range is SQLite's value whatever order it adds in (0.5 +
    1.5 - 2.0); not for 0.1 + 0.2 - 0.3 (2**-55 exactly, 2**-54 in SQLite's order)."""
    numbers = []
    for v in values:
        if isinstance(v, str):
            v = concrete.evaluate("CAST(? AS REAL)", (v,))
        if isinstance(v, int | float) and not isinstance(v, bool):
            if not math.isfinite(v):
                return False
            numbers.append(Fraction(v))
    if not numbers:
        return True
    q = max(n.denominator.bit_length() - 1 for n in numbers)  # denominators: powers of 2
    return sum(abs(n) for n in numbers) * times * 2**q <= EXACT_INTEGERS


def parsed(enc: Encoder, text: FNode, nt, taken: FNode) -> FNode:
    """The double SQLite reads from ``text`` (its numeric prefix, ``nt``): a function of
    the text (``sqlite3AtoF`` works on the digits, so '0.10' and '0.1' need not take the
    same path), the decimal itself for an integer up to 2**53, and within one ulp of
    the decimal where that is known. That last bound involves the digits' values and
    made cvc5 time out on foreign keys between TEXT and INTEGER columns at k = 1, so
    it is given to the solver with the first lemmas (below), when a candidate was
    not confirmed, not up front."""
    b = enc.b
    r = b.uf("num_real", REAL, [text])
    exact = nt.real_value
    known = nt.real_exact
    size = magnitude(b, exact)
    small = b.and_(known, nt.fraction_is_zero, b.le(size, b.real(EXACT_INTEGERS)))
    enc.side.append(b.implies(small, b.eq(r, exact)))
    slack = b.plus(b.times(b.real(2 * UNIT), size), b.real(SUBNORMAL))
    enc.parse_points.append((text, r, b.implies(known, b.and_(
        b.le(b.minus(r, exact), slack), b.le(b.minus(exact, r), slack)))))
    enc.approximate(APPROXIMATION, b.implies(b.and_(taken, known), b.eq(r, exact)),
                    refined=True)
    return r


def promoted(enc: Encoder, integer: FNode, taken: FNode | None = None) -> FNode:
    """An INTEGER made a double (an operand of REAL arithmetic, CAST AS REAL): exact
    up to 2**53 in magnitude, rounded beyond."""
    b = enc.b
    whole = b.to_real(integer)
    if integer.is_constant() or _within(whole, EXACT_INTEGERS):
        return rounded(enc, whole, taken)
    # the common case in the term itself: a solver need not learn it from the axioms
    small = b.and_(b.le(b.int(-EXACT_INTEGERS), integer), b.le(integer, b.int(EXACT_INTEGERS)))
    return b.ite(small, whole, rounded(enc, whole, taken))


def magnitude(b: Builder, t: FNode) -> FNode:
    """``|t|`` for a REAL term."""
    return b.ite(b.le(b.real(0), t), t, b.neg(t))


def _round(b, exact: FNode) -> FNode:
    """The double nearest ``exact`` (uninterpreted: lemmas say how it rounds)."""
    return b.uf("round", REAL, [exact], [REAL])


def _is_double(t: FNode) -> bool:
    """Whether ``t`` is a rounding's result (a double: rounding keeps it), or an
    integer made a double (``promoted``: itself where small, else its rounding)."""
    if t.is_ite():  # promoted: ite(small, x, round(x))
        rounding = t.arg(2)
        return (rounding.is_function_application()
                and rounding.function_name().symbol_name() == "uf!round"
                and rounding.arg(0) is t.arg(1))
    return t.is_function_application() and t.function_name().symbol_name() in (
        "uf!round", "uf!accumulate")


def is_integral(t: FNode, seen: dict[FNode, bool] | None = None) -> bool:
    """Whether ``t`` is an integer whatever its symbols' values (an integer made real,
    and sums and products of such). ``seen``: answers so far, since a term is a DAG
    (a running sum over the rows of a recursive CTE shares its parts many times)."""
    seen = {} if seen is None else seen
    if (known := seen.get(t)) is not None:
        return known
    if t.is_constant():
        out = Fraction(t.constant_value()).denominator == 1
    elif t.node_type() == TOREAL:
        out = True
    elif t.node_type() in (PLUS, MINUS, TIMES):
        out = all(is_integral(a, seen) for a in t.args())
    elif t.is_ite():
        out = is_integral(t.arg(1), seen) and is_integral(t.arg(2), seen)
    elif t.is_function_application() and t.function_name().symbol_name() == "uf!round":
        out = is_integral(t.arg(0), seen)  # a double next to an integer is an integer
    else:
        out = False
    seen[t] = out
    return out


def _within(t: FNode, bound: int) -> bool:
    """Whether ``|t| <= bound`` follows from the integer intervals of its parts."""
    inner = t.arg(0) if t.node_type() == TOREAL else None
    if inner is None:
        return False
    interval = int_interval(inner)
    return interval is not None and -bound <= interval[0] and interval[1] <= bound


class Doubles(Evaluator):
    """Evaluation with ``round`` as IEEE's round-to-nearest-even (Python's floats),
    ``num_real``, ``int_prefix`` and ``long_fits`` as SQLite's own reading of a text
    (its double, its integer, whether its digits fit in 64 bits) and ``real_text`` as
    SQLite's text of the nearest double: one interpretation of the uninterpreted
    functions, the one SQLite has."""

    def walk_function(self, formula: FNode, args, **kwargs) -> FNode:
        # a reserved operator's value, or a point the assertions force, comes first
        out = super().walk_function(formula, args, **kwargs)
        if out.is_constant() or not (args and args[0].is_constant()):
            return out
        value = sqlite_reading(formula.function_name().symbol_name(), args[0].constant_value())
        if isinstance(value, bool):
            return self.manager.Bool(value)
        if isinstance(value, int):
            return self.manager.Int(value)
        if isinstance(value, Fraction):
            return self.manager.Real(value)
        if isinstance(value, str):
            return self.manager.String(value)
        return out


# SQLite's reading of the other uninterpreted functions an encoding makes (ROUND's, a
# free time value's), by name, registered where the function is made: f(argument) ->
# its value, None where none
READINGS: dict[str, Callable[[Any], bool | int | Fraction | None]] = {}


def _integral_sum(exact) -> Fraction | None:
    """SQLite's sum where it does not depend on the order of the rows: an integral
    exact sum within 2**53 (what ``accumulated`` asserts for integers; sums of other
    values get no reading)."""
    value = Fraction(exact)
    return value if value.denominator == 1 and abs(value) <= EXACT_INTEGERS else None


READINGS["uf!accumulate"] = _integral_sum


def sqlite_reading(name: str, value) -> bool | int | Fraction | str | None:
    """SQLite's value of the uninterpreted function ``name`` at ``value`` (see
    :class:`Doubles`); None for another function, or where it has no rational value."""
    if (reading := READINGS.get(name)) is not None:
        return reading(value)
    if name == "uf!round":
        try:
            return Fraction(float(Fraction(value)))
        except OverflowError:
            return None
    if name == "uf!num_real":
        double = concrete.evaluate("CAST(? AS REAL)", (value,))
        # '1e999' reads as Inf: no rational, no value
        return Fraction(double) if math.isfinite(double) else None
    if name == "uf!int_prefix":
        return int(concrete.evaluate("CAST(? AS INTEGER)", (value,)))
    if name == "uf!long_fits":
        return concrete.evaluate("typeof(? + 0)", (value,)) == "integer"
    if name == "uf!real_text":
        try:
            return str(concrete.evaluate("CAST(? AS TEXT)", (float(Fraction(value)),)))
        except OverflowError:
            return None
    return None


def lemmas(enc: Encoder, model: dict) -> list[FNode]:
    """Facts of IEEE rounding at the exact values a model gives the formula's roundings,
    ``exact = v -> round(exact) = double(v)``, and of SQLite's reading of the texts it
    gives (SQLite's own answer, and how near the decimal it is): true of SQLite's
    doubles, so adding them
    keeps every answer sound, and a model whose roundings were not the doubles' (a
    candidate SQLite did not confirm) is not found again. Sums (``accumulate``) depend
    on SQLite's order of rows and get none."""
    if not enc.rounding_points and not enc.parse_points and not enc.reading_points:
        return []
    return [*(near for _, _, near in enc.parse_points),
            *facts_at(enc, model_constants(enc.b, model))]


def model_constants(b, model: dict) -> dict[FNode, FNode]:
    """A solver's model (name -> value) as constants of the symbols this environment
    declares (names the solver made up, its auxiliaries, are left out)."""
    values = {}
    for name, value in model.items():
        try:
            sym = b.declared(name)
        except Exception:  # a name the solver made up (an auxiliary)
            continue
        if (const := b.model_constant(sym, value)) is not None:
            values[sym] = const
    return values


def facts_at(enc: Encoder, values: dict[FNode, FNode]) -> list[FNode]:
    """``exact = v -> round(exact) = double(v)`` (and SQLite's reading of a text) at
    each point ``values`` make a constant: true of SQLite's doubles. A proof harness
    adds them to its exact range, where rounding is the identity: without them that
    range admits an exact value no double has (0.7 * 10 is 6.99...96 exactly, so
    ``CAST(r * 10 AS INTEGER)`` would be 6 there; SQLite's double is 7.0)."""
    b = enc.b
    ev = Doubles(b.env, values)
    out = []
    roundings = [*((text, r) for text, r, _ in enc.parse_points), *enc.rounding_points.items(),
                 *enc.reading_points]
    for arg, r in roundings:
        v, double = ev.simplify(arg), ev.simplify(r)
        if not arg.is_constant() and v.is_constant() and double.is_constant():
            out.append(b.implies(b.eq(arg, v), b.eq(r, double)))
    return out
