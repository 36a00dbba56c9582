"""``spotit bench-solvers``: every solver on every ``.smt2`` file, compared.

Each run is a process of its own under a wall-clock limit (BenchExec's runexec
where it works, else plain process limits), its peak memory measured; rows are
appended to ``results.csv`` as runs finish, so an interrupted run resumes; then
``summary.json``, a cactus and a scatter plot are written. File formats:
docs/solver-benchmarks.md.

Example:
    >>> from spotit.solverbench.entrants import lineup
    >>> [e.name for e in lineup(["z3"], ["mine=cat {file}"])]
    ['z3', 'mine']
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spotit.errors import SpotItError
from spotit.solverbench import plots
from spotit.solverbench.entrants import Entrant
from spotit.solverbench.limits import choose_limiter
from spotit.solverbench.results import ResultsFile, check_settings
from spotit.solverbench.runs import Row, run_one
from spotit.solverbench.smtfile import FileFacts, find_benchmarks, read_facts
from spotit.solverbench.summary import per_file_times, summarize

Progress = Callable[[int, int, Row], None]
"""Called after each run with (runs done, runs to do, the row)."""


@dataclass(frozen=True)
class BenchReport:
    """What a benchmark run produced."""

    summary: dict[str, Any]
    out: Path
    ran: int
    """Runs done by this call."""
    reused: int
    """Runs found in results.csv from an earlier call, not run again."""

    @property
    def problems(self) -> bool:
        """A disagreement or an answer contradicting a file's ``:status``."""
        return bool(self.summary["disagreements"] or self.summary["wrong_status"])


def _facts(directory: Path, file: str) -> FileFacts | str:
    try:
        return read_facts(directory / file)
    except (OSError, UnicodeDecodeError) as exc:
        return f"cannot read the file: {getattr(exc, 'strerror', None) or exc}"


def bench_solvers(directory: Path, entrants: Sequence[Entrant], *, timeout: float,
                  out: Path, jobs: int = 1, limits: str = "auto",
                  progress: Progress | None = None) -> BenchReport:
    """Run every entrant on every ``.smt2`` file under ``directory``; write ``out``.

    Raises:
        SpotItError: a usage problem (no files, bad limit, ``out`` holds other settings).
    """
    if timeout <= 0:
        raise SpotItError("--timeout must be positive")
    if jobs < 1:
        raise SpotItError("--jobs must be at least 1")
    files = find_benchmarks(directory)
    limiter, limits_reason = choose_limiter(limits)
    out.mkdir(parents=True, exist_ok=True)
    check_settings(out, timeout, entrants)
    facts = {file: _facts(directory, file) for file in files}
    store = ResultsFile(out / "results.csv")
    try:
        done = store.done()
        todo = [(e, f) for f in files for e in entrants if (f, e.name) not in done]
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(run_one, e, directory, f, facts[f], timeout, limiter)
                       for e, f in todo]
            try:
                for count, future in enumerate(as_completed(futures), 1):
                    row = future.result()
                    store.append(row)
                    if progress is not None:
                        progress(count, len(todo), row)
            except BaseException:
                for future in futures:
                    future.cancel()
                raise
        rows = store.rows
    finally:
        store.close()
    names = [e.name for e in entrants]
    expected = {f: (x.expected if isinstance(x, FileFacts) else None) for f, x in facts.items()}
    summary = summarize(rows, files, names, expected, timeout)
    summary.update(timeout=timeout, limits=limiter.name, limits_reason=limits_reason,
                   files=len(files))
    summary["plots"] = _plots(rows, files, names, expected, timeout, out)
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return BenchReport(summary, out, len(todo), len(files) * len(entrants) - len(todo))


def _plots(rows: list[Row], files: list[str], names: list[str],
           expected: dict[str, str | None], timeout: float, out: Path) -> list[str]:
    times = per_file_times(rows, files, names, expected)
    written = plots.cactus(times, timeout, out)
    if len(names) >= 2:
        written += plots.scatter(times, names[0], names[1], timeout, out)
    return [p.name for p in written]


__all__ = ["BenchReport", "bench_solvers"]
