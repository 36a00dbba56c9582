"""Measure the gold audit against labels: gold queries benchmark maintainers corrected
(confirmed errors, with their fix) and gold queries they kept.

Plain script, not a test::

    python benchmarks/audit_labels.py RESULTS --old OLD_DEV --new NEW_DEV [--run N]
        [--jobs 2] [--json out.json]

``RESULTS`` holds an evaluation whose gold is ``OLD_DEV``'s (a BIRD or Spider dev
file) and its gold audit (``spotit audit``). ``NEW_DEV`` is the maintainers' later
release: a question whose gold SQL differs (up to whitespace) is a confirmed error
with the new SQL as its fix, the others are kept. A fix SpotIt proves equivalent to the
old gold is a rewrite, not an error, and is counted apart; so is a question whose text
changed with its SQL (the new gold then answers another question).

Printed: the share of confirmed errors that get a ``gold-alone``/``gold-minority``
finding (recall), the share of kept gold that gets one (false flags), the share of
confirmed errors whose proposal is equivalent to the maintainers' fix, and the
ceiling: errors where at least two systems wrote a query equivalent to the fix. The
checks against the fixes run through ``spotit.experiments.rescore.judge`` and are
stored in ``RESULTS`` (a second run reuses them).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from spotit.experiments.audit import FLAGGED
from spotit.experiments.classes import normalize_sql
from spotit.experiments.rescore import Fix
from spotit.experiments.store import ResultsStore


def load_dev(path: Path) -> dict[str, dict]:
    data = json.loads(path.read_text())
    out = {}
    for i, e in enumerate(data):
        qid = str(e.get("question_id", i))
        out[qid] = {"sql": e.get("SQL") or e.get("query") or "",
                    "question": e.get("question", "")}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results")
    ap.add_argument("--old", type=Path, required=True, help="the dev file the run used")
    ap.add_argument("--new", type=Path, required=True, help="the maintainers' later release")
    ap.add_argument("--run", type=int)
    ap.add_argument("--jobs", type=int)
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    old, new = load_dev(args.old), load_dev(args.new)
    store = ResultsStore(args.results)
    run_id = args.run or store.latest_run()["run_id"]
    found = store.audit(run_id)
    store.close()
    if found is None:
        print(f"{args.results}: run {run_id} has no gold audit", file=sys.stderr)
        return 2
    _, findings = found
    by_q = {f["question_id"]: f for f in findings}
    changed = {q for q in by_q if q in new and normalize_sql(new[q]["sql"]) !=
               normalize_sql(old[q]["sql"])}
    fixes = {q: Fix(q, new[q]["sql"], str(args.new)) for q in changed}
    judged, gold_vs_fix = against_fixes(args.results, run_id, fixes, args.jobs)
    rewrites = {q for q, verdict in gold_vs_fix.items() if verdict == "equivalent"}
    errors = changed - rewrites
    same_question = {q for q in errors if old[q]["question"].strip() ==
                     new[q]["question"].strip()}
    kept = set(by_q) - changed
    flagged = {q for q, f in by_q.items() if f["finding"] in FLAGGED}

    def agree_with_fix(q: str) -> int:
        return sum(1 for (s, qq), o in judged.items() if qq == q
                   and o.get("verdict") == "equivalent")

    def proposal_matches(q: str) -> bool:
        f = by_q[q]
        if f["finding"] not in FLAGGED or not f.get("proposal"):
            return False
        systems = f.get("proposal_systems") or []
        return any(judged.get((s, q), {}).get("verdict") == "equivalent" for s in systems)

    def rates(qs: set[str]) -> dict:
        n = len(qs)
        return {"n": n,
                "flagged": _share(len(qs & flagged), n),
                "proposal_equivalent_to_fix": _share(sum(proposal_matches(q) for q in qs), n),
                "ceiling_two_systems_agree_with_fix": _share(
                    sum(agree_with_fix(q) >= 2 for q in qs), n),
                "findings": dict(Counter(by_q[q]["finding"] for q in qs))}

    figures = {
        "results": args.results, "run_id": run_id, "questions": len(by_q),
        "changed": len(changed), "rewrites_equivalent": len(rewrites),
        "undecided_old_vs_fix": sum(1 for v in gold_vs_fix.values()
                                    if v not in ("equivalent", "not_equivalent")),
        "confirmed_errors": rates(errors),
        "confirmed_errors_same_question": rates(same_question),
        "kept": {"n": len(kept), "flagged": _share(len(kept & flagged), len(kept)),
                 "findings": dict(Counter(by_q[q]["finding"] for q in kept))},
    }
    print(json.dumps(figures, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    return 0


def _share(k: int, n: int) -> dict:
    return {"count": k, "share": round(k / n, 4) if n else None}


def against_fixes(results: str, run_id: int, fixes: dict[str, Fix], jobs
                  ) -> tuple[dict[tuple[str, str], dict], dict[str, str]]:
    """Every prediction of a corrected question, and its old gold, against the fix,
    through the audit's classes (checks not known yet run and are stored)."""
    from spotit.experiments.audit import Audit, AuditOptions

    store = ResultsStore(results)
    try:
        a = Audit(store, run_id, AuditOptions(workers=jobs, explain=False))
        a.prepare(only=set(fixes), extra={q: f.sql for q, f in fixes.items()})
        a.run_checks()
        judged = {(system, q): a.place(st, r.pred, fixes[q].sql)
                  for q, st in a.states.items() for system, r in st.records.items()}
        gold = {q: a.place(st, st.question.gold, fixes[q].sql)["verdict"]
                for q, st in a.states.items()}
        return judged, gold
    finally:
        store.close()


if __name__ == "__main__":
    sys.exit(main())
