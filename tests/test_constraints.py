"""Constraints as assumptions: each kind prunes a counterexample that violates it and
keeps one that does not; ``violations`` on hand-built databases; mining finds the
constraints planted in a database; both published formats import; the CLI path.

Expected verdicts are derived by hand (the comments say how).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from spotit import cli
from spotit.constraints.assume import check_with_constraints
from spotit.constraints.augment import augment
from spotit.constraints.formats import load_constraints, write_constraints
from spotit.constraints.mine import MineOptions, mine
from spotit.constraints.model import (
    Compare,
    ConstraintSet,
    ForeignKey,
    FunctionalDependency,
    Inclusion,
    InList,
    NotNull,
    Pattern,
    PrimaryKey,
    Range,
    Unique,
)
from spotit.constraints.violations import violations
from spotit.errors import ConstraintError
from spotit.schema import schema_from_ddl, schema_from_tables_json

DDL = "CREATE TABLE t(a INTEGER, b TEXT, c INTEGER); CREATE TABLE u(d INTEGER);"
GT, GE = "SELECT a FROM t WHERE a > 1", "SELECT a FROM t WHERE a >= 1"

# (gold, pred, constraint, verdict under it). The unconstrained verdict of each pair is
# not_equivalent (a row the two conditions treat differently); the comment says why the
# constraint does or does not rule every such row out.
CASES = [
    # only a = 1 separates > 1 and >= 1: a >= 5 excludes it, [0, 3] does not
    (GT, GE, Range("t", "a", 5, None), "equivalent"),
    (GT, GE, Range("t", "a", 0, 3), "not_equivalent"),
    (GT, GE, InList("t", "a", (0, 2, 3)), "equivalent"),
    (GT, GE, InList("t", "a", (1, 2)), "not_equivalent"),
    # COUNT(*) and COUNT(a) differ only on a NULL a
    ("SELECT COUNT(a) FROM t", "SELECT COUNT(*) FROM t", NotNull("t", "a"), "equivalent"),
    ("SELECT COUNT(a) FROM t", "SELECT COUNT(*) FROM t", NotNull("t", "b"), "not_equivalent"),
    # DISTINCT matters only with a repeated a (bag semantics below); NULLs may repeat
    ("SELECT DISTINCT a FROM t", "SELECT a FROM t", Unique("t", ("a",)), "not_equivalent"),
    ("SELECT DISTINCT a FROM t WHERE a IS NOT NULL", "SELECT a FROM t WHERE a IS NOT NULL",
     Unique("t", ("a",)), "equivalent"),
    ("SELECT DISTINCT a FROM t", "SELECT a FROM t", PrimaryKey("t", ("a",)), "equivalent"),
    # a row of t whose a has no u.d partner: the join drops it
    ("SELECT a FROM t WHERE a IS NOT NULL", "SELECT a FROM t JOIN u ON u.d = t.a",
     ForeignKey("t", ("a",), "u", ("d",)), "not_equivalent"),  # bags: u.d may repeat
    ("SELECT DISTINCT a FROM t WHERE a IS NOT NULL",
     "SELECT DISTINCT a FROM t JOIN u ON u.d = t.a", Inclusion("t", ("a",), "u", ("d",)),
     "equivalent"),
    ("SELECT DISTINCT a FROM t WHERE a IS NOT NULL",
     "SELECT DISTINCT a FROM t JOIN u ON u.d = t.a", Inclusion("t", ("c",), "u", ("d",)),
     "not_equivalent"),
    # a b starting with '2' but below '2' is impossible; a date b can still be >= '2'
    # without starting with '2' ('3000-01-01'), and 'aB' is neither upper nor digits
    ("SELECT b FROM t WHERE b LIKE '2%'", "SELECT b FROM t WHERE b >= '2'",
     Pattern("t", "b", pattern="date"), "not_equivalent"),
    ("SELECT b FROM t WHERE b = 'aB'", "SELECT b FROM t WHERE 0",
     Pattern("t", "b", pattern="upper"), "equivalent"),
    ("SELECT b FROM t WHERE b = 'AB'", "SELECT b FROM t WHERE 0",
     Pattern("t", "b", pattern="upper"), "not_equivalent"),
    ("SELECT b FROM t WHERE b GLOB '*x*'", "SELECT b FROM t WHERE 0",
     Pattern("t", "b", pattern="digits"), "equivalent"),
    # a <= c makes NOT (a > c) the same as both non-NULL; alone it is not a filter
    ("SELECT a FROM t WHERE NOT (a > c)",
     "SELECT a FROM t WHERE a IS NOT NULL AND c IS NOT NULL", Compare("t", "a", "<=", "c"),
     "equivalent"),
    ("SELECT a FROM t WHERE a <= c", "SELECT a FROM t", Compare("t", "a", "<=", "c"),
     "not_equivalent"),
    # a -> b: one b per non-NULL a, so the bare b is MIN(b); NULL a groups are free
    ("SELECT a, b FROM t WHERE a IS NOT NULL GROUP BY a",
     "SELECT a, MIN(b) FROM t WHERE a IS NOT NULL GROUP BY a",
     FunctionalDependency("t", ("a",), ("b",)), "equivalent"),
    ("SELECT a, b FROM t GROUP BY a", "SELECT a, MIN(b) FROM t GROUP BY a",
     FunctionalDependency("t", ("a",), ("b",)), "not_equivalent"),
]


@pytest.mark.parametrize(("gold", "pred", "constraint", "expected"), CASES,
                         ids=[f"{c[2].kind}-{c[3]}-{i}" for i, c in enumerate(CASES)])
def test_each_kind_prunes_or_keeps(gold, pred, constraint, expected):
    schema = schema_from_ddl(DDL)
    # duplicates are the point of keys and foreign keys: compare those as bags
    semantics = "bag" if constraint.kind in ("unique", "primary_key", "foreign_key") else "set"
    cs = ConstraintSet((constraint,))
    res = check_with_constraints(schema, gold, pred, cs, bound=3, timeout=60,
                                 semantics=semantics)
    assert res.verdict.value == "not_equivalent", res.reason  # the difference without them
    c = res.constrained
    assert c is not None and c.verdict.value == expected, c.reason
    if expected == "equivalent":
        assert c.violated_kinds == [constraint.kind]
        assert c.proven_bound == 3  # every bound proven under the augmented schema
    else:  # the counterexample reported satisfies the constraint, as SQLite says
        rows = {t: [tuple(r.values()) for r in rs] for t, rs in c.counterexample.items()}
        assert violations(schema, rows, cs) == []


def test_violations_on_hand_built_databases():
    schema = schema_from_ddl(DDL)
    cs = ConstraintSet((NotNull("t", "a"), Unique("t", ("a",)), PrimaryKey("t", ("c",)),
                        ForeignKey("t", ("a",), "u", ("d",)), Range("t", "a", 0, 10),
                        InList("t", "b", ("x", "y")), Pattern("t", "b", pattern="lower"),
                        FunctionalDependency("t", ("c",), ("b",)),
                        Compare("t", "a", "<", "c")))
    ok = {"t": [(1, "x", 2), (2, "y", 3)], "u": [(1,), (2,)]}
    assert violations(schema, ok, cs) == []
    bad = {"t": [(None, "X", 2), (11, "y", 2), (11, "x", None)], "u": [(1,)]}
    found = {v.constraint.kind: v.count for v in violations(schema, bad, cs)}
    # NOT NULL: row 1; UNIQUE: the pair of 11s; PK c: 2 twice and a NULL; FK: 11 not in u;
    # range: the 11s; IN: 'X'; lower: 'X'; FD c -> b: c = 2 has 'X' and 'y';
    # compare a < c: 11 < 2 is false (NULL rows pass)
    assert found == {"not_null": 1, "unique": 1, "primary_key": 2, "foreign_key": 2,
                     "range": 2, "in": 1, "pattern": 1, "functional_dependency": 1,
                     "compare": 1}


def test_numeric_only_lower_bound_excludes_text():
    # numbers sort before text in SQLite: 'abc' >= 5 holds, so the range adds c < ''
    schema = schema_from_ddl("CREATE TABLE t(a);")
    cs = ConstraintSet((Range("t", "a", 5, None),))
    assert [v.count for v in violations(schema, {"t": [(7,), ("abc",), (None,)]}, cs)] == [1]


def test_augmented_schema_is_enforced_by_sqlite():
    schema = schema_from_ddl(DDL)
    aug = augment(schema, ConstraintSet((NotNull("t", "a"), Range("t", "c", 0, 3),
                                         Unique("t", ("b",)))))
    assert aug.require_table("t").column("a").not_null
    conn = aug.create_database()
    conn.execute("INSERT INTO t VALUES (1, 'x', 2)")
    for row in ((None, "y", 1), (1, "z", 9), (1, "x", 1)):
        with pytest.raises(sqlite3.IntegrityError):
            conn.execute("INSERT INTO t VALUES (?, ?, ?)", row)


def test_unknown_names_are_errors_naming_them(tmp_path):
    schema = schema_from_ddl(DDL)
    f = tmp_path / "c.json"
    f.write_text(json.dumps({"constraints": [{"kind": "not_null", "table": "t",
                                               "column": "zz"}]}))
    with pytest.raises(ConstraintError, match=r"unknown column t\.zz"):
        load_constraints(f, schema)
    f.write_text(json.dumps({"constraints": [{"kind": "unique", "table": "nope",
                                               "columns": ["a"]}]}))
    with pytest.raises(ConstraintError, match="unknown table 'nope'"):
        load_constraints(f, schema)


def test_native_format_round_trip(tmp_path):
    schema = schema_from_ddl(DDL)
    cs = ConstraintSet(tuple(c for _, _, c, _ in CASES))
    write_constraints(cs, tmp_path / "c.json")
    back = load_constraints(tmp_path / "c.json", schema)
    assert set(back) == set(cs)


def test_verieql_format(tmp_path):
    schema = schema_from_ddl("CREATE TABLE EMP(EMPNO INT, DEPTNO INT); "
                             "CREATE TABLE DEPT(DEPTNO INT, NAME VARCHAR);")
    f = tmp_path / "v.json"
    f.write_text(json.dumps([{"not_null": {"value": "EMP__DEPTNO"}},
                             {"primary": [{"value": "DEPT__DEPTNO"}]},
                             {"foreign": [{"value": "EMP__DEPTNO"}, {"value": "DEPT__DEPTNO"}]},
                             {"mystery": {}}]))
    cs = load_constraints(f, schema)
    assert set(cs) == {NotNull("EMP", "DEPTNO"), PrimaryKey("DEPT", ("DEPTNO",)),
                       ForeignKey("EMP", ("DEPTNO",), "DEPT", ("DEPTNO",))}
    assert len(cs.skipped) == 1 and "mystery" in cs.skipped[0]  # skipped, and said so


def test_spotit_plus_format(tmp_path):
    schema = schema_from_ddl("CREATE TABLE Races(raceId INTEGER, year INTEGER, name TEXT, "
                             "circuitId INTEGER); CREATE TABLE circuits(circuitId INTEGER);")
    f = tmp_path / "f1_constraints.json"
    f.write_text(json.dumps({"f1": [[
        {"primary": [{"value": "RACES__RACEID"}]},
        {"not_null": {"value": "RACES__NAME"}},
        {"between": [{"value": "RACES__YEAR"}, 1950.0, 1e308]},
        {"in": [{"value": "RACES__NAME"}, ["Monaco", "Monza"]]},
        {"foreign": [{"value": "RACES__CIRCUITID"}, {"value": "CIRCUITS__CIRCUITID"}]},
        {"dependency": {"values": ["RACES__RACEID", "RACES__NAME"]}},
        {"dependency": {"values": ["RACES__YEAR", "RACES__RACEID"], "type": "ordering",
                        "operator": "<="}},
        {"not_null": {"value": "RACES__NOPE"}},
    ]]}))
    cs = load_constraints(f, schema, "f1")
    assert set(cs) == {
        PrimaryKey("Races", ("raceId",)), NotNull("Races", "name"),
        Range("Races", "year", 1950.0, None), InList("Races", "name", ("Monaco", "Monza")),
        ForeignKey("Races", ("circuitId",), "circuits", ("circuitId",)),
        FunctionalDependency("Races", ("raceId",), ("name",)),
        Compare("Races", "year", "<=", "raceId")}
    assert len(cs.skipped) == 1 and "RACES__NOPE" in cs.skipped[0]
    with pytest.raises(ConstraintError, match="no constraints for db_id 'other'"):
        load_constraints(f, schema, "other")


SHARED = Path("/work/shared/data/bird")


@pytest.mark.skipif(not (SHARED / "dev_tables.json").exists(), reason="no shared BIRD data")
def test_every_published_spotit_plus_file_loads():
    totals: dict[str, int] = {}
    skipped: list[str] = []
    for path in sorted((SHARED / "constraints_spotit_plus").glob("*/*.json")):
        db_id = next(iter(json.loads(path.read_text())))
        schema = schema_from_tables_json(SHARED / "dev_tables.json", db_id)
        cs = load_constraints(path, schema, db_id)
        augment(schema, cs)  # every loaded set declares into a schema SQLite accepts
        for k, n in cs.counts().items():
            totals[k] = totals.get(k, 0) + n
        skipped += [f"{path.name}: {s}" for s in cs.skipped]
    print("loaded:", dict(sorted(totals.items())), "skipped:", len(skipped), skipped[:5])
    assert totals.get("functional_dependency") and totals.get("compare")
    assert len(skipped) < 0.05 * sum(totals.values())


def _planted(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.executescript("""
        CREATE TABLE dept(id INTEGER, code TEXT, city TEXT);
        CREATE TABLE emp(eid INTEGER, dept INTEGER, day TEXT, grade INTEGER, note TEXT);
    """)
    conn.executemany("INSERT INTO dept VALUES (?, ?, ?)",
                     [(1, "AB", "x"), (2, "CD", "y"), (3, "EF", "y")])
    # dept -> grade (1 -> 1, 2 -> 2, 3 -> 2), eid unique, day a date, grade in {1, 2},
    # note sometimes NULL and mixed case; emp.dept values all in dept.id
    rows = [(i, 1 + i % 3, f"2020-01-{1 + i % 28:02d}", 1 if i % 3 == 0 else 2,
             None if i % 4 == 0 else f"N{i % 5}x") for i in range(60)]
    conn.executemany("INSERT INTO emp VALUES (?, ?, ?, ?, ?)", rows)
    conn.commit()
    conn.close()


def test_mining_finds_what_was_planted(tmp_path):
    db = tmp_path / "planted.sqlite"
    _planted(db)
    cs, _ = mine(db, MineOptions(min_support=2))
    found = {c.describe() for c in cs}
    for want in ("NOT NULL emp.eid", "UNIQUE emp.eid", "RANGE 0 <= emp.eid <= 59",
                 "IN emp.grade ∈ {1, 2}", "PATTERN emp.day date", "PATTERN dept.code upper",
                 "FD emp: dept -> grade", "INCLUSION emp.dept ⊆ dept.id",
                 "UNIQUE dept.code"):
        assert want in found, want
    for absent in ("NOT NULL emp.note", "FD emp: grade -> dept", "UNIQUE emp.dept",
                   "INCLUSION dept.id ⊆ emp.dept", "PATTERN emp.note lower",
                   "PATTERN emp.note upper"):
        assert absent not in found, absent  # each is false on the data
    assert all(c.support for c in cs)
    # every mined constraint holds on the database it came from, by SQLite's account
    conn = sqlite3.connect(db)
    rows = {t: conn.execute(f"SELECT * FROM {t}").fetchall() for t in ("dept", "emp")}
    schema = schema_from_ddl(";".join(r[0] for r in conn.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'table'")) + ";")
    assert violations(schema, rows, cs) == []


def test_mining_cli_with_sample(tmp_path, capsys):
    db = tmp_path / "planted.sqlite"
    _planted(db)
    out = tmp_path / "mined.json"
    assert cli.main(["constraints", "mine", "--db", str(db), "--tables", "emp",
                     "--sample", "20", "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["sample"] == 20 and data["format"] == "spotit-constraints"
    assert {c["table"] for c in data["constraints"]} == {"emp"}
    assert any(c["kind"] == "not_null" and c["column"] == "eid" and c["support"] == 20
               for c in data["constraints"])


def test_check_cli_text_and_json(tmp_path, capsys):
    ddl = tmp_path / "s.sql"
    ddl.write_text("CREATE TABLE t(a INTEGER, b TEXT);")
    cons = tmp_path / "c.json"
    cons.write_text(json.dumps({"constraints": [
        {"kind": "range", "table": "T", "column": "A", "min": 5}]}))
    args = ["check", "--schema", str(ddl), "--gold", GT, "--pred", GE, "-k", "2",
            "--constraints", str(cons)]
    assert cli.main(args) == 0
    text = capsys.readouterr().out
    assert "verdict: not_equivalent" in text
    assert ("under constraints: equivalent within K = 2 — the difference needs data that "
            "violates: RANGE 5 <= t.a") in text
    assert cli.main([*args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "not_equivalent"
    assert data["constrained"]["verdict"] == "equivalent"
    assert data["constrained"]["violated"] == ["RANGE 5 <= t.a"]
    cons.write_text(json.dumps({"constraints": [
        {"kind": "range", "table": "t", "column": "a", "min": 0, "max": 3}]}))
    assert cli.main(args) == 0
    assert ("under constraints: not_equivalent (a counterexample that satisfies them)"
            in capsys.readouterr().out)


def test_evaluate_records_the_constrained_verdict(tmp_path, capsys):
    from spotit.experiments.report import load_run, summarize, summary_table
    from spotit.experiments.runners import EvaluationSettings, run_evaluation
    from tests.test_experiments_evaluate import make_benchmark

    paths = make_benchmark(tmp_path)
    folder = tmp_path / "constraints"
    folder.mkdir()
    # price > 10 and price >= 10 differ only at 10: prices of at least 11 remove that
    (folder / "shop.json").write_text(json.dumps({"constraints": [
        {"kind": "range", "table": "item", "column": "price", "min": 11, "max": 1000}]}))
    settings = EvaluationSettings("bird", bound=2, timeout=30, probe_trials=0)
    store, run_id = run_evaluation(
        benchmark="bird", dev=tmp_path / "dev.json", tables=tmp_path / "tables.json",
        predictions={"A": paths["A"]}, results=tmp_path / "r.sqlite",
        db_dir=tmp_path / "dbs", settings=settings, workers=1, questions="0,1",
        constraints=folder)
    recs = {r.question_id: r for r, _ in store.run_records(run_id)}
    assert recs["0"].verdict == "not_equivalent"
    assert recs["0"].result["constrained"]["verdict"] == "equivalent"
    assert recs["0"].result["constrained"]["violated_kinds"] == ["range"]
    assert recs["1"].result["constrained"]["verdict"] == "equivalent"  # no difference at all
    store.close()
    run, pairs = load_run(tmp_path / "r.sqlite", run_id)
    summary = summarize(run, pairs, iterations=10)
    c = summary["systems"]["A"]["constraints"]
    assert (c["refutations"], c["surviving"], c["removed"]) == (1, 0, 1)
    assert c["removed_by_kind"] == {"range": 1}
    assert c["ex_spotit_constrained"] == 1.0  # q0 passes EX-TEST and survives no longer
    assert "removed by kind" in summary_table(summary)


def test_evaluate_and_smtlib_under_realistic_data(tmp_path, capsys):
    """``--data realistic``: the constraints are assumed. price > 10 and price >= 10 differ
    only at 10 (the hand derivation of test_evaluate_records_the_constrained_verdict);
    with prices of at least 11 they are equivalent within the bound, and the verdict says
    it holds under realistic data."""
    from spotit.experiments.runners import EvaluationSettings, run_evaluation
    from tests.test_experiments_evaluate import make_benchmark

    paths = make_benchmark(tmp_path)
    folder = tmp_path / "constraints"
    folder.mkdir()
    (folder / "shop.json").write_text(json.dumps({"constraints": [
        {"kind": "range", "table": "item", "column": "price", "min": 11, "max": 1000}]}))
    settings = EvaluationSettings("bird", bound=2, timeout=30, probe_trials=0,
                                  data="realistic")
    store, run_id = run_evaluation(
        benchmark="bird", dev=tmp_path / "dev.json", tables=tmp_path / "tables.json",
        predictions={"A": paths["A"]}, results=tmp_path / "r.sqlite", settings=settings,
        workers=1, questions="0", constraints=folder)
    (rec, _), = store.run_records(run_id)
    assert rec.verdict == "equivalent" and rec.result["data"] == "realistic", rec.reason
    store.close()
    # without constraints the level is refused, by name
    args = ["evaluate", "--benchmark", "bird", "--dev", str(tmp_path / "dev.json"),
            "--tables", str(tmp_path / "tables.json"), "--pred", f"A={paths['A']}",
            "--results", str(tmp_path / "r2.sqlite"), "--data", "realistic"]
    with pytest.raises(SystemExit, match="needs --constraints"):
        cli.main(args)
    out = tmp_path / "smt"
    assert cli.main(["smtlib", "--benchmark", "bird", "--dev", str(tmp_path / "dev.json"),
                     "--tables", str(tmp_path / "tables.json"), "--pred", f"A={paths['A']}",
                     "--questions", "0", "--bound", "1", "--out", str(out), "--data",
                     "realistic", "--constraints", str(folder)]) == 0
    assert list(out.rglob("*.smt2"))
