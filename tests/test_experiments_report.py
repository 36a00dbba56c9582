"""The evaluation report, on a results store built by hand.

Every expectation below is derived by hand from the table in ``_PLAN`` (see the comments
there), never copied from the report's own output.
"""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from spotit.experiments.report import (
    AUDIT_FIELDS,
    PAIR_FIELDS,
    competition_ranks,
    kendall_tau_b,
    paired_bootstrap_ci,
    summary_table,
    write_report,
)
from spotit.experiments.store import PairRecord, ResultsStore

SCRIPT_PRED = "SELECT '<script>alert(1)</script>' FROM t WHERE a < 1 & b"
CEX = {"t": [{"a": 0, "b": "x<y"}, {"a": None, "b": "z"}]}

# (system, question, ex_test, verdict, refuted_by, extras)
# alpha: EX-TEST 3/4; EX-SpotIt 2/4 (q2 refuted); EX-SpotIt+ 1/4 (q3 refuted by beta)
# beta:  EX-TEST 4/4; EX-SpotIt 3/4 (q3 refuted); EX-SpotIt+ 3/4; coverage 3/4 (q4 unsupported)
# gamma: EX-TEST known for q2..q4 only: 2/3; EX-SpotIt 2/3; EX-SpotIt+ 1/3 (q4 by alpha)
_PLAN = [
    ("alpha", "1", True, "equivalent", None, {"seconds": 1.0}),
    ("alpha", "2", True, "not_equivalent", None,
     {"seconds": 2.0, "cex_bound": 1, "found_by": "solver", "pred": SCRIPT_PRED,
      "counterexample": CEX, "gold_result": [[0]], "pred_result": [["<script>alert(1)</script>"]]}),
    ("alpha", "3", True, "equivalent", "beta", {"seconds": 3.0}),
    ("alpha", "4", False, "not_equivalent", None,
     {"seconds": 4.0, "cex_bound": 2, "found_by": "random search", "counterexample": CEX,
      "gold_result": [], "pred_result": [[1]]}),
    ("beta", "1", True, "equivalent", None, {"seconds": 0.5, "vacuous": ["gold"]}),
    ("beta", "2", True, "timeout", None, {"seconds": 60.0}),
    ("beta", "3", True, "not_equivalent", None,
     {"seconds": 0.5, "cex_bound": 1, "found_by": "random search", "counterexample": CEX,
      "gold_result": [[7]], "pred_result": []}),
    ("beta", "4", True, "unsupported", None, {"seconds": 0.1}),
    ("gamma", "1", None, "equivalent", None, {"seconds": 1.0}),
    ("gamma", "2", False, "error", None, {"seconds": 0.0}),
    ("gamma", "3", True, "equivalent", None, {"seconds": 2.0}),
    ("gamma", "4", True, "equivalent", "alpha", {"seconds": 3.0}),
]
SETTINGS = {"benchmark": "bird", "bound": 3, "solver": "z3", "timeout": 60,
            "semantics": "set", "systems": ["alpha", "beta", "gamma"], "questions": 4}
PROVENANCE = {"spotit_version": "0.1.0", "git_hash": "abc", "z3": "4.13", "python": "3.11",
              "platform": "linux", "started": "2024-01-01T00:00:00"}


def _record(system: str, qid: str, ex_test: bool | None, verdict: str, extras: dict,
            *, key_suffix: str = "") -> PairRecord:
    fields = {"pred": f"SELECT {qid} FROM t", **extras}
    return PairRecord(key=f"{system}-{qid}{key_suffix}", system=system, question_id=qid,
                      db_id="shop", gold=f"SELECT {qid} FROM t -- gold", semantics="set",
                      verdict=verdict, question=f"Question {qid} & more?", ex_test=ex_test,
                      ex_test_source="database" if ex_test is not None else "",
                      reason=f"because {verdict}", **fields)


def build_store(path: Path, *, without_ex_test: bool = False) -> Path:
    store = ResultsStore(path)
    records, refuted = [], {}
    for system, qid, ex_test, verdict, refuted_by, extras in _PLAN:
        rec = _record(system, qid, None if without_ex_test else ex_test, verdict, extras)
        records.append(rec)
        if refuted_by:
            refuted[rec.key] = refuted_by
    store.put(records)
    run_id = store.start_run(SETTINGS, PROVENANCE)
    store.add_to_run(run_id, records)
    store.set_refuted_by(run_id, refuted)
    store.finish_run(run_id)
    store.close()
    return path


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> tuple[dict, Path]:
    tmp = tmp_path_factory.mktemp("report")
    store = build_store(tmp / "results.sqlite")
    out = tmp / "out"
    return write_report(store, out, bootstrap_iterations=500, seed=7), out


# ---------------------------------------------------------------------- statistics


def test_competition_ranks_share_the_best_rank():
    assert competition_ranks({"a": 0.5, "b": 0.9, "c": 0.5, "d": 0.1, "e": None}) == {
        "a": 2, "b": 1, "c": 2, "d": 4, "e": None}


def test_kendall_tau_b_hand_values():
    assert kendall_tau_b([1, 2, 3, 4], [1, 2, 3, 4]) == pytest.approx(1.0)
    assert kendall_tau_b([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    # 6 pairs, one discordant (items 2 and 3): (5 - 1) / 6
    assert kendall_tau_b([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(4 / 6)
    # x ties items 1,2; y ties items 2,3; the other 4 pairs concordant:
    # tau-b = 4 / sqrt((6 - 1) * (6 - 1)) = 0.8 (tau-a would be 4/6)
    assert kendall_tau_b([1, 2, 2, 3], [1, 2, 3, 3]) == pytest.approx(0.8)
    # x ties items 0,1 and y ties items 2,3; pairs (0,2) (0,3) (1,2) (1,3) concordant
    # tau-b = 4 / sqrt(5 * 5)
    assert kendall_tau_b([1, 1, 2, 3], [1, 2, 3, 3]) == pytest.approx(0.8)
    # x = (1,1,2): untied pairs 2, y = (1,2,3): untied 3; s = 2: 2 / sqrt(6)
    assert kendall_tau_b([1, 1, 2], [1, 2, 3]) == pytest.approx(2 / 6 ** 0.5)
    assert kendall_tau_b([1, 1, 1], [1, 2, 3]) is None
    assert kendall_tau_b([1], [1]) is None


def test_bootstrap_is_seeded_and_brackets_the_estimate():
    a = np.array([1, 1, 1, 1, 0, 1, 1, 0, 1, 1], dtype=float)
    b = np.array([1, 0, 1, 1, 0, 1, 0, 0, 1, 1], dtype=float)
    ci = paired_bootstrap_ci(a, b, iterations=1000, seed=3)
    assert ci == paired_bootstrap_ci(a, b, iterations=1000, seed=3)
    assert ci[0] <= (a - b).mean() <= ci[1]
    assert 0.0 <= ci[0] < ci[1] <= 0.6  # a 0/1 difference of 2 in 10: never negative
    # a count that is not a multiple of the block size: every draw is filled in
    lo, hi = paired_bootstrap_ci(a, b, iterations=1234, seed=3)
    assert 0.0 <= lo <= 0.2 <= hi <= 0.6
    assert paired_bootstrap_ci(a, b, iterations=0, seed=3) is None
    assert paired_bootstrap_ci(a[:0], b[:0], iterations=10, seed=3) is None
    # continuous data: equal intervals mean equal draws, so the seed must decide them
    x = np.linspace(0.0, 1.0, 37) ** 2
    zeros = np.zeros_like(x)
    first = paired_bootstrap_ci(x, zeros, iterations=300, seed=11)
    assert first == paired_bootstrap_ci(x, zeros, iterations=300, seed=11)
    assert first != paired_bootstrap_ci(x, zeros, iterations=300, seed=12)
    same = np.ones(5)
    assert paired_bootstrap_ci(same, same, iterations=50, seed=0) == [0.0, 0.0]


# ---------------------------------------------------------------------- summary.json


def test_accuracies_by_hand(report):
    summary, _ = report
    s = summary["systems"]
    assert list(s) == ["alpha", "beta", "gamma"]
    assert (s["alpha"]["ex_test"], s["alpha"]["ex_spotit"], s["alpha"]["ex_spotit_plus"]) == (
        0.75, 0.5, 0.25)
    assert (s["beta"]["ex_test"], s["beta"]["ex_spotit"], s["beta"]["ex_spotit_plus"]) == (
        1.0, 0.75, 0.75)
    assert s["gamma"]["n_ex_test_known"] == 3 and s["alpha"]["n_ex_test_known"] == 4
    assert s["gamma"]["ex_test"] == pytest.approx(2 / 3)
    assert s["gamma"]["ex_spotit"] == pytest.approx(2 / 3)
    assert s["gamma"]["ex_spotit_plus"] == pytest.approx(1 / 3)
    assert s["alpha"]["extra_errors_spotit_plus"] == 1
    assert s["alpha"]["extra_errors_by_system"] == {"beta": 1}
    assert s["beta"]["extra_errors_spotit_plus"] == 0
    assert s["gamma"]["extra_errors_by_system"] == {"alpha": 1}
    assert s["beta"]["coverage"] == 0.75 and s["gamma"]["coverage"] == 0.75
    assert s["alpha"]["coverage"] == 1.0
    assert s["beta"]["vacuous"] == 1 and s["alpha"]["vacuous"] == 0
    assert s["alpha"]["verdicts"] == {"not_equivalent": 2, "equivalent": 2, "spurious": 0,
                                      "timeout": 0, "unsupported": 0, "error": 0}
    assert s["alpha"]["cex_bound"] == {"1": 1, "2": 1}
    assert s["beta"]["cex_bound"] == {"1": 1} and s["gamma"]["cex_bound"] == {}
    assert s["alpha"]["found_by"] == {"random search": 1, "solver": 1}
    # alpha seconds 1, 2, 3, 4: median 2.5, mean 2.5, p95 = 3 + 0.85 * 1 (linear)
    assert s["alpha"]["seconds"] == pytest.approx({"median": 2.5, "p95": 3.85, "mean": 2.5})


def test_ranks_and_kendall_tau_by_hand(report):
    summary, _ = report
    ranks = {n: s["ranks"] for n, s in summary["systems"].items()}
    # EX-TEST: beta 1.0 > alpha .75 > gamma .667; EX-SpotIt: beta .75 > gamma .667 > alpha .5;
    # EX-SpotIt+: beta .75 > gamma .333 > alpha .25
    assert ranks == {
        "alpha": {"ex_test": 2, "ex_spotit": 3, "ex_spotit_plus": 3},
        "beta": {"ex_test": 1, "ex_spotit": 1, "ex_spotit_plus": 1},
        "gamma": {"ex_test": 3, "ex_spotit": 2, "ex_spotit_plus": 2},
    }
    # orders (beta, alpha, gamma) vs (beta, gamma, alpha): 2 concordant, 1 discordant
    assert summary["kendall_tau"]["ex_spotit"] == pytest.approx(1 / 3)
    assert summary["kendall_tau"]["ex_spotit_plus"] == pytest.approx(1 / 3)


def test_drop_interval_reproducible(report, tmp_path):
    summary, _ = report
    drop = summary["systems"]["alpha"]["drop"]
    assert drop["value"] == pytest.approx(0.25)
    lo, hi = drop["ci95"]
    assert lo <= drop["value"] <= hi
    assert summary["systems"]["gamma"]["drop"] == {"value": 0.0, "ci95": [0.0, 0.0]}
    assert summary["systems"]["alpha"]["drop_plus"]["value"] == pytest.approx(0.5)
    store = build_store(tmp_path / "again.sqlite")
    again = write_report(store, tmp_path / "out", bootstrap_iterations=500, seed=7)
    assert again["systems"]["alpha"]["drop"] == drop
    assert again["settings"]["bootstrap_seed"] == 7
    assert again["settings"]["bootstrap_iterations"] == 500


def test_summary_json_settings_and_strict_json(report):
    _, out = report

    def no_constants(name):
        raise AssertionError(f"summary.json holds {name}")

    data = json.loads((out / "summary.json").read_text(), parse_constant=no_constants)
    assert set(data) == {"settings", "systems", "kendall_tau"}
    st = data["settings"]
    for key in ("benchmark", "bound", "solver", "timeout", "semantics", "systems",
                "questions", "run_id", "provenance", "bootstrap_seed", "bootstrap_iterations"):
        assert key in st
    assert st["provenance"]["git_hash"] == "abc" and st["records"] == 12
    for s in data["systems"].values():
        for key in ("pairs", "verdicts", "coverage", "ex_test", "ex_spotit", "ex_spotit_plus",
                    "extra_errors_spotit_plus", "drop", "seconds", "ranks", "vacuous",
                    "cex_bound", "found_by"):
            assert key in s
        assert set(s["drop"]) == {"value", "ci95"}
        assert set(s["seconds"]) == {"median", "p95", "mean"}


def test_unknown_ex_test_is_null_everywhere(tmp_path):
    store = build_store(tmp_path / "r.sqlite", without_ex_test=True)
    summary = write_report(store, tmp_path / "out", bootstrap_iterations=100)
    for s in summary["systems"].values():
        assert s["ex_test"] is None and s["ex_spotit"] is None and s["ex_spotit_plus"] is None
        assert s["n_ex_test_known"] == 0
        assert s["drop"] == {"value": None, "ci95": None}
        assert s["ranks"] == {"ex_test": None, "ex_spotit": None, "ex_spotit_plus": None}
        assert s["extra_errors_spotit_plus"] is None
    assert summary["systems"]["alpha"]["refuted_by_other"] == 1
    assert summary["kendall_tau"] == {"ex_spotit": None, "ex_spotit_plus": None}
    assert summary["systems"]["alpha"]["verdicts"]["not_equivalent"] == 2
    text = (tmp_path / "out" / "summary.json").read_text()
    assert "NaN" not in text and "N/A" not in text
    assert '"ex_test": null' in text
    page = (tmp_path / "out" / "index.html").read_text()
    assert "EX-TEST is unknown" in page and 'id="alpha-2"' in page
    table = summary_table(summary)
    assert "EX-TEST is unknown" in table and "alpha" in table
    with (tmp_path / "out" / "audit.csv").open() as f:
        assert list(csv.DictReader(f)) == []


def test_summary_table_text(report):
    summary, _ = report
    text = summary_table(summary)
    lines = text.splitlines()
    alpha = next(line for line in lines if line.startswith("alpha"))
    assert "75.0% (2)" in alpha and "50.0% (3)" in alpha and "25.0% (3)" in alpha
    assert "25.0 [" in alpha and "100.0%" in alpha
    assert "EX-TEST known for only some pairs of: gamma" in text
    assert "EX-TEST vs EX-SpotIt ranking: 0.33" in text
    assert max(len(line) for line in lines) <= 100


# ---------------------------------------------------------------------- pair files


def test_pairs_jsonl_and_csv(report):
    _, out = report
    rows = [json.loads(line) for line in (out / "pairs.jsonl").read_text().splitlines()]
    assert len(rows) == 12
    assert all(tuple(r) == PAIR_FIELDS for r in rows)
    by = {(r["system"], r["question_id"]): r for r in rows}
    a2 = by[("alpha", "2")]
    assert a2["verdict"] == "not_equivalent" and a2["cex_bound"] == 1
    assert a2["counterexample"] == CEX and a2["pred"] == SCRIPT_PRED
    assert a2["ex_test"] is True and a2["ex_spotit"] is False and a2["refuted_by"] is None
    assert by[("alpha", "3")]["refuted_by"] == "beta"
    assert by[("alpha", "3")]["ex_spotit"] is True
    assert by[("alpha", "3")]["ex_spotit_plus"] is False
    assert by[("gamma", "1")]["ex_test"] is None and by[("gamma", "1")]["ex_spotit"] is None
    assert by[("beta", "1")]["vacuous"] == ["gold"]
    assert len(a2["gold_sha"]) == 64
    with (out / "pairs.csv").open(newline="") as f:
        reader = csv.DictReader(f)
        assert tuple(reader.fieldnames) == PAIR_FIELDS
        crows = list(reader)
    assert len(crows) == 12
    c2 = next(r for r in crows if (r["system"], r["question_id"]) == ("alpha", "2"))
    assert json.loads(c2["counterexample"]) == CEX
    assert c2["ex_test"] == "true" and c2["ex_spotit"] == "false" and c2["refuted_by"] == ""
    g1 = next(r for r in crows if (r["system"], r["question_id"]) == ("gamma", "1"))
    assert g1["ex_test"] == "" and g1["cex_bound"] == ""


def test_audit_has_exactly_accepted_and_refuted_pairs(report):
    _, out = report
    with (out / "audit.csv").open(newline="") as f:
        reader = csv.DictReader(f)
        assert tuple(reader.fieldnames) == AUDIT_FIELDS
        rows = list(reader)
    # EX-TEST True and (not_equivalent or refuted_by): alpha 2, alpha 3, beta 3, gamma 4;
    # alpha 4 is refuted but EX-TEST already rejects it
    assert [(r["system"], r["question_id"]) for r in rows] == [
        ("alpha", "2"), ("alpha", "3"), ("beta", "3"), ("gamma", "4")]
    assert all(r["label"] == "" and r["note"] == "" for r in rows)
    a3 = rows[1]
    assert a3["refuted_by"] == "beta" and a3["verdict"] == "equivalent"
    # the counterexample and gold result come from beta's check of question 3
    assert json.loads(a3["counterexample"]) == CEX and json.loads(a3["gold_result"]) == [[7]]
    assert a3["pred_result"] == ""
    assert json.loads(rows[0]["pred_result"]) == [["<script>alert(1)</script>"]]


# ---------------------------------------------------------------------- index.html


def test_index_html_anchors_and_escaping(report):
    _, out = report
    page = (out / "index.html").read_text()
    for anchor in ("alpha-2", "alpha-3", "alpha-4", "beta-3", "gamma-4"):
        assert f'id="{anchor}"' in page and f'href="#{anchor}"' in page
    for absent in ("alpha-1", "beta-1", "gamma-1", "gamma-3"):
        assert f'id="{absent}"' not in page
    assert "<script" not in page.lower()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "a &lt; 1 &amp; b" in page and "Question 2 &amp; more?" in page
    assert 'id="systems-table"' in page
    assert "http://" not in page and "https://" not in page
    assert page.count("data:image/png;base64,") == 3
    assert "EX-TEST: accepted" in page and "Kendall τ-b" in page
    assert 'class="n down"' in page and 'class="n up"' in page  # alpha falls, gamma rises


def test_anchor_sanitised_and_unique(tmp_path):
    store = ResultsStore(tmp_path / "r.sqlite")
    recs = [_record("sys a/1", "7", True, "not_equivalent", {"counterexample": CEX}),
            _record("sys_a_1", "7", True, "not_equivalent", {"counterexample": CEX})]
    store.put(recs)
    run = store.start_run({**SETTINGS, "systems": ["sys a/1", "sys_a_1"]}, PROVENANCE)
    store.add_to_run(run, recs)
    store.close()
    write_report(tmp_path / "r.sqlite", tmp_path / "out", bootstrap_iterations=10)
    page = (tmp_path / "out" / "index.html").read_text()
    assert 'id="sys_a_1-7"' in page and 'id="sys_a_1-7-2"' in page


def _solo_page(tmp_path, extras: dict) -> str:
    """The HTML report of a run with one refuted pair of system "solo"."""
    store = ResultsStore(tmp_path / "r.sqlite")
    rec = _record("solo", "1", True, "not_equivalent", extras)
    store.put([rec])
    run = store.start_run({**SETTINGS, "systems": ["solo"]}, PROVENANCE)
    store.add_to_run(run, [rec])
    store.close()
    write_report(tmp_path / "r.sqlite", tmp_path / "out", bootstrap_iterations=10)
    return (tmp_path / "out" / "index.html").read_text()


def test_counterexample_tables_are_truncated(tmp_path):
    big = {"t": [{"a": i} for i in range(45)]}
    page = _solo_page(tmp_path, {"counterexample": big,
                                 "gold_result": [[i] for i in range(30)], "pred_result": []})
    assert "… 25 more rows not shown" in page and "… 10 more rows not shown" in page
    assert "<td>44</td>" not in page and "<td>19</td>" in page
    rows = [json.loads(x) for x in (tmp_path / "out" / "pairs.jsonl").read_text().splitlines()]
    assert len(rows[0]["counterexample"]["t"]) == 45


def test_a_prediction_that_never_stops_shows_no_rows_and_says_so(tmp_path):
    """A counterexample with no predicted rows: SQLite showed the prediction never stops
    there (spotit/nontermination.py); the page says that, not "not stored"."""
    page = _solo_page(tmp_path, {"counterexample": {"t": [{"a": 1}]}, "gold_result": [[1]],
                                 "pred_result": None})
    assert "the prediction never stops on this database" in page
    assert "predicted result: not stored" not in page


def test_missing_run_and_store(tmp_path):
    with pytest.raises(FileNotFoundError):
        write_report(tmp_path / "nope.sqlite", tmp_path / "out")
    ResultsStore(tmp_path / "empty.sqlite").close()
    with pytest.raises(ValueError, match="no evaluation run"):
        write_report(tmp_path / "empty.sqlite", tmp_path / "out")
    store = build_store(tmp_path / "r.sqlite")
    with pytest.raises(ValueError, match="no run 9"):
        write_report(store, tmp_path / "out", run_id=9)


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def test_index_html_in_headless_chromium(report, tmp_path):
    exe = _chromium()
    if exe is None:
        pytest.skip("chromium is not installed: apt-get install chromium")
    _, out = report
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run",
           f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr", "--v=0",
           "--dump-dom", (out / "index.html").resolve().as_uri()]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    dom = p.stdout
    assert 'id="systems-table"' in dom and "<th>alpha</th>" in dom
    assert 'id="gamma-4"' in dom
    console = [line for line in p.stderr.splitlines() if "CONSOLE" in line
               or "Uncaught" in line or "Refused to" in line]
    assert console == [], console


def test_needs_count_refutations_not_columns():
    """A refutation that needs NULL in two columns is one refutation needing NULL: the
    "needs" count never exceeds the "has" count of the same feature."""
    from spotit.experiments.report import Pair, explanations_summary
    from spotit.experiments.store import PairRecord

    entries = [{"feature": "null", "needed": True, "column": c} for c in ("a", "b")]
    rec = PairRecord("k", "S", "1", "db", "g", "p", "set", "not_equivalent",
                     result={"explained": True, "explanation": entries})
    got = explanations_summary([Pair(rec, None)])
    assert got["needs"] == {"null": 1} and got["has"] == {"null": 1}
