"""Thm 2, checked on one point: the "results differ" formula against Python's answer.

Two concrete tables are turned into symbolic relations whose cells are fresh
symbols pinned to the concrete values (so the solver, not constant folding,
evaluates the formula), together with *absent* rows holding arbitrary values
that every semantics must ignore. The solver decides whether
``differ(R1, R2)`` holds; BIRD's own comparison (Python ``set``/``Counter``/
``list`` equality on fetched rows) gives the expected answer.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

from pysmt.environment import reset_env
from pysmt.typing import BOOL, INT, REAL, STRING

from spotit.encodings.builder import Builder
from spotit.encodings.encoder import SymRel, SymRow
from spotit.encodings.equivalence import Semantics, differ
from spotit.encodings.values import Alt, Value
from spotit.ir.types import StorageClass
from spotit.proofs.crashes import CRASH, crash_proof
from spotit.proofs.determined import forced
from spotit.smt.evaluate import evaluate
from spotit.smt.printer import SmtLibWriter
from spotit.solvers import get_solver
from spotit.solvers.base import Status


@dataclass(frozen=True)
class TableCase:
    width: int
    rows1: tuple[tuple, ...]
    rows2: tuple[tuple, ...]
    absent1: tuple[tuple, ...] = ()
    absent2: tuple[tuple, ...] = ()
    semantics: str = "set"


@dataclass(frozen=True)
class TableOutcome:
    kind: str  # ok | divergence | crash | error
    expected_differ: bool | None
    formula_differ: bool | None
    detail: str = ""
    path: str = "solver"  # "evaluated": the pins made the formula a constant


def expected_differ(case: TableCase) -> bool:
    """BIRD's comparison of fetched rows (absent rows do not exist)."""
    a, b = list(case.rows1), list(case.rows2)
    if case.semantics == "set":
        return set(a) != set(b)
    if case.semantics == "bag":
        return Counter(a) != Counter(b)
    return a != b


@crash_proof(lambda detail: TableOutcome(CRASH, None, None, detail))
def check_tables(case: TableCase, solver: str = "z3", timeout: float = 20.0,
                 solver_free: bool = True) -> TableOutcome:
    """Thm 2 on ``case``; with ``solver_free``, the formula is first evaluated on the
    pinned cells (every pin is ``symbol = constant``, so they are consistent and the
    formula's value under them, if a constant, is the solver's answer)."""
    reset_env()
    b = Builder()
    pins: list = []
    counter = iter(range(10**9))
    r1 = _relation(b, case.rows1, case.absent1, case.semantics, pins, counter, case.width)
    r2 = _relation(b, case.rows2, case.absent2, case.semantics, pins, counter, case.width)
    formula = differ(b, r1, r2, Semantics(case.semantics))
    want = expected_differ(case)
    known = forced(b, pins) if solver_free else None
    if known is not None:
        (value,) = evaluate(b.m.env, known, [formula])
        if value.is_bool_constant():
            return _judged(want, value.is_true(), "evaluated")
    res = get_solver(solver).check(SmtLibWriter().script([*pins, formula]), timeout=timeout)
    if res.status not in (Status.SAT, Status.UNSAT):
        return TableOutcome("error", want, None, f"{res.status.value}: {res.reason}")
    return _judged(want, res.status is Status.SAT, "solver")


def _judged(want: bool, got: bool, path: str) -> TableOutcome:
    if got != want:
        return TableOutcome("divergence", want, got,
                            f"the formula says the tables {'differ' if got else 'agree'}", path)
    return TableOutcome("ok", want, got, path=path)


def _relation(b: Builder, rows, absent, semantics: str, pins: list, counter, width: int
              ) -> SymRel:
    """Present rows (in order) interleaved with absent ones, every cell symbolic."""
    sym_rows = []
    orders = []
    position = 0
    # absent rows go first and last so that "first rows are the present ones" is not assumed
    layout = [(r, False) for r in absent[: len(absent) // 2]] + [(r, True) for r in rows] + [
        (r, False) for r in absent[len(absent) // 2:]]
    for values, present in layout:
        n = next(counter)
        p = b.sym(f"p!{n}", BOOL)
        pins.append(p if present else b.not_(p))
        cells = [_cell(b, f"c!{n}!{j}", v, pins) for j, v in enumerate(values)]
        sym_rows.append(SymRow(p, tuple(cells)))
        o = b.sym(f"o!{n}", INT)
        if present:
            pins.append(b.eq(o, b.int(position)))
            position += 1
        orders.append(o)
    return SymRel(tuple(sym_rows), tuple(orders) if semantics == "list" else None, width)


def _cell(b: Builder, name: str, v, pins: list) -> Value:
    """A cell that may hold any storage class, pinned to ``v``."""
    null = b.sym(f"{name}!null", BOOL)
    is_int, is_real = b.sym(f"{name}!is_int", BOOL), b.sym(f"{name}!is_real", BOOL)
    x_int, x_real, x_text = (b.sym(f"{name}!i", INT), b.sym(f"{name}!r", REAL),
                             b.sym(f"{name}!s", STRING))
    alts = (Alt(StorageClass.INTEGER, is_int, x_int),
            Alt(StorageClass.REAL, b.and_(b.not_(is_int), is_real), x_real),
            Alt(StorageClass.TEXT, b.and_(b.not_(is_int), b.not_(is_real)), x_text))
    if v is None:
        pins.append(null)
    else:
        pins.append(b.not_(null))
        if isinstance(v, bool):
            v = int(v)
        if isinstance(v, int):
            pins += [is_int, b.eq(x_int, b.int(v))]
        elif isinstance(v, float):
            pins += [b.not_(is_int), is_real, b.eq(x_real, b.real(Fraction(v)))]
        else:
            pins += [b.not_(is_int), b.not_(is_real), b.eq(x_text, b.str(v))]
    return Value(null, alts)
