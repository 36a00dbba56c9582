"""Re-scored leaderboards: the run's metrics against an audited gold.

A gold-fix file (``spotit report RESULTS --gold-fixes FILE``) maps question ids to a
corrected gold SQL or to ``exclude``; ``--accept-proposals MIN_SCORE`` takes the gold
audit's proposals with at least that score instead. Then, per system, EX-TEST,
EX-SpotIt and EX-SpotIt+ against the audited gold:

- an excluded question leaves every denominator;
- an unchanged question keeps the run's own outcomes;
- a corrected question's predictions are judged against the corrected gold through the
  audit's classes (``Audit.place``): a prediction in the corrected gold's class is
  equivalent to it (no check), one that a known counterexample separates is not, and
  only the rest are checked (stored like the audit's own checks). EX-TEST is run on the
  test database when the run had one (``--db-dir``); without it, a corrected question's
  EX-TEST is taken as "no counterexample shows the prediction differs from the corrected
  gold" (``ex_test_source``: ``spotit``) where the run knew EX-TEST for the pair (from
  labels, which spoke of the old gold); where it did not, it stays unknown.

Formats and definitions: docs/results-store.md ("Re-scored leaderboards").
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spotit.errors import SpotItError
from spotit.experiments.classes import normalize_sql

EXCLUDE = "exclude"
KEEP_LABELS = ("", "fine", "wrong prediction")  # audit.csv verdicts that keep the gold


class FixError(SpotItError):
    """A gold-fix file that does not load: the message names the file and the entry."""


@dataclass(frozen=True)
class Fix:
    question_id: str
    sql: str | None  # the corrected gold; None: the question is excluded
    source: str  # the file, or "audit proposal (score S)"
    note: str = ""

    @property
    def excluded(self) -> bool:
        return self.sql is None


def load_fixes(path: str | Path) -> dict[str, Fix]:
    """A gold-fix file: JSON (``{"qid": "SQL" | "exclude" | {"sql": ..., "note": ...} |
    {"exclude": true}}`` or a list of objects with ``question_id``) or CSV (a
    ``question_id`` column with ``fix``, or audit.csv's ``verdict`` with ``correction``
    or ``proposed_correction``)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise FixError(f"{p}: cannot read it: {e}") from None
    if p.suffix.lower() == ".csv" or (not text.lstrip().startswith(("{", "["))):
        return _from_csv(text, p)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise FixError(f"{p}: not valid JSON: {e}") from None
    items: list[tuple[str, Any]]
    if isinstance(data, dict):
        items = [(str(k), v) for k, v in data.items()]
    elif isinstance(data, list):
        items = []
        for i, entry in enumerate(data):
            if not isinstance(entry, dict) or "question_id" not in entry:
                raise FixError(f"{p}: entry {i}: expected an object with question_id")
            items.append((str(entry["question_id"]), entry))
    else:
        raise FixError(f"{p}: expected a JSON object or list")
    out = {}
    for qid, value in items:
        fix = _fix_of(qid, value, str(p))
        if fix is not None:
            out[qid] = fix
    return out


def _fix_of(qid: str, value: Any, source: str) -> Fix | None:
    if isinstance(value, str):
        text = value.strip()
        if not text:
            raise FixError(f"{source}: question {qid}: an empty correction")
        return Fix(qid, None if text.lower() == EXCLUDE else text, source)
    if isinstance(value, dict):
        note = str(value.get("note") or "")
        if value.get("exclude") is True or str(value.get("fix", "")).lower() == EXCLUDE:
            return Fix(qid, None, source, note)
        sql = value.get("sql") or value.get("fix")
        if isinstance(sql, str) and sql.strip():
            return Fix(qid, sql.strip(), source, note)
        raise FixError(f"{source}: question {qid}: needs \"sql\" or \"exclude\": true")
    raise FixError(f"{source}: question {qid}: expected SQL text, \"exclude\" or an object")


def _from_csv(text: str, p: Path) -> dict[str, Fix]:
    reader = csv.DictReader(io.StringIO(text))
    cols = set(reader.fieldnames or [])
    if "question_id" not in cols:
        raise FixError(f"{p}: a CSV gold-fix file needs a question_id column")
    if not cols & {"fix", "verdict"}:
        raise FixError(f"{p}: a CSV gold-fix file needs a fix column, or audit.csv's "
                       "verdict column")
    out = {}
    for n, row in enumerate(reader, start=2):
        qid = (row.get("question_id") or "").strip()
        if not qid:
            continue
        if "fix" in cols:
            value = (row.get("fix") or "").strip()
            if value:
                out[qid] = _fix_of(qid, value, f"{p}:{n}")
            continue
        label = (row.get("verdict") or "").strip().lower()
        note = row.get("note") or ""
        if label in KEEP_LABELS:
            continue
        if label == "ambiguous":
            out[qid] = Fix(qid, None, f"{p}:{n}", note)
        elif label == "wrong gold":
            sql = (row.get("correction") or "").strip() or (
                row.get("proposed_correction") or "").strip()
            if not sql:
                raise FixError(f"{p}:{n}: question {qid} is marked wrong gold but has "
                               "neither a correction nor a proposed correction")
            out[qid] = Fix(qid, sql, f"{p}:{n}", note)
        else:
            raise FixError(f"{p}:{n}: verdict {label!r} is not one of wrong gold, "
                           "wrong prediction, ambiguous, fine")
    return out


def fixes_from_audit(findings: list[dict[str, Any]], min_score: float) -> dict[str, Fix]:
    """The audit's proposals whose finding scores at least ``min_score``."""
    from spotit.experiments.audit import FLAGGED

    return {f["question_id"]: Fix(f["question_id"], f["proposal"],
                                  f"audit proposal (score {f['score']})")
            for f in findings if f["finding"] in FLAGGED and f.get("proposal")
            and f.get("score") is not None and f["score"] >= min_score}


# ---------------------------------------------------------------------- judging


def judge(store_path: str | Path, run_id: int, fixes: dict[str, Fix], *,
          workers: int | None = None, progress=None) -> dict[tuple[str, str], dict[str, Any]]:
    """(system, question) -> the prediction's outcome against the corrected gold:
    ``{"verdict": equivalent|not_equivalent|undecided, "how", "ex_test", "ex_test_source",
    "counterexample"}``, for every prediction of a corrected question."""
    from spotit.experiments.audit import Audit, AuditOptions
    from spotit.experiments.store import ResultsStore

    corrected = {q: f.sql for q, f in fixes.items() if f.sql is not None}
    if not corrected:
        return {}
    store = ResultsStore(store_path)
    try:
        a = Audit(store, run_id, AuditOptions(workers=workers, explain=False))
        unknown = sorted(set(corrected) - {r.question_id for r in a.records}, key=str)
        if unknown:
            raise FixError(f"gold fixes name questions the run does not have: "
                           f"{', '.join(unknown[:10])}")
        if not a.schemas:
            raise FixError(f"{store_path}: run {run_id} stored no schemas (written by an "
                           "older SpotIt): run it again to re-score it")
        a.prepare(only=set(corrected), extra=corrected)
        bad = _rejected_fixes(a, corrected)
        if bad:
            raise FixError("gold fixes SQLite will not run on their schema (mend them or "
                           "write \"exclude\"): " + "; ".join(bad[:10]))
        a.run_checks(progress)
        out = {}
        for qid, sql in corrected.items():
            st = a.states[qid]
            for system, r in st.records.items():
                out[(system, qid)] = a.place(st, r.pred, sql)
        _ex_test(a, corrected, out)
    finally:
        store.close()
    return out


def _rejected_fixes(a, corrected: dict[str, str]) -> list[str]:
    """``question: why`` for each corrected gold SQLite rejects (judged, every prediction
    of it would be undecided, and nothing would say why)."""
    from spotit.experiments.classes import sql_sha

    out = []
    for qid, sql in sorted(corrected.items(), key=lambda kv: _qid(kv[0])):
        st = a.states[qid]
        sha = sql_sha(sql)
        for i, m in enumerate(st.members):
            if m.sha == sha and i in st.rejected:
                out.append(f"question {qid}: {st.rejected[i]}")
    return out


def _ex_test(a, corrected: dict[str, str], out: dict[tuple[str, str], dict[str, Any]]) -> None:
    """EX-TEST against the corrected gold: on the test database when the run had one."""
    from spotit.experiments.extest import database_path, ex_test

    db_dir = a.run["settings"].get("db_dir")
    for (system, qid), o in out.items():
        st = a.states[qid]
        pred = st.records[system].pred
        o["ex_test"], o["ex_test_source"] = None, ""
        if db_dir:
            try:
                path = database_path(db_dir, st.question.db_id, a.settings.benchmark)
                ex = ex_test(path, corrected[qid], pred, a.settings.benchmark,
                             a.settings.ex_time_limit)
                o["ex_test"], o["ex_test_source"] = ex.correct, "database"
                o["ex_test_reason"] = ex.reason
                continue
            except SpotItError as e:
                o["ex_test_reason"] = str(e)
        if pred is None:
            o["ex_test"], o["ex_test_source"] = False, "spotit"
        else:
            o["ex_test"] = o["verdict"] != "not_equivalent"
            o["ex_test_source"] = "spotit"


# ---------------------------------------------------------------------- metrics


def audited_summary(summary: dict[str, Any], pairs: list, fixes: dict[str, Fix],
                    judged: dict[tuple[str, str], dict[str, Any]]) -> dict[str, Any]:
    """The ``audited`` block of summary.json: per system the three metrics against the
    audited gold, ranks, Kendall tau against the original ranking, and every prediction
    whose outcome changed, with why."""
    from spotit.experiments.report import METRICS, competition_ranks, kendall_tau_b

    systems: dict[str, dict[str, Any]] = {}
    changes: list[dict[str, Any]] = []
    by_system: dict[str, list] = {}
    for p in pairs:
        by_system.setdefault(p.rec.system, []).append(p)
    for name in summary["systems"]:
        flags: dict[str, list[bool]] = {m: [] for m in METRICS}
        levels: dict[str, dict[str, list[bool]]] = {}
        for p in by_system.get(name, []):
            qid = p.rec.question_id
            fix = fixes.get(qid)
            if fix is not None and fix.excluded:
                continue
            if fix is None:
                if p.rec.ex_test is None:
                    continue
                vals = {"ex_test": bool(p.rec.ex_test), "ex_spotit": bool(p.ex_spotit),
                        "ex_spotit_plus": bool(p.ex_spotit_plus)}
            else:
                o = judged.get((name, qid), {})
                if o.get("ex_test") is None or (o.get("ex_test_source") == "spotit"
                                                and p.rec.ex_test is None):
                    continue  # no database, and EX-TEST was unknown before too
                ok = bool(o["ex_test"]) and o.get("verdict") != "not_equivalent"
                vals = {"ex_test": bool(o["ex_test"]), "ex_spotit": ok, "ex_spotit_plus": ok}
                before = p.ex_spotit_plus
                if before is None or before != ok:
                    changes.append({"system": name, "question_id": qid,
                                    "before": before, "after": ok,
                                    "verdict": o.get("verdict"), "why": o.get("how"),
                                    "ex_test": o.get("ex_test"),
                                    "ex_test_source": o.get("ex_test_source")})
            level = levels.setdefault(p.rec.difficulty or "", {m: [] for m in METRICS})
            for m in METRICS:
                flags[m].append(vals[m])
                level[m].append(vals[m])
        systems[name] = {"n": len(flags["ex_test"]),
                         **{m: (sum(v) / len(v) if v else None) for m, v in flags.items()},
                         "by_difficulty": {
                             d: {"n": len(fl["ex_test"]),
                                 **{m: (sum(v) / len(v) if v else None) for m, v in fl.items()}}
                             for d, fl in sorted(levels.items()) if d}}
    ranks = {m: competition_ranks({n: s[m] for n, s in systems.items()}) for m in METRICS}
    for n, s in systems.items():
        s["ranks"] = {m: ranks[m][n] for m in METRICS}
    taus = {}
    for m in METRICS:
        both = [n for n in systems if summary["systems"][n]["ranks"].get(m) is not None
                and ranks[m][n] is not None]
        taus[m] = kendall_tau_b([summary["systems"][n]["ranks"][m] for n in both],
                                [ranks[m][n] for n in both])
    return {
        "fixes": {"corrected": sum(1 for f in fixes.values() if not f.excluded),
                  "excluded": sum(1 for f in fixes.values() if f.excluded),
                  "sources": sorted({f.source for f in fixes.values()})},
        "questions": [{"question_id": f.question_id, "action": "exclude" if f.excluded
                       else "correct", "sql": f.sql, "source": f.source, "note": f.note}
                      for f in sorted(fixes.values(), key=lambda f: _qid(f.question_id))],
        "systems": systems,
        "kendall_tau": taus,
        "changes": sorted(changes, key=lambda c: (_qid(c["question_id"]), c["system"])),
        "judged": [{"system": system, "question_id": qid, "verdict": o.get("verdict"),
                    "how": o.get("how"), "ex_test": o.get("ex_test"),
                    "ex_test_source": o.get("ex_test_source")}
                   for (system, qid), o in sorted(judged.items(),
                                                  key=lambda kv: (_qid(kv[0][1]), kv[0][0]))],
    }


def _qid(q: str) -> tuple:
    return (0, int(q), "") if str(q).isdigit() else (1, 0, str(q))


def same_text(a: str | None, b: str | None) -> bool:
    return a is not None and b is not None and normalize_sql(a) == normalize_sql(b)
