"""Key lookups: a join whose right side matches at most one row per left row (a key of
the right table, the GROUP BY key of an aggregate, a DISTINCT column) is encoded as
one row per left row. Thm 1 on such joins over rows picked to break the argument
(NULL keys, 1 and 1.0 and '1' in a column without affinity, text under NOCASE), and
which joins count as lookups, by SQLite's comparison rules."""

from __future__ import annotations

import pytest

from spotit.frontend.binder import bind
from spotit.frontend.parser import parse
from spotit.ir import relational as R
from spotit.ir.unique import is_lookup
from spotit.ir.walk import iter_rels
from spotit.pipeline import check
from spotit.proofs.relations import QueryCase, check_query
from spotit.proofs.windows import WINDOW_DDL
from spotit.schema import schema_from_ddl
from spotit.validate import build_database
from tests.solver_limits import HANG_SECONDS, limited

BY_P = "(SELECT p, COUNT(*) AS n, MAX(r) AS hi FROM w GROUP BY p)"
BY_X = "(SELECT x, COUNT(*) AS n FROM w GROUP BY x)"
ROWS = ((1, 1, 1.0, "a", 1), (2, 1, 2.0, "A", 1.0), (None, 2, 0.5, None, "1"),
        (1, None, 0.5, "b", None), (3, 3, 1.5, "a ", "01"))

LOOKUPS = [  # (SQL over w(id INTEGER PRIMARY KEY, p, o, r, s TEXT NOCASE, x), a lookup?)
    ("SELECT a.id, b.s FROM w AS a JOIN w AS b ON a.p = b.id", True),
    ("SELECT a.id, b.s FROM w AS a LEFT JOIN w AS b ON b.id = a.o AND b.r > 1", True),
    (f"SELECT w.id, g.n, g.hi FROM w JOIN {BY_P} AS g ON g.p = w.p", True),
    (f"SELECT w.id, g.n FROM w LEFT JOIN {BY_P} AS g ON w.o = g.p", True),
    # no affinity on either side: 1 and 1.0 are one group, '1' and '01' others
    (f"SELECT w.id, g.n FROM w LEFT JOIN {BY_X} AS g ON w.x = g.x", True),
    ("SELECT w.id, d.o FROM w JOIN (SELECT DISTINCT o FROM w) AS d ON d.o = w.p", True),
    ("SELECT a.id, c.n FROM w AS a JOIN (SELECT COUNT(*) AS n FROM w) AS c ON c.n > a.p",
     True),
    # INTEGER against no affinity: '1' and '01' become 1 -- two groups match
    (f"SELECT w.id, g.n FROM w JOIN {BY_X} AS g ON w.p = g.x", False),
    # NOCASE: 'a' matches the groups 'a' and 'A' of a BINARY GROUP BY
    ("SELECT w.id, g.n FROM w JOIN (SELECT s COLLATE BINARY AS s, COUNT(*) AS n FROM w "
     "GROUP BY 1) AS g ON w.s = g.s", False),
    # the key compared with something read from the right row too
    ("SELECT a.id, b.s FROM w AS a JOIN w AS b ON b.id = b.p", False),
    ("SELECT a.id, b.s FROM w AS a JOIN w AS b ON a.p < b.id", False),
]


def _joins(sql: str) -> list[R.Join]:
    plan = bind(parse(sql), schema_from_ddl(WINDOW_DDL))
    return [r for r in iter_rels(plan) if isinstance(r, R.Join)]


@pytest.mark.parametrize(("sql", "lookup"), LOOKUPS)
def test_which_joins_are_lookups(sql, lookup):
    assert any(is_lookup(j) for j in _joins(sql)) is lookup


@pytest.mark.parametrize(("sql", "lookup"), LOOKUPS)
@pytest.mark.parametrize("solver_free", [True, False])
def test_thm1_on_lookup_joins(sql, lookup, solver_free):
    """The encoding admits SQLite's result and no other (lookups or not)."""
    for rows in (ROWS, ROWS[:2], ROWS[2:]):
        outcome = check_query(QueryCase(rows, sql), limited(), HANG_SECONDS,
                              solver_free=solver_free)
        assert outcome.kind == "ok", (rows, outcome)


DDL = ("CREATE TABLE c (id INTEGER PRIMARY KEY, name TEXT);"
       " CREATE TABLE o (id INTEGER PRIMARY KEY, cid INTEGER, amount INTEGER);")
SPENT = "(SELECT cid, SUM(amount) AS total, COUNT(*) AS n FROM o GROUP BY cid)"


@pytest.mark.parametrize("solver", ["z3", "cvc5"])
def test_a_chain_of_lookups_is_proved_and_refuted(solver):
    # by hand: each customer's total through the aggregate equals the correlated
    # SUM; with > instead of >= a customer whose total is exactly 10 tells them apart
    gold = (f"SELECT c.name, s.total FROM c JOIN {SPENT} AS s ON s.cid = c.id "
            f"JOIN {SPENT} AS t ON t.cid = c.id WHERE t.n >= 1 AND s.total >= 10")
    same = ("SELECT c.name, (SELECT SUM(amount) FROM o WHERE o.cid = c.id) FROM c "
            "WHERE (SELECT SUM(amount) FROM o WHERE o.cid = c.id) >= 10")
    r = check(DDL, gold, same, bound=3, solver=solver, semantics="bag", probe_trials=0)
    assert r.verdict.value == "equivalent", r.reason
    other = same.replace(">= 10", "> 10")
    r = check(DDL, gold, other, bound=3, solver=solver, semantics="bag", probe_trials=0)
    assert r.verdict.value == "not_equivalent", r.reason
    conn = build_database(schema_from_ddl(DDL), r.cex_rows)
    assert sorted(conn.execute(gold).fetchall()) != sorted(conn.execute(other).fetchall())
