"""LAG/LEAD offsets given by expressions, GROUP_CONCAT as a window aggregate, and the
non-constant N of NTILE/NTH_VALUE (unsupported: SQLite raises at run time for some N).
Each pinned case is checked against SQLite's own result on the table ``w``."""

from __future__ import annotations

import pytest

from spotit import check
from spotit.proofs.windows import WINDOW_DDL, WindowCase, check_window

# (p, o INTEGER, r REAL, s TEXT NOCASE, x untyped): offsets NULL, negative, fractional,
# text; ties on o
ROWS = ((1, 1, 0.5, "1", "a"), (1, None, 1.0, "A", ""), (2, -1, None, None, 2),
        (1, 1, 2.0, "b", "a"))
CALLS = [
    "LAG(x, o) OVER (ORDER BY id)",
    "LEAD(x, o, -id) OVER (ORDER BY id)",
    "LAG(x, r, 'd') OVER (PARTITION BY p ORDER BY id)",
    "LEAD(x, s) OVER (ORDER BY id)",
    "LAG(x, -1) OVER (ORDER BY id DESC)",
    "LAG(id, p - 1, 9) OVER (ORDER BY id)",
    "GROUP_CONCAT(x) OVER (ORDER BY id)",
    "GROUP_CONCAT(x, '-') OVER (PARTITION BY p ORDER BY id ROWS BETWEEN 1 PRECEDING "
    "AND CURRENT ROW)",
    "GROUP_CONCAT(s, NULL) OVER (ORDER BY id RANGE BETWEEN CURRENT ROW AND UNBOUNDED "
    "FOLLOWING)",
    "GROUP_CONCAT(x) OVER (ORDER BY o)",  # ties: admissible, not exact
]


@pytest.mark.parametrize("call", CALLS)
def test_window_call_agrees_with_sqlite(call):
    out = check_window(WindowCase(ROWS, call))
    assert out.kind == "ok", (call, out)


def test_group_concat_window_of_empty_text_is_null():
    # SQLite's window value of an empty concatenation is NULL (the aggregate gives '')
    out = check_window(WindowCase(((None, 1, None, None, ""),), "GROUP_CONCAT(x) OVER ()"))
    assert out.kind == "ok" and out.sqlite_value == [None], out


@pytest.mark.parametrize("call, why", [
    ("NTILE(o) OVER (ORDER BY id)", "argument of ntile must be a positive integer"),
    ("NTH_VALUE(x, o) OVER (ORDER BY id)", "second argument to nth_value"),
])
def test_non_constant_n_is_unsupported_with_the_reason(call, why):
    sql = f"SELECT {call} FROM w"
    res = check(WINDOW_DDL, sql, sql, bound=2)
    assert res.verdict.value == "unsupported" and why in res.reason, res


@pytest.mark.parametrize("solver", ["z3", "cvc5"])
def test_lag_by_one_column_equals_lag_by_constant_where_it_is_one(solver):
    # o = 1 on every kept row: LAG(x, o) is LAG(x, 1) there (hand derivation)
    res = check(WINDOW_DDL,
                "SELECT id, LAG(x, o) OVER (ORDER BY id) FROM (SELECT * FROM w WHERE o = 1)",
                "SELECT id, LAG(x) OVER (ORDER BY id) FROM (SELECT * FROM w WHERE o = 1)",
                bound=3, solver=solver)
    assert res.verdict.value == "equivalent", res


@pytest.mark.parametrize("solver", ["z3", "cvc5"])
def test_lag_by_column_differs_from_lag_by_one(solver):
    # a row with o = NULL (or 0, 2 ...) gets the default or another row's x
    res = check(WINDOW_DDL, "SELECT id, LAG(x, o) OVER (ORDER BY id) FROM w",
                "SELECT id, LAG(x) OVER (ORDER BY id) FROM w", bound=2, solver=solver)
    assert res.verdict.value == "not_equivalent", res
