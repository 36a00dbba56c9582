"""A LEFT JOIN to a relation of one row is one row per left row (the joined or the padded
one): the verdicts are SQLite's, and a chain of such joins no longer doubles the rows."""

from __future__ import annotations

import pytest

from spotit.pipeline import check
from spotit.schema import schema_from_ddl
from spotit.validate import build_database
from tests.solver_limits import HANG_SECONDS, limited

DDL = "CREATE TABLE t (a INTEGER, b TEXT); CREATE TABLE u (a INTEGER, c TEXT);"


@pytest.mark.parametrize("solver", ["z3", "cvc5"])
def test_left_join_to_an_aggregate_is_the_case_expression(solver):
    # by hand: the aggregate is one row, so each t row meets it once; its m is t.a's
    # value when they are equal and NULL otherwise (including when u is empty)
    gold = ("SELECT t.a, s.m FROM t LEFT JOIN (SELECT MAX(a) AS m FROM u) AS s "
            "ON t.a = s.m")
    pred = ("SELECT t.a, CASE WHEN t.a = (SELECT MAX(a) FROM u) THEN t.a END FROM t")
    r = check(DDL, gold, pred, bound=3, solver=solver, semantics="bag", probe_trials=0)
    assert r.verdict.value == "equivalent", r.reason


def test_left_join_is_not_an_inner_join_at_one_row():
    gold = "SELECT t.a, u.c FROM t LEFT JOIN u ON t.a = u.a"
    pred = "SELECT t.a, u.c FROM t JOIN u ON t.a = u.a"
    r = check(DDL, gold, pred, bound=2, probe_trials=0, semantics="bag")
    assert r.verdict.value == "not_equivalent" and r.cex_bound == 1
    conn = build_database(schema_from_ddl(DDL), r.cex_rows)
    assert sorted(map(repr, conn.execute(gold).fetchall())) != \
        sorted(map(repr, conn.execute(pred).fetchall()))


CHAIN = 16


def test_a_chain_of_left_joins_at_one_row_per_table_is_decided():
    """Sixteen LEFT JOINs, one row per table: 2**16 rows if each join kept its joined
    and padded rows apart; a mutated join condition is refuted, confirmed on SQLite."""
    ddl = "CREATE TABLE m (id INTEGER, " + ", ".join(f"p{i} INTEGER" for i in range(CHAIN)) \
        + "); CREATE TABLE p (id INTEGER, name TEXT);"
    joins = " ".join(f"LEFT JOIN p AS q{i} ON m.p{i} = q{i}.id" for i in range(CHAIN))
    cols = ", ".join(f"q{i}.name" for i in range(CHAIN))
    gold = f"SELECT m.id, {cols} FROM m {joins}"
    pred = gold.replace(f"m.p{CHAIN - 1} = q{CHAIN - 1}.id", f"m.p{CHAIN - 1} >= q{CHAIN - 1}.id")
    r = check(ddl, gold, pred, bound=1, probe_trials=0)
    assert r.verdict.value == "not_equivalent", r.reason
    conn = build_database(schema_from_ddl(ddl), r.cex_rows)
    assert conn.execute(gold).fetchall() != conn.execute(pred).fetchall()


ONE_ROW_RIGHT = [
    # (SQL over table w(id, p, o, r, s, x), its rows' p, o, r, s, x): Thm 1 -- the encoding admits
    # SQLite's result and no other -- on the solver path and the evaluated one
    ("SELECT w.id, m.hi FROM w LEFT JOIN (SELECT MAX(o) AS hi FROM w) AS m ON w.o = m.hi",
     ((1, 1, 1.0, "a", 1), (2, 3, 1.0, "b", 1), (None, None, 0.5, None, 2))),
    ("SELECT a.id, b.s FROM w AS a LEFT JOIN w AS b ON a.p = b.o", ((5, 1, 1.0, "a", 1),)),
    ("SELECT a.id, b.s FROM w AS a LEFT JOIN w AS b ON a.p = b.o", ((1, 1, 1.0, "a", 1),)),
    ("SELECT w.id, v.s FROM w LEFT JOIN (SELECT s FROM w WHERE p = 2) AS v ON v.s = w.s "
     "LEFT JOIN (SELECT COUNT(*) AS n FROM w) AS c ON c.n > w.p",
     ((2, 1, 1.0, "a", 1), (1, 2, 2.0, "a", 1))),
]


@pytest.mark.parametrize(("sql", "rows"), ONE_ROW_RIGHT)
@pytest.mark.parametrize("solver_free", [True, False])
def test_thm1_on_left_joins_to_one_row(sql, rows, solver_free):
    from spotit.proofs.relations import QueryCase, check_query

    outcome = check_query(QueryCase(rows, sql), limited(), HANG_SECONDS,
                          solver_free=solver_free)
    assert outcome.kind == "ok", outcome
