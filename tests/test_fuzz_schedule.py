"""A timed fuzz run gives each part its share of the clock (``TIME_SHARES``), however
slow its cases are; an ``--examples`` run gives each part its example count."""

from __future__ import annotations

from collections import Counter

from spotit.proofs import fuzz as F

# seconds one search of each part takes on the fake clock: the pairs are slow
COST = {"expression": 1.0, "query_pair": 9.0, "relation": 0.5, "window": 0.5, "tables": 0.2,
        "rules": 0.3}


class _Clock:
    def __init__(self):
        self.now = 1000.0

    def monotonic(self):
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
