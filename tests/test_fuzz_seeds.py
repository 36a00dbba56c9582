"""``spotit fuzz --seeds``: end-to-end pairs from a user's queries and schema."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed

from spotit.errors import SpotItError
from spotit.proofs.fuzz import fuzz
from spotit.proofs.queries import query_pairs
from spotit.proofs.seeds import load_seeds
from spotit.schema import schema_from_ddl
from spotit.solvers.testing import requires_solver

DDL = """
CREATE TABLE shop (id INTEGER PRIMARY KEY, city TEXT, rating REAL);
CREATE TABLE sale (id INTEGER PRIMARY KEY, shop_id INTEGER REFERENCES shop(id), amount INTEGER);
"""
QUERIES = """\
SELECT city FROM shop WHERE rating > 3
-- a comment line is not a query
SELECT s.city, SUM(x.amount) FROM shop AS s JOIN sale AS x ON x.shop_id = s.id GROUP BY s.city\tdb
SELECT city FROM shop WHERE
SELECT nope FROM shop
SELECT COUNT(*) FROM sale WHERE amount >= 10;
"""


@pytest.fixture
def files(tmp_path):
    (tmp_path / "schema.sql").write_text(DDL)
    (tmp_path / "queries.sql").write_text(QUERIES)
    return tmp_path


def test_a_file_of_queries_loads_what_sqlite_and_spotit_accept(files):
    seeds = load_seeds(files / "queries.sql", schema=files / "schema.sql")
    assert [s.sql for s in seeds.seeds] == [
        "SELECT city FROM shop WHERE rating > 3",
        "SELECT s.city, SUM(x.amount) FROM shop AS s JOIN sale AS x ON x.shop_id = s.id "
        "GROUP BY s.city",  # the text after a tab (a db_id) is not part of the query
        "SELECT COUNT(*) FROM sale WHERE amount >= 10",
    ]
    assert [s.origin.rsplit(":", 1)[1] for s in seeds.seeds] == ["1", "3", "6"]
    # the truncated query and the unknown column are counted, not dropped silently
    assert sum(seeds.skipped.values()) == 2
    assert all(reason.startswith(("SQLite rejects", "sqlglot")) for reason in seeds.skipped)


def test_seeds_without_a_schema_or_usable_query_are_an_error(files):
    with pytest.raises(SpotItError, match="need a schema"):
        load_seeds(files / "queries.sql")
    (files / "bad.sql").write_text("SELECT nope FROM shop\n")
    with pytest.raises(SpotItError, match="no usable seed"):
        load_seeds(files / "bad.sql", schema=files / "schema.sql")


def test_a_benchmark_dev_file_gives_each_query_its_own_schema(tmp_path):
    tables = [
        {"db_id": "a", "table_names_original": ["t"], "table_names": ["t"],
         "column_names_original": [[-1, "*"], [0, "x"]], "column_names": [[-1, "*"], [0, "x"]],
         "column_types": ["text", "integer"], "primary_keys": [], "foreign_keys": []},
        {"db_id": "b", "table_names_original": ["u"], "table_names": ["u"],
         "column_names_original": [[-1, "*"], [0, "y"]], "column_names": [[-1, "*"], [0, "y"]],
         "column_types": ["text", "text"], "primary_keys": [], "foreign_keys": []},
    ]
    dev = [{"question_id": 0, "db_id": "a", "SQL": "SELECT x FROM t WHERE x > 1",
            "question": "", "evidence": "", "difficulty": "simple"},
           {"question_id": 1, "db_id": "b", "SQL": "SELECT y FROM u WHERE y LIKE 'a%'",
            "question": "", "evidence": "", "difficulty": "simple"},
           {"question_id": 2, "db_id": "b", "SQL": "SELECT x FROM u",
            "question": "", "evidence": "", "difficulty": "simple"}]
    (tmp_path / "tables.json").write_text(json.dumps(tables))
    (tmp_path / "dev.json").write_text(json.dumps(dev))
    seeds = load_seeds(tmp_path / "dev.json", tables=tmp_path / "tables.json")
    by_query = {s.sql: schema_from_ddl(s.ddl) for s in seeds.seeds}
    assert set(by_query) == {"SELECT x FROM t WHERE x > 1", "SELECT y FROM u WHERE y LIKE 'a%'"}
    on_a = by_query["SELECT x FROM t WHERE x > 1"]
    assert on_a.table("t") is not None and on_a.table("u") is None
    assert sum(seeds.skipped.values()) == 1  # x is no column of u


def test_query_pairs_are_mutants_of_the_given_seeds(files):
    seeds = load_seeds(files / "queries.sql", schema=files / "schema.sql").seeds
    golds = {s.sql for s in seeds}
    drawn = []

    @hypothesis_seed(3)
    @settings(max_examples=30, database=None, deadline=None, phases=(Phase.generate,),
              suppress_health_check=list(HealthCheck))
    @given(query_pairs(seeds))
    def collect(case):
        drawn.append(case)

    collect()
    import sqlglot

    normal = {sqlglot.parse_one(g, dialect="sqlite").sql(dialect="sqlite") for g in golds}
    assert {gold for _, gold, _ in drawn} <= normal
    assert all(ddl == seeds[0].ddl for ddl, _, _ in drawn)
    assert any(gold != pred for _, gold, pred in drawn)


@requires_solver("z3")
def test_fuzz_runs_the_end_to_end_part_alone_on_the_seeds(files, tmp_path):
    seeds = load_seeds(files / "queries.sql", schema=files / "schema.sql")
    report = fuzz(examples=8, seed=1, only="QUERIES", seeds=seeds, out_dir=tmp_path / "out")
    assert report.query_pairs_checked >= 2
    assert report.theorem_checks == 0  # no other part ran
    assert report.to_json()["seeds"]["loaded"] == 3
    assert not report.discrepancies


@requires_solver("z3")
def test_the_cli_reads_seeds_and_says_what_it_left_out(files, tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "spotit.cli", "fuzz", "--seeds", str(files / "queries.sql"),
         "--schema", str(files / "schema.sql"), "--only", "QUERIES", "--examples", "4",
         "--json", "--out", str(tmp_path / "out")],
        capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["seeds"]["loaded"] == 3 and sum(data["seeds"]["skipped"].values()) == 2
    assert data["query_pairs_checked"] >= 1
    bad = subprocess.run(
        [sys.executable, "-m", "spotit.cli", "fuzz", "--seeds", str(files / "queries.sql")],
        capture_output=True, text=True, timeout=120)
    assert bad.returncode != 0 and "--schema" in bad.stderr


def test_the_bundled_corpus_loads_whole_and_seeds_half_the_pairs():
    """Every bundled query is usable on its schema (load_seeds would count it skipped
    otherwise), and without a user's seeds about half the drawn pairs come from it."""
    from pathlib import Path

    import spotit
    from spotit.proofs.seeds import CORPUS, bundled_seeds

    folder = Path(spotit.__file__).parent / "examples" / "seeds"
    total = 0
    for name in CORPUS:
        loaded = load_seeds(folder / f"{name}.queries.sql", schema=folder / f"{name}.sql")
        assert not loaded.skipped, (name, dict(loaded.skipped))
        total += len(loaded.seeds)
    assert len(bundled_seeds()) == total >= 200
    corpus_ddls = {s.ddl for s in bundled_seeds()}
    drawn = []

    @hypothesis_seed(4)
    @settings(max_examples=200, database=None, deadline=None, phases=(Phase.generate,),
              suppress_health_check=list(HealthCheck))
    @given(query_pairs())
    def collect(case):
        drawn.append(case)

    collect()
    share = sum(ddl in corpus_ddls for ddl, _, _ in drawn) / len(drawn)
    assert 0.3 < share < 0.7, share
