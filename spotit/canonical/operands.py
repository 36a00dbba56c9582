"""Rules on expressions: constants coerced where SQLite coerces them, commutative
operands in a canonical order, and the default NULL order spelled out."""

from __future__ import annotations

from dataclasses import replace

from spotit import concrete
from spotit.canonical.registry import rule
from spotit.canonical.trees import bottom_up, sort_key
from spotit.ir import relational as R
from spotit.ir import scalar as S
from spotit.ir.types import Affinity
from spotit.ir.walk import rewrite


@rule("constants under comparison affinity")
def _comparison_constants(plan: R.Rel, semantics: str) -> R.Rel:
    """A constant compared with a column takes the affinity SQLite gives it there
    (datatype3.html §4.2): ``text_col = 201101`` is ``text_col = '201101'``, and
    ``num_col = '7'`` is ``num_col = 7``. Expressions without affinity (``x + 0``)
    give the constant none, and are left alone."""

    def fn(e: S.Expr, level: int) -> S.Expr | None:
        if not isinstance(e, S.Compare):
            return None
        left, right = _coerced(e.left, e.right), _coerced(e.right, e.left)
        if left is e.left and right is e.right:
            return None
        return replace(e, left=rewrite(left, fn, level), right=rewrite(right, fn, level))

    return rewrite(plan, fn)


def _coerced(const: S.Expr, other: S.Expr) -> S.Expr:
    """``const`` with the affinity ``other`` applies to it in a comparison."""
    if not isinstance(const, S.Const) or const.value is None or isinstance(other, S.Const):
        return const
    aff = S.affinity_of(other)
    if aff is Affinity.TEXT:
        target = Affinity.TEXT
    elif aff.is_numeric:
        target = Affinity.NUMERIC
    else:
        return const
    value = concrete.apply_affinity(const.value, target)
    return const if S.Const(value) == const else S.Const(value)


_MIRRORED = {"=": "=", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
_COMMUTATIVE_ARITH = ("+", "*")


@rule("commutative operands ordered")
def _commutative(plan: R.Rel, semantics: str) -> R.Rel:
    """AND and OR (three-valued, order-free), ``+`` and ``*`` (SQLite converts both
    operands the same way, overflow included), and comparisons mirrored (``a < b`` is
    ``b > a``: affinity conversion is symmetric) take their operands in a canonical
    order; duplicate AND/OR operands count once. A comparison is mirrored only when
    both orders pick the same collating sequence (the left operand's wins a tie)."""

    def fn(e: S.Expr, level: int) -> S.Expr | None:
        if isinstance(e, S.And | S.Or):
            kind = type(e)
            terms = [rewrite(t, fn, level) for t in _operands(e, kind)]
            unique = {sort_key(t): t for t in terms}
            ordered = [unique[k] for k in sorted(unique)]
            return (S.conjoin if kind is S.And else S.disjoin)(ordered)
        if isinstance(e, S.Compare | S.Is | S.Arith):
            if isinstance(e, S.Arith) and e.op not in _COMMUTATIVE_ARITH:
                return None
            left, right = rewrite(e.left, fn, level), rewrite(e.right, fn, level)
            swap = sort_key(right) < sort_key(left) and (
                isinstance(e, S.Arith)
                or S.comparison_collation(left, right) == S.comparison_collation(right, left))
            if swap:
                left, right = right, left
            if isinstance(e, S.Compare) and swap:
                return S.Compare(_MIRRORED[e.op], left, right)
            return replace(e, left=left, right=right)
        return None

    return rewrite(plan, fn)


def _operands(e: S.Expr, kind: type) -> list[S.Expr]:
    if isinstance(e, kind):
        return _operands(e.left, kind) + _operands(e.right, kind)  # type: ignore[attr-defined]
    return [e]


@rule("NULL order spelled out")
def _null_order(plan: R.Rel, semantics: str) -> R.Rel:
    """SQLite sorts NULL first ascending and last descending unless told otherwise:
    ``ORDER BY x`` is ``ORDER BY x ASC NULLS FIRST``."""

    def fn(node: R.Rel) -> R.Rel:
        if not isinstance(node, R.Sort) or all(k.nulls_first is not None for k in node.keys):
            return node
        keys = tuple(k if k.nulls_first is not None else replace(k, nulls_first=not k.descending)
                     for k in node.keys)
        return replace(node, keys=keys)

    return bottom_up(plan, fn)


_CASE_FOLDS = ("UPPER", "LOWER")


@rule("case folding composed")
def _case_folding(plan: R.Rel, semantics: str) -> R.Rel:
    """``UPPER(LOWER(x))`` is ``UPPER(x)`` (and every other nesting of UPPER and
    LOWER is its outer function): SQLite folds ASCII letters only, both functions
    read any value as text first, and the outer fold overwrites the inner one."""

    def fn(e: S.Expr, level: int) -> S.Expr | None:
        if not (isinstance(e, S.Call) and e.name in _CASE_FOLDS and len(e.args) == 1):
            return None
        inner = e.args[0]
        while isinstance(inner, S.Call) and inner.name in _CASE_FOLDS and len(inner.args) == 1:
            inner = inner.args[0]
        return replace(e, args=(rewrite(inner, fn, level),))

    return rewrite(plan, fn)
