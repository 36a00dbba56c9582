"""The encoder: IR over a symbolic database -> symbolic relations and values.

``Encoder.rel(plan, env)`` gives a ``SymRel`` (a list of symbolic rows, each
with a presence flag); ``Encoder.value(expr, env)`` / ``truth(expr, env)`` give
a symbolic ``Value`` / ``Truth``. ``env`` is the stack of rows of enclosing
queries (innermost last), so correlated subqueries are encoded once per outer
row. Each IR class's encoding is looked up in the registry; this module only
dispatches, folds constant subexpressions through SQLite, and keeps the
bookkeeping the pipeline needs:

- ``definitions``: constraints that define fresh symbols (always satisfiable,
  one solution for given inputs), kept only if the defined symbols are used;
- ``approximations``: over-approximating encodings that were used (a model
  may then be spurious; proofs stay sound);
- ``choices``: nondeterminism of the SQL itself (ties under ORDER BY ... LIMIT,
  bare columns, a scalar subquery returning several rows) modelled by free
  choice symbols, so a counterexample must be checked for robustness.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from pysmt.fnode import FNode

from spotit import concrete
from spotit.encodings import registry
from spotit.encodings.builder import Builder
from spotit.encodings.database import SymbolicDatabase
from spotit.encodings.values import Truth, Value, constant, truth_to_value
from spotit.errors import BudgetExceeded, Unsupported
from spotit.ir import relational as R
from spotit.ir import scalar as S
from spotit.ir.render import render_expr
from spotit.ir.walk import max_outer_depth

Env = tuple[Sequence[Value], ...]


@dataclass(frozen=True, slots=True)
class SymRow:
    present: FNode
    values: Sequence[Value]


@dataclass(frozen=True, slots=True)
class SymRel:
    """Symbolic rows. ``order`` (when known) is each row's 0-based position among
    the present rows of a sorted relation; ``sorted_by`` says how it was sorted."""

    rows: tuple[SymRow, ...]
    order: tuple[FNode, ...] | None = None
    width: int = 0


# given a term's value where it is known (a constant, or the term itself), the values
# of a definition's symbols, or None: see Definition.solve
Solve = Callable[[Callable[[FNode], FNode]], "dict[FNode, FNode] | None"]


@dataclass(frozen=True)
class Definition:
    symbols: tuple[FNode, ...]
    constraint: FNode
    approximation: str | None = None
    exact_when: FNode | None = None
    # the symbols' values computed in Python from constant inputs (the Thm 1 harness
    # substitutes them and checks the constraint holds; never used to decide a verdict)
    solve: Solve | None = None
    # the constraint leaves the symbols exactly one value once the inputs are known
    # (where ``exact_when`` holds): what ``solve`` computes is then forced, and the
    # Thm 1 harness substitutes it as it does a pin (tests/test_definitions.py asks
    # the solver for a second value of each)
    functional: bool = False


@dataclass
class EncoderOptions:
    now: datetime = field(default_factory=lambda: datetime(2000, 1, 1))  # set by the pipeline
    max_nodes: int = 2_000_000  # formula budget per check (pysmt nodes created)
    # the order of a sorted result is compared (list semantics): rows tied under ORDER BY
    # are then an arbitrary choice even without LIMIT
    order_observable: bool = False
    # time.monotonic() past which encoding stops with BudgetExceeded (a check's --timeout)
    deadline: float | None = None
    # rounds of a recursive CTE unrolled (spotit.encodings.recursive)
    recursion_depth: int = 10
    # keep only the first symbolic row of every relation: what a query's encoding
    # *needs* (an unsupported construct raises the same) without its size -- the
    # fragment check of a pair the canonical forms settle
    narrow: bool = False
    # the member names the queries read from JSON ('$.name'): the objects searched first
    # are built of these (spotit.encodings.jsonfns)
    json_names: tuple[str, ...] = ()


class Encoder:
    def __init__(self, db: SymbolicDatabase, options: EncoderOptions | None = None):
        self.db = db
        self.b: Builder = db.b
        self.options = options or EncoderOptions()
        self.side: list[FNode] = []
        self.ranged: set[FNode] = set()  # terms whose range a side assertion states
        self.json_objects: dict = {}  # (text term, names) -> its exactly read JSON object
        self.definitions: list[Definition] = []
        self.approximations: set[str] = set()
        self.choices: list[str] = []
        self.determinism: list[FNode] = []  # conditions under which no choice matters
        self.exactness: list[FNode] = []  # conditions under which no approximation bites
        # those of approximations no lemma refines (rounding's are: a candidate SQLite
        # does not confirm teaches the solver the doubles there; an uninterpreted
        # function of text has no such lesson that carries over to other texts)
        self.unrefined: list[FNode] = []
        self.always_approximate = False  # some approximation has no exact range
        self.rounding_points: dict[FNode, FNode] = {}  # exact -> rounded: rounding.py
        self.parse_points: list[tuple[FNode, FNode, FNode]] = []  # rounding.parsed
        # (argument, application) of other functions with a SQLite reading (rounding.READINGS)
        self.reading_points: list[tuple[FNode, FNode]] = []
        self.unmodelled: set[str] = set()  # what SQLite does that no formula says (notes)
        self.two_phase = False  # set by the pipeline when determinism is not trivially true
        self._rel_cache: dict[tuple, SymRel] = {}
        self._keepalive: list[Env] = []  # envs whose ids key the cache
        self._depth: dict[R.Rel, int] = {}
        self._closed: dict[S.Expr, bool] = {}
        self.collation_keys: dict = {}  # (collation, text term) -> key alternative
        self.case_maps: dict = {}  # (text term, upper?) -> its UPPER/LOWER symbol
        self._budget_start = self.b.size()
        if self.options.deadline is not None:
            self.b.deadline = self.options.deadline
        self._encoded = 0  # expressions encoded (the deadline is looked at every 256)
        # a recursive CTE's reference -> the round its step reads now; and the presence
        # of rows a round past the unrolled ones would add (spotit.encodings.recursive)
        self.recursion_rounds: dict[R.RecursiveRef, SymRel] = {}
        self.recursion_open: list[FNode] = []
        self._expr_cache: dict[tuple, Value | Truth] = {}

    # ------------------------------------------------------------------ dispatch

    def rel(self, r: R.Rel, env: Env = ()) -> SymRel:
        # An uncorrelated subquery is the same relation for every outer row.
        depth = self._depth.get(r)
        if depth is None:
            depth = self._depth[r] = max_outer_depth(r)
        key = (r, tuple(id(x) for x in env[len(env) - depth:]) if depth else (),
               self._round_key())
        hit = self._rel_cache.get(key)
        if hit is not None:
            return hit
        fn = registry.RELATIONAL.get(type(r))
        if fn is None:
            raise Unsupported(type(r).__name__)
        out = fn(self, r, env)
        if self.options.narrow and len(out.rows) > 1:
            out = SymRel(out.rows[:1], out.order[:1] if out.order is not None else None,
                         out.width)
        self._rel_cache[key] = out
        if depth:
            self._keepalive.append(env)
        self._check_budget()
        return out

    def encode(self, e: S.Expr, env: Env) -> Value | Truth:
        self._encoded += 1
        if not self._encoded & 255:
            self._check_budget()
        if isinstance(e, S.Const | S.ColumnRef):
            fn = registry.SCALAR.get(type(e))
            assert fn is not None
            return fn(self, e, env)
        if self._is_closed(e):
            folded = self.fold(e)
            if folded is not None:
                return folded
        # the same expression over the same rows is one term: its fresh symbols (a
        # TRIM's parts, a rounding) are made once, so two queries computing it agree by
        # construction, as SQLite's deterministic functions do
        key = (e, tuple(id(frame) for frame in env), self._round_key())
        hit = self._expr_cache.get(key)
        if hit is not None:
            return hit
        fn = registry.SCALAR.get(type(e))
        if fn is None:
            raise Unsupported(type(e).__name__)
        choices = len(self.choices)
        out = fn(self, e, env)
        if len(self.choices) == choices:  # a choice SQLite makes per evaluation: not shared
            self._expr_cache[key] = out
            self._keepalive.append(env)
        return out

    def _round_key(self) -> tuple:
        """What the rounds of the recursive CTEs being encoded are (a cache key part:
        the same step over another round is another relation)."""
        return tuple(id(v) for v in self.recursion_rounds.values()) if \
            self.recursion_rounds else ()

    def with_recursion(self, ref: R.RecursiveRef, rows: SymRel, fn: Callable[[], SymRel]
                       ) -> SymRel:
        """``fn()`` with ``ref`` reading ``rows`` (one round of a recursive CTE)."""
        saved = self.recursion_rounds.get(ref)
        self.recursion_rounds[ref] = rows
        self._keepalive.append((rows,))
        try:
            return fn()
        finally:
            if saved is None:
                del self.recursion_rounds[ref]
            else:
                self.recursion_rounds[ref] = saved

    def value(self, e: S.Expr, env: Env) -> Value:
        out = self.encode(e, env)
        return truth_to_value(self.b, out) if isinstance(out, Truth) else out

    def truth(self, e: S.Expr, env: Env) -> Truth:
        from spotit.encodings.conversions import truth_of

        out = self.encode(e, env)
        return truth_of(self, out) if isinstance(out, Value) else out

    # ------------------------------------------------------------------ bookkeeping

    def define(self, symbols: Sequence[FNode], constraint: FNode,
               approximation: str | None = None, exact_when: FNode | None = None,
               solve: Solve | None = None, functional: bool = False) -> None:
        """Record the constraint defining fresh ``symbols`` (and, if it
        over-approximates, what and when it is exact): asserted only if some
        symbol is used. ``solve``: the symbols' values from constant inputs;
        ``functional``: the only values (see ``Definition``)."""
        self.definitions.append(Definition(tuple(symbols), constraint, approximation,
                                           exact_when, solve, functional))

    def used_definitions(self, roots: Sequence[FNode],
                         also: frozenset[FNode] = frozenset()) -> list[FNode]:
        """The definitions the formula ``roots`` needs, to a fixpoint; records their
        approximations. ``also``: symbols of further roots, collected once by a caller
        that asks about many formulas sharing them."""
        needed = self.needed_definitions(roots, also)
        for d in needed:
            if d.approximation:
                self.approximate(d.approximation, d.exact_when)
        return [d.constraint for d in needed]

    def needed_definitions(self, roots: Sequence[FNode],
                           also: frozenset[FNode] = frozenset()) -> list[Definition]:
        """``used_definitions`` without recording anything: the definitions the formula
        ``roots`` (and the symbols ``also``) need, to a fixpoint, in that order."""
        from spotit.smt.printer import collect_symbols

        used = set(collect_symbols(roots)) | also
        pending = list(self.definitions)
        out = []
        changed = True
        while changed:
            changed = False
            rest = []
            for d in pending:
                if any(s in used for s in d.symbols):
                    out.append(d)
                    used.update(collect_symbols([d.constraint]))
                    changed = True
                else:
                    rest.append(d)
            pending = rest
        return out

    def approximate(self, what: str, exact_when: FNode | None = None,
                    refined: bool = False) -> None:
        """Note an over-approximating encoding; ``exact_when`` is a condition under
        which it is exact (the pipeline searches there first). ``refined``: lemmas
        learned from unconfirmed candidates narrow it (spotit.encodings.rounding)."""
        self.approximations.add(what)
        if exact_when is not None:
            self.exactness.append(exact_when)
            if not refined:
                self.unrefined.append(exact_when)
        else:
            self.always_approximate = True

    def note_real_to_int(self) -> None:
        """REAL-to-INTEGER truncation is exact but needs ``to_int`` (mixed arithmetic)."""

    def choice(self, why: str, irrelevant_when: FNode | None = None) -> None:
        """Record SQL nondeterminism; ``irrelevant_when`` says when the choice cannot
        change anything (the pipeline first searches databases where it holds)."""
        self.choices.append(why)
        if irrelevant_when is not None:
            self.determinism.append(irrelevant_when)

    def _check_budget(self) -> None:
        grown = self.b.size() - self._budget_start
        if grown > self.options.max_nodes:
            raise BudgetExceeded(
                f"formula exceeds {self.options.max_nodes} nodes at bound {self.db.k}"
            )
        if self.options.deadline is not None and time.monotonic() > self.options.deadline:
            raise BudgetExceeded(f"time limit reached while encoding bound {self.db.k}")

    # ------------------------------------------------------------------ constant folding

    def _is_closed(self, e: S.Expr) -> bool:
        hit = self._closed.get(e)
        if hit is None:
            hit = render_expr(e) is not None
            self._closed[e] = hit
        return hit

    def fold(self, e: S.Expr) -> Value | Truth | None:
        """A closed expression's value, as SQLite computes it (None: not folded)."""
        sql = render_expr(e)
        if sql is None:
            return None
        try:
            v = concrete.evaluate(sql)
        except concrete.SqliteEvalError:
            return None  # e.g. an integer overflow error: let the encoding decide
        if isinstance(v, bytes):
            return None
        return constant(self.b, v)
