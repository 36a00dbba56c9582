"""Shapes: where the whole bound k is too big for the solver, databases of k rows in one
or two tables and one row in the others are searched first, each a small formula. They
only ever add a SQLite-confirmed counterexample; an equivalence is still the whole
bound's proof."""

from __future__ import annotations

import pytest

import spotit.pipeline as pipeline
from spotit.encodings.builder import Builder
from spotit.encodings.database import SymbolicDatabase
from spotit.pipeline import check
from spotit.schema import schema_from_ddl
from spotit.validate import build_database

DDL = ("CREATE TABLE a (id INTEGER PRIMARY KEY, x INTEGER);"
       " CREATE TABLE b (id INTEGER, aid INTEGER); CREATE TABLE c (id INTEGER, bid INTEGER);")
JOIN = "FROM a JOIN b ON b.aid = a.id JOIN c ON c.bid = b.id"


@pytest.fixture
def hurried(monkeypatch):
    """The whole bound gets no time before the shapes (as if it were too big), and the
    shapes get all they need: what is tested is what they find, not how fast."""
    monkeypatch.setattr(pipeline, "LATE_PROBE_AFTER", 0.0)
    monkeypatch.setattr(pipeline, "SHAPES_SHARE", 1.0)
    monkeypatch.setattr(pipeline, "SHAPE_SECONDS", 600.0)


def test_a_capped_table_has_fewer_rows_and_the_rest_fold_away():
    db = SymbolicDatabase(schema_from_ddl(DDL), 3, Builder(), caps={"a": 1})
    assert list(db.rows("a")) == [0] and list(db.rows("b")) == [0, 1, 2]
    assert db.present("a", 1).is_false() and not db.present("b", 2).is_false()


def test_a_shape_finds_a_difference_that_needs_two_rows_in_two_tables(hurried):
    # by hand: LIMIT 2 differs from LIMIT 1 only with two joined rows of distinct x:
    # two rows in a (distinct ids: its key), a b row for each, and c's one row
    # matching both b rows (b's ids may repeat: no key)
    gold = f"SELECT a.x {JOIN} ORDER BY a.x LIMIT 1"
    pred = f"SELECT a.x {JOIN} ORDER BY a.x LIMIT 2"
    r = check(DDL, gold, pred, bound=2, timeout=600, probe_trials=0, semantics="set")
    assert r.verdict.value == "not_equivalent", r.reason
    assert "rows in a and b only" in r.reason, r.reason
    assert r.cex_bound == 2 and len(r.cex_rows["c"]) <= 1
    conn = build_database(schema_from_ddl(DDL), r.cex_rows)
    assert set(conn.execute(gold).fetchall()) != set(conn.execute(pred).fetchall())


def test_shapes_never_stand_for_the_whole_bound(hurried):
    # by hand: COUNT(c.id) + COUNT(*) - COUNT(c.id) is COUNT(*), so the HAVING
    # conditions agree on every group; every shape is UNSAT, and the equivalence is
    # the whole bound's proof, up to k = 2
    gold = f"SELECT a.x, COUNT(*) {JOIN} GROUP BY a.x HAVING COUNT(*) > 1"
    pred = (f"SELECT a.x, COUNT(*) {JOIN} GROUP BY a.x "
            "HAVING COUNT(c.id) + COUNT(*) - COUNT(c.id) >= 2")
    r = check(DDL, gold, pred, bound=2, timeout=600, probe_trials=0, semantics="bag")
    assert r.verdict.value == "equivalent", r.reason
    assert r.proven_bound == 2 and [s.k for s in r.per_bound][-1] == 2


def _plan(sql: str, ddl: str = DDL):
    from spotit.frontend.binder import bind
    from spotit.frontend.parser import parse

    return bind(parse(sql), schema_from_ddl(ddl))


def test_shapes_follow_the_joins_smallest_first():
    from spotit.shapes import joined_pairs, raised_tables

    plan = _plan(f"SELECT a.x {JOIN} WHERE a.x > 1")
    assert joined_pairs([plan]) == {frozenset("ab"), frozenset("bc")}
    order = list(raised_tables([plan], ["a", "b", "c"], 2))
    assert order == [("a",), ("b",), ("c",), ("a", "b"), ("b", "c"), ("a", "b", "c"),
                     ("a", "c")]


def test_a_table_scanned_many_times_comes_last_or_not_at_all():
    from spotit.shapes import MAX_SCANNED_ROWS, raised_tables

    # b is scanned 13 times: 2**13 row combinations with two rows in it
    joins = " ".join(f"LEFT JOIN b AS b{i} ON b{i}.aid = a.id" for i in range(13))
    plan = _plan(f"SELECT a.x FROM a {joins}")
    order = list(raised_tables([plan], ["a", "b"], 2))
    assert MAX_SCANNED_ROWS < 2 ** 13 and order == [("a",)]


def test_the_two_plans_are_counted_apart_not_multiplied():
    from spotit.shapes import MAX_SCANNED_ROWS, raised_tables

    # each query scans b 7 times: 2**7 row combinations in either, which the shape
    # allows; counted over both plans at once it was 2**14 and left out
    joins = " ".join(f"LEFT JOIN b AS b{i} ON b{i}.aid = a.id" for i in range(7))
    gold, pred = _plan(f"SELECT a.x FROM a {joins}"), _plan(f"SELECT a.id FROM a {joins}")
    order = list(raised_tables([gold, pred], ["a", "b"], 2))
    assert 2 ** 7 <= MAX_SCANNED_ROWS < 2 ** 14 and ("b",) in order
