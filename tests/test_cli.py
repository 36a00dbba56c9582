"""The command line as a user runs it: human output, --json, --save-cex, smtlib export."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

import z3

from tests.fixtures import FIXTURES

SHOP = str(FIXTURES / "schemas" / "shop.sql")
LEFT = "SELECT c.name FROM customers c LEFT JOIN orders o ON o.customer_id = c.id"
INNER = "SELECT c.name FROM customers c JOIN orders o ON o.customer_id = c.id"


def spotit(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "spotit.cli", *args], capture_output=True,
                          text=True, timeout=300)


def test_human_output_shows_database_and_results():
    p = spotit("check", "--schema", SHOP, "--gold", LEFT, "--pred", INNER, "--bound", "2")
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert out.startswith("verdict: not_equivalent")
    assert "table customers:" in out
    assert "gold result (1 row)" in out and "predicted result (0 rows)" in out
    assert "INSERT INTO \"customers\"" in out


def test_json_output_fields():
    p = spotit("check", "--schema", SHOP, "--gold", LEFT, "--pred", INNER, "--json")
    data = json.loads(p.stdout)
    for key in ("verdict", "bound", "solver", "seconds", "reason", "counterexample",
                "gold_result", "pred_result"):
        assert key in data
    assert data["verdict"] == "not_equivalent" and data["bound"] == 5
    customers = data["counterexample"]["customers"]
    assert len(customers) == 1 and set(customers[0]) == {"id", "name", "city"}
    assert data["gold_result"] == [[customers[0]["name"]]] and data["pred_result"] == []


def test_json_equivalent():
    p = spotit("check", "--schema", SHOP, "--gold", "SELECT id FROM customers",
               "--pred", "SELECT DISTINCT id FROM customers", "--json", "--bound", "3",
               "--solver", "cvc5")
    data = json.loads(p.stdout)
    assert data["verdict"] == "equivalent" and data["proven_bound"] == 3
    assert data["solver"] == "cvc5" and data["counterexample"] is None


def test_save_cex_reproduces_on_sqlite(tmp_path):
    path = tmp_path / "cex.sqlite"
    p = spotit("check", "--schema", SHOP, "--gold", LEFT, "--pred", INNER,
               "--save-cex", str(path))
    assert p.returncode == 0
    conn = sqlite3.connect(path)
    assert conn.execute(LEFT).fetchall() != conn.execute(INNER).fetchall()
    script = (tmp_path / "cex.sql").read_text()
    again = sqlite3.connect(":memory:")
    again.executescript(script)
    assert again.execute(LEFT).fetchall() == conn.execute(LEFT).fetchall()


def test_smtlib_export_is_solvable_by_z3(tmp_path):
    p = spotit("smtlib", "--schema", SHOP, "--gold", LEFT, "--pred", INNER, "--bound", "2",
               "--out", str(tmp_path))
    assert p.returncode == 0, p.stderr
    files = sorted(tmp_path.glob("k*.smt2"))
    assert [f.name for f in files] == ["k1.smt2", "k2.smt2"]
    s = z3.Solver()
    s.from_string(files[0].read_text())
    assert s.check() == z3.sat  # the queries differ already at k = 1

    p = spotit("smtlib", "--schema", SHOP, "--gold", "SELECT id FROM customers",
               "--pred", "SELECT DISTINCT id FROM customers", "--bound", "2",
               "--out", str(tmp_path / "eq"))
    for f in sorted((tmp_path / "eq").glob("k*.smt2")):
        s = z3.Solver()
        s.from_string(f.read_text())
        assert s.check() == z3.unsat


def test_example_command():
    p = spotit("example")
    assert p.returncode == 0
    assert "verdict: not_equivalent" in p.stdout and "'+-'" in p.stdout


def test_counterexample_shows_the_columns_the_queries_read(tmp_path):
    """A wide table (BIRD's posts has 21 columns): the text output shows the two the
    queries read and says how many it left out; --json keeps every column."""
    wide = ", ".join(f"c{i} TEXT" for i in range(18))
    schema = tmp_path / "wide.sql"
    schema.write_text(f"CREATE TABLE posts (id INTEGER PRIMARY KEY, score INTEGER, {wide});")
    gold, pred = "SELECT id FROM posts WHERE score > 10", "SELECT id FROM posts WHERE score >= 10"
    p = spotit("check", "--schema", str(schema), "--gold", gold, "--pred", pred, "--bound", "1")
    assert p.returncode == 0, p.stderr
    assert "table posts: (18 columns the queries do not read left out" in p.stdout
    header = next(line for line in p.stdout.splitlines() if "| id" in line)
    assert "score" in header and "c0" not in header
    assert 'INSERT INTO "posts" ("id", "score", "c0"' in p.stdout  # the script has them all
    p = spotit("check", "--schema", str(schema), "--gold", gold, "--pred", pred, "--bound", "1",
               "--json")
    data = json.loads(p.stdout)
    assert data["counterexample_read"] == {"posts": ["id", "score"]}
    assert len(data["counterexample"]["posts"][0]) == 20
