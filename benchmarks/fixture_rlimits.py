"""How much of each solver's deterministic resource counter the hand-derived pairs use.

Plain script, not a test::

    python benchmarks/fixture_rlimits.py [--solver z3] [--solver cvc5] [--match TEXT]
        [--timeout 60] [--jobs 2] [--json out.json] [--no-scope]
    python benchmarks/fixture_rlimits.py --tests NODEID...

Every pair of ``tests/fixtures/equiv/*.sql`` is checked as
``tests/test_equivalence_fixtures.py`` checks it with the solver alone
(``probe_trials=0``), and every solver call of the check is measured: z3's statistic
``rlimit count`` (the unit of its ``rlimit`` parameter) and cvc5's
``resource::resourceUnitsUsed`` (the unit of its ``rlimit-per`` option), each as the
difference over the call (both counters add up over a session). Printed per pair and
solver: the verdict (``!`` when it is not the expected one), the largest use of one
call, the number of calls and the seconds; then per solver the largest use among the
pairs without ``solver_limit``, which ``RLIMIT`` in tests/solver_limits.py must exceed
at least 5 times. A pair whose check was stopped by the wall clock (``timeout``) is
printed with what it used until then. Calls that the pipeline's own time shares cut
short vary from run to run; the calls a verdict rests on do not.

``--tests`` measures other tests the same way (run in this process, one at a time):
the largest use of one call in each, by solver, for the limits those tests set.

The script first shows (``--no-scope`` skips it) that both limits are per call, not
per session: three checks in one session, each under a limit 1.1 times the largest
call's use, all decide although together they use more.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import z3

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from spotit.pipeline import check
from spotit.solvers import get_solver
from spotit.solvers.cvc5 import Cvc5Session
from spotit.solvers.z3 import Z3Session
from tests.fixtures import FIXTURES, Pair, load_pairs

CVC5_UNITS = "resource::resourceUnitsUsed"
_uses: list[int] = []  # resource use of each solver call since the last reset
_by_solver: dict[str, int] = {}  # the largest use of one call, by solver, since the reset


def _z3_count(session: Z3Session) -> int:
    try:
        return int(session._solver.statistics().get_key_value("rlimit count"))
    except z3.Z3Exception:  # no statistic before the first check
        return 0


def _cvc5_count(session: Cvc5Session) -> int:
    stats = session._solver.getStatistics().get(True, True)
    return int(stats[CVC5_UNITS]["value"]) if CVC5_UNITS in stats else 0


def _measured(cls, count) -> None:
    """``cls._check`` records the resource use of each call in ``_uses``."""
    plain = cls._check

    def _check(self, timeout, assumptions):
        before = count(self)
        try:
            return plain(self, timeout, assumptions)
        finally:
            used = count(self) - before
            _uses.append(used)
            _by_solver[self.solver_name] = max(_by_solver.get(self.solver_name, 0), used)

    cls._check = _check


_measured(Z3Session, _z3_count)
_measured(Cvc5Session, _cvc5_count)


def all_pairs() -> list[Pair]:
    return [p for f in sorted((FIXTURES / "equiv").glob("*.sql")) for p in load_pairs(f.name)]


def measure(pair: Pair, solver: str, timeout: float) -> dict:
    _uses.clear()
    start = time.monotonic()
    res = check(pair.schema_ddl, pair.gold, pair.pred, bound=pair.bound, solver=solver,
                semantics=pair.semantics, timeout=timeout, probe_trials=0)
    return {"pair": str(pair), "solver": solver, "solver_limit": bool(pair.solver_limit),
            "expect": pair.expect, "verdict": res.verdict.value,
            "max_call": max(_uses, default=0), "calls": len(_uses), "total": sum(_uses),
            "seconds": round(time.monotonic() - start, 2)}


def _job(args: tuple[int, str, float]) -> dict:
    index, solver, timeout = args
    return measure(all_pairs()[index], solver, timeout)


def per_call_scope(solver: str) -> str:
    """Three checks in one session, each needing as much work as the first (a scope
    per pigeonhole formula, popped after it), under 1.1 times the largest call's use."""
    n = 7

    def pigeons(tag: str) -> str:
        p = [[f"{tag}p{i}_{j}" for j in range(n)] for i in range(n + 1)]
        decls = "".join(f"(declare-fun {v} () Bool)" for row in p for v in row)
        clauses = [f"(or {' '.join(row)})" for row in p]
        clauses += [f"(not (and {p[i][j]} {p[m][j]}))"
                    for j in range(n) for i in range(n + 1) for m in range(i + 1, n + 1)]
        return decls + "".join(f"(assert {c})" for c in clauses)

    def run(rlimit: int | None) -> tuple[list[str], list[int]]:
        session = get_solver(solver, rlimit=rlimit).open("")
        statuses = []
        _uses.clear()
        for tag in "abc":
            session.push()
            session.add(pigeons(tag))
            statuses.append(session.check().status.value)
            session.pop()
        session.close()
        return statuses, list(_uses)

    statuses, uses = run(None)
    limit = int(max(uses) * 1.1) + 10
    limited, _ = run(limit)
    tiny, _ = run(max(1, min(uses) // 2))
    verdict = "per call" if limited == statuses == ["unsat"] * 3 and "timeout" in tiny else (
        "NOT per call?")
    return (f"{solver}: uses {uses} (together {sum(uses)}); rlimit {limit}: {limited}; "
            f"rlimit {max(1, min(uses) // 2)}: {tiny} -> {verdict}")


class _PerTest:
    """A pytest plugin: the largest use of one solver call in each test."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, str, dict[str, int]]] = []

    def pytest_runtest_setup(self, item) -> None:
        _by_solver.clear()

    def pytest_runtest_logreport(self, report) -> None:
        if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
            self.rows.append((report.nodeid, report.outcome, dict(_by_solver)))


def measure_tests(nodeids: list[str]) -> int:
    """Run tests in this process (``-n 0``) and print each one's largest use of one
    solver call, by solver: for the ``rlimit`` of a test other than the fixtures'."""
    import pytest

    recorder = _PerTest()
    code = pytest.main(["-q", "-n", "0", "-p", "no:cacheprovider", *nodeids],
                       plugins=[recorder])
    print()
    for nodeid, outcome, uses in recorder.rows:
        shown = ", ".join(f"{s} {u:,}" for s, u in sorted(uses.items())) or "no solver call"
        print(f"{outcome:<7} {shown:<32} {nodeid}")
    return int(code)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--solver", action="append", choices=["z3", "cvc5"],
                    help="repeatable (default: both)")
    ap.add_argument("--match", help="only the pairs whose name contains this text")
    ap.add_argument("--timeout", type=float, default=60.0,
                    help="wall-clock seconds per check (default 60; the test's former limit)")
    ap.add_argument("--jobs", type=int, default=2, help="checks run at once (default 2)")
    ap.add_argument("--json", help="also write every measurement to this file")
    ap.add_argument("--no-scope", action="store_true", help="skip the per-call check")
    ap.add_argument("--tests", nargs="+", metavar="NODEID",
                    help="instead of the pairs: run these tests (pytest node ids or files) "
                         "and print each one's largest use of one call, by solver")
    args = ap.parse_args(argv)
    if args.tests:
        return measure_tests(args.tests)
    solvers = args.solver or ["z3", "cvc5"]
    if not args.no_scope:
        for solver in solvers:
            print(per_call_scope(solver))
        print()
    pairs = all_pairs()
    jobs = [(i, s, args.timeout) for i, p in enumerate(pairs) for s in solvers
            if not args.match or args.match in str(p)]
    with ProcessPoolExecutor(args.jobs) as pool:
        rows = []
        for row in pool.map(_job, jobs):
            rows.append(row)
            mark = " " if row["verdict"] == row["expect"] else "!"
            limit = " [solver_limit]" if row["solver_limit"] else ""
            print(f"{row['solver']:<5} {row['max_call']:>12,} {row['calls']:>4} "
                  f"{row['seconds']:>7.2f}s {mark}{row['verdict']:<15} {row['pair']}{limit}",
                  flush=True)
    print()
    for solver in solvers:
        mine = [r for r in rows if r["solver"] == solver]
        plain = [r for r in mine if not r["solver_limit"]]
        if not plain:
            continue
        top = max(plain, key=lambda r: r["max_call"])
        print(f"{solver}: largest use of one call among {len(plain)} pairs without "
              f"solver_limit: {top['max_call']:,} ({top['pair']})")
        gaps = [r for r in mine if r["solver_limit"]]
        if gaps:
            print(f"{solver}: pairs with solver_limit: "
                  + ", ".join(f"{r['max_call']:,} ({r['verdict']})" for r in gaps))
        wrong = [r for r in plain if r["verdict"] != r["expect"]]
        if wrong:
            print(f"{solver}: {len(wrong)} pairs without solver_limit not as expected: "
                  + "; ".join(f"{r['pair']}: {r['verdict']}" for r in wrong))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
