"""STRFTIME of several zero-padded fields with separators ('%Y-%m', '%H:%M') compared
as the integer the fields spell (``textorder.Padded`` with a layout): each comparison
checked against SQLite on pinned rows, with both solvers, on constants that have the
shape, that are a prefix of it, that run past it, and that differ in a separator."""

from __future__ import annotations

import pytest

from spotit.proofs.pinned import PinnedCase, check_pinned
from spotit.solvers.testing import BOTH_SOLVERS

DATES = ["1991-10-05", "1991-09-30", "1991-10-31", "2000-01-01"]
CASES = [
    ("DATE", "strftime('%Y-%m', d) {op} '1991-10'"),
    ("DATE", "strftime('%Y-%m', d) {op} '1991-1'"),
    ("DATE", "strftime('%Y-%m', d) {op} '1991-10-'"),
    ("DATE", "strftime('%Y-%m', d) {op} '1991/10'"),
    ("DATE", "strftime('%m/%d', d) {op} '10/05'"),
    ("DATETIME", "strftime('%H:%M', d) {op} '12:30'"),
    ("DATE", "strftime('%Y-%m', d) {op} strftime('%Y-%m', '1991-10-20')"),
]
OPS = ["=", "<", ">=", "<>"]


@pytest.mark.parametrize("solver", BOTH_SOLVERS)
@pytest.mark.parametrize("kind,template", CASES)
def test_fields_compare_as_sqlite_does(solver, kind, template):
    values = DATES if kind == "DATE" else ["1991-10-05 12:30:00", "1991-10-05 09:05:59",
                                           "1991-10-05 12:31:00"]
    for value in values:
        for op in OPS:
            case = PinnedCase((("d", kind),), (value,), template.format(op=op))
            out = check_pinned(case, solver=solver, solver_free=False)
            assert out.kind == "ok", (value, op, template, out)


@pytest.mark.parametrize("solver", BOTH_SOLVERS)
def test_fields_prefix_like(solver):
    for value in DATES:
        for pattern in ("1991-1%", "1991-10%", "199%", "1991-10-%"):
            case = PinnedCase((("d", "DATE"),), (value,),
                              f"strftime('%Y-%m', d) LIKE '{pattern}'")
            assert check_pinned(case, solver=solver, solver_free=False).kind == "ok"


def test_a_directive_this_sqlite_does_not_know_makes_strftime_null():
    """SQLite 3.40's STRFTIME is NULL for a directive it does not know (%y, %e, ...),
    whatever the time value; later versions know more of them, so SpotIt asks the
    SQLite here which. Was `unsupported: STRFTIME directive %y`."""
    import sqlite3

    from spotit import check

    ddl = "CREATE TABLE t (d TEXT);"
    conn = sqlite3.connect(":memory:")
    unknown = [k for k in "yeFkT" if conn.execute(
        "SELECT strftime(?, '2021-03-04 05:06:07')", ("%" + k,)).fetchone()[0] is None]
    for k in unknown:
        assert conn.execute("SELECT strftime(?, '2021-03-04')", (f"%Y-%{k}",)
                            ).fetchone() == (None,)
        r = check(ddl, f"SELECT strftime('%Y-%{k}', d) FROM t", "SELECT NULL FROM t",
                  bound=2)
        assert r.verdict.value == "equivalent", (k, r.reason)
    r = check(ddl, "SELECT strftime('%Y', d) FROM t", "SELECT NULL FROM t", bound=2)
    assert r.verdict.value == "not_equivalent", r.reason
