"""The gold audit's outputs: audit.jsonl, audit.csv and the Audit section of index.html.

Computed from the stored findings alone (``ResultsStore.audit``); formats are
documented in docs/results-store.md ("The gold audit").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from spotit.experiments.audit import FINDINGS, FLAGGED

AUDIT_CSV_FIELDS = (
    "rank", "question_id", "db_id", "difficulty", "finding", "score", "agree",
    "agree_systems", "gold_systems", "question", "gold", "proposed_correction", "needs",
    "cex_bound", "undecided_pairs", "verdict", "correction", "note",
)
VERDICT_LABELS = ("wrong gold", "wrong prediction", "ambiguous", "fine")
FINDING_TEXT = {
    "gold-alone": "no prediction agrees with the gold, and enough systems agree with "
                  "each other",
    "gold-minority": "fewer systems agree with the gold than with another answer",
    "gold-undecided": "enough systems agree with each other, but whether the gold differs "
                      "was not decided",
    "split": "the systems do not agree on one answer",
    "consensus-with-gold": "the largest group of systems agrees with the gold",
}


def ranked(findings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Flagged findings by score (highest first), then the others by kind and question."""
    def key(f: dict[str, Any]) -> tuple:
        flagged = f["finding"] in FLAGGED
        return (0 if flagged else 1 + FINDINGS.index(f["finding"]),
                -(f.get("score") or 0.0), _qid(f["question_id"]))
    return sorted(findings, key=key)


def _qid(q: str) -> tuple:
    return (0, int(q), "") if str(q).isdigit() else (1, 0, str(q))


def csv_row(rank: int, f: dict[str, Any]) -> dict[str, Any]:
    classes = f.get("classes") or []
    maj = f.get("majority_class")
    gold_class = f.get("gold_class")
    agree = classes[maj]["systems"] if maj is not None and classes else []
    with_gold = classes[gold_class]["systems"] if gold_class is not None and classes else []
    return {
        "rank": rank, "question_id": f["question_id"], "db_id": f["db_id"],
        "difficulty": f.get("difficulty", ""), "finding": f["finding"],
        "score": f.get("score"), "agree": len(agree), "agree_systems": " ".join(agree),
        "gold_systems": " ".join(with_gold), "question": f.get("question", ""),
        "gold": f["gold"], "proposed_correction": f.get("proposal"),
        "needs": " ".join(f.get("needs") or []), "cex_bound": f.get("cex_bound"),
        "undecided_pairs": len(f.get("undecided") or []),
        "verdict": "", "correction": "", "note": "",
    }


def write_audit(findings: list[dict[str, Any]], out_dir: str | Path) -> tuple[Path, Path]:
    """audit.jsonl (one object per question, question order) and audit.csv (ranked)."""
    from spotit.experiments.report import _write_csv

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    jsonl = out / "audit.jsonl"
    with jsonl.open("w", encoding="utf-8") as fh:
        for f in findings:
            fh.write(json.dumps(f, default=str, ensure_ascii=False) + "\n")
    rows = [csv_row(i + 1, f) for i, f in enumerate(ranked(findings))]
    csv_path = out / "audit.csv"
    _write_csv(csv_path, AUDIT_CSV_FIELDS, rows)
    return jsonl, csv_path


def summary_text(findings: list[dict[str, Any]]) -> str:
    from spotit.experiments.audit import summarize

    s = summarize(findings)
    counts = ", ".join(f"{k} {v}" for k, v in s["findings"].items())
    top = [f for f in ranked(findings) if f["finding"] in FLAGGED][:10]
    lines = [f"gold audit of {s['questions']} questions: {counts}"]
    if top:
        lines.append("highest-scored findings (question: score, systems agreeing):")
        for f in top:
            agree = f.get("score_inputs", {}).get("agree")
            lines.append(f"  {f['question_id']}: {f['score']}, {agree} agree -- "
                         f"{(f.get('proposal') or '')[:90]}")
    return "\n".join(lines)


# ---------------------------------------------------------------------- HTML


def audit_anchor(question_id: str) -> str:
    import re

    return "audit-" + (re.sub(r"[^A-Za-z0-9_.-]", "_", str(question_id)) or "q")


def audit_section(settings: dict[str, Any], findings: list[dict[str, Any]]) -> str:
    """The Audit section of index.html: counts, findings ranked by score with links,
    then one block per flagged question."""
    from spotit.experiments.audit import summarize
    from spotit.experiments.report import _cex_html, _e, _result_html

    s = summarize(findings)
    order = ranked(findings)
    flagged = [f for f in order if f["finding"] in FLAGGED]
    counts = "".join(f"<tr><th>{_e(k)}</th><td>{v}</td><td>{_e(FINDING_TEXT[k])}</td></tr>"
                     for k, v in s["findings"].items())
    index_rows = "".join(
        f'<tr><td><a href="#{audit_anchor(f["question_id"])}">{_e(f["question_id"])}</a>'
        f"</td><td>{_e(f['finding'])}</td><td>{_e(f.get('score'))}</td>"
        f"<td>{_e(', '.join(f.get('score_inputs', {}).get('agree_systems', [])))}</td>"
        f"<td>{_e(', '.join(f.get('needs') or []) or '-')}</td>"
        f"<td><code>{_e(_short(f.get('proposal')))}</code></td></tr>" for f in flagged)
    blocks = []
    for f in flagged:
        classes = "".join(
            f"<li>{'<strong>gold</strong> ' if c['gold'] else ''}"
            f"{_e(', '.join(c['systems']) or '(no system)')}"
            f"{' — majority' if c['id'] == f.get('majority_class') else ''}: "
            + "".join(f"<pre>{_e(f['members'][i]['sql'])}</pre>" for i in c["members"])
            + "</li>" for c in f.get("classes") or [])
        needs = "".join(f"<li>{_e(e.get('detail', e['feature']))}: {_needed(e)}</li>"
                        for e in f.get("explanation") or [])
        inputs = f.get("score_inputs") or {}
        blocks.append(
            f'<article class="pair" id="{audit_anchor(f["question_id"])}">'
            f"<h3>Question {_e(f['question_id'])} ({_e(f['db_id'])}): {_e(f['finding'])}, "
            f"score {_e(f.get('score'))}</h3>"
            f"<p>{_e(f.get('question', ''))}</p>"
            f"<h4>Gold</h4><pre>{_e(f['gold'])}</pre>"
            f"<h4>Proposed correction</h4><pre>{_e(f.get('proposal') or '-')}</pre>"
            f"<p>written by {_e(', '.join(f.get('proposal_systems') or []) or '-')}</p>"
            f"<h4>Classes</h4><ul>{classes}</ul>"
            f"<h4>Counterexample (k = {_e(f.get('cex_bound'))})</h4>"
            f"{_cex_html(f.get('counterexample'), None)}"
            f'<div class="tables">{_result_html(f.get("gold_result"), None, "gold result")}'
            f"{_result_html(f.get('majority_result'), None, 'majority result')}</div>"
            f"<h4>What the difference needs</h4>"
            f"<ul>{needs or '<li>not explained</li>'}</ul>"
            f"<p class=\"muted\">score inputs: {_e(json.dumps(inputs, default=str))}</p>"
            "</article>")
    return (
        '<section id="audit"><h2>Audit: which side is wrong?</h2>'
        "<p>For each question the gold and every prediction are grouped into classes of "
        "queries SpotIt proved equivalent; a SQLite-confirmed counterexample puts two "
        f"apart, an undecided check never merges them. A class needs at least "
        f"{_e(settings.get('min_agree'))} systems to outvote the gold. The score "
        "(0–100) ranks the findings: how many independent systems agree beyond those "
        "agreeing with the gold, their EX-TEST accuracy where known, and whether the "
        "difference needs only ordinary data (docs/audit.md).</p>"
        f'<table class="counts"><tbody>{counts}</tbody></table>'
        f"<h3>Findings, highest score first ({len(flagged)})</h3>"
        '<table class="wide"><thead><tr><th>Question</th><th>Finding</th><th>Score</th>'
        "<th>Systems agreeing</th><th>Needs</th><th>Proposed correction</th></tr></thead>"
        f"<tbody>{index_rows or '<tr><td colspan=6>none</td></tr>'}</tbody></table>"
        + "".join(blocks) + "</section>")


def _needed(entry: dict[str, Any]) -> str:
    return {True: "needed", False: "not needed"}.get(entry.get("needed"), "undecided")


def _short(sql: str | None, width: int = 120) -> str:
    if not sql:
        return "-"
    text = " ".join(sql.split())
    return text if len(text) <= width else text[: width - 1] + "…"
