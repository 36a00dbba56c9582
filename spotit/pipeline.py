"""One check, end to end: parse, bind, bounded search k = 1..K, validate, shrink.

For each bound k the two plans are encoded over a fresh symbolic database of
at most k rows per table, and the solver is asked for a database on which
the results differ. UNSAT proves bound k; a model is decoded into a concrete
database and run on SQLite: confirmed differences are counterexamples (then
made smaller and more readable), unconfirmed ones are recorded as
``spurious`` and the search goes on. ``equivalent`` needs every bound proven.
"""

from __future__ import annotations

import re
import sqlite3
import time
import zlib
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pysmt.environment import reset_env
from pysmt.fnode import FNode
from pysmt.typing import BOOL

from spotit import encodings  # noqa: F401  (registers every encoding)
from spotit.canonical import canonical
from spotit.canonical.choices import arbitrary_choice, order_choice
from spotit.canonical.rowwise import obligations, without_foreign_keys
from spotit.canonical.semijoins import AS_IN
from spotit.encodings import rounding
from spotit.encodings.builder import Builder
from spotit.encodings.database import SymbolicDatabase
from spotit.encodings.encoder import Encoder, EncoderOptions
from spotit.encodings.equivalence import Comparison, Semantics, Spider2, comparison, differ
from spotit.encodings.jsonfns import json_names
from spotit.errors import BudgetExceeded, SpotItError, Unsupported
from spotit.frontend.binder import bind
from spotit.frontend.now import pin_now
from spotit.frontend.parser import parse
from spotit.ir.bounded import at_bound, max_rows
from spotit.ir.determinism import not_of_the_database
from spotit.ir.relational import Rel
from spotit.probe import (
    DEFAULT_MAX_ROWS,
    DEFAULT_PROBE_SECONDS,
    DEFAULT_TRIALS,
    LARGE_MAX_ROWS,
    ProbeResult,
    probe,
)
from spotit.schema import Schema, internal_table_construct, is_internal_table, load_schema
from spotit.shapes import raised_tables
from spotit.smt.intstrings import IntStrings
from spotit.smt.printer import SmtLibWriter
from spotit.solvers import get_solver
from spotit.solvers.base import Session, Status
from spotit.validate import EQUAL_RESULTS, Validation, column_names, validate
from spotit.verdict import BoundStat, CheckResult, Verdict

DEFAULT_BOUND = 5
DEFAULT_TIMEOUT = 60.0
SPURIOUS_RETRIES = 2
ROUNDING_REFINEMENTS = 8  # more candidates when each taught the solver how doubles round
COLUMNS_READ_SECONDS = 2.0  # to find the columns a counterexample's reader needs shown
ASSUMPTION_MIN_SECONDS = 2.0  # the check without foreign keys gets at least this
# the random search run when the solver does not decide: EXTENDED_SECONDS bound it (5000
# trials ended Spider 2.0's local003 mutants after 1 s, where 12,000 refute them)
EXTENDED_TRIALS = 50000
EXTENDED_SECONDS = 3.0
LATE_PROBE_AFTER = 2.0  # seconds of solving after which the longer random search runs
SHAPES_SHARE = 0.35  # of the time left at a bound too big for the solver, for its shapes
SHAPE_SECONDS = 5.0  # at most, per shape
# below the last bound, whether every recursion stops gets this share of the time left
# (at least STOP_MIN_SECONDS): undecided there, the larger bounds are still searched for
# a counterexample, and the last bound's check, which covers the smaller ones, gets all
STOP_SHARE = 0.25
STOP_MIN_SECONDS = 2.0
# with a counterexample in hand, the search for a smaller one gets this share of the
# time limit (at least MIN_MINIMALITY_SECONDS): the verdict no longer depends on it
MINIMALITY_SHARE = 0.1
MIN_MINIMALITY_SECONDS = 2.0
# a solver call that stops this close to its deadline was stopped by the time (z3 gives
# the same reason for its time and its resource limit)
TIME_UP_SECONDS = 0.1
PREFERRED = "preferred!"
EXACT = "exact!"
UNREFINED = "unrefined!"


DATA_LEVELS = ("declared", "sqlite")
"""What the columns may hold, weakest assumption last (see ``Schema.with_data``)."""


@dataclass
class CheckOptions:
    bound: int = DEFAULT_BOUND
    solver: str = "z3"
    semantics: Comparison = Semantics.SET
    timeout: float | None = DEFAULT_TIMEOUT
    now: datetime = field(default_factory=lambda: current_instant())
    minimize: bool = True
    max_nodes: int = 2_000_000
    probe_trials: int = DEFAULT_TRIALS  # random databases tried before the solver (0: none)
    int_strings: bool = True  # text as integers where only equality is used (IntStrings)
    data: str = "declared"  # what the columns hold: declared types, or anything (sqlite)
    recursion_depth: int = 10  # rounds of a recursive CTE unrolled
    # deterministic limit on each solver call, in the solver's own units (z3 rlimit,
    # cvc5 rlimit-per); None: none. A call it stops is a timeout (see ``check``)
    rlimit: int | None = None


def current_instant() -> datetime:
    """The default evaluation instant: the current UTC time, in whole seconds."""
    return datetime.now(timezone.utc).replace(tzinfo=None, microsecond=0)


def check(
    schema: Schema | str | Path,
    gold: str,
    pred: str,
    *,
    bound: int = DEFAULT_BOUND,
    solver: str = "z3",
    semantics: str | Comparison = "set",
    timeout: float | None = DEFAULT_TIMEOUT,
    db_id: str | None = None,
    now: datetime | None = None,
    minimize: bool = True,
    probe_trials: int = DEFAULT_TRIALS,
    int_strings: bool = True,
    dialect: str = "sqlite",
    data: str = "declared",
    enforced_fks: bool = False,
    check_database: bool = True,
    recursion_depth: int = 10,
    rlimit: int | None = None,
) -> CheckResult:
    """Are ``gold`` and ``pred`` equivalent on every database of at most ``bound`` rows
    per table? Never raises for bad input: problems become the verdict's reason.

    Queries in another ``dialect`` are checked as their SQLite translation
    (``spotit.frontend.dialects``), which is recorded on the result. ``data`` is what
    the columns may hold (``Schema.with_data``): the verdict holds under that level.
    ``recursion_depth``: rounds of a recursive CTE unrolled (a proof needs the recursion
    to stop within them on every database of the bound, else ``unsupported``).
    ``enforced_fks``: the database enforces its foreign keys (``PRAGMA foreign_keys =
    ON``), so even ``data="sqlite"`` assumes them. A SQLite database file as ``schema``
    is also checked for data that break its declared constraints
    (``spotit.constraints.declared``; ``check_database=False`` skips it): the verdict
    assumes only those that hold there.
    ``rlimit``: a deterministic resource limit on each solver call, in the solver's own
    units (z3's ``rlimit``, cvc5's ``rlimit-per``; yices has none), next to the
    wall-clock ``timeout``: unlike the time, it stops a call at the same point on every
    machine and under any load. When it stops the solver, the verdict is ``timeout``
    and the reason says the resource limit was reached. None (default): no such limit.

    Example:
        >>> r = check("CREATE TABLE t(a INTEGER);", "SELECT a FROM t WHERE a > 1",
        ...           "SELECT a FROM t WHERE a >= 1", bound=2)
        >>> r.verdict.value, r.cex_bound
        ('not_equivalent', 1)
    """
    start = time.monotonic()
    problem = _argument_problem(gold=gold, pred=pred, bound=bound, timeout=timeout, now=now,
                                probe_trials=probe_trials, recursion_depth=recursion_depth)
    try:
        how = comparison(semantics)
    except (ValueError, TypeError, SpotItError) as e:
        problem, how = problem or f"semantics {semantics!r}: {e}", comparison("set")
    if problem is None and data == "realistic":
        problem = ("data level 'realistic' is 'declared' over a schema with the "
                   "constraints applied (spotit.constraints.augment, as the CLI's --data "
                   "realistic --constraints does)")
    if problem is not None:
        return CheckResult(Verdict.ERROR, bound if _is_int(bound) else 0, str(solver),
                           how.value, seconds=time.monotonic() - start, reason=problem,
                           data=str(data))
    opts = CheckOptions(
        bound=bound, solver=solver,
        semantics=how,
        timeout=timeout, minimize=minimize, probe_trials=probe_trials,
        int_strings=int_strings, data=data, recursion_depth=recursion_depth,
        rlimit=rlimit,
    )
    if now is not None:
        opts.now = now
    if rlimit is not None and (isinstance(rlimit, bool) or not isinstance(rlimit, int)
                               or rlimit <= 0):
        return _fail(opts, Verdict.ERROR, f"rlimit must be a positive integer, not "
                     f"{rlimit!r}", start)
    if data not in DATA_LEVELS:
        return _fail(opts, Verdict.ERROR, f"unknown data level {data!r} (one of "
                     f"{', '.join(DATA_LEVELS)})", start)
    try:
        sch = coerce_schema(schema, db_id)
    except SpotItError as e:
        return _fail(opts, Verdict.ERROR, f"schema: {e}", start)
    if enforced_fks:
        sch = replace(sch, enforced_foreign_keys=True, cache={})
    data_check = None
    if check_database and not isinstance(schema, Schema) and is_sqlite_file(schema):
        from spotit.constraints.declared import check_declared

        data_check = check_declared(sch, str(schema))
        sch = sch.assume_only(data_check.breaches)
    try:
        result = _checked(sch, gold, pred, opts, dialect, start)
    except RecursionError:  # Python's stack, in a tree walk before the encoder's own guard
        return _fail(opts, Verdict.ERROR, "a query nested too deeply for SpotIt's tree walks "
                     "(a chain of about 200 or more terms: a long sum or || chain)",
                     start)
    if data_check is not None:
        result.database_check = data_check.to_json()
    return result


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _argument_problem(*, gold, pred, bound, timeout, now, probe_trials, recursion_depth
                      ) -> str | None:
    """What is wrong with ``check``'s arguments (None: nothing), as its reason."""
    for name, sql in (("gold", gold), ("pred", pred)):
        if not isinstance(sql, str):
            return f"{name} must be SQL text, not {type(sql).__name__}"
    if not _is_int(bound) or bound < 1:
        return f"bound must be a positive integer, not {bound!r}"
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(
            timeout, int | float) or not timeout > 0):
        return f"timeout must be a positive number of seconds or None, not {timeout!r}"
    if now is not None and not isinstance(now, datetime):
        return f"now must be a datetime, not {now!r}"
    if not _is_int(probe_trials) or probe_trials < 0:
        return f"probe_trials must be a non-negative integer, not {probe_trials!r}"
    if not _is_int(recursion_depth) or recursion_depth < 0:
        return f"recursion_depth must be a non-negative integer, not {recursion_depth!r}"
    return None


def is_sqlite_file(source: Any) -> bool:
    """``source`` names an existing SQLite database file."""
    try:
        text = str(source)
        if "\n" in text or len(text) > 4096:
            return False
        path = Path(text)
        return path.is_file() and path.open("rb").read(16).startswith(b"SQLite format 3")
    except OSError:
        return False


def _checked(sch: Schema, gold: str, pred: str, opts: CheckOptions, dialect: str,
             start: float) -> CheckResult:
    if dialect.strip().lower() != "sqlite":
        try:
            gold, pred = in_sqlite(gold, pred, dialect, sch, opts.semantics)
        except Unsupported as e:
            return _fail(opts, Verdict.UNSUPPORTED, str(e), start)
        except SpotItError as e:
            return _fail(opts, Verdict.ERROR, str(e), start)
        result = Checker(sch, opts).run(gold, pred, start)
        result.transpiled = {"dialect": dialect, "gold": gold, "pred": pred}
        return result
    return Checker(sch, opts).run(gold, pred, start)


def in_sqlite(gold: str, pred: str, dialect: str, schema: Schema,
              semantics: Comparison) -> tuple[str, str]:
    """Both queries as SQLite SQL of the same meaning (or the error naming the construct)."""
    from spotit.frontend.dialects import to_sqlite

    ordered = semantics.ordered
    out = []
    for sql, who in ((gold, "gold"), (pred, "pred")):
        try:
            out.append(to_sqlite(sql, dialect, schema=schema, ordered=ordered))
        except SpotItError as e:
            raise e.located(who) from None
    return out[0], out[1]


def coerce_schema(schema: Schema | str | Path, db_id: str | None = None) -> Schema:
    """A Schema from a Schema, a path, or DDL text."""
    from spotit.schema import schema_from_ddl

    if isinstance(schema, Schema):
        return schema
    text = str(schema)
    if "\n" not in text and len(text) < 4096 and _is_file(text):
        return load_schema(text, db_id)
    if "create" in text.lower():
        return schema_from_ddl(text)
    return load_schema(text, db_id)


def _is_file(text: str) -> bool:
    """Whether ``text`` names an existing file (one line of DDL longer than a file name
    may be is not one: the OS refuses the name rather than saying no)."""
    try:
        return Path(text).exists()
    except (OSError, ValueError):
        return False


def _fail(opts: CheckOptions, verdict: Verdict, reason: str, start: float) -> CheckResult:
    return CheckResult(verdict, opts.bound, opts.solver, opts.semantics.value,
                       seconds=time.monotonic() - start, reason=reason, data=opts.data)


class Checker:
    def __init__(self, schema: Schema, opts: CheckOptions):
        self.schema = schema.with_data(opts.data)
        self.opts = opts
        self.rlimit_stop = False
        # the rounds unrolled are doubled, up to this, where a recursion goes deeper
        self.asked_depth = opts.recursion_depth
        self.deepest = opts.recursion_depth * RECURSION_DEEPENING
        self.unsettled = False  # the last bound's verdict is that of its recursions' stop
        # a bound whose recursions were not shown to stop: (verdict, reason, rounds)
        self.pending: tuple[Verdict, str, int] | None = None
        # some database goes deeper than the most rounds unrolled: no bound can be proven
        # any more, the larger ones are only searched for a counterexample
        self.search_only = False
        self.top = opts.bound

    # ------------------------------------------------------------------ front end

    def accepted(self, sql: str, who: str) -> None:
        """SQLite must accept the query on the schema before anything else."""
        conn = self.schema.create_database()
        try:
            conn.execute("EXPLAIN " + sql)
        except (sqlite3.Error, sqlite3.Warning) as e:
            missing = re.match(r"no such table: (?:main\.)?(\S+)$", str(e))
            if missing and is_internal_table(missing.group(1)):
                # a schema from tables.json leaves SQLite's internal tables out
                raise Unsupported(internal_table_construct(missing.group(1)),
                                  source=who) from None
            raise SpotItError(f"SQLite rejects it: {e}", source=who) from None
        finally:
            conn.close()

    def plan(self, sql: str, who: str) -> Rel:
        """Parse and bind one query into the IR."""
        try:
            return bind(parse(sql), self.schema)
        except SpotItError as e:
            raise e.located(who) from None

    # ------------------------------------------------------------------ search

    def run(self, gold: str, pred: str, start: float) -> CheckResult:
        opts = self.opts
        self.gold_sql, self.pred_sql = gold, pred
        self.nonempty: set[str] = set()  # queries seen returning a row (not vacuous)
        # what runs on SQLite: 'now' pinned to the instant the encoding uses
        self.gold_run = pin_now(gold, opts.now)
        self.pred_run = pin_now(pred, opts.now)
        deadline = start + opts.timeout if opts.timeout else None
        self.deadline = deadline
        result = CheckResult(Verdict.ERROR, opts.bound, opts.solver, opts.semantics.value,
                             now=opts.now.strftime("%Y-%m-%d %H:%M:%S"), data=opts.data)
        result.notes = list(self.schema.notes)
        try:
            self.accepted(gold, "gold")
            self.accepted(pred, "pred")
            solver = _solver(opts)
        except ValueError as e:  # a solver without a resource limit (yices)
            return self._done(result, Verdict.ERROR, f"solver {opts.solver}: {e}", start)
        except Unsupported as e:
            return self._done(result, Verdict.UNSUPPORTED, str(e), start)
        except SpotItError as e:
            return self._done(result, Verdict.ERROR, str(e), start)
        try:
            gold_plan = self.plan(gold, "gold")
            pred_plan = self.plan(pred, "pred")
        except Unsupported as e:
            found = self._probe(extended=True)  # no solver will run: search longer
            if found is not None:
                return self._probe_verdict(result, found, f"; the queries are outside the "
                                           f"fragment SpotIt can prove things about: {e}",
                                           start)
            return self._done(result, Verdict.UNSUPPORTED, str(e), start)
        except SpotItError as e:
            return self._done(result, Verdict.ERROR, str(e), start)
        self.plans = (gold_plan, pred_plan)
        for side, plan in (("gold", gold_plan), ("pred", pred_plan)):
            if (outside := not_of_the_database(plan)) is not None:
                function, why = outside
                return self._done(result, Verdict.UNSUPPORTED, f"{function} ({side}): "
                                  f"{why}", start)
        if (isinstance(opts.semantics, Spider2)
                and opts.semantics.gold_columns(len(gold_plan.columns)) is None):
            # Spider 2.0's evaluator would score even the gold 0 (its iloc raises)
            return self._done(result, Verdict.UNSUPPORTED, f"condition columns "
                              f"{opts.semantics.value} do not fit the gold's "
                              f"{len(gold_plan.columns)} columns", start)
        gold_form, gold_rules = canonical(gold_plan, opts.semantics.basis)
        pred_form, pred_rules = canonical(pred_plan, opts.semantics.basis)
        ordered = opts.semantics.ordered  # rows compared in order: their order may choose
        # Spider 2.0's evaluator compares rows in the order SQLite returns them, which
        # two plans of one form need not share (DISTINCT and GROUP BY, a join's two
        # sides): there the form proves nothing, and the encoding says what it can
        same_form = gold_form == pred_form and not (
            gold_plan != pred_plan and isinstance(opts.semantics, Spider2)
            and opts.semantics.ordered
            and (_order_left_to_sqlite(gold_plan, opts.bound)
                 or _order_left_to_sqlite(pred_plan, opts.bound)))
        try:
            outside = self._outside_fragment(gold_plan) if same_form else None
        except BudgetExceeded as e:
            return self._done(result, Verdict.TIMEOUT, f"{e}, checking that the queries "
                              "are in the fragment", start)
        if outside:
            return self._done(result, Verdict.UNSUPPORTED, outside, start)
        if same_form:
            rules = [r for r in dict.fromkeys(gold_rules + pred_rules) if r != "column names"]
            reason = ("the two queries have the same plan" if not rules else
                      f"the two queries have the same canonical form ({', '.join(rules)})")
            choice = (arbitrary_choice(gold_plan, ordered)
                      or arbitrary_choice(pred_plan, ordered))
            if choice is not None and (found := self._probe()) is not None:
                # the same set of possible results, but SQLite chose differently here
                return self._probe_verdict(result, found, f"; {reason}, so the results "
                                           f"differ only by SQLite's choice among {choice}",
                                           start)
            return self._everywhere(result, "canonical form", reason + ", so they agree "
                                    "on every database", choice, {"gold": gold_plan}, solver,
                                    deadline, start)
        # Random small databases first: most differences show up at once. The solver
        # then only has to look for a smaller counterexample (or prove there is none).
        found = self._probe()
        # The solver is given the canonical forms: the same on every database as the
        # plans, and where the queries differ only in parts the rules rewrite (joins in
        # another order, a join read through its key), those parts are one formula.
        forms = gold_form, pred_form
        if AS_IN in gold_rules + pred_rules:  # one row per table reads joins, not IN
            gold_form = canonical(gold_plan, opts.semantics.basis, frozenset({AS_IN}))[0]
            pred_form = canonical(pred_plan, opts.semantics.basis, frozenset({AS_IN}))[0]
        # (a part proved equal as a bag may hold INTEGER 1 where the other holds REAL
        # 1.0, which Spider 2.0's evaluator tells apart in a column with text)
        parts = (None if isinstance(opts.semantics, Spider2)
                 else obligations(gold_form, pred_form, opts.semantics.basis))
        if found is None and parts is not None and (proved := self._one_row_proof(
                parts, parts[0][0] is gold_form, solver, deadline)):
            return self._everywhere(result, "one row per table", proved + ": they agree on "
                                    "every database", arbitrary_choice(gold_plan, ordered) or
                                    arbitrary_choice(pred_plan, ordered),
                                    {"gold": gold_plan, "pred": pred_plan}, solver, deadline,
                                    start)
        top = opts.bound if found is None else min(opts.bound, _rows_per_table(found.rows) - 1)
        search_deadline = deadline
        if found is not None and opts.timeout:
            # a counterexample is in hand: only its minimality is at stake
            search_deadline = min(deadline, time.monotonic() + max(
                MIN_MINIMALITY_SECONDS, MINIMALITY_SHARE * opts.timeout))
        probed_late = False
        shaped = False  # the shapes of a bound too big for the solver were searched
        self.top = top
        for k in range(1, top + 1):
            if (found is None and not probed_late and k > 1
                    and time.monotonic() - start > LATE_PROBE_AFTER):
                # the solver is slow on this pair: the longer random search now, not
                # only once the time is up
                probed_late = True
                if done := self._late_probe(result, f"; the solver had proved no difference "
                                            f"up to k={k - 1}", start):
                    return done
            if _same_at_bound(*forms, k, opts.semantics.basis):
                result.per_bound.append(BoundStat(k, "unsat", 0.0, answers=SAME_AT_BOUND))
                if self.pending is None and not result.spurious:
                    result.proven_bound = k
                continue
            # until the longer random search and the shapes have run, the solver gets
            # LATE_PROBE_AFTER seconds at a time: a pair it finds hard may be refuted
            # by chance, or on a smaller formula, first
            patient = (found is None and not (probed_late and shaped)
                       and search_deadline is not None)
            first = (min(search_deadline, time.monotonic() + LATE_PROBE_AFTER) if patient
                     else search_deadline)
            outcome = self._solve_bound(k, forms, (gold_plan, pred_plan), gold, pred, solver,
                                        first, result)
            if (patient and outcome is not None and outcome[0] is Verdict.TIMEOUT
                    and time.monotonic() < search_deadline and not self.rlimit_stop):
                if not probed_late:
                    probed_late = True
                    if done := self._late_probe(result, f"; the solver had not decided at "
                                                f"k={k} after {LATE_PROBE_AFTER:g} s", start):
                        return done
                if not shaped:
                    shaped = True
                    if refuted := self._shapes(k, forms, gold, pred, solver, search_deadline,
                                               result):
                        return self._done(result, *refuted, start)
                outcome = self._solve_bound(k, forms, (gold_plan, pred_plan), gold, pred,
                                            solver, search_deadline, result)
            if (outcome is not None and self.unsettled and k < top
                    and not _out_of_time(search_deadline)):
                # no difference here within the rounds unrolled, but they were not shown
                # to be enough: no proof of this bound, the larger ones may still hold a
                # counterexample (one is confirmed on SQLite, which runs every round)
                self._unsettled(outcome)
                continue
            if outcome is not None:
                if found is not None and outcome[0] is Verdict.UNSUPPORTED:
                    return self._probe_verdict(result, found, f"; the queries are outside the "
                                               f"fragment SpotIt can prove things about: "
                                               f"{outcome[1]}", start)
                if found is not None and outcome[0] is not Verdict.NOT_EQUIVALENT:
                    return self._probe_verdict(result, found, f"; the solver could not rule "
                                               f"out a smaller one: {outcome[1]}", start)
                if outcome[0] is not Verdict.NOT_EQUIVALENT and not probed_late and (
                        done := self._late_probe(result, f"; the solver did not decide: "
                                                 f"{outcome[1]}", start)):
                    return done  # the solver did not decide: a longer random search did
                if (self.pending is not None and outcome[0] is not Verdict.NOT_EQUIVALENT
                        and not self.unsettled):  # (else the outcome says it, at this k)
                    # a smaller bound was not proven: say so (and where no bound could be,
                    # that is the verdict's reason)
                    verdict, reason, _ = self.pending
                    outcome = (verdict if self.search_only else outcome[0],
                               f"{reason}; then searched for a counterexample: {outcome[1]}")
                return self._done(result, outcome[0], outcome[1], start)
            if self.pending is None and not result.spurious:
                result.proven_bound = k
        if found is not None:
            smaller = (f"; no counterexample has fewer rows (proven up to k={top})"
                       if top and result.proven_bound == top else "")
            return self._probe_verdict(result, found, smaller, start)
        if self.pending is not None:
            verdict, reason, _ = self.pending
            if not probed_late and (done := self._late_probe(
                    result, f"; the solver did not decide: {reason}", start)):
                return done
            return self._done(result, verdict, f"{reason}; and no counterexample up to "
                              f"k={top} with the recursions unrolled "
                              f"{self.opts.recursion_depth} rounds", start)
        if result.spurious:
            if not probed_late and (done := self._late_probe(
                    result, "; the solver's own candidates were not confirmed", start)):
                return done
            last = result.spurious[-1]
            if all(s["tie_only"] for s in result.spurious):
                reason = (f"no difference on any database of at most {opts.bound} rows per "
                          "table where SQLite's arbitrary choices (ties under ORDER BY ... "
                          "LIMIT, bare columns, the first row of a scalar subquery) cannot "
                          "matter; with such choices the results can differ, but no difference "
                          "was confirmed on SQLite")
            else:
                reason = (f"no confirmed counterexample within {opts.bound} rows; candidate "
                          f"at k={last['k']} not confirmed: {last['note']}")
            return self._done(result, Verdict.SPURIOUS, reason, start)
        return self._equivalent(result, f"no difference on any database of at most "
                                f"{opts.bound} rows per table",
                                {"gold": gold_plan, "pred": pred_plan}, solver, deadline, start)

    def _outside_fragment(self, plan: Rel) -> str | None:
        """What the encoder cannot model in ``plan`` (found by encoding it at k = 1), or
        None: nothing is proved about a query outside the fragment, even by its form."""
        reset_env()
        b = Builder()
        enc = Encoder(SymbolicDatabase(self.schema, 1, b),
                      EncoderOptions(now=self.opts.now, max_nodes=self.opts.max_nodes,
                                         recursion_depth=self.opts.recursion_depth,
                                     narrow=True, deadline=self.deadline))
        try:
            for row in enc.rel(plan).rows:
                list(row.values)  # the output's values are built lazily: build them all
        except Unsupported as e:
            return str(e)
        except BudgetExceeded:
            raise
        except (SpotItError, RecursionError):
            return None
        return None

    # ------------------------------------------------------------------ vacuity

    def _equivalent(self, result: CheckResult, reason: str, plans: dict[str, Rel], solver,
                    deadline: float | None, start: float) -> CheckResult:
        """``equivalent``, saying so when a query returns no rows on any database
        within the bound: then the proof says nothing about what it computes. That is a
        note on the verdict, so it gets a share of the time, not what is left of it: on a
        long query proved by its canonical form it took the whole minute (the query
        encoded at the bound twice); undecided, nothing is said."""
        if deadline is not None:
            deadline = min(deadline, time.monotonic() + VACUITY_SECONDS)
        vacuous = []
        for side, plan in plans.items():
            if side in self.nonempty:
                continue
            if self._returns_a_row(side):
                continue  # a random database shows it: no solver needed
            why = self._vacuity(side, plan, solver, deadline)
            if why is not None:
                vacuous.append((side, why))
        if len(plans) == 1 and vacuous:  # one plan stands for both queries
            vacuous.append(("pred", vacuous[0][1]))
        result.vacuous = [side for side, _ in vacuous]
        result.proof = result.proof or "solver"
        if vacuous:
            reason += "; vacuous: " + "; ".join(
                f"the {side} query returns no rows on any database of at most "
                f"{self.opts.bound} rows per table{why}" for side, why in vacuous)
        return self._done(result, Verdict.EQUIVALENT, reason, start)

    def _returns_a_row(self, side: str) -> bool:
        from spotit.probe import returns_a_row

        sql = self.gold_run if side == "gold" else self.pred_run
        try:
            return returns_a_row(self.schema, sql, max_rows=min(self.opts.bound,
                                                                 DEFAULT_MAX_ROWS))
        except (sqlite3.Error, SpotItError, RecursionError, MemoryError):
            return False

    def _vacuity(self, side: str, plan: Rel, solver, deadline: float | None) -> str | None:
        """None if the query returns a row on some database within the bound (or that
        could not be decided in time); else what is known of why it cannot."""
        for k in dict.fromkeys((1, self.opts.bound)):
            status = self._can_return_a_row(plan, k, solver, deadline)
            if status is not Status.UNSAT:
                return None
        where = _top_filter(plan)
        if where is not None and self._can_return_a_row(
                where.input, self.opts.bound, solver, deadline) is Status.SAT:
            text = _where_text(self.gold_sql if side == "gold" else self.pred_sql)
            return f" (its condition {text} never holds)" if text else (
                " (its WHERE condition never holds)")
        return ""

    def _can_return_a_row(self, plan: Rel, k: int, solver, deadline: float | None) -> Status:
        reset_env()
        b = Builder()
        db = SymbolicDatabase(self.schema, k, b)
        enc = Encoder(db, EncoderOptions(now=self.opts.now, max_nodes=self.opts.max_nodes,
                                         recursion_depth=self.opts.recursion_depth,
                                         deadline=deadline))
        try:
            rel = enc.rel(plan)
            core = [*db.constraints(enc), *enc.side, b.or_(row.present for row in rel.rows)]
        except (SpotItError, RecursionError):
            return Status.UNKNOWN
        if enc.recursion_open:
            return Status.UNKNOWN  # rounds past the unrolled ones could add rows
        script = SmtLibWriter().script([*core, *enc.used_definitions(core)])
        remaining = self._remaining(deadline)
        res = solver.check(script, timeout=min(10.0, remaining) if remaining else 10.0)
        return res.status

    def _probe(self, extended: bool = False) -> ProbeResult | None:
        """A counterexample among random databases of at most min(K, 3) rows per table
        (``extended``: the longer search run when the solver did not decide)."""
        if not self.opts.probe_trials:
            return None
        trials, seconds, seed = self.opts.probe_trials, DEFAULT_PROBE_SECONDS, None
        rows = DEFAULT_MAX_ROWS
        if extended:
            # larger databases too: the solver is slow here, and some differences need
            # more rows than the first search's small databases have
            trials, seconds, rows = max(trials, EXTENDED_TRIALS), EXTENDED_SECONDS, LARGE_MAX_ROWS
            seed = zlib.crc32((self.gold_run + "\x00" + self.pred_run).encode()) ^ 0x5EED
        try:
            return probe(self.schema, self.gold_run, self.pred_run, self.opts.semantics,
                         trials=trials, seconds=seconds, seed=seed,
                         max_rows=min(self.opts.bound, rows), nonempty=self.nonempty)
        except (sqlite3.Error, SpotItError, RecursionError, MemoryError):
            return None  # the probe is only a shortcut: the solver search still runs

    def _late_probe(self, result: CheckResult, note: str, start: float
                    ) -> CheckResult | None:
        """The longer random search, run once the solver is slow or undecided: the
        verdict if it finds a counterexample (``note`` says why it ran), else None."""
        late = self._probe(extended=True)
        return None if late is None else self._probe_verdict(result, late, note, start)

    def _probe_verdict(self, result: CheckResult, found: ProbeResult, note: str,
                       start: float) -> CheckResult:
        k = _rows_per_table(found.rows)
        self._record_cex(result, k, found.rows, found.validation)
        result.cex_found_by = "random search"
        endless = f" ({found.validation.note})" if found.validation.pred_rows is None else ""
        return self._done(result, Verdict.NOT_EQUIVALENT, (
            f"counterexample with at most {k} row{'s' if k != 1 else ''} per table, found "
            f"by random search and confirmed by SQLite{endless}{note}"), start)

    def _done(self, result: CheckResult, verdict: Verdict, reason: str, start: float
              ) -> CheckResult:
        if verdict is Verdict.NOT_EQUIVALENT and result.counterexample is not None:
            # here, when no solver session is open any more: encoding resets pysmt
            result.counterexample_read = self._columns_read()
        result.verdict = verdict
        result.reason = reason
        if verdict in (Verdict.EQUIVALENT, Verdict.NOT_EQUIVALENT):
            self._assumptions(result, start)
        result.seconds = time.monotonic() - start
        return result

    def _assumptions(self, result: CheckResult, start: float) -> None:
        """``result.assumed``: the foreign keys the verdict relied on (and whether an
        equivalence needs them: the same check without them decides), and
        ``result.not_assumed``: the declared ones it did not assume."""
        from spotit.assumptions import (
            canonical_without,
            dangling,
            fk_json,
            in_force,
            not_assumed,
            tables_read,
        )

        plans = getattr(self, "plans", None)
        if plans is None:
            return
        read = tables_read(plans)
        forced = in_force(self.schema, read)
        result.not_assumed = not_assumed(self.schema, read)
        if result.verdict is Verdict.NOT_EQUIVALENT:
            shown = {t.lower() for t in result.counterexample or {}}
            result.assumed = [fk_json(t, fk, needed=None) for t, fk in forced
                              if t.name.lower() in shown]
            return
        if not forced:
            result.assumed = []
            return
        if canonical_without(self.schema, self.gold_sql, self.pred_sql,
                             self.opts.semantics.basis):
            result.assumed = [fk_json(t, fk, needed=False) for t, fk in forced]
            return
        # the same check on a schema without foreign keys, in what time is left (at
        # most as long again as this check took)
        elapsed = time.monotonic() - start
        budget = max(ASSUMPTION_MIN_SECONDS, elapsed)
        if self.opts.timeout:
            budget = min(budget, max(0.0, start + self.opts.timeout - time.monotonic()))
        if budget < 0.2:
            result.assumed = [fk_json(t, fk, needed=None, why="no time left to check "
                                      "whether the proof needs it") for t, fk in forced]
            return
        bare = self.schema.dropping_foreign_keys(lambda t, fk: True, "")
        sub = Checker(bare, replace(self.opts, timeout=budget))
        other = sub.run(self.gold_sql, self.pred_sql, time.monotonic())
        if other.verdict is Verdict.EQUIVALENT:
            result.assumed = [fk_json(t, fk, needed=False) for t, fk in forced]
        elif other.verdict is Verdict.NOT_EQUIVALENT and other.cex_rows is not None:
            result.assumed = [
                fk_json(t, fk, needed=True, why="without it, a counterexample")
                if dangling(self.schema, other.cex_rows, t, fk) else
                fk_json(t, fk, needed=None) for t, fk in forced]
        else:
            result.assumed = [fk_json(t, fk, needed=None, why="the check without foreign "
                                      f"keys did not decide: {other.reason}")
                              for t, fk in forced]

    def _remaining(self, deadline: float | None) -> float | None:
        if deadline is None:
            return None
        return max(0.05, deadline - time.monotonic())

    def encode(self, k: int, gold_plan: Rel, pred_plan: Rel, deadline: float | None = None,
               caps: dict[str, int] | None = None):
        """The formula for bound k (``caps``: fewer rows for some tables): (encoder,
        assertions); BudgetExceeded past ``deadline``."""
        reset_env()  # a fresh pysmt environment: formulas of earlier bounds are dropped
        b = Builder()
        # exact on every database of at most k rows per table (spotit.ir.bounded)
        gold_plan = at_bound(gold_plan, k, self.opts.semantics.basis)
        pred_plan = at_bound(pred_plan, k, self.opts.semantics.basis)
        db = SymbolicDatabase(self.schema, k, b, ordered_keys=True, caps=caps)
        enc = Encoder(db, EncoderOptions(now=self.opts.now, max_nodes=self.opts.max_nodes,
                                         recursion_depth=self.opts.recursion_depth,
                                         order_observable=self.opts.semantics.ordered,
                                         deadline=deadline,
                                         json_names=json_names(gold_plan, pred_plan)))
        r1 = enc.rel(gold_plan)
        r2 = enc.rel(pred_plan)
        diff = differ(b, r1, r2, self.opts.semantics)
        core = [*db.constraints(enc), *enc.side, diff]
        assertions = [*core, *enc.used_definitions(core)]
        det = b.and_(enc.determinism)
        exact = b.and_(enc.exactness)
        preferred = b.and_(det, exact)
        enc.two_phase = not preferred.is_true()
        enc.only_ties = exact.is_true()
        # EXACT => every over-approximated operation is in its exact range (choices free):
        # searched between the preferred region and the rest
        enc.middle_phase = not exact.is_true() and not det.is_true()
        if enc.middle_phase:
            assertions.append(b.implies(b.sym(EXACT, BOOL), exact))
        # UNREFINED => the approximations no lemma refines are in their exact range
        # (rounding is free): searched before the rest, where a solver otherwise picks
        # what an uninterpreted function allows ('1e5' read as anything) over and over
        unrefined = b.and_(enc.unrefined)
        enc.unrefined_phase = not unrefined.is_true() and unrefined is not exact
        if enc.unrefined_phase:
            assertions.append(b.implies(b.sym(UNREFINED, BOOL), unrefined))
        if enc.two_phase:
            # PREFERRED => no tie, bare column or first-row choice can matter, and every
            # over-approximated operation is in the range where it is exact
            assertions.append(b.implies(b.sym(PREFERRED, BOOL), preferred))
        enc.int_strings = None
        if self.opts.int_strings and IntStrings.eligible(assertions):  # text: only =
            enc.int_strings = IntStrings(b.m)
            assertions = enc.int_strings.convert(assertions)
        return enc, assertions

    def _solve_bound(self, k, forms, plans, gold, pred, solver, deadline, result
                     ) -> tuple[Verdict, str] | None:
        """Bound k by the solver; any failure costs this pair only, as a verdict."""
        while True:
            try:
                return self._bound_either(k, forms, plans, gold, pred, solver, deadline,
                                          result)
            except _RecursionDeeper:
                # the same bound again, with twice the rounds
                self.opts = replace(self.opts, recursion_depth=min(
                    self.deepest, 2 * self.opts.recursion_depth))
                continue
            except Unsupported as e:
                return Verdict.UNSUPPORTED, str(e)
            except BudgetExceeded as e:
                proven = result.proven_bound
                return Verdict.TIMEOUT, (f"proven equivalent up to k={proven}; " if proven
                                         else "") + str(e)
            except SpotItError as e:
                return Verdict.ERROR, str(e)
            except MemoryError:
                return Verdict.ERROR, f"out of memory at bound {k}"
            except RecursionError:
                return Verdict.ERROR, f"query too deeply nested to encode at bound {k}"
            except Exception as e:  # an internal bug must cost this pair only
                return (Verdict.ERROR,
                        f"internal error at bound {k}: {type(e).__name__}: {e}")

    def _bound_either(self, k, forms, plans, gold, pred, solver, deadline, result
                      ) -> tuple[Verdict, str] | None:
        """Bound k on the canonical forms, and if the solver runs out of its share of
        the time there, on the plans as written: the same question, and each shape
        is sometimes the one the solver finds easy (a join order both queries share,
        or a join condition kept in its ON)."""
        if forms == plans or deadline is None or k < SPLIT_FROM_K:
            return self._bound(k, *forms, gold, pred, solver, deadline, result)
        share = time.monotonic() + FORMS_SHARE * max(0.0, deadline - time.monotonic())
        try:
            outcome = self._bound(k, *forms, gold, pred, solver, share, result)
        except BudgetExceeded:
            if time.monotonic() >= deadline:
                raise
            # the forms' formula did not fit in their share: the plans get the rest
            outcome = Verdict.TIMEOUT, ""
        if (outcome is None or outcome[0] is not Verdict.TIMEOUT or self.unsettled
                or time.monotonic() >= deadline):
            return outcome
        if result.per_bound and result.per_bound[-1].k == k:
            result.per_bound[-1] = replace(result.per_bound[-1], answers=FORMS_OUT_OF_TIME)
        return self._bound(k, *plans, gold, pred, solver, deadline, result)

    def _bound(self, k, gold_plan, pred_plan, gold, pred, solver, deadline, result,
               caps: dict[str, int] | None = None) -> tuple[Verdict, str] | None:
        t0 = time.monotonic()
        self.rlimit_stop = False  # set when the rlimit stopped this bound's last call
        self.unsettled = False
        enc, assertions = self.encode(k, gold_plan, pred_plan, deadline, caps)
        if deadline is not None and time.monotonic() > deadline:
            raise BudgetExceeded(f"time limit reached while encoding bound {k}")
        writer = SmtLibWriter()
        writer.deadline = deadline
        script = writer.script(assertions)
        writer.deadline = None  # the session's later commands are small
        t1 = time.monotonic()
        result.approximations = sorted(set(result.approximations) | enc.approximations)
        result.notes += sorted(enc.unmodelled - set(result.notes))
        if deadline is not None and time.monotonic() > deadline:
            result.per_bound.append(BoundStat(k, "timeout", 0.0, 0, t1 - t0))
            return Verdict.TIMEOUT, self._timeout_reason(k, result)
        session = solver.open(script)
        try:
            self.tie_only = False
            # what the candidates SQLite did not confirm taught this bound: facts of
            # double rounding and databases SQLite gives equal results on
            self.facts: list = []
            self.blocked: list = []
            self.steering = 0
            self.base_depth = session.depth
            # first a database on which SQLite's arbitrary choices cannot matter, then
            # where they may but no approximation does, then the rest; later checks on
            # this session (blocking, shrinking) stay in the region of their phase
            phases: list[list[tuple[str, bool]]] = []
            if enc.two_phase:
                phases.append([(PREFERRED, True)])
            if enc.middle_phase:
                phases.append([(PREFERRED, False), (EXACT, True)])
            outside = ([(PREFERRED, False)] if enc.two_phase else []) + (
                [(EXACT, False)] if enc.middle_phase else [])
            if enc.unrefined_phase:
                phases.append([*outside, (UNREFINED, True)])
            # where the preferred part has no model, the rest is the negation; saying
            # so keeps z3 fast (a plain check after one with assumptions can stall)
            phases.append([*outside, *([(UNREFINED, False)] if enc.unrefined_phase else [])])
            spent, res = 0.0, None
            for i, region in enumerate(phases):
                self.region = region
                res = session.check(timeout=self._remaining(deadline), assumptions=region)
                spent += res.seconds
                if res.status is Status.UNSAT:
                    if i == 0 and enc.two_phase:
                        # any difference at this k needs a tie (or an approximated operation)
                        self.tie_only = enc.only_ties
                    continue
                if res.status is not Status.SAT:
                    break
                before = len(result.spurious)
                outcome = self._on_model(k, enc, writer, session, _model(enc, res), gold,
                                         pred, deadline, result)
                if outcome is not None or not self.exhausted:
                    self._bound_stat(result, k, res, spent, assertions, t1 - t0, solver)
                    return outcome
                # every candidate of this region was run on SQLite, which gave equal
                # results, and the region has no other: it holds no difference
                del result.spurious[before:]
                if i == 0 and enc.two_phase:
                    self.tie_only = enc.only_ties
            self._bound_stat(result, k, res, spent, assertions, t1 - t0, solver)
            if res.status is Status.TIMEOUT:
                self.rlimit_stop = self._limit(res, deadline).startswith("resource")
                return Verdict.TIMEOUT, self._timeout_reason(k, result, res, deadline)
            if res.status in (Status.UNKNOWN, Status.ERROR):
                verdict = Verdict.TIMEOUT if res.status is Status.UNKNOWN else Verdict.ERROR
                return verdict, f"solver {solver.name} at k={k}: {res.status.value}: {res.reason}"
            return self._recursion_stops(enc, solver, deadline, k, caps)
        finally:
            session.close()

    def _shapes(self, k, forms, gold, pred, solver, deadline, result
                ) -> tuple[Verdict, str] | None:
        """A counterexample at bound k among databases of k rows in a few tables and
        one row in each other (``spotit.shapes``), for a bound the solver found too
        big. Only a SQLite-confirmed counterexample is taken from them: that no shape
        holds one proves nothing about bound k, so the whole bound is searched after
        them as before."""
        from spotit.assumptions import tables_read

        read = tables_read(forms)
        tables = [t.name for t in self.schema.tables if t.name.lower() in read]
        if k < 2 or len(tables) < 2 or deadline is None:
            return None
        end = time.monotonic() + SHAPES_SHARE * max(0.0, deadline - time.monotonic())
        raised = raised_tables(forms, tables, k)
        kept_stats, kept_spurious = len(result.per_bound), len(result.spurious)
        try:
            for group in raised:
                if time.monotonic() >= end:
                    break
                caps = {t: 1 for t in tables if t not in group}
                try:
                    outcome = self._bound(k, *forms, gold, pred, solver,
                                          min(end, time.monotonic() + SHAPE_SECONDS),
                                          result, caps)
                except BudgetExceeded:
                    continue
                except (SpotItError, MemoryError, RecursionError):
                    return None  # the whole bound says what is wrong
                if outcome is not None and outcome[0] is Verdict.NOT_EQUIVALENT:
                    named = " and ".join([", ".join(group[:-1]), group[-1]] if group[:-1]
                                         else group)
                    return outcome[0], (f"{outcome[1]}; found with {k} rows in {named} "
                                        "only, the whole bound being too big for the solver")
        finally:
            del result.per_bound[kept_stats:]
            del result.spurious[kept_spurious:]
            self.rlimit_stop = False
        return None

    def _unsettled(self, outcome: tuple[Verdict, str]) -> None:
        """Keep the first bound whose recursions were not shown to stop. Where some
        database goes deeper than the rounds asked for (more were unrolled), a larger
        bound is not going to be proven either: they are only searched for a
        counterexample, with the rounds asked for, and no stop is checked."""
        if self.pending is None:
            self.pending = (*outcome, self.opts.recursion_depth)
        if outcome[0] is Verdict.UNSUPPORTED or self.opts.recursion_depth > self.asked_depth:
            self.search_only = True
            self.opts = replace(self.opts, recursion_depth=self.asked_depth)

    def _recursion_stops(self, enc: Encoder, solver, deadline: float | None, k: int,
                         caps: dict[str, int] | None = None) -> tuple[Verdict, str] | None:
        """A proof at bound k over unrolled recursive CTEs holds only if no database
        within k makes a round past the unrolled ones add a row (None: it holds).

        Below the last bound the check gets a share of the time: the last bound's covers
        every smaller one (a database within k is one within the bound), so one left
        undecided is settled there, if the rounds unrolled are still the same."""
        if not enc.recursion_open or self.search_only or caps:
            return None  # (shapes prove nothing; search_only: self.pending says why)
        b, db = enc.b, enc.db
        core = [*db.constraints(enc), *enc.side, b.or_(enc.recursion_open)]
        script = SmtLibWriter().script([*core, *enc.used_definitions(core)])
        remaining = self._remaining(deadline)
        if remaining is not None and k < self.top:
            remaining = min(remaining, max(STOP_MIN_SECONDS, STOP_SHARE * remaining))
        res = solver.check(script, timeout=remaining)
        depth = self.opts.recursion_depth
        if res.status is Status.UNSAT:
            if self.pending is not None and self.pending[2] == depth and k == self.top:
                self.pending = None  # this bound's stop covers the smaller ones
            return None
        self.unsettled = True
        if res.status is Status.SAT:
            if depth < self.deepest and (deadline is None or time.monotonic() < deadline):
                self.unsettled = False
                raise _RecursionDeeper
            return Verdict.UNSUPPORTED, (
                f"recursion deeper than {depth} rounds on some database of at most {k} "
                f"rows per table (the rounds unrolled are doubled up to "
                f"{RECURSION_DEEPENING} times --recursion-depth; it raises them)")
        limit = (f" ({self._limit(res, deadline)} reached)"
                 if res.status is Status.TIMEOUT and self.opts.rlimit is not None else "")
        return Verdict.TIMEOUT, (f"whether every recursion stops within {depth} rounds at "
                                 f"k={k} was not decided: {res.status.value}{limit}")

    def _bound_stat(self, result: CheckResult, k: int, res, seconds: float, assertions,
                    encode_seconds: float, solver) -> None:
        result.per_bound.append(BoundStat(
            k, res.status.value if res.status is not Status.SAT or not self.exhausted
            else "unsat", seconds, len(assertions) and _size(assertions), encode_seconds,
            res.reason if solver.name in ("portfolio", "yices") else ""))

    def _everywhere(self, result: CheckResult, proof: str, reason: str, choice: str | None,
                    plans: dict[str, Rel], solver, deadline: float | None, start: float
                    ) -> CheckResult:
        """``equivalent`` on every database, of any size (``proof`` says how); where
        SQLite's result depends on its ``choice``, as sets of possible results."""
        result.proven_bound = self.opts.bound
        result.proof = proof
        result.unbounded = True
        if choice is not None:
            reason += (f" (up to SQLite's choice among {choice}: both queries have the "
                       "same set of possible results)")
        return self._equivalent(result, reason, plans, solver, deadline, start)

    def _one_row_proof(self, parts: list[tuple[Rel, Rel, str]], whole: bool, solver,
                       deadline) -> str | None:
        """Each (gold part, pred part) select-project-join over the same tables: no
        difference on one row per table, foreign keys dropped, is no difference on any
        database (``spotit.canonical.rowwise``). What was proved, or None: a difference
        found here may break a foreign key, so the usual search decides."""
        sub = Checker.__new__(Checker)
        sub.schema = without_foreign_keys(self.schema)
        budget = self._remaining(deadline)
        for g, p, semantics in parts:
            sub.opts = replace(self.opts, semantics=comparison(semantics))
            try:
                _, assertions = sub.encode(1, g, p, deadline)
                script = SmtLibWriter().script(assertions)
            except (SpotItError, RecursionError, MemoryError):
                return None
            session = solver.open(script)
            try:
                # a quarter of the budget at most: the bounded search still needs time
                res = session.check(timeout=None if budget is None else budget / 4 / len(parts))
            except SpotItError:
                return None
            finally:
                session.close()
            if res.status is not Status.UNSAT:
                return None
        what = ("both queries select, project and join the same tables" if whole else
                f"the queries differ only in {len(parts)} select-project-join "
                f"part{'s' if len(parts) > 1 else ''} over the same tables")
        return (f"{what}, so a difference would show with one row per table, and there is "
                "none (proved without foreign keys)")

    def _timeout_reason(self, k: int, result: CheckResult, res=None,
                        deadline: float | None = None) -> str:
        proven = result.proven_bound
        done = f"proven equivalent up to k={proven}; " if proven else ""
        limit = "time limit" if res is None else self._limit(res, deadline)
        return f"{done}{limit} reached at k={k}"

    def _limit(self, res, deadline: float | None) -> str:
        """Which limit stopped a solver call that timed out: the time, or with an
        ``rlimit`` the resource limit. cvc5 says which; z3 says 'canceled' for both
        (else 'timeout' or 'max. resource limit exceeded'): a call that ran until
        (nearly) its deadline is taken to be stopped by the time, which only costs a
        retry."""
        rlimit = self.opts.rlimit
        if rlimit is None:
            return "time limit"
        what = f"resource limit (rlimit {rlimit} per solver call)"
        time_up = deadline is not None and deadline - time.monotonic() < TIME_UP_SECONDS
        if res.reason.startswith("canceled"):  # z3, for either limit
            return "time limit" if time_up else what
        if "resource limit" in res.reason:
            return what
        if res.reason == "timeout" or time_up:
            return "time limit"
        return f"time or {what}"  # the portfolio does not say which

    def _on_model(self, k, enc: Encoder, writer: SmtLibWriter, session: Session,
                  model: dict, gold, pred, deadline, result) -> tuple[Verdict, str] | None:
        db = enc.db
        retries, attempt = SPURIOUS_RETRIES, -1
        self.exhausted = False  # set when the candidates ran out (UNSAT) in this region
        self.settled = True
        while attempt < retries:
            attempt += 1
            rows = db.decode(model)
            v = validate(self.schema, rows, self.gold_run, self.pred_run, self.opts.semantics,
                         until=deadline)
            if v.confirmed:
                if self.opts.minimize:
                    rows, v = self._shrink(enc, writer, session, rows, v, gold, pred, deadline)
                self._record_cex(result, k, rows, v)
                result.cex_found_by = "solver"
                return Verdict.NOT_EQUIVALENT, (
                    f"counterexample with at most {k} row{'s' if k > 1 else ''} per table, "
                    "confirmed by SQLite"
                )
            if self._past_the_rounds(enc, model, deadline):
                raise _RecursionDeeper  # the candidate is one of the unrolling's, not SQLite's
            # a region is settled by its candidates only if SQLite gave equal results on
            # each (not an error, not a difference for some orders of the rows)
            self.settled = self.settled and v.note == EQUAL_RESULTS
            result.spurious.append({"k": k, "note": v.note, "tie_only": self.tie_only,
                                    "database": _rows_json(
                self.schema, rows), "gold_result": v.gold_rows, "pred_result": v.pred_rows})
            # where the solver rounded otherwise than doubles do, or gave a REAL cell a
            # value no double has, say how doubles are there (a valid fact, kept for the
            # rest of this bound) and look again
            facts = [f for f in [*rounding.lemmas(enc, model), *db.between_doubles(model)]
                     if f not in self.facts]
            if facts:
                self.facts.extend(facts)
                session.add(writer.commands(_solver_form(enc, facts)))
                retries = min(retries + 1, SPURIOUS_RETRIES + ROUNDING_REFINEMENTS)
            if attempt == retries or _out_of_time(deadline):
                break
            block, generalized = _block(db, model)
            self.blocked.append(block)
            # a block that stands for databases SQLite did not see settles nothing
            self.settled = self.settled and not generalized
            writer.push()
            session.push()
            session.add(writer.commands(_solver_form(enc, [self.blocked[-1]])))
            steered = attempt == 0 and (res := self._modest_model(enc, writer, session,
                                                                  deadline)) is not None
            if not steered:
                res = session.check(timeout=self._remaining(deadline), assumptions=self.region)
            if res.status is Status.UNSAT and self.steering:
                # none among modest values: the scopes are dropped, what was learned is
                # kept, and the whole region is asked again
                while session.depth > self.base_depth:
                    session.pop()
                    writer.pop()
                writer.push()
                session.push()
                session.add(writer.commands(_solver_form(enc, [*self.facts, *self.blocked])))
                self.steering = 0
                res = session.check(timeout=self._remaining(deadline), assumptions=self.region)
            if res.status is not Status.SAT:
                self.exhausted = res.status is Status.UNSAT and self.settled
                break
            model = _model(enc, res)
        return None

    def _past_the_rounds(self, enc: Encoder, model: dict, deadline: float | None) -> bool:
        """Whether a candidate's database makes a recursion go past the rounds unrolled
        (and more may be): SQLite, which runs every round, then disagrees with it."""
        if not enc.recursion_open or self.opts.recursion_depth >= self.deepest or \
                self.search_only or _out_of_time(deadline):
            return False
        b = enc.b
        try:
            return rounding.Doubles(b.env, rounding.model_constants(b, model)).simplify(
                b.or_(enc.recursion_open)).is_true()
        except Exception:  # a value the evaluator cannot settle: not known to go past
            return False

    def _modest_model(self, enc: Encoder, writer: SmtLibWriter, session: Session,
                      deadline: float | None):
        """A model among modest values (|integers| <= 1000, short text): most
        unconfirmed candidates live at the edges SQLite handles differently from
        exact arithmetic (overflow, double rounding). None if there is none."""
        from spotit.encodings.readability import nice_value_constraints

        steer = _solver_form(enc, [c for c in [nice_value_constraints(enc, "medium")] if c])
        if not steer:
            return None
        res = self._check_steered(writer, session, steer, deadline)
        if res.status is Status.SAT:
            self.steering += 1
            return res  # the steering stays: later retries look among modest values too
        session.pop()
        writer.pop()
        return None

    def _check_steered(self, writer: SmtLibWriter, session: Session, steer: list,
                       deadline: float | None):
        """Check under ``steer`` in a new scope (at most 5 s), left pushed: the caller
        keeps it or pops it."""
        writer.push()
        session.push()
        session.add(writer.commands(steer))
        return session.check(timeout=min(5.0, self._remaining(deadline) or 5.0),
                             assumptions=self.region)

    # ------------------------------------------------------------------ shrinking

    def _shrink(self, enc: Encoder, writer: SmtLibWriter, session: Session, rows,
                v: Validation, gold, pred, deadline):
        """Fewer rows first, then small readable values; each step re-validated."""
        from spotit.encodings.readability import nice_value_constraints

        b = enc.b
        db = enc.db
        best_rows, best_v = rows, v

        def attempt(constraint) -> bool:
            nonlocal best_rows, best_v
            steer = _solver_form(enc, [constraint])
            if not steer or _out_of_time(deadline):
                return False
            res = self._check_steered(writer, session, steer, deadline)
            if res.status is Status.SAT:
                new_rows = db.decode(_model(enc, res))
                nv = validate(self.schema, new_rows, self.gold_run, self.pred_run,
                              self.opts.semantics, until=deadline)
                if nv.confirmed:
                    best_rows, best_v = new_rows, nv
                    return True  # keep the constraint (scope stays pushed)
            session.pop()
            writer.pop()
            return False

        # 1. drop rows, last rows of each table first
        for t in db.used_tables():
            for r in reversed(db.rows(t.name)):
                if len(best_rows.get(t.name, ())) <= r:
                    continue
                attempt(b.not_(db.present(t.name, r)))
        # 2. small values, short printable strings, literals of the queries
        for strength in ("tiny", "small", "medium"):
            c = nice_value_constraints(enc, strength)
            if c is not None and attempt(c):
                break
        return best_rows, best_v

    def _record_cex(self, result: CheckResult, k: int, rows, v: Validation) -> None:
        result.cex_bound = k
        relevant = {t: r for t, r in rows.items()}
        result.counterexample = _rows_json(self.schema, relevant)
        result.counterexample_columns = {
            t: self.schema.require_table(t).row_columns(len(r[0]) if r else 0)
            for t, r in relevant.items()
        }
        result.gold_result = v.gold_rows
        result.pred_result = v.pred_rows
        result.gold_columns = column_names(self.schema, self.gold_sql)
        result.pred_columns = column_names(self.schema, self.pred_sql)
        result.cex_rows = relevant


    def _columns_read(self) -> dict[str, list[str]] | None:
        """The columns the queries (and the keys they depend on) read, per table: the
        cells the encoding creates at k = 1. None when the queries cannot be encoded."""
        plans = getattr(self, "plans", None)
        if plans is None:
            return None
        soon = time.monotonic() + COLUMNS_READ_SECONDS
        deadline = getattr(self, "deadline", None)
        try:
            enc, _ = self.encode(1, *plans, soon if deadline is None else min(soon, deadline))
        except Exception:  # only a display aid: never let it cost the verdict
            return None
        out: dict[str, list[str]] = {}
        for t in enc.db.used_tables():
            names = t.row_columns(len(t.columns) + 1)
            read = sorted({c for (table, _, c) in enc.db.cell_keys() if table == t.name})
            out[t.name] = [names[c] for c in read if c < len(names)]
        return out


SAME_AT_BOUND = "same canonical form at this bound"
FORMS_OUT_OF_TIME = "canonical forms: out of their share of the time; the plans next"
FORMS_SHARE = 0.35  # of the time left at a bound, for the canonical forms
# Below this bound the formulas are small and what is hard for the solver (text, case
# maps) is the same in both shapes: the forms keep the whole time there.
SPLIT_FROM_K = 3


def _order_left_to_sqlite(plan: Rel, k: int) -> bool:
    """Whether SQLite picks (some of) the order of ``plan``'s rows: no ORDER BY on top
    (through projections) or one whose terms may tie, and more than one row possible
    within bound k."""
    return order_choice(plan) is not None and max_rows(plan, k) > 1


def _same_at_bound(gold_form: Rel, pred_form: Rel, k: int, semantics: str) -> bool:
    """Whether the canonical forms, simplified for at most ``k`` rows per table (a LIMIT
    that cannot cut dropped, an OFFSET past every row), meet again, with nothing left to
    SQLite's choice: then no database of that size tells them apart, without a solver."""
    gold_k, pred_k = at_bound(gold_form, k, semantics), at_bound(pred_form, k, semantics)
    if (gold_k, pred_k) == (gold_form, pred_form):
        return False  # the same plans the canonical forms already compared
    ordered = semantics == "list"
    if arbitrary_choice(gold_k, ordered) or arbitrary_choice(pred_k, ordered):
        return False
    return canonical(gold_k, semantics)[0] == canonical(pred_k, semantics)[0]


def _rows_json(schema: Schema, rows) -> dict[str, list[dict[str, Any]]]:
    out = {}
    for t, trows in rows.items():
        t_ = schema.require_table(t)
        out[t] = [dict(zip(t_.row_columns(len(r)), r, strict=True)) for r in trows]
    return out


def _block(db: SymbolicDatabase, model: dict) -> tuple[FNode, bool]:
    """Not this database again (presence flags and every cell the model gives a value),
    and whether the block stands for more databases than the one SQLite saw: a cell of a
    present row the model leaves free (a value the formula does not need, or one only an
    over-approximated function reads, as PRINTF's arguments) is left out of the block,
    which keeps the search moving, but then the candidates running out proves nothing
    (every database differing in y was blocked with one that SQLite showed equal)."""
    b = db.b
    same = []
    for t in db.used_tables():
        for r in db.rows(t.name):
            p = db.present(t.name, r)
            same.append(b.iff(p, b.bool(bool(model.get(p.symbol_name(), False)))))
    generalized = False
    for (table, row, _col), symbols in db.cell_symbols():
        present = bool(model.get(db.present(table, row).symbol_name(), False))
        for sym in symbols.values():
            name = sym.symbol_name()
            if name in model:
                same.append(b.eq(sym, _const_of(b, sym, model[name])))
            elif present:
                generalized = True
    return b.not_(b.and_(same)), generalized


def _const_of(b: Builder, sym, value):
    from pysmt.typing import BOOL, INT, REAL

    t = sym.get_type()
    if t is BOOL:
        return b.bool(bool(value))
    if t is INT:
        return b.int(int(value))
    if t is REAL:
        return b.real(value)
    return b.str(str(value))


def _model(enc: Encoder, res) -> dict:
    """The solver's model, with text values as strings (see ``IntStrings``)."""
    model = res.model or {}
    return enc.int_strings.decode_model(model) if enc.int_strings is not None else model


def _solver_form(enc: Encoder, formulas: list) -> list:
    """Search-steering formulas over the original symbols, in the form the solver was
    given. With text as integers, conjuncts the integers cannot say (string lengths,
    printable characters) are dropped: they only steer the search."""
    if enc.int_strings is None:
        return formulas
    conjuncts = [c for f in formulas for c in (f.args() if f.is_and() else (f,))]
    return enc.int_strings.convert([c for c in conjuncts if IntStrings.eligible([c])])


def _top_filter(plan: Rel):
    """The WHERE filter of a query's outermost SELECT, if any."""
    from spotit.ir import relational as R

    node = plan
    while isinstance(node, R.Project | R.Sort | R.Distinct):
        node = node.input
    return node if isinstance(node, R.Filter) and not isinstance(
        node.input, R.Aggregate) else None


def _where_text(sql: str) -> str:
    """The text of the outermost WHERE condition, as sqlglot writes it."""
    import sqlglot

    try:
        tree = sqlglot.parse_one(sql, dialect="sqlite")
    except sqlglot.errors.ParseError:
        return ""
    where = tree.args.get("where") if isinstance(tree, sqlglot.exp.Select) else None
    return where.this.sql(dialect="sqlite") if where is not None else ""


VACUITY_SECONDS = 3.0  # for telling whether a proved query returns no rows


class _RecursionDeeper(Exception):
    """Some database within the bound makes a recursion go past the rounds unrolled,
    and there is room to unroll more: the bound is encoded again with twice as many."""


RECURSION_DEEPENING = 16  # the rounds unrolled grow up to this times --recursion-depth


def _solver(opts: CheckOptions):
    """The check's backend. cvc5 with a time limit runs in a child process stopped at
    the limit: in process it overran --timeout 30 by minutes (Spider 2.0's local003)."""
    if opts.solver == "cvc5" and opts.timeout:
        from spotit.solvers.portfolio import ProcessSolver

        return ProcessSolver("cvc5", rlimit=opts.rlimit)
    return get_solver(opts.solver, rlimit=opts.rlimit)


def _rows_per_table(rows) -> int:
    return max(1, max((len(r) for r in rows.values()), default=0))


def _size(assertions) -> int:
    from spotit.smt.printer import formula_size

    return formula_size(assertions)


def _out_of_time(deadline: float | None) -> bool:
    return deadline is not None and time.monotonic() > deadline
