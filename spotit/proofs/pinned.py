"""Thm 1, checked on one point: the encoding of an expression, with its input row
pinned to concrete values, against SQLite's value of the same expression.

For a table ``t`` with one concrete row σ and an expression e over its columns,
SpotIt parses and binds ``SELECT e FROM t`` as usual, encodes it over a
symbolic database whose cells are pinned to σ, and asks the solver two
questions about the encoded result v:

- *admissible*: can v be SQLite's value? (must be SAT, for every encoding: an
  over-approximation must still allow the true value, or proofs are unsound);
- *exact*: can v be anything else? (must be UNSAT when every over-approximation
  used is within the range where the encoding declared itself exact).

The row is pinned as SQLite stored it (column affinity applied).

Values match when both are NULL, or both INTEGER and equal, or both TEXT and
equal, or both REAL and, for admissibility, the same double (the encoding rounds
REAL arithmetic as doubles do: spotit/encodings/rounding.py), for exactness within a
relative 1e-9 (in the exact range every rounding is the identity, so the value is
the exact rational).
"""

from __future__ import annotations

import math
import sqlite3
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from fractions import Fraction
from functools import lru_cache

from pysmt.environment import reset_env
from pysmt.typing import BOOL, INT, REAL, STRING

from spotit import encodings  # noqa: F401
from spotit.encodings.builder import Builder
from spotit.encodings.database import SymbolicDatabase
from spotit.encodings.encoder import Encoder, EncoderOptions
from spotit.encodings.jsonfns import json_names
from spotit.errors import SpotItError, Unsupported
from spotit.frontend.binder import bind
from spotit.frontend.parser import parse
from spotit.ir.types import StorageClass
from spotit.proofs.coverage import operators_of
from spotit.proofs.crashes import CRASH, crash_detail
from spotit.proofs.determined import (
    Determined,
    Settled,
    at_doubles,
    completion,
    determined_value,
    forced,
)
from spotit.schema import Schema, schema_from_ddl
from spotit.smt.evaluate import Evaluator
from spotit.smt.printer import SmtLibWriter, collect_symbols
from spotit.solvers import get_solver
from spotit.solvers.base import Status

REL_TOLERANCE = Fraction(1, 10**9)
EXACT_RANGE_SECONDS = 2.0
EVALUATED = "evaluated"  # an outcome's path when no solver was asked
# decided with fresh symbols computed in Python: SQLite's value is admissible (the
# soundness half of Thm 1); the exactness half is checked on 1 case in WITNESS_RECHECK
WITNESSED = "admissible (witnesses computed; exactness checked on a sample)"
WITNESS_RECHECK = 16
# the solver's time for the exactness half of a sampled witnessed case: admissible
# already, a slow answer only leaves exactness unchecked (at the case's own timeout
# these few cases took half of the fuzz's expression time)
RECHECK_SECONDS = 1.0
HARD_ROW_SECONDS = 0.5  # per solver call on a row the solver could not complete


@dataclass(frozen=True)
class PinnedCase:
    """A one-row table and an expression over its columns (generated columns and
    CHECK constraints included: SQLite computes and enforces them on the row)."""

    columns: tuple[tuple[str, str], ...]  # (name, declared type): the stored columns
    row: tuple
    expr: str
    now: datetime = field(default=datetime(2024, 2, 29, 13, 45, 30))
    generated: tuple[tuple[str, str], ...] = ()  # (name, "TYPE AS (expression)")
    checks: tuple[str, ...] = ()
    data: str = "declared"  # the row's cells as --data assumes them (Schema.with_data)

    @property
    def ddl(self) -> str:
        parts = [f'"{n}" {t}' for n, t in (*self.columns, *self.generated)]
        parts += [f"CHECK ({c})" for c in self.checks]
        return f"CREATE TABLE t ({', '.join(parts)});"

    @property
    def sql(self) -> str:
        return f"SELECT {self.expr} FROM t"


@dataclass(frozen=True)
class PinnedOutcome:
    kind: str  # ok | divergence | crash | unsupported | skipped | error
    sqlite_value: object = None
    encoded_value: object = None
    detail: str = ""
    exact: bool = True
    path: str = "solver"  # "evaluated": decided without the solver (spotit.proofs.determined)
    expr: str = ""  # the expression checked (set by check_pinned_batch)
    operators: frozenset[str] = frozenset()  # what its plan uses (spotit.proofs.coverage)
    row: tuple | None = None  # the row checked (set by check_pinned_rows)


@lru_cache(maxsize=64)
def _schema(ddl: str, data: str) -> Schema:
    """The fuzz table is the same from case to case: load its DDL once (Schema is frozen)."""
    return schema_from_ddl(ddl).with_data(data)


def bound_plan(sql: str, schema: Schema, expected: object):
    """The bound plan of a harness query, or the outcome saying why there is none."""
    try:
        return bind(parse(sql), schema)
    except Unsupported as e:
        return PinnedOutcome("unsupported", expected, detail=str(e))
    except SpotItError as e:
        return PinnedOutcome("error", expected, detail=str(e))


def check_pinned(case: PinnedCase, solver: str = "z3", timeout: float = 20.0,
                 solver_free: bool = True) -> PinnedOutcome:
    """Thm 1 on ``case``; with ``solver_free``, without the solver where the pinned row
    determines the encoded value (the outcome's ``path`` says which way)."""
    return check_pinned_batch(case, (case.expr,), solver, timeout, solver_free)[0]


def check_pinned_batch(case: PinnedCase, exprs: Sequence[str], solver: str = "z3",
                       timeout: float = 20.0, solver_free: bool = True
                       ) -> list[PinnedOutcome]:
    """Thm 1 for each of ``exprs`` on ``case``'s row (``case.expr`` is ignored): one
    outcome per expression, exactly as ``check_pinned`` would give it alone.

    The row's symbolic table, its pins and what the pins force are built once and
    shared (most of a one-expression check's time); each expression gets its own
    encoder, so no side constraint of one reaches another. A crash in one
    expression is that expression's outcome."""
    try:
        row = _PinnedRow(case, solver, solver_free)
    except sqlite3.IntegrityError as e:  # SQLite refuses the row (a CHECK, NOT NULL)
        return [replace(refused_row(e), expr=x) for x in exprs]
    except Exception as e:
        return [PinnedOutcome(CRASH, detail=crash_detail(e), expr=x) for x in exprs]
    out = []
    for expr in exprs:
        try:
            outcome = row.check(expr, timeout, solver_free)
        except Exception as e:
            outcome = PinnedOutcome(CRASH, detail=crash_detail(e))
        out.append(replace(outcome, expr=expr))
    return out


def refused_row(error: sqlite3.IntegrityError, path: str = "solver") -> PinnedOutcome:
    """The outcome of every expression on a row SQLite refuses to store: none is
    checked there."""
    return PinnedOutcome("skipped", detail=f"SQLite refuses the row: {error}", path=path)


class _PinnedRow:
    """The one-row table of a case, encoded and pinned once for many expressions."""

    def __init__(self, case: PinnedCase, solver: str, solver_free: bool = True):
        self.case, self.solver = case, solver
        self.schema = _schema(case.ddl, case.data)
        self.conn, self.stored = _sqlite_row(case)
        reset_env()
        b = self.b = Builder()
        self.db = SymbolicDatabase(self.schema, 1, b)
        enc = Encoder(self.db, EncoderOptions(now=case.now))
        try:
            pins = [self.db.present("t", 0), *_pins(b, self.db, self.schema, self.stored)]
            self.unpinnable = None
        except ValueError as e:  # a stored value outside the column's domain
            pins, self.unpinnable = [], str(e)
        # every cell exists now (the pins made them): the table's constraints are final
        self.base = [*self.db.constraints(enc), *enc.side, *pins]
        self.base += enc.used_definitions(self.base)
        self.base_exactness = list(enc.exactness)
        self.base_encoder = enc
        self.base_definitions = list(enc.definitions)
        self.base_symbols = frozenset(collect_symbols(self.base))
        self.base_approximate = enc.always_approximate
        self.domain_size = len(self.db.domain_constraints)
        self.seed = forced(b, self.base) if solver_free else None
        self.completion: dict = {}
        self.settled: Settled | None = None
        self.hard = False
        if self.seed is not None:
            # what the pins leave of the shared assertions (the payload of a NULL cell)
            ev = Evaluator(b.m.env, self.seed)
            self.base_rest = [r for f in self.base if not (r := ev.simplify(f)).is_true()]
            # a model inside the exact range where there is one: it then also answers
            # "is this row in the exact range?" without the solver, most of the time
            ranged = [r for f in self.base_exactness if not (r := ev.simplify(f)).is_true()]
            if ranged:
                self.completion = completion(b, [*self.base_rest, *ranged], solver,
                                             EXACT_RANGE_SECONDS, self.base_definitions)
            if not self.completion:
                self.completion = completion(b, self.base_rest, solver, EXACT_RANGE_SECONDS,
                                             self.base_definitions)
            # what the completion satisfies is not evaluated again for every expression
            self.settled = Settled.of(b, self.base_rest, {**self.completion, **self.seed})
            # leftovers neither Python nor the solver could complete: each expression's
            # solver calls will mostly run out of time too (a row of twelve took 34 s);
            # they get HARD_ROW_SECONDS (an UNSAT, the finding, comes quickly)
            self.hard = bool(self.base_rest) and not self.completion

    def check(self, expr: str, timeout: float, solver_free: bool) -> PinnedOutcome:
        if self.hard:
            timeout = min(timeout, HARD_ROW_SECONDS)
        expected = sqlite_value(self.conn, expr, self.case.now)
        if isinstance(expected, PinnedOutcome):
            return expected
        plan = bound_plan(f"SELECT {expr} FROM t", self.schema, expected)
        if isinstance(plan, PinnedOutcome):
            return plan
        return replace(self._checked(expr, plan, expected, timeout, solver_free),
                       operators=frozenset(operators_of(plan, expr)))

    def _checked(self, expr: str, plan, expected: object, timeout: float,
                 solver_free: bool) -> PinnedOutcome:
        b = self.b
        enc = Encoder(self.db, EncoderOptions(now=self.case.now, json_names=json_names(plan)))
        try:
            out = enc.rel(plan).rows[0].values[0]  # values are encoded when read
        except Unsupported as e:
            return PinnedOutcome("unsupported", expected, detail=str(e))
        if self.unpinnable is not None:
            return PinnedOutcome("skipped", expected, detail=self.unpinnable)
        o_null, o_cls = b.fresh("out!null", BOOL), b.fresh("out!cls", INT)
        o_int, o_real = b.fresh("out!i", INT), b.fresh("out!r", REAL)
        o_text = b.fresh("out!s", STRING)
        code = {StorageClass.INTEGER: 1, StorageClass.REAL: 2, StorageClass.TEXT: 3}
        defs = [b.iff(o_null, out.null)]
        for a in out.alts:
            target = {StorageClass.INTEGER: o_int, StorageClass.REAL: o_real,
                      StorageClass.TEXT: o_text}[a.cls]
            defs.append(b.implies(b.and_(b.not_(out.null), a.guard),
                                  b.and_(b.eq(o_cls, b.int(code[a.cls])), b.eq(target, a.term))))
        if out.alts:
            defs.append(b.implies(b.not_(out.null), b.or_(a.guard for a in out.alts)))
        # cells the expression made (a rowid): their domains, as db.constraints has them
        own = [*self.db.domain_constraints[self.domain_size:], *enc.side]
        own += enc.used_definitions([*own, *defs], also=self.base_symbols)
        # after used_definitions: a definition the expression pulls in records its
        # approximation (UPPER of long text) only then
        exactness = [*self.base_exactness, *enc.exactness]
        exactness += at_doubles(b, (self.base_encoder, enc),
                                own if self.seed is not None else [*self.base, *own], self.seed)
        approximate = self.base_approximate or enc.always_approximate
        if solver_free and self.seed is not None:
            # the assertions without defs: those only name out's parts for the solver
            shared = [] if self.settled is not None else self.base_rest
            known = determined_value(b, out, [*shared, *own], exactness, self.solver,
                                     min(timeout, EXACT_RANGE_SECONDS), seed=self.seed,
                                     completion=self.completion,
                                     witnesses=[*self.base_definitions, *enc.definitions],
                                     ask_range=_rechecked(expr, self.case.row),
                                     settled=self.settled)
            # a witnessed value is one admissible value, not the only one: a mismatch
            # (or a sampled case) is for the solver to judge
            if known is not None and not (known.witnessed and (
                    _rechecked(expr, self.case.row) or not _matches(expected, known))):
                return _judged(expected, known, approximate)
            # a sampled witnessed case: admissible already (the witnesses are a model
            # with SQLite's value); the solver has the exactness half to answer
            shown = known is not None and known.witnessed and _matches(expected, known)
            if shown:
                timeout = min(timeout, RECHECK_SECONDS)
        else:
            shown = False
        outs = (o_null, o_cls, o_int, o_real, o_text)
        # admissible: SQLite's very double (the encoding rounds as doubles do); exact:
        # with every rounding the identity, the exact rational within REL_TOLERANCE
        is_sqlites = _equals(b, expected, *outs, tolerance=False)
        is_expected = _equals(b, expected, *outs)
        exact_range = b.and_(exactness)
        base = [*self.base, *own, *defs]
        backend = get_solver(self.solver)
        names = {"null": o_null, "cls": o_cls, 1: o_int, 2: o_real, 3: o_text}
        if not shown:
            res = backend.check(SmtLibWriter().script([*base, is_sqlites]), timeout=timeout)
            if res.status is Status.UNSAT:
                return PinnedOutcome("divergence", expected, None,
                                     "the encoding cannot produce SQLite's value")
            if res.status is not Status.SAT:
                return PinnedOutcome("error", expected,
                                     detail=f"{res.status.value}: {res.reason}")
        # Exact where the encoding says it is: with every approximation in its exact
        # range, no other value may be possible.
        if approximate:
            return PinnedOutcome("ok", expected, expected, "admissible (over-approximated)",
                                 False)
        if not exact_range.is_true():
            # whether this row is in the exact range at all: a quick look (a slow answer
            # only means the exactness claim is not checked on this case)
            res = backend.check(SmtLibWriter().script([*base, exact_range]),
                                timeout=min(timeout, EXACT_RANGE_SECONDS))
            if res.status is Status.UNSAT:
                return PinnedOutcome("ok", expected, expected,
                                     "admissible (outside the exactly encoded range)", False)
            if res.status is not Status.SAT:
                return PinnedOutcome("ok", expected, expected,
                                     f"admissible (exactness not checked: {res.status.value})",
                                     False)
        res = backend.check(SmtLibWriter().script([*base, exact_range, b.not_(is_expected)]),
                            timeout=timeout)
        if res.status is Status.SAT:
            got = _decode(res.model or {}, names)
            return PinnedOutcome("divergence", expected, got,
                                 "the encoding also allows another value")
        if res.status is not Status.UNSAT:
            if shown:  # the admissible half stands; the exactness half is undecided
                return PinnedOutcome("ok", expected, expected,
                                     f"admissible (exactness not checked: {res.status.value})",
                                     False)
            return PinnedOutcome("error", expected, detail=f"{res.status.value}: {res.reason}")
        return PinnedOutcome("ok", expected, expected, "exact", True)

def sqlite_value(conn: sqlite3.Connection, expr: str, now: datetime) -> object:
    """SQLite's value of ``expr`` on the row ``conn`` holds, or the outcome that says
    why there is nothing to compare it with."""
    from spotit.frontend.now import pin_now

    try:
        expected = conn.execute(pin_now(f"SELECT {expr} FROM t", now)).fetchone()[0]
    except (sqlite3.Error, OverflowError) as e:
        return PinnedOutcome("skipped", detail=f"SQLite raises: {e}")
    except SpotItError as e:  # SpotIt's parser rejects what SQLite ran
        return PinnedOutcome("unsupported", detail=str(e))
    if isinstance(expected, bytes):
        return PinnedOutcome("skipped", detail="blob result")
    if isinstance(expected, float) and not math.isfinite(expected):
        # '1e400' + 0: overflow to infinity is not modelled (docs/semantics.md)
        return PinnedOutcome("skipped", detail="SQLite's value is infinite")
    return expected


def _sqlite_row(case: PinnedCase) -> tuple[sqlite3.Connection, tuple]:
    """A connection holding the case's table with its one row, and the row as SQLite
    stored it (column affinity applied: 0.0 in a NUMERIC column is the integer 0)."""
    conn = sqlite3.connect(":memory:")
    conn.execute(case.ddl)
    names = ", ".join(f'"{n}"' for n, _ in case.columns)
    conn.execute(f"INSERT INTO t ({names}) VALUES ({', '.join('?' for _ in case.row)})",
                 case.row)
    return conn, conn.execute(f"SELECT {names} FROM t").fetchone()


def _rechecked(expr: str, row: tuple, every: int = WITNESS_RECHECK) -> bool:
    """Whether a case decided with computed witnesses also goes to the solver path,
    which checks what the witnesses cannot: that no other value is allowed; and
    whether a determined case the pins do not put in the exact range in Python asks
    the solver whether it is (a fixed share of the cases, chosen by expression and
    row so that a rerun chooses the same and every expression is rechecked on some
    rows). The admissible half, soundness, is checked on every case."""
    return zlib.crc32(f"{expr}\x00{row!r}".encode()) % every == 0


def _judged(expected: object, known: Determined, always_approximate: bool) -> PinnedOutcome:
    """The outcome the solver path reaches when the encoding allows one value only."""
    if not _matches(expected, known):
        return PinnedOutcome("divergence", expected, known.value,
                             "the encoding cannot produce SQLite's value", path=EVALUATED)
    if always_approximate:
        return PinnedOutcome("ok", expected, expected, "admissible (over-approximated)", False,
                             EVALUATED)
    if known.exact_range is None:  # the solver not asked (a sampled-out case) or late
        return PinnedOutcome("ok", expected, expected, "admissible (exactness not checked)",
                             False, EVALUATED)
    if not known.exact_range:
        return PinnedOutcome("ok", expected, expected,
                             "admissible (outside the exactly encoded range)", False, EVALUATED)
    if known.witnessed:
        return PinnedOutcome("ok", expected, expected, WITNESSED, False, EVALUATED)
    return PinnedOutcome("ok", expected, expected, "exact", True, EVALUATED)


def _matches(v: object, known: Determined) -> bool:
    """``_equals`` on a known value: SQLite's value ``v`` and the encoded one agree."""
    if v is None or known.cls is None:
        return v is None and known.cls is None
    if isinstance(v, bool):
        v = int(v)
    if isinstance(v, int):
        return known.cls is StorageClass.INTEGER and known.value == v
    if isinstance(v, float):
        f = Fraction(v)
        # a witnessed value is the doubles' own (admissibility): no tolerance
        tol = 0 if known.witnessed else abs(f) * REL_TOLERANCE + Fraction(1, 10**12)
        return known.cls is StorageClass.REAL and f - tol <= known.value <= f + tol
    return known.cls is StorageClass.TEXT and known.value == str(v)


def _equals(b: Builder, v, o_null, o_cls, o_int, o_real, o_text, tolerance: bool = True):
    if v is None:
        return o_null
    nn = b.not_(o_null)
    if isinstance(v, bool):
        v = int(v)
    if isinstance(v, int):
        return b.and_(nn, b.eq(o_cls, b.int(1)), b.eq(o_int, b.int(v)))
    if isinstance(v, float):
        f = Fraction(v)
        tol = abs(f) * REL_TOLERANCE + Fraction(1, 10**12) if tolerance else 0
        return b.and_(nn, b.eq(o_cls, b.int(2)), b.le(b.real(f - tol), o_real),
                      b.le(o_real, b.real(f + tol)))
    return b.and_(nn, b.eq(o_cls, b.int(3)), b.eq(o_text, b.str(str(v))))


def _decode(model: dict, names: dict):
    """The value a model gives the out!* symbols ``names`` holds."""
    if model.get(names["null"].symbol_name()):
        return None
    cls = model.get(names["cls"].symbol_name())
    return model.get(names[cls].symbol_name()) if cls in (1, 2, 3) else None


def _pins(b: Builder, db: SymbolicDatabase, schema: Schema, row: tuple, name: str = "t",
          index: int = 0):
    """Formulas fixing row ``index`` of table ``name`` to the stored values ``row``."""
    return [f for i, v in enumerate(row) for f in db.pin_cell(name, index, i, v)]

