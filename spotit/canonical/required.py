"""A condition the WHERE requires is true on every row that reaches what is above it."""

from __future__ import annotations

from dataclasses import replace

from spotit.canonical.registry import rule
from spotit.canonical.trees import bottom_up, conjuncts, has_subquery
from spotit.ir import relational as R
from spotit.ir import scalar as S
from spotit.ir.determinism import CONNECTION_STATE, RANDOMIZED
from spotit.ir.walk import iter_exprs, rewrite

# operators whose value is 0, 1 or NULL, so "true" means the value 1
_BOOLEAN = (S.Compare, S.Is, S.IsNull, S.And, S.Or, S.Not, S.Like)
# functions that may give another value when called again on the same row (the clock
# is read once per statement)
_AGAIN = RANDOMIZED | CONNECTION_STATE
TRUE = S.Const(1)


@rule("a condition the WHERE requires is true")
def _required(plan: R.Rel, semantics: str) -> R.Rel:
    """Over the rows of ``WHERE p AND c``, a condition c computed again on the same row
    (in the select list, GROUP BY, an aggregate's argument) is 1: a conjunct the WHERE
    kept a row for is true there, and a comparison, LIKE, IS, AND, OR or NOT that is
    true is 1. In a CASE condition, ``1 AND x`` is x and ``1 OR x`` is true, and a
    WHEN that is always true is where the CASE ends (a CASE left with a constant is that
    constant; any other value keeps its CASE, which has no affinity or collation). So
    ``SUM(CASE WHEN sex = 'F' AND x THEN 1 END) … WHERE sex = 'F'`` counts x. Only
    conditions without subqueries or functions that may change between calls."""

    def fn(node: R.Rel) -> R.Rel:
        if not isinstance(node, R.Project | R.Aggregate) or not isinstance(node.input,
                                                                            R.Filter):
            return node
        facts = {c for c in conjuncts(node.input.predicate) if _stable(c)}
        if not facts:
            return node

        def known(e: S.Expr, level: int) -> S.Expr | None:
            if level == 0 and e in facts:
                return TRUE
            if isinstance(e, S.Case):
                whens = tuple((_truth(rewrite(c, known, level)), rewrite(v, known, level))
                              for c, v in e.whens)
                else_ = rewrite(e.else_, known, level)
                always = next((i for i, (c, _) in enumerate(whens) if c == TRUE), None)
                if always is not None:  # the first WHEN that is always true ends it
                    whens, else_ = whens[:always], whens[always][1]
                if not whens and isinstance(else_, S.Const):
                    return else_  # like a CASE, a constant has no affinity or collation
                return replace(e, whens=whens or ((TRUE, else_),),
                               else_=else_ if whens else S.Const(None))
            return None

        if isinstance(node, R.Project):
            return replace(node, exprs=rewrite(node.exprs, known))
        aggs = tuple(replace(a, arg=rewrite(a.arg, known)) for a in node.aggs)
        return replace(node, keys=rewrite(node.keys, known), aggs=aggs)

    return bottom_up(plan, fn)


def _stable(c: S.Expr) -> bool:
    """``c`` is 1 wherever it is true, gives the same value on the same row, and brings
    no collation to a comparison it is an operand of (as the constant 1 does not)."""
    return isinstance(c, _BOOLEAN) and not has_subquery(c) and not any(
        isinstance(e, S.Call) and e.name in _AGAIN for e, _ in iter_exprs(c)
    ) and not S.has_explicit_collation(c)


def _truth(c: S.Expr) -> S.Expr:
    """``c`` with ``1 AND x`` read as x and ``1 OR x`` as 1: the same truth value, which
    is all a CASE condition reads."""
    if isinstance(c, S.And | S.Or):
        left, right = _truth(c.left), _truth(c.right)
        if TRUE in (left, right):
            if isinstance(c, S.Or):
                return TRUE
            return right if left == TRUE else left
        return replace(c, left=left, right=right)
    return c
