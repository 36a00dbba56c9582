"""The long fuzz soak (opt-in): ``SPOTIT_SOAK_MINUTES=30 python -m pytest -m soak``."""

from __future__ import annotations

import os

import pytest

from spotit.proofs.fuzz import fuzz
from spotit.solvers import available_solvers


@pytest.mark.soak
def test_soak_both_solvers_finds_no_discrepancy(tmp_path):
    minutes = float(os.environ.get("SPOTIT_SOAK_MINUTES", "30"))
    seed = int(os.environ.get("SPOTIT_SOAK_SEED", "1"))
    report = fuzz(minutes=minutes, seed=seed, solvers=tuple(available_solvers()),
                  out_dir=os.environ.get("SPOTIT_SOAK_OUT", str(tmp_path)))
    print(report.summary())
    assert report.discrepancies == [], report.summary()
