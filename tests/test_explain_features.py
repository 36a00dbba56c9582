"""Explained counterexamples, the features added second: case-only differences, a value
out of an assumed range, a text value compared with a number, an inexact division.

Each pair's need is derived by hand (below and in each test) and the derivation is
checked on SQLite over small databases, never read off SpotIt's output:

- ``c = 'abc'`` against ``LOWER(c) = 'abc'``: a row is selected by one and not the
  other exactly when LOWER(c) = 'abc' and c <> 'abc', i.e. c differs from the literal
  only in letter case: needed.
- ``COUNT(DISTINCT c)`` against ``COUNT(DISTINCT LOWER(c))``: they differ exactly when
  two values of c differ only in case (LOWER is injective on the rest): needed.
- ``SELECT c`` against ``SELECT LOWER(c)``: one row with an upper-case letter is
  enough; a counterexample with 'a' and 'A' has the feature without needing it.
- ``age > 200`` against ``age > 300`` with 0 <= age <= 150 assumed: they differ exactly
  on an age in (200, 300], all out of range: needed. ``age > 100`` against
  ``age > 300``: 120 is in range: not needed.
- ``year > 2000`` against ``CAST(year AS INTEGER) > 2000`` (year TEXT): a NULL year
  selects the row in neither; a TEXT column holds nothing but text and NULL, so a
  difference needs a text value, which the CAST reads as a number. (``year > 2000``
  alone compares as text, by affinity: no text-vs-number feature.) With
  ``CAST(year AS INTEGER) > 2000 OR n > 1`` / ``... OR n >= 1`` a NULL year and n = 1
  tell them apart: a text year is then not needed.
- ``a / b`` against ``CAST(a AS REAL) / b``: they differ exactly when b <> 0 does not
  divide a. Not searched again (it cannot be forbidden soundly): needed is null.
"""

from __future__ import annotations

import itertools
import json
import sqlite3
import time
from collections import Counter

from spotit import cli
from spotit.constraints.model import ConstraintSet, Range
from spotit.explain import explain, fold
from spotit.pipeline import check
from spotit.schema import schema_from_ddl
from tests.spies import record_keyword

DDL = """
CREATE TABLE t (id INTEGER PRIMARY KEY, c TEXT NOT NULL);
CREATE TABLE c1 (id INTEGER PRIMARY KEY, c TEXT NOT NULL CHECK (LENGTH(c) = 1));
CREATE TABLE p (id INTEGER PRIMARY KEY, age INTEGER NOT NULL);
CREATE TABLE s (id INTEGER PRIMARY KEY, year TEXT, n INTEGER NOT NULL);
CREATE TABLE q (a INTEGER NOT NULL, b INTEGER NOT NULL);
"""
SCHEMA = schema_from_ddl(DDL)
AGE = ConstraintSet((Range("p", "age", 0, 150),))


def _explained(gold: str, pred: str, *, cex: dict | None = None, solver: str = "z3",
               **kw) -> dict:
    """{feature kind: needed} (``cex``: as if the search had found that counterexample)."""
    opts = {"bound": 2, "solver": solver, "timeout": 30}
    res = check(SCHEMA, gold, pred, **opts)
    assert res.verdict.value == "not_equivalent", res.reason
    if cex is not None:
        res.counterexample = cex
        res.counterexample_read = {t: list(rows[0]) for t, rows in cex.items()}
    return {e["feature"]: e["needed"] for e in explain(SCHEMA, gold, pred, res, **kw, **opts)}


def _differ(gold: str, pred: str, rows: dict[str, list[tuple]]) -> bool:
    conn = sqlite3.connect(":memory:")
    conn.executescript(DDL)
    for table, trows in rows.items():
        for r in trows:
            conn.execute(f"INSERT INTO {table} VALUES ({', '.join('?' * len(r))})", r)
    g, p = conn.execute(gold).fetchall(), conn.execute(pred).fetchall()
    conn.close()
    return Counter(g) != Counter(p)  # as sets or bags, 4 equal to 4.0 (as BIRD compares)


def _databases(table: str, values: list, rest: tuple = ()):
    """Every database of ``table`` with up to two rows: id, one of ``values``, ``rest``."""
    for n in (1, 2):
        for cells in itertools.product(values, repeat=n):
            yield {table: [(i, c, *rest) for i, c in enumerate(cells)]}


def _case_only(values: list[str], literals: tuple[str, ...] = ()) -> bool:
    """By hand: two values, or a value and a literal, differ but are equal folded."""
    return any(x != y and fold(x) == fold(y) for x in values for y in [*values, *literals])


def test_case_only_against_a_literal_is_needed():
    gold, pred = "SELECT id FROM t WHERE c = 'abc'", "SELECT id FROM t WHERE LOWER(c) = 'abc'"
    assert _explained(gold, pred)["case_only"] is True
    res = check(SCHEMA, gold, pred, bound=1)
    (entry,) = [e for e in explain(SCHEMA, gold, pred, res, bound=1)
                if e["feature"] == "case_only"]
    assert entry["restriction"] == ("values of t.c equal under NOCASE are equal, and none "
                                    "differs only in case from 'abc' (exact)")
    for db in _databases("t", ["abc", "ABC", "aBc", "abd", "x"]):
        cs = [r[1] for r in db["t"]]
        assert _differ(gold, pred, db) == _case_only(cs, ("abc",))


def test_case_only_between_values_is_needed():
    """Two rows are needed: the pairwise part of the restriction (cvc5: quick on it)."""
    gold, pred = "SELECT COUNT(DISTINCT c) FROM c1", "SELECT COUNT(DISTINCT LOWER(c)) FROM c1"
    assert _explained(gold, pred, solver="cvc5")["case_only"] is True
    for db in _databases("c1", ["a", "A", "b", "1"]):
        assert _differ(gold, pred, db) == _case_only([r[1] for r in db["c1"]])


def test_case_only_present_but_not_needed():
    gold, pred = "SELECT c FROM t", "SELECT LOWER(c) FROM t"
    cex = {"t": [{"id": 1, "c": "a"}, {"id": 2, "c": "A"}]}
    # cvc5: z3 takes seconds on LOWER(c) <> c (either is sound here)
    assert _explained(gold, pred, cex=cex, solver="cvc5") == {"case_only": False}
    assert _differ(gold, pred, {"t": [(1, "A")]})  # no case-only pair, still a difference


def test_out_of_range_is_needed():
    gold, pred = "SELECT id FROM p WHERE age > 200", "SELECT id FROM p WHERE age > 300"
    assert _explained(gold, pred, constraints=AGE) == {"out_of_range": True}
    for db in _databases("p", [0, 150, 201, 300, 301]):
        in_range = all(0 <= r[1] <= 150 for r in db["p"])
        assert _differ(gold, pred, db) == (not in_range and any(200 < r[1] <= 300
                                                                for r in db["p"]))
    # without constraints there is no range to be out of
    assert "out_of_range" not in _explained(gold, pred)


def test_out_of_range_present_but_not_needed():
    gold, pred = "SELECT id FROM p WHERE age > 100", "SELECT id FROM p WHERE age > 300"
    got = _explained(gold, pred, cex={"p": [{"id": 1, "age": 250}]}, constraints=AGE)
    assert got == {"out_of_range": False}
    assert _differ(gold, pred, {"p": [(1, 120)]})


def test_text_compared_with_a_number_is_needed():
    gold = "SELECT id FROM s WHERE year > 2000"
    pred = "SELECT id FROM s WHERE CAST(year AS INTEGER) > 2000"
    assert _explained(gold, pred)["text_number"] is True
    assert _differ(gold, pred, {"s": [(1, "3", 0)]})
    for db in _databases("s", [None, 1999, 2001, 5.5, "3", "x"], rest=(0,)):
        # numbers put in a TEXT column are stored as text: only NULL years lack text
        if all(r[1] is None for r in db["s"]):
            assert not _differ(gold, pred, db)


def test_a_text_column_compared_with_a_literal_compares_text():
    """``year > 2000`` on a TEXT column converts 2000 to '2000': no text meets a number,
    and forbidding text there would only leave NULLs (no explanation at all)."""
    got = _explained("SELECT id FROM s WHERE year > 2000 OR n > 1",
                     "SELECT id FROM s WHERE year > 2000 OR n >= 1",
                     cex={"s": [{"id": 1, "year": "0", "n": 1}]})
    assert "text_number" not in got


def test_text_compared_with_a_number_present_but_not_needed():
    gold = "SELECT id FROM s WHERE CAST(year AS INTEGER) > 2000 OR n > 1"
    pred = "SELECT id FROM s WHERE CAST(year AS INTEGER) > 2000 OR n >= 1"
    got = _explained(gold, pred, cex={"s": [{"id": 1, "year": "0", "n": 1}]})
    assert got == {"text_number": False}
    assert _differ(gold, pred, {"s": [(1, None, 1)]})


def test_inexact_division_is_reported_but_not_searched(capsys, tmp_path):
    gold, pred = "SELECT a / b FROM q", "SELECT CAST(a AS REAL) / b FROM q"
    for db in _databases("q", [(7, 2), (8, 2), (1, 0), (-7, 2)]):
        db = {"q": [(a, b) for _, (a, b) in db["q"]]}
        assert _differ(gold, pred, db) == any(b != 0 and a % b for a, b in db["q"])
    assert _explained(gold, pred) == {"inexact_division": None}
    # the same division, exact on the counterexample: not a feature it has
    g2, p2 = "SELECT a / 2 FROM q WHERE b > 1", "SELECT a / 2 FROM q WHERE b >= 1"
    assert _explained(g2, p2, cex={"q": [{"a": 4, "b": 1}]}) == {}
    assert _explained(g2, p2, cex={"q": [{"a": 5, "b": 1}]}) == {"inexact_division": None}
    # an exact division whose integer result is then read as text: still exact
    g3, p3 = "SELECT a / 2 || 'x' FROM q WHERE b > 1", "SELECT a / 2 || 'x' FROM q WHERE b >= 1"
    assert _explained(g3, p3, cex={"q": [{"a": 4, "b": 1}]}) == {}
    assert _explained(g3, p3, cex={"q": [{"a": 5, "b": 1}]}) == {"inexact_division": None}
    # ROUND counts as well: ROUND(a / 3.0, 1) differs from a / 3.0 on a = 1
    g4, p4 = "SELECT ROUND(a / 3.0, 1) FROM q WHERE b > 1", \
        "SELECT ROUND(a / 3.0, 1) FROM q WHERE b >= 1"
    assert _explained(g4, p4, cex={"q": [{"a": 1, "b": 1}]}) == {"inexact_division": None}
    assert _explained(g4, p4, cex={"q": [{"a": 3, "b": 1}]}) == {}
    schema = tmp_path / "s.sql"
    schema.write_text(DDL)
    base = ["check", "--schema", str(schema), "--bound", "2", "--gold", gold, "--pred", pred]
    assert cli.main([*base, "--json"]) == 0
    (entry,) = json.loads(capsys.readouterr().out)["explanation"]
    assert entry["needed"] is None and entry["why"].startswith("cannot be forbidden")
    assert cli.main(base) == 0
    assert "not decided whether it needs: an inexact integer division" in \
        capsys.readouterr().out


def test_cli_passes_the_constraints_file_to_the_explanation(capsys, tmp_path):
    schema, cs = tmp_path / "s.sql", tmp_path / "cs.json"
    schema.write_text(DDL)
    cs.write_text(json.dumps({"constraints": [
        {"kind": "range", "table": "p", "column": "age", "min": 0, "max": 150}]}))
    assert cli.main(["check", "--schema", str(schema), "--bound", "2", "--constraints",
                     str(cs), "--gold", "SELECT id FROM p WHERE age > 200",
                     "--pred", "SELECT id FROM p WHERE age > 300"]) == 0
    assert "needs: a value out of range in p.age (RANGE 0 <= p.age <= 150)" in \
        capsys.readouterr().out


def test_the_report_counts_the_new_kinds(tmp_path):
    from spotit.experiments.report import summary_table, write_report
    from spotit.experiments.runners import EvaluationSettings, run_evaluation

    tables = [{"db_id": "shop", "table_names_original": ["item"],
               "column_names_original": [[-1, "*"], [0, "id"], [0, "name"], [0, "price"],
                                         [0, "qty"]],
               "column_types": ["text", "number", "text", "number", "number"],
               "primary_keys": [1], "foreign_keys": []}]
    pairs = [  # the case-only pair of the module docstring, and a division one
        ("SELECT id FROM item WHERE name = 'abc'",
         "SELECT id FROM item WHERE LOWER(name) = 'abc'"),
        ("SELECT price / qty FROM item WHERE qty > 0",
         "SELECT CAST(price AS REAL) / qty FROM item WHERE qty > 0"),
    ]
    (tmp_path / "dev.json").write_text(json.dumps([
        {"question_id": i, "db_id": "shop", "question": "", "evidence": "", "SQL": g,
         "difficulty": "simple"} for i, (g, _) in enumerate(pairs)]))
    (tmp_path / "tables.json").write_text(json.dumps(tables))
    (tmp_path / "p.json").write_text(json.dumps({str(i): p for i, (_, p) in enumerate(pairs)}))
    store, run_id = run_evaluation(
        benchmark="bird", dev=tmp_path / "dev.json", tables=tmp_path / "tables.json",
        predictions={"sys": tmp_path / "p.json"}, results=tmp_path / "r.sqlite",
        settings=EvaluationSettings(benchmark="bird", bound=2, timeout=30, explain=True),
        workers=1)
    store.close()
    summary = write_report(tmp_path / "r.sqlite", tmp_path / "report", run_id=run_id)
    got = summary["systems"]["sys"]["explanations"]
    assert got["needs"].get("case_only") == 1 and "inexact_division" not in got["needs"]
    assert got["has"]["case_only"] == 1 and got["has"]["inexact_division"] == 1
    assert "need case_only/has" in summary_table(summary)
    html = (tmp_path / "report" / "index.html").read_text()
    assert "needs case-only differences" in html
    assert "has an inexact integer division or rounding" in html


def test_cli_explanation_gets_what_the_check_left_of_the_timeout(capsys, monkeypatch,
                                                                 tmp_path):
    """--timeout is the whole command's: a check that used it up leaves the explanation
    no time, and its features say so instead of running past the limit."""
    import spotit.explain as explain_module

    schema = tmp_path / "s.sql"
    schema.write_text(DDL)
    budgets = record_keyword(monkeypatch, explain_module, "explain", "seconds")
    import spotit.pipeline as pipeline_module

    real_check = pipeline_module.check

    def slow_check(*args, **kw):  # a check that ends past the limit (a load only adds)
        res = real_check(*args, **kw)
        time.sleep(2.2)
        return res

    monkeypatch.setattr(pipeline_module, "check", slow_check)
    assert cli.main(["check", "--schema", str(schema), "--bound", "2", "--timeout", "2",
                     "--json", "--gold", "SELECT year FROM s WHERE n > 1",
                     "--pred", "SELECT year FROM s WHERE n > 1 AND year IS NOT NULL"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == "not_equivalent"  # on a NULL year: a feature to search
    assert budgets == [0.0]
    assert out["explanation"] and all(e["why"] == "no time left" for e in out["explanation"])
