"""Thm 1 without a solver: the value the pinned row determines, where it does.

With every cell of the one-row table pinned, most encodings leave nothing to
choose: substituting the pinned constants and simplifying
(:mod:`spotit.smt.evaluate`) turns every assertion into TRUE and the encoded
value into one constant. Then "can the value be SQLite's?" and "can it be
anything else?" are answered by comparing that constant, and the solver (tens of
milliseconds to start and load, seconds on some string formulas) is not needed
for the case itself.

Sound only under three conditions, all checked here: the substituted values are
*forced* (each comes from an assertion ``symbol = constant`` or a Boolean
literal, or a definition ``symbol = term`` of forced ones); what is left of the
assertions, about symbols the value does not depend on (the payload of a NULL
cell, say), is satisfiable (:mod:`spotit.proofs.leftovers`: the solver, once per
shape), so a model exists; and the value's NULL
flag, the guards of its alternatives, the chosen term and the exactness
conditions are constants (so the value is the same in every model). Anything
else — a free choice, an uninterpreted division by zero, an assertion that is
FALSE — goes to the solver.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from pysmt.fnode import FNode

from spotit.encodings.builder import Builder
from spotit.encodings.encoder import Definition, Encoder
from spotit.encodings.rounding import Doubles, facts_at
from spotit.encodings.values import Value
from spotit.ir.types import StorageClass
from spotit.proofs.leftovers import linked, satisfiable
from spotit.smt.evaluate import Evaluator
from spotit.smt.ops import BUILTIN_NAMES
from spotit.smt.walkers import collect_symbols

DEFINITION_ROUNDS = 8  # symbol = term assertions followed, each round one level deeper
PROPAGATION_ROUNDS = 4  # times the assertions are simplified to find what they force next


@dataclass(frozen=True)
class Settled:
    """Assertions shared by many calls (a pinned row's, after its pins) that the seed
    and the completion already make TRUE: evaluated once per row instead of once per
    expression. Some hold only with the uninterpreted functions read as SQLite
    computes them (:class:`Doubles`): ``left`` keeps those, the completion
    substituted, for the solver to keep true alongside what it is asked."""

    formulas: tuple[FNode, ...]
    symbols: frozenset[FNode]  # their free symbols (not functions)
    left: tuple[FNode, ...]  # what of them holds only under SQLite's reading

    @classmethod
    def of(cls, b: Builder, formulas: Sequence[FNode], values: dict[FNode, FNode]
           ) -> Settled | None:
        """The settled assertions, if ``values`` make every one of ``formulas`` TRUE."""
        plain = Evaluator(b.m.env, values)
        left = [g for f in formulas if not (g := plain.simplify(f)).is_true()]
        doubles = Doubles(b.m.env, values)
        if not all(doubles.simplify(g).is_true() for g in left):
            return None
        return cls(tuple(formulas), frozenset(
            s for s in collect_symbols(formulas) if not s.get_type().is_function_type()),
            tuple(left))


@dataclass(frozen=True)
class Determined:
    """The one value the encoding allows: ``cls`` None is NULL."""

    cls: StorageClass | None
    value: object
    # the row is inside the range where the encoding is exact (None: not known: the
    # solver was not asked, on a sampled-out case, or did not answer in time)
    exact_range: bool | None
    # fresh symbols' values were computed in Python (Definition.solve) and checked
    # against their constraints: the value is admissible, but that the constraints
    # allow no other value (the exactness half of Thm 1) was not shown
    witnessed: bool = False


def determined_value(b: Builder, out: Value, assertions: Sequence[FNode],
                     exactness: Sequence[FNode], solver: str = "z3",
                     timeout: float = 2.0, seed: dict[FNode, FNode] | None = None,
                     completion: dict[FNode, FNode] | None = None,
                     witnesses: Sequence[Definition] = (), ask_range: bool = True,
                     settled: Settled | None = None) -> Determined | None:
    """The value ``out`` must take under ``assertions`` (the pins among them), or None
    when the full formula must go to the solver. ``solver`` only checks leftovers
    the value does not depend on (:mod:`spotit.proofs.leftovers`), in ``timeout``.
    ``seed``: what ``forced`` found for assertions shared by many calls (a row's pins).
    ``completion``: values for symbols the pins leave free (see ``completion``), tried
    first when the leftovers need a model; never used for the value itself.
    ``witnesses``: definitions whose symbols may be computed in Python when the value
    is not determined without them (the result then says ``witnessed``).
    ``ask_range``: whether the solver may be asked if the row is in the exact range
    when Python finds no model inside it (else ``exact_range`` is None: not checked).
    ``settled``: assertions left out of ``assertions`` that ``seed`` with ``completion``
    makes TRUE. A model of the rest that keeps the completion's values is one of
    them too, so they go to the solver only with the rest; if ``assertions`` force
    one of their symbols, they are taken in as ordinary assertions."""
    values = forced(b, assertions, seed)
    if values is None:
        return None
    if settled is not None and any(s in settled.symbols and s not in (seed or {})
                                   for s in values):
        return determined_value(b, out, [*settled.formulas, *assertions], exactness,
                                solver, timeout, seed, completion, witnesses, ask_range)
    ev = Evaluator(b.m.env, values)
    known = _value(ev, out)
    witnessed = False
    if known is None and witnesses and with_witnesses(b, values, assertions, witnesses):
        ev, witnessed = Evaluator(b.m.env, values), True
        known = _value(ev, out)
    doubles = False
    if known is None:
        # roundings computed as SQLite's doubles are (every assertion must then hold),
        # and the witnesses computed from them (the digits of a double's text)
        if witnesses:
            values = dict(values)
            with_witnesses(b, values, assertions, witnesses, Doubles)
        ev, witnessed, doubles = Doubles(b.m.env, values), True, True
        known = _value(ev, out)
    if known is None:
        return None
    cls, value = known
    rest = [r for f in assertions if not (r := ev.simplify(f)).is_true()]
    # the value is fixed; the rest must have a model (else the solver path finds none)
    complete = _Completed(b, {**(completion or {}), **values}, witnesses)
    if doubles and rest and complete.rest(rest):
        # the value holds under SQLite's reading of the functions: the model must too,
        # and a solver's model of the rest may read them otherwise
        return None
    if rest and _has_model(rest, complete, solver, timeout, settled) is not True:
        return None
    if doubles:
        # the doubles are one model; whether the rounding can also be the identity here
        # (the exact range) is the solver path's question, on the sampled cases
        return Determined(cls, value, True, witnessed)
    exact = ev.simplify(b.and_(exactness))
    if exact.is_bool_constant():
        in_range = exact.is_true()
    else:  # as the solver path asks it: is there a model inside the exact range?
        question = [*rest, *_conjuncts([exact])]
        if not complete.rest(question):
            in_range = True
        elif ask_range:
            in_range = _has_model(question, complete, solver, timeout, settled)
        else:
            in_range = None
    return Determined(cls, value, in_range, witnessed)


def _value(ev: Evaluator, out: Value) -> tuple[StorageClass | None, object] | None:
    """(storage class, value) of ``out`` if ``ev`` makes it one constant, else None."""
    null = ev.simplify(out.null)
    if not null.is_bool_constant():
        return None
    if null.is_true():
        return None, None
    chosen = []
    for a in out.alts:
        guard = ev.simplify(a.guard)
        if not guard.is_bool_constant():
            return None
        if guard.is_true():
            chosen.append((a.cls, ev.simplify(a.term)))
    if len(chosen) != 1 or not chosen[0][1].is_constant():
        return None  # none or several alternatives: the solver says what that means
    return chosen[0][0], _python(chosen[0][1])


class _Completed:
    """Values that complete a partial model without a solver: the row's completion,
    then what the definitions' ``solve`` computes from it, with the uninterpreted
    functions read as SQLite computes them (:class:`Doubles`)."""

    def __init__(self, b: Builder, values: dict[FNode, FNode],
                 witnesses: Sequence[Definition]):
        self.b, self.values, self.witnesses = b, values, witnesses

    def rest(self, assertions: Sequence[FNode]) -> list[FNode]:
        """What of ``assertions`` these values, extended in Python, do not satisfy: the
        groups of linked assertions left for the solver (empty: a model, every
        assertion TRUE under one total interpretation)."""
        # what goes on to the solver keeps its functions uninterpreted: fixing some of
        # their points here while the solver chooses others need not be one function
        plain = Evaluator(self.b.m.env, self.values)
        rest = [r for f in assertions if not (r := plain.simplify(f)).is_true()]
        if not rest or self.model(rest) is not None:
            return []
        # group by group (they share no symbol): the payload of a NULL cell completes
        # in Python even where a group of choices (tiebreaks all distinct) does not
        groups = linked(rest)
        if len(groups) > 1:
            rest = [f for group in groups if self.model(group) is None for f in group]
        return [*rest, *self._points(rest)]

    def _points(self, rest: Sequence[FNode]) -> list[FNode]:
        """The known points (``g(constants) = constant``) of the uninterpreted functions
        ``rest`` applies: substituted, they are gone from it, and the solver would be
        free to give ``g`` another value there at an argument it does not yet know."""
        applied = {s for s in collect_symbols(rest) if s.get_type().is_function_type()}
        return [self.b.m.EqualsOrIff(k, v) for k, v in self.values.items()
                if k.is_function_application() and k.function_name() in applied]

    def model(self, assertions: Sequence[FNode]) -> dict[FNode, FNode] | None:
        """These values extended to a model of ``assertions`` (the functions read as
        SQLite computes them), or None if that finds none."""
        values = dict(self.values)
        left = self._left(values, assertions)
        if not left:
            return values
        if any(g.is_false() for g in left):
            return None
        # symbols nothing computes (a flag the completion's model did not name): the
        # plainest value of their sort, then what follows from it
        witnessed = {s for d in self.witnesses for s in d.symbols}
        defined = witnessed | {s for s, _ in _definitions(assertions, values)}
        free = [s for s in collect_symbols(left) if s not in values and s not in defined
                and not s.get_type().is_function_type()]
        if free:
            values.update((s, _plain(self.b, s)) for s in free)
            left = self._left(values, assertions)
            if not left:
                return values
        # a symbol defined by the very parts its witness computes from it (a NULL cell's
        # text, ``t = W ++ G ++ I ++ ...`` of the number it reads as): nothing computes
        # it, so its plainest value, then the parts from that (the solver took seconds)
        stuck = [s for s in collect_symbols(left) if s not in values and s not in witnessed
                 and not s.get_type().is_function_type()]
        if stuck:
            values.update((s, _plain(self.b, s)) for s in stuck)
            if not self._left(values, assertions):
                return values
        return None

    def _left(self, values: dict[FNode, FNode], assertions: Sequence[FNode]) -> list[FNode]:
        """Extend ``values`` by what definitions and witnesses compute, and return what
        of ``assertions`` is then not TRUE (SQLite's reading of the functions)."""
        _follow(self.b, values, _definitions(assertions, values), Doubles)
        with_witnesses(self.b, values, assertions, self.witnesses, Doubles)
        ev = Doubles(self.b.m.env, values)
        return [g for f in assertions if not (g := ev.simplify(f)).is_true()]


def _plain(b: Builder, s: FNode) -> FNode:
    """The simplest constant of ``s``'s sort."""
    t = s.get_type()
    if t.is_bool_type():
        return b.FALSE
    if t.is_int_type():
        return b.int(0)
    if t.is_real_type():
        return b.real(0)
    return b.str("")


def _has_model(assertions: Sequence[FNode], complete: _Completed, solver: str,
               timeout: float, settled: Settled | None = None) -> bool | None:
    """Whether ``assertions`` are satisfiable: first with the completion substituted and
    the witnesses computed (a model of the smaller question, completed by them, is a
    model of the whole; the solver's witnesses over constants take milliseconds where
    over a free payload they take seconds, Python's take microseconds), then as they
    are when that finds none. ``settled`` (see ``Settled``): assertions TRUE under
    the completion, which the smaller question keeps (what of them holds only under
    SQLite's reading of the functions goes with it); asked as they are, the solver
    chooses its own values and must satisfy them too."""
    rest = complete.rest(assertions)
    if not rest:
        return True
    kept, shared = (settled.left, settled.formulas) if settled is not None else ((), ())
    if satisfiable([*kept, *rest], solver, timeout) is True:
        return True
    return satisfiable([*shared, *assertions], solver, timeout)


def leftovers_hold(b: Builder, rest: Sequence[FNode], values: dict[FNode, FNode],
                   witnesses: Sequence[Definition], solver: str, timeout: float) -> bool | None:
    """Whether ``rest`` (what ``values`` leave of the assertions) has a model: in Python
    where the witnesses and SQLite's reading of the functions complete ``values`` to
    one, else the solver (once per shape). Python finds most: the payload of a NULL
    cell, the digits of a text read as a number; the solver on those took seconds."""
    return _has_model(rest, _Completed(b, values, witnesses), solver, timeout)


def completion(b: Builder, assertions: Sequence[FNode], solver: str, timeout: float,
               witnesses: Sequence[Definition] = ()) -> dict[FNode, FNode]:
    """A model of ``assertions`` as symbol -> constant (empty if none is found in
    ``timeout``): for a pinned row, values of what the pins leave free, such as the
    payload of a NULL cell. Any one model will do; it only helps show leftovers
    satisfiable (``_has_model``), so a wrong or missing one costs time, not soundness.
    Python's first (the ``witnesses`` and SQLite's reading of the functions: a text
    read as a number, a rounding), the solver's when that finds none."""
    from spotit.smt.printer import SmtLibWriter
    from spotit.solvers import get_solver
    from spotit.solvers.base import Status

    if not assertions:
        return {}
    computed = _Completed(b, {}, witnesses).model(assertions)
    if computed is not None:
        return computed
    symbols = {s.symbol_name(): s for s in collect_symbols(assertions)
               if not s.get_type().is_function_type()}
    res = get_solver(solver).check(SmtLibWriter().script(assertions), timeout=timeout)
    if res.status is not Status.SAT or not res.model:
        return {}
    out = {}
    for name, v in res.model.items():
        s = symbols.get(name)
        const = b.model_constant(s, v) if s is not None else None
        if const is not None:
            out[s] = const
    return out


def at_doubles(b: Builder, encoders: Sequence[Encoder], assertions: Sequence[FNode],
               seed: dict[FNode, FNode] | None = None) -> list[FNode]:
    """SQLite's rounding at the exact values the pins fix (``rounding.facts_at``), for a
    harness's exact range: there rounding is the identity, which on an exact value no
    double has (0.7 * 10) is no reading SQLite has. True facts, so they only narrow
    the exact range to rows where it is SQLite's."""
    if not any(e.rounding_points or e.parse_points or e.reading_points for e in encoders):
        return []
    # propagated, not forced: a rounding may read a functional definition's symbols
    # (the sign of a text against a constant in ``(r + (x > 'b')) * 10``)
    values = propagated(b, assertions, seed,
                        definitions=[d for e in encoders for d in e.definitions])
    if values is None:
        return []
    return [f for e in encoders for f in facts_at(e, values)]


def forced(b: Builder, assertions: Sequence[FNode], seed: dict[FNode, FNode] | None = None
           ) -> dict[FNode, FNode] | None:
    """symbol -> constant for every symbol an assertion forces: Boolean literals and
    ``symbol = constant`` (the pins), then definitions ``symbol = term`` whose term
    evaluates to a constant on what is known so far. None if a symbol is forced to
    two values. ``seed``: values other assertions (asserted too) already force."""
    values: dict[FNode, FNode] = dict(seed or {})
    for f in _conjuncts(assertions):
        pair = _literal(b, f)
        if pair is None:
            continue
        sym, const = pair
        if values.setdefault(sym, const) is not const:
            return None
    _follow(b, values, _definitions(assertions, values))
    return values


def propagated(b: Builder, assertions: Sequence[FNode],
               seed: dict[FNode, FNode] | None = None,
               definitions: Sequence[Definition] = ()) -> dict[FNode, FNode] | None:
    """``forced``, then again on the assertions simplified by what it found, until
    nothing new: an assertion that becomes ``symbol = constant`` only once others are
    known (``representative = 0`` when a group's other members are pinned to other
    keys) forces its symbol too, as does ``g(constants) = constant`` its point of an
    uninterpreted function, and a functional definition among the assertions
    (``Definition.functional``) its symbols once its inputs are known. Each value is
    implied by the assertions, so substituting them changes no answer. None as
    ``forced``."""
    asserted = set(assertions)
    functional = [d for d in definitions if d.functional and d.solve is not None
                  and d.constraint in asserted]
    values = forced(b, assertions, seed)
    for _ in range(PROPAGATION_ROUNDS):
        if values is None:
            return None
        ev = Evaluator(b.m.env, values)
        left = [g for f in assertions if not (g := ev.simplify(f)).is_constant()]
        more = forced(b, left, values)
        if more is None:
            return None
        pairs = [p for f in _conjuncts(left) if (p := _application(f)) is not None]
        for d in functional:
            if any(s not in values for s in d.symbols) and (
                    d.exact_when is None or ev.simplify(d.exact_when).is_true()):
                pairs += (d.solve(ev.simplify) or {}).items()
        for key, value in pairs:
            if more.setdefault(key, value) is not value:
                return None
        if len(more) == len(values):
            return more
        values = more
    return values


class Residual:
    """The solver's questions on what the assertions leave open. ``propagated``'s
    values are substituted into the assertions and into each question, and of the
    groups of linked assertions (``linked``: they share no symbol) those Python
    completes to a model are left out (``_Completed.rest``: a NULL cell's payload).
    Each value is implied, and the groups' models put together are one model, so
    every question keeps its answer (the forced points of uninterpreted functions
    stay asserted where the question applies them). On a handful of pinned rows most
    of a query's formula is forced and what is left is a few choices (which row
    represents a group), where the whole formula took the solver past its timeout: a
    GROUP BY over a NOCASE column of three rows took z3 15.8 s, its residual 0.2 s
    (the case-folded payloads of the NULL cells, which the question does not read,
    took all the rest)."""

    def __init__(self, b: Builder, assertions: Sequence[FNode],
                 definitions: Sequence[Definition], values: dict[FNode, FNode] | None):
        """``values``: what ``propagated`` found of ``assertions`` (None: a symbol forced
        two ways, and the questions are asked whole)."""
        self.b = b
        self.values = values if values is not None else {}
        self.ev = Evaluator(b.m.env, self.values)
        left = [g for f in assertions if not (g := self.ev.simplify(f)).is_true()]
        self.left = left if values is not None else list(assertions)
        self.complete = _Completed(b, self.values, definitions)
        self.computed = {s for d in definitions for s in d.symbols}  # by their witnesses

    @classmethod
    def of(cls, b: Builder, assertions: Sequence[FNode],
           definitions: Sequence[Definition]) -> Residual:
        return cls(b, assertions, definitions,
                   propagated(b, assertions, definitions=definitions))

    def __call__(self, *formulas: FNode) -> list[FNode]:
        """The assertions of the question whether ``formulas`` hold with the others
        (empty: Python found a model)."""
        return self.complete.rest([*self.left, *(self.ev.simplify(f) for f in formulas)])

    def narrowed(self, asked: Sequence[FNode]) -> list[FNode]:
        """Each text ``asked`` leaves free (the payload of a NULL cell, which a
        group's representative may be) set to '', what the witnesses compute from
        texts left to follow: a model of ``asked`` with these is one of ``asked``
        (SAT is SAT), found where the solver on the free texts' case maps and
        conversions took seconds; none says nothing (ask ``asked`` itself)."""
        return [self.b.eq(s, self.b.str("")) for s in collect_symbols(asked)
                if s.get_type().is_string_type() and s not in self.computed]

    def model(self, answer: dict[str, object] | None) -> dict[str, object]:
        """A solver's model of a question with the forced values added back (by name,
        as the solver's are)."""
        forced = {k.symbol_name(): v.constant_value() for k, v in self.values.items()
                  if k.is_symbol()}
        return {**forced, **(answer or {})}


def _application(f: FNode) -> tuple[FNode, FNode] | None:
    """(application, constant) if ``f`` says ``g(constants) = constant`` of an
    uninterpreted function ``g`` (a sum's double in the exact range): its value at that
    point, forced as a symbol's is (:class:`Evaluator` substitutes it)."""
    if f.is_equals():
        for x, y in (f.args(), reversed(f.args())):
            if (x.is_function_application() and y.is_constant()
                    and x.function_name().symbol_name() not in BUILTIN_NAMES
                    and all(a.is_constant() for a in x.args())):
                return x, y
    return None


def with_witnesses(b: Builder, values: dict[FNode, FNode], assertions: Sequence[FNode],
                   witnesses: Sequence[Definition], evaluator: type[Evaluator] = Evaluator
                   ) -> bool:
    """Add to ``values`` the symbols of each definition in ``witnesses`` that its
    ``solve`` computes from what is known, and what then follows; True if any was.
    The values are only a candidate: the caller substitutes them into the assertions
    (the definitions' constraints among them), which must then hold. ``evaluator``:
    how inputs are computed (:class:`Doubles`: functions read as SQLite's)."""
    definitions = _definitions(assertions, values)
    used = False
    for _ in range(DEFINITION_ROUNDS):
        ev = evaluator(b.m.env, values)
        found = False
        for d in witnesses:
            if d.solve is None or any(s in values for s in d.symbols):
                continue
            got = d.solve(ev.simplify)
            if got:
                values.update(got)
                found = True
        if not found:
            break
        used = True
        _follow(b, values, definitions, evaluator)
    return used


def _definitions(assertions: Sequence[FNode], values: dict[FNode, FNode]
                 ) -> list[tuple[FNode, FNode]]:
    return [(s, t) for f in _conjuncts(assertions) if (st := _definition(f)) is not None
            for s, t in [st] if s not in values]


def _follow(b: Builder, values: dict[FNode, FNode],
            definitions: Sequence[tuple[FNode, FNode]],
            evaluator: type[Evaluator] = Evaluator) -> None:
    """Add the symbols of ``symbol = term`` definitions whose term evaluates to a
    constant on what is known, each round one level deeper."""
    for _ in range(DEFINITION_ROUNDS):
        ev = evaluator(b.m.env, values)
        found = {}
        for sym, term in definitions:
            if sym not in values and sym not in found:
                v = ev.simplify(term)
                if v.is_constant():
                    found[sym] = v
        if not found:
            break
        values.update(found)


def _conjuncts(formulas: Iterable[FNode]) -> Iterable[FNode]:
    for f in formulas:
        if f.is_and():
            yield from _conjuncts(f.args())
        else:
            yield f


def _literal(b: Builder, f: FNode) -> tuple[FNode, FNode] | None:
    """(symbol, constant) if ``f`` says exactly that."""
    if f.is_symbol():
        return f, b.TRUE
    if f.is_not() and f.arg(0).is_symbol():
        return f.arg(0), b.FALSE
    if f.is_equals() or f.is_iff():
        x, y = f.args()
        if x.is_symbol() and y.is_constant():
            return x, y
        if y.is_symbol() and x.is_constant():
            return y, x
    return None


def _definition(f: FNode) -> tuple[FNode, FNode] | None:
    """(symbol, term) if ``f`` is ``symbol = term``."""
    if f.is_equals() or f.is_iff():
        x, y = f.args()
        if x.is_symbol() and not x.get_type().is_function_type():
            return x, y
        if y.is_symbol() and not y.get_type().is_function_type():
            return y, x
    return None


def _python(term: FNode) -> object:
    v = term.constant_value()
    if term.is_real_constant():
        return Fraction(v)
    if term.is_int_constant():
        return int(v)
    return v
