"""Explained counterexamples: what a difference needs, on pairs whose needs are known
by hand, and the same answers from a random search restricted the same way.

- ``COUNT(*) ... county IS NULL OR county <> 'x'`` against ``... county <> 'x'``:
  a row counts in one and not the other exactly when county is NULL.
- ``MAX(score)`` against ``score ... ORDER BY score DESC LIMIT 1``: on a table with a
  row both give the largest score (NULL when all are NULL); only an empty table
  gives one row (NULL) against none.
- ``SELECT a`` against ``SELECT DISTINCT a`` (bag, a NOT NULL): they differ exactly
  when two rows share a value of a; in a table of that one column, two identical rows.
- the name with the top score (``ORDER BY score DESC LIMIT 1``) against every name
  with the top score (score NOT NULL): they differ exactly on a tie at the top, two
  rows with the same score.
- ``b > 1`` against ``b >= 1`` on NOT NULL columns: one row with b = 1; nothing special.
"""

from __future__ import annotations

import pytest

from spotit.constraints.augment import augment
from spotit.constraints.model import ConstraintSet, NotNull
from spotit.encodings.equivalence import Semantics
from spotit.explain import explain
from spotit.pipeline import check
from spotit.probe import probe
from spotit.schema import schema_from_ddl

SCHEMA = schema_from_ddl("""
CREATE TABLE school (id INTEGER PRIMARY KEY, name TEXT NOT NULL, county TEXT, score INTEGER);
CREATE TABLE t (a INTEGER NOT NULL, b INTEGER NOT NULL);
CREATE TABLE d (a INTEGER NOT NULL);
CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL);
""")
NULL_PAIR = ("SELECT COUNT(*) FROM school WHERE county IS NULL OR county <> 'x'",
             "SELECT COUNT(*) FROM school WHERE county <> 'x'")


def _explained(gold: str, pred: str, semantics: str = "set", solver: str = "z3") -> dict:
    opts = {"bound": 2, "solver": solver, "semantics": semantics, "timeout": 60}
    res = check(SCHEMA, gold, pred, **opts)
    assert res.verdict.value == "not_equivalent", res.reason
    return {e["detail"]: e["needed"] for e in explain(SCHEMA, gold, pred, res, **opts)}


@pytest.mark.parametrize("solver", ["z3", "cvc5"])
def test_a_difference_that_needs_null(solver):
    assert _explained(*NULL_PAIR, solver=solver) == {"NULL in school.county": True}


def test_a_difference_that_needs_an_empty_table():
    got = _explained("SELECT MAX(score) FROM school",
                     "SELECT score FROM school ORDER BY score DESC LIMIT 1")
    assert got == {"no rows in school": True}


def test_a_difference_that_needs_duplicates():
    got = _explained("SELECT a FROM d", "SELECT DISTINCT a FROM d", semantics="bag")
    assert got == {"two identical rows in d": True, "a non-NULL value repeated in d.a": True}
    got = _explained("SELECT a FROM t", "SELECT DISTINCT a FROM t", semantics="bag")
    assert got["a non-NULL value repeated in t.a"] is True
    # identical rows are not needed there: b may differ between the two rows
    assert got.get("two identical rows in t") in (None, False)


def test_a_difference_that_needs_a_tie():
    got = _explained("SELECT name FROM player ORDER BY score DESC LIMIT 1",
                     "SELECT name FROM player WHERE score = (SELECT MAX(score) FROM player)",
                     semantics="bag")
    assert got.get("a non-NULL value repeated in player.score") is True


def test_a_difference_that_needs_nothing_special():
    assert _explained("SELECT a FROM t WHERE b > 1", "SELECT a FROM t WHERE b >= 1") == {}


def test_a_feature_the_difference_does_not_need():
    """The first counterexample of ``b > 1`` vs ``b >= 1`` over a nullable column may
    hold a NULL elsewhere; a counterexample without it exists, so it is not needed."""
    schema = schema_from_ddl("CREATE TABLE u (a INTEGER, b INTEGER NOT NULL);")
    gold, pred = "SELECT a FROM u WHERE b > 1", "SELECT a FROM u WHERE b >= 1"
    res = check(schema, gold, pred, bound=1, probe_trials=0)
    res.counterexample = {"u": [{"a": None, "b": 1}]}  # as if the search had found this
    res.counterexample_read = {"u": ["a", "b"]}
    assert [(e["detail"], e["needed"]) for e in explain(schema, gold, pred, res, bound=1)] == [
        ("NULL in u.a", False)]


def test_features_none_of_which_is_needed_take_one_search(monkeypatch):
    """``b > 1`` vs ``b >= 1`` needs nothing: given a counterexample with a NULL in a,
    two identical rows and a repeated b, one search with all three forbidden finds one
    without any (no random witnesses here), where one search per feature took three."""
    import spotit.explain as explain_module
    import spotit.pipeline as pipeline

    schema = schema_from_ddl("CREATE TABLE u (a INTEGER, b INTEGER NOT NULL);")
    gold, pred = "SELECT a FROM u WHERE b > 1", "SELECT a FROM u WHERE b >= 1"
    res = check(schema, gold, pred, bound=2, probe_trials=0)
    res.counterexample = {"u": [{"a": None, "b": 1}, {"a": None, "b": 1}]}
    res.counterexample_read = {"u": ["a", "b"]}
    monkeypatch.setattr(explain_module, "_witnesses", lambda *a, **k: [])
    searches = []
    real = pipeline.check

    def counted(*args, **kwargs):
        searches.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(pipeline, "check", counted)
    got = {e["detail"]: e["needed"] for e in explain(schema, gold, pred, res, bound=2)}
    assert len(got) >= 2 and set(got.values()) == {False}, got
    assert len(searches) == 1


def test_random_search_restricted_the_same_way_agrees():
    """Needed: no random database without NULLs in county separates the queries;
    not needed: random databases without NULLs in a still separate b > 1 / b >= 1."""
    no_null = augment(SCHEMA, ConstraintSet((NotNull("school", "county"),)))
    assert probe(no_null, *NULL_PAIR, Semantics.SET, trials=400, max_rows=2) is None
    assert probe(SCHEMA, *NULL_PAIR, Semantics.SET, trials=400, max_rows=2) is not None
    schema = schema_from_ddl("CREATE TABLE u (a INTEGER, b INTEGER NOT NULL);")
    no_null_a = augment(schema, ConstraintSet((NotNull("u", "a"),)))
    found = probe(no_null_a, "SELECT a FROM u WHERE b > 1", "SELECT a FROM u WHERE b >= 1",
                  Semantics.SET, trials=400, max_rows=2)
    assert found is not None and all(r[0] is not None for r in found.rows["u"])


def test_evaluate_explains_and_the_report_counts_what_refutations_need(tmp_path):
    import json

    from spotit.experiments.report import summary_table, write_report
    from spotit.experiments.runners import EvaluationSettings, run_evaluation

    tables = [{"db_id": "shop", "table_names_original": ["item"],
               "column_names_original": [[-1, "*"], [0, "id"], [0, "name"], [0, "price"]],
               "column_types": ["text", "number", "text", "number"], "primary_keys": [1],
               "foreign_keys": []}]
    pairs = [  # the module docstring's NULL and empty-table pairs, and one needing nothing
        ("SELECT COUNT(*) FROM item WHERE name IS NULL OR name <> 'x'",
         "SELECT COUNT(*) FROM item WHERE name <> 'x'"),
        ("SELECT MAX(price) FROM item", "SELECT price FROM item ORDER BY price DESC LIMIT 1"),
        ("SELECT id FROM item WHERE price > 10", "SELECT id FROM item WHERE price >= 10"),
    ]
    (tmp_path / "dev.json").write_text(json.dumps([
        {"question_id": i, "db_id": "shop", "question": "", "evidence": "", "SQL": g,
         "difficulty": "simple"} for i, (g, _) in enumerate(pairs)]))
    (tmp_path / "tables.json").write_text(json.dumps(tables))
    (tmp_path / "p.json").write_text(json.dumps({str(i): p for i, (_, p) in enumerate(pairs)}))
    settings = EvaluationSettings(benchmark="bird", bound=2, timeout=30, explain=True)
    store, run_id = run_evaluation(
        benchmark="bird", dev=tmp_path / "dev.json", tables=tmp_path / "tables.json",
        predictions={"sys": tmp_path / "p.json"}, results=tmp_path / "r.sqlite",
        settings=settings, workers=1)
    needs = {r.question_id: {e["feature"] for e in r.result["explanation"] if e["needed"]}
             for r, _ in store.run_records(run_id)}
    store.close()
    assert needs == {"0": {"null"}, "1": {"empty"}, "2": set()}
    summary = write_report(tmp_path / "r.sqlite", tmp_path / "report", run_id=run_id)
    got = summary["systems"]["sys"]["explanations"]
    has = got.pop("has")  # what the counterexamples found have: at least what they need
    assert got == {"explained": 3, "needs": {"empty": 1, "null": 1}, "needs_none_found": 1}
    assert all(has.get(k, 0) >= n for k, n in got["needs"].items())
    assert "need null/has" in summary_table(summary)
    html = (tmp_path / "report" / "index.html").read_text()
    assert "What the refutations need" in html
    assert 'id="needs"' in html and "needs NULL" in html and "needs no rows" in html
    assert "<strong>Needs:</strong> NULL in item.name" in html
