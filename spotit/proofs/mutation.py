"""``spotit fuzz --mutants``: the fuzz's bug-finding power, measured.

Each planted encoding bug of :mod:`spotit.mutants` is turned on in turn and the
ordinary fuzz runs against it until its first discrepancy (unshrunk: the time to
notice is what is measured) or until the per-mutant budget is spent. A mutant
the fuzz does not find within the budget names a blind spot of the generators.

Discrepancies found under a mutant are planted, not real: their reproducers go to
``<out>/mutants/<name>/`` (each saying which mutant it needs), never to ``<out>``.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from spotit.mutants import MUTANTS, planting
from spotit.proofs.fuzz import fuzz, fuzz_in_parallel
from spotit.proofs.reproducers import replay

# which claim each fuzz part checks
CLAIMS = {"expression": "Thm 1", "window": "Thm 1", "relation": "Thm 1", "tables": "Thm 2",
          "query_pair": "query pair", "rules": "rules"}


@dataclass
class MutantResult:
    name: str
    family: str
    found: bool
    seconds: float  # time to the first discrepancy, or the whole budget if none
    claim: str | None = None  # Thm 1 / Thm 2 / query pair / rules
    part: str | None = None  # the fuzz part: expression, window, relation, tables, ...
    detail: str = ""
    reproducer: str = ""
    # the reproducer of what the run found if it shows with the mutant off too: a
    # discrepancy of the encoding itself, which finds no mutant (the mutant counts
    # as not found; the finding is for fixing)
    unplanted: str = ""


@dataclass
class MutationReport:
    results: list[MutantResult] = field(default_factory=list)
    seed: int = 0
    minutes_per_mutant: float = 0.0
    solvers: tuple[str, ...] = ()
    jobs: int = 1  # worker processes of each mutant's fuzz

    @property
    def found(self) -> int:
        return sum(r.found for r in self.results)

    def median_seconds(self) -> float | None:
        """Median time to find over all mutants, one not found counting as its whole
        budget (so a lower bound when some were not found); None if there are none."""
        times = [r.seconds for r in self.results]
        return round(statistics.median(times), 1) if times else None

    def median_found_seconds(self) -> float | None:
        """Median time to find over the mutants found (None if none was)."""
        times = [r.seconds for r in self.results if r.found]
        return round(statistics.median(times), 1) if times else None

    def p95_seconds(self) -> float | None:
        """95th percentile (nearest rank) of the time to find over all mutants, counted
        as ``median_seconds`` counts them."""
        times = sorted(r.seconds for r in self.results)
        if not times:
            return None
        return round(times[max(0, math.ceil(0.95 * len(times)) - 1)], 1)

    def to_json(self) -> dict[str, Any]:
        return {
            "mutants": [{k: v for k, v in asdict(r).items()
                         if k in ("name", "family", "found", "seconds", "claim", "part")
                         or (k == "unplanted" and v)}
                        for r in self.results],
            "found": self.found,
            "total": len(self.results),
            "median_seconds": self.median_seconds(),
            "median_found_seconds": self.median_found_seconds(),
            "p95_seconds": self.p95_seconds(),
            "minutes_per_mutant": self.minutes_per_mutant,
            "seed": self.seed,
            "solvers": list(self.solvers),
            "jobs": self.jobs,
        }

    def summary(self) -> str:
        width = max((len(r.name) for r in self.results), default=4)
        fam = max((len(r.family) for r in self.results), default=6)
        lines = [f"{'mutant':<{width}}  {'family':<{fam}}  found  seconds  claim"]
        for r in self.results:
            claim = f"{r.claim} ({r.part})" if r.found else "-"
            lines.append(f"{r.name:<{width}}  {r.family:<{fam}}  "
                         f"{'yes' if r.found else 'NO':<5}  {r.seconds:7.1f}  {claim}")
        lines += [f"WARNING: the {r.name} run found a discrepancy that shows without the "
                  f"mutant (a bug of the encoding itself): {r.unplanted}"
                  for r in self.results if r.unplanted]
        median, found = self.median_seconds(), self.median_found_seconds()
        lines.append(f"found {self.found}/{len(self.results)} mutants; median time to find "
                     f"{'-' if median is None else f'{median:.1f} s'} (a mutant not found "
                     f"counts as its budget), p95 "
                     f"{'-' if median is None else f'{self.p95_seconds():.1f} s'}; median "
                     f"over those found {'-' if found is None else f'{found:.1f} s'} "
                     f"(budget {self.minutes_per_mutant:g} min each, seed {self.seed}, "
                     f"{', '.join(self.solvers)}, {self.jobs} worker"
                     f"{'s' if self.jobs > 1 else ''} each)")
        return "\n".join(lines)


def run_mutants(names: Sequence[str] | None = None, *, minutes_per_mutant: float = 2.0,
                seed: int = 0, solvers: tuple[str, ...] = ("z3",),
                out_dir: str | Path = "spotit-fuzz",
                progress: Callable[[str], None] | None = None, jobs: int = 1
                ) -> MutationReport:
    """Fuzz against each mutant in ``names`` (default: all), in turn, each fuzz in
    ``jobs`` worker processes as ``spotit fuzz --jobs`` runs (the first finding ends
    them all). A mutant whose run fails costs that mutant only (not found, with the
    reason)."""
    names = list(names) if names else list(MUTANTS)
    unknown = [n for n in names if n not in MUTANTS]
    if unknown:
        raise KeyError(f"unknown mutant(s): {', '.join(unknown)}")
    report = MutationReport(seed=seed, minutes_per_mutant=minutes_per_mutant, solvers=solvers,
                            jobs=jobs)
    for name in names:
        try:
            result = one_mutant(name, minutes_per_mutant, seed, solvers, out_dir, jobs)
        except Exception as e:  # a finding about the harness, not the mutant
            result = MutantResult(name, MUTANTS[name].family, False, minutes_per_mutant * 60,
                                  detail=f"the run failed: {type(e).__name__}: {e}")
        report.results.append(result)
        if progress is not None:
            progress(f"{name}: {'found' if result.found else 'NOT found'} after "
                     f"{result.seconds:.1f} s" + (f" by {result.claim} ({result.part}): "
                                                   f"{result.detail[:200]}"
                                                   if result.found else ""))
    return report


def one_mutant(name: str, minutes_per_mutant: float, seed: int, solvers: tuple[str, ...],
               out_dir: str | Path, jobs: int = 1) -> MutantResult:
    """The fuzz against one mutant, until its first wrong answer or the budget."""
    out = Path(out_dir) / "mutants" / name
    with planting(name) as mutant:
        if jobs <= 1:
            run = fuzz(minutes=minutes_per_mutant, seed=seed, solvers=solvers, out_dir=out,
                       first_only=True)
        else:
            found = out / ".found"  # the first worker to find it ends the others
            out.mkdir(parents=True, exist_ok=True)
            found.unlink(missing_ok=True)
            run = fuzz_in_parallel(jobs=jobs, minutes=minutes_per_mutant, seed=seed,
                                   solvers=solvers, out_dir=out, first_only=True,
                                   stop_file=found, mutant=name)
            found.unlink(missing_ok=True)
    first = next((d for d in run.discrepancies if d.kind == "divergence"), None)
    if first is not None and first.reproducer and \
            replay(first.reproducer, first.solver).kind == "divergence":
        return MutantResult(name, mutant.family, False, minutes_per_mutant * 60,
                            detail=f"without the mutant too: {first.detail}",
                            unplanted=first.reproducer)
    if first is None:
        crash = run.discrepancies[0].detail if run.discrepancies else ""
        return MutantResult(name, mutant.family, False,
                            round(min(run.seconds, minutes_per_mutant * 60), 1),
                            detail=f"crash: {crash}" if crash else "")
    return MutantResult(name, mutant.family, True, round(run.first_found or 0.0, 1),
                        CLAIMS.get(first.part, first.part), first.part, first.detail,
                        first.reproducer)
