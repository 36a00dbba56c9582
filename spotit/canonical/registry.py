"""The rule registry and the fixpoint that applies it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from spotit.ir import relational as R


@dataclass(frozen=True)
class Rule:
    name: str
    apply: Callable[[R.Rel, str], R.Rel]  # (plan, semantics) -> plan
    doc: str


RULES: list[Rule] = []

# Passes over all rules before giving up on a fixpoint. A rule may expose work for
# an earlier one (a join reordered leaves a projection to merge), so a few are needed;
# stopping early is sound (the forms are only compared), it may only miss a proof.
MAX_PASSES = 8


def rule(name: str):
    """Register ``fn(plan, semantics) -> plan`` under ``name``; its docstring's first
    line is what the rule claims."""

    def register(fn: Callable[[R.Rel, str], R.Rel]):
        RULES.append(Rule(name, fn, (fn.__doc__ or "").strip().split("\n")[0]))
        return fn

    return register


def canonical(plan: R.Rel, semantics: str, skip: frozenset[str] = frozenset()
              ) -> tuple[R.Rel, tuple[str, ...]]:
    """The canonical form of ``plan`` and the names of the rules that changed it
    (the rules, but those named in ``skip``, run in order until none changes anything).

    Plans are immutable values and the rules pure functions of them, so a form is
    remembered: a pair checked by two solvers (``spotit fuzz --solver both``, solver
    comparisons), and each bound's instance of it, are rewritten once."""
    rules = tuple(r for r in RULES if r.name not in skip)
    return _canonical(plan, semantics, rules)


@lru_cache(maxsize=4096)
def _canonical(plan: R.Rel, semantics: str, rules: tuple[Rule, ...]
               ) -> tuple[R.Rel, tuple[str, ...]]:
    used: dict[str, None] = {}
    for _ in range(MAX_PASSES):
        before = plan
        for r in rules:
            out = r.apply(plan, semantics)
            if out != plan:
                used[r.name] = None
            plan = out
        if plan == before:
            break
    return plan, tuple(used)
