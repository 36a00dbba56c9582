"""A condition that is true whatever the row is keeps every row."""

from __future__ import annotations

from dataclasses import replace

from spotit import concrete
from spotit.canonical.registry import rule
from spotit.canonical.trees import bottom_up, conjuncts
from spotit.ir import relational as R
from spotit.ir import scalar as S
from spotit.ir.render import render_expr

# functions whose value SQLite does not fix by the text alone
_UNFIXED = ("random", "changes", "last_insert_rowid", "now", "current_")


@rule("a condition that is always true dropped")
def _always_true(plan: R.Rel, semantics: str) -> R.Rel:
    """A WHERE, HAVING or ON conjunct that reads no row and that SQLite evaluates to
    true (``1 = 1``, ``1``, ``'1' + 0``) keeps every row it is asked about: it is
    dropped; a filter left with no condition is its input, a join with none joins every
    pair (which ``ON 1`` does, LEFT JOIN included). Only what renders as closed SQL and
    names no function whose value is not fixed by its text (RANDOM, 'now')."""

    def fn(node: R.Rel) -> R.Rel:
        if isinstance(node, R.Filter):
            kept = [c for c in conjuncts(node.predicate) if not always_true(c)]
            if len(kept) == len(conjuncts(node.predicate)):
                return node
            return replace(node, predicate=S.conjoin(kept)) if kept else node.input
        if isinstance(node, R.Join) and node.condition is not None:
            kept = [c for c in conjuncts(node.condition) if not always_true(c)]
            if len(kept) == len(conjuncts(node.condition)):
                return node
            return replace(node, condition=S.conjoin(kept) if kept else None)
        return node

    return bottom_up(plan, fn)


def always_true(e: S.Expr) -> bool:
    """SQLite says the closed condition ``e`` is true (a non-zero number)."""
    sql = render_expr(e)
    if sql is None or any(word in sql.lower() for word in _UNFIXED):
        return False
    try:
        return concrete.evaluate(f"CASE WHEN ({sql}) THEN 1 ELSE 0 END") == 1
    except concrete.SqliteEvalError:
        return False
