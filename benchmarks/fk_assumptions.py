"""How many ``equivalent`` verdicts of an evaluation lean on a foreign key, and what
they become when no foreign key is assumed (``--data sqlite``: SQLite does not
enforce them unless told to).

Plain script, not a test::

    python benchmarks/fk_assumptions.py RESULTS.sqlite [--run ID] [--timeout 60]
        [--json out.json]

RESULTS: a ``spotit evaluate`` results file run at ``--data declared`` (the default).
Per system: the equivalent verdicts, those that list a foreign key as assumed, those
that *need* one (``assumed[].needed``: the same check without the key does not prove
it), and each of the latter re-checked at ``--data sqlite`` with the run's bound:
the verdicts it gets there, with median and p95 seconds.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import time
from collections import Counter, defaultdict

from spotit import check
from spotit.schema import schema_from_ddl


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results")
    ap.add_argument("--run", type=int, help="run id (default: the latest)")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--json", help="also write the figures here")
    args = ap.parse_args()
    conn = sqlite3.connect(args.results)
    run = args.run or conn.execute("SELECT MAX(run_id) FROM runs").fetchone()[0]
    settings = json.loads(conn.execute("SELECT settings FROM runs WHERE run_id = ?",
                                       (run,)).fetchone()[0])
    ddl = dict(conn.execute("SELECT db_id, ddl FROM run_schemas WHERE run_id = ?", (run,)))
    rows = conn.execute(
        "SELECT p.system, p.question_id, p.db_id, p.gold, p.pred, p.result FROM pairs p "
        "JOIN run_pairs r ON r.key = p.key WHERE r.run_id = ? AND p.verdict = 'equivalent' "
        "AND p.system != '<audit>'", (run,)).fetchall()
    counts: dict[str, Counter] = defaultdict(Counter)
    seconds: list[float] = []
    for system, qid, db, gold, pred, result in rows:
        assumed = json.loads(result or "{}").get("assumed") or []
        counts[system]["equivalent"] += 1
        counts[system]["assumes a key"] += bool(assumed)
        if not any(a.get("needed") for a in assumed):
            continue
        counts[system]["needs a key"] += 1
        t0 = time.monotonic()
        res = check(schema_from_ddl(ddl[db]), gold, pred, bound=settings.get("bound", 5),
                    timeout=args.timeout, data="sqlite")
        seconds.append(time.monotonic() - t0)
        counts[system][f"at sqlite: {res.verdict.value}"] += 1
        print(f"{system} {qid}: {res.verdict.value} ({res.reason[:90]})", flush=True)
    print(f"\nrun {run} of {args.results}, K = {settings.get('bound')}")
    for system in sorted(counts):
        print(f"{system:28} " + ", ".join(f"{k} {v}" for k, v in counts[system].items()))
    if seconds:
        seconds.sort()
        print(f"re-checks at sqlite: {len(seconds)}, median {statistics.median(seconds):.3f} s, "
              f"p95 {seconds[int(0.95 * (len(seconds) - 1))]:.3f} s")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({s: dict(c) for s, c in counts.items()}, f, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
