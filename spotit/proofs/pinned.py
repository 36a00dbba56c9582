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
equal, or both REAL and within a relative 1e-9 (REAL is modelled exactly,
SQLite rounds to doubles).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from functools import lru_cache

from pysmt.environment import reset_env
from pysmt.typing import BOOL, INT, REAL, STRING

from spotit import encodings  # noqa: F401
from spotit.encodings.builder import Builder
from spotit.encodings.database import SymbolicDatabase
from spotit.encodings.encoder import Encoder, EncoderOptions
from spotit.errors import SpotItError, Unsupported
from spotit.frontend.binder import bind
from spotit.frontend.parser import parse
from spotit.ir.types import StorageClass
from spotit.proofs.crashes import CRASH, crash_proof
from spotit.proofs.determined import Determined, determined_value
from spotit.schema import Schema, schema_from_ddl
from spotit.smt.printer import SmtLibWriter
from spotit.solvers import get_solver
from spotit.solvers.base import Status

REL_TOLERANCE = Fraction(1, 10**9)
EXACT_RANGE_SECONDS = 2.0
EVALUATED = "evaluated"  # an outcome's path when no solver was asked


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


def sqlite_value(case: PinnedCase) -> tuple[object, tuple]:
    """SQLite's value of the expression, and the row as SQLite stored it (column
    affinity applied: 0.0 in a NUMERIC column is stored as the integer 0)."""
    from spotit.frontend.now import pin_now

    conn = sqlite3.connect(":memory:")
    conn.execute(case.ddl)
    names = ", ".join(f'"{n}"' for n, _ in case.columns)
    conn.execute(f"INSERT INTO t ({names}) VALUES ({', '.join('?' for _ in case.row)})",
                 case.row)
    stored = conn.execute(f"SELECT {names} FROM t").fetchone()
    return conn.execute(pin_now(case.sql, case.now)).fetchone()[0], stored


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


@crash_proof(lambda detail: PinnedOutcome(CRASH, detail=detail))
def check_pinned(case: PinnedCase, solver: str = "z3", timeout: float = 20.0,
                 solver_free: bool = True) -> PinnedOutcome:
    """Thm 1 on ``case``; with ``solver_free``, without the solver where the pinned row
    determines the encoded value (the outcome's ``path`` says which way)."""
    try:
        expected, stored = sqlite_value(case)
    except (sqlite3.Error, OverflowError) as e:
        return PinnedOutcome("skipped", detail=f"SQLite raises: {e}")
    except SpotItError as e:  # SpotIt's parser rejects what SQLite ran
        return PinnedOutcome("unsupported", detail=str(e))
    if isinstance(expected, bytes):
        return PinnedOutcome("skipped", detail="blob result")
    schema = _schema(case.ddl, case.data)
    plan = bound_plan(case.sql, schema, expected)
    if isinstance(plan, PinnedOutcome):
        return plan
    reset_env()
    b = Builder()
    db = SymbolicDatabase(schema, 1, b)
    enc = Encoder(db, EncoderOptions(now=case.now))
    try:
        out = enc.rel(plan).rows[0].values[0]  # values are encoded when read
    except Unsupported as e:
        return PinnedOutcome("unsupported", expected, detail=str(e))
    try:
        pins = [db.present("t", 0), *_pins(b, db, schema, stored)]
    except ValueError as e:  # a stored value outside the column's domain
        return PinnedOutcome("skipped", expected, detail=str(e))
    o_null, o_cls = b.sym("out!null", BOOL), b.sym("out!cls", INT)
    o_int, o_real, o_text = b.sym("out!i", INT), b.sym("out!r", REAL), b.sym("out!s", STRING)
    code = {StorageClass.INTEGER: 1, StorageClass.REAL: 2, StorageClass.TEXT: 3}
    defs = [b.iff(o_null, out.null)]
    for a in out.alts:
        target = {StorageClass.INTEGER: o_int, StorageClass.REAL: o_real,
                  StorageClass.TEXT: o_text}[a.cls]
        defs.append(b.implies(b.and_(b.not_(out.null), a.guard),
                              b.and_(b.eq(o_cls, b.int(code[a.cls])), b.eq(target, a.term))))
    if out.alts:
        defs.append(b.implies(b.not_(out.null), b.or_(a.guard for a in out.alts)))
    core = [*db.constraints(enc), *enc.side, *pins, *defs]
    used = enc.used_definitions(core)
    if solver_free:
        # the assertions without defs: those only name out's parts for the solver
        known = determined_value(b, out, [*core[:len(core) - len(defs)], *used],
                                 enc.exactness, solver, min(timeout, EXACT_RANGE_SECONDS))
        if known is not None:
            return _judged(expected, known, enc.always_approximate)
    base = [*core, *used]
    is_expected = _equals(b, expected, o_null, o_cls, o_int, o_real, o_text)
    backend = get_solver(solver)
    res = backend.check(SmtLibWriter().script([*base, is_expected]), timeout=timeout)
    if res.status is Status.UNSAT:
        return PinnedOutcome("divergence", expected, None,
                             "the encoding cannot produce SQLite's value")
    if res.status is not Status.SAT:
        return PinnedOutcome("error", expected, detail=f"{res.status.value}: {res.reason}")
    # Exact where the encoding says it is: with every approximation in its exact
    # range, no other value may be possible.
    exact_range = b.and_(enc.exactness)
    if enc.always_approximate:
        return PinnedOutcome("ok", expected, expected, "admissible (over-approximated)", False)
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
        got = _decode(res.model or {})
        return PinnedOutcome("divergence", expected, got,
                             "the encoding also allows another value")
    if res.status is not Status.UNSAT:
        return PinnedOutcome("error", expected, detail=f"{res.status.value}: {res.reason}")
    return PinnedOutcome("ok", expected, expected, "exact", True)


def _judged(expected: object, known: Determined, always_approximate: bool) -> PinnedOutcome:
    """The outcome the solver path reaches when the encoding allows one value only."""
    if not _matches(expected, known):
        return PinnedOutcome("divergence", expected, known.value,
                             "the encoding cannot produce SQLite's value", path=EVALUATED)
    if always_approximate:
        return PinnedOutcome("ok", expected, expected, "admissible (over-approximated)", False,
                             EVALUATED)
    if not known.exact_range:
        return PinnedOutcome("ok", expected, expected,
                             "admissible (outside the exactly encoded range)", False, EVALUATED)
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
        tol = abs(f) * REL_TOLERANCE + Fraction(1, 10**12)
        return known.cls is StorageClass.REAL and f - tol <= known.value <= f + tol
    return known.cls is StorageClass.TEXT and known.value == str(v)


def _equals(b: Builder, v, o_null, o_cls, o_int, o_real, o_text):
    if v is None:
        return o_null
    nn = b.not_(o_null)
    if isinstance(v, bool):
        v = int(v)
    if isinstance(v, int):
        return b.and_(nn, b.eq(o_cls, b.int(1)), b.eq(o_int, b.int(v)))
    if isinstance(v, float):
        f = Fraction(v)
        tol = abs(f) * REL_TOLERANCE + Fraction(1, 10**12)
        return b.and_(nn, b.eq(o_cls, b.int(2)), b.le(b.real(f - tol), o_real),
                      b.le(o_real, b.real(f + tol)))
    return b.and_(nn, b.eq(o_cls, b.int(3)), b.eq(o_text, b.str(str(v))))


def _decode(model: dict):
    if model.get("out!null"):
        return None
    cls = model.get("out!cls")
    return {1: model.get("out!i"), 2: model.get("out!r"), 3: model.get("out!s")}.get(cls)


def _pins(b: Builder, db: SymbolicDatabase, schema: Schema, row: tuple, name: str = "t",
          index: int = 0):
    """Formulas fixing row ``index`` of table ``name`` to the stored values ``row``."""
    return [f for i, v in enumerate(row) for f in db.pin_cell(name, index, i, v)]

