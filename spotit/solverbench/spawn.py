"""A lean launcher: run one command with a time limit, report time and peak memory as JSON.

Run as ``python -I -S spawn.py LIMIT STDOUT STDERR -- COMMAND...`` (standard library
only, by path, so it imports nothing of SpotIt). Why a launcher at all: on Linux
``ru_maxrss`` of a child also counts the memory of the process it was forked
from (``exec`` keeps the pre-``exec`` high-water mark). Forked from the harness,
which has imported SpotIt, every run would weigh at least ~50 MB; forked from
this bare interpreter the floor is ~6 MB.

The command runs in a process group of its own. At LIMIT seconds (a real-time
timer) the whole group is killed; after the command ends any process it left
in the group is killed too. The one line printed is
``{"exit", "signal", "killed", "seconds", "maxrss_kb", "error"}``.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import time


def _launch(argv: list[str], stdout: str, stderr: str) -> tuple[int, str]:
    """Fork and exec ``argv``; (pid, "") or (-1, why it could not start)."""
    read_end, write_end = os.pipe()  # close-on-exec: empty when exec succeeded
    out = os.open(stdout, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    err = os.open(stderr, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    pid = os.fork()
    if pid == 0:
        try:
            os.setpgid(0, 0)
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            os.dup2(out, 1)
            os.dup2(err, 2)
            os.execvp(argv[0], argv)
        except OSError as exc:
            os.write(write_end, f"cannot start {argv[0]}: {exc.strerror}".encode())
        os._exit(127)
    os.close(write_end)
    os.close(out)
    os.close(err)
    with contextlib.suppress(OSError):  # the child did it already, or exec'd already
        os.setpgid(pid, pid)  # also here, so the timer never finds the group missing
    with os.fdopen(read_end, "rb") as pipe:
        failure = pipe.read().decode(errors="replace")
    if failure:
        os.waitpid(pid, 0)
        return -1, failure
    return pid, ""


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def main(argv: list[str]) -> int:
    limit, stdout, stderr, sep, *command = argv
    if sep != "--" or not command:
        print("usage: spawn.py LIMIT STDOUT STDERR -- COMMAND...", file=sys.stderr)
        return 2
    start = time.monotonic()
    pid, failure = _launch(command, stdout, stderr)
    report: dict[str, object] = {"exit": None, "signal": None, "killed": False,
                                 "seconds": 0.0, "maxrss_kb": None, "error": failure}
    if pid > 0:
        killed = []

        def on_limit(signum: int, frame: object) -> None:
            killed.append(True)
            _kill_group(pid)

        signal.signal(signal.SIGALRM, on_limit)
        remaining = float(limit) - (time.monotonic() - start)
        signal.setitimer(signal.ITIMER_REAL, max(remaining, 1e-6))
        os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)  # not reaped: the group stays ours
        report["seconds"] = time.monotonic() - start
        signal.setitimer(signal.ITIMER_REAL, 0)
        _kill_group(pid)  # leftovers the command did not wait for
        _, status, usage = os.wait4(pid, 0)
        report.update(killed=bool(killed), maxrss_kb=usage.ru_maxrss,
                      exit=os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
                      signal=os.WTERMSIG(status) if os.WIFSIGNALED(status) else None)
    print(json.dumps(report), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
