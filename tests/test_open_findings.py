"""Wrong answers the fuzz found that are not fixed yet: each reproducer must still fail
(strict xfail). When one passes, its fix has landed: move the file to
tests/regressions/, where it is replayed as a passing case."""

from __future__ import annotations

from pathlib import Path

import pytest

from spotit.proofs import reproducers
from spotit.solvers.testing import requires_solver

OPEN = Path(__file__).parent / "open_findings"


@requires_solver("z3")
@pytest.mark.xfail(strict=True, reason=(
    "the exact range of a REAL rounding admits the exact quotient where it is no "
    "double: n / -13.875 for n = 2**63 - 1 truncates to ...589 exactly and to ...584 "
    "as SQLite's double, so % 4 gives -1 where SQLite gives 0, and the encoding calls "
    "-1 exact (both solvers); found by the stop-31 soak"))
def test_real_beyond_2_53_truncated_is_not_called_exact():
    out = reproducers.replay(OPEN / "expression-real-beyond-2-53-truncated-called-exact.json",
                             "z3")
    assert out.kind in ("ok", "skipped"), out
