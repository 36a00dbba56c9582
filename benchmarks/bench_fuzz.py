"""Checks per second of ``spotit fuzz``'s three claims: Thm 1, Thm 2, query pairs.

Plain script, not a test: ``python benchmarks/bench_fuzz.py [--cases 300] [--repeats 3]``.
``--part thm1-table`` is the fuzzer's Thm 1 today (every expression on every row of a
case); ``thm1`` and ``thm1-rows`` are how earlier checkouts ran it. ``pairs-both`` is the
fuzzer's end-to-end part with ``--solver both``: each pair's verifier run with z3,
cross-examined by cvc5, at the fuzzer's budget per run (``PAIR_TIMEOUT``); its
``verdicts`` count the timeouts (inconclusive pairs). ``relations`` and ``windows`` are
Thm 1 on queries and window calls over pinned tables of a few rows, at the fuzzer's
2 s per check.
The cases are generated once with Hypothesis (fixed seed; generation is timed on its
own), then every check runs ``--repeats`` times; the median rate is printed as
checks/s. It only uses names that older checkouts have too, so the same command run
with ``PYTHONPATH=<another checkout>`` gives comparable figures.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from spotit.proofs.fuzz import EXPRESSION_KINDS, SEMANTICS, _pinned
from spotit.proofs.generators import (
    DATA_LEVELS,
    FUZZ_COLUMNS,
    expressions,
    fuzz_rows,
    related_texts,
    table_pairs,
)
from spotit.proofs.pinned import check_pinned
from spotit.proofs.queries import check_query_pair, query_pairs
from spotit.proofs.tables import TableCase, check_tables


def generate(strategy: st.SearchStrategy, n: int, seed: int) -> list:
    """``n`` examples of ``strategy``, the same ones for the same seed."""
    out: list = []

    @hypothesis_seed(seed)
    @settings(max_examples=n, database=None, deadline=None, phases=(Phase.generate,),
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(case: Any) -> None:
        out.append(case)

    collect()
    return out[:n]


def thm1_strategy() -> st.SearchStrategy:
    """The fuzzer's expression cases: (expression, row, data level)."""
    return st.sampled_from(DATA_LEVELS).flatmap(lambda data: fuzz_rows(data).flatmap(
        lambda row: st.tuples(
            st.sampled_from(EXPRESSION_KINDS).flatmap(
                lambda k: expressions(k, 3, None, related_texts(FUZZ_COLUMNS, row))),
            st.just(row), st.just(data))))


def thm1(case: tuple, solver: str, timeout: float) -> Any:
    expr, row, data = case
    return check_pinned(_pinned(row, expr, data), solver, timeout)


def thm1_rows_strategy() -> st.SearchStrategy:
    """The fuzzer's expression cases since batching: (expressions, row, data level)."""
    from spotit.proofs.fuzz import EXPRESSIONS_PER_ROW

    return st.sampled_from(DATA_LEVELS).flatmap(lambda data: fuzz_rows(data).flatmap(
        lambda row: st.tuples(
            st.lists(st.sampled_from(EXPRESSION_KINDS).flatmap(
                lambda k: expressions(k, 3, None, related_texts(FUZZ_COLUMNS, row))),
                min_size=EXPRESSIONS_PER_ROW, max_size=EXPRESSIONS_PER_ROW),
            st.just(row), st.just(data))))


class _Batch(list):
    """The outcomes of one row's expressions; counted as that many checks."""

    kind = "batch"
    path = "batch"


def thm1_rows(case: tuple, solver: str, timeout: float) -> Any:
    from spotit.proofs.pinned import check_pinned_batch

    exprs, row, data = case
    exprs = list(dict.fromkeys(exprs))  # as the fuzzer does: a repeat is the same check
    return _Batch(check_pinned_batch(_pinned(row, exprs[0], data), exprs, solver, timeout))


def thm1_table_strategy() -> st.SearchStrategy:
    """The fuzzer's expression cases since compiled encodings: (expressions, rows, data
    level), every expression checked on every row."""
    from spotit.proofs.fuzz import EXPRESSIONS_PER_ROW, ROWS_PER_CASE
    from spotit.proofs.generators import rows_related

    return st.sampled_from(DATA_LEVELS).flatmap(lambda data: st.lists(
        fuzz_rows(data), min_size=ROWS_PER_CASE, max_size=ROWS_PER_CASE).flatmap(
        lambda rows: st.tuples(
            st.lists(st.sampled_from(EXPRESSION_KINDS).flatmap(
                lambda k: expressions(k, 3, None, rows_related(rows))),
                min_size=EXPRESSIONS_PER_ROW, max_size=EXPRESSIONS_PER_ROW),
            st.just(rows), st.just(data))))


def thm1_table(case: tuple, solver: str, timeout: float) -> Any:
    from spotit.proofs.pinned_rows import check_pinned_rows

    exprs, rows, data = case
    exprs = list(dict.fromkeys(exprs))
    table = check_pinned_rows(_pinned(rows[0], exprs[0], data), rows, exprs, solver, timeout)
    return _Batch(o for outcomes in table for o in outcomes)


def thm2(case: tuple, solver: str, timeout: float) -> Any:
    (width, r1, a1, r2, a2), semantics = case
    return check_tables(TableCase(width, tuple(r1), tuple(r2), tuple(a1), tuple(a2),
                                  semantics), solver, timeout)


def pair(case: tuple, solver: str, timeout: float) -> Any:
    ddl, gold, pred = case
    return check_query_pair(gold, pred, solver, 2, ddl=ddl, timeout=timeout)


def pair_both(case: tuple, solver: str, timeout: float) -> Any:
    """A pair as ``spotit fuzz --solver both`` checks it: ``solver`` cross-examined by
    the other, with the fuzz's own budget per verifier run (``timeout`` unused)."""
    from spotit.proofs import fuzz

    ddl, gold, pred = case
    other = "cvc5" if solver == "z3" else "z3"
    return check_query_pair(gold, pred, solver, fuzz.PAIR_BOUND, ddl=ddl, cross=(other,),
                            timeout=fuzz.PAIR_TIMEOUT)


def relation(case: tuple, solver: str, timeout: float) -> Any:
    """A query on a pinned table of two to four rows (Thm 1; spotit.proofs.relations)."""
    from spotit.proofs.relations import QueryCase, check_query

    rows, sql = case
    return check_query(QueryCase(tuple(rows), sql), solver, timeout)


def window(case: tuple, solver: str, timeout: float) -> Any:
    """A window call on a pinned table (Thm 1; spotit.proofs.windows)."""
    from spotit.proofs.windows import WindowCase, check_window

    rows, call = case
    return check_window(WindowCase(tuple(rows), call), solver, timeout)


def relation_strategy() -> st.SearchStrategy:
    from spotit.proofs.relations import query_cases

    return query_cases()


def window_strategy() -> st.SearchStrategy:
    from spotit.proofs.generators import window_calls, window_rows

    return st.tuples(window_rows(), window_calls())


PARTS: dict[str, tuple[Callable[[], st.SearchStrategy],
                       Callable[[tuple, str, float], Any]]] = {
    "thm1": (thm1_strategy, thm1),
    "thm1-rows": (thm1_rows_strategy, thm1_rows),  # checkouts with check_pinned_batch
    "thm1-table": (thm1_table_strategy, thm1_table),  # checkouts with check_pinned_rows
    "thm2": (lambda: st.tuples(table_pairs(), st.sampled_from(SEMANTICS)), thm2),
    "pairs": (query_pairs, pair),
    "pairs-both": (query_pairs, pair_both),
    "relations": (relation_strategy, relation),  # queries on pinned tables
    "windows": (window_strategy, window),
}


VERDICTS = ("ok", "divergence", "crash")


def path_of(outcome: Any) -> str:
    """How an outcome was decided (older checkouts, query pairs: the solver)."""
    return getattr(outcome, "path", "solver")


def measure(part: str, cases: int, repeats: int, seed: int, solver: str, timeout: float
            ) -> dict[str, Any]:
    make, check = PARTS[part]
    start = time.perf_counter()
    examples = generate(make(), cases, seed)
    generation = time.perf_counter() - start
    rates, verdict_rates, cpu_rates = [], [], []
    kinds: Counter[str] = Counter()
    paths: Counter[str] = Counter()
    seconds: Counter[str] = Counter()  # time per path, last run
    for _ in range(repeats):
        outcomes = []
        seconds = Counter()
        cpu = time.process_time()  # solver threads included: steadier on a busy machine
        for case in examples:
            t = time.perf_counter()
            got = check(case, solver, timeout)
            dt = time.perf_counter() - t
            for o in got if isinstance(got, _Batch) else [got]:  # a row: its expressions
                outcomes.append(o)
                seconds[path_of(o)] += dt / (len(got) if isinstance(got, _Batch) else 1)
        rates.append(len(outcomes) / sum(seconds.values()))
        cpu_rates.append(len(outcomes) / (time.process_time() - cpu))
        # what compares SQLite with the encoding (not skipped, unsupported, timed out)
        verdicts = sum(getattr(o, "kind", "ok") in VERDICTS for o in outcomes)
        verdict_rates.append(verdicts / sum(seconds.values()))
        kinds = Counter(o.kind for o in outcomes)
        verdicts_seen = Counter(getattr(o, "verdict", "") for o in outcomes)
        paths = Counter(path_of(o) for o in outcomes)
    return {"part": part, "cases": len(outcomes), "checks_per_s": round(
        statistics.median(rates), 1), "runs": [round(r, 1) for r in rates],
        "checks_per_cpu_s": round(statistics.median(cpu_rates), 2),
        "verdicts_per_s": round(statistics.median(verdict_rates), 1),
        "generated_per_s": round(len(examples) / generation, 1), "kinds": dict(kinds),
        "verdicts": dict(verdicts_seen), "paths": dict(paths), "per_path_checks_per_s": {
            p: round(paths[p] / seconds[p], 1) for p in paths if seconds[p] > 0}}


def fuzz_timeout(part: str) -> float:
    """The measured checkout's own budget per solver call for ``part``."""
    from spotit.proofs import fuzz

    default = getattr(fuzz, "SOLVER_TIMEOUT", 4.0)
    if part.startswith("thm1"):
        return getattr(fuzz, "EXPRESSION_SOLVER_TIMEOUT", default)
    return default


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=[*PARTS, "all"], default="all")
    ap.add_argument("--cases", type=int, default=300, help="Thm 1 cases (Thm 2: same; "
                    "query pairs: a tenth)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--solver", default="z3")
    ap.add_argument("--timeout", type=float, default=None,
                    help="seconds per solver call (default: the measured checkout's own "
                         "for the part: EXPRESSION_SOLVER_TIMEOUT for Thm 1 expressions, "
                         "else SOLVER_TIMEOUT)")
    ap.add_argument("--json", action="store_true", help="one JSON object per part")
    args = ap.parse_args()
    for part in PARTS if args.part == "all" else (args.part,):
        n = max(1, args.cases // 10) if part.startswith("pairs") else args.cases
        if part == "thm1-rows":
            n = max(1, args.cases // 12)  # rows of 12 expressions: as many checks as thm1
        if part == "thm1-table":
            from spotit.proofs.fuzz import CHECKS_PER_CASE

            n = max(1, args.cases // CHECKS_PER_CASE)  # as many checks as thm1
        res = measure(part, n, args.repeats, args.seed, args.solver,
                      args.timeout if args.timeout is not None else fuzz_timeout(part))
        if args.json:
            print(json.dumps(res))
            continue
        print(f"{part:6s} {res['checks_per_s']:8.1f} checks/s ({res['checks_per_cpu_s']} per CPU "
              f"second), {res['verdicts_per_s']} with a "
              f"verdict (median of {res['runs']}; "
              f"{res['cases']} cases, generated at {res['generated_per_s']}/s) "
              f"outcomes {res['kinds']}; verdicts {res['verdicts']}; paths {res['paths']}, "
              f"checks/s by path "
              f"{res['per_path_checks_per_s']}")


if __name__ == "__main__":
    main()
