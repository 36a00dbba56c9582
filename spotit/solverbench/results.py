"""``results.csv``: one row per (file, solver), appended and flushed as each run ends.

Appending row by row is what makes a run resumable: after any interruption
(even ``kill -9``) the rows on disk are runs that finished, and the next run
skips those (file, solver) pairs. A last line cut short by the kill is dropped
on reopening, so that run is simply done again.

``settings.json`` beside it holds the time limit and the solvers' command lines;
resuming with a different limit or command would mix incomparable rows, so it
is refused instead.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable
from pathlib import Path
from typing import TextIO

from spotit.errors import SpotItError
from spotit.solverbench.entrants import Entrant
from spotit.solverbench.runs import STATUSES, Row

HEADER = ("file", "solver", "status", "seconds", "memory_mb", "reason")


def _parse(record: list[str]) -> Row | None:
    """A row from CSV fields, or None when the fields are not a complete row."""
    if len(record) != len(HEADER) or record[2] not in STATUSES:
        return None
    try:
        seconds = float(record[3])
        memory = float(record[4]) if record[4] else None
    except ValueError:
        return None
    return Row(record[0], record[1], record[2], seconds, memory, record[5])


def read_rows(path: Path) -> list[Row]:
    """The complete rows of a results file (incomplete ones are ignored).

    Raises:
        SpotItError: the file exists but is not a results file of this kind.
    """
    if not path.exists():
        return []
    with path.open(newline="", encoding="utf-8") as handle:
        records = list(csv.reader(handle))
    if records and tuple(records[0]) != HEADER:
        raise SpotItError(f"{path} is not a bench-solvers results file (header "
                          f"{','.join(records[0])!r}); choose another --out")
    return [row for row in map(_parse, records[1:]) if row is not None]


class ResultsFile:
    """An open ``results.csv`` for appending."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.rows = read_rows(path)
        _drop_partial_line(path)
        is_new = not path.exists() or path.stat().st_size == 0
        self._handle: TextIO = path.open("a", newline="", encoding="utf-8")
        self._writer = csv.writer(self._handle, lineterminator="\n")
        if is_new:
            self._writer.writerow(HEADER)
            self._handle.flush()

    def done(self) -> set[tuple[str, str]]:
        """The (file, solver) pairs already in the file."""
        return {(row.file, row.solver) for row in self.rows}

    def append(self, row: Row) -> None:
        """Write one row and flush it to the operating system."""
        memory = "" if row.memory_mb is None else f"{row.memory_mb:.1f}"
        self._writer.writerow((row.file, row.solver, row.status, f"{row.seconds:.4f}",
                               memory, row.reason))
        self._handle.flush()
        self.rows.append(row)

    def close(self) -> None:
        self._handle.close()


def _drop_partial_line(path: Path) -> None:
    """Cut a last line that a kill left without its newline."""
    if not path.exists():
        return
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        path.write_bytes(data[: data.rfind(b"\n") + 1])


def check_settings(out: Path, timeout: float, entrants: Iterable[Entrant]) -> None:
    """Record the settings in ``out/settings.json``, or check them against the recorded ones.

    A solver new to the directory is added; a changed limit or command is refused.

    Raises:
        SpotItError: the directory holds results made with other settings.
    """
    path = out / "settings.json"
    recorded = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    if recorded and recorded.get("timeout") != timeout:
        raise SpotItError(f"{out} holds results for --timeout {recorded.get('timeout')}, "
                          f"not {timeout:g}: use another --out or the same limit")
    solvers = dict(recorded.get("solvers", {}))
    for entrant in entrants:
        command = list(entrant.command)
        if entrant.reports_seconds:
            command = ["<this python>", *command[1:]]  # a new venv is the same solver
        old = solvers.get(entrant.name)
        if old is not None and old != command:
            raise SpotItError(f"{out} holds results of solver {entrant.name!r} run as "
                              f"{' '.join(old)!r}: use another --out or another name")
        solvers[entrant.name] = command
    settings = {"timeout": timeout, "solvers": solvers}
    path.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
