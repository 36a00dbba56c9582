"""Window functions, checked on one point: a small concrete table, one window call,
the encoding with every cell pinned against SQLite's result (Thm 1 for relations).

For a table ``w`` with concrete rows and ``SELECT id, f(...) OVER (...) FROM w``,
the plan is encoded over a symbolic database pinned to the rows, and the solver
is asked:

- *admissible*: can every row's window value be SQLite's? (must be SAT: SQLite's
  result is one of the results the encoding allows, ties or not);
- *exact*: where no arbitrary choice matters on these rows (no two rows of a
  partition tie under the window's ORDER BY, or the function does not care) and
  no approximation bites, can any row's value be anything else? (must be UNSAT).

Where the pins leave no choice (no tie to break), every row's value is decided by
evaluating the formula on them, without the solver, as Thm 1 decides one value
(:mod:`spotit.proofs.determined`); ``tests/test_relations.py`` checks both paths
agree.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass

from pysmt.environment import reset_env
from pysmt.fnode import FNode

from spotit import encodings  # noqa: F401
from spotit.encodings.builder import Builder
from spotit.encodings.database import SymbolicDatabase
from spotit.encodings.encoder import Encoder, EncoderOptions
from spotit.encodings.rounding import SUM_ORDER, sums_exact
from spotit.errors import Unsupported
from spotit.proofs.crashes import CRASH, crash_proof
from spotit.proofs.determined import Residual, at_doubles, determined_value, propagated
from spotit.proofs.pinned import (
    EVALUATED,
    EXACT_RANGE_SECONDS,
    PinnedOutcome,
    _equals,
    _matches,
    _pins,
    bound_plan,
)
from spotit.schema import schema_from_ddl
from spotit.smt.printer import SmtLibWriter, collect_symbols
from spotit.solvers import get_solver
from spotit.solvers.base import SolveResult, Status

# the fuzz table of window queries: a key, partition and order columns with ties and
# NULLs, a collated text column, a value of any class
WINDOW_COLUMNS: tuple[tuple[str, str], ...] = (
    ("id", "INTEGER PRIMARY KEY"),
    ("p", "INTEGER"),
    ("o", "INTEGER"),
    ("r", "REAL"),
    ("s", "TEXT COLLATE NOCASE"),
    ("x", ""),
)


@dataclass(frozen=True)
class WindowCase:
    rows: tuple[tuple, ...]  # values for the columns after id (id is the row's index)
    call: str  # ``f(...) OVER (...)``

    @property
    def ddl(self) -> str:
        return WINDOW_DDL

    @property
    def sql(self) -> str:
        return f"SELECT id, {self.call} FROM w"


# a check's ``timeout`` is the solver's time for all its questions (up to three, each
# of which could take it all: a query on three rows took 7.5 s at 2 s a question); a
# question asked once it is spent still gets this long (an UNSAT, the finding, is quick)
MIN_CALL_SECONDS = 0.1
WINDOW_DDL = f"CREATE TABLE w ({', '.join(f'{n} {t}' for n, t in WINDOW_COLUMNS)});"


def stored_table(rows: tuple[tuple, ...]) -> tuple[sqlite3.Connection, list[tuple]]:
    """SQLite holding table ``w`` with ``rows`` (id = the row's index), and the rows as
    SQLite stored them (after the columns' affinities)."""
    conn = sqlite3.connect(":memory:")
    conn.execute(WINDOW_DDL)
    names = [n for n, _ in WINDOW_COLUMNS]
    conn.executemany(f"INSERT INTO w VALUES ({', '.join('?' for _ in names)})",
                     [(i, *row) for i, row in enumerate(rows)])
    return conn, conn.execute(f"SELECT {', '.join(names)} FROM w ORDER BY id").fetchall()


def table_pins(b: Builder, db: SymbolicDatabase, schema, stored: list[tuple], k: int) -> list:
    """The symbolic table ``w`` of k rows pinned to ``stored`` (later rows absent)."""
    pins = []
    for i in range(k):
        present = db.present("w", i)
        if i < len(stored):
            pins += [present, *_pins(b, db, schema, stored[i], "w", i)]
        else:
            pins.append(b.not_(present))
    return pins


def no_claim_on_inexact_sums(enc: Encoder, stored: list[tuple]) -> None:
    """Take the encoding as approximate everywhere on this table when it sums REALs
    (``rounding.SUM_ORDER``: the order SQLite adds in is not modelled) and a sum of
    its cells need not be exact in doubles (0.1 + 0.2 - 0.3): the exact range, where
    the sum is the exact one, is then no claim about SQLite's value (Thm 1's
    admissible half is still checked). A self-join repeats a cell once per row, and
    a summed expression (``o * 2``) may double it: each cell counts 2k times."""
    if SUM_ORDER in enc.unmodelled and not sums_exact((c for row in stored for c in row),
                                                      times=2 * len(stored)):
        enc.always_approximate = True


WindowOutcome = PinnedOutcome
"""Thm 1 on a window call has the same outcomes as on an expression."""


class Questions:
    """The solver's questions of one check: each on ``base`` and the formulas asked,
    within what is left of ``deadline``; with a ``residual``, on what the pins leave
    open of them, and where a model is the likely answer, first with the free texts
    pinned to '' (a model of that is a model)."""

    def __init__(self, base: list[FNode], solver: str, deadline: float,
                 residual: Residual | None):
        self.base, self.deadline, self.residual = base, deadline, residual
        self.backend = get_solver(solver)

    def __call__(self, *formulas: FNode, likely_sat: bool = False) -> SolveResult:
        asked = (self.residual(*formulas) if self.residual is not None
                 else [*self.base, *formulas])
        if likely_sat and self.residual is not None and (
                texts := self.residual.narrowed(asked)):
            res = self._check([*asked, *texts], share=2)
            if res.status is Status.SAT:
                return res
        return self._check(asked)

    def model(self, answer: dict | None) -> dict:
        """A model's values by name, the forced ones included."""
        return self.residual.model(answer) if self.residual is not None else dict(answer or {})

    def _check(self, asked: list[FNode], share: int = 1) -> SolveResult:
        left = (self.deadline - time.monotonic()) / share
        return self.backend.check(SmtLibWriter().script(asked),
                                  timeout=max(MIN_CALL_SECONDS, left))


@crash_proof(lambda detail: WindowOutcome(CRASH, detail=detail))
def check_window(case: WindowCase, solver: str = "z3", timeout: float = 20.0,
                 solver_free: bool = True) -> WindowOutcome:
    """Thm 1 on a window call; with ``solver_free``, without the solver where the pinned
    rows determine every value (the outcome's ``path`` says which way), else the
    solver on what they leave open (``Residual``). ``timeout``: the solver's seconds
    for the whole check."""
    conn, stored = stored_table(case.rows)
    try:
        expected = dict(conn.execute(case.sql).fetchall())
    except sqlite3.Error as e:
        return WindowOutcome("skipped", detail=f"SQLite raises: {e}")
    schema = schema_from_ddl(case.ddl)
    plan = bound_plan(case.sql, schema, expected)
    if isinstance(plan, PinnedOutcome):
        return plan
    reset_env()
    b = Builder()
    k = max(1, len(case.rows))
    db = SymbolicDatabase(schema, k, b)
    enc = Encoder(db, EncoderOptions())
    try:
        out = enc.rel(plan)
        values = [row.values[1] for row in out.rows]  # one output row per table row
    except Unsupported as e:
        return WindowOutcome("unsupported", expected, detail=str(e))
    if len(values) != k:
        return WindowOutcome("error", expected, detail="the plan does not keep the rows")
    no_claim_on_inexact_sums(enc, stored)
    pins = table_pins(b, db, schema, stored, k)
    deadline = time.monotonic() + timeout  # the solver's time for the whole check
    if solver_free:
        known = _evaluated(b, db, enc, pins, [expected[row[0]] for row in stored],
                           values[:len(stored)], solver, timeout)
        if known is not None:
            return known
    outs = []
    for i in range(len(stored)):
        v = values[i]
        sym = _OutSyms(b, i)
        defs = sym.define(b, v)
        pins += defs
        outs.append(_equals(b, expected[stored[i][0]], *sym.terms))
    core = [*db.constraints(enc), *enc.side, *pins]
    base = [*core, *enc.used_definitions(core)]
    all_expected = b.and_(outs)
    ask = Questions(base, solver, deadline,
                    Residual.of(b, base, enc.definitions) if solver_free else None)
    res = ask(all_expected, likely_sat=True)
    if res.status is Status.UNSAT:
        return WindowOutcome("divergence", expected, None,
                             "the encoding cannot produce SQLite's result")
    if res.status is not Status.SAT:
        return WindowOutcome("error", expected, detail=f"{res.status.value}: {res.reason}")
    if enc.always_approximate:
        return WindowOutcome("ok", expected, expected, "admissible (over-approximated)", False)
    settled = [*enc.determinism, *enc.exactness, *at_doubles(b, (enc,), base)]
    res = ask(*settled, likely_sat=True)
    if res.status is not Status.SAT:
        return WindowOutcome("ok", expected, expected, "admissible (a choice matters)", False)
    res = ask(*settled, b.not_(all_expected))
    if res.status is Status.SAT:
        model = ask.model(res.model)  # once, not per row
        got = {stored[i][0]: _decode_out(model, i) for i in range(len(stored))}
        return WindowOutcome("divergence", expected, got,
                             "the encoding also allows another result")
    if res.status is not Status.UNSAT:
        return WindowOutcome("error", expected, detail=f"{res.status.value}: {res.reason}")
    return WindowOutcome("ok", expected, expected, "exact")


def _evaluated(b: Builder, db: SymbolicDatabase, enc: Encoder, pins: list, expected: list,
               values: list, solver: str, timeout: float) -> WindowOutcome | None:
    """The outcome without the solver when the pins determine every row's window value
    (no tie to break, no free choice): as Thm 1 decides one value
    (:func:`spotit.proofs.determined.determined_value`), row by row."""
    core = [*db.constraints(enc), *enc.side, *pins]
    # the definitions the window values read too (a text's sign against a constant)
    read = frozenset(collect_symbols([t for v in values for a in v.alts
                                      for t in (v.null, a.guard, a.term)]))
    assertions = [*core, *enc.used_definitions(core, also=read)]
    # what the pins force, functional definitions included: implied, so a seed
    seed = propagated(b, assertions, definitions=enc.definitions)
    if seed is None:
        return None
    limit = min(timeout, EXACT_RANGE_SECONDS)
    known = []
    exactness = [*enc.exactness, *at_doubles(b, (enc,), assertions, seed)]
    for v in values:
        value = determined_value(b, v, assertions, exactness, solver, limit, seed=seed)
        if value is None:
            return None
        known.append(value)
    for want, value in zip(expected, known, strict=True):
        if not _matches(want, value):
            return WindowOutcome("divergence", want, value.value,
                                 "the encoding cannot produce SQLite's result", path=EVALUATED)
    if enc.always_approximate or not all(value.exact_range for value in known):
        return WindowOutcome("ok", expected, expected, "admissible (over-approximated)", False,
                             EVALUATED)
    return WindowOutcome("ok", expected, expected, "exact", True, EVALUATED)


class _OutSyms:
    """Symbols naming one row's window value (NULL flag, class, one term per class)."""

    def __init__(self, b: Builder, i: int):
        from pysmt.typing import BOOL, INT, REAL, STRING

        self.terms = (b.sym(f"out{i}!null", BOOL), b.sym(f"out{i}!cls", INT),
                      b.sym(f"out{i}!i", INT), b.sym(f"out{i}!r", REAL),
                      b.sym(f"out{i}!s", STRING))

    def define(self, b: Builder, v) -> list:
        from spotit.ir.types import StorageClass

        o_null, o_cls, o_int, o_real, o_text = self.terms
        code = {StorageClass.INTEGER: 1, StorageClass.REAL: 2, StorageClass.TEXT: 3}
        target = {StorageClass.INTEGER: o_int, StorageClass.REAL: o_real,
                  StorageClass.TEXT: o_text}
        defs = [b.iff(o_null, v.null)]
        for a in v.alts:
            defs.append(b.implies(b.and_(b.not_(v.null), a.guard),
                                  b.and_(b.eq(o_cls, b.int(code[a.cls])),
                                         b.eq(target[a.cls], a.term))))
        if v.alts:
            defs.append(b.implies(b.not_(v.null), b.or_(a.guard for a in v.alts)))
        return defs


def _decode_out(model: dict, i: int):
    if model.get(f"out{i}!null"):
        return None
    return {1: model.get(f"out{i}!i"), 2: model.get(f"out{i}!r"),
            3: model.get(f"out{i}!s")}.get(model.get(f"out{i}!cls"))
