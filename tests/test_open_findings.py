"""Wrong answers the fuzz found that are not fixed yet: each reproducer in
tests/open_findings/ must still fail (strict xfail). When one passes, its fix has
landed: move the file to tests/regressions/, where it is replayed as a passing case."""

from __future__ import annotations

from pathlib import Path

import pytest

from spotit.proofs import reproducers
from spotit.solvers.testing import requires_solver

OPEN = Path(__file__).parent / "open_findings"


@requires_solver("z3")
@pytest.mark.parametrize("path", sorted(OPEN.glob("*.json")), ids=lambda p: p.stem)
def test_an_open_finding_still_fails(path):
    out = reproducers.replay(path, "z3")
    if out.kind not in ("ok", "skipped"):
        pytest.xfail(f"open: {out.detail} ({path.name})")
    pytest.fail(f"{path.name} now agrees with SQLite: move it to tests/regressions/")
