"""Plans at a bound (``spotit.ir.bounded``): an ORDER BY ... LIMIT n over an input of
at most n rows cuts nothing on databases of at most k rows per table. Verdicts are
confirmed independently by SQLite on random databases within (and beyond) the bound,
and the row bounds are checked by hand derivation -- a self-join's GROUP BY keys come
from two table occurrences, so k * k groups, never k."""

from __future__ import annotations

import sqlite3

import pytest

from spotit import check
from spotit.encodings.equivalence import Semantics
from spotit.frontend.binder import bind
from spotit.frontend.parser import parse
from spotit.ir import relational as R
from spotit.ir.bounded import at_bound, max_rows
from spotit.probe import probe
from spotit.schema import schema_from_ddl

SCHEMA = schema_from_ddl("""
CREATE TABLE t (id INTEGER PRIMARY KEY, g TEXT, v INTEGER);
CREATE TABLE u (id INTEGER PRIMARY KEY, t_id INTEGER, w INTEGER);
""")


def plan(sql: str) -> R.Rel:
    return bind(parse(sql), SCHEMA)


def aggregate(rel: R.Rel) -> R.Aggregate:
    while not isinstance(rel, R.Aggregate):
        rel = rel.input  # type: ignore[attr-defined]
    return rel


@pytest.mark.parametrize("sql,rows", [
    ("SELECT g FROM t", 5),
    ("SELECT t.g FROM t JOIN u ON u.t_id = t.id", 25),
    ("SELECT t.g, COUNT(*) FROM t JOIN u ON u.t_id = t.id GROUP BY t.g", 5),  # keys of t
    ("SELECT a.g, b.g FROM t AS a, t AS b GROUP BY a.g, b.g", 25),  # two occurrences
    ("SELECT u.w FROM t LEFT JOIN u ON u.t_id = t.id GROUP BY u.w", 25),  # NULL padding
    ("SELECT COUNT(*) FROM t", 1),
    ("SELECT DISTINCT t.g FROM t JOIN u ON u.t_id = t.id", 5),  # values of t's rows
    ("SELECT DISTINCT t.g, u.w FROM t JOIN u ON u.t_id = t.id", 25),
    ("SELECT DISTINCT t.v + u.w FROM t JOIN u ON u.t_id = t.id", 25),  # computed
    ("SELECT g FROM t UNION ALL SELECT g FROM t", 10),
])
def test_row_bounds(sql, rows):
    assert max_rows(plan(sql), 5) == rows


def test_a_limit_that_cannot_cut_is_dropped_and_one_that_can_is_kept():
    top10 = plan("SELECT g FROM t GROUP BY g ORDER BY COUNT(*) DESC LIMIT 10")
    assert not any(isinstance(r, R.Sort) for r in _rels(at_bound(top10, 5, "set")))
    assert any(isinstance(r, R.Sort) and r.limit == 10 for r in _rels(at_bound(top10, 11, "set")))
    top3 = plan("SELECT g FROM t GROUP BY g ORDER BY COUNT(*) DESC LIMIT 3")
    assert any(isinstance(r, R.Sort) and r.limit == 3 for r in _rels(at_bound(top3, 5, "set")))


def _rels(rel: R.Rel):
    yield rel
    for child in R.inputs(rel):
        yield from _rels(child)


def sqlite_difference(gold: str, pred: str, max_rows: int):
    return probe(SCHEMA, gold, pred, Semantics.SET, trials=3000, seconds=30,
                 max_rows=max_rows, seed=5)


def test_equivalent_within_the_bound_where_the_limit_cannot_cut():
    gold = "SELECT g FROM t GROUP BY g ORDER BY COUNT(*) DESC, g LIMIT 10"
    pred = "SELECT DISTINCT g FROM t"
    res = check(SCHEMA, gold, pred, semantics="set", bound=5, timeout=60)
    assert res.verdict.value == "equivalent" and not res.unbounded, res.reason
    assert sqlite_difference(gold, pred, 5) is None  # SQLite agrees within the bound


# the database that shows each difference, derived by hand: four distinct g values
FOUR = [(1, "a", 0), (2, "b", 0), (3, "c", 0), (4, "d", 0)]


@pytest.mark.parametrize("gold,pred,rows", [
    # four groups at k = 4 are more than three
    ("SELECT g FROM t GROUP BY g ORDER BY COUNT(*) DESC, g LIMIT 3",
     "SELECT DISTINCT g FROM t", FOUR),
    # nine (a.g, b.g) groups at k = 3 are more than five: the first five miss 'c'
    ("SELECT a.g FROM t AS a, t AS b GROUP BY a.g, b.g ORDER BY a.g, b.g LIMIT 5",
     "SELECT DISTINCT g FROM t", FOUR[:3]),
])
def test_a_limit_that_can_cut_still_shows_the_difference(gold, pred, rows):
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, g TEXT, v INTEGER)")
    db.executemany("INSERT INTO t VALUES (?, ?, ?)", rows)
    assert set(db.execute(gold).fetchall()) != set(db.execute(pred).fetchall())
    res = check(SCHEMA, gold, pred, semantics="set", bound=5, timeout=60)
    assert res.verdict.value == "not_equivalent", res.reason


ELEVEN = [(i, chr(ord("a") + i), i) for i in range(11)]  # eleven names, one row each


@pytest.mark.parametrize("gold,pred", [
    # an OFFSET past the at most five rows: both empty within the bound
    ("SELECT g FROM t ORDER BY v LIMIT 1 OFFSET 6", "SELECT g FROM t ORDER BY id LIMIT 1 OFFSET 5"),
    # at most five names: neither LIMIT 10 cuts; the GROUP BY read only by its key is the
    # DISTINCT, so the forms at the bound meet without a solver
    ("SELECT DISTINCT g FROM t ORDER BY g LIMIT 10",
     "SELECT g FROM t GROUP BY g ORDER BY COUNT(*) DESC, g DESC LIMIT 10"),
])
def test_equivalent_within_the_bound_only(gold, pred):
    """Equivalent on every database of at most five rows per table (SQLite agrees on
    random ones), not beyond: on eleven rows SQLite shows the difference."""
    res = check(SCHEMA, gold, pred, semantics="set", bound=5, timeout=60)
    assert res.verdict.value == "equivalent" and not res.unbounded, res.reason
    assert sqlite_difference(gold, pred, 5) is None
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, g TEXT, v INTEGER)")
    db.executemany("INSERT INTO t VALUES (?, ?, ?)", ELEVEN)
    assert set(db.execute(gold).fetchall()) != set(db.execute(pred).fetchall())


def test_forms_at_the_bound_close_the_bound_without_a_solver():
    from spotit.pipeline import SAME_AT_BOUND

    gold = "SELECT DISTINCT t.g FROM t JOIN u ON u.t_id = t.id ORDER BY t.g LIMIT 10"
    pred = "SELECT t.g FROM u JOIN t ON u.t_id = t.id GROUP BY t.g ORDER BY SUM(u.w) LIMIT 10"
    res = check(SCHEMA, gold, pred, semantics="set", bound=5, timeout=60)
    assert res.verdict.value == "equivalent", res.reason
    assert [s.answers for s in res.per_bound] == [SAME_AT_BOUND] * 5
    assert sqlite_difference(gold, pred, 5) is None


def test_the_solver_is_given_the_canonical_forms(monkeypatch):
    """Joins written in another order are one formula for the solver: the bounded
    search encodes the canonical forms (equal to the plans on every database)."""
    from spotit.canonical import canonical
    from spotit.pipeline import Checker

    gold = ("SELECT CAST(SUM(CASE WHEN u.w > 2 THEN 1 ELSE 0 END) AS REAL) / COUNT(*) "
            "FROM t JOIN u ON u.t_id = t.id "
            "WHERE t.g = 'x'")
    pred = ("SELECT CAST(COUNT(CASE WHEN u.w > 2 THEN 1 END) AS REAL) / COUNT(u.id) "
            "FROM u JOIN t ON t.id = u.t_id WHERE t.g = 'x'")
    seen = []
    real_encode = Checker.encode

    def spy(self, k, gold_plan, pred_plan, *rest):
        seen.append((gold_plan, pred_plan))
        return real_encode(self, k, gold_plan, pred_plan, *rest)

    monkeypatch.setattr(Checker, "encode", spy)
    res = check(SCHEMA, gold, pred, semantics="set", bound=2, timeout=60, probe_trials=0)
    assert res.verdict.value == "equivalent", res.reason
    forms = tuple(canonical(plan(q), "set")[0] for q in (gold, pred))
    assert seen and all(s == forms for s in seen)
    assert sqlite_difference(gold, pred, 5) is None
