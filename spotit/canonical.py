"""Canonical forms of bound plans: equal forms prove equivalence on every database.

Each rule is a plain function from plan to plan that keeps, under SQLite's
semantics and the comparison in force, the set of results the query can give on
*every* database (not only small ones). Two plans with the same canonical form are
therefore equivalent without any bound -- the pipeline reports that as
``equivalent`` with ``proof: canonical form`` before it starts the bounded search.

Rules are registered in ``RULES`` like operators are, and ``spotit fuzz`` checks
them: its end-to-end claim runs SQLite on random databases for pairs whose mutations
include what the rules rewrite (DISTINCT toggled, constants quoted), and a pair
proved here that SQLite shows different is a discrepancy.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields, replace

from spotit import concrete
from spotit.ir import relational as R
from spotit.ir import scalar as S
from spotit.ir.types import BINARY, Affinity
from spotit.ir.walk import iter_exprs, rewrite, without_names


@dataclass(frozen=True)
class Rule:
    name: str
    apply: Callable[[R.Rel, str], R.Rel]  # (plan, semantics) -> plan
    doc: str


RULES: list[Rule] = []


def rule(name: str):
    def register(fn: Callable[[R.Rel, str], R.Rel]):
        RULES.append(Rule(name, fn, (fn.__doc__ or "").strip().split("\n")[0]))
        return fn

    return register


def canonical(plan: R.Rel, semantics: str) -> tuple[R.Rel, tuple[str, ...]]:
    """The canonical form of ``plan`` and the names of the rules that changed it
    (the rules run in order until none changes anything)."""
    used: dict[str, None] = {}
    for _ in range(MAX_PASSES):
        before = plan
        for r in RULES:
            out = r.apply(plan, semantics)
            if out != plan:
                used[r.name] = None
            plan = out
        if plan == before:
            break
    return plan, tuple(used)


MAX_PASSES = 4


@rule("column names")
def _names(plan: R.Rel, semantics: str) -> R.Rel:
    """Output column names are labels: the binder resolved every name to a position."""
    return without_names(plan)


@rule("re-projection merged")
def _merge_projections(plan: R.Rel, semantics: str) -> R.Rel:
    """A projection of a projection that only picks columns or constants (a derived
    table that renames or re-projects) is one projection."""
    return _bottom_up(plan, _merged)


def _merged(p: R.Rel) -> R.Rel:
    if not (isinstance(p, R.Project) and isinstance(p.input, R.Project)):
        return p
    inner = p.input
    picks = all(isinstance(e, S.Const) or (isinstance(e, S.ColumnRef) and e.depth == 0)
                for e in inner.exprs)
    if not picks or any(isinstance(e, _SUBQUERIES) for e, _ in iter_exprs(p.exprs)):
        return p

    def substitute(e: S.Expr, level: int) -> S.Expr | None:
        if isinstance(e, S.ColumnRef) and e.depth == 0:
            return inner.exprs[e.index]
        return None

    return R.Project(inner.input, rewrite(p.exprs, substitute), p.out)


_SUBQUERIES = (S.InSubquery, S.Exists, S.ScalarSubquery)


def _bottom_up(node: R.Rel, fn: Callable[[R.Rel], R.Rel]) -> R.Rel:
    """``fn`` on every operator reachable through operator inputs, inputs first."""
    changes = {}
    for f in fields(node):
        old = getattr(node, f.name)
        if isinstance(old, R.Rel):
            new = _bottom_up(old, fn)
        elif isinstance(old, tuple) and old and all(isinstance(x, R.Rel) for x in old):
            new = tuple(_bottom_up(x, fn) for x in old)
        else:
            continue
        if new is not old:
            changes[f.name] = new
    return fn(replace(node, **changes) if changes else node)


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


@rule("result order and duplicates")
def _outer_order_and_distinct(plan: R.Rel, semantics: str) -> R.Rel:
    """Compared as sets, the outermost DISTINCT (over BINARY columns: a folding
    collation picks one spelling of a group) and an ORDER BY without LIMIT/OFFSET do
    not change the result; compared as bags, the ORDER BY does not."""
    if semantics == "list":
        return plan
    while True:
        if _strippable(plan, semantics):
            plan = plan.input
        elif isinstance(plan, R.Project) and _strippable(plan.input, semantics):
            return replace(plan, input=_outer_order_and_distinct(plan.input, semantics))
        else:
            return plan


def _strippable(plan: R.Rel, semantics: str) -> bool:
    if isinstance(plan, R.Sort):
        return plan.limit is None and plan.offset == 0
    return (isinstance(plan, R.Distinct) and semantics == "set"
            and all(c == BINARY for c in R.collation_names(plan.columns)))
