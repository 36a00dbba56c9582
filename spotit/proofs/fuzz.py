"""``spotit fuzz``: check Thm 1, Thm 2 and end-to-end verdicts on generated cases.

The budget (examples or minutes) is spent in rounds; each round runs, for
each solver, a short Hypothesis search per claim with its own seed (the run
is deterministic for a given ``--seed`` and ``--examples``). When a check
fails, Hypothesis shrinks the case to a minimal one, which is written as a
reproducer; the search then goes on with the next seed. Solver answers other
than SAT/UNSAT (timeouts) are counted as inconclusive, never as agreement.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from spotit import mutants
from spotit.canonical import FOREIGN_KEY_RULES
from spotit.proofs import coverage as reach
from spotit.proofs import reproducers
from spotit.proofs.crashes import CRASH
from spotit.proofs.generators import (
    DATA_LEVELS,
    FUZZ_CHECKS,
    FUZZ_COLUMNS,
    FUZZ_GENERATED,
    expressions,
    focused_expressions,
    fuzz_rows,
    rows_related,
    table_pairs,
    window_calls,
    window_rows,
)
from spotit.proofs.pinned import PinnedCase
from spotit.proofs.pinned_rows import check_pinned_rows
from spotit.proofs.queries import check_query_pair, query_pairs
from spotit.proofs.relations import QueryCase, check_query, query_cases
from spotit.proofs.rules import check_rules, rule_queries
from spotit.proofs.seeds import Seed, SeedSet
from spotit.proofs.tables import TableCase, check_tables
from spotit.proofs.windows import WindowCase, check_window

EXPRESSIONS_PER_ROW = 12  # Thm 1 expressions of a case, each checked on every row
ROWS_PER_CASE = 32  # rows of a case's table, each pinned in turn
CHECKS_PER_CASE = EXPRESSIONS_PER_ROW * ROWS_PER_CASE
# "collation": comparisons a column's collation decides (a fixed share of every run:
# a collation bug hides in one comparison of text that differs only in case or spaces)
EXPRESSION_KINDS = ("any", "num", "text", "bool", "date", "collation", "collation")
SEMANTICS = ("set", "bag", "list")
PAIR_BOUND = 2
# examples per Hypothesis search, per claim (a round runs one search of each;
# expressions: four cases of EXPRESSIONS_PER_ROW); table pairs are decided without the
# solver in milliseconds: many per round cost nothing. A search that ends after one
# case spends most of its time in Hypothesis (its first example, the simplest, is one
# checked before). Past its first few draws Hypothesis mutates the cases it has: of
# 400 queries on tables in searches of 20, 239 were distinct, of 50, 169; in searches
# of 5, 311 (the searches cost ~3 ms each)
BATCH = {"expression": 4 * EXPRESSIONS_PER_ROW, "tables": 100, "relation": 5,
         "query_pair": 4, "window": 5, "rules": 20}
FAILURES = ("divergence", CRASH)  # outcomes that are findings
SHRINK_SECONDS = 15.0  # time Hypothesis may spend shrinking one failing case
# per solver call of a Thm 1 case (expression, window call, query on a pinned table):
# most are decided without the solver; the few that reach it and take longer (strings
# under a NOCASE choice, LAG over ties) are inconclusive, and Hypothesis, which varies
# the examples it finds slow, would spend the run on them (at 4 s, three cases in eight
# hundred took two fifths of the expressions' time)
SOLVER_TIMEOUT = 2.0
# the expressions' part alone: of 344 solver calls in 60 cases of 32 rows and 12
# expressions, one that answered took over a second, and the 18 that ran out of time
# took half of the part's clock (windows and queries on tables have a dozen answers
# between 1 and 2 s in 200 cases: they keep SOLVER_TIMEOUT). At 1 s, of 216 calls in
# 90 s of expressions 4 answered after half a second and the 20 that ran out of time
# took 20 s: half a second
EXPRESSION_SOLVER_TIMEOUT = 0.5
# per verifier run of an end-to-end pair: a pair the solvers take longer on is
# inconclusive. At the verifier's own 30 s a handful of such pairs took most of a run;
# at 8 s the 5 % of pairs that met a solver timeout still took 72 % of the time, and at
# 3 s a run checks 1.6-1.8 times the pairs for one more inconclusive in 400
# (benchmarks/bench_fuzz.py --part pairs-both, seeds 3 and 4)
PAIR_TIMEOUT = 3.0
# the share of a timed run's wall clock each part gets (``--minutes``, ``--checks``): most
# planted bugs show in single expressions, checked by the hundred a minute, or in
# queries on pinned tables (NULL groups, ties); end-to-end pairs take seconds each and
# would otherwise take the run. ``--examples`` runs give each part its example count
# instead, in rounds (deterministic). End-to-end pairs got 1.5 times cheaper (the
# witnesses are sought only for what the verifier proved): at 10 % a run checks as many
# as it did at 15 %; table pairs are decided in milliseconds, 5 % is a hundred a minute.
# Queries on pinned tables and window calls got 2.8 and 4.7 times cheaper (the solver
# asked what the pins leave open: determined.Residual); at 14 % and 5 % a minute still
# checks twice the queries and window calls it did at 18 % and 9 %, and the expressions,
# where most planted bugs show, have the rest
TIME_SHARES = {"expression": 0.59, "relation": 0.14, "query_pair": 0.10, "window": 0.05,
               "tables": 0.05, "rules": 0.07}


@dataclass
class Discrepancy:
    part: str
    solver: str
    detail: str
    reproducer: str
    kind: str = "divergence"  # a wrong answer; "crash": an exception inside the case


@dataclass
class FuzzReport:
    expressions_checked: int = 0
    windows_checked: int = 0  # window calls on small pinned tables
    relations_checked: int = 0  # queries on small pinned tables
    tables_checked: int = 0
    query_pairs_checked: int = 0
    rules_checked: int = 0  # queries whose canonical forms were run against SQLite
    rule_cases: dict[str, int] = field(default_factory=dict)  # rule -> (query, semantics)
    inconclusive: int = 0  # solver timeouts or unknowns
    unsupported: int = 0  # expressions outside the fragment
    unsupported_reasons: Counter = field(default_factory=Counter)  # reason -> expressions
    spurious_pairs: int = 0  # query pairs on which the solver offered an unconfirmed model
    discrepancies: list[Discrepancy] = field(default_factory=list)
    seconds: float = 0.0
    solvers: tuple[str, ...] = ()
    seed: int = 0
    jobs: int = 1  # worker processes; worker i ran seed * 1000 + i
    first_found: float | None = None  # seconds into the run of the first wrong answer
    interrupted: bool = False  # stopped by Ctrl-C or SIGTERM: the counts are those done
    # Thm 1 expressions per operator/function and per edge-value class (proofs.coverage)
    coverage: dict[str, Counter] = field(default_factory=dict)
    expected_operators: frozenset[str] = frozenset()  # those a warning names when unused
    seeds: SeedSet | None = None  # a user's seed queries for the end-to-end part
    only: str | None = None  # --only: the operator every checked expression is built on
    # hashes of the cases checked, per (part, solver): a repeat is not checked again
    seen: dict[tuple[str, str], set[int]] = field(default_factory=dict, repr=False)

    @property
    def theorem_checks(self) -> int:
        """Thm 1 and Thm 2 checks: expressions, window calls, queries on tables, table
        pairs (what ``--checks`` counts)."""
        return (self.expressions_checked + self.windows_checked + self.relations_checked
                + self.tables_checked)

    @property
    def crashes(self) -> int:
        return sum(d.kind == CRASH for d in self.discrepancies)

    @property
    def spurious_rate(self) -> float:
        return self.spurious_pairs / self.query_pairs_checked if self.query_pairs_checked else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "expressions_checked": self.expressions_checked,
            "windows_checked": self.windows_checked,
            "relations_checked": self.relations_checked,
            "tables_checked": self.tables_checked,
            "query_pairs_checked": self.query_pairs_checked,
            "rules_checked": self.rules_checked,
            "rule_cases": dict(self.rule_cases),
            "rules_without_cases": self.rules_without_cases(),
            "discrepancies": len(self.discrepancies),
            "crashes": self.crashes,
            "spurious_rate": round(self.spurious_rate, 4),
            "spurious_pairs": self.spurious_pairs,
            "reproducers": [d.reproducer for d in self.discrepancies],
            "discrepancy_details": [d.__dict__ for d in self.discrepancies],
            "inconclusive": self.inconclusive,
            "unsupported": self.unsupported,
            "unsupported_reasons": dict(self.unsupported_reasons.most_common()),
            "seconds": round(self.seconds, 1),
            "solvers": list(self.solvers),
            "seed": self.seed,
            "jobs": self.jobs,
            "first_found": None if self.first_found is None else round(self.first_found, 1),
            "interrupted": self.interrupted,
            "coverage": {k: dict(sorted(v.items())) for k, v in self.coverage.items()},
            "coverage_warnings": self.coverage_warnings(),
            "seeds": self.seeds.to_json() if self.seeds else None,
        }

    def coverage_warnings(self) -> list[str]:
        """Operators and edge-value classes no Thm 1 expression exercised, once the
        expressions ran long enough to expect each (empty otherwise)."""
        if not self.expressions_checked or self.seconds < reach.WARN_AFTER_SECONDS:
            return []
        return reach.warnings(self.coverage, self.expected_operators)

    def rules_without_cases(self) -> list[str]:
        """Registered rules no checked case exercised (empty if the part did not run)."""
        from spotit.canonical import RULES

        if not self.rules_checked:
            return []
        return [r.name for r in RULES if not self.rule_cases.get(r.name)]

    def _workers(self) -> str:
        if self.jobs == 1:
            return ""
        first = self.seed * 1000
        return f" ({self.jobs} workers, seeds {first}..{first + self.jobs - 1})"

    def summary(self) -> str:
        lines = [
            f"expressions checked (Thm 1):   {self.expressions_checked}",
            f"window calls checked (Thm 1):  {self.windows_checked}",
            f"queries on tables (Thm 1):     {self.relations_checked}",
            f"table pairs checked (Thm 2):   {self.tables_checked}",
            f"query pairs checked (end to end): {self.query_pairs_checked}",
            f"queries checked (rules):       {self.rules_checked}",
            f"discrepancies:                 {len(self.discrepancies)}"
            f" ({self.crashes} crashes; {len(self.findings())} distinct)",
            f"spurious rate (query pairs):   {self.spurious_rate:.1%}",
            f"inconclusive (solver timeout): {self.inconclusive}",
            f"unsupported expressions:       {self.unsupported}" + (
                " (" + "; ".join(f"{n} {why}" for why, n in
                                 self.unsupported_reasons.most_common(4)) + ")"
                if self.unsupported_reasons else ""),
            f"solvers: {', '.join(self.solvers)}; seed {self.seed}{self._workers()}; "
            f"{self.seconds:.0f} s",
        ]
        if self.interrupted:
            lines.append("INTERRUPTED: the counts are the checks finished before the stop")
        if self.seeds is not None:
            lines.append(self.seeds.summary())
        for name, n in sorted(self.rule_cases.items()):
            lines.append(f"  rule {name!r}: {n} case(s)")
        for name in self.rules_without_cases():
            lines.append(f"  WARNING: rule {name!r} was exercised by no case")
        edges = self.coverage.get("edge_values")
        if edges:
            lines.append("edge values (Thm 1 expressions): " + ", ".join(
                f"{name} {edges.get(name, 0)}" for name in reach.EDGE_CLASSES))
        ops = self.coverage.get("operators")
        if self.only is not None and self.only != "RULES":
            n = (ops or {}).get(self.only.upper(), 0)
            lines.append(f"--only {self.only}: exercised {n} time(s) in the checked "
                         f"expressions" + ("" if n else " (WARNING: never)"))
        if ops:
            least = sorted(ops.items(), key=lambda kv: (kv[1], kv[0]))[:8]
            lines.append(f"operators exercised: {len(ops)}; least: " + ", ".join(
                f"{name} {n}" for name, n in least))
        for w in self.coverage_warnings():
            lines.append(f"  WARNING: {w}")
        for group in self.findings():
            d = group[0]
            label = "CRASH" if d.kind == CRASH else "DISCREPANCY"
            more = (f" (and {len(group) - 1} more reproducer(s) of it: "
                    + ", ".join(x.reproducer for x in group[1:]) + ")") if len(group) > 1 else ""
            lines.append(f"  {label} [{d.part}, {d.solver}] {d.detail}\n    -> {d.reproducer}"
                         + more)
        return "\n".join(lines)

    def findings(self) -> list[list[Discrepancy]]:
        """The discrepancies grouped by finding: the same claim, kind and message (its
        particulars stripped) are one bug met several times (by several solvers or
        workers); the first reproducer of each group is the one to read."""
        groups: dict[tuple[str, str, str], list[Discrepancy]] = {}
        for d in self.discrepancies:
            groups.setdefault((d.part, d.kind, _reason(d.detail)), []).append(d)
        return list(groups.values())


class _Found(Exception):
    """Raised inside a Hypothesis property to make it shrink and stop."""


class _ShrunkEnough(BaseException):
    """Ends a search whose shrinking has had its time. Not an ``Exception``, so
    Hypothesis passes it on at once: telling it every smaller candidate "passes" left it
    drawing candidates (a quarter second each for a case of 48 expressions) until its own
    five-minute limit."""


SEEN_LIMIT = 1_000_000  # cases remembered per part and solver (then forgotten, and again)


def seen_before(seen: dict[tuple[str, str], set[int]], part: str, solver: str, case: Any
                ) -> bool:
    """Whether this run checked ``case`` already (and remember it now, in ``seen``).
    Each search begins with Hypothesis's simplest example -- the same one every time:
    a row of NULLs, the first seed query -- and repeats others now and then; checked
    again they cost time and add nothing, and are not counted."""
    cases = seen.setdefault((part, solver), set())
    key = hash(repr(case))
    if key in cases:
        return True
    if len(cases) >= SEEN_LIMIT:
        cases.clear()
    cases.add(key)
    return False


def _search(strategy: st.SearchStrategy, check_one: Callable[[Any], tuple[str, Any]],
            examples: int, seed: int, stop_at: float | None, shrink: bool = True,
            fresh: Callable[[Any], bool] | None = None) -> tuple[int, Any, Any]:
    """Run ``check_one`` on up to ``examples`` cases (one more: the simplest, which
    ``fresh`` usually skips); return (checked, case, outcome) where case/outcome are
    the (with ``shrink``, shrunk) failing example, or None. ``fresh``: whether a case
    is worth checking (not one checked before)."""
    state: dict[str, Any] = {"checked": 0, "failure": None, "found_at": None}

    def prop(case):
        failure = state["failure"]
        if failure is not None:
            if case == failure[0]:
                raise _Found  # Hypothesis replays its best failing case at the end
            now = time.monotonic()
            if now - state["found_at"] > SHRINK_SECONDS or (stop_at is not None
                                                             and now > stop_at):
                raise _ShrunkEnough  # (shrinking keeps the run's budget too)
        elif stop_at is not None and time.monotonic() > stop_at:
            return
        if STOP.is_set():
            raise KeyboardInterrupt
        if failure is None and fresh is not None and (state["checked"] >= examples
                                                       or not fresh(case)):
            return  # (while shrinking, a smaller case is checked even if seen)
        state["checked"] += 1
        kind, outcome = check_one(case)
        if STOP.is_set():  # the case was interrupted: its outcome means nothing
            state["checked"] -= 1
            raise KeyboardInterrupt
        if kind in FAILURES:
            state["failure"] = (case, outcome)
            state["found_at"] = state["found_at"] or time.monotonic()
            raise _Found

    test = settings(max_examples=examples + (fresh is not None), database=None, deadline=None,
                    phases=(Phase.generate, Phase.shrink) if shrink else (Phase.generate,),
                    print_blob=False,
                    suppress_health_check=list(HealthCheck))(given(strategy)(prop))
    try:
        hypothesis_seed(seed)(test)()
    except (_Found, _ShrunkEnough):
        pass
    except KeyboardInterrupt:  # the checks done count; the run ends at ``finished``
        request_stop()
        return state["checked"], None, None
    except Exception:  # Hypothesis may call a failure flaky (solver timeouts differ)
        if state["failure"] is None:
            raise
    failure = state["failure"]
    return state["checked"], *(failure if failure else (None, None))


def fuzz(*, examples: int | None = None, minutes: float | None = None,
         checks: int | None = None, seed: int = 0,
         solvers: tuple[str, ...] = ("z3",), only: str | None = None,
         out_dir: str | Path = "spotit-fuzz", progress: Callable[[str], None] | None = None,
         first_only: bool = False, seeds: SeedSet | None = None,
         status: str | Path | None = None,
         on_status: Callable[[dict[str, Any]], None] | None = None,
         stop_file: str | Path | None = None) -> FuzzReport:
    """Fuzz the encoder; stop after ``examples`` per claim and solver, or ``minutes``.

    With ``only`` (an operator or function name) only expressions whose outermost
    operator is that one are checked (Thm 1), and no tables or query pairs;
    ``only="RULES"`` checks the canonical-form rules alone. With ``first_only`` the
    run stops at the first wrong answer (not a crash), unshrunk: the mutation suite
    (:mod:`spotit.proofs.mutation`) times that. ``checks``: stop once this many Thm 1
    and Thm 2 checks are done (``FuzzReport.theorem_checks``), the parts taking their
    usual shares of each round (query pairs and rules included). ``seeds``: end-to-end
    query pairs are mutants of these (a user's queries) instead of the bundled seeds;
    ``only="QUERIES"`` runs the end-to-end part alone. ``status``: a file the counts so
    far are written to every ``STATUS_SECONDS`` (``write_status``); ``on_status`` is
    called with them (a progress bar). ``stop_file``: the run ends (after the case in
    progress) once this file exists, and with ``first_only`` it creates it at its first
    finding: the workers of one mutant's fuzz (``spotit.proofs.mutation``) end together.
    """
    if examples is None and minutes is None and checks is None:
        examples = 100
    STOP.clear()
    watching = _watch(Path(stop_file)) if stop_file is not None else None
    report = FuzzReport(solvers=solvers, seed=seed, seeds=seeds, only=only,
                        expected_operators=frozenset(reach.expected_operators()
                                                     if only is None else ()))
    start = time.monotonic()
    stop_at = start + minutes * 60 if minutes is not None else None
    rules_only = only is not None and only.upper() == ALL_RULES
    queries_only = only is not None and only.upper() == ALL_QUERIES
    window_only = only is not None and (only.upper() == ALL_WINDOWS
                                        or _window_function(only) is not None)
    pairs_wanted = not only or queries_only
    targets = {"expression": 0 if window_only or rules_only or queries_only else examples,
               "tables": 0 if only else examples,
               "relation": 0 if only else examples,
               "query_pair": 0 if not pairs_wanted else (math.ceil(examples / 4) if examples
                                                         else None),
               "window": examples if window_only or not only else 0,
               "rules": examples if rules_only or not only else 0}
    if examples is None:
        targets = {"expression": 0 if window_only or rules_only or queries_only else None,
                   "tables": None if not only else 0,
                   "relation": None if not only else 0,
                   "query_pair": None if pairs_wanted else 0,
                   "window": None if window_only or not only else 0,
                   "rules": None if rules_only or not only else 0}
    # cheapest first (table pairs and queries on pinned tables are mostly decided without
    # the solver): a round's first findings come before its slow parts have run
    parts = ("tables", "relation", "expression", "rules", "window", "query_pair")
    # budget per solver; the rules do not use a solver: they run with the first one
    done = {(solver, part): 0 for solver in solvers for part in parts
            if part != "rules" or solver == solvers[0]}
    runs = dict.fromkeys(done, 0)  # searches run, each with its own seed
    spent = dict.fromkeys(done, 0.0)  # seconds
    timed = examples is None

    def wanted(solver: str, part: str) -> int:
        target = targets[part]
        if target is None:
            return BATCH[part]
        return max(0, min(BATCH[part], target - done[solver, part]))

    def finished() -> bool:
        if STOP.is_set():  # a search ended early on Ctrl-C or SIGTERM (see _search)
            return True
        if stop_at is not None and time.monotonic() > stop_at:
            return True
        if checks is not None and report.theorem_checks >= checks:
            return True
        if first_only and report.first_found is not None:
            return True
        return all(targets[part] is not None and n >= targets[part]
                   for (_, part), n in done.items())

    def run(solver: str, part: str) -> None:
        n = wanted(solver, part)
        run_seed = (seed * 1_000_003 + runs[solver, part] * 101 + _PART_SALT[part]
                    + len(solver))
        began = time.monotonic()
        checked, case, outcome = _run_part(part, solver, n, run_seed, stop_at, only, report,
                                           shrink=not first_only,
                                           seeds=seeds.seeds if seeds else ())
        spent[solver, part] += time.monotonic() - began
        runs[solver, part] += 1
        done[solver, part] += max(checked, 1) if targets[part] is not None else checked
        if case is not None:
            if report.first_found is None and outcome.kind != CRASH:
                report.first_found = time.monotonic() - start
                if first_only and stop_file is not None:
                    Path(stop_file).touch()
            _record(report, part, solver, case, outcome, out_dir)
        report_status()

    last_status = [start]

    def report_status(final: bool = False) -> None:
        now = time.monotonic()
        if status is None and on_status is None:
            return
        if not final and now - last_status[0] < STATUS_SECONDS:
            return
        last_status[0] = now
        report.seconds = now - start
        data = (write_status(status, report, final) if status is not None
                else {**report.to_json(), "finished": final})
        if on_status is not None:
            on_status(data)

    try:  # Ctrl-C, or SIGTERM (the CLI): what was done so far is the report
        round_no = 0
        while not finished():
            if timed:  # the part furthest behind its share of the clock
                active = [k for k in done if wanted(*k) > 0]
                for _ in range(len(active)):  # as many searches as a round has
                    if finished():
                        break
                    run(*min(active, key=lambda k: spent[k] / TIME_SHARES[k[1]]))
            else:
                for key in done:
                    if wanted(*key) > 0 and not finished():
                        run(*key)
            round_no += 1
            if progress is not None:
                of = f" of {checks}" if checks is not None else ""
                progress(f"round {round_no}: {report.theorem_checks}{of} Thm 1/2 checks: "
                         f"{report.expressions_checked} expressions, "
                         f"{report.windows_checked} window calls, "
                         f"{report.relations_checked} queries on tables, "
                         f"{report.tables_checked} table pairs, {report.query_pairs_checked} "
                         f"query pairs, {report.rules_checked} rule queries, "
                         f"{len(report.discrepancies)} discrepancies")
    except KeyboardInterrupt:  # one that landed between searches
        request_stop()
    finally:
        if watching is not None:
            watching.set()
    # ended by another worker's finding (stop_file) is not interrupted
    report.interrupted = STOP.is_set() and not (stop_file is not None
                                                and Path(stop_file).exists())
    report.seconds = time.monotonic() - start
    report_status(final=True)
    return report


def fuzz_in_parallel(*, jobs: int, examples: int | None = None, minutes: float | None = None,
                     checks: int | None = None, seed: int = 0,
                     progress: Callable[[str], None] | None = None,
                     status: str | Path | None = None,
                     on_status: Callable[[dict[str, Any]], None] | None = None,
                     **kwargs: Any) -> FuzzReport:
    """``fuzz`` in ``jobs`` worker processes, one seed each (``seed * 1000 + i``), the
    example budget split between them; the report holds the totals. A worker that dies
    is a crash of the harness, and the others' results are kept. While they run, the
    workers' counts (``status``-``i`` files beside ``status``) are summed into
    ``status`` and passed to ``on_status`` every ``STATUS_SECONDS``."""
    from spotit.experiments.batch import Task, run_batch

    if examples is None and minutes is None and checks is None:
        examples = 100
    share = math.ceil(examples / jobs) if examples is not None else None
    checks_share = math.ceil(checks / jobs) if checks is not None else None
    limit = minutes * 60 + 600 if minutes is not None else 7 * 24 * 3600.0
    status = Path(status) if status is not None else None
    worker_status = [status.with_name(f"{status.stem}-{i}{status.suffix}") if status else None
                     for i in range(jobs)]
    for path in worker_status:  # a previous run's, in the same directory
        if path is not None:
            path.unlink(missing_ok=True)
    tasks = [Task(i, _fuzz_worker, ({**kwargs, "examples": share, "minutes": minutes,
                                     "checks": checks_share, "status": worker_status[i],
                                     "seed": seed * 1000 + i},), limit) for i in range(jobs)]

    def empty() -> FuzzReport:
        return FuzzReport(solvers=tuple(kwargs.get("solvers", ("z3",))), seed=seed, jobs=jobs,
                          seeds=kwargs.get("seeds"), only=kwargs.get("only"),
                          expected_operators=frozenset(reach.expected_operators()
                                                       if kwargs.get("only") is None else ()))

    total = empty()
    start = time.monotonic()
    finished: list[tuple[int, dict]] = []

    def collect() -> None:
        for i, out in run_batch(tasks, workers=jobs, memory_mb=None):
            finished.append((i, out))

    def so_far(interrupted: bool = False) -> FuzzReport:
        """The finished workers' reports plus the running workers' last status files
        (after an interrupt, a worker that died of it counts by its status file too)."""
        live = empty()
        done = set()
        for i, out in finished:
            if "report" in out or not interrupted:
                _merge(live, i, seed, out)
                done.add(i)
        for i, path in enumerate(worker_status):
            if i not in done and path is not None and path.exists():
                with contextlib.suppress(OSError, ValueError):  # gone: next time
                    _merge(live, i, seed, {"report": json.loads(path.read_text())})
        live.seconds = time.monotonic() - start
        return live

    runner = threading.Thread(target=collect, name="fuzz-workers", daemon=True)
    runner.start()
    reported = 0
    try:
        while runner.is_alive() or reported < len(finished):
            runner.join(timeout=STATUS_SECONDS)
            for i, out in finished[reported:]:
                _merge(total, i, seed, out)
                if progress is not None and "report" in out:
                    part = out["report"]
                    progress(f"worker {i} (seed {seed * 1000 + i}) done: "
                             f"{part['expressions_checked']} expressions, "
                             f"{part.get('windows_checked', 0)} window calls, "
                             f"{part['tables_checked']} table pairs, "
                             f"{part['query_pairs_checked']} query pairs, "
                             f"{len(part['discrepancy_details'])} discrepancies")
            reported = len(finished)
            if status is not None and runner.is_alive():
                data = write_status(status, so_far(), finished=False)
                if on_status is not None:
                    on_status(data)
    except KeyboardInterrupt:
        # Ctrl-C reaches the workers too (one process group): give them a moment to send
        # their reports; a worker that does not (SIGTERM to this process alone) counts
        # by its status file, and ends when this process does (experiments.batch)
        deadline = time.monotonic() + INTERRUPT_GRACE_SECONDS
        while len(finished) < jobs and time.monotonic() < deadline:
            runner.join(timeout=0.1)
        total = so_far(interrupted=True)
        total.interrupted = True
    total.seconds = time.monotonic() - start
    if status is not None:
        data = write_status(status, total, finished=True)
        if on_status is not None:
            on_status(data)
    return total


def _merge(total: FuzzReport, i: int, seed: int, out: dict[str, Any]) -> None:
    """Add a worker's counts (``FuzzReport.to_json``) to ``total``; a worker that died
    is a crash of the harness."""
    if "report" not in out:
        total.discrepancies.append(Discrepancy(
            "harness", "any", f"worker {i} (seed {seed * 1000 + i}): "
            f"{out.get('reason', 'died')}", "", CRASH))
        return
    part = out["report"]
    total.interrupted |= bool(part.get("interrupted"))
    for name in ("expressions_checked", "windows_checked", "relations_checked",
                 "tables_checked", "query_pairs_checked", "rules_checked",
                 "inconclusive", "unsupported", "spurious_pairs"):
        setattr(total, name, getattr(total, name) + part[name])
    total.unsupported_reasons.update(part.get("unsupported_reasons", {}))
    for rule, n in part["rule_cases"].items():
        total.rule_cases[rule] = total.rule_cases.get(rule, 0) + n
    for kind, counts in part.get("coverage", {}).items():
        total.coverage.setdefault(kind, Counter()).update(counts)
    if part.get("first_found") is not None:
        total.first_found = min(part["first_found"], total.first_found or math.inf)
    total.discrepancies += [Discrepancy(**d) for d in part["discrepancy_details"]]


def _fuzz_worker(kwargs: dict[str, Any]) -> dict[str, Any]:
    """A worker's run; ``mutant`` (named, not left to the environment, which a
    forkserver's children take from when it started) is planted for it."""
    signal.signal(signal.SIGINT, stop_on_signal)  # Ctrl-C reaches the workers too
    kwargs = dict(kwargs)
    mutant = kwargs.pop("mutant", None)
    with mutants.planting(mutant) if mutant else contextlib.nullcontext():
        return {"report": fuzz(**kwargs).to_json()}


STOP_FILE_POLL_SECONDS = 0.2


def _watch(stop_file: Path) -> threading.Event:
    """Stop this process's run (``request_stop``) once ``stop_file`` exists; set the
    event returned to stop watching."""
    done = threading.Event()

    def watch() -> None:
        while not done.wait(STOP_FILE_POLL_SECONDS):
            if stop_file.exists():
                request_stop()
                return

    threading.Thread(target=watch, name="fuzz-stop-file", daemon=True).start()
    return done


STATUS_SECONDS = 2.0  # how often a run rewrites its status file (docs/fuzz.md)
INTERRUPT_GRACE_SECONDS = 3.0  # an interrupted parallel run waits this long for workers

# Set by ``request_stop`` (the CLI's Ctrl-C and SIGTERM handler). The KeyboardInterrupt
# the handler raises can be turned into an ordinary error where it lands (inside a
# callback from C: SQLite's, a solver's); the run checks this too, between cases, and
# discards the case it interrupted.
STOP = threading.Event()


def request_stop() -> None:
    """Ask the run in this process to end after the case in progress."""
    STOP.set()


def stop_on_signal(signum: int, frame: object) -> None:
    """A signal handler (SIGINT, SIGTERM): stop the run, and the case in progress."""
    request_stop()
    raise KeyboardInterrupt(f"signal {signum}")


def write_status(path: str | Path, report: FuzzReport, finished: bool) -> dict[str, Any]:
    """Write ``report``'s counts so far to ``path`` (replaced whole: a reader never
    sees half a file; a killed run leaves its last counts); return them."""
    data = {**report.to_json(), "finished": finished, "updated": time.time()}
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, default=str), encoding="utf-8")
    os.replace(tmp, path)
    return data


_PART_SALT = {"expression": 0, "tables": 1, "query_pair": 2, "window": 3, "rules": 4,
              "relation": 5}


ALL_WINDOWS = "WINDOW"  # --only WINDOW: every window function, nothing else
ALL_RULES = "RULES"  # --only RULES: the canonical-form rules, nothing else
ALL_QUERIES = "QUERIES"  # --only QUERIES: end-to-end query pairs, nothing else


def _window_function(only: str) -> str | None:
    """The window function an ``--only`` name means, if it means one."""
    from spotit.ir import relational as R
    from spotit.proofs.generators import operator_names

    cls, name = operator_names().get(only.upper(), (None, None))
    return name if cls is R.Window else None


def _pinned(row: tuple, expr: str, data: str = "declared") -> PinnedCase:
    return PinnedCase(FUZZ_COLUMNS, row, expr, generated=FUZZ_GENERATED, checks=FUZZ_CHECKS,
                      data=data)


def _tally(report: FuzzReport, outcome):
    """Count a Thm 1 outcome that is not a verdict (a solver timeout, unsupported)."""
    report.inconclusive += outcome.kind == "error"
    report.unsupported += outcome.kind == "unsupported"
    if outcome.kind == "unsupported":
        report.unsupported_reasons[_reason(getattr(outcome, "detail", "") or "")] += 1
    return outcome.kind, outcome


def _reason(detail: str) -> str:
    """An unsupported expression's reason without its particulars (quoted values,
    numbers), so that one cause is counted once."""
    text = re.sub(r"'[^']*'|\d+", "…", detail.splitlines()[0] if detail else "unknown")
    return text[:80]


def _run_part(part: str, solver: str, n: int, run_seed: int, stop_at: float | None,
              only: str | None, report: FuzzReport, shrink: bool = True,
              seeds: tuple[Seed, ...] = ()):
    search = partial(_search, shrink=shrink,
                     fresh=lambda case: not seen_before(report.seen, part, solver, case))

    if part == "expression":
        # the rows first: the expression's literals may be variants of their texts
        # and the data level: a third of the cases hold anything SQLite stores; each
        # case is ROWS_PER_CASE rows and EXPRESSIONS_PER_ROW expressions, one Thm 1
        # check each pair (each expression encoded once: spotit.proofs.pinned_rows)
        strategy = expression_cases(only)
        count = [0]
        expressions_seen = [0]  # what --examples counts: expressions, each on every row

        def one(case):
            exprs, rows, data = case
            exprs = list(dict.fromkeys(exprs))  # a repeat on its rows is the same check
            expressions_seen[0] += len(exprs)
            table = check_pinned_rows(_pinned(rows[0], exprs[0], data), rows, exprs, solver,
                                      EXPRESSION_SOLVER_TIMEOUT)
            for outcomes in table:
                for outcome in outcomes:
                    _tally(report, outcome)
                    if outcome.kind in ("skipped", "unsupported"):
                        continue  # nothing was compared: not a check
                    count[0] += 1
                    reach.count(report.coverage, outcome.operators, outcome.row, outcome.expr)
                    if outcome.kind in FAILURES:
                        return outcome.kind, outcome
            return "ok", None

        _, case, outcome = search(strategy, one, max(1, n // EXPRESSIONS_PER_ROW), run_seed,
                                  stop_at)
        report.expressions_checked += count[0]
        if case is not None:  # the expression that failed, on its row
            case = (outcome.expr, outcome.row, case[2])
        return expressions_seen[0], case, outcome
    if part == "window":
        fname = _window_function(only) if only and only.upper() != ALL_WINDOWS else None
        strategy = st.tuples(window_rows(), window_calls(fname))

        def one_window(case):
            rows, call = case
            return _tally(report, check_window(WindowCase(tuple(rows), call), solver,
                                               SOLVER_TIMEOUT))

        checked, case, outcome = search(strategy, one_window, n, run_seed, stop_at)
        report.windows_checked += checked
        return checked, case, outcome
    if part == "relation":
        def one_query_on_tables(case):
            rows, sql = case
            outcome = check_query(QueryCase(tuple(rows), sql), solver, SOLVER_TIMEOUT)
            return _tally(report, outcome)

        checked, case, outcome = search(query_cases(), one_query_on_tables, n, run_seed,
                                        stop_at)
        report.relations_checked += checked
        return checked, case, outcome
    if part == "tables":
        strategy = st.tuples(table_pairs(), st.sampled_from(SEMANTICS))

        def one(case):
            (width, r1, a1, r2, a2), semantics = case
            outcome = check_tables(TableCase(width, tuple(r1), tuple(r2), tuple(a1),
                                             tuple(a2), semantics), solver)
            report.inconclusive += outcome.kind == "error"
            return outcome.kind, outcome

        checked, case, outcome = search(strategy, one, n, run_seed, stop_at)
        report.tables_checked += checked
        return checked, case, outcome

    if part == "rules":
        def one_query(case):
            ddl, sql = case
            outcome = check_rules(sql, ddl)
            if outcome.kind == "ok" and any(r in FOREIGN_KEY_RULES for rules in
                                            outcome.checked.values() for r in rules):
                # a rule leaned on a foreign key: on databases that break it (as
                # --data sqlite has them) it must not fire, and the query must still
                # agree with whatever the other rules make of it
                again = check_rules(sql, ddl, data="sqlite")
                if again.kind != "ok":
                    outcome = again
            report.rules_checked += bool(outcome.checked)
            for rules in outcome.checked.values():
                for name in rules:
                    report.rule_cases[name] = report.rule_cases.get(name, 0) + 1
            return outcome.kind, outcome

        return search(rule_queries(), one_query, n, run_seed, stop_at)

    def one_pair(case):
        ddl, gold, pred = case
        # with several solvers, each is cross-examined by the others' counterexamples
        others = tuple(x for x in report.solvers if x != solver)
        outcome = check_query_pair(gold, pred, solver, PAIR_BOUND, ddl=ddl, cross=others,
                                   timeout=PAIR_TIMEOUT)
        report.spurious_pairs += outcome.spurious > 0 or outcome.verdict == "spurious"
        report.inconclusive += outcome.verdict == "timeout"
        return outcome.kind, outcome

    checked, case, outcome = search(query_pairs(seeds), one_pair, n, run_seed, stop_at)
    report.query_pairs_checked += checked
    return checked, case, outcome


def expression_cases(only: str | None = None
                     ) -> st.SearchStrategy[tuple[list[str], list[tuple], str]]:
    """A Thm 1 case: (EXPRESSIONS_PER_ROW expressions, ROWS_PER_CASE rows, data level)."""
    return st.sampled_from(DATA_LEVELS).flatmap(lambda data: st.lists(
        fuzz_rows(data), min_size=ROWS_PER_CASE, max_size=ROWS_PER_CASE).flatmap(
        lambda rows: st.tuples(
            st.lists(row_expressions(only, rows_related(rows)),
                     min_size=EXPRESSIONS_PER_ROW, max_size=EXPRESSIONS_PER_ROW),
            st.just(rows), st.just(data))))


def row_expressions(only: str | None, related) -> st.SearchStrategy[str]:
    """The Thm 1 expressions of a row: of each kind, and (without ``only``) three in
    four focused on an operator or function drawn uniformly (``focused_expressions``:
    each operator's edge cases need its share of a run's expressions)."""
    free = st.sampled_from(EXPRESSION_KINDS).flatmap(lambda k: expressions(k, 3, only, related))
    if only is not None:
        return free
    focused = focused_expressions(related)
    return st.one_of(focused, focused, focused, free)


def _record(report: FuzzReport, part: str, solver: str, case, outcome, out_dir) -> None:
    if part == "expression":
        expr, row, level = case
        data = reproducers.expression_case(_pinned(row, expr, level), solver, outcome)
        text = f"{expr} on row {row}" + (" (--data sqlite)" if level == "sqlite" else "")
        wrong = (f"SQLite {outcome.sqlite_value!r}, encoding {outcome.encoded_value!r} "
                 f"({outcome.detail})")
    elif part == "window":
        rows, call = case
        wc = WindowCase(tuple(rows), call)
        data = reproducers.window_case(wc, solver, outcome)
        text = f"{call} on rows {rows}"
        wrong = (f"SQLite {outcome.sqlite_value!r}, encoding {outcome.encoded_value!r} "
                 f"({outcome.detail})")
    elif part == "relation":
        rows, sql = case
        data = reproducers.relation_case(QueryCase(tuple(rows), sql), solver, outcome)
        text = f"{sql} on rows {rows}"
        wrong = (f"SQLite {outcome.sqlite_value!r}, encoding {outcome.encoded_value!r} "
                 f"({outcome.detail})")
    elif part == "rules":
        ddl, sql = case
        data = reproducers.rules_case(sql, ddl, outcome)
        text, wrong = sql, f"{outcome.detail}: {outcome.canonical_sql}"
    elif part == "tables":
        (width, r1, a1, r2, a2), semantics = case
        tc = TableCase(width, tuple(r1), tuple(r2), tuple(a1), tuple(a2), semantics)
        data = reproducers.tables_case(tc, solver, outcome)
        text, wrong = f"{semantics} {r1} vs {r2}", outcome.detail
    else:
        ddl, gold, pred = case
        data = reproducers.query_pair_case(gold, pred, PAIR_BOUND, solver, outcome, ddl)
        text, wrong = f"{gold}  VS  {pred}", outcome.detail
    detail = f"{text}: {outcome.detail if outcome.kind == CRASH else wrong}"
    if mutants.active() is not None:  # a planted bug: the reproducer says which
        data = {**data, "mutant": mutants.active()}
    path = reproducers.write(out_dir, {**data, "kind": outcome.kind})
    report.discrepancies.append(Discrepancy(part, solver, detail, str(path), outcome.kind))
