"""One interface for every solver backend: SMT-LIB text in, a normalised result out.

Template method (as in pysmt's ``IncrementalTrackingSolver``): the public methods
of :class:`Session` and :class:`Solver` do the timing, the bookkeeping and the
normalisation, and turn every backend exception into ``Status.ERROR`` with a
one-line reason; a backend only implements the ``_``-prefixed methods.

"unknown" is a normal outcome here, not an exception (unlike pysmt's ``solve()``).
Every backend call runs on a thread with a large stack (:mod:`spotit.solvers.stack`),
because both solvers recurse on term depth and would otherwise crash the process.

A session whose ``add``/``push``/``pop`` failed is *poisoned*: the script is only
partly loaded, so any later answer could be unsound; every later ``check`` returns
``ERROR`` with the first failure's reason.
"""

from __future__ import annotations

import contextlib
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from fractions import Fraction
from types import TracebackType

from spotit.solvers.stack import call_with_big_stack

Value = bool | int | Fraction | str
"""A model value: Bool, Int, Real (exact, or a close approximation if irrational), String."""

Model = Mapping[str, Value]


class Status(Enum):
    """What a check concluded."""

    SAT = "sat"
    UNSAT = "unsat"
    UNKNOWN = "unknown"
    """The solver gave up for another reason than a limit (incompleteness, ...)."""
    TIMEOUT = "timeout"
    """A time, resource or memory limit stopped the solver."""
    ERROR = "error"
    """The script was rejected, the backend failed, or the session was poisoned."""


@dataclass(frozen=True)
class SolveResult:
    """The normalised outcome of one check.

    ``model`` holds the values of all declared nullary constants (by name, unquoted)
    of the sorts Bool, Int, Real and String when SAT, else None. ``reason`` explains
    UNKNOWN/TIMEOUT/ERROR in one line. ``seconds`` is wall-clock time.
    """

    status: Status
    model: Model | None = None
    reason: str = ""
    seconds: float = 0.0
    solver: str = field(default="", compare=False)

    @property
    def is_sat(self) -> bool:
        return self.status is Status.SAT

    @property
    def is_unsat(self) -> bool:
        return self.status is Status.UNSAT


@dataclass(frozen=True)
class Outcome:
    """What a backend's ``_check`` reports; the public ``check`` adds timing."""

    status: Status
    model: Model | None = None
    reason: str = ""


def one_line(error: BaseException | str, limit: int = 500) -> str:
    """An error as one readable line (backends put newlines and byte reprs in messages)."""
    text = str(error).strip()
    if text.startswith(("b'", 'b"')) and text[-1:] in "'\"":
        text = text[2:-1].replace("\\n", "\n").replace('\\"', '"').replace("\\'", "'")
    text = " ".join(text.split())
    if text.startswith('(error "') and text.endswith('")'):
        text = text[len('(error "') : -2]
    if not text:
        text = type(error).__name__ if isinstance(error, BaseException) else "unknown error"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def timeout_ms(timeout: float) -> int:
    """A positive whole number of milliseconds for a time limit given in seconds."""
    return max(1, round(timeout * 1000))


class Session(ABC):
    """A script loaded into one solver instance, used incrementally.

    Use as a context manager (or call :meth:`close`) to free the solver promptly.
    """

    solver_name: str = ""

    def __init__(self) -> None:
        self._error: str | None = None
        self._closed = False
        self._depth = 0

    # -- public template methods ---------------------------------------------------------

    @property
    def error(self) -> str | None:
        """Why the session is poisoned, or None while it is usable."""
        return self._error

    @property
    def depth(self) -> int:
        """Number of open :meth:`push` scopes."""
        return self._depth

    def add(self, smtlib_text: str) -> None:
        """Load more commands (declarations, definitions, assertions).

        A failure poisons the session (see the module docstring) instead of raising.
        """
        self._guarded("add", self._add, smtlib_text)

    def push(self) -> None:
        """Open an assertion scope (declarations and definitions are scoped too)."""
        if self._guarded("push", self._push):
            self._depth += 1

    def pop(self) -> None:
        """Close the innermost scope."""
        if self._error is None and self._depth == 0:
            self._error = "pop() without a matching push()"
            return
        if self._guarded("pop", self._pop):
            self._depth -= 1

    def check(
        self,
        timeout: float | None = None,
        assumptions: Sequence[tuple[str, bool]] = (),
    ) -> SolveResult:
        """Check satisfiability, optionally under assumptions (like ``check-sat-assuming``).

        ``timeout`` is in seconds (None: no limit; <= 0: TIMEOUT without solving).
        ``assumptions`` are declared Bool constants by name with the polarity to assume;
        they hold for this check only.
        """
        start = time.perf_counter()
        if self._closed:
            outcome = Outcome(Status.ERROR, reason="session is closed")
        elif self._error is not None:
            outcome = Outcome(Status.ERROR, reason=self._error)
        elif timeout is not None and timeout <= 0:
            outcome = Outcome(Status.TIMEOUT, reason="time budget exhausted before the check")
        else:
            try:
                outcome = call_with_big_stack(
                    self._check, timeout, tuple(assumptions), on_interrupt=self._interrupt
                )
            except Exception as exc:
                outcome = Outcome(Status.ERROR, reason=f"{self.solver_name}: {one_line(exc)}")
        if outcome.status is not Status.SAT:
            outcome = Outcome(outcome.status, None, outcome.reason)
        return SolveResult(
            status=outcome.status,
            model=outcome.model,
            reason=outcome.reason,
            seconds=time.perf_counter() - start,
            solver=self.solver_name,
        )

    def close(self) -> None:
        """Free the solver. Idempotent; later checks return ERROR."""
        if not self._closed:
            self._closed = True
            with contextlib.suppress(Exception):  # freeing must never fail the caller
                call_with_big_stack(self._close)  # freeing deep terms recurses too

    def __enter__(self) -> Session:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _guarded(self, what: str, action: Callable[..., None], *args: object) -> bool:
        """Run a backend action unless poisoned; poison the session if it fails."""
        if self._closed:
            self._error = self._error or "session is closed"
            return False
        if self._error is not None:
            return False
        try:
            call_with_big_stack(action, *args)
        except Exception as exc:
            self._error = f"{self.solver_name} {what} failed: {one_line(exc)}"
            return False
        return True

    # -- backend hooks --------------------------------------------------------------------

    @abstractmethod
    def _add(self, smtlib_text: str) -> None: ...

    @abstractmethod
    def _push(self) -> None: ...

    @abstractmethod
    def _pop(self) -> None: ...

    @abstractmethod
    def _check(
        self, timeout: float | None, assumptions: tuple[tuple[str, bool], ...]
    ) -> Outcome: ...

    @abstractmethod
    def _close(self) -> None: ...

    def _interrupt(self) -> None:
        """Ask a running check to stop (called from another thread); optional.

        The default does nothing: cvc5 1.4.2's Python API has no interrupt.
        """
        return None


class _BrokenSession(Session):
    """Stands in when a backend could not even create its solver."""

    def __init__(self, solver_name: str, reason: str) -> None:
        super().__init__()
        self.solver_name = solver_name
        self._error = reason

    def _add(self, smtlib_text: str) -> None:
        raise AssertionError("unreachable: session is poisoned")

    def _push(self) -> None:
        raise AssertionError("unreachable: session is poisoned")

    def _pop(self) -> None:
        raise AssertionError("unreachable: session is poisoned")

    def _close(self) -> None:
        pass

    def _check(self, timeout: float | None, assumptions: tuple[tuple[str, bool], ...]) -> Outcome:
        raise AssertionError("unreachable: session is poisoned")


class Solver(ABC):
    """A backend: opens sessions and answers one-shot checks.

    ``rlimit`` bounds the solver's deterministic resource counter per check (z3
    ``rlimit``, cvc5 ``rlimit-per``): unlike a wall-clock limit it stops at the same
    point on every machine. Units differ between solvers. ``seed`` fixes randomness.
    """

    name: str = ""

    def __init__(self, *, rlimit: int | None = None, seed: int = 0) -> None:
        if rlimit is not None and rlimit <= 0:
            raise ValueError("rlimit must be positive")
        self.rlimit = rlimit
        self.seed = seed

    def open(self, script: str) -> Session:
        """A new session with ``script`` loaded. Never raises: failures poison the session."""
        try:
            session = self._new_session()
        except Exception as exc:
            return _BrokenSession(self.name, f"{self.name}: cannot start: {one_line(exc)}")
        session.add(script)
        return session

    def check(self, script: str, *, timeout: float | None = None) -> SolveResult:
        """Load ``script`` in a fresh session and check it.

        ``timeout`` bounds the solving, not the parsing; ``seconds`` includes both. The
        limits are the solvers' own and soft: cvc5 can overrun by several times in
        preprocessing (see :mod:`spotit.solvers.cvc5`). A hard limit needs a process.
        """
        start = time.perf_counter()
        with self.open(script) as session:
            result = session.check(timeout=timeout)
        return SolveResult(
            status=result.status,
            model=result.model,
            reason=result.reason,
            seconds=time.perf_counter() - start,
            solver=self.name,
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}(rlimit={self.rlimit!r}, seed={self.seed!r})"

    @abstractmethod
    def _new_session(self) -> Session: ...
