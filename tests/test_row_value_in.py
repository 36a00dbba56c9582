"""Row values in IN: ``(a, b) [NOT] IN ((..), (..))`` and ``IN (SELECT a, b ...)``.

Pinned cases compare the encoding with SQLite's own result on the window fuzz table
``w`` (p, o INTEGER, r REAL, s TEXT NOCASE, x untyped); the verdicts below are derived
by hand (in WHERE only TRUE keeps a row) or confirmed by SQLite through validation."""

from __future__ import annotations

import pytest

from spotit import check
from spotit.proofs.relations import QueryCase, check_query
from spotit.proofs.windows import WINDOW_DDL
from tests.solver_limits import HANG_SECONDS, limited

ROWS = ((1, 2, 0.5, "a", "1"), (1, None, 1.0, "A", 2), (2, 3, None, None, "a"))
CASES = [
    "SELECT id, (p, o) IN ((1, 2), (2, 3)) FROM w",
    "SELECT id, (p, o) NOT IN ((1, 2), (2, NULL)) FROM w",
    "SELECT id, (p, o) IN () FROM w",
    # affinity from the last item: o's INTEGER makes '2' a number in every item
    "SELECT id, (p, '2') IN ((1, '2'), (5, o)) FROM w",
    "SELECT id, (p, '2') IN ((5, o), (1, '2')) FROM w",
    # collation: NOCASE of the last item's s, but the NULL scan uses the row's BINARY
    "SELECT id, ('a', p) IN ((s, 1)) FROM w",
    "SELECT id, ('a', o) IN ((s, NULL)) FROM w",
    "SELECT id, (p, o) IN (SELECT v.p, v.o FROM w AS v WHERE v.id <> w.id) FROM w",
    "SELECT id, (p, o) NOT IN (SELECT v.p, v.o + 1 FROM w AS v) FROM w",
    "SELECT id, (s, p) IN (SELECT 'A', 1) FROM w",
]


@pytest.mark.parametrize("sql", CASES)
def test_row_in_agrees_with_sqlite(sql):
    out = check_query(QueryCase(ROWS, sql), limited(), HANG_SECONDS)
    assert out.kind == "ok", out


@pytest.mark.parametrize("sql, message", [
    ("SELECT (p, o) IN ((1, 2), (3)) FROM w", "IN(...) element has 1 term - expected 2"),
    ("SELECT (p, o) IN ((1, 2, 3)) FROM w", "IN(...) element has 3 terms - expected 2"),
    ("SELECT (p, o) IN (SELECT p FROM w) FROM w", "sub-select returns 1 columns - expected 2"),
    ("SELECT (p, o) IN ((SELECT p, o FROM w)) FROM w",
     "IN(...) element has 1 term - expected 2"),
])
def test_row_in_misuse_is_a_bind_error(sql, message):
    res = check(WINDOW_DDL, sql, "SELECT 1 FROM w", bound=1)
    assert message in (res.reason or ""), res


@pytest.mark.parametrize("solver", ["z3", "cvc5"])
def test_row_in_list_is_a_disjunction_in_where(solver):
    # integers against integer literals: no conversion, TRUE exactly when a pair matches
    res = check(WINDOW_DDL, "SELECT id FROM w WHERE (p, o) IN ((1, 2), (2, 3))",
                "SELECT id FROM w WHERE (p = 1 AND o = 2) OR (o = 3 AND p = 2)",
                bound=2, solver=solver)
    assert res.verdict.value == "equivalent", res


@pytest.mark.parametrize("solver", ["z3", "cvc5"])
def test_row_not_in_differs_from_not_exists_on_nulls(solver):
    # rows (1, NULL) and (1, 2): for the first, NOT IN is NULL, NOT EXISTS is TRUE
    res = check(WINDOW_DDL,
                "SELECT id FROM w WHERE (p, o) NOT IN (SELECT v.p, v.o FROM w AS v "
                "WHERE v.id <> w.id)",
                "SELECT id FROM w WHERE NOT EXISTS (SELECT 1 FROM w AS v WHERE v.id <> w.id "
                "AND v.p = w.p AND v.o = w.o)", bound=2, solver=solver)
    assert res.verdict.value == "not_equivalent", res

