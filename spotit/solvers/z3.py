"""z3 in process, fed SMT-LIB text through ``Solver.from_string``.

Each session has its own ``z3.Context``, so sessions are independent and the
memory of a finished session is freed with it.

Quirks handled here (z3 5.4.1):

- ``from_string`` keeps declarations in a parser context of its own: the API's
  ``push``/``pop`` scope the assertions but not the declarations, and text
  ``(push 1)``/``(pop 1)`` scope the declarations but not the assertions. A
  session scope does both. Scope commands inside added text are refused.
- ``from_string`` silently ignores ``check-sat``, ``get-model`` etc.; they are
  dropped from the text (see :mod:`spotit.solvers.script`).
- After a parse error the parser context forgets *all* declarations, which is one
  more reason a failed ``add`` poisons the session.
- ``reason_unknown()`` is ``"timeout"`` for the wall-clock limit and
  ``"canceled"`` for the resource limit.
- ``SeqRef.as_string()`` is ambiguous (a literal backslash and an escape look
  alike), so strings are read as code points with ``Z3_get_string_contents``.
"""

from __future__ import annotations

import contextlib
import ctypes
from fractions import Fraction

import z3

from spotit.solvers.base import Outcome, Session, Solver, Status, Value, timeout_ms
from spotit.solvers.script import loadable

NO_TIMEOUT_MS = 4294967295  # z3's "no limit" for the timeout parameter (UINT_MAX)
ALGEBRAIC_PRECISION = 30
"""Decimal digits of the Fraction that approximates an irrational (algebraic) real."""

_LIMIT_REASONS = ("timeout", "canceled", "resource", "memory", "memout")


class Z3Session(Session):
    """One z3 solver with its own context; see the module docstring for the quirks."""

    solver_name = "z3"

    def __init__(self, rlimit: int | None, seed: int) -> None:
        super().__init__()
        self._ctx = z3.Context()
        self._solver = z3.Solver(ctx=self._ctx)
        self._solver.set("random_seed", seed)
        if rlimit is not None:
            self._solver.set("rlimit", rlimit)
        # Declared nullary constants per scope: name -> sort text.
        self._scopes: list[dict[str, str]] = [{}]

    def _add(self, smtlib_text: str) -> None:
        text, facts = loadable(smtlib_text)
        self._solver.from_string(text)
        self._scopes[-1].update(facts.constants)

    def _push(self) -> None:
        self._solver.push()
        self._solver.from_string("(push 1)")
        self._scopes.append({})

    def _pop(self) -> None:
        self._solver.pop()
        self._solver.from_string("(pop 1)")
        self._scopes.pop()

    def _constants(self) -> dict[str, str]:
        merged: dict[str, str] = {}
        for scope in self._scopes:
            merged.update(scope)
        return merged

    def _check(self, timeout: float | None, assumptions: tuple[tuple[str, bool], ...]) -> Outcome:
        constants = self._constants()
        literals = []
        for name, polarity in assumptions:
            if constants.get(name) != "Bool":
                raise ValueError(f"assumption {name!r} is not a declared Bool constant")
            atom = z3.Bool(name, self._ctx)
            literals.append(atom if polarity else z3.Not(atom))
        self._solver.set("timeout", NO_TIMEOUT_MS if timeout is None else timeout_ms(timeout))
        answer = self._solver.check(*literals)
        if answer == z3.sat:
            return Outcome(Status.SAT, model=self._model(constants))
        if answer == z3.unsat:
            return Outcome(Status.UNSAT)
        reason = self._solver.reason_unknown()
        if any(word in reason for word in _LIMIT_REASONS):
            if reason == "canceled":
                reason = "canceled (time or resource limit)"
            return Outcome(Status.TIMEOUT, reason=reason)
        return Outcome(Status.UNKNOWN, reason=reason or "unknown")

    def _model(self, constants: dict[str, str]) -> dict[str, Value]:
        model = self._solver.model()
        values: dict[str, Value] = {}
        for name, sort_name in constants.items():
            sort = _SORTS.get(sort_name)
            if sort is None:
                continue  # other sorts have no Python value here
            const = z3.Const(name, sort(self._ctx))
            value = model.eval(const, model_completion=True)
            with contextlib.suppress(ValueError):  # keep the verdict; leave the value out
                values[name] = _python_value(value)
        return values

    def _interrupt(self) -> None:
        self._ctx.interrupt()

    def _close(self) -> None:
        self._solver = None  # type: ignore[assignment]
        self._ctx = None  # type: ignore[assignment]


_SORTS = {
    "Bool": z3.BoolSort,
    "Int": z3.IntSort,
    "Real": z3.RealSort,
    "String": z3.StringSort,
}


def _python_value(value: z3.ExprRef) -> Value:
    """A z3 model value as bool, int, Fraction or str.

    An irrational real (z3 algebraic number) becomes a Fraction within
    10**-ALGEBRAIC_PRECISION of it: close, but not exact.
    """
    if z3.is_true(value):
        return True
    if z3.is_false(value):
        return False
    if z3.is_int_value(value):
        return value.as_long()
    if z3.is_rational_value(value):
        return Fraction(value.numerator_as_long(), value.denominator_as_long())
    if z3.is_algebraic_value(value):
        approx = value.approx(ALGEBRAIC_PRECISION)
        return Fraction(approx.numerator_as_long(), approx.denominator_as_long())
    if z3.is_string_value(value):
        return _string_value(value)
    raise ValueError(f"no Python value for z3 value {value} of sort {value.sort()}")


def _string_value(value: z3.SeqRef) -> str:
    """Exact code points of a z3 string value (``as_string()`` is ambiguous)."""
    ctx, ast = value.ctx_ref(), value.as_ast()
    length = z3.z3core.Z3_get_string_length(ctx, ast)
    buffer = (ctypes.c_uint * length)()
    z3.z3core.Z3_get_string_contents(ctx, ast, length, buffer)
    return "".join(map(chr, buffer))


class Z3Solver(Solver):
    """z3 through its Python API; the fastest on UNSAT in our measurements."""

    name = "z3"

    def _new_session(self) -> Session:
        return Z3Session(self.rlimit, self.seed)
