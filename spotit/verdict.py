"""Verdicts and the result of one check.

The verdicts are ordered by how they combine: a validated counterexample at
any bound decides ``not_equivalent``; ``equivalent`` (within K) holds only
when every bound 1..K was proven UNSAT and nothing else happened.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Any


class Verdict(Enum):
    NOT_EQUIVALENT = "not_equivalent"
    EQUIVALENT = "equivalent"
    SPURIOUS = "spurious"
    TIMEOUT = "timeout"
    UNSUPPORTED = "unsupported"
    ERROR = "error"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class BoundStat:
    """What happened at one bound k."""

    k: int
    status: str  # sat / unsat / unknown / timeout / error
    seconds: float
    formula_nodes: int = 0
    encode_seconds: float = 0.0
    answers: str = ""  # portfolio: each solver's answer and time; yices: a z3 fallback


@dataclass
class ConstrainedVerdict:
    """Whether a difference survives assumed constraints on the data.

    ``verdict`` is the check's under the augmented schema: ``equivalent`` only when
    every bound was proven under it (or the pair is equivalent without them);
    ``violated`` describes the constraints the unconstrained counterexample breaks
    (``violated_kinds`` their kinds); ``counterexample`` is one that satisfies them.
    """

    verdict: Verdict
    reason: str
    violated: list[str] = field(default_factory=list)
    violated_kinds: list[str] = field(default_factory=list)
    counterexample: dict[str, list[dict[str, Any]]] | None = None
    proven_bound: int = 0
    seconds: float = 0.0
    constraints: int = 0  # how many were assumed
    skipped: list[str] = field(default_factory=list)  # left out of an import, and why


@dataclass
class CheckResult:
    verdict: Verdict
    bound: int
    solver: str
    semantics: str
    seconds: float = 0.0
    reason: str = ""
    now: str = ""  # the evaluation instant of 'now' (UTC)
    proven_bound: int = 0
    cex_bound: int | None = None
    cex_found_by: str | None = None  # "solver" or "random search" (both SQLite-confirmed)
    counterexample: dict[str, list[dict[str, Any]]] | None = None
    counterexample_columns: dict[str, list[str]] | None = None
    # per table, the columns the queries read (the rest only fill the rows)
    counterexample_read: dict[str, list[str]] | None = None
    # what the difference relies on (spotit.explain): [{"feature", "table", "column",
    # "detail", "restriction", "needed", "why"?}]
    explanation: list[dict[str, Any]] = field(default_factory=list)
    gold_result: list[tuple] | None = None
    pred_result: list[tuple] | None = None
    gold_columns: list[str] | None = None
    pred_columns: list[str] | None = None
    per_bound: list[BoundStat] = field(default_factory=list)
    approximations: list[str] = field(default_factory=list)
    spurious: list[dict[str, Any]] = field(default_factory=list)
    # "gold" / "pred": a query that returns no rows on any database within the bound
    vacuous: list[str] = field(default_factory=list)
    # how an equivalence was proved: "canonical form" or "one row per table" (for every
    # database, of any size: ``unbounded``), or "solver" (every bound up to ``bound``)
    proof: str | None = None
    unbounded: bool = False
    # the SQLite SQL that was checked, when the queries were written in another dialect
    transpiled: dict[str, str] | None = None
    # what the columns were assumed to hold ("declared" types, or anything "sqlite"
    # stores): an equivalence holds under this level, not under a weaker one
    data: str = "declared"
    # what loading the schema left out (SQLite's internal tables of a tables.json ...)
    notes: list[str] = field(default_factory=list)
    cex_rows: dict[str, list[tuple]] | None = field(default=None, repr=False)
    # the same pair under assumed data constraints (``spotit.constraints.assume``)
    constrained: ConstrainedVerdict | None = None
    # what the verdict assumed beyond what SQLite enforces (``spotit.assumptions``):
    # [{"kind": "foreign_key", "child", "parent", "needed", "why"?}], [] for nothing,
    # None for verdicts other than equivalent / not_equivalent
    assumed: list[dict[str, Any]] | None = None
    # declared foreign keys over the tables read that were not assumed, with why
    not_assumed: list[dict[str, Any]] = field(default_factory=list)
    # a SQLite file as the schema: what its data say about the declared constraints
    # (``spotit.constraints.declared.DeclaredCheck.to_json``)
    database_check: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("cex_rows")
        d["verdict"] = self.verdict.value
        if self.constrained is None:
            d.pop("constrained")
        else:
            d["constrained"]["verdict"] = self.constrained.verdict.value
        for key in ("gold_result", "pred_result"):
            if d[key] is not None:
                d[key] = [list(r) for r in d[key]]
        return d

    @property
    def equivalent(self) -> bool:
        return self.verdict is Verdict.EQUIVALENT
