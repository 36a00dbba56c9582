"""cvc5 in process, fed SMT-LIB text through ``InputParser`` + ``SymbolManager``.

The pip wheel ships no ``cvc5`` executable, so the Python API is the way in.
Commands are parsed and invoked one at a time, which lets the session drop the
ones it must not run (``check-sat``, ``get-model``, ``set-info``, ... : the
session's ``check`` does the solving) and refuse scope commands, as the z3
backend does. Session push/pop go through the parser as ``(push 1)``/``(pop 1)``
so that the symbol manager scopes its declarations along with the solver.

Quirks handled here (cvc5 1.4.2):

- ``Command.invoke`` *returns* errors as ``(error "...")`` text instead of raising.
- ``(set-info :status sat)`` makes cvc5 raise when a check disagrees, even under
  assumptions, so ``set-info`` is skipped.
- Without ``set-logic`` cvc5 prints a warning on stderr; a first text without one
  gets ``(set-logic ALL)`` in front.
- ``rlimit-per`` can only be set before the solver is initialised (constructor
  option); ``tlimit-per`` can be changed before every check.
- The time limit is soft: in preprocessing cvc5 checks it rarely (a 1000-deep ITE
  chain with a 0.5 s limit answered after 4 s).
"""

from __future__ import annotations

import re
from fractions import Fraction

import cvc5

from spotit.solvers.base import Outcome, Session, Solver, Status, Value, timeout_ms
from spotit.solvers.script import QUERY_COMMANDS, SCOPE_COMMANDS

_SKIP = frozenset(QUERY_COMMANDS) | {"set-info"}
_REFUSE = frozenset(SCOPE_COMMANDS)
_HAS_LOGIC = re.compile(r"\(\s*set-logic[\s)]")

_LIMITS = {
    cvc5.UnknownExplanation.TIMEOUT: "timeout",
    cvc5.UnknownExplanation.RESOURCEOUT: "resource limit (rlimit-per)",
    cvc5.UnknownExplanation.MEMOUT: "memout",
}


class Cvc5Session(Session):
    """One cvc5 solver with its own term and symbol managers."""

    solver_name = "cvc5"

    def __init__(self, rlimit: int | None, seed: int) -> None:
        super().__init__()
        self._tm = cvc5.TermManager()
        self._solver = cvc5.Solver(self._tm)
        options = {"produce-models": "true", "incremental": "true", "seed": str(seed)}
        if rlimit is not None:
            options["rlimit-per"] = str(rlimit)
        for key, value in options.items():
            self._solver.setOption(key, value)
        self._symbols = cvc5.SymbolManager(self._tm)
        self._parser = cvc5.InputParser(self._solver, self._symbols)
        self._inputs = 0

    def _run(self, text: str, *, internal: bool = False) -> None:
        if self._inputs == 0 and not _HAS_LOGIC.search(text):
            text = "(set-logic ALL)\n" + text
        self._inputs += 1
        self._parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, text, f"input{self._inputs}")
        while True:
            command = self._parser.nextCommand()
            if command.isNull():
                return
            name = command.getCommandName()
            if name in _SKIP:
                continue
            if name in _REFUSE and not internal:
                raise ValueError(
                    f"({name}) in added text is not supported: use Session.push()/pop()"
                )
            output = command.invoke(self._solver, self._symbols)
            if output.lstrip().startswith("(error"):
                raise RuntimeError(output)

    def _add(self, smtlib_text: str) -> None:
        self._run(smtlib_text)

    def _push(self) -> None:
        self._run("(push 1)", internal=True)

    def _pop(self) -> None:
        self._run("(pop 1)", internal=True)

    def _check(self, timeout: float | None, assumptions: tuple[tuple[str, bool], ...]) -> Outcome:
        self._solver.setOption("tlimit-per", "0" if timeout is None else str(timeout_ms(timeout)))
        if assumptions:
            declared = {t.getSymbol(): t for t in self._symbols.getDeclaredTerms()}
            literals = []
            for name, polarity in assumptions:
                term = declared.get(name)
                if term is None or not term.getSort().isBoolean():
                    raise ValueError(f"assumption {name!r} is not a declared Bool constant")
                literals.append(term if polarity else self._tm.mkTerm(cvc5.Kind.NOT, term))
            result = self._solver.checkSatAssuming(*literals)
        else:
            result = self._solver.checkSat()
        if result.isSat():
            return Outcome(Status.SAT, model=self._model())
        if result.isUnsat():
            return Outcome(Status.UNSAT)
        explanation = result.getUnknownExplanation()
        if explanation in _LIMITS:
            return Outcome(Status.TIMEOUT, reason=_LIMITS[explanation])
        return Outcome(Status.UNKNOWN, reason=explanation.name.lower())

    def _model(self) -> dict[str, Value]:
        values: dict[str, Value] = {}
        for term in self._symbols.getDeclaredTerms():
            sort = term.getSort()
            if sort.isFunction():
                continue
            value = self._solver.getValue(term)
            if sort.isBoolean():
                values[term.getSymbol()] = value.getBooleanValue()
            elif sort.isInteger():
                values[term.getSymbol()] = value.getIntegerValue()
            elif sort.isReal():
                values[term.getSymbol()] = _real_value(value)
            elif sort.isString():
                values[term.getSymbol()] = value.getStringValue()
        return values

    def _close(self) -> None:
        # Drop the objects that refer to the term manager before the manager itself.
        self._parser = None  # type: ignore[assignment]
        self._symbols = None  # type: ignore[assignment]
        self._solver = None  # type: ignore[assignment]
        self._tm = None  # type: ignore[assignment]


def _real_value(value: cvc5.Term) -> Fraction:
    """An exact rational, or for a real algebraic number the midpoint of cvc5's
    isolating interval (an approximation, possibly a coarse one)."""
    if value.isRealValue():
        return Fraction(value.getRealValue())
    if value.isRealAlgebraicNumber():
        low = Fraction(value.getRealAlgebraicNumberLowerBound().getRealValue())
        high = Fraction(value.getRealAlgebraicNumberUpperBound().getRealValue())
        return (low + high) / 2
    raise ValueError(f"no Python value for cvc5 real {value}")


class Cvc5Solver(Solver):
    """cvc5 through its Python API; often the faster one on SAT in our measurements."""

    name = "cvc5"

    def _new_session(self) -> Session:
        return Cvc5Session(self.rlimit, self.seed)
