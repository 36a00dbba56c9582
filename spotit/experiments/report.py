"""The report of one evaluation run: summary.json, pairs.jsonl/.csv, audit.csv, index.html.

Everything is computed from the results store alone, so a report can be rewritten at
any time (other seed, more bootstrap draws) without checking a pair again. The
formats are documented for users in docs/results-store.md.

Accuracies follow the SpotIt paper: EX-SpotIt keeps EX-TEST's answer unless SpotIt has
a SQLite-confirmed counterexample (a timeout, unsupported construct or error does not
make a prediction wrong); EX-SpotIt+ also counts another system's counterexample for
the same question. A missing value is ``null``, never a string and never NaN.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import html
import io
import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from spotit.experiments.store import PairRecord, ResultsStore

VERDICTS = ("not_equivalent", "equivalent", "spurious", "timeout", "unsupported", "error")
METRICS = ("ex_test", "ex_spotit", "ex_spotit_plus")
METRIC_NAMES = {"ex_test": "EX-TEST", "ex_spotit": "EX-SpotIt", "ex_spotit_plus": "EX-SpotIt+"}
ROW_CAP = 20  # rows shown per table in index.html; the files keep every row
BOOTSTRAP_CHUNK = 500  # draws per block, so memory stays small for 1,534 questions

PAIR_FIELDS = (
    "system", "question_id", "db_id", "question", "difficulty", "gold", "pred", "verdict",
    "reason", "seconds", "ex_test", "ex_test_source", "ex_test_reason", "ex_spotit",
    "ex_spotit_plus", "refuted_by", "cex_bound", "proven_bound", "found_by", "vacuous",
    "counterexample", "gold_result", "pred_result", "semantics", "key", "gold_sha", "pred_sha",
)
AUDIT_FIELDS = (
    "system", "question_id", "db_id", "question", "gold", "pred", "verdict", "refuted_by",
    "counterexample", "gold_result", "pred_result", "label", "note",
)


# ---------------------------------------------------------------------- statistics


def competition_ranks(values: dict[str, float | None]) -> dict[str, int | None]:
    """1 = best (highest); ties share the best rank (1, 1, 3); unknown values get None."""
    known = [v for v in values.values() if v is not None]
    return {name: None if v is None else 1 + sum(1 for w in known if w > v)
            for name, v in values.items()}


def kendall_tau_b(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Kendall's tau-b; None when it is undefined (fewer than two items, or all tied)."""
    if len(x) != len(y):
        raise ValueError("kendall_tau_b: sequences of different lengths")
    s = untied_x = untied_y = 0
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            dx = (x[i] > x[j]) - (x[i] < x[j])
            dy = (y[i] > y[j]) - (y[i] < y[j])
            s += dx * dy
            untied_x += dx != 0
            untied_y += dy != 0
    if untied_x == 0 or untied_y == 0:
        return None
    return s / math.sqrt(untied_x * untied_y)


def paired_bootstrap_ci(a: np.ndarray, b: np.ndarray, *, iterations: int,
                        seed: int) -> list[float] | None:
    """95% percentile interval of mean(a) - mean(b), resampling questions (the same indices
    for both, so the pairing is kept). None with no data or ``iterations == 0``."""
    n = len(a)
    if n == 0 or iterations <= 0:
        return None
    diff = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    rng = np.random.default_rng(seed)
    means = np.empty(iterations)
    for start in range(0, iterations, BOOTSTRAP_CHUNK):
        m = min(BOOTSTRAP_CHUNK, iterations - start)
        means[start:start + m] = diff[rng.integers(0, n, size=(m, n))].mean(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    return [float(lo), float(hi)]


# ---------------------------------------------------------------------- the run's pairs


@dataclass(frozen=True)
class Pair:
    """One record of the run with its EX-SpotIt+ outcome and the derived accuracies."""

    rec: PairRecord
    refuted_by: str | None

    @property
    def ex_spotit(self) -> bool | None:
        if self.rec.ex_test is None:
            return None
        return self.rec.ex_test and self.rec.verdict != "not_equivalent"

    @property
    def ex_spotit_plus(self) -> bool | None:
        ok = self.ex_spotit
        return None if ok is None else ok and self.refuted_by is None

    @property
    def refuted(self) -> bool:
        return self.rec.verdict == "not_equivalent" or self.refuted_by is not None

    @property
    def constrained(self) -> dict[str, Any] | None:
        """The verdict under assumed constraints (``result.constrained``), if checked."""
        return (self.rec.result or {}).get("constrained")

    @property
    def ex_spotit_constrained(self) -> bool | None:
        """EX-SpotIt when only counterexamples that satisfy the constraints count."""
        c = self.constrained
        if self.rec.ex_test is None or c is None:
            return None
        return self.rec.ex_test and c.get("verdict") != "not_equivalent"


def constraints_summary(pairs: list[Pair]) -> dict[str, Any] | None:
    """EX-SpotIt under constraints, and how many refutations each kind removes: a
    refutation is removed by kind X when its counterexample violates an X constraint
    and the search under the constraints finds none (proves equivalence within K)."""
    checked = [p for p in pairs if p.constrained is not None]
    if not checked:
        return None
    refuted = [p for p in checked if p.rec.verdict == "not_equivalent"]
    removed = [p for p in refuted if p.constrained.get("verdict") == "equivalent"]
    by_kind = Counter(k for p in removed for k in p.constrained.get("violated_kinds") or [])
    known = [p for p in checked if p.rec.ex_test is not None]
    return {
        "ex_spotit_constrained": _fraction([bool(p.ex_spotit_constrained) for p in known]),
        "refutations": len(refuted),
        "surviving": sum(1 for p in refuted if p.constrained.get("verdict") == "not_equivalent"),
        "removed": len(removed),
        "undecided": len(refuted) - len(removed) - sum(
            1 for p in refuted if p.constrained.get("verdict") == "not_equivalent"),
        "removed_by_kind": dict(sorted(by_kind.items())),
    }


def explanations_summary(pairs: list[Pair]) -> dict[str, Any] | None:
    """What the refutations need (``spotit evaluate --explain``): per feature kind, how
    many refutations need it, and how many need none of the features found."""
    explained = [p for p in pairs if p.rec.verdict == "not_equivalent"
                 and "explanation" in (p.rec.result or {})
                 and (p.rec.result or {}).get("explained")]
    if not explained:
        return None
    # refutations, not entries: one needing NULL in two columns counts once, as in "has"
    needs = Counter(k for p in explained
                    for k in {e["feature"] for e in p.rec.result["explanation"]
                              if e.get("needed") is True})
    has = Counter(k for p in explained
                  for k in {e["feature"] for e in p.rec.result["explanation"]})
    nothing = sum(1 for p in explained
                  if not any(e.get("needed") for e in p.rec.result["explanation"]))
    return {"explained": len(explained), "needs": dict(sorted(needs.items())),
            "has": dict(sorted(has.items(), key=lambda kv: _kind_order(kv[0]))),
            "needs_none_found": nothing}


def _kind_order(kind: str) -> tuple[int, str]:
    from spotit.explain import KINDS

    return (KINDS.index(kind) if kind in KINDS else len(KINDS), kind)


def _feature_kinds(explained: dict[str, dict[str, Any]]) -> list[str]:
    """The feature kinds any system's refutations have (or need), in KINDS order."""
    return sorted({k for e in explained.values() for k in (*e["needs"], *e.get("has", {}))},
                  key=_kind_order)


def load_run(store_path: str | Path, run_id: int | None = None
             ) -> tuple[dict[str, Any], list[Pair]]:
    """The run (latest by default) and its pairs, in the store's order."""
    if not Path(store_path).exists():
        raise FileNotFoundError(f"no results file {store_path}")
    store = ResultsStore(store_path)
    try:
        runs = store.runs()
        if not runs:
            raise ValueError(f"{store_path} holds no evaluation run")
        if run_id is None:
            run = runs[-1]
        else:
            found = [r for r in runs if r["run_id"] == run_id]
            if not found:
                ids = ", ".join(str(r["run_id"]) for r in runs)
                raise ValueError(f"{store_path} has no run {run_id} (runs: {ids})")
            run = found[0]
        pairs = [Pair(rec, refuted_by) for rec, refuted_by in store.run_records(run["run_id"])]
    finally:
        store.close()
    return run, pairs


# ---------------------------------------------------------------------- summary


def _fraction(flags: list[bool]) -> float | None:
    return sum(flags) / len(flags) if flags else None


def _seconds(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"median": None, "p95": None, "mean": None}
    arr = np.asarray(values, dtype=float)
    return {"median": float(np.median(arr)), "p95": float(np.percentile(arr, 95)),
            "mean": float(arr.mean())}


def system_summary(pairs: list[Pair], *, iterations: int, seed: int) -> dict[str, Any]:
    """The per-system block of summary.json (ranks are added across systems later)."""
    counts = Counter(p.rec.verdict for p in pairs)
    verdicts = {v: counts.get(v, 0) for v in VERDICTS}
    verdicts.update({v: c for v, c in sorted(counts.items()) if v not in verdicts})
    known = [p for p in pairs if p.rec.ex_test is not None]
    ex = [bool(p.rec.ex_test) for p in known]
    sp = [bool(p.ex_spotit) for p in known]
    spp = [bool(p.ex_spotit_plus) for p in known]
    extra = Counter(p.refuted_by for p in known if p.ex_spotit and p.refuted_by is not None)
    decided = sum(1 for p in pairs if p.rec.verdict not in ("unsupported", "error"))
    cex = Counter(p.rec.cex_bound for p in pairs
                  if p.rec.verdict == "not_equivalent" and p.rec.cex_bound is not None)
    found = Counter(p.rec.found_by for p in pairs if p.rec.found_by is not None)

    def drop(other: list[bool]) -> dict[str, Any]:
        if not known:
            return {"value": None, "ci95": None}
        a, b = np.array(ex, dtype=float), np.array(other, dtype=float)
        return {"value": float((a - b).mean()),
                "ci95": paired_bootstrap_ci(a, b, iterations=iterations, seed=seed)}

    return {
        "pairs": len(pairs),
        "verdicts": verdicts,
        "coverage": decided / len(pairs) if pairs else None,
        "n_ex_test_known": len(known),
        "ex_test": _fraction(ex),
        "ex_spotit": _fraction(sp),
        "ex_spotit_plus": _fraction(spp),
        "extra_errors_spotit_plus": sum(extra.values()) if known else None,
        "extra_errors_by_system": dict(sorted(extra.items())),
        "refuted_by_other": sum(1 for p in pairs if p.refuted_by is not None),
        "drop": drop(sp),
        "drop_plus": drop(spp),
        "seconds": _seconds([p.rec.seconds for p in pairs]),
        "ranks": {},
        "vacuous": sum(1 for p in pairs if p.rec.verdict == "equivalent" and p.rec.vacuous),
        "cex_bound": {str(k): c for k, c in sorted(cex.items())},
        "found_by": dict(sorted(found.items())),
        "constraints": constraints_summary(pairs),
        "explanations": explanations_summary(pairs),
        "by_difficulty": difficulty_summary(pairs),
    }


def difficulty_summary(pairs: list[Pair]) -> dict[str, dict[str, Any]]:
    """Per difficulty label (BIRD's simple / moderate / challenging): pairs, EX-TEST
    known, and the three accuracies; {} when the benchmark has no labels."""
    levels: dict[str, list[Pair]] = {}
    for p in pairs:
        if p.rec.difficulty:
            levels.setdefault(p.rec.difficulty, []).append(p)
    out = {}
    for level in sorted(levels, key=_difficulty_order):
        ps = levels[level]
        known = [p for p in ps if p.rec.ex_test is not None]
        out[level] = {"pairs": len(ps), "n_ex_test_known": len(known),
                      "ex_test": _fraction([bool(p.rec.ex_test) for p in known]),
                      "ex_spotit": _fraction([bool(p.ex_spotit) for p in known]),
                      "ex_spotit_plus": _fraction([bool(p.ex_spotit_plus) for p in known]),
                      "refuted": sum(1 for p in ps if p.refuted)}
    return out


DIFFICULTIES = ("simple", "moderate", "challenging")


def _difficulty_order(level: str) -> tuple[int, str]:
    low = level.lower()
    return (DIFFICULTIES.index(low) if low in DIFFICULTIES else len(DIFFICULTIES), low)


def _iso(t: float | None) -> str | None:
    if t is None:
        return None
    return datetime.fromtimestamp(t, tz=timezone.utc).isoformat(timespec="seconds")


def _system_order(run: dict[str, Any], pairs: list[Pair]) -> list[str]:
    """The run's declared systems first (in their order), then any others found."""
    names = [str(s) for s in run["settings"].get("systems") or []]
    names += sorted({p.rec.system for p in pairs} - set(names))
    return names


def summarize(run: dict[str, Any], pairs: list[Pair], *, iterations: int = 2000,
              seed: int = 0) -> dict[str, Any]:
    """summary.json as a dict: settings with provenance, per-system numbers, Kendall tau."""
    by_system: dict[str, list[Pair]] = {name: [] for name in _system_order(run, pairs)}
    for p in pairs:
        by_system[p.rec.system].append(p)
    systems = {name: system_summary(ps, iterations=iterations, seed=seed)
               for name, ps in by_system.items()}
    ranks = {m: competition_ranks({n: s[m] for n, s in systems.items()}) for m in METRICS}
    for name, s in systems.items():
        s["ranks"] = {m: ranks[m][name] for m in METRICS}
    taus: dict[str, float | None] = {}
    for m in METRICS[1:]:
        both = [n for n in systems if ranks["ex_test"][n] is not None
                and ranks[m][n] is not None]
        taus[m] = kendall_tau_b([ranks["ex_test"][n] for n in both],
                                [ranks[m][n] for n in both])
    settings = dict(run["settings"])
    settings.update({
        "run_id": run["run_id"], "started": _iso(run["started"]),
        "finished": _iso(run["finished"]), "provenance": run["provenance"],
        "records": len(pairs),
        "ex_test_sources": sorted({p.rec.ex_test_source for p in pairs
                                   if p.rec.ex_test_source}),
        "bootstrap_seed": seed, "bootstrap_iterations": iterations,
    })
    return {"settings": settings, "systems": systems, "kendall_tau": taus}


# ---------------------------------------------------------------------- pair files


def _sha(text: str | None) -> str | None:
    return None if text is None else hashlib.sha256(text.encode()).hexdigest()


def pair_row(p: Pair) -> dict[str, Any]:
    """One line of pairs.jsonl (and pairs.csv)."""
    r = p.rec
    row = {name: getattr(r, name) for name in PAIR_FIELDS if hasattr(r, name)}
    row.update({"ex_spotit": p.ex_spotit, "ex_spotit_plus": p.ex_spotit_plus,
                "refuted_by": p.refuted_by, "gold_sha": _sha(r.gold), "pred_sha": _sha(r.pred)})
    return {name: row[name] for name in PAIR_FIELDS}


def _csv_cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (dict, list, tuple)):
        return json.dumps(v, default=str, ensure_ascii=False)
    return str(v)


def _write_csv(path: Path, fields: Sequence[str], rows: Iterable[dict[str, Any]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(fields)
        for row in rows:
            w.writerow([_csv_cell(row.get(name)) for name in fields])


def _witness(p: Pair, index: dict[tuple[str, str], Pair]) -> Pair | None:
    """The record whose counterexample refutes ``p``: its own, or the refuting system's."""
    if p.rec.verdict == "not_equivalent":
        return p
    if p.refuted_by is not None:
        return index.get((p.refuted_by, p.rec.question_id))
    return None


def audit_rows(pairs: list[Pair]) -> list[dict[str, Any]]:
    """Pairs EX-TEST accepts and SpotIt refutes, for a person to label.

    For a pair refuted only through EX-SpotIt+, the counterexample and gold result are
    the refuting system's; this prediction's result on that database is not stored."""
    index = {(p.rec.system, p.rec.question_id): p for p in pairs}
    out = []
    for p in pairs:
        if p.rec.ex_test is not True or not p.refuted:
            continue
        w = _witness(p, index)
        own = w is p
        out.append({
            "system": p.rec.system, "question_id": p.rec.question_id, "db_id": p.rec.db_id,
            "question": p.rec.question, "gold": p.rec.gold, "pred": p.rec.pred,
            "verdict": p.rec.verdict, "refuted_by": p.refuted_by,
            "counterexample": w.rec.counterexample if w else None,
            "gold_result": w.rec.gold_result if w else None,
            "pred_result": p.rec.pred_result if own else None,
            "label": "", "note": "",
        })
    return out


# ---------------------------------------------------------------------- entry points


def write_report(store_path: str | Path, out_dir: str | Path, *, run_id: int | None = None,
                 bootstrap_iterations: int = 2000, seed: int = 0,
                 gold_fixes: str | Path | None = None, accept_proposals: float | None = None,
                 workers: int | None = None, progress=None) -> dict[str, Any]:
    """Write summary.json, pairs.jsonl, pairs.csv, audit.csv and index.html; return the
    summary. ``gold_fixes`` (a file) or ``accept_proposals`` (a least audit score) adds
    the metrics against the audited gold (``spotit.experiments.rescore``), running the
    checks against a corrected gold that are not known yet."""
    run, pairs = load_run(store_path, run_id)
    summary = summarize(run, pairs, iterations=bootstrap_iterations, seed=seed)
    checked = test_databases(store_path, run["run_id"], pairs)
    if checked is not None:
        summary["test_databases"] = checked
    if gold_fixes is not None or accept_proposals is not None:
        summary["audited"] = _audited(store_path, run["run_id"], summary, pairs, gold_fixes,
                                      accept_proposals, workers, progress)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.json").write_text(
        json.dumps(summary, indent=2, allow_nan=False, default=str) + "\n", encoding="utf-8")
    rows = [pair_row(p) for p in pairs]
    with (out / "pairs.jsonl").open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, default=str, ensure_ascii=False) + "\n")
    _write_csv(out / "pairs.csv", PAIR_FIELDS, rows)
    _write_csv(out / "audit.csv", AUDIT_FIELDS, audit_rows(pairs))
    gold_audit = load_audit(store_path, summary["settings"]["run_id"])
    if gold_audit is not None:
        from spotit.experiments.audit_report import write_audit

        write_audit(gold_audit[1], out / "audit")
    (out / "index.html").write_text(render_html(summary, pairs, gold_audit), encoding="utf-8")
    return summary


def _audited(store_path, run_id, summary, pairs, gold_fixes, accept_proposals, workers,
             progress) -> dict[str, Any]:
    from spotit.experiments.rescore import (
        FixError,
        audited_summary,
        fixes_from_audit,
        judge,
        load_fixes,
    )

    fixes = {}
    if accept_proposals is not None:
        found = load_audit(store_path, run_id)
        if found is None:
            raise FixError(f"{store_path}: run {run_id} has no gold audit to take proposals "
                           "from (run spotit audit first)")
        fixes.update(fixes_from_audit(found[1], accept_proposals))
    if gold_fixes is not None:
        fixes.update(load_fixes(gold_fixes))  # a person's word over a proposal
    judged = judge(store_path, run_id, fixes, workers=workers, progress=progress)
    return audited_summary(summary, pairs, fixes, judged)


def test_databases(store_path: str | Path, run_id: int, pairs: list[Pair]
                   ) -> dict[str, Any] | None:
    """Per test database (``--db-dir``): the declared constraints its data break, with
    the rows that break them, and the pairs whose verdict did not assume one of them
    (a run assuming every declared constraint could have judged them otherwise);
    None when the run had no test databases."""
    store = ResultsStore(store_path)
    try:
        checks = store.data_checks(run_id)
    finally:
        store.close()
    if not checks:
        return None
    out = {}
    for db, check in sorted(checks.items()):
        touched = [p for p in pairs if p.rec.db_id == db and any(
            "data break" in (a.get("why") or "") for a in p.rec.result.get("not_assumed")
            or [])]
        out[db] = {"checked": check.get("checked", 0), "breaches": check.get("breaches", []),
                   "unchecked": check.get("unchecked", []),
                   "pairs_not_assuming_a_broken_key": len(touched),
                   "verdicts": dict(Counter(p.rec.verdict for p in touched))}
    return out


def _test_databases_html(summary: dict[str, Any]) -> str:
    dbs = summary.get("test_databases")
    if not dbs:
        return ""
    rows = []
    for db, d in dbs.items():
        broken = "".join(f"<li>{_e(b['description'])}</li>" for b in d["breaches"]) or \
            "<li>none</li>"
        verdicts = ", ".join(f"{k} {v}" for k, v in sorted(d["verdicts"].items())) or "-"
        rows.append(f"<tr><th>{_e(db)}</th><td class=\"n\">{d['checked']}</td>"
                    f"<td><ul>{broken}</ul></td><td class=\"n\">"
                    f"{d['pairs_not_assuming_a_broken_key']}</td><td>{_e(verdicts)}</td></tr>")
    return ('<h3 id="test-databases">Declared constraints the test databases break</h3>'
            "<p>SpotIt tested every declared constraint on each test database before the "
            "checks and assumed only those that hold there: a proof never leans on a "
            "foreign key the data break. The last columns count the pairs whose verdict "
            "did not assume a broken foreign key, by verdict.</p>"
            '<table class="wide"><thead><tr><th>Database</th><th>Constraints tested</th>'
            "<th>Broken by the data</th><th>Pairs</th><th>Their verdicts</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>")


def load_audit(store_path: str | Path, run_id: int
               ) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    """The run's finished gold audit (settings, findings), or None."""
    store = ResultsStore(store_path)
    try:
        return store.audit(run_id)
    finally:
        store.close()


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _drop_text(d: dict[str, Any]) -> str:
    if d["value"] is None:
        return "-"
    ci = d["ci95"]
    text = f"{100 * d['value']:.1f}"
    return text + (f" [{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]" if ci else "")


def _count(x: int | None) -> str:
    return "-" if x is None else str(x)


def _secs(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def _text_table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                       for i, (c, w) in enumerate(zip(r, widths, strict=True)))
             for r in [header, *rows]]
    return "\n".join(line.rstrip() for line in lines)


def summary_table(summary: dict[str, Any]) -> str:
    """The per-system tables ``spotit evaluate`` prints: accuracies (rank in brackets), then
    verdicts and times."""
    systems = summary["systems"]
    acc = []
    for name, s in systems.items():
        cells = [name, str(s["pairs"])]
        for m in METRICS:
            rank = s["ranks"].get(m)
            cells.append(_pct(s[m]) + ("" if rank is None else f" ({rank})"))
        cells += [_drop_text(s["drop"]), _pct(s["coverage"])]
        acc.append(cells)
    head = ["system", "pairs", "EX-TEST", "EX-SpotIt", "EX-SpotIt+", "drop pts [95% CI]",
            "coverage"]
    counts = [[name, *(str(s["verdicts"].get(v, 0)) for v in VERDICTS),
               str(s["vacuous"]), _secs(s["seconds"]["median"]), _secs(s["seconds"]["p95"])]
              for name, s in systems.items()]
    head2 = ["system", "not_eq", "equiv", "spurious", "timeout", "unsupp", "error",
             "vacuous", "median s", "p95 s"]
    notes = []
    taus = summary.get("kendall_tau", {})
    for m in METRICS[1:]:
        t = taus.get(m)
        notes.append(f"Kendall tau-b, EX-TEST vs {METRIC_NAMES[m]} ranking: "
                     + ("-" if t is None else f"{t:.2f}"))
    if all(s["ex_test"] is None for s in systems.values()):
        notes.append("EX-TEST is unknown for every pair (no test databases or labels): "
                     "accuracies are '-'; SpotIt's verdicts are above.")
    else:
        partial = [n for n, s in systems.items() if s["n_ex_test_known"] < s["pairs"]]
        if partial:
            notes.append("EX-TEST known for only some pairs of: " + ", ".join(partial)
                         + " (accuracies are over those pairs)")
    tables = [_text_table(head, acc), _text_table(head2, counts)]
    assumed = {n: s["constraints"] for n, s in systems.items() if s.get("constraints")}
    if assumed:
        rows = [[n, _pct(systems[n]["ex_spotit"]), _pct(c["ex_spotit_constrained"]),
                 str(c["refutations"]), str(c["surviving"]), str(c["removed"]),
                 str(c["undecided"]),
                 ", ".join(f"{k} {v}" for k, v in c["removed_by_kind"].items()) or "-"]
                for n, c in assumed.items()]
        tables.append(_text_table(["system", "EX-SpotIt", "under constraints", "refuted",
                                   "survive", "removed", "undecided", "removed by kind"], rows))
    explained = {n: s["explanations"] for n, s in systems.items() if s.get("explanations")}
    if explained:
        kinds = _feature_kinds(explained)
        rows = [[n, str(e["explained"]),
                 *(f"{e['needs'].get(k, 0)}/{e.get('has', {}).get(k, 0)}" for k in kinds),
                 str(e["needs_none_found"])] for n, e in explained.items()]
        tables.append(_text_table(["system", "refutations explained",
                                   *(f"need {k}/has" for k in kinds), "need none of them"],
                                  rows))
    audited = summary.get("audited")
    if audited:
        rows = [[n, str(a["n"]), *(f"{_pct(systems[n][m])} -> {_pct(a[m])}"
                                   + ("" if a["ranks"][m] is None else f" ({a['ranks'][m]})")
                                   for m in METRICS)]
                for n, a in audited["systems"].items()]
        tables.append(_text_table(["audited gold", "pairs", *(METRIC_NAMES[m] for m in
                                                              METRICS)], rows))
        notes.append(f"audited gold: {audited['fixes']['corrected']} corrected, "
                     f"{audited['fixes']['excluded']} excluded; Kendall tau-b before vs "
                     "after: " + ", ".join(
                         f"{METRIC_NAMES[m]} " + ("-" if t is None else f"{t:.2f}")
                         for m, t in audited["kendall_tau"].items())
                     + f"; {len(audited['changes'])} predictions changed outcome")
    levels = sorted({d for s in systems.values() for d in s.get("by_difficulty") or {}},
                    key=_difficulty_order)
    if levels and any(s["ex_test"] is not None for s in systems.values()):
        rows = [[n, *(_pct((s["by_difficulty"].get(d) or {}).get(m))
                      for m in METRICS for d in levels)] for n, s in systems.items()]
        tables.append(_text_table(["system", *(f"{METRIC_NAMES[m]} {d}" for m in METRICS
                                               for d in levels)], rows))
    return "\n\n".join([*tables, "\n".join(notes)])


# ---------------------------------------------------------------------- index.html

_CSS = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;
 color:#1d2327;margin:0 auto;max-width:1300px;padding:0 1.2rem 3rem}
h1{margin:1.2rem 0 .2rem}h2{margin-top:2.2rem;border-bottom:2px solid #dde3e8}
h3{margin:.2rem 0}h4{margin:.8rem 0 .3rem}
table{border-collapse:collapse;margin:.4rem 0}
th,td{border:1px solid #d5dbe0;padding:.25rem .5rem;vertical-align:top}
th{background:#eef2f5;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tbody tr:nth-child(even){background:#f8fafb}
table.kv th{width:14rem}table.wide{width:100%}
.up{color:#11772f;font-weight:600}.down{color:#b3261e;font-weight:600}
.muted{color:#66707a}.null{color:#8a6d00;font-style:italic}
.note{background:#fff7e0;border-left:4px solid #e0b000;padding:.5rem .8rem}
dl.legend{display:grid;grid-template-columns:max-content 1fr;gap:.15rem 1rem;font-size:.92em}
dl.legend dt{font-weight:600}dl.legend dd{margin:0}
figure{margin:1rem 0}figcaption{color:#4a545e;font-size:.92em}
figure img{max-width:100%;height:auto;border:1px solid #e3e7ea}
pre{background:#f4f6f8;border:1px solid #dde3e8;padding:.5rem;white-space:pre-wrap;
 word-break:break-word;margin:.2rem 0}
article.pair{border:1px solid #d5dbe0;border-radius:6px;padding:.6rem 1rem;margin:1rem 0}
article.pair:target{outline:3px solid #4a90d9}
.two{display:grid;grid-template-columns:1fr 1fr;gap:1rem}
.tables{display:flex;flex-wrap:wrap;gap:1rem}.tables table{font-size:.9em}
.idx a{display:inline-block;margin:0 .35rem .15rem 0}
.scroll{overflow-x:auto}#systems-table{font-size:.86em}th.group{text-align:center}
#systems-table th,#systems-table td{padding:.2rem .35rem}
caption{caption-side:top;text-align:left;white-space:nowrap;font-weight:600;padding:.1rem 0}
.plots{display:flex;flex-wrap:wrap;gap:1rem}.plots figure{flex:1 1 340px;max-width:560px}
"""

_LEGEND = [
    ("System", "the Text-to-SQL system whose predicted queries were checked."),
    ("Pairs", "how many questions of the run this system has a (gold, predicted) pair for."),
    ("EX-TEST", "share of pairs whose prediction returns the gold query's rows on the "
                "benchmark's test database (over the pairs where that is known; the count "
                "known is shown when it is not every pair)."),
    ("EX-SpotIt", "share of pairs EX-TEST accepts and for which SpotIt found no "
                  "SQLite-confirmed counterexample (a timeout, unsupported construct or "
                  "error keeps EX-TEST's answer)."),
    ("EX-SpotIt+", "EX-SpotIt, also counting as wrong a prediction that a counterexample "
                   "found for another system's prediction of the same question shows to "
                   "differ from the gold query."),
    ("#", "the system's rank under the metric to its left, 1 = best, ties share the best "
          "rank; ▲/▼ mark a move up/down from the EX-TEST rank."),
    ("Drop", "EX-TEST minus EX-SpotIt in percentage points, with a 95% paired bootstrap "
             "interval over questions."),
    ("Extra +", "predictions EX-SpotIt accepts but another system's counterexample refutes "
                "(what EX-SpotIt+ adds)."),
    ("Coverage", "share of pairs SpotIt could take on: verdict neither unsupported nor "
                 "error."),
    ("not_eq", "pairs with a counterexample database (at most K rows per table) on which "
               "SQLite gives different results."),
    ("equiv", "pairs proven equivalent on every database of at most K rows per table "
              "(or on every database, by canonical form or one row per table); in brackets, "
              "how many of them only because a query returns no rows at all within the "
              "bound (vacuous)."),
    ("spurious", "pairs where the solver's candidate database did not differ on SQLite; "
                 "never counted as a counterexample."),
    ("timeout", "pairs where the time budget ran out before a decision."),
    ("unsupp", "pairs with a SQL construct SpotIt does not model."),
    ("error", "pairs SpotIt could not check: bad SQL, missing prediction, schema problem."),
    ("median / p95 s", "the median and 95th-percentile time of one check, in seconds."),
]


def _e(v: Any) -> str:
    return html.escape(str(v), quote=True)


def _anchor(system: str, question_id: str, used: set[str]) -> str:
    base = re.sub(r"[^A-Za-z0-9_.-]", "_", f"{system}-{question_id}") or "pair"
    name, i = base, 2
    while name in used:
        name, i = f"{base}-{i}", i + 1
    used.add(name)
    return name


def _cell(v: Any) -> str:
    if v is None:
        return '<span class="null">NULL</span>'
    if isinstance(v, str):
        return _e("'" + v.replace("'", "''") + "'")
    if isinstance(v, (dict, list)):
        return _e(json.dumps(v, default=str, ensure_ascii=False))
    return _e(v)


def _html_rows(columns: list[str], rows: list[list[Any]], caption: str) -> str:
    shown = rows[:ROW_CAP]
    head = "".join(f"<th>{_e(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{_cell(v)}</td>" for v in r) + "</tr>"
                   for r in shown)
    more = len(rows) - len(shown)
    foot = (f'<tr><td colspan="{max(len(columns), 1)}" class="muted">… {more} more rows '
            f"not shown (pairs.jsonl has them all)</td></tr>") if more > 0 else ""
    if not rows:
        foot = f'<tr><td colspan="{max(len(columns), 1)}" class="muted">(no rows)</td></tr>'
    return (f"<table><caption>{_e(caption)}</caption><thead><tr>{head}</tr></thead>"
            f"<tbody>{body}{foot}</tbody></table>")


def _result_html(rows: list[list[Any]] | None, columns: list[str] | None, caption: str) -> str:
    if rows is None:
        return f'<p class="muted">{_e(caption)}: not stored.</p>'
    width = max((len(r) for r in rows), default=len(columns or []))
    names = list(columns or [])[:width]
    names += [f"column {i + 1}" for i in range(len(names), width)]
    count = f"{len(rows)} row" + ("" if len(rows) == 1 else "s")
    return _html_rows(names, [list(r) for r in rows], f"{caption} ({count})")


def _cex_html(cex: dict[str, list[dict[str, Any]]] | None,
              columns: dict[str, list[str]] | None) -> str:
    if not cex:
        return '<p class="muted">No counterexample database stored.</p>'
    parts = []
    for table, rows in cex.items():
        names = list((columns or {}).get(table) or [])
        for r in rows:
            names += [c for c in r if c not in names]
        parts.append(_html_rows(names, [[r.get(c) for c in names] for r in rows],
                                f"table {table}"))
    return f'<div class="tables">{"".join(parts)}</div>'


def _png(fig) -> str:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight", metadata={"Software": None})
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _figure(png: str, alt: str, caption: str) -> str:
    return (f'<figure><img alt="{_e(alt)}" src="data:image/png;base64,{png}">'
            f"<figcaption>{_e(caption)}</figcaption></figure>")


def _plots(summary: dict[str, Any], pairs: list[Pair]) -> str:
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    systems = summary["systems"]
    names = list(systems)
    out = []
    with_drop = [n for n in names if systems[n]["drop"]["value"] is not None]
    if with_drop:
        fig = Figure(figsize=(min(9.0, max(4.5, 0.9 * len(with_drop) + 2)), 3.4))
        ax = fig.subplots()
        vals = [100 * systems[n]["drop"]["value"] for n in with_drop]
        cis = [systems[n]["drop"]["ci95"] or [systems[n]["drop"]["value"]] * 2
               for n in with_drop]
        err = [[v - 100 * c[0] for v, c in zip(vals, cis, strict=True)],
               [100 * c[1] - v for v, c in zip(vals, cis, strict=True)]]
        ax.bar(with_drop, vals, yerr=err, capsize=5, color="#4a90d9")
        ax.set_ylabel("EX-TEST − EX-SpotIt (points)")
        ax.axhline(0, color="#444", linewidth=0.8)
        ax.tick_params(axis="x", labelrotation=20)
        out.append(_figure(_png(fig), "drop per system",
                           "Accuracy lost when SpotIt's counterexamples are counted: EX-TEST "
                           "minus EX-SpotIt per system, with its 95% bootstrap interval."))
    else:
        out.append('<p class="muted">No drop plot: EX-TEST is unknown.</p>')
    ks = sorted({int(k) for s in systems.values() for k in s["cex_bound"]})
    if ks:
        fig = Figure(figsize=(5.4, 3.4))
        ax = fig.subplots()
        width = 0.8 / max(len(names), 1)
        for i, n in enumerate(names):
            counts = [systems[n]["cex_bound"].get(str(k), 0) for k in ks]
            ax.bar([k - 0.4 + width * (i + 0.5) for k in ks], counts, width, label=n)
        ax.set_xticks(ks)
        ax.set_xlabel("k: most rows in any table of the smallest counterexample")
        ax.set_ylabel("pairs")
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.legend(fontsize="small")
        out.append(_figure(_png(fig), "smallest counterexample size per system",
                           "How small the counterexamples are: pairs refuted at each bound "
                           "k (the smallest bound with a counterexample)."))
    times = {n: sorted(max(p.rec.seconds, 1e-3) for p in pairs if p.rec.system == n)
             for n in names}
    if any(times.values()):
        fig = Figure(figsize=(5.4, 3.4))
        ax = fig.subplots()
        for n, ts in times.items():
            if ts:
                ax.step(ts, np.arange(1, len(ts) + 1) / len(ts), where="post", label=n)
        ax.set_xscale("log")
        ax.set_xlabel("seconds per check (log scale)")
        ax.set_ylabel("share of pairs done")
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small")
        out.append(_figure(_png(fig), "time distribution per system",
                           "Time per check: the share of a system's pairs that finished "
                           "within t seconds (further left is faster)."))
    return "".join(out)


def _rank_cell(rank: int | None, base: int | None) -> str:
    if rank is None:
        return '<td class="n muted">-</td>'
    if base is None or rank == base:
        return f'<td class="n">{rank}</td>'
    cls, mark = ("up", "▲") if rank < base else ("down", "▼")
    title = f"EX-TEST rank {base}"
    return (f'<td class="n {cls}" title="{_e(title)}">{rank} {mark}{abs(rank - base)}'
            f"</td>")


def _systems_table(summary: dict[str, Any]) -> str:
    groups = [("", ["System", "Pairs"]),
              ("Accuracy (# = rank)", ["EX-TEST", "#", "EX-SpotIt", "#", "EX-SpotIt+", "#"]),
              ("", ["Drop", "Extra +", "Coverage"]),
              ("SpotIt verdicts", ["not_eq", "equiv", "spurious", "timeout", "unsupp",
                                   "error"]),
              ("Time", ["median s", "p95 s"])]
    rows = []
    for name, s in summary["systems"].items():
        ranks, v = s["ranks"], s["verdicts"]
        known = "" if s["n_ex_test_known"] == s["pairs"] or s["ex_test"] is None else (
            f' <span class="muted">(of {s["n_ex_test_known"]})</span>')
        cells = [f"<th>{_e(name)}</th>", f'<td class="n">{s["pairs"]}</td>',
                 f'<td class="n">{_pct(s["ex_test"])}{known}</td>',
                 _rank_cell(ranks["ex_test"], None)]
        for m in METRICS[1:]:
            cells += [f'<td class="n">{_pct(s[m])}</td>',
                      _rank_cell(ranks[m], ranks["ex_test"])]
        equiv = str(v.get("equivalent", 0)) + (f" ({s['vacuous']})" if s["vacuous"] else "")
        by = ", ".join(f"{k}: {c}" for k, c in s["extra_errors_by_system"].items())
        cells += [f'<td class="n">{_e(_drop_text(s["drop"]))}</td>',
                  f'<td class="n" title="{_e(by)}">{_count(s["extra_errors_spotit_plus"])}</td>',
                  f'<td class="n">{_pct(s["coverage"])}</td>',
                  f'<td class="n">{v.get("not_equivalent", 0)}</td>',
                  f'<td class="n">{_e(equiv)}</td>',
                  *(f'<td class="n">{v.get(k, 0)}</td>'
                    for k in ("spurious", "timeout", "unsupported", "error")),
                  f'<td class="n">{_secs(s["seconds"]["median"])}</td>',
                  f'<td class="n">{_secs(s["seconds"]["p95"])}</td>']
        rows.append("<tr>" + "".join(cells) + "</tr>")
    top = "".join(f'<th colspan="{len(cols)}" class="group">{_e(g)}</th>' for g, cols in groups)
    sub = "".join(f"<th>{_e(h)}</th>" for _, cols in groups for h in cols)
    return (f'<div class="scroll"><table id="systems-table" class="wide"><thead><tr>{top}</tr>'
            f"<tr>{sub}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>")


def _cex_table(summary: dict[str, Any]) -> str:
    systems = summary["systems"]
    ks = sorted({int(k) for s in systems.values() for k in s["cex_bound"]})
    found = sorted({f for s in systems.values() for f in s["found_by"]})
    if not ks and not found:
        return '<p class="muted">No counterexamples in this run.</p>'
    head = ["System", *(f"k = {k}" for k in ks), *(f"found by {f}" for f in found)]
    rows = ["<tr><th>" + _e(n) + "</th>"
            + "".join(f'<td class="n">{s["cex_bound"].get(str(k), 0)}</td>' for k in ks)
            + "".join(f'<td class="n">{s["found_by"].get(f, 0)}</td>' for f in found)
            + "</tr>" for n, s in systems.items()]
    thead = "".join(f"<th>{_e(h)}</th>" for h in head)
    return f"<table><thead><tr>{thead}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _kv_table(data: dict[str, Any]) -> str:
    rows = []
    for k, v in data.items():
        text = v if isinstance(v, str) else json.dumps(v, default=str, ensure_ascii=False)
        rows.append(f"<tr><th>{_e(k)}</th><td>{_e(text)}</td></tr>")
    return f'<table class="kv">{"".join(rows)}</table>'


_NONE = '<span class="muted">-</span>'


def _ex_test_text(p: Pair) -> str:
    if p.rec.ex_test is None:
        why = f" ({p.rec.ex_test_reason})" if p.rec.ex_test_reason else ""
        return "EX-TEST: unknown" + why + "."
    if p.rec.ex_test:
        return "EX-TEST: accepted (same rows as the gold on the test database)."
    why = f" ({p.rec.ex_test_reason})" if p.rec.ex_test_reason else ""
    return "EX-TEST: rejected" + why + "."


def _pair_section(p: Pair, anchor: str, index: dict[tuple[str, str], Pair],
                  anchors: dict[tuple[str, str], str]) -> str:
    r = p.rec
    w = _witness(p, index)
    if r.verdict == "not_equivalent":
        how = f"k = {r.cex_bound}" if r.cex_bound is not None else "k unknown"
        by = f", found by {r.found_by}" if r.found_by else ""
        status = _e(f"SpotIt: not_equivalent ({how}{by}).")
    else:
        link = anchors.get((p.refuted_by or "", r.question_id))
        other = _e(p.refuted_by)
        other_html = f'<a href="#{_e(link)}">{other}</a>' if link else other
        status = (f"SpotIt's own verdict: {_e(r.verdict)}; refuted through EX-SpotIt+ by the "
                  f"counterexample found for {other_html}'s prediction of this question.")
    parts = [
        f'<article class="pair" id="{_e(anchor)}">',
        f"<h3>{_e(r.system)} · question {_e(r.question_id)} · database {_e(r.db_id)}</h3>",
        f"<p>{status} "
        f"{_e(_ex_test_text(p))}</p>",
        f"<p><strong>Question:</strong> {_e(r.question) or _NONE}</p>",
        '<div class="two"><div><h4>Gold query</h4>'
        f"<pre>{_e(r.gold)}</pre></div><div><h4>Predicted query</h4>"
        f"<pre>{_e(r.pred) if r.pred is not None else '(no prediction)'}</pre></div></div>",
    ]
    if w is None:
        parts.append('<p class="muted">The refuting record is not in this run.</p>')
    else:
        wres = w.rec.result or {}
        origin = "" if w is p else f" (found for {_e(w.rec.system)})"
        parts.append(f"<h4>Counterexample database{origin}</h4>")
        parts.append(_cex_html(w.rec.counterexample, wres.get("counterexample_columns")))
        gold = _result_html(w.rec.gold_result, wres.get("gold_columns"), "gold result")
        if w is p and r.pred_result is None and r.counterexample is not None:
            # a counterexample with no predicted rows: SQLite showed it never stops
            pred = ('<p class="muted">Predicted result: none, the prediction never stops '
                    "on this database (the reason says why).</p>")
        elif w is p:
            pred = _result_html(r.pred_result, (r.result or {}).get("pred_columns"),
                                "predicted result")
        else:
            pred = ('<p class="muted">This prediction\'s result on that database is not '
                    "stored; SQLite showed it differs from the gold result.</p>")
        parts.append(f'<div class="two"><div>{gold}</div><div>{pred}</div></div>')
    if r.reason:
        parts.append(f"<p><strong>Reason:</strong> {_e(r.reason)}</p>")
    parts.append(_needs_html(r.result or {}))
    parts.append('<p><a href="#refuted">↑ index of refuted pairs</a></p></article>')
    return "".join(parts)


def _needs_html(result: dict[str, Any]) -> str:
    """What the difference relies on (``--explain``) and whether it survives the assumed
    constraints (``--constraints``), as short paragraphs."""
    out = []
    explanation = result.get("explanation") or []
    needed = [e["detail"] for e in explanation if e.get("needed") is True]
    free = [e["detail"] for e in explanation if e.get("needed") is False]
    if result.get("explained"):
        out.append("<p><strong>Needs:</strong> " + (_e("; ".join(needed)) if needed else
                   "none of the features its counterexample has") + ".</p>")
        if free:
            out.append(f'<p class="muted">Does not need: {_e("; ".join(free))}.</p>')
    c = result.get("constrained")
    if c:
        violated = "; ".join(c.get("violated") or [])
        text = {"not_equivalent": "the difference survives them",
                "equivalent": "no difference on data that satisfies them"}.get(
            c.get("verdict"), f"undecided ({c.get('verdict')})")
        out.append(f"<p><strong>Under the assumed constraints:</strong> {_e(text)}"
                   + (f"; the counterexample violates {_e(violated)}" if violated else "")
                   + ".</p>")
    return "".join(out)


def _count_table(columns: list[str], rows: list[list[Any]]) -> str:
    """A small table of names and counts (counts right-aligned)."""
    head = "".join(f"<th>{_e(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(
        f'<td class="n">{v}</td>' if isinstance(v, int) else f"<td>{_e(str(v))}</td>"
        for v in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _assumptions_table(summary: dict[str, Any]) -> str:
    """Per system: refutations under assumed constraints, and what the refutations need."""
    systems = summary["systems"]
    out = []
    assumed = {n: s["constraints"] for n, s in systems.items() if s.get("constraints")}
    if assumed:
        rows = [[n, c["refutations"], c["surviving"], c["removed"], c["undecided"],
                 ", ".join(f"{k} {v}" for k, v in c["removed_by_kind"].items()) or "-"]
                for n, c in assumed.items()]
        out.append("<h3>Under the assumed constraints</h3><p>Refutations checked again on "
                   "data that satisfies the constraints.</p>" + _count_table(
                       ["System", "refuted", "survive", "removed", "undecided",
                        "removed by kind"], rows))
    explained = {n: s["explanations"] for n, s in systems.items() if s.get("explanations")}
    if explained:
        kinds = _feature_kinds(explained)
        rows = [[n, e["explained"],
                 *(f"{e['needs'].get(k, 0)}/{e.get('has', {}).get(k, 0)}" for k in kinds),
                 e["needs_none_found"]] for n, e in explained.items()]
        out.append('<h3>What the refutations need</h3><p>Refutations by the features they '
                   'need, of those whose counterexample has the feature (an inexact '
                   'division is never searched again: it is only had, never needed; '
                   '<a href="#needs">index of the pairs</a>).</p>' + _count_table(
                       ["System", "explained", *(f"need {k}/has" for k in kinds),
                        "need none of them"], rows))
    return "".join(out)


def _feature_index(refuted: list[Pair], anchors: dict[tuple[str, str], str],
                   systems: list[str]) -> str:
    """Refuted pairs by what they need (``--explain``): a filter that needs no script."""
    kinds: dict[str, str] = {}

    def listed(e: dict[str, Any]) -> bool:  # needed, or had and never searched again
        return e.get("needed") is True or e["feature"] == "inexact_division"

    for p in refuted:
        for e in (p.rec.result or {}).get("explanation") or []:
            if listed(e):
                kinds.setdefault(e["feature"], e["detail"].split(" in ")[0])
    if not kinds:
        return ""
    head = "".join(f"<th>{'has' if k == 'inexact_division' else 'needs'} {_e(label)}</th>"
                   for k, label in kinds.items())
    rows = []
    for name in systems:
        cells = []
        for kind in kinds:
            links = [f'<a href="#{_e(anchors[(p.rec.system, p.rec.question_id)])}">'
                     f"{_e(p.rec.question_id)}</a>" for p in refuted
                     if p.rec.system == name and any(
                         listed(e) and e["feature"] == kind
                         for e in (p.rec.result or {}).get("explanation") or [])]
            cells.append(f'<td class="idx">{"".join(links) or "-"}</td>')
        rows.append(f"<tr><th>{_e(name)}</th>{''.join(cells)}</tr>")
    return ('<h3 id="needs">By what the difference needs</h3><p>A refutation needs a '
            "feature when no difference exists within the bound without it (searched "
            "again with the feature forbidden); an inexact integer division or rounding, "
            "which cannot be forbidden, is listed when the counterexample has it.</p>"
            f'<table class="wide"><thead><tr><th>System</th>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>")


def _refuted_index(refuted: list[Pair], anchors: dict[tuple[str, str], str],
                   systems: list[str]) -> str:
    groups = (("EX-TEST accepted", True), ("EX-TEST rejected", False),
              ("EX-TEST unknown", None))
    used = [(label, flag) for label, flag in groups
            if any(p.rec.ex_test is flag for p in refuted)]
    head = "".join(f"<th>{_e(label)}</th>" for label, _ in used)
    rows = []
    for name in systems:
        cells = []
        for _, flag in used:
            links = [f'<a href="#{_e(anchors[(p.rec.system, p.rec.question_id)])}">'
                     f"{_e(p.rec.question_id)}</a>"
                     for p in refuted if p.rec.system == name and p.rec.ex_test is flag]
            cells.append(f'<td class="idx">{"".join(links) or "-"}</td>')
        rows.append(f"<tr><th>{_e(name)}</th>{''.join(cells)}</tr>")
    return (f'<table class="wide"><thead><tr><th>System</th>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>")


def _difficulty_html(summary: dict[str, Any]) -> str:
    """Every metric per difficulty label (and against the audited gold, when re-scored)."""
    systems = summary["systems"]
    levels = sorted({d for s in systems.values() for d in s.get("by_difficulty") or {}},
                    key=_difficulty_order)
    if not levels:
        return ""
    audited = (summary.get("audited") or {}).get("systems") or {}
    metrics = [(m, METRIC_NAMES[m]) for m in METRICS]
    if audited:
        metrics += [(f"audited:{m}", f"{METRIC_NAMES[m]} (audited)") for m in METRICS]
    head = "".join(f'<th colspan="{len(levels)}" class="group">{_e(t)}</th>'
                   for _, t in metrics)
    sub = "".join(f"<th>{_e(d)}</th>" for _ in metrics for d in levels)
    rows = []
    for name, s in systems.items():
        cells = []
        for m, _ in metrics:
            for d in levels:
                if m.startswith("audited:"):
                    v = ((audited.get(name) or {}).get("by_difficulty") or {}).get(d, {})
                    value = v.get(m.split(":", 1)[1])
                else:
                    value = (s.get("by_difficulty") or {}).get(d, {}).get(m)
                cells.append(f'<td class="n">{_pct(value)}</td>')
        rows.append(f"<tr><th>{_e(name)}</th>{''.join(cells)}</tr>")
    first = next(iter(systems.values()))["by_difficulty"]
    counts = ", ".join(f"{d}: {first.get(d, {}).get('pairs', 0)}" for d in levels)
    return ('<h3 id="difficulty">By difficulty</h3>'
            f"<p>Questions per difficulty (first system): {_e(counts)}.</p>"
            f'<div class="scroll"><table class="wide"><thead><tr><th></th>{head}</tr>'
            f"<tr><th>System</th>{sub}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
            "</div>")


def _audited_html(summary: dict[str, Any]) -> str:
    """The leaderboard against the audited gold: metrics, rank moves, Kendall tau, and
    every prediction whose outcome changed, with why."""
    a = summary.get("audited")
    if not a:
        return ""
    systems = summary["systems"]
    rows = []
    for name, s in a["systems"].items():
        cells = [f"<th>{_e(name)}</th>", f'<td class="n">{s["n"]}</td>']
        for m in METRICS:
            cells += [f'<td class="n">{_pct(systems[name][m])}</td>',
                      f'<td class="n">{_pct(s[m])}</td>',
                      _rank_cell(s["ranks"][m], systems[name]["ranks"].get(m))]
        rows.append("<tr>" + "".join(cells) + "</tr>")
    head = "".join(f'<th colspan="3" class="group">{_e(METRIC_NAMES[m])}</th>'
                   for m in METRICS)
    sub = "".join("<th>before</th><th>audited</th><th>#</th>" for _ in METRICS)
    taus = "; ".join(f"{METRIC_NAMES[m]}: " + ("undefined" if t is None else f"{t:.2f}")
                     for m, t in a["kendall_tau"].items())
    fixes = "".join(
        f"<tr><td>{_e(q['question_id'])}</td><td>{_e(q['action'])}</td>"
        f"<td><pre>{_e(q['sql'] or '')}</pre></td><td>{_e(q['source'])}</td>"
        f"<td>{_e(q['note'])}</td></tr>" for q in a["questions"])
    changes = "".join(
        f"<tr><td>{_e(c['question_id'])}</td><td>{_e(c['system'])}</td>"
        f"<td>{_e(c['before'])} → {_e(c['after'])}</td><td>{_e(c['verdict'])}</td>"
        f"<td>{_e(c['why'])}</td><td>{_e(c['ex_test_source'])}</td></tr>"
        for c in a["changes"])
    return (
        '<h3 id="audited">Against the audited gold</h3>'
        f"<p>{a['fixes']['corrected']} gold queries corrected, {a['fixes']['excluded']} "
        f"questions excluded ({_e(', '.join(a['fixes']['sources']))}). A prediction of a "
        "corrected question is judged against the corrected gold through the audit's "
        "classes; without test databases its EX-TEST is “no counterexample shows it "
        "differs”. Ranks: ▲/▼ against the same metric before the audit. Kendall τ-b "
        f"between the rankings before and after: {_e(taus)}.</p>"
        f'<div class="scroll"><table class="wide"><thead><tr><th></th><th></th>{head}</tr>'
        f"<tr><th>System</th><th>Pairs</th>{sub}</tr></thead><tbody>{''.join(rows)}"
        "</tbody></table></div>"
        "<details><summary>The audited questions</summary><table class=\"wide\"><thead>"
        "<tr><th>Question</th><th>Action</th><th>Corrected gold</th><th>Source</th>"
        f"<th>Note</th></tr></thead><tbody>{fixes}</tbody></table></details>"
        f"<details><summary>Predictions whose outcome changed ({len(a['changes'])})"
        "</summary><table class=\"wide\"><thead><tr><th>Question</th><th>System</th>"
        "<th>EX-SpotIt+ before → after</th><th>Against the corrected gold</th><th>Why</th>"
        f"<th>EX-TEST from</th></tr></thead><tbody>{changes}</tbody></table></details>")


def _audit_html(gold_audit) -> str:
    if gold_audit is None:
        return ""
    from spotit.experiments.audit_report import audit_section

    return audit_section(*gold_audit)


def render_html(summary: dict[str, Any], pairs: list[Pair],
                gold_audit: tuple[dict[str, Any], list[dict[str, Any]]] | None = None) -> str:
    """index.html: one self-contained page (inline CSS, PNG plots as data: URLs, no
    script; a Content-Security-Policy forbids any network fetch). With a gold audit,
    its section follows the systems table."""
    settings = dict(summary["settings"])
    provenance = settings.pop("provenance", {}) or {}
    systems = summary["systems"]
    names = list(systems)
    unknown = all(s["ex_test"] is None for s in systems.values())
    title = f"SpotIt report: {settings.get('benchmark', 'evaluation')}, run {settings['run_id']}"
    taus = summary["kendall_tau"]
    tau_text = "; ".join(
        f"EX-TEST vs {METRIC_NAMES[m]}: " + ("undefined" if taus[m] is None else f"{taus[m]:.2f}")
        for m in METRICS[1:])
    index = {(p.rec.system, p.rec.question_id): p for p in pairs}
    refuted = [p for p in pairs if p.refuted]
    used: set[str] = set()
    anchors = {(p.rec.system, p.rec.question_id): _anchor(p.rec.system, p.rec.question_id, used)
               for p in refuted}
    sections = [_pair_section(p, anchors[(p.rec.system, p.rec.question_id)], index, anchors)
                for p in refuted]
    legend = "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in _LEGEND)
    banner = ('<p class="note"><strong>EX-TEST is unknown</strong> for every pair (no test '
              "databases or labels were given): accuracies and ranks are shown as “-”, and "
              "only SpotIt's verdicts are reported.</p>") if unknown else ""
    accepted = sum(1 for p in refuted if p.rec.ex_test is True)
    body = [
        "<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "img-src data:; style-src 'unsafe-inline'\">",
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>",
        f"<header><h1>{_e(title)}</h1>",
        "<p>SpotIt checked each system's predicted SQL against the gold query by searching "
        "for a small database on which the two return different rows, confirmed on SQLite. "
        "This page compares that with execution accuracy on the test database (EX-TEST). "
        'The run\'s settings are at the <a href="#settings">end</a>.</p></header>',
        '<section id="systems"><h2>Leaderboard</h2>', banner, _systems_table(summary),
        _assumptions_table(summary),
        f"<p><strong>Kendall τ-b</strong> between the EX-TEST ranking and the others "
        f"(1 = same order, −1 = reversed): {_e(tau_text)}.</p>",
        '<dl class="legend">', legend, "</dl>",
        _audited_html(summary), _difficulty_html(summary), _test_databases_html(summary),
        "<h3>Counterexamples</h3>",
        "<p>k is the smallest bound (most rows in any one table) at which SpotIt found a "
        "counterexample; “found by” says whether the solver or the random search found it."
        "</p>", _cex_table(summary), "</section>",
        _audit_html(gold_audit),
        '<section id="plots"><h2>Plots</h2><div class="plots">', _plots(summary, pairs),
        "</div></section>",
        '<section id="refuted"><h2>Refuted pairs</h2>',
        f"<p>{len(refuted)} pairs have a confirmed counterexample (their own, or another "
        f"system's for the same question); {accepted} of them EX-TEST accepted — those are "
        "the ones to audit (audit.csv lists them with an empty label column). Links go to "
        "each pair's details below; tables show at most "
        f"{ROW_CAP} rows.</p>",
        _refuted_index(refuted, anchors, names),
        _feature_index(refuted, anchors, names), "</section>",
        '<section id="pairs">', *sections, "</section>",
        '<section id="settings"><details><summary>Settings of the run</summary>',
        _kv_table(settings), "</details>",
        "<details><summary>Provenance (versions and machine)</summary>",
        _kv_table(provenance), "</details></section>", "</body></html>",
    ]
    return "\n".join(body) + "\n"
