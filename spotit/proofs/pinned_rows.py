"""Thm 1 on many rows of one table: each expression encoded and compiled once.

:func:`spotit.proofs.pinned.check_pinned_batch` builds a row's symbolic table and
encodes every expression again for each row; with the value determined by the
pins, most of a check's time is that encoding and the pysmt walks that evaluate
it. The encoding does not depend on the row (the pins are assertions beside
it), so here the table and each expression are encoded once over one symbolic
row and compiled (:class:`spotit.smt.compiled.Program`), and every row's pins
are values the compiled formulas run on.

A (row, expression) is decided here only as :func:`spotit.proofs.determined.
determined_value` decides it without a solver, on a narrower footing: the value
is a constant under what the pins force (else the value of the model below:
"witnessed", one admissible value), and one total assignment (the forced values,
the witnesses, a solver model of the table's constraints for what the pins leave
free, the functions read as SQLite's, a constant function for the others) makes
every assertion TRUE, so a model exists. Everything else (a free choice, a value
only the solver finds) goes to ``check_pinned_batch``, on one row per expression;
a test checks the two paths agree.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import partial
from typing import Any

from pysmt.environment import reset_env
from pysmt.fnode import FNode

from spotit import encodings  # noqa: F401
from spotit.encodings.builder import Builder
from spotit.encodings.database import SymbolicDatabase
from spotit.encodings.encoder import Definition, Encoder, EncoderOptions
from spotit.encodings.rounding import sqlite_reading
from spotit.errors import Unsupported
from spotit.ir.types import StorageClass
from spotit.proofs.coverage import operators_of
from spotit.proofs.crashes import CRASH, crash_detail
from spotit.proofs.determined import (
    DEFINITION_ROUNDS,
    Determined,
    _conjuncts,
    _definition,
    _literal,
    completion,
)
from spotit.proofs.pinned import (
    PinnedCase,
    PinnedOutcome,
    _judged,
    _matches,
    _rechecked,
    _schema,
    _sqlite_row,
    bound_plan,
    check_pinned_batch,
    refused_row,
    sqlite_value,
)
from spotit.smt.compiled import UNKNOWN, NotCompilable, Program, plain_value, python_value
from spotit.smt.walkers import collect_symbols

EVALUATED_ROWS = "evaluated-rows"  # an outcome's path: decided by a compiled formula
COMPLETION_SECONDS = 2.0
SOLVED_ELSEWHERE = "left to the solver, which judged this expression on another row of the case"
# a witnessed value's exactness half goes to the solver on 1 case in ROWS_RECHECK (a
# subset of pinned._rechecked's 1 in 16): at this path's rate that is as many solver
# checks a minute as the batch path made, and they would otherwise take most of the time
ROWS_RECHECK = 64
_COMPLETIONS: dict[tuple, dict[str, Any]] = {}  # _Table's model, by table (see there)


def check_pinned_rows(case: PinnedCase, rows: Sequence[tuple], exprs: Sequence[str],
                      solver: str = "z3", timeout: float = 20.0,
                      declined: Counter[str] | None = None) -> list[list[PinnedOutcome]]:
    """Thm 1 for each of ``exprs`` on each of ``rows`` of ``case``'s table
    (``case.row`` and ``case.expr`` are ignored): ``out[i][j]`` is expression j on
    row i. Decided here, it is the outcome ``check_pinned_batch`` gives (a test checks
    they agree); otherwise ``check_pinned_batch``'s own, on one row per expression,
    and ``skipped`` (SOLVED_ELSEWHERE) on its other rows. ``declined`` counts why
    checks were not decided here (one per check)."""
    decided: dict[tuple[int, int], PinnedOutcome] = {}
    why: Counter[str] = Counter()
    table = _attempt(lambda: _Table(case, solver))
    compiled = [_attempt(lambda x=x: table.compile(x)) if isinstance(table, _Table)
                else table for x in exprs]
    for i, row in enumerate(rows):
        state = _attempt(lambda row=row: table.row(row)) if isinstance(table, _Table) else table
        if isinstance(state, PinnedOutcome):  # SQLite refuses the row: nothing to check
            decided.update(((i, j), replace(state, expr=x)) for j, x in enumerate(exprs))
            continue
        for j, c in enumerate(compiled):
            if isinstance(c, str) or isinstance(state, str):
                why[c if isinstance(c, str) else state] += 1
                continue
            try:
                got = table.decide(state, c)
            except Exception as e:  # the compiled evaluation itself: a finding
                got = PinnedOutcome(CRASH, detail=crash_detail(e), path=EVALUATED_ROWS)
            if isinstance(got, str):
                why[got] += 1
            else:
                decided[(i, j)] = replace(got, expr=exprs[j])
    if declined is not None:
        declined.update(why)
    # each expression goes to the solver on one row of the case: the rows it cannot
    # decide here are mostly alike (a free reading, a text only the solver decomposes),
    # and a case of many rows would spend most of its time there. The row chosen is one
    # where most expressions need the solver: each such row costs a table of its own.
    need: dict[int, list[int]] = {}  # expression -> the rows it needs the solver on
    for i, j in ((i, j) for i in range(len(rows)) for j in range(len(exprs))):
        if (i, j) not in decided:
            need.setdefault(j, []).append(i)
    load = Counter(i for rs in need.values() for i in rs)
    chosen = {j: max(rs, key=lambda i: (load[i], -i)) for j, rs in need.items()}
    out = []
    for i, row in enumerate(rows):
        todo = [exprs[j] for j in sorted(chosen) if chosen[j] == i]
        done = dict(zip(todo, check_pinned_batch(replace(case, row=row, expr=todo[0]), todo,
                                                 solver, timeout) if todo else (),
                        strict=True))
        out.append([replace(decided.get((i, j)) or done.get(x) or PinnedOutcome(
            "skipped", detail=SOLVED_ELSEWHERE, expr=x), row=row)
            for j, x in enumerate(exprs)])
    return out


def _attempt(make):
    """What ``make`` returns, or why it failed: what fails while encoding the table or
    an expression, or pinning a row, the batch path meets again and reports as that
    case's crash."""
    try:
        return make()
    except Exception as e:
        return f"{type(e).__name__} while encoding"


@dataclass
class _Compiled:
    """One expression's encoding over the symbolic row, compiled."""

    expr: str
    operators: frozenset[str]
    program: Program
    alts: tuple[StorageClass, ...]  # the classes of the value's alternatives, in order
    n_assertions: int  # after the value's 1 + 2 * len(alts) roots
    row_definitions: tuple[Definition, ...]  # the table's, asserted on rows that use them
    n_exact: int  # the exactness conditions after those
    literals: dict[FNode, Any]  # what the assertions force whatever the row
    free: dict[FNode, Any]  # the plainest value of every symbol: a total assignment
    definitions: dict[FNode, list[FNode]]  # symbol = term conjuncts of the assertions
    witnesses: tuple[Definition, ...]  # definitions whose symbols Python can compute
    inputs: Program  # what the witnesses' solve functions ask the value of
    input_free: dict[FNode, Any]  # ``free`` without the witnesses' symbols
    approximate: bool  # always approximate (without the row's definitions)


@dataclass
class _Refused:
    """An expression outside the fragment: its outcome on every row SQLite computes."""

    expr: str
    outcome: PinnedOutcome


@dataclass
class _Row:
    row: tuple
    conn: sqlite3.Connection
    values: dict[FNode, Any]  # what the pins force
    used: frozenset[int]  # indices of the table's definitions the row's pins need


class _Table:
    """The case's table with one symbolic row; its constraints without the pins."""

    def __init__(self, case: PinnedCase, solver: str = "z3"):
        self.case = case
        self.schema = _schema(case.ddl, case.data)
        reset_env()
        b = self.b = Builder()
        self.db = SymbolicDatabase(self.schema, 1, b)
        enc = self.enc = Encoder(self.db, EncoderOptions(now=case.now))
        self.present = self.db.present("t", 0)
        self.cells = [self.db.cell("t", 0, i) for i in range(len(case.columns))]
        self.base = [*self.db.constraints(enc), *enc.side, self.present]
        self.base_symbols = frozenset(collect_symbols(self.base))
        self.domain_size = len(self.db.domain_constraints)
        self.definitions = list(enc.definitions)
        self.exactness = list(enc.exactness)
        self.approximate = enc.always_approximate
        # one model of the table's constraints (one solver call per table at most): the
        # values of what a row's pins leave free (a NULL cell's payload), which the
        # plainest values of their sorts would not satisfy (a month is 1 to 12)
        # the table is the same from case to case (its DDL, data level and now): its
        # model is found once a process, by symbol name (a case resets pysmt's
        # environment). Any model will do: decide checks every assertion on it anyway
        key = (case.ddl, case.data, case.now, solver)
        named = _COMPLETIONS.get(key)
        if named is None:
            named = {s.symbol_name(): python_value(v) for s, v in completion(
                b, self.base, solver, COMPLETION_SECONDS, self.definitions).items()}
            if named:  # none found (a timeout): the next case asks again
                _COMPLETIONS[key] = named
        symbols = {s.symbol_name(): s for s in [
            *collect_symbols([*self.base, *(d.constraint for d in self.definitions)]),
            *(s for d in self.definitions for s in d.symbols)]}
        self.completion = {symbols[n]: v for n, v in named.items() if n in symbols}

    def compile(self, expr: str) -> _Compiled | _Refused | str:
        """``expr`` encoded and compiled, or why only the batch path can say what
        happens (unsupported, a formula the compiler has no rule for)."""
        b = self.b
        plan = bound_plan(f"SELECT {expr} FROM t", self.schema, None)
        if isinstance(plan, PinnedOutcome):
            return _Refused(expr, plan)
        enc = Encoder(self.db, EncoderOptions(now=self.case.now))
        try:
            out = enc.rel(plan).rows[0].values[0]
        except Unsupported as e:
            return _Refused(expr, PinnedOutcome("unsupported", detail=str(e), operators=frozenset(
                operators_of(plan, expr))))
        own = [*self.db.domain_constraints[self.domain_size:], *enc.side]
        value_parts = [out.null, *(x for a in out.alts for x in (a.guard, a.term))]
        own += enc.used_definitions([*own, *value_parts], also=self.base_symbols)
        assertions = [*self.base, *own]
        literals: dict[FNode, Any] = {}
        definitions: dict[FNode, list[FNode]] = {}
        for f in _conjuncts(assertions):
            pair = _literal(b, f)
            if pair is not None:
                sym, const = pair
                v = python_value(const)
                if literals.setdefault(sym, v) != v:
                    return "a symbol forced to two values"
                continue
            st = _definition(f)
            if st is not None:
                definitions.setdefault(st[0], []).append(st[1])
        for s in literals:
            definitions.pop(s, None)
        row_definitions = tuple(self.definitions)
        exactness = [*self.exactness, *enc.exactness]
        roots = [*value_parts, *assertions, *(d.constraint for d in row_definitions),
                 *exactness, *(d.exact_when if d.approximation and d.exact_when is not None
                               else b.TRUE for d in row_definitions)]
        # a run on what the pins force (and the witnesses' plain run) reads the value
        # and the exactness conditions only, not the assertions: those run first
        first = 1 + 2 * len(out.alts)
        start = first + len(assertions) + len(row_definitions)
        try:
            program = Program(roots, definitions, [*range(first), *range(start, len(roots))])
        except NotCompilable as e:
            return f"not compiled: {e}"
        free = {s: self.completion.get(s, plain_value(s)) for s in program.symbols}
        symbols = set(program.symbols)
        witnesses = tuple(d for d in [*self.definitions, *enc.definitions]
                          if d.solve is not None and any(s in symbols for s in d.symbols))
        asked: list[FNode] = []  # a solve function asks for its inputs, and gives up
        for d in witnesses:
            d.solve(lambda f: asked.append(f) or f)
        try:
            inputs = Program(list(dict.fromkeys(asked)), definitions)
        except NotCompilable as e:
            return f"not compiled: {e}"
        return _Compiled(expr, frozenset(operators_of(plan, expr)), program,
                         tuple(a.cls for a in out.alts), len(assertions), row_definitions,
                         len(exactness), literals, free, definitions, witnesses, inputs,
                         {s: v for s, v in free.items()
                          if not any(s in d.symbols for d in witnesses)},
                         self.approximate or enc.always_approximate)

    def row(self, row: tuple) -> _Row | PinnedOutcome | str:
        """A row's pins as values; the batch path's outcome where SQLite refuses the
        row (a CHECK, NOT NULL: no expression is checked on it, and it must not take
        an expression's one solver check from another row); or why the batch path
        must take the row (a value outside its column's domain, a pin that is not a
        literal)."""
        case = replace(self.case, row=row)
        try:
            conn, stored = _sqlite_row(case)
        except sqlite3.IntegrityError as e:
            return replace(refused_row(e, EVALUATED_ROWS), row=row)
        except sqlite3.Error:
            return "SQLite cannot store the row"
        values: dict[FNode, Any] = {self.present: True}
        try:
            pins = [f for i, v in enumerate(stored)
                    for f in self.db.pin_cell("t", 0, i, v)]
        except ValueError:
            return "a value outside its column's domain"
        for f in _conjuncts(pins):
            if f.is_true():
                continue
            pair = _literal(self.b, f)
            if pair is None:
                return "a pin that is not a literal"
            sym, const = pair
            v = python_value(const)
            if values.setdefault(sym, v) != v:
                return "a symbol pinned to two values"
        needed = self.enc.needed_definitions(pins, also=self.base_symbols)
        used = frozenset(i for i, d in enumerate(self.definitions) if d in needed)
        return _Row(row, conn, values, used)

    def _witnessed(self, c: _Compiled, values: dict[FNode, Any]) -> dict[FNode, Any]:
        """``values`` and what the definitions' ``solve`` computes, in rounds (as
        ``determined.with_witnesses``): first from what the pins force (the value then
        depends on the row alone, as SQLite's does), then from the completion too: a
        candidate model, which the caller checks."""
        if not c.witnesses:
            return values
        values = dict(values)
        self._witness_rounds(c, values, {}, False)
        self._witness_rounds(c, values, c.input_free, True)
        return values

    def _witness_rounds(self, c: _Compiled, values: dict[FNode, Any],
                        free: dict[FNode, Any], total: bool) -> None:
        for _ in range(DEFINITION_ROUNDS):
            # a symbol some witness computes is no input before it is computed
            inputs = dict(zip(c.inputs.roots, c.inputs.run(values, free, sqlite_reading,
                                                           total), strict=True))
            found = False
            for d in c.witnesses:
                if any(s in values for s in d.symbols):
                    continue
                got = d.solve(partial(self._input, inputs))
                if got:
                    values.update((s, python_value(v)) for s, v in got.items())
                    found = True
            if not found:
                break

    def _input(self, inputs: dict[FNode, Any], f: FNode) -> FNode:
        """A witness input's value as a constant (``f`` itself if it has none)."""
        v = inputs.get(f, UNKNOWN)
        return f if v is UNKNOWN else _constant(self.b, v)

    def decide(self, r: _Row, c: _Compiled | _Refused) -> PinnedOutcome | str:
        """The outcome of ``c`` on ``r``, or why the batch path must decide it."""
        expected = sqlite_value(r.conn, c.expr, self.case.now)
        if isinstance(expected, PinnedOutcome):
            return expected
        if isinstance(c, _Refused):  # as the batch path: SQLite's value first
            return replace(c.outcome, sqlite_value=expected)
        values = dict(c.literals)
        for s, v in r.values.items():
            if values.setdefault(s, v) != v:
                return "a symbol forced to two values"
        forced = c.program.run(values, early=True)
        known = _value(forced, c.alts)
        # one total assignment: the forced values, what the witnesses compute from it
        # (a text's numeric parts), the table's completion, the functions as SQLite's
        model_values = self._witnessed(c, values)
        model = c.program.run(model_values, c.free, sqlite_reading, total=True)
        first = 1 + 2 * len(c.alts)
        n_defs = len(c.row_definitions)
        asserted = [*model[first:first + c.n_assertions],
                    *(model[first + c.n_assertions + i] for i in r.used)]
        if not all(v is True for v in asserted):
            return "no model found in Python"
        witnessed = known is None
        if witnessed:  # the model's value: one admissible value, maybe not the only one
            known = _value(model, c.alts)
            if known is None:
                return "the value is not fixed by the pins"
        approximate = c.approximate or any(
            c.row_definitions[i].approximation and c.row_definitions[i].exact_when is None
            for i in r.used)
        cls, value = known
        start = first + c.n_assertions + n_defs
        exact_roots = [*range(start, start + c.n_exact),
                       *(start + c.n_exact + i for i in r.used)]
        if witnessed:
            determined = Determined(cls, value, True, True)
            if not _matches(expected, determined):
                return "witnessed: another value than SQLite's"  # the solver judges it
            if _rechecked(c.expr, r.row, ROWS_RECHECK):
                return "witnessed: sampled for the solver's exactness check"
            # as determined_value: where the witnesses fix the value without SQLite's
            # reading of the functions, whether they put the row in the exact range
            plain = c.program.run(model_values, early=True)
            if _value(plain, c.alts) == known:
                in_range = _in_range([plain[k] for k in exact_roots],
                                     [model[k] for k in exact_roots])
                if in_range is None:
                    return "whether the row is in the exact range"
                determined = Determined(cls, value, in_range, True)
        else:
            in_range = _in_range([forced[k] for k in exact_roots],
                                 [model[k] for k in exact_roots])
            if in_range is None and _rechecked(c.expr, r.row, ROWS_RECHECK):
                # as determined_value: on the sampled cases the solver is asked
                return "whether the row is in the exact range"
            determined = Determined(cls, value, in_range, False)
        outcome = _judged(expected, determined, approximate)
        return replace(outcome, path=EVALUATED_ROWS, operators=c.operators)


def _value(values: list, alts: Sequence[StorageClass]
           ) -> tuple[StorageClass | None, object] | None:
    """(class, value) of the encoded value if the run fixes it, else None."""
    null = values[0]
    if null is UNKNOWN:
        return None
    if null:
        return None, None
    chosen = []
    for k, cls in enumerate(alts):
        guard = values[1 + 2 * k]
        if guard is UNKNOWN:
            return None
        if guard:
            chosen.append((cls, values[2 + 2 * k]))
    if len(chosen) != 1 or chosen[0][1] is UNKNOWN:
        return None
    return chosen[0]


def _in_range(forced: list, model: list) -> bool | None:
    """Whether the row is in the exact range: fixed by the forced values, or shown by
    the total assignment (a model inside it); None when neither says."""
    if any(v is False for v in forced):
        return False
    if all(v is True for v in forced) or all(v is True for v in model):
        return True
    return None


def _constant(b: Builder, v: Any) -> FNode:
    if isinstance(v, bool):
        return b.TRUE if v else b.FALSE
    if isinstance(v, int):
        return b.int(v)
    if isinstance(v, Fraction):
        return b.real(v)
    return b.str(v)
