"""SQLite's comparisons and implicit conversions, in one place.

- comparison with affinity (https://sqlite.org/datatype3.html §4.2–4.3):
  NULL < INTEGER/REAL (by value) < TEXT (BINARY collation: code-point order);
- affinity application: NUMERIC turns well-formed numeric text into a number,
  TEXT turns numbers into text;
- numeric context (arithmetic): text becomes its longest numeric prefix;
- boolean context: a value is true when its numeric value is non-zero;
- CAST to INTEGER / REAL / TEXT / NUMERIC.

Every conversion is *exact or an over-approximation*. Exact on constants
(SQLite computes them: ``spotit.concrete``), on integers, and on text made of
digits; other symbolic text goes through uninterpreted functions, which allow
the true value among others. So an UNSAT answer is still a proof, and a model
that relies on a wrong choice is caught when the counterexample is run on
SQLite (``spurious``). ``Encoder.approximations`` records when this happens.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING

from pysmt.fnode import FNode
from pysmt.typing import STRING

from spotit import concrete
from spotit.encodings import numtext, textorder
from spotit.encodings.builder import Builder
from spotit.encodings.rounding import is_integral, parsed, promoted
from spotit.encodings.values import (
    Alt,
    Truth,
    Value,
    constant,
    normalize,
    truth_of_bool,
)
from spotit.errors import Unsupported
from spotit.ir.types import BINARY, INT64_MAX, INT64_MIN, MIXED_COMPARED, Affinity, StorageClass
from spotit.mutants import planted
from spotit.smt import ops

TextLt = Callable[[FNode, FNode], FNode]

# sqlite3RealSameAsInt: CAST AS NUMERIC makes a whole double an INTEGER below 2**51
SAME_AS_INT = 2**51

if TYPE_CHECKING:
    from spotit.encodings.encoder import Encoder

INT_C, REAL_C, TEXT_C = StorageClass.INTEGER, StorageClass.REAL, StorageClass.TEXT


# ---------------------------------------------------------------------- equality and order


def same_value(b: Builder, x: Value, y: Value) -> FNode:
    """Equal as SQLite's DISTINCT / GROUP BY / IS and as Python's ``==`` on fetched rows.

    NULL equals NULL; INTEGER and REAL compare by value; TEXT equals only TEXT.
    """
    both_null = b.and_(x.null, y.null)
    pairs = []
    for ax in x.alts:
        for ay in y.alts:
            eq = _class_eq(b, ax, ay)
            if not eq.is_false():
                pairs.append(b.and_(ax.guard, ay.guard, eq))
    both_present = b.and_(b.not_(x.null), b.not_(y.null), b.or_(*pairs))
    return b.or_(both_null, both_present)


def same_typed(b: Builder, x: Value, y: Value) -> FNode:
    """Equal and of one storage class (NULL equals NULL): INTEGER 1 is not REAL 1.0.

    Values equal this way print the same text (Spider 2.0 compares CSV files)."""
    pairs = [b.and_(ax.guard, ay.guard, _class_eq(b, ax, ay))
             for ax in x.alts for ay in y.alts if ax.cls is ay.cls]
    return b.or_(b.and_(x.null, y.null),
                 b.and_(b.not_(x.null), b.not_(y.null), b.or_(*pairs)))


def numeric_or_null(b: Builder, x: Value, below: float | None = None) -> FNode:
    """NULL, or an INTEGER or REAL (of magnitude below ``below`` when given)."""
    ok = []
    for a in x.alts:
        if a.cls is TEXT_C:
            continue
        if below is None:
            ok.append(a.guard)
        else:
            ok.append(b.and_(a.guard, b.lt(a.term, b.real(below)),
                             b.lt(b.real(-below), a.term)))
    return b.or_(x.null, *ok)


def numbers_within(b: Builder, x: Value, y: Value, tolerance: float) -> FNode:
    """Both numbers (INTEGER or REAL), at most ``tolerance`` apart."""
    pairs = []
    for ax in x.alts:
        for ay in y.alts:
            if ax.cls is TEXT_C or ay.cls is TEXT_C:
                continue
            d = b.minus(b.to_real(ax.term), b.to_real(ay.term))
            pairs.append(b.and_(ax.guard, ay.guard, b.le(d, b.real(tolerance)),
                                b.le(b.real(-tolerance), d)))
    return b.and_(b.not_(x.null), b.not_(y.null), b.or_(*pairs))


def _class_eq(b: Builder, ax: Alt, ay: Alt) -> FNode:
    if ax.cls is TEXT_C and ay.cls is TEXT_C:
        shaped = textorder.shaped_eq(b, ax.view, ax.term, ay.view, ay.term)
        return shaped if shaped is not None else b.eq(ax.term, ay.term)
    if ax.cls is not TEXT_C and ay.cls is not TEXT_C:
        return b.num_eq(ax.term, ay.term)
    return b.FALSE


def _class_lt(b: Builder, ax: Alt, ay: Alt, text_lt: TextLt | None = None) -> FNode:
    """ax < ay for non-NULL values of these classes: numbers < text."""
    if ax.cls is TEXT_C and ay.cls is TEXT_C:
        shaped = textorder.shaped_lt(b, ax.view, ax.term, ay.view, ay.term)
        if shaped is not None:
            return shaped
        return (text_lt or b.lt)(ax.term, ay.term)
    if ax.cls is not TEXT_C and ay.cls is not TEXT_C:
        return b.lt(*_promote(b, ax.term, ay.term))
    return b.bool(ay.cls is TEXT_C)


def _promote(b: Builder, x: FNode, y: FNode) -> tuple[FNode, FNode]:
    if x.get_type() is y.get_type():
        return x, y
    return b.to_real(x), b.to_real(y)


def less_than(b: Builder, x: Value, y: Value, text_lt: TextLt | None = None) -> FNode:
    """x < y for non-NULL x, y under SQLite's cross-class order (caller handles NULL).
    ``text_lt``: how two text terms are ordered (default ``b.lt``, SMT-LIB's
    ``str.<``)."""
    return b.or_(
        b.and_(ax.guard, ay.guard, _class_lt(b, ax, ay, text_lt)) for ax in x.alts
        for ay in y.alts
    )


def sort_before(b: Builder, x: Value, y: Value, descending: bool, nulls_first: bool | None
                ) -> FNode:
    """x sorts strictly before y in ORDER BY (NULLs first ascending, last descending)."""
    if nulls_first is None:
        nulls_first = not descending
    nn = b.and_(b.not_(x.null), b.not_(y.null))
    strictly = less_than(b, y, x) if descending else less_than(b, x, y)
    if planted("order-nulls-last"):
        nulls_first = not nulls_first
    first, second = (x, y) if nulls_first else (y, x)
    null_part = b.and_(first.null, b.not_(second.null))
    return b.or_(null_part, b.and_(nn, strictly))


# ---------------------------------------------------------------------- comparison


def compare(enc: Encoder, op: str, x: Value, ax: Affinity, y: Value, ay: Affinity,
            collation: str = BINARY) -> Truth:
    """``x op y`` with SQLite's affinity rules, text compared under ``collation``;
    NULL if either side is NULL."""
    b = enc.b
    x, y = comparison_affinity(enc, x, ax, y, ay)
    if collation != BINARY:
        from spotit.encodings.collation import key

        x, y = key(enc, x, collation), key(enc, y, collation)
    if op in ("=", "!="):
        textorder.note_case_mapped_constant(enc, x, y)
    null = b.or_(x.null, y.null)
    text_lt = partial(textorder.text_lt, enc)  # against a constant: one sign per pair
    if op in ("=", "!="):
        eq = b.or_(
            b.and_(p.guard, q.guard, _class_eq(b, p, q)) for p in x.alts for q in y.alts
        )
        cond = eq if op == "=" else b.not_(eq)
    elif op == "<":
        cond = less_than(b, x, y, text_lt)
    elif op == ">":
        cond = less_than(b, y, x, text_lt)
    elif op == "<=":
        cond = b.not_(less_than(b, y, x, text_lt))
    elif op == ">=":
        cond = b.not_(less_than(b, x, y, text_lt))
    else:
        raise ValueError(op)
    if planted("compare-null-false"):
        return Truth(b.and_(b.not_(null), cond), b.or_(null, b.not_(cond)))
    return truth_of_bool(b, cond, null)


def comparison_affinity(enc: Encoder, x: Value, ax: Affinity, y: Value, ay: Affinity
                        ) -> tuple[Value, Value]:
    """Apply the affinity conversions SQLite does before comparing x and y."""
    if Affinity.MIXED in (ax, ay):  # the binder refuses these first
        raise Unsupported(MIXED_COMPARED)
    if planted("compare-no-affinity") and ax.is_numeric != ay.is_numeric:
        return x, y
    if ax.is_numeric and not ay.is_numeric:
        return x, numeric_affinity(enc, y)
    if ay.is_numeric and not ax.is_numeric:
        return numeric_affinity(enc, x), y
    if ax is Affinity.TEXT and ay is Affinity.NONE:
        return x, text_affinity(enc, y)
    if ay is Affinity.TEXT and ax is Affinity.NONE:
        return text_affinity(enc, x), y
    return x, y


# ---------------------------------------------------------------------- affinity


def numeric_affinity(enc: Encoder, v: Value) -> Value:
    """NUMERIC affinity: text that is a well-formed number (up to surrounding
    whitespace) becomes that number; any other text stays text."""
    b = enc.b
    v = shaped_to_int(b, v, dates=False)
    a = v.alt(TEXT_C)
    if a is None or a.date is not None:
        return v  # no text, or date text (never a number)
    if v.is_constant():
        return constant(b, concrete.apply_affinity(v.constant(), Affinity.NUMERIC))
    s = a.term
    nt = numtext.decompose(enc, s)
    exact = b.and_(nt.real_exact, b.not_(nt.has_exponent))
    if not exact.is_true():
        enc.approximate("numeric affinity of long or exponent-form text",
                        _where(b, b.and_(b.not_(v.null), a.guard), exact))
    # applyNumericAffinity: a plain integer that fits is an INTEGER, anything else the
    # double it reads as ('1.0' compares as the REAL 1.0; stored_value makes a whole
    # REAL an INTEGER where a column stores it)
    is_int = numtext.integer_reading(enc, s, nt)
    int_v = numtext.integer_prefix(enc, s, nt)
    real_v = parsed(enc, s, nt, b.and_(b.not_(v.null), a.guard))
    alts = [x for x in v.alts if x.cls is not TEXT_C]
    alts = merge_alt(b, alts, Alt(INT_C, b.and_(a.guard, nt.well_formed, is_int), int_v))
    alts = merge_alt(b, alts, Alt(REAL_C, b.and_(a.guard, nt.well_formed, b.not_(is_int)),
                               real_v))
    alts.append(Alt(TEXT_C, b.and_(a.guard, b.not_(nt.well_formed)), s))
    return normalize(b, Value(v.null, tuple(alts)))


def text_affinity(enc: Encoder, v: Value) -> Value:
    """TEXT affinity: numbers become their text."""
    if v.alt(INT_C) is None and v.alt(REAL_C) is None:
        return v
    return to_text(enc, v)


def stored_value(enc: Encoder, v: Value, affinity: Affinity) -> Value:
    """The value a column of ``affinity`` stores for ``v`` (a generated column's
    value, https://sqlite.org/datatype3.html#type_affinity): TEXT turns numbers into
    text; NUMERIC and INTEGER turn well-formed numeric text into a number and an
    integral REAL that fits into an INTEGER; REAL makes every number a REAL."""
    b = enc.b
    if v.is_constant():
        return constant(b, concrete.apply_affinity(v.constant(), affinity))
    if not affinity.converts:
        return v
    if affinity is Affinity.TEXT:
        return text_affinity(enc, v)
    v = numeric_affinity(enc, v)
    if affinity is Affinity.REAL:
        alts = [Alt(REAL_C, a.guard, promoted(enc, a.term, b.and_(b.not_(v.null), a.guard)))
                if a.cls is INT_C else a for a in v.alts]
        out: list[Alt] = []
        for a in alts:
            out = merge_alt(b, out, a)
        return normalize(b, Value(v.null, tuple(out)))
    r = v.alt(REAL_C)
    if r is None:
        return v
    whole = b.TRUE if is_integral(r.term) else ops.real_is_int(r.term)
    # sqlite3VdbeIntegerAffinity: neither end of the 64-bit range (ticket #3922)
    integral = b.and_(whole, b.lt(b.real(INT64_MIN), r.term), b.lt(r.term, b.real(INT64_MAX)))
    alts = [a for a in v.alts if a.cls is not REAL_C]
    alts = merge_alt(b, alts, Alt(INT_C, b.and_(r.guard, integral), b.real_trunc(r.term)))
    alts = merge_alt(b, alts, Alt(REAL_C, b.and_(r.guard, b.not_(integral)), r.term))
    return normalize(b, Value(v.null, tuple(alts)))


# ---------------------------------------------------------------------- conversions


def to_text(enc: Encoder, v: Value) -> Value:
    """The value as TEXT (``||``, LIKE, string functions, CAST AS TEXT)."""
    b = enc.b
    if v.is_constant():
        c = v.constant()
        return constant(b, None if c is None else concrete.evaluate("CAST(? AS TEXT)", (c,)))
    if len(v.alts) == 1 and v.alts[0].cls is TEXT_C:
        return Value(v.null, (replace(v.alts[0], guard=b.TRUE),))  # keeps its views
    guard_terms = []
    for a in v.alts:
        if a.cls is TEXT_C:
            guard_terms.append((a.guard, a.term))
        elif a.cls is INT_C:
            guard_terms.append((a.guard, int_text(b, a.term)))
        else:
            guard_terms.append((a.guard, real_text(enc, a.term, b.and_(b.not_(v.null), a.guard))))
    term = b.select(guard_terms[:-1], guard_terms[-1][1]) if guard_terms else b.str("")
    return Value(v.null, (Alt(TEXT_C, b.TRUE, term),)) if guard_terms else v


def real_text(enc: Encoder, r: FNode, taken: FNode | None = None) -> FNode:
    """SQLite's text of a REAL (``%!.15g``): exact for integral values below 10**15
    (``5.0`` -> ``'5.0'``), an uninterpreted function of the value otherwise.
    ``taken``: when the REAL is the value at all (its alternative's guard, not NULL);
    where it is not, the approximation cannot reach the result."""
    b = enc.b
    i = b.real_trunc(r)
    integral = b.and_(b.eq(b.to_real(i), r), b.lt(b.real(-(10**15)), r), b.lt(r, b.real(10**15)))
    if not integral.is_true():
        enc.approximate("text of a non-integral REAL", _where(b, taken, integral))
    exact = b.concat(int_text(b, i), b.str(".0"))
    # -0.0 prints as 0.0 and int_text(0) is '0': the same
    other = _uf(enc, "real_text", STRING, r)
    if not integral.is_true():
        # '%!.15g' writes a point ('1.0e+20', '0.1'): never an integer's text; past
        # the largest double SQLite prints 'Inf'
        finite = b.and_(b.lt(b.real(-(10**308)), r), b.lt(r, b.real(10**308)))
        enc.side.append(b.implies(finite, b.contains(other, b.str("."))))
    return b.ite(integral, exact, other)


def _where(b: Builder, taken: FNode | None, exact: FNode) -> FNode:
    """An approximation's exact range, limited to where its term is the value: an
    alternative that is not taken (another storage class, NULL) cannot make the
    result inexact, and requiring its range anyway would put most pinned rows
    outside the exact range (a REAL column's payload under an INTEGER value)."""
    return exact if taken is None else b.implies(taken, exact)


def int_text(b: Builder, i: FNode) -> FNode:
    """Decimal text of an integer (SMT-LIB's ``str.from_int`` is empty for negatives)."""
    if i.is_constant():
        return b.str(str(i.constant_value()))
    neg = b.concat(b.str("-"), ops.str_from_int(b.neg(i)))
    return b.ite(b.lt(i, b.int(0)), neg, ops.str_from_int(i))


def to_numeric(enc: Encoder, v: Value) -> Value:
    """The value in a numeric context: text becomes its longest numeric prefix
    (INTEGER without '.' or exponent, else REAL; no digit in it: INTEGER 0)."""
    b = enc.b
    v = shaped_to_int(b, v, dates=True)
    a = v.alt(TEXT_C)
    if a is None:
        return v
    if v.is_constant():
        return constant(b, concrete.evaluate("? + 0", (v.constant(),)))
    s = a.term
    nt = numtext.decompose(enc, s)
    # no digit at all ('-.', '.e5', 'abc') reads as INTEGER 0, point or not; digits
    # alone are an INTEGER if they fit in 64 bits (19 digits may: '9223372036854775807'),
    # which past MAX_INT_DIGITS is the uninterpreted long_fits
    is_int = numtext.integer_reading(enc, s, nt)
    real_exact = nt.real_exact
    if not b.and_(nt.int_exact, real_exact).is_true():
        enc.approximate("numeric prefix of long or exponent-form text",
                        _where(b, b.and_(b.not_(v.null), a.guard),
                               b.and_(nt.int_exact, real_exact)))
    real_v = parsed(enc, s, nt, b.and_(b.not_(v.null), a.guard))
    int_v = numtext.integer_prefix(enc, s, nt)
    if planted("text-arith-whole"):
        int_v = b.ite(nt.well_formed, int_v, b.int(0))
        real_v = b.ite(nt.well_formed, real_v, b.real(0))
    alts = [x for x in v.alts if x.cls is not TEXT_C]
    alts = merge_alt(b, alts, Alt(INT_C, b.and_(a.guard, is_int), int_v))
    alts = merge_alt(b, alts, Alt(REAL_C, b.and_(a.guard, b.not_(is_int)), real_v))
    return normalize(b, Value(v.null, tuple(alts)))


def as_number(enc: Encoder, v: Value) -> Value:
    """An argument as SIGN and the math functions read it
    (``sqlite3_value_numeric_type``): a number stays itself, text that is a number as
    a whole (spaces around allowed) becomes it -- INTEGER without '.' or exponent,
    else REAL -- and any other text (date text included) makes the result NULL."""
    b = enc.b
    not_a_number = []
    text = v.alt(TEXT_C)
    if text is not None:
        if text.date is not None:  # date text is never a number
            not_a_number.append(text.guard)
        else:
            nt = numtext.decompose(enc, text.term)
            not_a_number.append(b.and_(text.guard, b.not_(nt.well_formed)))
    n = to_numeric(enc, v)
    return Value(b.or_(n.null, *not_a_number), n.alts)


def integer_class(enc: Encoder, v: Value) -> FNode:
    """Where ``v`` in a numeric context is an INTEGER (``to_numeric``'s class, without
    its value): an INTEGER, or a text that reads as one (``'12abc'``, not ``'1e1'``)."""
    b = enc.b
    v = shaped_to_int(b, v, dates=True)
    if v.is_constant():
        c = v.constant()
        return b.TRUE if c is None or concrete.evaluate("typeof(? + 0)", (c,)) == "integer" \
            else b.FALSE
    cases = [a.guard for a in v.alts if a.cls is INT_C]
    a = v.alt(TEXT_C)
    if a is not None:
        reads = numtext.integer_reading(enc, a.term, numtext.decompose(enc, a.term))
        cases.append(b.and_(a.guard, reads))
    return b.or_(cases)


def saturated_int(b: Builder, r: FNode) -> FNode:
    """A REAL as CAST makes it INTEGER: truncated toward zero, and beyond 64 bits the
    nearest 64-bit integer (SQLite's doubleToInt64: CAST(1e20 AS INTEGER) is 2**63-1)."""
    return b.ite(b.le(b.real(2**63), r), b.int(INT64_MAX),
                 b.ite(b.le(r, b.real(INT64_MIN)), b.int(INT64_MIN), b.real_trunc(r)))


def to_integer(enc: Encoder, v: Value) -> Value:
    """CAST(v AS INTEGER): reals truncate toward zero, text takes its integer prefix."""
    b = enc.b
    v = shaped_to_int(b, v, dates=True)
    if v.is_constant():
        c = v.constant()
        return constant(b, None if c is None else concrete.evaluate("CAST(? AS INTEGER)", (c,)))
    terms = []
    for a in v.alts:
        if a.cls is INT_C:
            terms.append((a.guard, a.term))
        elif a.cls is REAL_C:
            terms.append((a.guard, saturated_int(b, a.term)))
        else:
            nt = numtext.decompose(enc, a.term)
            if not nt.int_exact.is_true():
                enc.approximate("integer prefix of more than 18 digits",
                                _where(b, b.and_(b.not_(v.null), a.guard), nt.int_exact))
            terms.append((a.guard, numtext.integer_prefix(enc, a.term, nt)))
    if not terms:
        return v
    term = b.select(terms[:-1], terms[-1][1])
    return Value(v.null, (Alt(INT_C, b.TRUE, term),))


def to_real(enc: Encoder, v: Value) -> Value:
    """CAST(v AS REAL)."""
    b = enc.b
    if v.is_constant():
        c = v.constant()
        return constant(b, None if c is None else concrete.evaluate("CAST(? AS REAL)", (c,)))
    num = to_numeric(enc, v)
    terms = [(a.guard, a.term if a.cls is REAL_C else
              promoted(enc, a.term, b.and_(b.not_(num.null), a.guard))) for a in num.alts]
    if not terms:
        return v
    term = b.select(terms[:-1], terms[-1][1])
    return Value(v.null, (Alt(REAL_C, b.TRUE, term),))


def cast_numeric(enc: Encoder, v: Value) -> Value:
    """CAST(v AS NUMERIC): text to its numeric prefix, INTEGER when that is integral."""
    b = enc.b
    v = shaped_to_int(b, v, dates=True)
    if v.is_constant():
        c = v.constant()
        return constant(b, None if c is None else concrete.evaluate("CAST(? AS NUMERIC)", (c,)))
    a = v.alt(TEXT_C)
    if a is None:
        return v
    s = a.term
    nt = numtext.decompose(enc, s)
    exact = b.and_(nt.real_exact, nt.int_exact)
    if not exact.is_true():
        enc.approximate("CAST AS NUMERIC of long or exponent-form text",
                        _where(b, b.and_(b.not_(v.null), a.guard), exact))
    real_v = parsed(enc, s, nt, b.and_(b.not_(v.null), a.guard))
    # sqlite3VdbeMemNumerify: an integer prefix that fits is that INTEGER; else the
    # double read is an INTEGER when whole and within 2**51 ('1.0', '1.5e2', even
    # '1.00000000000000001'), a REAL otherwise ('123456789012345678.0')
    prefix_int = numtext.integer_reading(enc, s, nt)
    whole = b.and_(b.or_(nt.has_point, nt.has_exponent), ops.real_is_int(real_v),
                   b.le(b.real(-SAME_AS_INT), real_v), b.lt(real_v, b.real(SAME_AS_INT)))
    is_int = b.or_(prefix_int, whole)
    int_v = b.ite(prefix_int, numtext.integer_prefix(enc, s, nt), b.real_trunc(real_v))
    alts = [x for x in v.alts if x.cls is not TEXT_C]
    alts = merge_alt(b, alts, Alt(INT_C, b.and_(a.guard, is_int), int_v))
    alts = merge_alt(b, alts, Alt(REAL_C, b.and_(a.guard, b.not_(is_int)), real_v))
    return normalize(b, Value(v.null, tuple(alts)))


def truth_of(enc: Encoder, v: Value) -> Truth:
    """A value in a boolean context (WHERE x, x AND y): non-zero numeric value is TRUE."""
    b = enc.b
    if v.is_constant():
        c = v.constant()
        if c is None:
            return Truth(b.FALSE, b.FALSE)
        r = concrete.evaluate("CASE WHEN ? THEN 1 ELSE 0 END", (c,))
        return Truth(b.bool(r == 1), b.bool(r == 0))
    num = to_numeric(enc, v)
    nonzero = b.or_(
        b.and_(a.guard, b.not_(b.eq(a.term, b.int(0) if a.cls is INT_C else b.real(0))))
        for a in num.alts
    )
    return truth_of_bool(b, nonzero, num.null)


# ---------------------------------------------------------------------- helpers


def shaped_to_int(b: Builder, v: Value, *, dates: bool) -> Value:
    """Exact numeric reading of shaped text: a padded decimal is its integer; with
    ``dates``, date text's numeric prefix is its year ('2021-02-03' + 0 = 2021)."""
    a = v.alt(TEXT_C)
    if a is None or v.is_constant():
        return v
    if isinstance(a.shape, textorder.Padded) and not a.shape.layout:
        x = a.shape.x
    elif dates and a.date is not None:
        x = a.date.y
    else:
        return v
    alts = [o for o in v.alts if o.cls is not TEXT_C]
    alts = merge_alt(b, alts, Alt(INT_C, a.guard, x))
    return normalize(b, Value(v.null, tuple(alts)))


def merge_alt(b: Builder, alts: list[Alt], new: Alt) -> list[Alt]:
    """Add ``new``, merging with an existing alternative of the same class."""
    if new.guard.is_false():
        return alts
    out = []
    merged = False
    for a in alts:
        if a.cls is new.cls:
            out.append(Alt(a.cls, b.or_(a.guard, new.guard), b.ite(a.guard, a.term, new.term)))
            merged = True
        else:
            out.append(a)
    if not merged:
        out.append(new)
    return out


def _uf(enc: Encoder, name: str, ret, arg: FNode) -> FNode:
    """An uninterpreted function of ``arg`` (same input, same output across the formula)."""
    return enc.b.uf(name, ret, [arg])
