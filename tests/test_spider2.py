"""Spider 2.0's comparison (``--semantics spider2``, ``--benchmark spider2``).

Expected answers come from the evaluator's definition (Spider 2.0-lite's
``evaluate.py``: results re-read from CSV by pandas, every gold column found among
the prediction's columns, numbers within 0.01, each column sorted by its text when
the order is ignored), derived by hand below, and from a second, literal
implementation of that comparison written here (``_official``)."""

from __future__ import annotations

import io
import json
import math
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spotit import check
from spotit.encodings.equivalence import Spider2, comparison
from spotit.spider2 import results_match
from tests.solver_limits import HANG_SECONDS, RLIMIT

pd = pytest.importorskip("pandas")

SCHEMA = "CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, b TEXT, r REAL);"
DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "spider2"


def _official(gold: list[tuple], pred: list[tuple], width: tuple[int, int],
              condition_cols: list[int], ignore_order: bool) -> int:
    """The evaluator's score, step by step as its source reads: SQLite rows through
    ``read_sql_query`` -> ``to_csv`` -> ``read_csv``, then ``compare_pandas_table``."""
    def csv_frame(rows, n):
        names = [f"c{i}" for i in range(n)]
        buf = io.StringIO()
        pd.DataFrame.from_records(rows, columns=names, coerce_float=True).to_csv(
            buf, index=False)
        return pd.read_csv(io.StringIO(buf.getvalue()))

    def same(v1, v2):
        if ignore_order:
            key = lambda x: (x is None, str(x), isinstance(x, (int, float)))  # noqa: E731
            v1, v2 = sorted(v1, key=key), sorted(v2, key=key)
        if len(v1) != len(v2):
            return False
        for a, b in zip(v1, v2, strict=True):
            if pd.isna(a) and pd.isna(b):
                continue
            if isinstance(a, (int, float)) and isinstance(b, (int, float)):
                if not math.isclose(float(a), float(b), abs_tol=1e-2):
                    return False
            elif a != b:
                return False
        return True

    g, p = csv_frame(gold, width[0]), csv_frame(pred, width[1])
    if condition_cols:
        g = g.iloc[:, condition_cols]
    preds = p.transpose().values.tolist()
    return int(all(any(same(gv, pv) for pv in preds) for gv in g.transpose().values.tolist()))


# (gold rows, pred rows, Spider2, evaluator's answer, why -- derived by hand)
HAND = [
    ([(1, "x")], [("x", 1)], Spider2(), True, "column order does not matter"),
    ([(1,)], [(7, 1)], Spider2(), True, "extra prediction columns do not matter"),
    ([(1, 2)], [(1,)], Spider2(), False, "every gold column must be found"),
    ([(1, 2)], [(1,)], Spider2(((0,),)), True, "only the condition column"),
    ([(1,)], [("1",)], Spider2(), True, "the CSV file loses the text/number difference"),
    ([(None,)], [("",)], Spider2(), True, "NULL and '' are both an empty CSV field"),
    ([(1.0,)], [(1.004,)], Spider2(), True, "numbers within 0.01"),
    ([(1.0,)], [(1.02,)], Spider2(), False, "numbers 0.02 apart"),
    ([(1,), (2,)], [(2,), (1,)], Spider2(), True, "order ignored"),
    ([(1,), (2,)], [(2,), (1,)], Spider2(None, True), False, "order kept"),
    ([(1,), ("x",)], [(1.0,), ("x",)], Spider2(), False,
     "a column with text stays text: '1' against '1.0'"),
    ([(1,), (1,)], [(1,)], Spider2(), False, "as many rows"),
    ([(12000000000000000,), (10000000000000000,)],
     [(12000000000000000.0,), (10000000000000000.0,)], Spider2(), False,
     "sorted by text: 1.2e+16 before 1e+16, but 10000000000000000 before 12000000000000000"),
]


@pytest.mark.parametrize("gold,pred,how,want,why", HAND, ids=[h[-1] for h in HAND])
def test_the_evaluator_by_hand(gold, pred, how, want, why):
    assert results_match(gold, pred, how) is want, why
    cols = list(how.columns[0]) if how.columns else []
    assert _official(gold, pred, (len(gold[0]), len(pred[0])), cols,
                     not how.ordered) == int(want), why


cell = st.one_of(st.none(), st.integers(-3, 3), st.sampled_from([0.5, 1.0, 2.004, -1.0]),
                 st.sampled_from(["", "1", "x", "1.0", "a b"]))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 3), st.integers(1, 3), st.data(), st.booleans())
def test_results_match_is_the_evaluator(gw, pw, data, ordered):
    gold = data.draw(st.lists(st.tuples(*[cell] * gw), max_size=4))
    pred = data.draw(st.lists(st.tuples(*[cell] * pw), max_size=4))
    assert results_match(gold, pred, Spider2(None, ordered), (gw, pw)) == bool(
        _official(gold, pred, (gw, pw), [], not ordered))


def test_semantics_names_round_trip():
    for name in ("spider2", "spider2-ordered", "spider2:0,2", "spider2-ordered:1/0,1"):
        assert comparison(name).value == name
    with pytest.raises(ValueError):
        comparison("spider2:x")


def test_storage_classes_in_a_column_with_text_tell_apart():
    """1 and 1.0 print alike only where the column is all numbers: with one row each
    query's column is a number, with two rows ('x' beside it) '1' against '1.0'."""
    gold = "SELECT CASE WHEN a > 0 THEN 1 ELSE 'x' END FROM t"
    pred = "SELECT CASE WHEN a > 0 THEN 1.0 ELSE 'x' END FROM t"
    one = check(SCHEMA, gold, pred, semantics="spider2", bound=1, timeout=60)
    assert one.verdict.value == "equivalent", one.reason
    two = check(SCHEMA, gold, pred, semantics="spider2", bound=2, timeout=60)
    assert two.verdict.value == "not_equivalent", two.reason
    rows = {tuple(r.values()) for r in two.counterexample["t"]}
    conn = sqlite3.connect(":memory:")
    conn.execute(SCHEMA)
    conn.executemany("INSERT INTO t VALUES (?, ?, ?, ?)", rows)
    g, p = (conn.execute(q).fetchall() for q in (gold, pred))
    assert not _official(g, p, (1, 1), [], True)
    assert check(SCHEMA, gold, pred, semantics="bag", bound=2).verdict.value == "equivalent"


@pytest.mark.parametrize("gold,pred,sem,verdicts", [
    ("SELECT a, r FROM t", "SELECT r, a, id FROM t", "spider2", {"equivalent"}),
    ("SELECT a, r FROM t", "SELECT a FROM t", "spider2:0", {"equivalent"}),
    # pandas writes a carriage return unquoted and read_csv ends the line there: a text
    # b = 'x\ry' makes the row two, laid out differently in the two results
    ("SELECT a, b FROM t", "SELECT b, a, id FROM t", "spider2", {"not_equivalent"}),
    ("SELECT a, b FROM t", "SELECT a FROM t", "spider2:0", {"not_equivalent"}),
    # a one-column row of blanks is a blank line, which read_csv skips: b = ' ' is
    # gone from the first result, not from the second
    ("SELECT b FROM t", "SELECT id, b FROM t", "spider2", {"not_equivalent"}),
    ("SELECT b FROM t", "SELECT b FROM t WHERE id > 0 OR id <= 0", "spider2",
     {"equivalent", "spurious"}),
    ("SELECT a, b FROM t", "SELECT a FROM t", "spider2", {"not_equivalent"}),
    ("SELECT a FROM t ORDER BY a", "SELECT a FROM t ORDER BY a DESC", "spider2",
     {"equivalent"}),
    ("SELECT a FROM t ORDER BY a", "SELECT a FROM t ORDER BY a DESC", "spider2-ordered",
     {"not_equivalent"}),
    # within the evaluator's tolerance everywhere: never refuted
    ("SELECT ROUND(r, 2) FROM t", "SELECT r FROM t", "spider2",
     {"equivalent", "spurious", "timeout"}),
    ("SELECT ROUND(r, 1) FROM t ORDER BY id", "SELECT r FROM t ORDER BY id",
     "spider2-ordered", {"not_equivalent"}),
    ("SELECT a FROM t", "SELECT CAST(a AS TEXT) FROM t", "spider2",
     {"equivalent", "spurious", "timeout"}),
    ("SELECT COUNT(*) FROM t", "SELECT CAST(COUNT(*) AS REAL) FROM t", "spider2",
     {"equivalent"}),
    # rows compared in the order SQLite returns them, which no ORDER BY fixes: no claim
    ("SELECT a FROM t", "SELECT a FROM t WHERE a = a OR a IS NULL", "spider2-ordered",
     {"unsupported"}),
    ("SELECT COUNT(*) FROM t", "SELECT COUNT(id) FROM t", "spider2-ordered", {"equivalent"}),
    # one canonical form, but SQLite returns the rows in other orders: DISTINCT in scan
    # order, GROUP BY sorted by its key (b = 'x' then 'a'); a join read from either side
    # (were `equivalent` by canonical form, which skipped the order check)
    ("SELECT DISTINCT b FROM t", "SELECT b FROM t GROUP BY b", "spider2-ordered",
     {"not_equivalent", "unsupported"}),
    ("SELECT t.b, u.b FROM t JOIN t AS u ON u.a = t.a",
     "SELECT t.b, u.b FROM t AS u JOIN t ON u.a = t.a", "spider2-ordered",
     {"not_equivalent", "unsupported"}),
])
def test_spider2_verdicts(gold, pred, sem, verdicts):
    # the solver's own resource limit, not the clock: under load the time shares of a
    # 20 s limit left a candidate unconfirmed (`spurious`) here
    res = check(SCHEMA, gold, pred, semantics=sem, bound=3, rlimit=RLIMIT["z3"],
                timeout=HANG_SECONDS)
    assert res.verdict.value in verdicts, res.reason
    if res.verdict.value == "not_equivalent":
        conn = sqlite3.connect(":memory:")
        conn.execute(SCHEMA)
        for row in res.counterexample["t"]:
            conn.execute("INSERT INTO t VALUES (?, ?, ?, ?)", tuple(row.values()))
        how = comparison(sem)
        g, p = (conn.execute(q).fetchall() for q in (gold, pred))
        cols = list(how.columns[0]) if how.columns else []
        widths = (len(conn.execute(gold).description), len(conn.execute(pred).description))
        assert not _official(g, p, widths, cols, not how.ordered)


def _layout(tmp_path: Path) -> dict[str, Path]:
    """A small Spider 2.0-lite tree: tasks, gold SQL + metadata, DDL.csv, a database."""
    (tmp_path / "gold" / "sql").mkdir(parents=True)
    tasks = [{"instance_id": "local001", "db": "Shop", "question": "names"},
             {"instance_id": "local002", "db": "Shop", "question": "totals by name"},
             {"instance_id": "local003", "db": "Shop", "question": "not public"},
             {"instance_id": "bq001", "db": "x", "question": "BigQuery"}]
    (tmp_path / "spider2-lite.jsonl").write_text("\n".join(map(json.dumps, tasks)))
    (tmp_path / "gold" / "sql" / "local001.sql").write_text("SELECT name FROM item")
    (tmp_path / "gold" / "sql" / "local002.sql").write_text(
        "SELECT name, SUM(price) AS total FROM item GROUP BY name ORDER BY total DESC")
    meta = [{"instance_id": "local001", "condition_cols": [], "ignore_order": True},
            {"instance_id": "local002", "condition_cols": [[1], [3]], "ignore_order": False},
            {"instance_id": "local003", "condition_cols": [], "ignore_order": True}]
    (tmp_path / "gold" / "spider2lite_eval.jsonl").write_text("\n".join(map(json.dumps, meta)))
    ddl = "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, price REAL)"
    (tmp_path / "schemas" / "SHOP").mkdir(parents=True)
    with (tmp_path / "schemas" / "SHOP" / "DDL.csv").open("w") as f:
        f.write('table_name,DDL\nitem,"' + ddl + '"\n'
                'sqlite_sequence,"CREATE TABLE sqlite_sequence(name,seq)"\n')
    (tmp_path / "pred").mkdir()
    (tmp_path / "pred" / "local001.sql").write_text("SELECT id, name FROM item")
    (tmp_path / "pred" / "local002.sql").write_text(
        "SELECT name, ROUND(SUM(price), 0) FROM item GROUP BY name ORDER BY 2 DESC")
    (tmp_path / "db").mkdir()
    conn = sqlite3.connect(tmp_path / "db" / "Shop.sqlite")
    conn.execute(ddl)
    conn.executemany("INSERT INTO item VALUES (?, ?, ?)",
                     [(1, "pen", 1.5), (2, "ink", 3.0), (3, "pen", 1.5)])
    conn.commit()
    conn.close()
    return {"root": tmp_path}


def test_evaluate_spider2_end_to_end(tmp_path):
    root = _layout(tmp_path)["root"]
    out = subprocess.run(
        [sys.executable, "-m", "spotit.cli", "evaluate", "--benchmark", "spider2",
         "--dev", str(root / "spider2-lite.jsonl"), "--tables", str(root / "schemas"),
         "--gold", str(root / "gold"), "--pred", f"mine={root / 'pred'}",
         "--db-dir", str(root / "db"), "--results", str(root / "r.sqlite"), "-k", "2",
         "--jobs", "1"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "2 tasks with public gold and metadata" in out.stderr
    assert "1 gold SQL not public" in out.stderr and "1 not a SQLite task" in out.stderr
    conn = sqlite3.connect(root / "r.sqlite")
    rows = dict(conn.execute("SELECT question_id, semantics || ' ' || verdict || ' ' || "
                             "coalesce(ex_test, '-') FROM pairs"))
    # local001: the names column is found among the prediction's (id, name) on the
    # database (EX-TEST 1), but not everywhere: a name ' ' alone on its line is a blank
    # line the evaluator's read_csv skips in the gold's one-column result
    assert rows["local001"] == "spider2 not_equivalent 1"
    # local002: ordered, the gold's total (column 1; the list [3] does not fit) against
    # a total rounded to units: 3.0 = 3.0 on the database, but 1.5 is not 2.0 everywhere
    assert rows["local002"].startswith("spider2-ordered:1/3 not_equivalent")
    # on the database: pen 3.0 then ink 3.0 (a tie: any order), rounded 3.0 both
    assert rows["local002"].endswith(" 1")


@pytest.mark.skipif(not (DATA / "gold").is_dir(), reason="no Spider 2.0 data in ../shared/data")
def test_public_spider2_gold_against_itself(tmp_path):
    """Every public SQLite gold query against itself under its own comparison: never
    refuted; unsupported only where the task's condition columns do not fit the gold."""
    from spotit.experiments.spider2_inputs import load_spider2

    tasks = load_spider2(DATA / "local_tasks.jsonl", DATA / "schemas", DATA / "gold")
    assert len(tasks.benchmark.questions) == 24
    for q in tasks.benchmark.questions:
        schema = tasks.benchmark.schema(q.db_id)
        res = check(schema, q.gold, q.gold, semantics=q.semantics, bound=2, timeout=60)
        assert res.verdict.value in ("equivalent", "unsupported"), (q.question_id, res.reason)
        if res.verdict.value == "unsupported":
            assert "do not fit the gold" in res.reason, (q.question_id, res.reason)


def test_a_spider2_run_is_not_audited_by_classes(tmp_path):
    """Spider 2.0's comparison (gold columns found among the prediction's) is not an
    equivalence: the audit says so instead of failing on the semantics' name."""
    from spotit.experiments.audit import AuditError, audit
    from spotit.experiments.runners import EvaluationSettings, run_evaluation

    root = _layout(tmp_path)["root"]
    store, run_id = run_evaluation(
        benchmark="spider2", dev=root / "spider2-lite.jsonl", tables=root / "schemas",
        gold=root / "gold", predictions={"mine": root / "pred"},
        results=root / "r.sqlite", settings=EvaluationSettings("spider2", bound=1),
        workers=1)
    with pytest.raises(AuditError, match=r"Spider 2\.0"):
        audit(store, run_id=run_id)
    store.close()
