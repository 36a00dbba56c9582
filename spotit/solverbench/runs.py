"""One run of one solver on one file, turned into one row of results.

The harness, not the solver, has the last word on limits: a run killed at the
limit, or one that answered after it, is ``timeout`` (the late answer is kept
in the reason). Otherwise the first non-blank line of stdout is the answer:
``sat``, ``unsat``, ``unknown`` or ``timeout`` as printed (z3's binary prints
``timeout`` under ``-T``); ``(error ...)``, anything else, or no output at all
is ``error`` with the reason kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from spotit.solverbench.entrants import Entrant
from spotit.solverbench.limits import Limiter, Measured
from spotit.solverbench.smtfile import FileFacts
from spotit.solverbench.worker import REASON_PREFIX, SECONDS_PREFIX

STATUSES = ("sat", "unsat", "unknown", "timeout", "error", "skipped")
ANSWERS = ("sat", "unsat", "unknown", "timeout")
WORKER_STARTUP = 3.0
"""Seconds a worker gets on top of the limit to start Python and import its binding.

Its reported time excludes the start-up, and an answer over the limit is still a
timeout; the extra seconds only decide when the process is killed.
"""
REASON_LIMIT = 300


@dataclass(frozen=True)
class Row:
    """One line of ``results.csv``."""

    file: str
    solver: str
    status: str
    seconds: float
    memory_mb: float | None
    reason: str = ""

    @property
    def definite(self) -> bool:
        """A sat or unsat answer."""
        return self.status in ("sat", "unsat")


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= REASON_LIMIT else text[: REASON_LIMIT - 3] + "..."


def _comment(stdout: str, prefix: str) -> str | None:
    for line in stdout.splitlines():
        if line.startswith(prefix):
            return line[len(prefix):].strip()
    return None


def read_answer(measured: Measured) -> tuple[str, str]:
    """(status, reason) from a finished run's output and exit."""
    first = next((line.strip() for line in measured.stdout.splitlines() if line.strip()), "")
    if first in ANSWERS:
        return first, _one_line(_comment(measured.stdout, REASON_PREFIX) or "")
    if first.startswith("(error"):
        return "error", _one_line(first)
    if first:
        return "error", _one_line(f"unexpected output: {first}")
    if measured.signal is not None:
        how = f"killed by signal {measured.signal}"
    else:
        how = f"exit code {measured.exit_code}"
    tail = _one_line(measured.stderr[-REASON_LIMIT:])
    return "error", f"no answer ({how})" + (f": {tail}" if tail else "")


def skip_reason(entrant: Entrant, facts: FileFacts) -> str | None:
    """Why this solver is not run on this file, or None to run it."""
    if entrant.runs_on(facts.logic):
        return None
    if facts.logic is None:
        return "no set-logic in the file, and the solver is restricted to some logics"
    return f"logic {facts.logic} not supported"


def run_one(entrant: Entrant, directory: Path, file: str, facts: FileFacts | str,
            timeout: float, limiter: Limiter) -> Row:
    """Run ``entrant`` on ``directory/file`` (``facts``: what was read, or why it could not be)."""
    if isinstance(facts, str):
        return Row(file, entrant.name, "error", 0.0, None, _one_line(facts))
    skip = skip_reason(entrant, facts)
    if skip is not None:
        return Row(file, entrant.name, "skipped", 0.0, None, skip)
    path = (directory / file).resolve()
    grace = WORKER_STARTUP if entrant.reports_seconds else 0.0
    measured = limiter.run(entrant.argv(path, timeout), timeout + grace)
    if measured.start_error:
        return Row(file, entrant.name, "error", 0.0, None, _one_line(measured.start_error))
    seconds = measured.seconds
    reported = _comment(measured.stdout, SECONDS_PREFIX) if entrant.reports_seconds else None
    if reported is not None:
        seconds = float(reported)
    if measured.killed:
        return Row(file, entrant.name, "timeout", seconds, measured.memory_mb,
                   f"killed at the limit ({limiter.name})")
    status, reason = read_answer(measured)
    if status in ("sat", "unsat") and seconds > timeout:
        status, reason = "timeout", f"answered {status} after {seconds:.3f} s, over the limit"
    return Row(file, entrant.name, status, seconds, measured.memory_mb, reason)
