"""A timed fuzz run gives each part its share of the clock (``TIME_SHARES``), however
slow its cases are; an ``--examples`` run gives each part its example count."""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
import time
from collections import Counter

import pytest

from spotit.proofs import fuzz as F

# seconds one search of each part takes on the fake clock: the pairs are slow
COST = {"expression": 1.0, "query_pair": 9.0, "relation": 0.5, "window": 0.5, "tables": 0.2,
        "rules": 0.3}


class _Clock:
    def __init__(self):
        self.now = 1000.0

    def monotonic(self):
        return self.now

    def time(self):
        return self.now


def _fake_parts(monkeypatch):
    clock = _Clock()
    spent: Counter[str] = Counter()
    searches: Counter[str] = Counter()

    def run_part(part, solver, n, run_seed, stop_at, only, report, shrink=True, seeds=()):
        clock.now += COST[part]
        spent[part] += COST[part]
        searches[part] += 1
        if part == "expression":
            report.expressions_checked += n
        return n, None, None

    monkeypatch.setattr(F, "time", clock)
    monkeypatch.setattr(F, "_run_part", run_part)
    return spent, searches


def test_a_timed_run_gives_each_part_its_share_of_the_clock(monkeypatch):
    spent, _ = _fake_parts(monkeypatch)
    F.fuzz(minutes=30, solvers=("z3",), out_dir="unused")
    total = sum(spent.values())
    assert total >= 30 * 60
    for part, share in F.TIME_SHARES.items():
        # within one slow search of the target (the pairs' 9 s is the coarsest step)
        assert abs(spent[part] - share * total) <= 2 * max(COST.values()), (part, spent)


def test_an_examples_run_runs_every_part_in_rounds(monkeypatch):
    _, searches = _fake_parts(monkeypatch)
    F.fuzz(examples=100, solvers=("z3",), out_dir="unused")
    # each part until its examples are spent: BATCH examples a search
    for part in ("expression", "tables", "relation", "window", "rules"):
        assert searches[part] == -(-100 // F.BATCH[part]), (part, searches)
    assert searches["query_pair"] == -(-25 // F.BATCH["query_pair"])


def test_a_run_writes_its_counts_as_it_goes(monkeypatch, tmp_path):
    """Every STATUS_SECONDS the counts so far go to the status file (whole, replaced)
    and to ``on_status``; the last says finished and holds the report's counts."""
    _fake_parts(monkeypatch)
    seen = []
    report = F.fuzz(minutes=1, solvers=("z3",), out_dir="unused",
                    status=tmp_path / "status.json", on_status=seen.append)
    assert len(seen) > 10 and not any(s["finished"] for s in seen[:-1]) and seen[-1]["finished"]
    counts = [s["expressions_checked"] for s in seen]
    assert counts == sorted(counts) and counts[0] < counts[-1]
    written = json.loads((tmp_path / "status.json").read_text())
    assert written["finished"] and written["expressions_checked"] == report.expressions_checked


def test_a_case_checked_before_in_the_run_is_not_checked_again():
    """Every Hypothesis search starts from its simplest example (a row of NULLs), the
    same each time: after the first, it is skipped and not counted."""
    from hypothesis import strategies as st

    seen: dict = {}
    checked = []

    def check(case):
        checked.append(case)
        return "ok", None

    fresh = lambda case: not F.seen_before(seen, "tables", "z3", case)  # noqa: E731
    first = F._search(st.integers(0, 3), check, 3, seed=1, stop_at=None, fresh=fresh)
    again = F._search(st.integers(0, 3), check, 3, seed=2, stop_at=None, fresh=fresh)
    assert first[0] == 3 and len(checked) == len(set(checked))  # no case twice
    assert again[0] == len(checked) - 3 <= 1  # only what the first did not see


def test_shrinking_stops_when_its_time_is_up(monkeypatch):
    """Every case fails here, so Hypothesis would shrink for as long as it may; once
    SHRINK_SECONDS have passed since the finding, the search must end at the next
    candidate (it drew candidates for five minutes when told they all passed) and
    return the failure it has."""
    from hypothesis import strategies as st

    monkeypatch.setattr(F, "SHRINK_SECONDS", 0.0)
    drawn = []
    strategy = st.lists(st.integers(0, 10**6), min_size=30, max_size=30).map(
        lambda xs: drawn.append(xs) or tuple(xs))
    checked, case, outcome = F._search(strategy, lambda c: ("divergence", "bad"),
                                       examples=10, seed=1, stop_at=None)
    assert outcome == "bad" and case is not None and len(case) == 30
    assert checked == 1 and len(drawn) <= 2


@pytest.mark.parametrize("jobs", [1, 2])
def test_sigterm_ends_a_run_with_the_summary_of_what_was_done(tmp_path, jobs):
    # a scheduler stops a long run with SIGTERM: the run prints its counts so far, says
    # it was interrupted, and leaves no worker behind
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "spotit.cli", "fuzz", "--minutes", "5", "--jobs", str(jobs),
         "--seed", "5", "--json", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        status = out / "status.json"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # until some checks are done
            time.sleep(0.5)
            with contextlib.suppress(OSError, ValueError):
                if json.loads(status.read_text())["tables_checked"] > 0:
                    break
        proc.send_signal(signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, stderr
    report = json.loads(stdout)
    assert report["interrupted"] is True
    assert report["tables_checked"] > 0
    assert report["crashes"] == 0, report["discrepancy_details"]
    assert report["seconds"] < 120
