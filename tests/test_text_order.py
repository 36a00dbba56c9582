"""Text compared with a constant (dates kept as TEXT, the commonest filter of BIRD and
Spider 2.0) is decided by the solver within a small deterministic resource limit.

Written as SMT-LIB's ``str.<``, these took z3 tens of millions of resource units (a
timeout at 10**7 for the first pair below); as regular-language memberships
(``spotit.smt.ops.re_below``) they take under 2 * 10**6. The limit is z3's ``rlimit``,
not the clock, so the assertion does not depend on the machine's load. The random
search is off: the solver alone must decide.
"""

from __future__ import annotations

import pytest

from spotit.pipeline import check
from spotit.verdict import Verdict

SCHEMA = "CREATE TABLE orders(id TEXT, bought TEXT, approved TEXT);"
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
