"""Time SpotIt on a fixed sample of real (gold, prediction) pairs, and the random tester
alone on the same pairs as the baseline.

Plain script, not a test::

    python benchmarks/bench_pairs.py [--per-system 100] [--bound 5] [--timeout 60]
        [--solver z3 --solver cvc5] [--jobs 2] [--seed 0] [--system STEM ...]
        [--json out.json] [--pairs-out pairs.jsonl] [--no-random-baseline]

The sample: ``--per-system`` questions drawn with ``--seed`` from BIRD dev in
``../shared/data/bird`` (or ``$SPOTIT_BIRD_DIR``), the same questions for each of its
prediction files; without that data, the hand-checked pairs of
``tests/fixtures/equiv`` (a synthetic stand-in, so the script always runs). Each pair
runs as ``spotit evaluate`` runs it (``runners.check_pair`` in worker processes with a
hard limit). Printed per solver: verdict counts, median and p95 seconds overall and
per verdict, timeouts, the shares proved for every database (canonical form, one row
per table),
pairs per minute per core; then how many pairs the random tester alone refutes given
the same time per pair. Quote ratios: the machines are noisy.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

from spotit.experiments.batch import Task
from spotit.experiments.inputs import Prediction, Question
from spotit.experiments.runners import PairJob, check_pair, run_tasks

ROOT = Path(__file__).resolve().parent.parent
BIRD = Path(os.environ.get("SPOTIT_BIRD_DIR", ROOT.parent / "shared" / "data" / "bird"))


def bird_sample(per_system: int, seed: int, systems: list[str] | None = None
                ) -> list[tuple[str, Question, Prediction, str]]:
    """(system, question, prediction, ddl) for the sampled questions of every system
    (or of ``systems``, by prediction file stem)."""
    from spotit.experiments.inputs import load_benchmark, load_predictions

    bench = load_benchmark("bird", BIRD / "dev.json", BIRD / "dev_tables.json")
    chosen = random.Random(seed).sample(bench.questions, min(per_system,
                                                              len(bench.questions)))
    out = []
    for path in sorted((BIRD / "predictions").iterdir()):
        if systems and path.stem not in systems:
            continue
        preds = load_predictions(path, bench)
        for q in chosen:
            p = preds[q.question_id]
            if p.sql is not None:
                out.append((path.stem, q, p, bench.schema(q.db_id).ddl))
    return out


def fixture_sample() -> list[tuple[str, Question, Prediction, str]]:
    sys.path.insert(0, str(ROOT))
    from tests.fixtures import FIXTURES, load_pairs

    out = []
    for path in sorted((FIXTURES / "equiv").glob("*.sql")):
        for i, pair in enumerate(load_pairs(path.name)):
            q = Question(f"{path.stem}-{i}", pair.schema, pair.gold, pair.title,
                         semantics=pair.semantics)
            out.append(("fixtures", q, Prediction(q.question_id, pair.pred), pair.schema_ddl))
    return out


def probe_pair(ddl: str, gold: str, pred: str, semantics: str, seconds: float) -> dict:
    """The random tester alone: random small databases for ``seconds``."""
    from spotit.encodings.equivalence import Semantics
    from spotit.experiments.runners import _schema
    from spotit.probe import probe

    found = probe(_schema(ddl), gold, pred, Semantics(semantics), trials=10**9,
                  seconds=seconds)
    return {"refuted": found is not None}


def quantile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[round(q * 100) - 1]


def summarize(outs: list[dict], timeout: float, wall: float, jobs: int) -> dict:
    secs = [o.get("seconds") or timeout for o in outs]
    by_verdict: dict[str, list[float]] = {}
    for o, s in zip(outs, secs, strict=True):
        by_verdict.setdefault(o.get("verdict", "error"), []).append(s)
    return {
        "pairs": len(outs),
        "verdicts": dict(Counter(o.get("verdict", "error") for o in outs)),
        "median_s": quantile(secs, 0.5), "p95_s": quantile(secs, 0.95),
        "per_verdict": {v: {"median_s": quantile(s, 0.5), "p95_s": quantile(s, 0.95)}
                        for v, s in sorted(by_verdict.items())},
        "timeout_share": sum(o.get("verdict") == "timeout" for o in outs) / max(1, len(outs)),
        "canonical_share": sum((o.get("result") or {}).get("proof") == "canonical form"
                               for o in outs) / max(1, len(outs)),
        "one_row_share": sum((o.get("result") or {}).get("proof") == "one row per table"
                             for o in outs) / max(1, len(outs)),
        "wall_s": wall,
        "pairs_per_minute_per_core": len(outs) / wall * 60 / jobs if wall else None,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--per-system", type=int, default=100)
    ap.add_argument("--bound", type=int, default=5)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--solver", action="append", choices=["z3", "cvc5"])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-random-baseline", action="store_true")
    ap.add_argument("--system", action="append",
                    help="only this prediction file (its stem; repeatable)")
    ap.add_argument("--json", help="also write the figures to this file")
    ap.add_argument("--pairs-out", help="also write one JSON line per pair and solver "
                    "(key, verdict, seconds, proof, reason) to this file")
    args = ap.parse_args(argv)

    sample = (bird_sample(args.per_system, args.seed, args.system) if (BIRD / "dev.json").exists()
              else fixture_sample())
    source = "BIRD dev" if (BIRD / "dev.json").exists() else "tests/fixtures/equiv"
    print(f"{len(sample)} pairs from {source}, K = {args.bound}, {args.timeout:g} s per "
          f"pair, {args.jobs} jobs", flush=True)
    report: dict = {"source": source, "pairs": len(sample), "bound": args.bound,
                    "timeout": args.timeout, "jobs": args.jobs, "solvers": {}}
    hard = args.timeout + 30.0
    spotit_seconds: dict[str, float] = {}
    for solver in args.solver or ["z3"]:
        settings = {"benchmark": "bird", "bound": args.bound, "solver": solver,
                    "timeout": args.timeout, "probe_trials": 300,
                    "now": "2024-01-01 00:00:00", "ex_time_limit": 30.0}
        jobs = [PairJob(f"{system}/{q.question_id}", system, q, p, ddl, q.semantics,
                        settings=settings) for system, q, p, ddl in sample]
        start = time.monotonic()
        outs = dict(run_tasks([Task(j.key, check_pair, (j,), hard) for j in jobs],
                              args.jobs, 8192))
        wall = time.monotonic() - start
        ordered = [outs[j.key] for j in jobs]
        if args.pairs_out:
            with open(args.pairs_out, "a") as fh:
                for j, o in zip(jobs, ordered, strict=True):
                    fh.write(json.dumps({"key": j.key, "solver": solver, **{
                        f: o.get(f) for f in ("verdict", "seconds", "reason", "proven_bound")},
                        "proof": (o.get("result") or {}).get("proof")}) + "\n")
        report["solvers"][solver] = summary = summarize(ordered, args.timeout, wall, args.jobs)
        if solver == (args.solver or ["z3"])[0]:
            spotit_seconds = {j.key: outs[j.key].get("seconds") or args.timeout for j in jobs}
            refuted = {j.key for j in jobs if outs[j.key].get("verdict") == "not_equivalent"}
        print(f"\n{solver}: {summary['pairs']} pairs in {wall:.0f} s "
              f"({summary['pairs_per_minute_per_core']:.1f} pairs/min/core)")
        print(f"  median {summary['median_s']:.3f} s, p95 {summary['p95_s']:.3f} s, "
              f"timeouts {summary['timeout_share']:.1%}, proved for every database: by "
              f"canonical form {summary['canonical_share']:.1%}, by one row per table "
              f"{summary['one_row_share']:.1%}")
        for verdict, n in sorted(summary["verdicts"].items()):
            pv = summary["per_verdict"][verdict]
            print(f"  {verdict:15} {n:5}  median {pv['median_s']:.3f} s  p95 {pv['p95_s']:.3f} s")
    if not args.no_random_baseline:
        tasks = [Task(f"{system}/{q.question_id}", probe_pair,
                      (ddl, q.gold, p.sql, q.semantics,
                       max(0.5, spotit_seconds[f"{system}/{q.question_id}"])), hard)
                 for system, q, p, ddl in sample]
        outs = dict(run_tasks(tasks, args.jobs, 8192))
        random_refuted = {k for k, o in outs.items() if o.get("refuted")}
        report["random_baseline"] = {
            "refuted": len(random_refuted), "spotit_refuted": len(refuted),
            "random_only": sorted(random_refuted - refuted),
            "spotit_only": len(refuted - random_refuted)}
        print(f"\nrandom tester alone, same seconds per pair: refutes {len(random_refuted)}; "
              f"SpotIt refutes {len(refuted)} ({len(refuted - random_refuted)} that random "
              f"does not, {len(random_refuted - refuted)} the other way)")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
