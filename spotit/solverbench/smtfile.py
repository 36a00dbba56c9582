"""The benchmark files: which ones, and the two facts the harness reads from each.

A file's ``(set-logic L)`` decides which solvers run on it, and its
``(set-info :status sat|unsat)`` is the answer it claims (SMT-LIB benchmarks
carry it). Both are read with a regular expression over the text with comments
and string literals blanked, so a ``;`` comment or a string mentioning
``set-logic`` is never taken for the command. Nothing else is parsed: the
solvers parse the files, and a file they reject costs that file only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from spotit.errors import SpotItError

_NOISE = re.compile(r'"[^"]*(?:""[^"]*)*"|\|[^|]*\||;[^\n\r]*')
_LOGIC = re.compile(r"\(\s*set-logic\s+([^\s()|]+)\s*\)")
_STATUS = re.compile(r"\(\s*set-info\s+:status\s+(sat|unsat|unknown)\s*\)")


@dataclass(frozen=True)
class FileFacts:
    """What the harness needs to know about one benchmark before running it."""

    logic: str | None
    """The first ``set-logic`` argument, or None when the file sets none."""
    expected: str | None
    """``sat`` or ``unsat`` from ``(set-info :status ...)``; None if absent or unknown."""


def read_facts(path: Path) -> FileFacts:
    """The logic and expected status of an SMT-LIB file.

    Raises:
        OSError, UnicodeDecodeError: the file cannot be read as text.
    """
    text = _NOISE.sub(" ", path.read_text(encoding="utf-8"))
    logic = _LOGIC.search(text)
    status = _STATUS.search(text)
    expected = status.group(1) if status else None
    return FileFacts(
        logic=logic.group(1) if logic else None,
        expected=expected if expected in ("sat", "unsat") else None,
    )


def find_benchmarks(directory: Path) -> list[str]:
    """Every ``.smt2`` file under ``directory`` (recursively), relative, in sorted order.

    Paths use ``/`` on every platform, so a results file moves between machines.

    Raises:
        SpotItError: ``directory`` is not a directory or holds no ``.smt2`` file.
    """
    if not directory.is_dir():
        raise SpotItError(f"{directory} is not a directory")
    files = sorted(p.relative_to(directory).as_posix() for p in directory.rglob("*.smt2")
                   if p.is_file())
    if not files:
        raise SpotItError(f"no .smt2 files under {directory}")
    return files
