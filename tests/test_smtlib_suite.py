"""SMT-LIB suites for solver people: the logic of each file, the benchmark export with
its index and known statuses, and the z3+cvc5 portfolio.

Independent evidence: cvc5 rejects a script that uses anything outside its declared
logic ("A non-linear term was asserted to arithmetic in a linear logic", "Symbol
'String' not declared"), so every exported file is given to cvc5 as written; statuses
are checked by solving the files; logics of hand-built formulas are derived by hand
from SMT-LIB's logic definitions.
"""

from __future__ import annotations

import csv
import json
import re
from datetime import datetime
from pathlib import Path

import pytest
from pysmt.environment import reset_env
from pysmt.shortcuts import GT, Equals, Int, Plus, Real, String, StrLength, Symbol, Times, ToReal
from pysmt.typing import BOOL, INT, REAL, STRING, FunctionType

from spotit import cli
from spotit.experiments.inputs import load_benchmark, load_predictions
from spotit.experiments.runners import EvaluationSettings, run_evaluation
from spotit.experiments.suite import export_suite, known_answers
from spotit.export import benchmark_script
from spotit.smt import ops
from spotit.smt.logic import logic_of
from spotit.solvers import get_solver
from spotit.solvers.base import Status
from tests.test_experiments_evaluate import TABLES  # the same one-table shop


@pytest.fixture(autouse=True)
def _fresh_env():
    reset_env()
    yield
    reset_env()


def test_logic_of_hand_built_formulas():
    x, y = Symbol("x", INT), Symbol("y", INT)
    r = Symbol("r", REAL)
    s = Symbol("s", STRING)
    f = Symbol("f", FunctionType(INT, [INT]))
    from pysmt.shortcuts import Function

    assert logic_of([GT(Plus(x, Int(1)), Times(Int(2), y))]) == "QF_LIA"  # numeral factor
    assert logic_of([GT(Times(x, y), Int(1))]) == "QF_NIA"
    assert logic_of([GT(r, Real(1.5))]) == "QF_LRA"
    assert logic_of([GT(ToReal(x), r)]) == "QF_LIRA"
    assert logic_of([Equals(s, String("a"))]) == "QF_S"
    assert logic_of([GT(StrLength(s), x)]) == "QF_SLIA"
    assert logic_of([GT(StrLength(s), Times(x, y))]) == "QF_SNIA"
    assert logic_of([Equals(s, String("a")), GT(r, Real(0))]) == "ALL"  # no standard name
    assert logic_of([GT(Function(f, [x]), Int(0))]) == "QF_UFLIA"
    assert logic_of([Symbol("b", BOOL)]) == "QF_UF"
    assert logic_of([GT(ops.int_div(x, Int(3)), Int(0))]) == "QF_LIA"  # div by a numeral
    assert logic_of([GT(ops.int_div(x, y), Int(0))]) == "QF_NIA"


SCHEMA = ("CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, price REAL, qty INTEGER, "
          "sold DATE);")
PAIRS = [  # a spread of theories: text patterns, integer and real arithmetic, dates
    ("SELECT name FROM item WHERE name LIKE 'a%'", "SELECT name FROM item WHERE name >= 'a'"),
    ("SELECT id FROM item WHERE qty * qty > 4", "SELECT id FROM item WHERE qty > 2"),
    ("SELECT AVG(price) FROM item", "SELECT SUM(price) / COUNT(*) FROM item"),
    ("SELECT id FROM item WHERE qty / 2 = 1", "SELECT id FROM item WHERE qty IN (2, 3)"),
    ("SELECT id FROM item WHERE STRFTIME('%Y', sold) = '2020'",
     "SELECT id FROM item WHERE sold LIKE '2020%'"),
    ("SELECT name FROM item WHERE id = 1", "SELECT name FROM item WHERE id = 1"),
]


@pytest.mark.parametrize("gold, pred", PAIRS)
def test_exported_logic_is_accepted_by_cvc5_and_keeps_the_answer(tmp_path, gold, pred):
    p = cli.main(["smtlib", "--schema", SCHEMA, "--gold", gold, "--pred", pred, "--bound", "2",
                  "--out", str(tmp_path)])
    assert p == 0
    for path in sorted(tmp_path.glob("k*.smt2")):
        text = path.read_text()
        logic = re.search(r"\(set-logic (\S+)\)", text).group(1)
        assert text.startswith("(set-info :smt-lib-version 2.6)")
        assert '(set-info :category "industrial")' in text and "(set-info :source |" in text
        assert text.rstrip().endswith("(check-sat)\n(exit)".rstrip())
        as_all = text.replace(f"(set-logic {logic})", "(set-logic ALL)")
        expected = get_solver("z3").check(as_all, timeout=20).status
        assert expected in (Status.SAT, Status.UNSAT)
        got = get_solver("cvc5").check(text, timeout=20)
        assert got.status is expected, (logic, got.reason)


def test_source_quotes_bars_and_backslashes():
    from pysmt.shortcuts import Symbol as S

    text = benchmark_script([S("b", BOOL)], source="a || b \\ c", status="sat")
    source = re.search(r"\(set-info :source \|([^|]*)\|\)", text).group(1)
    assert "|" not in source and "\\" not in source and "a \u00a6\u00a6 b" in source
    assert "(set-info :status sat)" in text
    assert get_solver("z3").check(text, timeout=5).status is Status.SAT
    assert get_solver("cvc5").check(text, timeout=5).status is Status.SAT


# ------------------------------------------------------------------ benchmark export

GOLD = ["SELECT name FROM item WHERE price > 10", "SELECT COUNT(*) FROM item",
        "SELECT name FROM item"]
PRED = [
    # differs only when a price is exactly 10: a one-row counterexample (k >= 1 sat)
    "SELECT name FROM item WHERE price >= 10",
    # equivalent: the UNION ALL's second member is empty (unsat at every k, by both
    # solvers; UNION ALL is not select-project-join, so no proof for every database)
    "SELECT COUNT(*) FROM (SELECT * FROM item UNION ALL SELECT * FROM item WHERE 0)",
    # outside SQLite: the pair cannot be encoded, so it is skipped with the reason
    "SELECT nme FROM item",
]


def _benchmark(tmp: Path):
    dev = [{"question_id": i, "db_id": "shop", "question": "", "evidence": "", "SQL": sql,
            "difficulty": "simple"} for i, sql in enumerate(GOLD)]
    (tmp / "dev.json").write_text(json.dumps(dev))
    (tmp / "tables.json").write_text(json.dumps(TABLES))
    (tmp / "sys.json").write_text(json.dumps({str(i): s for i, s in enumerate(PRED)}))


def _evaluate(tmp: Path, solver: str) -> Path:
    results = tmp / f"{solver}.sqlite"
    settings = EvaluationSettings(benchmark="bird", bound=2, solver=solver, timeout=30,
                                  probe_trials=0)
    store, _ = run_evaluation(benchmark="bird", dev=tmp / "dev.json", tables=tmp / "tables.json",
                              predictions={"sys": tmp / "sys.json"}, results=results,
                              settings=settings, workers=1)
    store.close()
    return results


def test_benchmark_export_with_known_statuses(tmp_path):
    _benchmark(tmp_path)
    results = [_evaluate(tmp_path, "z3"), _evaluate(tmp_path, "cvc5")]
    bench = load_benchmark("bird", tmp_path / "dev.json", tmp_path / "tables.json")
    preds = {"sys": load_predictions(tmp_path / "sys.json", bench)}
    out = tmp_path / "suite"
    summary = export_suite(bench, bench.questions, preds, out_dir=out, bound=2,
                           semantics=None, now=datetime(2024, 1, 1),
                           known=known_answers(results))
    with open(out / "index.csv", newline="") as f:
        index = list(csv.DictReader(f))
    assert list(index[0]) == ["file", "system", "question_id", "db_id", "k", "logic", "status",
                              "assertions", "nodes"]
    assert {(r["question_id"], r["k"]) for r in index} == {("0", "1"), ("0", "2"),
                                                            ("1", "1"), ("1", "2")}
    status = {(r["question_id"], r["k"]): r["status"] for r in index}
    assert status == {("0", "1"): "sat", ("0", "2"): "sat",
                      ("1", "1"): "unsat", ("1", "2"): "unsat"}
    for r in index:
        path = out / r["file"]
        assert r["file"] == f"sys/shop/q{r['question_id']}_k{r['k']}.smt2"
        text = path.read_text()
        assert f"(set-logic {r['logic']})" in text
        assert f"(set-info :status {r['status']})" in text
        # the stated status is what a solver finds
        assert get_solver("z3").check(text, timeout=20).status.value == r["status"]
        assert int(r["assertions"]) == text.count("(assert ")
    with open(out / "skipped.csv", newline="") as f:
        skipped = list(csv.DictReader(f))
    assert [(s["question_id"], "nme" in s["reason"]) for s in skipped] == [("2", True)]
    assert summary.files == 4 and summary.skipped == 1


def test_one_solver_alone_states_no_unsat(tmp_path):
    _benchmark(tmp_path)
    results = [_evaluate(tmp_path, "z3")]
    bench = load_benchmark("bird", tmp_path / "dev.json", tmp_path / "tables.json")
    preds = {"sys": load_predictions(tmp_path / "sys.json", bench)}
    export_suite(bench, bench.questions[:2], preds, out_dir=tmp_path / "s", bound=2,
                 semantics=None, now=datetime(2024, 1, 1), known=known_answers(results))
    with open(tmp_path / "s" / "index.csv", newline="") as f:
        status = {(r["question_id"], r["k"]): r["status"] for r in csv.DictReader(f)}
    assert status[("1", "1")] == status[("1", "2")] == "unknown"
    assert status[("0", "1")] == "sat"  # a confirmed counterexample needs one solver only


def test_smtlib_cli_on_a_benchmark(tmp_path, capsys):
    _benchmark(tmp_path)
    code = cli.main(["smtlib", "--benchmark", "bird", "--dev", str(tmp_path / "dev.json"),
                     "--tables", str(tmp_path / "tables.json"),
                     "--pred", f"sys={tmp_path / 'sys.json'}", "--bound", "1",
                     "--out", str(tmp_path / "out")])
    assert code == 0
    printed = capsys.readouterr().out
    assert "2 files from 2 pairs" in printed and "1 pairs skipped" in printed
    assert sorted(p.name for p in (tmp_path / "out" / "sys" / "shop").iterdir()) == [
        "q0_k1.smt2", "q1_k1.smt2"]
    with pytest.raises(SystemExit, match="needs --dev"):
        cli.main(["smtlib", "--benchmark", "bird", "--out", str(tmp_path / "x")])
    with pytest.raises(SystemExit, match="needs --schema"):
        cli.main(["smtlib", "--out", str(tmp_path / "x")])


# ------------------------------------------------------------------ portfolio


@pytest.mark.parametrize("gold, pred", PAIRS[:4])
def test_portfolio_answers_as_each_solver_does(gold, pred):
    from spotit.pipeline import check

    verdicts = {s: check(SCHEMA, gold, pred, bound=2, solver=s, probe_trials=0, timeout=60)
                for s in ("z3", "cvc5", "portfolio")}
    decided = {v.verdict.value for s, v in verdicts.items() if s != "portfolio"}
    assert len(decided) == 1
    assert verdicts["portfolio"].verdict.value in decided
    for stat in verdicts["portfolio"].per_bound:
        assert stat.answers.startswith("portfolio: ")


def test_portfolio_reports_a_disagreement_as_an_error(tmp_path, monkeypatch):
    """A member that always says the opposite of the truth: the answers disagree."""
    from spotit.solvers import portfolio

    script = "(declare-fun x () Int)(assert (> x 41))"
    solver = portfolio.PortfolioSolver()
    with solver.open(script) as session:
        honest = session.check(timeout=20)
        assert honest.status is Status.SAT and honest.model["x"] > 41
        assert "z3 sat" in honest.reason and "cvc5 sat" in honest.reason
    # plant a wrong answer in one member's reply
    original = portfolio._Member.receive

    def lying(self, timeout):
        reply = original(self, timeout)
        if self.name == "cvc5" and reply and reply[0] == "result":
            reply = ("result", "unsat", None, "", *reply[4:])
        return reply

    monkeypatch.setattr(portfolio._Member, "receive", lying)
    monkeypatch.setattr(portfolio, "GRACE_SECONDS", 5.0)  # both answers surely come
    try:
        with solver.open(script) as session:
            res = session.check(timeout=20)
    finally:
        solver.close()
    assert res.status is Status.ERROR and "disagree" in res.reason


def test_smtlib_suite_of_verieql_pairs(tmp_path, capsys):
    """VeriEQL's format in, one file per pair and bound out; generic SQL transpiled."""
    schema = {"EMP": {"EMPNO": "INT", "DEPTNO": "INT"}}
    pairs = [
        # EMPNO is the primary key: DISTINCT removes nothing (bag semantics)
        ("SELECT DISTINCT EMPNO FROM EMP", "SELECT EMPNO FROM EMP"),
        # FETCH FIRST is generic SQL for LIMIT; an employee with DEPTNO = 1 differs
        ("SELECT EMPNO FROM EMP WHERE DEPTNO > 1 FETCH FIRST 5 ROWS ONLY",
         "SELECT EMPNO FROM EMP WHERE DEPTNO >= 1 FETCH FIRST 5 ROWS ONLY"),
    ]
    lines = [json.dumps({"index": i, "schema": schema, "pair": list(p),
                         "constraint": [{"primary": [{"value": "EMP__EMPNO"}]}]})
             for i, p in enumerate(pairs)]
    (tmp_path / "lit.jsonlines").write_text("\n".join(lines) + "\n")
    code = cli.main(["smtlib", "--benchmark", "verieql", "--dev", str(tmp_path / "lit.jsonlines"),
                     "--dialect", "generic", "--bound", "1", "--out", str(tmp_path / "out")])
    assert code == 0, capsys.readouterr()
    with open(tmp_path / "out" / "index.csv", newline="") as f:
        index = list(csv.DictReader(f))
    assert len(index) == 2 and {r["system"] for r in index} == {"lit"}
    answers = {r["question_id"]: get_solver("z3").check(
        (tmp_path / "out" / r["file"]).read_text(), timeout=20).status for r in index}
    assert answers == {"0": Status.UNSAT, "1": Status.SAT}


# ------------------------------------------------------------------ options reach the export

FK_TABLES = [{
    "db_id": "orders",
    "table_names_original": ["customer", "sale"],
    "column_names_original": [[-1, "*"], [0, "id"], [1, "id"], [1, "customer_id"]],
    "column_types": ["text", "number", "number", "number"],
    "primary_keys": [1, 2],
    "foreign_keys": [[3, 1]],
}]
# equal only when every sale's customer exists: the declared key, which SQLite enforces
# only with PRAGMA foreign_keys = ON
FK_GOLD = "SELECT s.id FROM sale AS s JOIN customer AS c ON s.customer_id = c.id"
FK_PRED = "SELECT s.id FROM sale AS s WHERE s.customer_id IS NOT NULL"


def _status_of(path: Path) -> Status:
    return get_solver("z3").check(path.read_text(), timeout=60).status


@pytest.mark.parametrize(("enforced", "expected"), [(False, Status.SAT), (True, Status.UNSAT)])
def test_suite_export_at_data_sqlite_assumes_keys_only_when_enforced(tmp_path, enforced,
                                                                     expected):
    dev = [{"question_id": 0, "db_id": "orders", "question": "", "evidence": "",
            "SQL": FK_GOLD, "difficulty": "simple"}]
    (tmp_path / "dev.json").write_text(json.dumps(dev))
    (tmp_path / "tables.json").write_text(json.dumps(FK_TABLES))
    (tmp_path / "sys.json").write_text(json.dumps({"0": FK_PRED}))
    argv = ["smtlib", "--benchmark", "bird", "--dev", str(tmp_path / "dev.json"),
            "--tables", str(tmp_path / "tables.json"), "--pred", f"sys={tmp_path / 'sys.json'}",
            "--bound", "1", "--data", "sqlite", "--out", str(tmp_path / "out")]
    assert cli.main(argv + (["--enforced-fks"] if enforced else [])) == 0
    # sat: a sale whose customer is missing separates them; unsat: the key rules it out
    assert _status_of(tmp_path / "out" / "sys" / "orders" / "q0_k1.smt2") is expected


def test_recursion_depth_reaches_the_exported_formula(tmp_path):
    from spotit.export import export_smtlib

    ddl = "CREATE TABLE t (a INTEGER);"
    sql = ("WITH RECURSIVE c(n) AS (SELECT a FROM t UNION ALL SELECT n + 1 FROM c "
           "WHERE n < 5) SELECT n FROM c")
    sizes = {}
    for depth in (2, 6):
        (path,) = export_smtlib(ddl, sql, sql + " WHERE 1 = 1", out_dir=tmp_path / str(depth),
                                bound=1, recursion_depth=depth)
        sizes[depth] = len(path.read_text())
    assert sizes[2] < sizes[6], sizes  # four more rounds unrolled


def test_an_unreadable_sql_file_is_a_clear_error(tmp_path, capsys):
    missing = tmp_path / "missing.sql"
    with pytest.raises(SystemExit) as stop:
        cli.main(["check", "--schema", str(tmp_path / "s.sql"), "--gold", f"@{missing}",
                  "--pred", "SELECT 1"])
    assert stop.value.code == 2
    assert f"argument --gold: cannot read {missing}" in capsys.readouterr().err
    with pytest.raises(SystemExit, match=f"argument --pred: cannot read {missing}"):
        cli.main(["smtlib", "--schema", str(tmp_path / "s.sql"), "--gold", "SELECT 1",
                  "--pred", f"@{missing}", "--out", str(tmp_path / "out")])


def test_cvc5_with_a_time_limit_runs_where_the_limit_can_stop_it(monkeypatch):
    """cvc5's own limit is soft (it overran --timeout 30 by minutes on a Spider 2.0 pair),
    so a check with a time limit runs it in a child process, stopped at the limit even
    when cvc5 itself would go on: here its own limit is a minute, the check's one second.
    """
    from spotit.pipeline import CheckOptions, _solver
    from spotit.solvers import portfolio

    solver = _solver(CheckOptions(solver="cvc5", timeout=5))
    assert isinstance(solver, portfolio.ProcessSolver) and solver.name == "cvc5"
    assert not isinstance(_solver(CheckOptions(solver="cvc5", timeout=0)),
                          portfolio.ProcessSolver)
    original = portfolio._Member.send

    def lenient(self, message):  # the member's own limit: a minute
        if message[0] == "check":
            message = ("check", 60.0, *message[2:])
        original(self, message)

    # x^3 + y^3 = z^3 in positive integers: no solution, and none that cvc5 finds soon
    hard = ("(set-logic QF_NIA)(declare-fun x () Int)(declare-fun y () Int)"
            "(declare-fun z () Int)(assert (and (> x 0) (> y 0) (> z 0)"
            " (= (+ (* x x x) (* y y y)) (* z z z))))")
    try:
        with monkeypatch.context() as m:
            m.setattr(portfolio._Member, "send", lenient)
            with solver.open(hard) as session:
                res = session.check(timeout=1.0)
        assert res.status is Status.TIMEOUT, res
        assert "still running (stopped)" in res.reason
        with solver.open("(declare-fun x () Int)(assert (> x 41))") as session:
            again = session.check(timeout=20)  # a fresh member takes the next check
        assert again.status is Status.SAT and again.model["x"] > 41
    finally:
        solver.close()
