"""``spotit audit`` on benchmarks the tests make: which side is wrong?

A small shop schema, six systems, questions built so that the classes are known by
hand (comments say why two queries agree or differ); the audit must find them,
never merge on an undecided pair, propose a member of the majority class that
SQLite accepts, and survive ``kill -9``.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from spotit.experiments.audit import audit
from spotit.experiments.classes import Member, Outcome, members_of, normalize_sql, partition
from spotit.experiments.runners import EvaluationSettings, run_evaluation
from spotit.experiments.store import AUDIT_SYSTEM, ResultsStore

TABLES = [{
    "db_id": "shop",
    "table_names_original": ["item"],
    "column_names_original": [[-1, "*"], [0, "id"], [0, "name"], [0, "price"]],
    "column_types": ["number", "number", "text", "number"],
    "primary_keys": [1],
    "foreign_keys": [],
}]
SYSTEMS = ("A", "B", "C", "D", "E", "F")

# question 0: the gold says "> 10" where the question asks for "at least 10"; four
# systems write ">= 10" in four texts (all equal on every database: the same rows
# qualify), E and F write other wrong things. Gold alone, proposal ">= 10".
# question 1: the gold is right; A, B, C write it as the gold does (C with the sides
# swapped), D the same with a redundant TRUE conjunct; E and F agree with each other on
# ">= 5", which differs from the gold on a price of exactly 5. Consensus with the gold.
# question 2: three answers, two systems each, none the gold's: a price below 3, at most
# 3, and every name -- split (no class of three).
# question 3: three systems write an equivalent condition through RANDOM(), which SpotIt
# cannot encode: each check between them is unsupported, so they stay apart.
QUESTIONS = [
    ("SELECT name FROM item WHERE price > 10", {
        "A": "SELECT name FROM item WHERE price >= 10",
        "B": "SELECT name FROM item WHERE 10 <= price",
        "C": "SELECT name FROM item WHERE price >= 10 AND 1 = 1",
        "D": "SELECT  name  FROM item WHERE price >= 10;",
        "E": "SELECT id FROM item",
        "F": "SELECT name FROM item WHERE price < 10"}),
    ("SELECT COUNT(*) FROM item WHERE price > 5", {
        "A": "SELECT COUNT(*) FROM item WHERE price > 5",
        "B": "SELECT COUNT(*) FROM item WHERE price > 5",
        "C": "SELECT COUNT(*) FROM item WHERE 5 < price",
        "D": "SELECT COUNT(*) FROM item WHERE price > 5 AND 1",
        "E": "SELECT COUNT(*) FROM item WHERE price >= 5",
        "F": "SELECT COUNT(*) FROM item WHERE 5 <= price"}),
    ("SELECT name FROM item WHERE price = 7", {
        "A": "SELECT name FROM item WHERE price < 3",
        "B": "SELECT name FROM item WHERE 3 > price",
        "C": "SELECT name FROM item WHERE price <= 3",
        "D": "SELECT name FROM item WHERE 3 >= price",
        "E": "SELECT name FROM item",
        "F": "SELECT name FROM item WHERE 1"}),
    ("SELECT name FROM item WHERE price > 1", {
        "A": "SELECT name FROM item WHERE price > ABS(RANDOM()) * 0",
        "B": "SELECT name FROM item WHERE price > 0 * ABS(RANDOM())",
        "C": "SELECT name FROM item WHERE price > (ABS(RANDOM()) * 0)",
        "D": "SELECT id FROM item",
        "E": "SELECT price FROM item",
        "F": "SELECT name, price FROM item"}),
]


def make_benchmark(tmp: Path, questions=QUESTIONS) -> dict[str, Path]:
    dev = [{"question_id": i, "db_id": "shop", "question": f"question {i}", "evidence": "",
            "SQL": gold, "difficulty": "simple"} for i, (gold, _) in enumerate(questions)]
    (tmp / "dev.json").write_text(json.dumps(dev))
    (tmp / "tables.json").write_text(json.dumps(TABLES))
    paths = {}
    for s in SYSTEMS:
        path = tmp / f"{s}.json"
        path.write_text(json.dumps({str(i): preds[s] for i, (_, preds) in
                                    enumerate(questions)}))
        paths[s] = path
    return paths


def evaluate(tmp: Path, preds: dict[str, Path], results: Path):
    settings = EvaluationSettings("bird", bound=2, timeout=30, probe_trials=0)
    return run_evaluation(benchmark="bird", dev=tmp / "dev.json", tables=tmp / "tables.json",
                          predictions=preds, results=results, settings=settings, workers=2)


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("audit")
    preds = make_benchmark(tmp)
    store, run_id = evaluate(tmp, preds, tmp / "r.sqlite")
    findings = audit(store, run_id=run_id, workers=2)
    return tmp, store, run_id, {f["question_id"]: f for f in findings}


def systems_of(f: dict, k: int | None) -> set[str]:
    return set(f["classes"][k]["systems"]) if k is not None else set()


def test_wrong_gold_fixed_the_same_way_is_gold_alone(audited):
    _, _, _, got = audited
    f = got["0"]
    assert f["finding"] == "gold-alone"
    assert systems_of(f, f["majority_class"]) == {"A", "B", "C", "D"}
    assert systems_of(f, f["gold_class"]) == set()
    # the shortest member of the majority class; D's text differs only in spacing and
    # the semicolon, so it is A's member
    assert f["proposal"] == "SELECT name FROM item WHERE price >= 10"
    assert set(f["proposal_systems"]) == {"A", "D"}
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE item (id NUMBER PRIMARY KEY, name TEXT, price NUMBER)")
    conn.execute("EXPLAIN " + f["proposal"])  # SQLite accepts it on the schema
    # the two differ exactly on a price of 10 (hand derivation): the counterexample has
    # it, the gold leaves that row out and the proposal keeps it
    rows = f["counterexample"]["item"]
    assert any(r["price"] == 10 for r in rows)
    assert len(f["majority_result"]) > len(f["gold_result"])
    assert f["score"] is not None and 0 < f["score"] <= 100
    assert f["score_inputs"]["agree"] == 4 and f["score_inputs"]["gold_class"] == 0
    assert f["explanation"] is not None  # what the difference needs was searched


def test_right_gold_with_two_agreeing_wrong_systems_is_consensus(audited):
    _, _, _, got = audited
    f = got["1"]
    assert f["finding"] == "consensus-with-gold"
    assert systems_of(f, f["gold_class"]) == {"A", "B", "C", "D"}
    others = [set(c["systems"]) for c in f["classes"] if not c["gold"]]
    assert others == [{"E", "F"}]  # ">= 5" and "5 <= price": proven equal to each other
    assert f["proposal"] is None and f["score"] is None


def test_three_way_split(audited):
    _, _, _, got = audited
    f = got["2"]
    assert f["finding"] == "split"
    groups = sorted(sorted(c["systems"]) for c in f["classes"] if not c["gold"])
    assert groups == [["A", "B"], ["C", "D"], ["E", "F"]]
    assert f["proposal"] is None


def test_never_merged_on_an_undecided_pair(audited):
    _, _, _, got = audited
    f = got["3"]
    random_members = [m["index"] for m in f["members"]
                      if m["systems"] and m["systems"][0] in "ABC"]
    assert len(random_members) == 3
    classes = {next(c["id"] for c in f["classes"] if i in c["members"])
               for i in random_members}
    assert len(classes) == 3  # each alone: no check could prove them equal
    undecided = {(u["a"], u["b"]) for u in f["undecided"]}
    assert any(a in random_members and b in random_members for a, b in undecided)
    assert f["finding"] != "gold-alone"


def test_findings_are_stored_and_reported(audited):
    tmp, store, run_id, got = audited
    settings, stored = store.audit(run_id)
    assert {f["question_id"] for f in stored} == set(got)
    assert settings["min_agree"] == 3  # half of six systems
    from spotit.experiments.report import write_report

    write_report(tmp / "r.sqlite", tmp / "rep", run_id=run_id)
    page = (tmp / "rep" / "index.html").read_text()
    assert 'id="audit"' in page and 'id="audit-0"' in page
    lines = (tmp / "rep" / "audit" / "audit.csv").read_text().splitlines()
    assert lines[0].startswith("rank,question_id,") and ",verdict," in lines[0]
    assert lines[1].split(",")[1] == "0"  # the one finding ranks first
    jsonl = [json.loads(x) for x in (tmp / "rep" / "audit" / "audit.jsonl").open()]
    assert [f["question_id"] for f in jsonl] == ["0", "1", "2", "3"]


def test_a_second_audit_runs_no_check_again(audited):
    _tmp, store, run_id, got = audited
    before = store.conn.execute("SELECT COUNT(*) FROM pairs WHERE system = ?",
                                (AUDIT_SYSTEM,)).fetchone()[0]
    again = {f["question_id"]: f for f in audit(store, run_id=run_id, workers=2)}
    after = store.conn.execute("SELECT COUNT(*) FROM pairs WHERE system = ?",
                               (AUDIT_SYSTEM,)).fetchone()[0]
    assert before == after > 0
    assert {q: f["finding"] for q, f in again.items()} == {q: f["finding"]
                                                           for q, f in got.items()}


# ---------------------------------------------------------------------- pure parts


def test_normalize_sql_keeps_literals():
    assert normalize_sql("SELECT  a\n FROM t ;; ") == "SELECT a FROM t"
    assert normalize_sql("SELECT 'a  b' FROM t") == "SELECT 'a  b' FROM t"
    assert normalize_sql('SELECT "x  y" FROM t') == 'SELECT "x  y" FROM t'


def test_members_group_identical_texts_with_the_gold_first():
    ms = members_of("SELECT 1", {"b": "SELECT  1", "a": "SELECT 2", "c": "SELECT 2;",
                                 "d": None})
    assert ms[0].is_gold and ms[0].systems == ("b",)
    assert ms[1].systems == ("a", "c")
    assert len(ms) == 2


def test_partition_asks_one_check_at_a_time_and_never_merges_undecided():
    ms = [Member("g", True), Member("p", False, ("a",)), Member("q", False, ("b",))]
    known: dict = {}
    part = partition(ms, lambda i, j: None, lambda i, j: known.get((i, j)))
    assert part.needed == [(0, 1), (0, 2)]  # q is compared with the gold's class too
    assert part.classes == [[0]]  # nobody placed until their checks are in
    known[(0, 1)] = Outcome("undecided", "timeout")
    known[(0, 2)] = Outcome("undecided", "timeout")
    part = partition(ms, lambda i, j: None, lambda i, j: known.get((i, j)))
    assert part.needed == [(1, 2)]
    known[(1, 2)] = Outcome("equivalent")
    part = partition(ms, lambda i, j: None, lambda i, j: known.get((i, j)))
    assert part.complete and part.classes == [[0], [1, 2]]
    # a database that separates two members settles them without a check
    part = partition(ms, lambda i, j: "db1" if {i, j} == {0, 2} else None,
                     lambda i, j: {(0, 1): Outcome("equivalent")}.get((i, j)))
    assert part.needed == [] and part.classes == [[0, 1], [2]]


# ---------------------------------------------------------------------- kill -9


def test_kill_minus_nine_during_an_audit_then_rerun_completes_it(tmp_path):
    # twelve copies of question 2: each needs checks between the systems' answers
    questions = [QUESTIONS[2]] * 12
    preds = make_benchmark(tmp_path, questions)
    results = tmp_path / "k.sqlite"
    store, _run_id = evaluate(tmp_path, preds, results)
    store.close()
    args = [sys.executable, "-m", "spotit.cli", "audit", str(results), "--jobs", "1",
            "--no-explain", "--report", str(tmp_path / "rep")]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.monotonic() + 120
    stored = 0
    while time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
        try:
            stored = sqlite3.connect(results).execute(
                "SELECT COUNT(*) FROM pairs WHERE system = ?", (AUDIT_SYSTEM,)).fetchone()[0]
        except sqlite3.Error:
            continue
        if stored >= 1:
            break
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert stored >= 1, "the audit should have stored a check before it was killed"
    killed = ResultsStore(results)
    assert killed.audit(killed.latest_run()["run_id"]) is None, "killed before it finished"
    killed.close()
    first = dict(sqlite3.connect(results).execute(
        "SELECT key, created FROM pairs WHERE system = ?", (AUDIT_SYSTEM,)).fetchall())
    done = subprocess.run(args, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    conn = sqlite3.connect(results)
    final = dict(conn.execute("SELECT key, created FROM pairs WHERE system = ?",
                              (AUDIT_SYSTEM,)).fetchall())
    assert all(final[k] == created for k, created in first.items())  # none run again
    # the same classes as an audit that was never interrupted, on a fresh copy
    fresh = tmp_path / "fresh.sqlite"
    store, _ = evaluate(tmp_path, preds, fresh)
    clean = audit(store, explain=False, workers=2)
    store.close()
    killed = ResultsStore(results)
    _, resumed = killed.audit(killed.latest_run()["run_id"])
    killed.close()
    shape = [sorted(sorted(c["systems"]) for c in f["classes"]) for f in resumed]
    assert shape == [sorted(sorted(c["systems"]) for c in f["classes"]) for f in clean]
    assert len(final) == sqlite3.connect(fresh).execute(
        "SELECT COUNT(*) FROM pairs WHERE system = ?", (AUDIT_SYSTEM,)).fetchone()[0]


# ---------------------------------------------------------------------- re-scoring


def test_gold_fixes_rescore_the_leaderboard(audited, tmp_path):
    from spotit.experiments.report import write_report
    from spotit.experiments.rescore import load_fixes

    src, _, run_id, _got = audited
    results = src / "r.sqlite"
    # a person's file: question 0 corrected to ">= 10" (the audit's proposal), question 2
    # excluded as ambiguous, question 1 kept
    (tmp_path / "fixes.json").write_text(json.dumps({
        "0": {"sql": "SELECT name FROM item WHERE price >= 10", "note": "at least 10"},
        "2": "exclude"}))
    fixes = load_fixes(tmp_path / "fixes.json")
    assert fixes["0"].sql.endswith(">= 10") and fixes["2"].excluded
    summary = write_report(results, tmp_path / "rep", run_id=run_id,
                           gold_fixes=tmp_path / "fixes.json", workers=2)
    a = summary["audited"]
    assert a["fixes"] == {"corrected": 1, "excluded": 1, "sources": [str(tmp_path /
                                                                        "fixes.json")]}
    changed = {(c["system"], c["question_id"]): c for c in a["changes"]}
    # without test databases or labels EX-TEST stays unknown: no metric moves, but each
    # prediction of the corrected question is judged against the new gold
    assert all(s["n"] == 0 for s in a["systems"].values())
    assert not changed
    page = (tmp_path / "rep" / "index.html").read_text()
    assert 'id="audited"' in page


def test_a_gold_fix_sqlite_rejects_is_named_not_judged(audited, tmp_path):
    """A typo in a person's fix would judge every prediction of it undecided, silently."""
    from spotit.experiments.report import write_report
    from spotit.experiments.rescore import FixError

    src, _, run_id, _got = audited
    (tmp_path / "fixes.json").write_text(json.dumps({
        "0": "SELECT name FROM item WHERE price >= 10",
        "1": "SELECT name FROM item WHERE prize >= 10",  # no such column
        "2": "SELEC name FROM item"}))
    with pytest.raises(FixError) as e:
        write_report(src / "r.sqlite", tmp_path / "rep", run_id=run_id,
                     gold_fixes=tmp_path / "fixes.json", workers=2)
    msg = str(e.value)
    assert "question 1: SQLite rejects it: no such column: prize" in msg
    assert "question 2: SQLite rejects it" in msg and "question 0" not in msg


def test_rescore_with_labels_moves_the_systems_that_fixed_the_gold(tmp_path):
    from spotit.experiments.report import write_report

    preds = make_benchmark(tmp_path, QUESTIONS[:2])
    labels = {}
    for s in SYSTEMS:  # EX-TEST computed elsewhere: every prediction passed
        path = tmp_path / f"{s}.labels.json"
        path.write_text(json.dumps({"0": True, "1": True}))
        labels[s] = path
    settings = EvaluationSettings("bird", bound=2, timeout=30, probe_trials=0)
    store, run_id = run_evaluation(
        benchmark="bird", dev=tmp_path / "dev.json", tables=tmp_path / "tables.json",
        predictions=preds, results=tmp_path / "r.sqlite", settings=settings, workers=2,
        ex_labels=labels)
    audit(store, run_id=run_id, workers=2, explain=False)
    store.close()
    # audit.csv, as a person fills it in: question 0 is a wrong gold (take the proposal)
    import csv

    from spotit.experiments.audit_report import write_audit

    _, findings = ResultsStore(tmp_path / "r.sqlite").audit(run_id)
    _, csv_path = write_audit(findings, tmp_path / "audit")
    rows = list(csv.DictReader(csv_path.open()))
    for r in rows:
        r["verdict"] = "wrong gold" if r["question_id"] == "0" else "fine"
    with (tmp_path / "labelled.csv").open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    summary = write_report(tmp_path / "r.sqlite", tmp_path / "rep", run_id=run_id,
                           gold_fixes=tmp_path / "labelled.csv", workers=2)
    before = {n: s["ex_spotit"] for n, s in summary["systems"].items()}
    after = {n: s["ex_spotit"] for n, s in summary["audited"]["systems"].items()}
    # question 0: A-D wrote ">= 10", refuted by the old gold, equal to the corrected one;
    # E ("SELECT id") and F ("< 10") are wrong under both. question 1 is unchanged: A-D
    # right, E and F refuted (">= 5" counts a price of 5).
    for s in "ABCD":
        assert before[s] == 0.5 and after[s] == 1.0
    assert before["E"] == after["E"] == 0.0 and before["F"] == after["F"] == 0.0
    moved = {(c["system"], c["question_id"]) for c in summary["audited"]["changes"]}
    assert moved == {(s, "0") for s in "ABCD"}
    assert all(c["ex_test_source"] == "spotit" for c in summary["audited"]["changes"])
    assert summary["audited"]["systems"]["A"]["ranks"]["ex_spotit"] == 1


def test_systems_agreeing_on_sql_sqlite_rejects_never_outvote_the_gold(tmp_path):
    bad = "SELECT name FROM item WHERE YEAR(price) = 2020"  # no YEAR in SQLite
    questions = [("SELECT name FROM item WHERE price > 1",
                  {"A": bad, "B": bad, "C": bad, "D": "SELECT id FROM item",
                   "E": "SELECT price FROM item", "F": "SELECT name, price FROM item"})]
    preds = make_benchmark(tmp_path, questions)
    store, run_id = evaluate(tmp_path, preds, tmp_path / "r.sqlite")
    [f] = audit(store, run_id=run_id, workers=2, explain=False)
    checks = store.conn.execute("SELECT COUNT(*) FROM pairs WHERE system = ?",
                                (AUDIT_SYSTEM,)).fetchone()[0]
    store.close()
    rejected = [m for m in f["members"] if m["rejected"]]
    assert len(rejected) == 1 and rejected[0]["systems"] == ["A", "B", "C"]
    assert "no such function" in rejected[0]["rejected"]
    assert f["finding"] not in ("gold-alone", "gold-minority")
    assert f["proposal"] is None
    assert checks <= 3  # the rejected member is never checked against anything


def test_the_gold_counts_as_an_author_of_its_class(tmp_path):
    # question 0: the gold and A, B write "> 2"; C, D, E agree on ">= 2" (they differ on a
    # price of exactly 2); F on every id. Three authors against three: a tie, so the gold
    # is not in a minority, and the gold's class has not the most systems: split.
    # question 1: the gold and A write "> 4"; B, C, D agree on ">= 4": two authors against
    # three, a minority. (M = 3, half of six systems.)
    questions = [
        ("SELECT name FROM item WHERE price > 2", {
            "A": "SELECT name FROM item WHERE price > 2",
            "B": "SELECT name FROM item WHERE 2 < price",
            "C": "SELECT name FROM item WHERE price >= 2",
            "D": "SELECT name FROM item WHERE 2 <= price",
            "E": "SELECT name FROM item WHERE price >= 2 AND 1 = 1",
            "F": "SELECT id FROM item"}),
        ("SELECT name FROM item WHERE price > 4", {
            "A": "SELECT name FROM item WHERE 4 < price",
            "B": "SELECT name FROM item WHERE price >= 4",
            "C": "SELECT name FROM item WHERE 4 <= price",
            "D": "SELECT name FROM item WHERE price >= 4 AND 1 = 1",
            "E": "SELECT id FROM item",
            "F": "SELECT name FROM item WHERE price < 4"}),
    ]
    preds = make_benchmark(tmp_path, questions)
    store, run_id = evaluate(tmp_path, preds, tmp_path / "r.sqlite")
    tie, minority = audit(store, run_id=run_id, workers=2, explain=False)
    store.close()
    assert systems_of(tie, tie["gold_class"]) == {"A", "B"}
    assert tie["finding"] == "split"
    assert systems_of(minority, minority["gold_class"]) == {"A"}
    assert minority["finding"] == "gold-minority"
    assert systems_of(minority, minority["majority_class"]) == {"B", "C", "D"}
    assert minority["proposal"] is not None
