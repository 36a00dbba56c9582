"""A portfolio: z3 and cvc5 on every check at once, the first definite answer wins.

Each member solver runs in a child process of its own (cvc5's Python binding holds
the GIL while it solves, so threads would not run the two in parallel). A session
sends every command to both members; a check waits for the first ``sat``/``unsat``,
then gives the other member a grace period (as long as the winner took, at least
:data:`GRACE_SECONDS`, within the time limit) so that both answers are recorded
when both come. Two definite answers that disagree are an ``ERROR`` naming both,
never a verdict. A member still running after the grace period is killed and
restarted lazily by replaying the session's commands, so the next check has both
solvers again.

Members are plain subprocesses (``python -m spotit.solvers.member``) talking over a
pair of pipes, so a portfolio also works inside daemonic worker processes, which
may not start multiprocessing children.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from multiprocessing.connection import Connection, wait

from spotit.solvers.base import Outcome, Session, Solver, Status

MEMBERS = ("z3", "cvc5")
GRACE_SECONDS = 0.5
START_SECONDS = 30.0  # a member that cannot start (import, load the script) in this long is out


class _Member:
    """One solver in a child process, driven over pipes; replayable after a kill."""

    def __init__(self, name: str, options: dict) -> None:
        self.name = name
        self.options = options
        self.proc: subprocess.Popen | None = None
        self.conn_in: Connection | None = None  # parent reads answers
        self.conn_out: Connection | None = None  # parent sends commands
        self.busy = False  # a check was sent and its answer not yet read
        self.error: str | None = None  # out of this session (failed to load, crashed)

    def start(self) -> None:
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        cmd = [sys.executable, "-m", "spotit.solvers.member", self.name, str(to_child_r),
               str(from_child_w), repr(self.options)]
        self.proc = subprocess.Popen(cmd, pass_fds=(to_child_r, from_child_w),
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, start_new_session=True)
        os.close(to_child_r)
        os.close(from_child_w)
        self.conn_out = Connection(to_child_w, readable=False)
        self.conn_in = Connection(from_child_r, writable=False)
        self.busy = False

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def send(self, message: tuple) -> None:
        assert self.conn_out is not None
        self.conn_out.send(message)

    def receive(self, timeout: float | None) -> tuple | None:
        """The next answer, or None if none came in ``timeout`` seconds (or it died)."""
        assert self.conn_in is not None
        try:
            if self.conn_in.poll(timeout):
                return self.conn_in.recv()
        except (EOFError, OSError):
            pass
        return None

    def kill(self) -> None:
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, 9)
            with contextlib.suppress(Exception):
                self.proc.wait(timeout=5)
        for conn in (self.conn_in, self.conn_out):
            if conn is not None:
                with contextlib.suppress(OSError):
                    conn.close()
        self.proc = self.conn_in = self.conn_out = None
        self.busy = False


class PortfolioSession(Session):
    solver_name = "portfolio"

    def __init__(self, members: list[_Member], name: str = "portfolio") -> None:
        super().__init__()
        self.solver_name = name
        self.members = members
        self.log: list[tuple] = []  # every add/push/pop so far, replayed after a restart
        self.answers: dict[str, str] = {}  # solver -> "sat 0.12s" of the last check
        for m in members:
            m.error = None
            if m.alive and not m.busy:
                with contextlib.suppress(OSError):
                    m.send(("reset",))
                    reply = m.receive(START_SECONDS)
                    if reply is not None and reply[0] == "ok":
                        continue
            self._restart(m)

    def _restart(self, m: _Member) -> None:
        m.kill()
        try:
            m.start()
            m.send(("reset",))
            for message in self.log:
                m.send(message)
            for _ in range(len(self.log) + 1):
                reply = m.receive(START_SECONDS)
                if reply is None:
                    raise RuntimeError("did not start")
                if reply[0] == "error":
                    raise RuntimeError(reply[1])
        except (OSError, RuntimeError) as e:
            m.kill()
            m.error = f"{m.name}: {e}"

    def _live(self) -> list[_Member]:
        return [m for m in self.members if m.error is None]

    def _broadcast(self, message: tuple) -> None:
        self.log.append(message)
        for m in self._live():
            if m.proc is None or m.busy or not m.alive:
                self._restart(m)  # replays the log, this message included
                continue
            try:
                m.send(message)
                reply = m.receive(None)
            except OSError as e:
                reply = ("error", str(e))
            if reply is None or reply[0] == "error":
                m.kill()
                m.error = f"{m.name}: {reply[1] if reply else 'died'}"
        if not self._live():
            raise RuntimeError("; ".join(m.error or "" for m in self.members))

    def _add(self, smtlib_text: str) -> None:
        self._broadcast(("add", smtlib_text))

    def _push(self) -> None:
        self._broadcast(("push",))

    def _pop(self) -> None:
        self._broadcast(("pop",))

    def _check(self, timeout: float | None, assumptions: tuple[tuple[str, bool], ...]
               ) -> Outcome:
        start = time.monotonic()
        deadline = None if timeout is None else start + timeout
        running: dict[Connection, _Member] = {}
        for m in self._live():
            if m.proc is None or m.busy or not m.alive:
                self._restart(m)
                if m.error is not None:
                    continue
            m.send(("check", timeout, assumptions))
            m.busy = True
            assert m.conn_in is not None
            running[m.conn_in] = m
        results: dict[str, tuple] = {}
        winner: str | None = None
        grace_end: float | None = None
        while running:
            now = time.monotonic()
            ends = [t for t in (deadline, grace_end) if t is not None]
            wait_for = None if not ends else max(0.0, min(ends) - now)
            ready = wait(list(running), wait_for)
            if not ready:
                break  # the time limit or the grace period is over
            for conn in ready:
                m = running.pop(conn)
                m.busy = False
                reply = m.receive(0)
                if reply is None:
                    m.kill()
                    results[m.name] = ("error", None, "the solver process died", 0.0)
                    continue
                results[m.name] = reply[1:]
                if winner is None and reply[1] in ("sat", "unsat"):
                    winner = m.name
                    took = time.monotonic() - start
                    grace_end = time.monotonic() + max(GRACE_SECONDS, took)
                    if deadline is not None:
                        grace_end = min(grace_end, deadline)
        for m in running.values():
            m.kill()  # restarted by replay before its next use
        # an answer that is no verdict says why, in the member's words (a resource limit)
        self.answers = {name: f"{r[0]} {r[3]:.2f}s" + (
            f" ({r[2]})" if r[0] not in ("sat", "unsat") and r[2] else "")
            for name, r in results.items()}
        for m in running.values():
            self.answers[m.name] = "still running (stopped)"
        for m in self.members:
            if m.error is not None and m.name not in self.answers:
                self.answers[m.name] = f"out ({m.error})"
        reason = f"{self.solver_name}: " + ", ".join(f"{n} {a}" for n, a in self.answers.items())
        definite = {n: r for n, r in results.items() if r[0] in ("sat", "unsat")}
        if len({r[0] for r in definite.values()}) > 1:
            return Outcome(Status.ERROR, reason="solvers disagree: " + reason)
        if winner is not None:
            status, model, _, _ = results[winner]
            return Outcome(Status(status), model, f"{reason}; first: {winner}")
        if any(r[0] == "timeout" for r in results.values()) or running:
            return Outcome(Status.TIMEOUT, reason=reason)
        if any(r[0] == "unknown" for r in results.values()):
            return Outcome(Status.UNKNOWN, reason=reason)
        errors = [m.error for m in self.members if m.error] + [
            f"{n}: {r[2]}" for n, r in results.items()]
        return Outcome(Status.ERROR, reason=f"{self.solver_name}: " + "; ".join(errors))

    def _close(self) -> None:
        for m in self.members:
            if m.busy:
                m.kill()  # a check still running: the next session starts it afresh


class PortfolioSolver(Solver):
    """z3 and cvc5 in parallel processes; member processes live as long as the solver."""

    name = "portfolio"

    def __init__(self, *, rlimit: int | None = None, seed: int = 0,
                 members: Sequence[str] = MEMBERS) -> None:
        super().__init__(rlimit=rlimit, seed=seed)
        options = {"seed": seed} if rlimit is None else {"seed": seed, "rlimit": rlimit}
        self._members = [_Member(name, options) for name in members]

    def _new_session(self) -> Session:
        return PortfolioSession(self._members, self.name)

    def close(self) -> None:
        for m in self._members:
            m.kill()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()


class ProcessSolver(PortfolioSolver):
    """One backend in a child process, stopped at its time limit: for cvc5, whose own
    limit is soft (in preprocessing it looks at the clock rarely, and its Python binding
    can be neither interrupted nor left running, since it holds the GIL), so that a
    check's ``--timeout`` is kept. Named as the backend it runs."""

    def __init__(self, member: str, *, rlimit: int | None = None, seed: int = 0) -> None:
        super().__init__(rlimit=rlimit, seed=seed, members=(member,))
        self.name = member
