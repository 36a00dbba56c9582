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

from typing import TYPE_CHECKING

from pysmt.fnode import FNode
from pysmt.typing import BOOL, INT, REAL, STRING, FunctionType

from spotit import concrete
from spotit.encodings.builder import Builder
from spotit.encodings.values import (
    Alt,
    Truth,
    Value,
    constant,
    normalize,
    truth_of_bool,
)
from spotit.ir.types import Affinity, StorageClass
from spotit.smt import ops

if TYPE_CHECKING:
    from spotit.encodings.encoder import Encoder

INT_C, REAL_C, TEXT_C = StorageClass.INTEGER, StorageClass.REAL, StorageClass.TEXT
MAX_EXACT_DIGITS = 18  # digit strings this long always fit in a 64-bit integer


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


def _class_eq(b: Builder, ax: Alt, ay: Alt) -> FNode:
    if ax.cls is TEXT_C and ay.cls is TEXT_C:
        return b.eq(ax.term, ay.term)
    if ax.cls is not TEXT_C and ay.cls is not TEXT_C:
        return b.num_eq(ax.term, ay.term)
    return b.FALSE


def _class_lt(b: Builder, ax: Alt, ay: Alt) -> FNode:
    """ax < ay for non-NULL values of these classes: numbers < text."""
    if ax.cls is TEXT_C and ay.cls is TEXT_C:
        return b.lt(ax.term, ay.term)
    if ax.cls is not TEXT_C and ay.cls is not TEXT_C:
        return b.lt(*_promote(b, ax.term, ay.term))
    return b.bool(ay.cls is TEXT_C)


def _promote(b: Builder, x: FNode, y: FNode) -> tuple[FNode, FNode]:
    if x.get_type() is y.get_type():
        return x, y
    return b.to_real(x), b.to_real(y)


def less_than(b: Builder, x: Value, y: Value) -> FNode:
    """x < y for non-NULL x, y under SQLite's cross-class order (caller handles NULL)."""
    return b.or_(
        b.and_(ax.guard, ay.guard, _class_lt(b, ax, ay)) for ax in x.alts for ay in y.alts
    )


def sort_before(b: Builder, x: Value, y: Value, descending: bool, nulls_first: bool | None
                ) -> FNode:
    """x sorts strictly before y in ORDER BY (NULLs first ascending, last descending)."""
    if nulls_first is None:
        nulls_first = not descending
    nn = b.and_(b.not_(x.null), b.not_(y.null))
    strictly = less_than(b, y, x) if descending else less_than(b, x, y)
    first, second = (x, y) if nulls_first else (y, x)
    null_part = b.and_(first.null, b.not_(second.null))
    return b.or_(null_part, b.and_(nn, strictly))


# ---------------------------------------------------------------------- comparison


def compare(enc: Encoder, op: str, x: Value, ax: Affinity, y: Value, ay: Affinity) -> Truth:
    """``x op y`` with SQLite's affinity rules; NULL if either side is NULL."""
    b = enc.b
    x, y = comparison_affinity(enc, x, ax, y, ay)
    null = b.or_(x.null, y.null)
    if op in ("=", "!="):
        eq = b.or_(
            b.and_(p.guard, q.guard, _class_eq(b, p, q)) for p in x.alts for q in y.alts
        )
        cond = eq if op == "=" else b.not_(eq)
    elif op == "<":
        cond = less_than(b, x, y)
    elif op == ">":
        cond = less_than(b, y, x)
    elif op == "<=":
        cond = b.not_(less_than(b, y, x))
    elif op == ">=":
        cond = b.not_(less_than(b, x, y))
    else:
        raise ValueError(op)
    return truth_of_bool(b, cond, null)


def comparison_affinity(enc: Encoder, x: Value, ax: Affinity, y: Value, ay: Affinity
                        ) -> tuple[Value, Value]:
    """Apply the affinity conversions SQLite does before comparing x and y."""
    if ax.is_numeric and not ay.is_numeric:
        return x, numeric_affinity(enc, y)
    if ay.is_numeric and not ax.is_numeric:
        return numeric_affinity(enc, x), y
    if ax is Affinity.TEXT and ay is Affinity.BLOB:
        return x, text_affinity(enc, y)
    if ay is Affinity.TEXT and ax is Affinity.BLOB:
        return text_affinity(enc, x), y
    return x, y


# ---------------------------------------------------------------------- affinity


def numeric_affinity(enc: Encoder, v: Value) -> Value:
    """NUMERIC affinity: well-formed numeric text becomes INTEGER or REAL."""
    a = v.alt(TEXT_C)
    if a is None:
        return v
    if v.is_constant():
        return constant(enc.b, concrete.apply_affinity(v.constant(), Affinity.NUMERIC))
    b = enc.b
    s = a.term
    digits = _is_digits(b, s)
    enc.approximate("numeric affinity of symbolic text")
    converts = b.or_(digits, _uf(enc, "aff_num", BOOL, s))
    is_int = b.or_(digits, _uf(enc, "aff_is_int", BOOL, s))
    int_term = b.ite(digits, ops.str_to_int(s), _uf(enc, "aff_int", INT, s))
    alts = [x for x in v.alts if x.cls is not TEXT_C]
    alts = _merge(b, alts, Alt(INT_C, b.and_(a.guard, converts, is_int), int_term))
    alts = _merge(b, alts, Alt(REAL_C, b.and_(a.guard, converts, b.not_(is_int)),
                               _uf(enc, "aff_real", REAL, s)))
    alts.append(Alt(TEXT_C, b.and_(a.guard, b.not_(converts)), s))
    return normalize(b, Value(v.null, tuple(alts)))


def text_affinity(enc: Encoder, v: Value) -> Value:
    """TEXT affinity: numbers become their text."""
    if v.alt(INT_C) is None and v.alt(REAL_C) is None:
        return v
    return to_text(enc, v)


# ---------------------------------------------------------------------- conversions


def to_text(enc: Encoder, v: Value) -> Value:
    """The value as TEXT (``||``, LIKE, string functions, CAST AS TEXT)."""
    b = enc.b
    if v.is_constant():
        c = v.constant()
        return constant(b, None if c is None else concrete.evaluate("CAST(? AS TEXT)", (c,)))
    guard_terms = []
    for a in v.alts:
        if a.cls is TEXT_C:
            guard_terms.append((a.guard, a.term))
        elif a.cls is INT_C:
            guard_terms.append((a.guard, int_text(b, a.term)))
        else:
            enc.approximate("text of a symbolic REAL")
            guard_terms.append((a.guard, _uf(enc, "real_text", STRING, a.term)))
    term = b.select(guard_terms[:-1], guard_terms[-1][1]) if guard_terms else b.str("")
    return Value(v.null, (Alt(TEXT_C, b.TRUE, term),)) if guard_terms else v


def int_text(b: Builder, i: FNode) -> FNode:
    """Decimal text of an integer (SMT-LIB's ``str.from_int`` is empty for negatives)."""
    if i.is_constant():
        return b.str(str(i.constant_value()))
    neg = b.concat(b.str("-"), ops.str_from_int(b.neg(i)))
    return b.ite(b.lt(i, b.int(0)), neg, ops.str_from_int(i))


def to_numeric(enc: Encoder, v: Value) -> Value:
    """The value in a numeric context: text becomes its longest numeric prefix."""
    a = v.alt(TEXT_C)
    if a is None:
        return v
    b = enc.b
    if v.is_constant():
        return constant(b, concrete.evaluate("? + 0", (v.constant(),)))
    s = a.term
    digits_or_empty = b.or_(_is_digits(b, s), b.eq(s, b.str("")))
    no_number = _starts_without_number(b, s)
    exact = b.or_(digits_or_empty, no_number)
    exact_int = b.ite(no_number, b.int(0),
                      b.ite(b.eq(s, b.str("")), b.int(0), ops.str_to_int(s)))
    enc.approximate("numeric prefix of symbolic text")
    is_int = b.or_(exact, _uf(enc, "num_is_int", BOOL, s))
    alts = [x for x in v.alts if x.cls is not TEXT_C]
    alts = _merge(b, alts, Alt(INT_C, b.and_(a.guard, is_int),
                               b.ite(exact, exact_int, _uf(enc, "num_int", INT, s))))
    alts = _merge(b, alts, Alt(REAL_C, b.and_(a.guard, b.not_(is_int)),
                               _uf(enc, "num_real", REAL, s)))
    return normalize(b, Value(v.null, tuple(alts)))


def to_integer(enc: Encoder, v: Value) -> Value:
    """CAST(v AS INTEGER): reals truncate toward zero, text takes its integer prefix."""
    b = enc.b
    if v.is_constant():
        c = v.constant()
        return constant(b, None if c is None else concrete.evaluate("CAST(? AS INTEGER)", (c,)))
    terms = []
    for a in v.alts:
        if a.cls is INT_C:
            terms.append((a.guard, a.term))
        elif a.cls is REAL_C:
            enc.note_real_to_int()
            terms.append((a.guard, b.real_trunc(a.term)))
        else:
            s = a.term
            digits_or_empty = b.or_(_is_digits(b, s), b.eq(s, b.str("")))
            no_number = _starts_without_number(b, s)
            enc.approximate("integer prefix of symbolic text")
            exact_v = b.ite(b.or_(no_number, b.eq(s, b.str(""))), b.int(0), ops.str_to_int(s))
            terms.append((a.guard, b.ite(b.or_(digits_or_empty, no_number), exact_v,
                                         _uf(enc, "int_prefix", INT, s))))
    term = b.select(terms[:-1], terms[-1][1]) if terms else b.int(0)
    return Value(v.null, (Alt(INT_C, b.TRUE, term),)) if terms else v


def to_real(enc: Encoder, v: Value) -> Value:
    """CAST(v AS REAL)."""
    b = enc.b
    if v.is_constant():
        c = v.constant()
        return constant(b, None if c is None else concrete.evaluate("CAST(? AS REAL)", (c,)))
    num = to_numeric(enc, v)
    terms = [(a.guard, b.to_real(a.term)) for a in num.alts]
    if not terms:
        return v
    term = b.select(terms[:-1], terms[-1][1])
    return Value(v.null, (Alt(REAL_C, b.TRUE, term),))


def cast_numeric(enc: Encoder, v: Value) -> Value:
    """CAST(v AS NUMERIC): text to a number; integral values from text become INTEGER."""
    b = enc.b
    if v.is_constant():
        c = v.constant()
        return constant(b, None if c is None else concrete.evaluate("CAST(? AS NUMERIC)", (c,)))
    a = v.alt(TEXT_C)
    if a is None:
        return v
    enc.approximate("CAST of symbolic text AS NUMERIC")
    s = a.term
    digits = _is_digits(b, s)
    no_number = b.or_(_starts_without_number(b, s), b.eq(s, b.str("")))
    exact = b.or_(digits, no_number)
    is_int = b.or_(exact, _uf(enc, "cnum_is_int", BOOL, s))
    int_term = b.ite(digits, ops.str_to_int(s),
                     b.ite(no_number, b.int(0), _uf(enc, "cnum_int", INT, s)))
    alts = [x for x in v.alts if x.cls is not TEXT_C]
    alts = _merge(b, alts, Alt(INT_C, b.and_(a.guard, is_int), int_term))
    alts = _merge(b, alts, Alt(REAL_C, b.and_(a.guard, b.not_(is_int)),
                               _uf(enc, "cnum_real", REAL, s)))
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


def _merge(b: Builder, alts: list[Alt], new: Alt) -> list[Alt]:
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


def _digit_re(b: Builder):
    return ops.re_range(b.str("0"), b.str("9"))


def _is_digits(b: Builder, s: FNode) -> FNode:
    """s is 1..18 ASCII digits (so ``str.to_int`` is its exact value)."""
    if s.is_constant():
        t = s.constant_value()
        return b.bool(t.isascii() and t.isdigit() and len(t) <= MAX_EXACT_DIGITS)
    return b.and_(ops.str_in_re(s, ops.re_plus(_digit_re(b))),
                  b.le(b.str_len(s), b.int(MAX_EXACT_DIGITS)))


_NUMBER_START = " \t\n\x0b\x0c\r+-.0123456789"


def _starts_without_number(b: Builder, s: FNode) -> FNode:
    """s is non-empty and its first character cannot begin a number (prefix value 0)."""
    first = b.m.StrCharAt(s, b.int(0))
    return b.and_(
        b.lt(b.int(0), b.str_len(s)),
        *(b.not_(b.eq(first, b.str(c))) for c in _NUMBER_START),
    )


def _uf(enc: Encoder, name: str, ret, arg: FNode) -> FNode:
    """An uninterpreted function of ``arg`` (same input, same output across the formula)."""
    fn = enc.b.m.Symbol(f"uf!{name}", FunctionType(ret, [arg.get_type()]))
    return enc.b.m.Function(fn, [arg])
