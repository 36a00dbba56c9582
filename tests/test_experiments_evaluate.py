"""``spotit evaluate`` end to end on a benchmark the tests make: a tiny schema, five
questions, three systems, a small SQLite database; EX-TEST, EX-SpotIt,
EX-SpotIt+, labels, malformed entries, resuming after ``kill -9``, a killed
worker, and the Dask path on a LocalCluster.

Expected outcomes are derived by hand from the data below (comments say how).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from spotit import cli
from spotit.experiments.batch import Task, run_batch
from spotit.experiments.runners import EvaluationSettings, run_evaluation
from spotit.experiments.store import ResultsStore
from tests import experiments_tasks

TABLES = [{
    "db_id": "shop",
    "table_names_original": ["item"],
    "column_names_original": [[-1, "*"], [0, "id"], [0, "name"], [0, "price"]],
    "column_types": ["text", "number", "text", "number"],
    "primary_keys": [1],
    "foreign_keys": [],
}]
GOLD = [
    "SELECT name FROM item WHERE price > 10",
    "SELECT COUNT(*) FROM item",
    "SELECT name FROM item ORDER BY price DESC LIMIT 1",
    "SELECT MAX(price) FROM item",
    "SELECT name FROM item WHERE name LIKE 'a%'",
]
# Counts to a billion: SQLite is busy with it for as long as it is allowed to run.
SLOW_QUERY = ("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c "
              "WHERE x < 1000000000) SELECT COUNT(*) FROM c")
# The database EX-TEST runs on: no price is exactly 10, so "> 10" and ">= 10" agree on it.
ROWS = [(1, "apple", 5), (2, "banana", 20), (3, "avocado", 30)]
SYSTEMS = {
    # A: q0 is wrong only when a price is exactly 10 (EX-TEST passes, SpotIt refutes it);
    #    q1 right; q2 right; q3 right; q4 wrong on the test database (a name not starting 'a').
    "A": ["SELECT name FROM item WHERE price >= 10", "SELECT COUNT(*) FROM item WHERE 1",
          "SELECT name FROM item ORDER BY price DESC LIMIT 1", "SELECT MAX(price) FROM item",
          "SELECT name FROM item"],
    # B: the same mistake as A on q0 but written with a construct SpotIt cannot check
    #    (unsupported with --probe-trials 0), so only A's counterexample (price 10) refutes
    #    it: EX-SpotIt+. q1 empty, q2 a placeholder; q3, q4 right.
    "B": ["SELECT name FROM item WHERE price >= "
          "(SELECT MAX(value) FROM json_each('[10]'))", "", "none",
          "SELECT MAX(price) FROM item",
          "SELECT name FROM item WHERE name LIKE 'a%'"],
    # C: everything right.
    "C": GOLD,
}


def make_benchmark(tmp: Path, databases: bool = True) -> dict:
    dev = [{"question_id": i, "db_id": "shop", "question": f"question {i}", "evidence": "",
            "SQL": sql, "difficulty": "simple"} for i, sql in enumerate(GOLD)]
    (tmp / "dev.json").write_text(json.dumps(dev))
    (tmp / "tables.json").write_text(json.dumps(TABLES))
    paths = {}
    # three formats: BIRD's official JSON, a plain JSON object, one SQL per line
    a = {str(i): f"{sql}\t----- bird -----\tshop" for i, sql in enumerate(SYSTEMS["A"])}
    (tmp / "a.json").write_text(json.dumps(a))
    (tmp / "b.json").write_text(json.dumps({str(i): s for i, s in enumerate(SYSTEMS["B"])}))
    (tmp / "c.sql").write_text("\n".join(f"{s}\tshop" for s in SYSTEMS["C"]) + "\n")
    paths = {"A": tmp / "a.json", "B": tmp / "b.json", "C": tmp / "c.sql"}
    if databases:
        db = tmp / "dbs" / "shop" / "shop.sqlite"
        db.parent.mkdir(parents=True)
        conn = sqlite3.connect(db)
        conn.execute("CREATE TABLE item (id NUMBER PRIMARY KEY, name TEXT, price NUMBER)")
        conn.executemany("INSERT INTO item VALUES (?, ?, ?)", ROWS)
        conn.commit()
        conn.close()
    return paths


def records(store: ResultsStore, run_id: int) -> dict[tuple[str, str], tuple]:
    return {(r.system, r.question_id): (r, refuted) for r, refuted in store.run_records(run_id)}


@pytest.fixture
def bench(tmp_path):
    return tmp_path, make_benchmark(tmp_path)


def run(tmp: Path, preds: dict, **kw):
    settings = EvaluationSettings("bird", bound=2, timeout=30, probe_trials=0)
    return run_evaluation(benchmark="bird", dev=tmp / "dev.json", tables=tmp / "tables.json",
                          predictions=preds, results=tmp / "results.sqlite",
                          settings=settings, workers=2, **kw)


def test_evaluation_with_databases(bench):
    tmp, preds = bench
    store, run_id = run(tmp, preds, db_dir=tmp / "dbs")
    got = records(store, run_id)
    assert len(got) == 15
    a0, refuted = got["A", "0"]
    assert a0.ex_test is True and a0.verdict == "not_equivalent"  # EX-SpotIt catches it
    assert any(row["price"] == 10 for row in a0.counterexample["item"])
    assert refuted is None
    b0, refuted = got["B", "0"]
    assert b0.ex_test is True and b0.verdict == "unsupported"
    assert refuted == "A"  # EX-SpotIt+: A's counterexample shows B's mistake
    assert got["A", "4"][0].ex_test is False  # 'banana' is not an 'a%' name
    assert got["C", "0"][0].verdict == "equivalent" and got["C", "0"][1] is None
    for q in ("1", "2"):  # empty and placeholder predictions: recorded, the run went on
        r = got["B", q][0]
        assert r.verdict == "error" and r.pred is None and r.ex_test is False
        assert "prediction" in r.reason


def test_evaluation_resumes_and_reuses(bench):
    tmp, preds = bench
    store, first = run(tmp, preds, limit=2)
    assert len(records(store, first)) == 6
    keys = store.known_keys()
    store.close()
    store, second = run(tmp, preds)
    assert len(records(store, second)) == 15
    assert keys <= store.known_keys()
    assert len(store.known_keys()) == 15  # nothing checked twice


def test_ex_labels_without_databases(tmp_path):
    preds = make_benchmark(tmp_path, databases=False)
    labels = tmp_path / "labels.json"
    labels.write_text(json.dumps({"0": True, "1": True, "2": False, "3": 1, "4": 0}))
    store, run_id = run(tmp_path, {"A": preds["A"]}, ex_labels={"A": labels})
    got = records(store, run_id)
    assert [got["A", str(q)][0].ex_test for q in range(5)] == [True, True, False, True, False]
    assert got["A", "0"][0].ex_test_source == "labels:labels.json"


def test_a_wrong_length_file_stops_the_run_at_once(bench, capsys):
    tmp, _preds = bench
    bad = tmp / "bad.sql"
    bad.write_text("SELECT 1\n")
    with pytest.raises(SystemExit) as err:
        cli.main(["evaluate", "--benchmark", "bird", "--dev", str(tmp / "dev.json"),
                  "--tables", str(tmp / "tables.json"), "--pred", f"X={bad}",
                  "--results", str(tmp / "r.sqlite")])
    message = str(err.value)
    assert "bad.sql" in message and "\n" not in message


def test_cli_prints_the_table_and_writes_the_report(bench, capsys):
    tmp, preds = bench
    status = cli.main(["evaluate", "--benchmark", "bird", "--dev", str(tmp / "dev.json"),
                       "--tables", str(tmp / "tables.json"),
                       *[f"--pred={n}={p}" for n, p in preds.items()],
                       "--db-dir", str(tmp / "dbs"), "--bound", "2", "--probe-trials", "0",
                       "--jobs", "2", "--results", str(tmp / "r.sqlite"),
                       "--report", str(tmp / "report")])
    assert status == 0
    out = capsys.readouterr().out
    assert "A" in out and "EX-SpotIt" in out
    summary = json.loads((tmp / "report" / "summary.json").read_text())
    # A: EX-TEST 4/5 (q4 fails), EX-SpotIt 3/5 (q0 refuted); C: 5/5 and 5/5
    assert summary["systems"]["A"]["ex_test"] == pytest.approx(0.8)
    assert summary["systems"]["A"]["ex_spotit"] == pytest.approx(0.6)
    assert summary["systems"]["C"]["ex_spotit"] == pytest.approx(1.0)
    # B: EX-TEST 3/5 (q0 passes on the database, q1 q2 are no predictions), EX-SpotIt 3/5
    # (its q0 is unsupported), EX-SpotIt+ 2/5 (A's counterexample refutes q0)
    assert summary["systems"]["B"]["ex_test"] == pytest.approx(0.6)
    assert summary["systems"]["B"]["ex_spotit"] == pytest.approx(0.6)
    assert summary["systems"]["B"]["ex_spotit_plus"] == pytest.approx(0.4)
    assert (tmp / "report" / "index.html").exists()


def test_kill_minus_nine_then_rerun_finishes_every_pair_once(bench):
    tmp, preds = bench
    # a fourth system whose first two predictions keep SQLite busy until EX-TEST's time
    # limit, so that the run is still going when it is killed
    slow = [SLOW_QUERY, SLOW_QUERY, *GOLD[2:]]
    (tmp / "s.json").write_text(json.dumps(dict(enumerate(slow))))
    preds = {**preds, "S": tmp / "s.json"}
    total = 5 * len(preds)
    results = tmp / "killed.sqlite"
    args = [sys.executable, "-m", "spotit.cli", "evaluate", "--benchmark", "bird",
            "--dev", str(tmp / "dev.json"), "--tables", str(tmp / "tables.json"),
            *[f"--pred={n}={p}" for n, p in preds.items()], "--bound", "3",
            "--db-dir", str(tmp / "dbs"), "--ex-time-limit", "2", "--timeout", "10",
            "--jobs", "1", "--results", str(results), "--report", str(tmp / "rep")]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.monotonic() + 120
    stored = 0
    while time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
        if results.exists():
            try:
                stored = sqlite3.connect(results).execute("SELECT COUNT(*) FROM pairs"
                                                          ).fetchone()[0]
            except sqlite3.Error:
                continue
            if stored >= 3:
                break
    os.killpg(proc.pid, signal.SIGKILL)  # the CLI and its workers, mid-run
    proc.wait()
    assert 3 <= stored < total, "the run should have been killed part-way"
    done = subprocess.run(args, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    store = ResultsStore(results)
    final = store.latest_run()["run_id"]
    got = list(store.run_records(final))
    assert len(got) == total
    assert len({(r.system, r.question_id) for r, _ in got}) == total
    assert store.conn.execute("SELECT COUNT(*) FROM pairs").fetchone()[0] == total
    slow_pair = next(r for r, _ in got if (r.system, r.question_id) == ("S", "0"))
    assert slow_pair.ex_test is False  # ran out of time on the database: not a pass


def test_a_killed_worker_costs_its_pair_only(tmp_path):
    marks = str(tmp_path)
    tasks = [Task("slow", experiments_tasks.sleep_then_answer, (30.0, marks), 60),
             Task("quick", experiments_tasks.answer, (1,), 60),
             Task("dies", experiments_tasks.die, (), 60),
             Task("quick2", experiments_tasks.answer, (2,), 60)]
    results = {}
    start = time.monotonic()
    for key, out in run_batch(tasks, workers=2, memory_mb=None):
        results[key] = out
        if key == "quick":  # kill the worker busy with "slow", from outside, mid-task
            for pid in experiments_tasks.worker_pids_sleeping(marks):
                os.kill(pid, signal.SIGKILL)
    assert time.monotonic() - start < 30
    assert results["quick"] == {"answer": 1} and results["quick2"] == {"answer": 2}
    assert results["slow"]["verdict"] == "error" and "died" in results["slow"]["reason"]
    assert results["dies"]["verdict"] == "error"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_workers_end_with_their_parent(tmp_path, sig):
    # a scheduler's SIGTERM (or SIGKILL) reaches the parent only; its worker, busy in a
    # two-minute task, must not run on
    workers: list[int] = []
    parent = subprocess.Popen(
        [sys.executable, "-c", "import sys; from tests.experiments_tasks import "
         "run_one_slow_task; run_one_slow_task(sys.argv[1])", str(tmp_path)],
        cwd=Path(__file__).parent.parent)
    try:
        workers = experiments_tasks.worker_pids_sleeping(str(tmp_path))
        assert workers, "the task never started"
        parent.send_signal(sig)
        parent.wait(timeout=30)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and any(map(experiments_tasks.alive, workers)):
            time.sleep(0.1)
        assert not any(map(experiments_tasks.alive, workers))
    finally:
        parent.kill()
        for pid in filter(experiments_tasks.alive, workers):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def test_dask_local_cluster_gives_the_same_results(bench):
    pytest.importorskip("distributed")
    tmp, preds = bench
    store, run_id = run(tmp, {"A": preds["A"]}, db_dir=tmp / "dbs", executor="dask")
    got = records(store, run_id)
    assert len(got) == 5
    assert got["A", "0"][0].verdict == "not_equivalent"
    assert got["A", "1"][0].verdict == "equivalent"
    assert [got["A", str(q)][0].ex_test for q in range(5)] == [True, True, True, True, False]
