"""How much of a benchmark's SQL SpotIt can encode: the fragment's coverage, measured.

Plain script, not a test::

    python benchmarks/coverage.py [bird|spider ...] [--data DIR] [--json out.json]
        [--limit N] [--show N]

For BIRD (``../shared/data/bird``: dev.json, dev_tables.json, predictions/*) and
Spider (``../shared/data/spider``: dev.json, tables.json, predictions/*) it takes the
gold queries and every prediction file, and for each query:

1. does SQLite accept it on an empty database built from the schema
   (``Checker.accepted``: EXPLAIN)? If not, it is ``rejected`` and left out;
2. if so, does SpotIt parse and bind it (``Checker.plan``) and encode it at k = 1
   (``Checker.encode``, the query against itself, as a check encodes a pair)?

Each accepted query is ``ok``, ``unsupported`` (grouped by the construct, with
quoted names and numbers normalised) or ``error`` (grouped likewise).
Coverage = ok / accepted. A query rejected by SQLite only because it reads one of
SQLite's internal tables (absent from a tables.json) counts as accepted and
unsupported: on the real database SQLite accepts it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from spotit.encodings.equivalence import Semantics
from spotit.errors import SchemaError, SpotItError, Unsupported
from spotit.experiments.inputs import load_benchmark, load_predictions
from spotit.pipeline import Checker, CheckOptions

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("SPOTIT_DATA_DIR", ROOT.parent / "shared" / "data"))
TABLES = {"bird": "dev_tables.json", "spider": "tables.json"}
NOW = datetime(2024, 1, 1, 12, 0, 0)  # any fixed instant: coverage does not depend on it


@dataclass(frozen=True)
class Outcome:
    status: str  # ok | unsupported | error | rejected
    reason: str = ""  # normalised, for grouping
    detail: str = ""  # the message as raised


def normalise(message: str) -> str:
    """A message with its specifics blanked, so that equal causes group together."""
    s = re.sub(r" \((?:gold|pred|query|schema)(?:, line \d+, column \d+)?\)$", "", message)
    s = re.sub(r" \(line \d+, column \d+\)$", "", s)
    s = re.sub(r"'(?:[^']|'')*'", "'…'", s)
    s = re.sub(r'"(?:[^"]|"")*"', '"…"', s)
    s = re.sub(r"`[^`]*`", "`…`", s)
    s = re.sub(r"\b(no such (?:column|table|function)|ambiguous column name): \S+", r"\1: …", s)
    s = re.sub(r"\b\d+(?:\.\d+)?\b", "N", s)
    return s


def classify(checker: Checker, sql: str) -> Outcome:
    """One query: rejected by SQLite, or encoded, unsupported or an error in SpotIt."""
    try:
        checker.accepted(sql, "query")
    except Unsupported as e:
        return Outcome("unsupported", normalise(str(e)), str(e))
    except SpotItError as e:
        return Outcome("rejected", normalise(str(e)), str(e))
    try:
        plan = checker.plan(sql, "query")
        checker.encode(1, plan, plan)
    except Unsupported as e:
        return Outcome("unsupported", normalise(e.construct), str(e))
    except SpotItError as e:
        return Outcome("error", f"{e.kind}: {normalise(e.message)}", str(e))
    except RecursionError:
        return Outcome("error", "query too deeply nested", "RecursionError")
    except Exception as e:  # an internal bug: counted, never fatal to the measurement
        text = f"{type(e).__name__}: {e}"
        return Outcome("error", f"internal {normalise(text)}", text)
    return Outcome("ok")


def sources(kind: str, root: Path):
    """(file name, benchmark, {question_id: sql or None}) for gold and each prediction file."""
    bench = load_benchmark(kind, root / "dev.json", root / TABLES[kind])
    yield "gold", bench, {q.question_id: q.gold for q in bench.questions}
    for path in sorted((root / "predictions").iterdir()):
        preds = load_predictions(path, bench)
        yield path.name, bench, {qid: p.sql for qid, p in preds.items()}


def measure(kind: str, root: Path, limit: int | None, show: int) -> list[dict]:
    checkers: dict[tuple[str, str], Checker] = {}
    cache: dict[tuple[str, str, str], Outcome] = {}
    rows = []
    for name, bench, sqls in sources(kind, root):
        questions = bench.questions[:limit] if limit else bench.questions
        counts: Counter[str] = Counter()
        reasons: dict[str, Counter[str]] = {"unsupported": Counter(), "error": Counter(),
                                            "rejected": Counter()}
        examples: dict[str, list[str]] = {}
        start = time.monotonic()
        for q in questions:
            sql = sqls.get(q.question_id)
            if sql is None:
                counts["missing"] += 1
                continue
            key = (q.db_id, q.semantics, sql)
            if key not in cache:
                ck = (q.db_id, q.semantics)
                if ck not in checkers:
                    try:
                        schema = bench.schema(q.db_id)
                    except SchemaError as e:
                        cache[key] = Outcome("error", f"schema: {normalise(str(e))}", str(e))
                        counts[cache[key].status] += 1
                        continue
                    checkers[ck] = Checker(schema, CheckOptions(
                        bound=1, semantics=Semantics(q.semantics), now=NOW, probe_trials=0))
                cache[key] = classify(checkers[ck], sql)
            out = cache[key]
            counts[out.status] += 1
            if out.status != "ok":
                reasons[out.status][out.reason] += 1
                examples.setdefault(out.reason, []).append(
                    f"{q.question_id}: {' '.join(sql.split())[:300]}  -- {out.detail}")
        accepted = counts["ok"] + counts["unsupported"] + counts["error"]
        rows.append({
            "benchmark": kind, "file": name, "queries": len(questions),
            "missing": counts["missing"], "rejected": counts["rejected"],
            "accepted": accepted, "ok": counts["ok"], "unsupported": counts["unsupported"],
            "error": counts["error"],
            "coverage": counts["ok"] / accepted if accepted else None,
            "seconds": round(time.monotonic() - start, 1),
            "reasons": {k: dict(v.most_common()) for k, v in reasons.items()},
            "examples": {r: ex[:show] for r, ex in examples.items()},
        })
    return rows


def report(rows: list[dict], show: int, out=sys.stdout) -> None:
    head = (f"{'benchmark':9} {'file':34} {'queries':>7} {'rejected':>8} {'accepted':>8} "
            f"{'ok':>6} {'unsup':>6} {'error':>6} {'coverage':>9}")
    print(head, file=out)
    print("-" * len(head), file=out)
    for r in rows:
        cov = "-" if r["coverage"] is None else f"{100 * r['coverage']:.2f} %"
        print(f"{r['benchmark']:9} {r['file']:34} {r['queries']:>7} {r['rejected']:>8} "
              f"{r['accepted']:>8} {r['ok']:>6} {r['unsupported']:>6} {r['error']:>6} "
              f"{cov:>9}", file=out)
    for kind in dict.fromkeys(r["benchmark"] for r in rows):
        mine = [r for r in rows if r["benchmark"] == kind]
        for status in ("unsupported", "error", "rejected"):
            total: Counter[str] = Counter()
            for r in mine:
                total.update(r["reasons"][status])
            if not total:
                continue
            print(f"\n{kind}: {status} (all files)", file=out)
            for reason, n in total.most_common():
                print(f"  {n:5}  {reason}", file=out)
                if show and status != "rejected":
                    for r in mine:
                        for ex in r["examples"].get(reason, [])[:show]:
                            print(f"         [{r['file']}] {ex}", file=out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("benchmarks", nargs="*", default=["bird", "spider"],
                    choices=["bird", "spider"])
    ap.add_argument("--data", type=Path, default=DATA,
                    help="directory holding bird/ and spider/ (default ../shared/data)")
    ap.add_argument("--json", type=Path, help="write the figures to this file")
    ap.add_argument("--limit", type=int, help="only the first N questions")
    ap.add_argument("--show", type=int, default=0,
                    help="examples printed per reason and file (default 0)")
    args = ap.parse_args(argv)
    rows = []
    for kind in args.benchmarks:
        root = args.data / kind
        if not (root / "dev.json").exists():
            print(f"{kind}: no data in {root}, skipped", file=sys.stderr)
            continue
        rows += measure(kind, root, args.limit, max(args.show, 3))
    report(rows, args.show)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
