"""Running one command under a wall-clock limit and measuring its peak memory.

Two ways, one interface (:class:`Limiter`):

- ``runexec``: BenchExec's ``RunExecutor``, the field's standard. It puts the
  run in a cgroup, so every process the command starts is measured and killed.
  It needs cgroups and the optional ``benchexec`` package; :func:`choose_limiter`
  probes it once (it calls ``sys.exit`` when cgroups are missing) and falls back.
- ``process``: the standard library, through the lean launcher
  :mod:`spotit.solverbench.spawn`. The command runs in a process group of its
  own, killed whole at the limit; peak memory is ``ru_maxrss`` from ``wait4``,
  which covers the command and the descendants it waited for, plus a floor of
  ~6 MB (the launcher's, see there).

Either way the run's stdout is returned whole and stderr's tail, and a run that
cannot even start is reported (``start_error``), never raised.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from spotit.errors import SpotItError

STDERR_TAIL = 2000
"""Characters of a run's stderr kept (for an error's reason)."""
_SPAWN = Path(__file__).with_name("spawn.py")


@dataclass(frozen=True)
class Measured:
    """What happened to one command."""

    stdout: str
    stderr: str
    exit_code: int | None
    """None when a signal ended the process."""
    signal: int | None
    killed: bool
    """The time limit killed it."""
    seconds: float
    """Wall-clock time of the process."""
    memory_mb: float | None
    start_error: str = ""
    """Why the command could not be started (then nothing else is meaningful)."""


class Limiter(Protocol):
    """Runs a command line with a wall-clock limit in seconds."""

    name: str

    def run(self, argv: Sequence[str], limit: float) -> Measured: ...


def _read(path: Path, tail: int | None = None) -> str:
    data = path.read_bytes()
    if tail is not None:
        data = data[-tail:]
    return data.decode("utf-8", errors="replace")


class ProcessLimiter:
    """Plain processes, launched by the lean :mod:`spotit.solverbench.spawn`.

    The launcher enforces the limit; this side only keeps a safety margin in case
    the launcher itself hangs.
    """

    name = "process"
    MARGIN = 10.0

    def run(self, argv: Sequence[str], limit: float) -> Measured:
        with tempfile.TemporaryDirectory(prefix="spotit-run-") as tmp:
            out, err = Path(tmp) / "stdout", Path(tmp) / "stderr"
            launcher = [sys.executable, "-I", "-S", str(_SPAWN), f"{limit!r}", str(out),
                        str(err), "--", *argv]
            try:
                done = subprocess.run(launcher, capture_output=True, text=True,
                                      timeout=limit + self.MARGIN, start_new_session=True,
                                      check=False)
                report = json.loads(done.stdout.strip().splitlines()[-1])
            except subprocess.TimeoutExpired:
                return Measured("", "", None, None, True, limit + self.MARGIN, None)
            except (IndexError, ValueError):
                return Measured("", "", None, None, False, 0.0, None,
                                start_error=f"the launcher failed: {done.stderr[-300:]}")
            if report["error"]:
                return Measured("", "", None, None, False, 0.0, None,
                                start_error=report["error"])
            return Measured(
                stdout=_read(out),
                stderr=_read(err, STDERR_TAIL),
                exit_code=report["exit"],
                signal=report["signal"],
                killed=report["killed"],
                seconds=report["seconds"],
                memory_mb=report["maxrss_kb"] / 1024,  # kilobytes on Linux
            )


class RunexecLimiter:
    """BenchExec's RunExecutor (cgroups), one executor per thread as BenchExec does."""

    name = "runexec"

    def __init__(self) -> None:
        self._local = threading.local()

    def _executor(self):  # -> benchexec's RunExecutor
        executor = getattr(self._local, "executor", None)
        if executor is None:
            from benchexec.runexecutor import RunExecutor

            executor = RunExecutor(use_namespaces=False)
            self._local.executor = executor
        return executor

    def run(self, argv: Sequence[str], limit: float) -> Measured:
        with tempfile.TemporaryDirectory(prefix="spotit-run-") as tmp:
            out, err = Path(tmp) / "stdout", Path(tmp) / "stderr"
            start = time.monotonic()
            try:
                result = self._executor().execute_run(
                    list(argv), str(out), walltimelimit=limit, write_header=False,
                    error_filename=str(err))
            except SystemExit as exc:  # benchexec exits on bad input instead of raising
                return Measured("", "", None, None, False, 0.0, None,
                                start_error=f"runexec refused the run: {exc}")
            elapsed = time.monotonic() - start
            reason = result.get("terminationreason")
            if reason == "failed":
                return Measured("", "", None, None, False, 0.0, None,
                                start_error=f"cannot start {argv[0]} under runexec")
            code = result.get("exitcode")
            memory = result.get("memory")
            return Measured(
                stdout=_read(out) if out.exists() else "",
                stderr=_read(err, STDERR_TAIL) if err.exists() else "",
                exit_code=getattr(code, "value", None),
                signal=getattr(code, "signal", None),
                killed=reason in ("walltime", "cputime", "cputime-soft"),
                seconds=float(result.get("walltime", elapsed)),
                memory_mb=memory / 2**20 if memory is not None else None,
            )


def _probe_runexec() -> tuple[RunexecLimiter | None, str]:
    """A working runexec limiter, or None and why not."""
    try:
        import benchexec
    except ImportError:
        return None, "benchexec is not installed (pip install 'spotit[benchexec]')"
    root = logging.getLogger()
    if not root.handlers:  # benchexec logs every kill as a warning on the root logger
        root.addHandler(logging.NullHandler())
    limiter = RunexecLimiter()
    try:
        probe = limiter.run(["true"], 10.0)
    except (Exception, SystemExit) as exc:  # no cgroups: RunExecutor() calls sys.exit
        return None, f"runexec does not work here: {' '.join(str(exc).split())[:300]}"
    if probe.start_error or probe.exit_code != 0:
        return None, f"runexec does not work here: {probe.start_error or 'probe failed'}"
    return limiter, f"BenchExec {benchexec.__version__} runexec (cgroups) works here"


def choose_limiter(mode: str) -> tuple[Limiter, str]:
    """The limiter for ``mode`` (``auto``, ``runexec`` or ``process``) and why it was chosen.

    Raises:
        SpotItError: ``runexec`` was asked for and does not work here, or the mode is unknown.
    """
    if mode == "process":
        return ProcessLimiter(), "process limits asked for (--limits process)"
    if mode not in ("auto", "runexec"):
        raise SpotItError(f"unknown --limits {mode!r} (auto, runexec or process)")
    limiter, reason = _probe_runexec()
    if limiter is not None:
        return limiter, reason
    if mode == "runexec":
        raise SpotItError(reason)
    return ProcessLimiter(), f"process limits, because {reason}"
