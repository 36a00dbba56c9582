"""Foreign keys SQLite does not enforce: what each data level assumes, what every
verdict says it assumed, and checks against a real database whose data break one.

The schema is BIRD's toxicology in small: ``bond.molecule_id`` references
``molecule.molecule_id``. The pair is BIRD's question 238: counting the molecules of
'#' bonds directly, and through a join with ``molecule``. With the foreign key they
agree on every database (a bond's molecule always exists); without it a bond row
pointing nowhere is counted by the first and not the second -- hand derivation, and
SQLite's answer on the database built below.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

import spotit
from spotit import cli
from spotit.constraints.declared import check_declared
from spotit.explain import explain
from spotit.schema import schema_from_ddl, schema_from_sqlite_file

DDL = """CREATE TABLE molecule (molecule_id TEXT PRIMARY KEY, label TEXT);
CREATE TABLE bond (bond_id TEXT PRIMARY KEY,
                   molecule_id TEXT REFERENCES molecule (molecule_id), bond_type TEXT);
"""
GOLD = "SELECT COUNT(DISTINCT molecule_id) FROM bond WHERE bond_type = '#'"
PRED = ("SELECT COUNT(DISTINCT T1.molecule_id) FROM bond AS T1 INNER JOIN molecule AS T2 "
        "ON T1.molecule_id = T2.molecule_id WHERE T1.bond_type = '#'")
# the canonical form drops the join (its rule needs the foreign key)
JOINED = ("SELECT T1.bond_id FROM bond AS T1 INNER JOIN molecule AS T2 "
          "ON T1.molecule_id = T2.molecule_id")
DIRECT = "SELECT bond_id FROM bond WHERE molecule_id IS NOT NULL"
FK = {"kind": "foreign_key", "child": "bond.molecule_id", "parent": "molecule.molecule_id"}


def make_db(path: Path, dangling: bool) -> Path:
    conn = sqlite3.connect(path)
    conn.executescript(DDL)
    conn.executemany("INSERT INTO molecule VALUES (?, ?)", [("TR000", "+"), ("TR001", "-")])
    rows = [("TR000_1_2", "TR000", "#"), ("TR001_1_2", "TR001", "#")]
    if dangling:  # SQLite takes it: foreign keys are off by default
        rows.append(("TR999_1_2", "TR999", "#"))
    conn.executemany("INSERT INTO bond VALUES (?, ?, ?)", rows)
    conn.commit()
    conn.close()
    return path


def test_the_pair_differs_on_data_that_break_the_key(tmp_path):
    conn = sqlite3.connect(make_db(tmp_path / "broken.sqlite", dangling=True))
    assert conn.execute(GOLD).fetchall() == [(3,)] and conn.execute(PRED).fetchall() == [(2,)]


def test_declared_assumes_the_key_and_says_the_proof_needs_it():
    r = spotit.check(DDL, GOLD, PRED, bound=3)
    assert r.verdict.value == "equivalent"
    assert r.assumed == [{**FK, "needed": True, "why": "without it, a counterexample"}]
    assert r.not_assumed == []


def test_canonical_form_proof_names_the_key_it_used():
    r = spotit.check(DDL, JOINED, DIRECT, bound=3)
    assert r.verdict.value == "equivalent" and r.proof == "canonical form"
    assert [a["needed"] for a in r.assumed] == [True]
    r = spotit.check(DDL, JOINED, DIRECT, bound=3, data="sqlite")
    assert r.verdict.value == "not_equivalent"  # no rule fires without the key
    assert r.proof is None


def test_a_proof_that_needs_no_key_says_so():
    r = spotit.check(DDL, GOLD, GOLD + " AND 1 = 1", bound=3)
    assert r.verdict.value == "equivalent"
    assert r.assumed == [{**FK, "needed": False}]
    r = spotit.check(DDL, "SELECT label FROM molecule", "SELECT label FROM molecule WHERE 1",
                     bound=2)
    assert r.assumed == []  # molecule has no foreign key of its own


def test_sqlite_level_assumes_no_key_and_the_explanation_names_the_dangling_row():
    schema = schema_from_ddl(DDL)
    r = spotit.check(schema, GOLD, PRED, bound=3, data="sqlite")
    assert r.verdict.value == "not_equivalent"
    bonds = r.counterexample["bond"]
    molecules = {m["molecule_id"] for m in r.counterexample.get("molecule", [])}
    assert any(b["molecule_id"] is not None and b["molecule_id"] not in molecules
               for b in bonds)
    assert r.not_assumed and r.not_assumed[0]["child"] == "bond.molecule_id"
    assert "does not enforce" in r.not_assumed[0]["why"]
    found = explain(schema, GOLD, PRED, r, bound=3, data="sqlite")
    dangling = [e for e in found if e["feature"] == "dangling_reference"]
    assert dangling and dangling[0]["needed"] is True
    assert dangling[0]["table"] == "bond" and dangling[0]["column"] == "molecule_id"


def test_enforced_keys_are_assumed_at_the_sqlite_level():
    r = spotit.check(DDL, GOLD, PRED, bound=3, data="sqlite", enforced_fks=True)
    assert r.verdict.value == "equivalent"
    r = spotit.check("PRAGMA foreign_keys = ON;\n" + DDL, GOLD, PRED, bound=3, data="sqlite")
    assert r.verdict.value == "equivalent"  # the schema text turns enforcement on


def test_checked_against_a_database_that_breaks_the_key(tmp_path):
    db = make_db(tmp_path / "broken.sqlite", dangling=True)
    found = check_declared(schema_from_sqlite_file(db), db)
    fks = [b for b in found.breaches if b.kind == "foreign_key"]
    assert len(fks) == 1 and fks[0].rows == 1 and fks[0].example == "TR999"
    r = spotit.check(str(db), GOLD, PRED, bound=3)
    assert r.verdict.value == "not_equivalent"  # the proof is not made
    assert r.counterexample is not None and r.gold_result != r.pred_result
    assert r.database_check["breaches"][0]["kind"] == "foreign_key"
    assert "data break it" in r.not_assumed[0]["why"]


def test_checked_against_a_database_that_keeps_the_key(tmp_path):
    db = make_db(tmp_path / "fine.sqlite", dangling=False)
    r = spotit.check(str(db), GOLD, PRED, bound=3)
    assert r.verdict.value == "equivalent"
    assert r.database_check["breaches"] == []
    assert r.assumed and r.assumed[0]["needed"] is True


def test_cli_text_names_the_assumption_and_the_broken_key(tmp_path, capsys):
    db = make_db(tmp_path / "broken.sqlite", dangling=True)
    cli.main(["check", "--schema", str(db), "--gold", GOLD, "--pred", PRED, "--bound", "3"])
    out = capsys.readouterr().out
    assert "verdict: not_equivalent" in out
    assert "database: 1 of" in out and "1 rows point nowhere" in out
    assert "dangling" in out or "has no molecule row" in out
    cli.main(["check", "--schema", str(make_db(tmp_path / "fine.sqlite", False)), "--gold",
              GOLD, "--pred", PRED, "--bound", "3", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "equivalent" and data["assumed"][0]["needed"] is True


def test_declared_checks_count_every_kind(tmp_path):
    """Keys, NOT NULL and declared types a tables.json declares but the data break."""
    db = tmp_path / "d.sqlite"
    conn = sqlite3.connect(db)
    conn.executescript("CREATE TABLE p (id INTEGER, born DATE, n INTEGER);"
                       "INSERT INTO p VALUES (1, '2001-02-03', 5), (1, '2001-02-30', 'x'),"
                       " (2, NULL, 7.5);")
    conn.commit()
    conn.close()
    schema = schema_from_ddl("CREATE TABLE p (id INTEGER PRIMARY KEY, born DATE, "
                             "n INTEGER NOT NULL);")
    # (a rowid alias cannot repeat in SQLite; the declared key here is over id anyway)
    got = {(b.kind, b.columns): b.rows for b in check_declared(schema, db).breaches}
    assert got[("declared_type", ("born",))] == 1  # February 30th is no date
    assert got[("declared_type", ("n",))] == 2  # 'x' and 7.5 are not integers
    assert got[("unique", ("id",))] == 2


@pytest.mark.parametrize("data", ["declared", "sqlite"])
def test_rules_needing_a_key_never_fire_without_it(data):
    from spotit.proofs.rules import check_rules

    out = check_rules("SELECT e.name FROM emp AS e JOIN dept AS d ON e.dept_id = d.id",
                      data=data)
    assert out.kind == "ok"
    fired = {r for rules in out.checked.values() for r in rules}
    key_rule = "join to a referenced row that only checks it exists"
    assert (key_rule in fired) == (data == "declared")


TABLES = [{
    "db_id": "tox",
    "table_names_original": ["molecule", "bond"],
    "column_names_original": [[-1, "*"], [0, "molecule_id"], [0, "label"], [1, "bond_id"],
                              [1, "molecule_id"], [1, "bond_type"]],
    "column_types": ["text", "text", "text", "text", "text", "text"],
    "primary_keys": [1, 3],
    "foreign_keys": [[4, 1]],
}]


def test_evaluate_against_test_databases_assumes_only_what_they_keep(tmp_path):
    from spotit.experiments.report import write_report
    from spotit.experiments.runners import EvaluationSettings, run_evaluation

    (tmp_path / "dev.json").write_text(json.dumps([{
        "question_id": 238, "db_id": "tox", "question": "q", "evidence": "", "SQL": GOLD,
        "difficulty": "simple"}]))
    (tmp_path / "tables.json").write_text(json.dumps(TABLES))
    (tmp_path / "p.json").write_text(json.dumps({"238": PRED}))
    settings = EvaluationSettings("bird", bound=3, timeout=30)
    results = {}
    for name, dangling in (("broken", True), ("fine", False)):
        dbs = tmp_path / name / "tox"
        dbs.mkdir(parents=True)
        make_db(dbs / "tox.sqlite", dangling)
        store, run_id = run_evaluation(
            benchmark="bird", dev=tmp_path / "dev.json", tables=tmp_path / "tables.json",
            predictions={"p": tmp_path / "p.json"}, results=tmp_path / f"{name}.sqlite",
            db_dir=tmp_path / name, settings=settings, workers=1)
        [(rec, _)] = list(store.run_records(run_id))
        store.close()
        summary = write_report(tmp_path / f"{name}.sqlite", tmp_path / f"rep-{name}")
        results[name] = (rec, summary["test_databases"]["tox"])
    rec, dbinfo = results["broken"]
    assert rec.ex_test is False  # 3 against 2 on the test database itself
    assert rec.verdict == "not_equivalent"  # the proof needing the broken key is not made
    assert [b["kind"] for b in dbinfo["breaches"]] == ["foreign_key"]
    assert dbinfo["breaches"][0]["rows"] == 1
    assert dbinfo["pairs_not_assuming_a_broken_key"] == 1
    rec, dbinfo = results["fine"]
    assert rec.ex_test is True and rec.verdict == "equivalent"
    assert dbinfo["breaches"] == [] and rec.result["assumed"][0]["needed"] is True
    page = (tmp_path / "rep-broken" / "index.html").read_text()
    assert 'id="test-databases"' in page and "point nowhere" in page


def test_what_sqlite_enforces():
    """docs/semantics.md's table, row by row: SQLite's own answer, and SpotIt's verdict
    on a pair that differs exactly when the constraint is broken."""
    conn = sqlite3.connect(":memory:")
    conn.executescript(DDL + "CREATE TABLE k (a TEXT PRIMARY KEY, u TEXT UNIQUE, "
                             "n INTEGER NOT NULL, i INTEGER, c INTEGER CHECK (c > 0));")
    conn.execute("INSERT INTO bond VALUES ('b', 'TR999', '#')")  # no such molecule: taken
    conn.execute("INSERT INTO k VALUES (NULL, NULL, 1, 'abc', 1)")  # NULL key, text int
    conn.execute("INSERT INTO k VALUES (NULL, NULL, 2, 2, 2)")  # NULLs do not collide
    for bad in ("INSERT INTO k VALUES ('x', NULL, NULL, 1, 1)",  # NOT NULL
                "INSERT INTO k VALUES ('y', NULL, 3, 1, 0)",  # CHECK
                "INSERT INTO k VALUES ('z', 'u', 4, 1, 1), ('w', 'u', 5, 1, 1)"):  # UNIQUE
        with pytest.raises(sqlite3.IntegrityError):
            conn.execute(bad)
    ddl = DDL + "CREATE TABLE k (a TEXT PRIMARY KEY, u TEXT UNIQUE, i INTEGER);"
    pairs = {  # a difference SQLite's data can hold, per row of the table
        "null key": ("SELECT COUNT(*) FROM k WHERE a IS NULL", "SELECT 0"),
        "null unique twice": ("SELECT COUNT(*) FROM k WHERE u IS NULL",
                              "SELECT COUNT(*) FROM k WHERE u IS NULL AND i IS NOT NULL"),
    }
    for name, (g, p) in pairs.items():
        for data in ("declared", "sqlite"):
            assert spotit.check(ddl, g, p, bound=2, data=data).verdict.value == \
                "not_equivalent", (name, data)
    # 'abc' + 0 is 0, which is not the text 'abc': true of text only
    text_int = ("SELECT COUNT(*) FROM k WHERE i IS NOT NULL AND NOT (i + 0 = i)",
                "SELECT 0")
    assert conn.execute(text_int[0].replace("FROM k", "FROM k")).fetchone() == (1,)
    assert spotit.check(ddl, *text_int, bound=2).verdict.value == "equivalent"
    assert spotit.check(ddl, *text_int, bound=2, data="sqlite").verdict.value == \
        "not_equivalent"
    assert spotit.check(DDL, GOLD, PRED, bound=2).verdict.value == "equivalent"
    assert spotit.check(DDL, GOLD, PRED, bound=2, data="sqlite").verdict.value == \
        "not_equivalent"


def test_a_counterexample_must_keep_an_assumed_key_as_sqlite_checks_it():
    # INTEGER 1 and the TEXT key ' 1' are equal under `=` (the TEXT side is converted),
    # but SQLite's own check (and enforcement) finds the row pointing nowhere: such a
    # database broke the key, yet was a "confirmed" counterexample (a helper's hunt)
    check = spotit.check
    ddl = "CREATE TABLE p(k TEXT PRIMARY KEY); CREATE TABLE c(x INTEGER REFERENCES p(k));"
    conn = sqlite3.connect(":memory:")
    conn.executescript(ddl + "INSERT INTO p VALUES (' 1'); INSERT INTO c VALUES (' 1');")
    assert conn.execute("SELECT x FROM c").fetchall() == [(1,)]
    assert conn.execute("PRAGMA foreign_key_check").fetchall()  # broken as SQLite reads it
    q1 = "SELECT x FROM c WHERE x IS NOT NULL"
    q2 = "SELECT x FROM c WHERE EXISTS (SELECT 1 FROM p WHERE p.k || '' = c.x || '')"
    for options in ({"data": "declared"}, {"data": "declared", "enforced_fks": True}):
        res = check(ddl, q1, q2, bound=2, timeout=60, **options)
        assert res.verdict.value != "not_equivalent", (options, res.counterexample)
    # without the key assumed, that database is a counterexample
    assert check(ddl, q1, q2, bound=2, timeout=60, data="sqlite").verdict.value == \
        "not_equivalent"
