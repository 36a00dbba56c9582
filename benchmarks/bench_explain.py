"""Time the explanations of refutations (``spotit.explain``) on real pairs, with the
budget ``spotit evaluate --explain`` gives each one, and where their time goes.

Plain script, not a test::

    python benchmarks/bench_explain.py RESULTS [--n 60] [--seed 0] [--bound 5]
        [--json out.json]

``RESULTS``: a results file of a BIRD evaluation (``spotit evaluate --benchmark bird``;
its questions' schemas are read from ``../shared/data/bird`` or ``$SPOTIT_BIRD_DIR``).
``--n`` of its ``not_equivalent`` pairs, shuffled with ``--seed``, are checked again
and explained. Printed per pair: the check's and the explanation's seconds and each
feature's ``needed``; then the totals: the check, the explanations, the random
witnesses, the feature searches (how many, how long), the median and p90 of one
explanation. Compare two runs of it on the same machine, not across machines.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from datetime import datetime
from pathlib import Path

import spotit.explain as explain_module
import spotit.pipeline as pipeline
from spotit.experiments.inputs import load_benchmark
from spotit.experiments.runners import explain_budget
from spotit.experiments.store import ResultsStore

ROOT = Path(__file__).resolve().parent.parent
BIRD = Path(os.environ.get("SPOTIT_BIRD_DIR", ROOT.parent / "shared" / "data" / "bird"))
NOW = datetime(2024, 1, 1)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results")
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--bound", type=int, default=5)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    if not (BIRD / "dev.json").exists():
        print(f"no BIRD data in {BIRD}", file=sys.stderr)
        return 2
    bench = load_benchmark("bird", str(BIRD / "dev.json"), str(BIRD / "dev_tables.json"))
    store = ResultsStore(args.results)
    pairs = sorted((r for r in store.records() if r.verdict == "not_equivalent"),
                   key=lambda r: r.key)
    store.close()
    random.Random(args.seed).shuffle(pairs)
    spent = {"witnesses": 0.0, "searches": 0.0}
    searches = [0]
    real_witnesses, real_check = explain_module._witnesses, pipeline.check

    def witnesses(*a, **k):
        t = time.monotonic()
        try:
            return real_witnesses(*a, **k)
        finally:
            spent["witnesses"] += time.monotonic() - t

    def search(*a, **k):
        searches[0] += 1
        t = time.monotonic()
        try:
            return real_check(*a, **k)
        finally:
            spent["searches"] += time.monotonic() - t

    explain_module._witnesses = witnesses
    checks, explained = [], []
    for r in pairs[:args.n]:
        schema = bench.schema(r.db_id)
        opts = {"bound": args.bound, "solver": "z3", "semantics": "set", "now": NOW}
        t = time.monotonic()
        res = real_check(schema, r.gold, r.pred, timeout=args.timeout, **opts)
        checks.append(time.monotonic() - t)
        pipeline.check = search
        t = time.monotonic()
        try:
            out = explain_module.explain(schema, r.gold, r.pred, res,
                                         seconds=explain_budget(args.timeout, checks[-1]),
                                         **opts)
        finally:
            pipeline.check = real_check
        explained.append(time.monotonic() - t)
        print(r.system, r.question_id, f"{checks[-1]:.2f} s", f"{explained[-1]:.2f} s",
              [(e["feature"], e["needed"]) for e in out], flush=True)
    explained_sorted = sorted(explained)
    figures = {
        "pairs": len(explained), "check_s": round(sum(checks), 1),
        "explain_s": round(sum(explained), 1),
        "witnesses_s": round(spent["witnesses"], 1),
        "feature_searches": searches[0], "feature_searches_s": round(spent["searches"], 1),
        "explain_median_s": round(statistics.median(explained_sorted), 3) if explained else None,
        "explain_p90_s": round(explained_sorted[int(0.9 * len(explained_sorted))], 3)
        if explained else None}
    print(json.dumps(figures, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
