"""A check under constraints: does the difference survive what the real data satisfies?

The pair is checked as usual (today's verdict, unchanged). Constraints only remove
databases, so ``equivalent`` stays ``equivalent``; only a ``not_equivalent`` needs
more work. Its counterexample is tested against the constraints on SQLite
(``violations``): if it breaks none, it is already a counterexample under them.
Otherwise the pair is checked again, on the augmented schema, and that verdict is
the constrained one: ``equivalent`` there means every bound was proven under the
constraints. A counterexample of the second search is itself re-tested: one that
broke a constraint would be a bug, reported as ``error``, never as a difference.
"""

from __future__ import annotations

import sqlite3
import time
from typing import Any

from spotit.constraints.augment import augment
from spotit.constraints.model import ConstraintSet
from spotit.constraints.violations import Violation, violations
from spotit.errors import SpotItError
from spotit.pipeline import check, coerce_schema
from spotit.schema import Schema
from spotit.validate import build_database
from spotit.verdict import CheckResult, ConstrainedVerdict, Verdict


def _kinds(found: list[Violation]) -> list[str]:
    return list(dict.fromkeys(v.constraint.kind for v in found))


def _loads(schema: Schema, rows) -> str | None:
    """None if SQLite accepts ``rows`` under ``schema`` (its CHECK, UNIQUE and NOT NULL
    enforced), else SQLite's complaint."""
    try:
        build_database(schema, rows).close()
    except sqlite3.Error as e:
        return str(e)
    return None


def constrained_verdict(schema: Schema, gold: str, pred: str, constraints: ConstraintSet,
                        base: CheckResult, **options: Any) -> ConstrainedVerdict:
    """The verdict under ``constraints`` (resolved against ``schema``), given the
    unconstrained result ``base``; ``options`` are ``check``'s."""
    start = time.monotonic()
    n, skipped = len(constraints), list(constraints.skipped)

    def done(verdict: Verdict, reason: str, **kw: Any) -> ConstrainedVerdict:
        return ConstrainedVerdict(verdict, reason, constraints=n, skipped=skipped,
                                  seconds=time.monotonic() - start, **kw)

    if base.verdict is Verdict.EQUIVALENT:
        return done(Verdict.EQUIVALENT, "equivalent without the constraints, so with them "
                    "(they only remove databases)", proven_bound=base.proven_bound)
    if base.verdict is not Verdict.NOT_EQUIVALENT or base.cex_rows is None:
        return done(base.verdict, f"not searched: the check without constraints ended "
                    f"{base.verdict.value}")
    try:
        aug = augment(schema, constraints)
        broken = violations(schema, base.cex_rows, constraints)
        refused = None if broken else _loads(aug, base.cex_rows)
    except SpotItError as e:
        return done(Verdict.ERROR, f"constraints: {e}")
    if not broken and refused is None:
        return done(Verdict.NOT_EQUIVALENT, "the counterexample satisfies the constraints",
                    counterexample=base.counterexample, proven_bound=base.proven_bound)
    violated = [v.describe() for v in broken] or [f"SQLite refused it: {refused}"]
    kinds = _kinds(broken)
    again = _search(schema, aug, gold, pred, constraints, **options)
    if again.verdict is Verdict.NOT_EQUIVALENT and again.cex_rows is not None:
        still = violations(schema, again.cex_rows, constraints)
        if still:  # never report a difference the constraints rule out
            return done(Verdict.ERROR, "internal: the counterexample under constraints "
                        "violates " + "; ".join(v.describe() for v in still),
                        violated=violated, violated_kinds=kinds)
        return done(Verdict.NOT_EQUIVALENT, "a counterexample that satisfies them",
                    violated=violated, violated_kinds=kinds,
                    counterexample=again.counterexample, proven_bound=again.proven_bound)
    if again.verdict is Verdict.EQUIVALENT:
        reason = (f"equivalent within K = {again.bound} — the difference needs data that "
                  f"violates: {', '.join(violated)}")
    else:
        reason = again.reason
    return done(again.verdict, reason, violated=violated, violated_kinds=kinds,
                proven_bound=again.proven_bound)


def mentioned(constraints: ConstraintSet, gold: str, pred: str) -> ConstraintSet:
    """The constraints all of whose columns occur (as text, any case) in the queries."""
    text = (gold + "\n" + pred).lower()

    def named(c) -> bool:
        cols = (*c.columns_used(), *getattr(c, "ref_columns", ()))
        return all(x.lower() in text for x in cols)

    return ConstraintSet(tuple(c for c in constraints if named(c)), constraints.skipped)


def _search(schema: Schema, aug: Schema, gold: str, pred: str, constraints: ConstraintSet,
            **options: Any) -> CheckResult:
    """The check on the augmented schema. First with only the constraints on columns the
    queries name (a smaller formula): fewer constraints allow more databases, so an
    ``equivalent`` there holds under all of them, and a counterexample that satisfies
    all of them (tested on SQLite) is one; anything else falls back to all of them."""
    few = mentioned(constraints, gold, pred)
    if len(few) < len(constraints):
        first = check(augment(schema, few), gold, pred, **options)
        if first.verdict is Verdict.EQUIVALENT:
            return first
        if first.verdict is Verdict.NOT_EQUIVALENT and first.cex_rows is not None and not \
                violations(schema, first.cex_rows, constraints) and \
                _loads(aug, first.cex_rows) is None:
            return first
    return check(aug, gold, pred, **options)


def check_with_constraints(schema: Schema | str, gold: str, pred: str,
                           constraints: ConstraintSet, *, db_id: str | None = None,
                           **options: Any) -> CheckResult:
    """``check``, plus ``result.constrained``: the verdict under ``constraints``."""
    result = check(schema, gold, pred, db_id=db_id, **options)
    try:
        sch = coerce_schema(schema, db_id)
    except SpotItError:
        return result  # the result already says why the schema does not load
    result.constrained = constrained_verdict(sch, gold, pred, constraints, result, **options)
    return result
