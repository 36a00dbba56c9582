"""From rows to the numbers people compare solvers by.

Definitions (also in docs/solver-benchmarks.md):

- *solved*: a sat or unsat answer that does not contradict the file's ``:status``.
  A contradicting answer is *wrong*: counted under ``sat``/``unsat`` as given, in
  ``wrong`` and ``wrong_status``, and treated as unsolved everywhere else.
- *PAR-2* (SAT competition): the **total** over all benchmark files of the solving
  time when solved and 2 × the time limit otherwise. A skipped file (logic not
  supported) or a file without a row counts as unsolved, so a solver cannot look
  better by declining files; every solver is scored over the same files.
- *median_seconds*: over solved files only (None when none is solved).
- *virtual best*: per file, the fastest solved answer of any solver.
- *disagreement*: some solver answered sat and another unsat on the same file.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from spotit.solverbench.runs import STATUSES, Row


def _latest(rows: Iterable[Row], files: Sequence[str],
            solvers: Sequence[str]) -> dict[tuple[str, str], Row]:
    wanted_files, wanted_solvers = set(files), set(solvers)
    table: dict[tuple[str, str], Row] = {}
    for row in rows:
        if row.file in wanted_files and row.solver in wanted_solvers:
            table[row.file, row.solver] = row
    return table


def is_wrong(row: Row, expected: str | None) -> bool:
    """A definite answer contradicting the file's ``:status``."""
    return row.definite and expected is not None and row.status != expected


def _stats(times: list[float | None], timeout: float) -> dict[str, Any]:
    """Solved count, PAR-2 total and median from per-file times (None: unsolved)."""
    solved = [t for t in times if t is not None]
    par2 = sum(solved) + 2 * timeout * (len(times) - len(solved))
    return {
        "solved": len(solved),
        "par2": round(par2, 4),
        "median_seconds": round(statistics.median(solved), 4) if solved else None,
    }


def summarize(rows: Iterable[Row], files: Sequence[str], solvers: Sequence[str],
              expected: Mapping[str, str | None], timeout: float) -> dict[str, Any]:
    """The summary of a run: per solver, virtual best, disagreements, wrong answers."""
    table = _latest(rows, files, solvers)
    summary: dict[str, Any] = {"solvers": {}}
    best: list[tuple[float, str, str] | None] = []  # per file: (seconds, status, solver)
    for solver in solvers:
        counts = dict.fromkeys(STATUSES, 0)
        times: list[float | None] = []
        wrong = 0
        for file in files:
            row = table.get((file, solver))
            if row is None:
                times.append(None)
                continue
            counts[row.status] += 1
            bad = is_wrong(row, expected.get(file))
            wrong += bad
            times.append(row.seconds if row.definite and not bad else None)
        stats = _stats(times, timeout)
        summary["solvers"][solver] = {"solved": stats["solved"], **counts, "wrong": wrong,
                                      "run": len(files) - counts["skipped"],
                                      "par2": stats["par2"],
                                      "median_seconds": stats["median_seconds"]}
    for file in files:
        candidates = [(row.seconds, order, row.status, row.solver)
                      for order, solver in enumerate(solvers)
                      if (row := table.get((file, solver))) is not None
                      and row.definite and not is_wrong(row, expected.get(file))]
        if candidates:  # fastest; on a tie, the solver named first
            seconds, _, status, solver = min(candidates)
            best.append((seconds, status, solver))
        else:
            best.append(None)
    vb = _stats([b[0] if b else None for b in best], timeout)
    fastest = {solver: sum(1 for b in best if b and b[2] == solver) for solver in solvers}
    summary["virtual_best"] = {
        "solved": vb["solved"],
        "sat": sum(1 for b in best if b and b[1] == "sat"),
        "unsat": sum(1 for b in best if b and b[1] == "unsat"),
        "unsolved": len(files) - vb["solved"],
        "par2": vb["par2"],
        "median_seconds": vb["median_seconds"],
        "fastest": fastest,
    }
    summary["disagreements"] = disagreements(table, files, solvers)
    summary["wrong_status"] = [
        {"file": file, "solver": solver, "expected": expected[file],
         "got": table[file, solver].status}
        for file in files for solver in solvers
        if (file, solver) in table and is_wrong(table[file, solver], expected.get(file))
    ]
    return summary


def disagreements(table: Mapping[tuple[str, str], Row], files: Sequence[str],
                  solvers: Sequence[str]) -> list[dict[str, Any]]:
    """Files on which one solver said sat and another unsat, with every solver's answer."""
    found = []
    for file in files:
        answers = {s: table[file, s].status for s in solvers if (file, s) in table}
        if {"sat", "unsat"} <= set(answers.values()):
            found.append({"file": file, "answers": answers})
    return found


def per_file_times(rows: Iterable[Row], files: Sequence[str], solvers: Sequence[str],
                   expected: Mapping[str, str | None]) -> dict[str, dict[str, float | None]]:
    """Per solver (and ``virtual best``), per file: seconds if solved, None if not, for plots.

    Skipped files are left out of a solver's map, so a plot can tell them apart.
    """
    table = _latest(rows, files, solvers)
    times: dict[str, dict[str, float | None]] = {s: {} for s in solvers}
    for (file, solver), row in table.items():
        if row.status == "skipped":
            continue
        solved = row.definite and not is_wrong(row, expected.get(file))
        times[solver][file] = row.seconds if solved else None
    vb: dict[str, float | None] = {}
    for file in files:
        solved_times = [t for s in solvers if (t := times[s].get(file)) is not None]
        vb[file] = min(solved_times) if solved_times else None
    times["virtual best"] = vb
    return times


def format_table(summary: Mapping[str, Any]) -> str:
    """The per-solver summary as a fixed-width table for a terminal."""
    head = ("solver", "solved", "sat", "unsat", "unknown", "timeout", "error", "skipped",
            "wrong", "PAR-2 (s)", "median (s)")
    lines = [head]
    entries = [*summary["solvers"].items(), ("virtual best", summary["virtual_best"])]
    for name, s in entries:
        median = "-" if s["median_seconds"] is None else f"{s['median_seconds']:.3f}"
        lines.append((name, str(s["solved"]), str(s["sat"]), str(s["unsat"]),
                      *(str(s.get(k, "-")) for k in ("unknown", "timeout", "error", "skipped",
                                                     "wrong")),
                      f"{s['par2']:.2f}", median))
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    return "\n".join(
        "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w)
                  for i, (cell, w) in enumerate(zip(line, widths, strict=True)))
        for line in lines)
