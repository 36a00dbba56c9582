"""Time the gold audit beside the plain evaluation it audits, on the same machine and in
the same run, and (``--explain``) the evaluation with explanations.

Plain script, not a test::

    python benchmarks/bench_audit.py [--limit N] [--bound 5] [--timeout 60] [--jobs 2]
        [--out DIR] [--explain] [--dev dev.json] [--json out.json]

Inputs: BIRD dev and every prediction file in ``../shared/data/bird/predictions`` (or
``$SPOTIT_BIRD_DIR``); ``--dev`` swaps in another dev file with the same question ids
(an older release's gold, say). Steps, each on a fresh results file in ``--out``:

1. ``spotit evaluate`` (plain): seconds;
2. ``spotit audit`` on that file: seconds, checks run, explanation checks, findings;
3. with ``--explain``: ``spotit evaluate --explain`` on another fresh file: seconds.

Printed: the seconds of each step and the ratios audit / evaluate and
evaluate --explain / evaluate. These machines are noisy: compare ratios from one run.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from spotit.experiments.audit import audit, summarize
from spotit.experiments.runners import EvaluationSettings, run_evaluation

ROOT = Path(__file__).resolve().parent.parent
BIRD = Path(os.environ.get("SPOTIT_BIRD_DIR", ROOT.parent / "shared" / "data" / "bird"))


def systems() -> dict[str, Path]:
    return {p.stem: p for p in sorted((BIRD / "predictions").iterdir())}


def timed_evaluation(results: Path, dev: Path, args, explain: bool = False):
    results.unlink(missing_ok=True)
    for suffix in ("-wal", "-shm"):
        Path(str(results) + suffix).unlink(missing_ok=True)
    settings = EvaluationSettings("bird", bound=args.bound, timeout=args.timeout,
                                  explain=explain)
    start = time.monotonic()
    store, run_id = run_evaluation(benchmark="bird", dev=dev, tables=BIRD / "dev_tables.json",
                                   predictions=systems(), results=results,
                                   limit=args.limit, settings=settings, workers=args.jobs)
    return store, run_id, time.monotonic() - start


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", type=int, help="the first N questions (default: all)")
    ap.add_argument("--bound", type=int, default=5)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out", default="bench-audit", help="directory for the results files")
    ap.add_argument("--dev", type=Path, default=BIRD / "dev.json")
    ap.add_argument("--explain", action="store_true",
                    help="also time evaluate --explain on a fresh results file")
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args(argv)
    if not (BIRD / "dev.json").exists():
        print(f"no BIRD data in {BIRD}: nothing to measure", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    figures: dict = {"systems": sorted(systems()), "limit": args.limit, "bound": args.bound,
                     "timeout": args.timeout, "jobs": args.jobs, "dev": str(args.dev)}
    store, run_id, plain = timed_evaluation(out / "plain.sqlite", args.dev, args)
    figures["evaluate_seconds"] = round(plain, 1)
    print(f"evaluate: {plain:.1f} s", flush=True)
    start = time.monotonic()
    findings = audit(store, run_id=run_id, workers=args.jobs)
    audit_s = time.monotonic() - start
    settings, _ = store.audit(run_id)
    store.close()
    figures.update({"audit_seconds": round(audit_s, 1),
                    "audit_over_evaluate": round(audit_s / plain, 3),
                    "audit": settings.get("summary"), "findings": summarize(findings)})
    print(f"audit: {audit_s:.1f} s ({audit_s / plain:.2f} x evaluate); "
          f"{settings['summary']}", flush=True)
    if args.explain:
        store, _, explained = timed_evaluation(out / "explain.sqlite", args.dev, args, True)
        store.close()
        figures.update({"evaluate_explain_seconds": round(explained, 1),
                        "explain_over_evaluate": round(explained / plain, 3)})
        print(f"evaluate --explain: {explained:.1f} s ({explained / plain:.2f} x evaluate)")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
