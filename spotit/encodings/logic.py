"""Literals, column references, comparisons, three-valued logic, CASE.

See ``values.py`` for the Truth representation (``t``/``f`` flags) that makes
AND/OR/NOT one line each, and ``conversions.py`` for comparison semantics.
"""

from __future__ import annotations

from pysmt.fnode import FNode

from spotit.encodings import collation
from spotit.encodings import conversions as C
from spotit.encodings.encoder import Encoder, Env
from spotit.encodings.registry import encodes, function
from spotit.encodings.values import (
    Truth,
    Value,
    choose_many,
    constant,
    truth_and,
    truth_not,
    truth_or,
)
from spotit.ir import scalar as S
from spotit.mutants import planted


@encodes(S.Const)
def encode_const(enc: Encoder, e: S.Const, env: Env) -> Value:
    return constant(enc.b, e.value)


@encodes(S.ColumnRef)
def encode_column(enc: Encoder, e: S.ColumnRef, env: Env) -> Value:
    return env[len(env) - 1 - e.depth][e.index]


@encodes(S.Compare)
def encode_compare(enc: Encoder, e: S.Compare, env: Env) -> Truth:
    x, y = enc.value(e.left, env), enc.value(e.right, env)
    return C.compare(enc, e.op, x, S.affinity_of(e.left), y, S.affinity_of(e.right),
                     S.comparison_collation(e.left, e.right))


@encodes(S.Is)
def encode_is(enc: Encoder, e: S.Is, env: Env) -> Truth:
    """``x IS y``: ``=`` with affinity and collation, except NULL IS NULL is true;
    never NULL."""
    b = enc.b
    x, y = enc.value(e.left, env), enc.value(e.right, env)
    x, y = C.comparison_affinity(enc, x, S.affinity_of(e.left), y, S.affinity_of(e.right))
    same = collation.same(enc, x, y, S.comparison_collation(e.left, e.right))
    if planted("is-null-unknown"):
        known = b.not_(b.or_(x.null, y.null))
        return Truth(b.and_(known, same), b.and_(known, b.not_(same)))
    return Truth(same, b.not_(same))


@encodes(S.Collate)
def encode_collate(enc: Encoder, e: S.Collate, env: Env) -> Value | Truth:
    """``x COLLATE c`` is x; the collation matters only where x is compared."""
    return enc.encode(e.operand, env)


@encodes(S.IsNull)
def encode_is_null(enc: Encoder, e: S.IsNull, env: Env) -> Truth:
    b = enc.b
    if S.is_boolean(e.operand):
        t = enc.truth(e.operand, env)
        null = t.null(b)
    else:
        null = enc.value(e.operand, env).null
    return Truth(null, b.not_(null))


@encodes(S.And)
def encode_and(enc: Encoder, e: S.And, env: Env) -> Truth:
    return truth_and(enc.b, enc.truth(e.left, env), enc.truth(e.right, env))


@encodes(S.Or)
def encode_or(enc: Encoder, e: S.Or, env: Env) -> Truth:
    return truth_or(enc.b, enc.truth(e.left, env), enc.truth(e.right, env))


@encodes(S.Not)
def encode_not(enc: Encoder, e: S.Not, env: Env) -> Truth:
    return truth_not(enc.truth(e.operand, env))


@encodes(S.Case)
def encode_case(enc: Encoder, e: S.Case, env: Env) -> Value:
    """The first WHEN that is TRUE (not NULL, not FALSE) picks its result."""
    truths = [(enc.truth(c, env), enc.value(v, env)) for c, v in e.whens]
    if planted("case-null-taken"):
        cases = [(enc.b.not_(t.f), v) for t, v in truths]
    else:
        cases = [(t.t, v) for t, v in truths]
    return choose_many(enc.b, cases, enc.value(e.else_, env))


@function("COALESCE", ("IFNULL", (2, 2)), arity=(2, None), arg_kinds=("any", "any"), returns="any",
          differs_in=(), mutants=("coalesce-empty-as-null",))
def fn_coalesce(enc: Encoder, args: list[Value]) -> Value:
    """The first non-NULL argument (IFNULL is COALESCE with two arguments)."""
    b = enc.b
    cases = [(b.not_(v.null), v) for v in args[:-1]]
    if planted("coalesce-empty-as-null"):
        cases = [(b.and_(g, b.not_(_is_empty_text(enc, v))), v) for g, v in cases]
    return choose_many(b, cases, args[-1])


def _is_empty_text(enc: Encoder, v: Value) -> FNode:
    """The value is the text '' (the coalesce-empty-as-null mutant's test)."""
    from spotit.ir.types import StorageClass

    b, a = enc.b, v.alt(StorageClass.TEXT)
    return b.FALSE if a is None else b.and_(a.guard, b.eq(a.term, b.str("")))


@function("NULLIF", arity=(2, 2), arg_kinds=("any", "any"), collation=True, returns="any",
          differs_in=(), mutants=("nullif-null-second",))
def fn_nullif(enc: Encoder, args: list[Value], collation: str) -> Value:
    """NULL when the two arguments are equal (``=`` without affinity, under the
    collation of the first argument that has one), else the first."""
    b = enc.b
    x, y = args
    from spotit.ir.types import NO_AFFINITY

    eq = C.compare(enc, "=", x, NO_AFFINITY, y, NO_AFFINITY, collation).t
    if planted("nullif-null-second"):
        eq = b.or_(eq, y.null)
    return Value(b.or_(x.null, eq), x.alts)


@function("+", arity=(1, 1), arg_kinds=("any",), returns="any",
          differs_in=(), mutants=("unary-plus-numeric",))
def fn_unary_plus(enc: Encoder, args: list[Value]) -> Value:
    """Unary plus: the same value, without the operand's affinity (handled by the IR)."""
    if planted("unary-plus-numeric"):
        return C.to_numeric(enc, args[0])
    return args[0]
