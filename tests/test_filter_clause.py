"""``agg(x) FILTER (WHERE c)`` is bound as ``agg(CASE WHEN c THEN x END)``. That the
two are the same query is checked here on SQLite itself (random databases, where the
binder's reading makes the plans identical), for plain and window aggregates."""

from __future__ import annotations

import pytest

from spotit import check
from spotit.encodings.equivalence import Semantics
from spotit.probe import probe
from spotit.schema import schema_from_ddl

SCHEMA = schema_from_ddl(
    "CREATE TABLE t (id INTEGER PRIMARY KEY, g TEXT, v INTEGER, r REAL, nc TEXT COLLATE NOCASE);")


def sqlite_difference(gold: str, pred: str, semantics: str = "bag"):
    return probe(SCHEMA, gold, pred, Semantics(semantics), trials=2000, seconds=20,
                 max_rows=5, seed=4)


@pytest.mark.parametrize("filtered,spelled", [
    ("SELECT g, COUNT(*) FILTER (WHERE v > 2) FROM t GROUP BY g",
     "SELECT g, COUNT(CASE WHEN v > 2 THEN 1 END) FROM t GROUP BY g"),
    ("SELECT SUM(v) FILTER (WHERE g = 'a'), AVG(r) FILTER (WHERE v IS NULL), "
     "TOTAL(v) FILTER (WHERE r > 0) FROM t",
     "SELECT SUM(CASE WHEN g = 'a' THEN v END), AVG(CASE WHEN v IS NULL THEN r END), "
     "TOTAL(CASE WHEN r > 0 THEN v END) FROM t"),
    ("SELECT COUNT(DISTINCT g) FILTER (WHERE v > 0), MAX(g) FILTER (WHERE v < 3) FROM t",
     "SELECT COUNT(DISTINCT CASE WHEN v > 0 THEN g END), MAX(CASE WHEN v < 3 THEN g END) "
     "FROM t"),
    ("SELECT id, SUM(v) FILTER (WHERE v > 0) OVER (ORDER BY id) FROM t",
     "SELECT id, SUM(CASE WHEN v > 0 THEN v END) OVER (ORDER BY id) FROM t"),
    ("SELECT id, COUNT(*) FILTER (WHERE r IS NOT NULL) OVER (PARTITION BY g) FROM t",
     "SELECT id, COUNT(CASE WHEN r IS NOT NULL THEN 1 END) OVER (PARTITION BY g) FROM t"),
])
def test_filter_is_the_case_it_is_read_as(filtered, spelled):
    assert sqlite_difference(filtered, spelled) is None  # SQLite: the same query
    res = check(SCHEMA, filtered, spelled, semantics="bag", bound=3, timeout=60)
    assert res.verdict.value == "equivalent", res.reason


@pytest.mark.parametrize("gold,pred", [
    ("SELECT SUM(v) FILTER (WHERE v > 2) FROM t", "SELECT SUM(v) FROM t WHERE v >= 2"),
    ("SELECT id, COUNT(*) FILTER (WHERE v > 0) OVER (PARTITION BY g) FROM t",
     "SELECT id, COUNT(*) OVER (PARTITION BY g) FROM t"),
    ("SELECT COUNT(*) FILTER (WHERE v > 0) FROM t", "SELECT COUNT(v) FROM t"),
])
def test_differences_under_filter(gold, pred):
    assert sqlite_difference(gold, pred) is not None
    res = check(SCHEMA, gold, pred, semantics="bag", bound=3, timeout=60)
    assert res.verdict.value == "not_equivalent", res.reason


def test_filter_refusals():
    res = check(SCHEMA, "SELECT MIN(nc) FILTER (WHERE v > 0) FROM t", "SELECT MIN(nc) FROM t",
                bound=2, probe_trials=0)
    assert res.verdict.value == "unsupported" and "NOCASE" in res.reason
    res = check(SCHEMA, "SELECT ROW_NUMBER() FILTER (WHERE v > 0) OVER () FROM t",
                "SELECT 1 FROM t", bound=2)
    assert res.verdict.value == "error" and "aggregate window functions" in res.reason
