"""Run many checks in worker processes so that one bad pair costs only itself.

A solver can segfault, overrun its own time limit (cvc5's is soft) or
exhaust memory; Python's ``multiprocessing.Pool`` then hangs or loses every
result. Here each worker runs one task at a time; the parent enforces a hard
wall-clock limit per task (the check's own timeout plus a grace period) and a
memory limit, kills a worker that overruns or dies, records that task as
``timeout`` or ``error`` with the reason, starts a fresh worker, and goes on.
Results are yielded as they finish, so a caller can save them incrementally.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import resource
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any

GRACE_SECONDS = 15.0


@dataclass(frozen=True)
class Task:
    key: Any
    fn: Callable[..., dict]  # a module-level function returning a JSON-able dict
    args: tuple
    timeout: float  # the task's own budget; the hard limit adds GRACE_SECONDS


def _exit_with_parent(lifeline: Connection) -> None:
    """End this worker when the parent is gone, however it went (SIGTERM, SIGKILL):
    the pipe's other end is the parent's alone, so the OS closes it when it dies.
    Without this a worker busy in a long task outlives its parent (under forkserver
    its own parent is the fork server, so nothing else would tell it)."""
    with contextlib.suppress(EOFError, OSError):
        lifeline.recv()
    os._exit(1)


def _worker(conn: Connection, memory_mb: int | None, lifeline: Connection) -> None:
    threading.Thread(target=_exit_with_parent, args=(lifeline,), daemon=True).start()
    if memory_mb:
        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    while True:
        try:
            msg = conn.recv()
        except EOFError:
            return
        if msg is None:
            return
        key, fn, args = msg
        try:
            out = fn(*args)
            conn.send((key, "ok", out))
        except MemoryError:
            conn.send((key, "error", {"verdict": "error", "reason": "out of memory"}))
        except BaseException as e:  # report, never die silently
            conn.send((key, "error", {"verdict": "error",
                                      "reason": f"worker: {type(e).__name__}: {e}",
                                      "traceback": traceback.format_exc(limit=5)}))


class _Slot:
    def __init__(self, ctx, memory_mb: int | None):
        self.parent, child = ctx.Pipe()
        lifeline, self._lifeline = ctx.Pipe(duplex=False)
        self.proc = ctx.Process(target=_worker, args=(child, memory_mb, lifeline),
                                daemon=True)
        self.proc.start()
        child.close()
        lifeline.close()
        self.task: Task | None = None
        self.started = 0.0

    def stop(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(timeout=5)
        self.parent.close()
        self._lifeline.close()


def run_batch(tasks: Iterable[Task], *, workers: int = 2, memory_mb: int | None = 8192
              ) -> Iterator[tuple[Any, dict]]:
    """Yield ``(key, result dict)`` for every task, in completion order."""
    ctx = mp.get_context("forkserver" if os.name == "posix" else "spawn")
    pending = list(tasks)
    pending.reverse()
    slots = [_Slot(ctx, memory_mb) for _ in range(max(1, workers))]
    try:
        while pending or any(s.task for s in slots):
            for i, s in enumerate(slots):
                if s.task is None and pending:
                    if not s.proc.is_alive():
                        s.stop()
                        slots[i] = s = _Slot(ctx, memory_mb)
                    t = pending.pop()
                    s.task, s.started = t, time.monotonic()
                    s.parent.send((t.key, t.fn, t.args))
            busy = [s for s in slots if s.task is not None]
            if not busy:
                continue
            now = time.monotonic()
            wait_for = min(s.started + s.task.timeout + GRACE_SECONDS - now for s in busy)
            ready = wait([s.parent for s in busy] + [s.proc.sentinel for s in busy],
                         timeout=max(0.0, wait_for))
            for i, s in enumerate(slots):
                if s.task is None:
                    continue
                task = s.task
                if s.parent in ready:
                    try:
                        _key, _status, out = s.parent.recv()
                    except (EOFError, OSError):
                        out = None
                    if out is not None:
                        s.task = None
                        yield task.key, out
                        continue
                if s.parent in ready or s.proc.sentinel in ready or not s.proc.is_alive():
                    code = s.proc.exitcode
                    s.stop()
                    slots[i] = _Slot(ctx, memory_mb)
                    yield task.key, {"verdict": "error",
                                     "reason": f"the worker died (exit code {code}): a solver "
                                               "crash or the memory limit"}
                    continue
                if time.monotonic() > s.started + task.timeout + GRACE_SECONDS:
                    s.stop()
                    slots[i] = _Slot(ctx, memory_mb)
                    yield task.key, {"verdict": "timeout",
                                     "reason": f"killed after {task.timeout + GRACE_SECONDS:.0f} s"
                                               " (hard wall-clock limit)"}
    finally:
        for s in slots:
            with contextlib.suppress(OSError):
                s.parent.send(None)
            s.stop()
