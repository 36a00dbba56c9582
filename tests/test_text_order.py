"""Text compared with a constant (dates kept as TEXT, the commonest filter of BIRD and
Spider 2.0) is decided by the solver within a small deterministic resource limit.

Written as SMT-LIB's ``str.<``, the ranges took z3 tens of millions of resource units
(a timeout at 10**7 for the first pair below); as regular-language memberships alone
(``spotit.smt.ops.re_below``), proofs relating comparisons with one long constant did.
Through the sign of the text against each constant
(``spotit.encodings.textorder.constant_order``) both take under 2 * 10**6. The limit
is z3's ``rlimit``, not the clock, so the assertion does not depend on the machine's
load. The random search is off: the solver alone must decide.
"""

from __future__ import annotations

import pytest

from spotit.pipeline import check
from spotit.verdict import Verdict

SCHEMA = "CREATE TABLE orders(id TEXT, bought TEXT, approved TEXT, n INTEGER);"
RLIMIT = 2 * 10**6


def _check(gold: str, pred: str):
    return check(SCHEMA, gold, pred, bound=2, timeout=None, probe_trials=0, rlimit=RLIMIT)


@pytest.mark.parametrize(("gold", "pred"), [
    # a row whose `bought` is in 2017 and whose `approved` is NULL
    ("SELECT id FROM orders WHERE bought BETWEEN '2017-01-01' AND '2017-12-31 23:59:59'",
     "SELECT id FROM orders WHERE approved BETWEEN '2017-01-01' AND '2017-12-31 23:59:59'"),
    # '2017-12-31 10:00' is after '2017-12-31' and before '2018'
    ("SELECT id FROM orders WHERE bought BETWEEN '2017-01-01' AND '2017-12-31'",
     "SELECT id FROM orders WHERE bought >= '2017-01-01' AND bought < '2018'"),
    # '2017-06' itself
    ("SELECT id FROM orders WHERE bought > '2017-06'",
     "SELECT id FROM orders WHERE bought >= '2017-06'"),
])
def test_a_different_range_is_refuted(gold: str, pred: str) -> None:
    r = _check(gold, pred)
    assert r.verdict is Verdict.NOT_EQUIVALENT, r.reason
    assert r.cex_bound == 1  # one row shows each difference (the comments above)


@pytest.mark.parametrize("pred", [
    "SELECT id FROM orders WHERE SUBSTR(bought, 1, 4) = '2017'",
    "SELECT id FROM orders WHERE bought GLOB '2017*'",
])
def test_the_same_year_written_as_a_range_is_proved(pred: str) -> None:
    """A text is at least '2017' and below '2018' exactly when it starts with '2017': at
    least '2017' and below '2018' fixes the first three characters as '201' and the
    fourth as '7' (an '8' there would make it at least '2018'), and no text shorter than
    four characters is at least '2017' and below '2018'."""
    r = _check("SELECT id FROM orders WHERE bought >= '2017' AND bought < '2018'", pred)
    assert r.verdict is Verdict.EQUIVALENT, r.reason


LONG = "International Business Machines Corporation"


@pytest.mark.parametrize("c", ["2017-12-31 23:59:59", LONG], ids=len)
@pytest.mark.parametrize(("gold", "pred"), [
    # below, equal or above: exactly one holds
    ("b < '{c}' OR b = '{c}'", "b <= '{c}'"),
    ("b >= '{c}' AND b <= '{c}'", "b = '{c}'"),
    ("NOT b < '{c}'", "b >= '{c}'"),
    ("b > '{c}' OR b < '{c}'", "b <> '{c}'"),
    ("b = '{c}' AND n > 0", "b <= '{c}' AND b >= '{c}' AND n > 0"),
])
def test_comparisons_with_one_constant_are_related(gold: str, pred: str, c: str) -> None:
    def q(cond: str) -> str:
        return "SELECT id FROM orders WHERE " + cond.replace("b", "bought", 2).format(c=c)

    r = _check(q(gold), q(pred))
    assert r.verdict is Verdict.EQUIVALENT, r.reason


@pytest.mark.parametrize("c", ["", "a", "2017-12-31", "b\x00", "\U0002ffff", "Zu\U0002ffff\x01"])
def test_the_sign_is_the_text_order(c: str) -> None:
    """For every text ``x`` (z3, symbolic), the sign ``constant_order`` defines is -1
    exactly when ``x < c`` and 1 exactly when ``c < x`` in SMT-LIB's own order (short
    constants: z3's ``str.<`` is what times out on long ones)."""
    from pysmt.shortcuts import Not, String, Symbol
    from pysmt.typing import STRING

    from spotit.encodings.builder import Builder
    from spotit.encodings.database import SymbolicDatabase
    from spotit.encodings.encoder import Encoder
    from spotit.encodings.textorder import constant_order
    from spotit.schema import schema_from_ddl
    from spotit.smt import ops
    from spotit.smt.printer import SmtLibWriter
    from spotit.solvers import available_solvers, get_solver
    from spotit.solvers.base import Status

    if "z3" not in available_solvers():
        pytest.skip("z3 not installed")
    b = Builder()
    enc = Encoder(SymbolicDatabase(schema_from_ddl(SCHEMA), 1, b))
    x = Symbol("x_text", STRING)
    sign = constant_order(enc, x, c)
    assert constant_order(enc, x, c) is sign  # one per (text, constant)
    (d,) = enc.definitions
    for value, order in ((-1, ops.str_lt(x, String(c))), (1, ops.str_lt(String(c), x))):
        differ = Not(b.iff(b.eq(sign, b.int(value)), order))
        res = get_solver("z3").check(SmtLibWriter().script([d.constraint, differ]), timeout=60)
        assert res.status is Status.UNSAT, (c, value, res.reason)
