"""Yices 2 as a child process (``yices-smt2 --incremental``) fed SMT-LIB text over pipes.

Yices has no strings, and it wants a concrete logic: it solves linear arithmetic
with its fast DPLL(T) core and non-linear arithmetic only with MCSat, chosen by
the logic at start-up. So a session:

- starts in :data:`LINEAR_LOGIC` unless the first text sets a logic other than
  ``ALL`` (SpotIt's scripts say ``(set-logic ALL)``). A non-linear logic would
  select MCSat for everything: on the 87 linear fixture pairs (bound 2) it timed
  out on 3 at 10 s and took 32 s in all, against 0.9 s in QF_UFLIRA (QF_LIRA: 0.8 s);
- hands the whole session over to a fallback backend (z3 by default), by
  replaying its log, as soon as a text uses strings (a string literal, the
  ``String``/``RegLan`` sorts or a ``str.``/``re.`` operator), and when Yices
  rejects a command with "non-linear arithmetic is not allowed": MCSat, Yices'
  only engine for it, timed out at 60 s on both non-linear fixture pairs that z3
  decides in 0.1 s. The results then say so in ``reason``. With ``fallback=None``
  a string session is poisoned instead (every check is ``ERROR`` "yices does not
  support strings") and a non-linear one restarts once in :data:`NONLINEAR_LOGIC`;
- drops ``set-logic``/``set-option`` and the query commands of the text (the
  session sends its own header and does the solving), and refuses scope commands;
- enforces time limits itself (select on the pipe): at the limit it kills the
  process group and restarts lazily, replaying the log, before the next command.

Quirks handled here (Yices 2.6.5):

- The first ``(error ...)`` ends the process, so any error poisons the session.
- MCSat answers ``sat`` to ``(check-sat-assuming (a (not a)))``: a check whose
  assumptions contain a name with both polarities is UNSAT without asking.
- ``rlimit`` does not exist: asking for one is a ``ValueError``.
"""

from __future__ import annotations

import contextlib
import os
import re
import select
import shutil
import signal
import subprocess
import time
from fractions import Fraction

from spotit.solvers.base import Outcome, Session, Solver, Status, Value, one_line
from spotit.solvers.script import loadable, unquote, without_spans

EXECUTABLE = "yices-smt2"
LINEAR_LOGIC = "QF_UFLIRA"
NONLINEAR_LOGIC = "QF_UFNIRA"
NONLINEAR_ERROR = "non-linear arithmetic is not allowed"
NO_STRINGS = "yices does not support strings"
_SYNC = "spotit-sync"
_MODEL_SORTS = ("Bool", "Int", "Real")

_LITERALS = r'"[^"]*(?:""[^"]*)*"|\|[^|]*\||;[^\n\r]*'
_HEADER = re.compile(_LITERALS + r"|\(\s*(set-logic|set-option)(?=[\s()])")
_LOGIC = re.compile(r"\(\s*set-logic\s+([^\s()|]+)\s*\)")
_STRINGS = re.compile(r'("[^"]*(?:""[^"]*)*")|\|[^|]*\||;[^\n\r]*'
                      r"|(?<![^\s()])(String|RegLan|(?:str|re)\.[^\s()]*)(?![^\s()])")


def uses_strings(text: str) -> str | None:
    """The first token of ``text`` that needs the string theory, or None."""
    for match in _STRINGS.finditer(text):
        token = match.group(1) or match.group(2)
        if token:
            return token if len(token) <= 20 else token[:17] + "..."
    return None


def _strip_header(text: str) -> tuple[str, str | None]:
    """``text`` without ``set-logic``/``set-option`` commands, and the logic it set."""
    spans: list[tuple[int, int]] = []
    logic = None
    for match in _HEADER.finditer(text):
        if match.group(1) is None:
            continue
        end = text.index(")", match.end())  # header commands hold no nested parentheses
        if match.group(1) == "set-logic":
            found = _LOGIC.match(text, match.start())
            logic = found.group(1) if found else logic
        spans.append((match.start(), end + 1))
    return without_spans(text, spans), logic


# -- reading Yices' answers ------------------------------------------------------------------

_TOKEN = re.compile(r'\s*(\(|\)|"(?:[^"]|"")*"|\|[^|]*\||[^\s()"|]+)')


def parse_sexpr(text: str) -> object:
    """One s-expression as nested lists of atoms (strings); raises ValueError."""
    stack: list[list[object]] = [[]]
    pos = 0
    while True:
        match = _TOKEN.match(text, pos)
        if match is None:
            break
        pos = match.end()
        token = match.group(1)
        if token == "(":
            stack.append([])
        elif token == ")":
            if len(stack) == 1:
                raise ValueError(f"unbalanced ')' in {text!r}")
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(token)
    if len(stack) != 1 or len(stack[0]) != 1 or text[pos:].strip():
        raise ValueError(f"not one s-expression: {text[:200]!r}")
    return stack[0][0]


def value_of(term: object) -> Value:
    """A Yices value (``true``, ``42``, ``(- 3)``, ``(/ 1 4)``, ``2.5``) as bool/int/Fraction."""
    if term == "true":
        return True
    if term == "false":
        return False
    if isinstance(term, str):
        if re.fullmatch(r"\d+", term):
            return int(term)
        if re.fullmatch(r"\d+\.\d*", term):
            return Fraction(term)
    if isinstance(term, list) and len(term) == 2 and term[0] == "-":
        inner = value_of(term[1])
        if not isinstance(inner, bool) and isinstance(inner, int | Fraction):
            return -inner
    if isinstance(term, list) and len(term) == 3 and term[0] == "/":
        num, den = value_of(term[1]), value_of(term[2])
        if all(not isinstance(v, bool) and isinstance(v, int | Fraction) for v in (num, den)):
            return Fraction(num) / Fraction(den)  # type: ignore[arg-type]
    raise ValueError(f"no Python value for Yices value {term!r}")


class _Process:
    """``yices-smt2`` in a process group of its own, read with deadlines."""

    def __init__(self, logic: str, seed: int) -> None:
        self.proc = subprocess.Popen(
            [EXECUTABLE, "--incremental"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, start_new_session=True)
        self.buffer = b""
        self.send(f"(set-option :produce-models true)\n(set-option :random-seed {seed})\n"
                  f"(set-logic {logic})\n")

    def send(self, text: str) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(text.encode())
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass  # it stopped at an error: the next read reports it

    def _fill(self, deadline: float | None) -> bool:
        """Read more output; False at the deadline. Raises EOFError when the process ended."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        wait = None if deadline is None else max(0.0, deadline - time.monotonic())
        ready, _, _ = select.select([fd], [], [], wait)
        if not ready:
            return False
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            raise EOFError("yices-smt2 ended")
        self.buffer += chunk
        return True

    def read(self, deadline: float | None = None) -> str | None:
        """The next answer (an atom line or a balanced s-expression), None at the deadline."""
        while True:
            text = self.buffer.decode(errors="replace")
            stripped = text.lstrip()
            if stripped.startswith("("):
                end = _balanced_end(stripped)
                if end is not None:
                    consumed = len(text) - len(stripped) + end
                    self.buffer = text[consumed:].encode()
                    return stripped[:end]
            elif "\n" in stripped:
                line, _, rest = stripped.partition("\n")
                self.buffer = rest.encode()
                return line.strip()
            try:
                if not self._fill(deadline):
                    return None
            except EOFError:
                rest = self.buffer.decode(errors="replace").strip()
                self.buffer = b""
                if rest:
                    return rest
                raise

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            self.proc.wait(timeout=5)
        for stream in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(Exception):
                if stream is not None:
                    stream.close()


def _balanced_end(text: str) -> int | None:
    """End of the balanced s-expression at the start of ``text``, or None if incomplete."""
    depth = 0
    quote = ""  # inside a string literal or a quoted symbol: its closing character
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote  # "" re-enters at once: same balance
        elif ch in "\"|":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i + 1
    return None


def _error_message(answer: str) -> str | None:
    if answer.startswith("(error"):
        return one_line(answer)
    return None


class YicesSession(Session):
    """One ``yices-smt2`` process; see the module docstring for the logic and the fallback."""

    solver_name = "yices"

    def __init__(self, seed: int, logic: str | None, fallback: str | None) -> None:
        super().__init__()
        self._seed = seed
        self._logic = logic  # decided by the first text unless given
        self._fallback = fallback
        self._log: list[tuple[str, str]] = []  # ("add", text) / ("push", "") / ("pop", "")
        self._proc: _Process | None = None
        self._scopes: list[dict[str, str]] = [{}]
        self._delegate: Session | None = None
        self._handed_over = ""  # why the fallback answers

    # -- the process -------------------------------------------------------------------

    def _start(self) -> _Process:
        assert self._logic is not None
        proc = _Process(self._logic, self._seed)
        try:
            for op, text in self._log:
                self._send(proc, op, text)
        except Exception:
            proc.kill()
            raise
        return proc

    def _send(self, proc: _Process, op: str, text: str) -> None:
        """One logged command, then a sync echo; raises on Yices' error."""
        command = {"add": text, "push": "(push 1)", "pop": "(pop 1)"}[op]
        proc.send(f"{command}\n(echo \"{_SYNC}\")\n")
        while True:
            try:
                answer = proc.read()
            except EOFError:
                raise RuntimeError("yices-smt2 ended without an answer") from None
            if answer == _SYNC or answer == f'"{_SYNC}"':
                return
            if answer is not None and (message := _error_message(answer)):
                raise RuntimeError(message)

    def _run(self, op: str, text: str = "") -> None:
        """Apply one command (logged first, so a restart replays it)."""
        if self._delegate is not None:
            self._log.append((op, text))
            self._forward(self._delegate, op, text)
            return
        self._log.append((op, text))
        try:
            if self._proc is None:
                self._proc = self._start()  # replays the log, this command included
            else:
                self._send(self._proc, op, text)
        except RuntimeError as exc:
            self._drop_process()
            if NONLINEAR_ERROR not in str(exc) or self._logic == NONLINEAR_LOGIC:
                raise
            if self._fallback is not None:
                self._log.pop()  # replayed by the hand-over
                self._hand_over("yices: non-linear arithmetic")
                self._run(op, text)
                return
            self._logic = NONLINEAR_LOGIC  # once: MCSat has every arithmetic we write
            self._proc = self._start()

    def _drop_process(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc = None

    # -- the fallback ------------------------------------------------------------------

    @staticmethod
    def _forward(session: Session, op: str, text: str) -> None:
        if op == "add":
            session.add(text)
        elif op == "push":
            session.push()
        else:
            session.pop()
        if session.error is not None:
            raise RuntimeError(session.error)

    def _hand_over(self, why: str) -> None:
        """Replay everything into the fallback backend, which answers from now on."""
        if self._fallback is None:
            raise ValueError(why)
        from spotit.solvers import get_solver  # the factory imports this module

        self._drop_process()
        delegate = get_solver(self._fallback, seed=self._seed).open("")
        for op, text in self._log:
            self._forward(delegate, op, text)
        self._delegate = delegate
        self._handed_over = f"{why}: answered by {self._fallback}"

    # -- hooks -------------------------------------------------------------------------

    def _add(self, smtlib_text: str) -> None:
        text, facts = loadable(smtlib_text)
        text, logic = _strip_header(text)
        if self._logic is None:
            self._logic = logic if logic not in (None, "ALL") else LINEAR_LOGIC
        if self._delegate is None and (token := uses_strings(text)):
            self._hand_over(f"{NO_STRINGS} (found {token})")
        self._run("add", text)
        self._scopes[-1].update(facts.constants)

    def _push(self) -> None:
        self._logic = self._logic or LINEAR_LOGIC
        self._run("push")
        self._scopes.append({})

    def _pop(self) -> None:
        self._run("pop")
        self._scopes.pop()

    def _check(self, timeout: float | None, assumptions: tuple[tuple[str, bool], ...]) -> Outcome:
        if self._delegate is not None:
            res = self._delegate.check(timeout, assumptions)
            reason = "; ".join(r for r in (self._handed_over, res.reason) if r)
            return Outcome(res.status, res.model, reason)
        constants: dict[str, str] = {}
        for scope in self._scopes:
            constants.update(scope)
        polarity: dict[str, bool] = {}
        for name, value in assumptions:
            if constants.get(name) != "Bool":
                raise ValueError(f"assumption {name!r} is not a declared Bool constant")
            if polarity.setdefault(name, value) != value:
                return Outcome(Status.UNSAT)  # MCSat gets this wrong (module docstring)
        if self._proc is None:
            self._logic = self._logic or LINEAR_LOGIC
            self._proc = self._start()
        proc = self._proc
        if polarity:
            literals = " ".join(_symbol(n) if v else f"(not {_symbol(n)})"
                                for n, v in polarity.items())
            proc.send(f"(check-sat-assuming ({literals}))\n")
        else:
            proc.send("(check-sat)\n")
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            answer = proc.read(deadline)
        except EOFError:
            self._drop_process()
            raise RuntimeError("yices-smt2 ended without an answer") from None
        if answer is None:
            self._drop_process()  # restarted by replay before the next command
            return Outcome(Status.TIMEOUT, reason=f"timeout ({timeout:g} s; process killed)")
        if message := _error_message(answer):
            self._drop_process()
            self._error = f"yices: {message}"
            return Outcome(Status.ERROR, reason=self._error)
        if answer == "unsat":
            return Outcome(Status.UNSAT)
        if answer == "unknown":
            return Outcome(Status.UNKNOWN, reason="unknown")
        if answer != "sat":
            raise RuntimeError(f"unexpected answer {answer!r}")
        return Outcome(Status.SAT, model=self._model(proc, constants))

    def _model(self, proc: _Process, constants: dict[str, str]) -> dict[str, Value]:
        names = [n for n, sort in constants.items() if sort in _MODEL_SORTS]
        if not names:
            return {}
        proc.send(f"(get-value ({' '.join(_symbol(n) for n in names)}))\n")
        answer = proc.read()
        if answer is None or _error_message(answer):
            raise RuntimeError(f"get-value failed: {answer}")
        values: dict[str, Value] = {}
        pairs = parse_sexpr(answer)
        if not isinstance(pairs, list):
            raise RuntimeError(f"get-value: unexpected answer {answer[:200]!r}")
        for pair in pairs:
            if isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str):
                with contextlib.suppress(ValueError):  # keep the verdict; leave the value out
                    values[unquote(pair[0])] = value_of(pair[1])
        return values

    def _interrupt(self) -> None:
        if self._proc is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self._proc.proc.pid, signal.SIGKILL)

    def _close(self) -> None:
        self._drop_process()
        if self._delegate is not None:
            self._delegate.close()


def _symbol(name: str) -> str:
    """``name`` as an SMT-LIB symbol (quoted unless it is simple)."""
    if re.fullmatch(r"[A-Za-z~!@$%^&*_+=<>.?/-][0-9A-Za-z~!@$%^&*_+=<>.?/-]*", name):
        return name
    return f"|{name}|"


class YicesSolver(Solver):
    """Yices 2 over pipes: fast on linear arithmetic, no strings (see the module docstring).

    ``logic`` forces the logic (otherwise the first text's, or :data:`LINEAR_LOGIC`);
    ``fallback`` names the backend that takes over a session that uses strings or
    non-linear arithmetic (None: strings are an ERROR, non-linear goes to MCSat).
    """

    name = "yices"

    def __init__(self, *, rlimit: int | None = None, seed: int = 0, logic: str | None = None,
                 fallback: str | None = "z3") -> None:
        super().__init__(rlimit=rlimit, seed=seed)
        if rlimit is not None:
            raise ValueError("yices has no resource limit (rlimit); use a timeout")
        if shutil.which(EXECUTABLE) is None:
            raise RuntimeError(f"{EXECUTABLE} is not on PATH")
        self.logic = logic
        self.fallback = fallback

    def _new_session(self) -> Session:
        return YicesSession(self.seed, self.logic, self.fallback)
