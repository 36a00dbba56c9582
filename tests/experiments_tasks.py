"""Module-level task functions for the worker-pool tests (workers import them)."""

from __future__ import annotations

import os
import time
from pathlib import Path


def answer(x: int) -> dict:
    return {"answer": x}


def sleep_then_answer(seconds: float, marks: str) -> dict:
    """Sleep, leaving a file named by this worker's pid in ``marks`` meanwhile."""
    mark = Path(marks) / str(os.getpid())
    mark.touch()
    try:
        time.sleep(seconds)
    finally:
        mark.unlink(missing_ok=True)
    return {"answer": "slept"}


def die() -> dict:
    os._exit(3)


def worker_pids_sleeping(marks: str) -> list[int]:
    """Workers that are inside sleep_then_answer (they leave a mark while they are)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        pids = [int(p.name) for p in Path(marks).glob("*")]
        if pids:
            return pids
        time.sleep(0.05)
    return []


def run_one_slow_task(marks: str) -> None:
    """A parent for the orphan test: one worker sleeping in a task, then wait."""
    from spotit.experiments.batch import Task, run_batch

    for _ in run_batch([Task("slow", sleep_then_answer, (120.0, marks), 300)], workers=1,
                       memory_mb=None):
        pass


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state not in ("Z", "X")
