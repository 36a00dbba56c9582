"""What a counterexample relies on, computed rather than guessed.

A refutation convinces a person only if the data it needs is data the real
database could hold. For a confirmed counterexample we collect the features it
has that real data often lacks -- a NULL in a column, two identical rows, a
value repeated in a column, an empty table, a value outside its column's declared
type (``--data sqlite``), text values that differ only in letter case, a value
outside an assumed range (``--constraints``), a text value the queries compare or
compute with a number -- and for each one search again (same bound) with that
feature forbidden:

- no difference within K without it (every bound proven): the difference *needs* it;
- a confirmed counterexample without it: it is *not needed*;
- otherwise (a time limit, or the new counterexample has the feature too, because
  the restriction could not forbid it exactly): unknown.

Forbidding reuses the constraint machinery (``spotit.constraints``): NOT NULL on the
column, UNIQUE over the table's columns or over the column, a table assumed non-empty,
the ``declared`` data level, the range constraint itself, ``CHECK (c IS NULL OR c <
'')`` (no text in c: every number sorts below the empty text, no text does), and for
case: ``Table.case_exact`` (two rows' values equal under NOCASE are equal) plus one
CHECK per text literal L of the queries (``LOWER(c) <> lower(L) OR c = L COLLATE
BINARY`` for text c). Each restriction removes only databases that have the feature,
so a proof under it is a proof about the databases without the feature; where it
removes fewer (UNIQUE ignores rows with a NULL), a new counterexample may still have
the feature, and the answer is then unknown.

One more feature is reported but never searched: an integer division or ROUND whose
result changes on the counterexample when carried out exactly (the query run again
on it with ``a / b`` as ``a * 1.0 / b`` where ``a % b <> 0``, and ``ROUND(x, n)``
as ``x``). Forbidding it
would mean assuming every division SQLite *evaluates* is exact; the encoding
evaluates every division on every symbolic row, present or not, taken branch or not,
so asserting exactness there would also remove databases without the feature, and a
proof under it would prove nothing. Its ``needed`` is null, with a ``why``.
"""

from __future__ import annotations

import functools
import string
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

from spotit.errors import SpotItError
from spotit.schema import Schema
from spotit.verdict import CheckResult, Verdict

MAX_FEATURES = 8  # features searched per counterexample (the most specific first)
MAX_LITERALS = 12  # text literals a case-only feature is measured against
NO_TIME_SECONDS = 0.5  # a budget this small or less: the searches are not started
# every kind, in the order the report lists them
KINDS = ("null", "duplicates", "repeated", "empty", "stored_type", "case_only",
         "out_of_range", "text_number", "dangling_reference", "inexact_division")
NOT_SEARCHED = ("cannot be forbidden: the encoding evaluates every division on every "
                "symbolic row, present or not, so assuming them exact would also remove "
                "databases where no evaluated division is inexact")
_FOLD = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


def fold(text: str) -> str:
    """``text`` with ASCII letters lower-cased, as SQLite's LOWER and NOCASE fold."""
    return text.translate(_FOLD)


@dataclass(frozen=True)
class Feature:
    kind: str  # one of KINDS
    table: str
    column: str | None = None
    # case_only: the text literals of the queries its values are compared against
    literals: tuple[str, ...] = field(default=(), compare=False)
    rule: Any = field(default=None, compare=False)  # out_of_range: the Range constraint
    fk: Any = field(default=None, compare=False)  # dangling_reference: the ForeignKey
    queries: str = field(default="", compare=False)  # inexact_division: which query

    @property
    def detail(self) -> str:
        where = f"{self.table}.{self.column}" if self.column else self.table
        return {
            "null": f"NULL in {where}",
            "duplicates": f"two identical rows in {where}",
            "repeated": f"a non-NULL value repeated in {where}",
            "empty": f"no rows in {where}",
            "stored_type": "a value outside its column's declared type",
            "case_only": f"case-only differences in {where} (two values, or a value and a "
                         "text literal of the queries, equal but for ASCII letter case)",
            "out_of_range": f"a value out of range in {where} "
                            f"({self.rule.describe() if self.rule else ''})",
            "text_number": f"a text value compared or computed with a number in {where}",
            "dangling_reference": f"a row of {self.table} whose key {self.column} has no "
                                  f"{self.fk.ref_table if self.fk else 'parent'} row (a "
                                  "foreign key SpotIt does not assume)",
            "inexact_division": "an inexact integer division or rounding in "
                                f"{self.queries} (its result changes when computed exactly)",
        }[self.kind]

    @property
    def restriction(self) -> str:
        """What the search without it assumes, and whether that forbids it exactly."""
        where = f"{self.table}.{self.column}" if self.column else self.table
        lits = ", ".join(repr(x) for x in self.literals)
        return {
            "null": f"NOT NULL {where} (exact)",
            "duplicates": f"UNIQUE over every column of {where} (rows with a NULL may "
                          "still be identical)",
            "repeated": f"UNIQUE {where} (exact)",
            "empty": f"{where} has a row (exact)",
            "stored_type": "the declared data level (exact)",
            "case_only": f"values of {where} equal under NOCASE are equal"
                         + (f", and none differs only in case from {lits}" if lits else "")
                         + " (exact)",
            "out_of_range": f"{self.rule.describe() if self.rule else ''} (exact)",
            "text_number": f"no text in {where}: CHECK ({self.column} IS NULL OR "
                           f"{self.column} < '') (exact)",
            "dangling_reference": f"the foreign key {where} -> "
                                  f"{self.fk.ref_table if self.fk else ''} holds (exact)",
            "inexact_division": "none: cannot be forbidden soundly",
        }[self.kind]

    def present_in(self, counterexample: dict[str, list[dict[str, Any]]], schema: Schema
                   ) -> bool:
        if self.kind == "inexact_division":
            return True  # never searched again: nothing to tell apart
        if self.kind == "out_of_range":
            return _breaks(self.rule, counterexample, schema)
        if self.kind == "dangling_reference":
            from spotit.assumptions import dangling

            rows = {t: [tuple(r.values()) for r in rs] for t, rs in counterexample.items()}
            t = schema.table(self.table)
            return t is not None and dangling(schema, rows, t, self.fk) > 0
        rows = _rows_of(counterexample, self.table)
        if self.kind == "case_only":
            return _case_only(
                [v for r in rows if isinstance(v := _get(r, self.column), str)], self.literals)
        if self.kind == "text_number":
            return any(isinstance(_get(r, self.column), str) for r in rows)
        if self.kind == "null":
            return any(_get(r, self.column) is None for r in rows)
        if self.kind == "duplicates":
            seen = [tuple(r.values()) for r in rows]
            return len(set(seen)) < len(seen)
        if self.kind == "repeated":
            values = [_get(r, self.column) for r in rows if _get(r, self.column) is not None]
            return len(set(values)) < len(values)
        if self.kind == "empty":
            return not rows
        return bool(_off_type(counterexample, schema))


def features(result: CheckResult, schema: Schema, gold: str | None = None,
             pred: str | None = None, constraints: Any = None) -> list[Feature]:
    """The features of ``result``'s counterexample, over what the queries read. With the
    queries, also case-only differences and text compared with numbers; with
    ``constraints`` (a ``ConstraintSet``), values out of its ranges."""
    cex = result.counterexample or {}
    read = result.counterexample_read or {}
    facts = _QueryFacts.of(schema, [q for q in (gold, pred) if q], result.data)
    found: list[Feature] = []
    later: list[Feature] = []  # the new kinds, after the older, more common ones
    for table in dict.fromkeys([*read, *cex]):
        t = schema.table(table)
        if t is None:
            continue
        rows = _rows_of(cex, table)
        cols = read.get(table) or [c.name for c in t.columns]
        stored = {c.name.lower() for c in t.columns}
        if not rows:
            if table in read:  # an empty table the queries read
                found.append(Feature("empty", t.name))
            continue
        for col in cols:
            if col.lower() not in stored:
                continue  # the rowid: never NULL, never repeated
            f = Feature("null", t.name, col)
            if f.present_in(cex, schema):
                found.append(f)
        if Feature("duplicates", t.name).present_in(cex, schema):
            found.append(Feature("duplicates", t.name))
        for col in cols:
            if col.lower() in stored and not _unique(t, col):
                f = Feature("repeated", t.name, col)
                if f.present_in(cex, schema):
                    found.append(f)
        for col in cols:
            if col.lower() not in stored:
                continue
            f = Feature("case_only", t.name, col, literals=facts.literals)
            if f.present_in(cex, schema):
                later.append(f)
            f = Feature("text_number", t.name, col)
            if f"{t.name}.{col}".lower() in facts.numeric and f.present_in(cex, schema):
                later.append(f)
    if result.data == "sqlite" and _off_type(cex, schema):
        found.append(Feature("stored_type", ""))
    level = schema.with_data(result.data if result.data in ("declared", "sqlite")
                             else "declared")
    for t in level.tables:
        if t.name.lower() not in {x.lower() for x in cex}:
            continue
        for fk, _why in t.dropped_foreign_keys:
            f = Feature("dangling_reference", t.name, ", ".join(fk.columns), fk=fk)
            if f.present_in(cex, schema):
                found.append(f)
    if constraints is not None and result.data != "realistic":
        for rule in constraints.of_kind("range"):
            if rule.table.lower() in {t.lower() for t in read}:
                f = Feature("out_of_range", rule.table, rule.column, rule=rule)
                if f.present_in(cex, schema):
                    later.append(f)
    return [*found, *later][:MAX_FEATURES]


@dataclass(frozen=True)
class _QueryFacts:
    """What the queries do that the new features depend on."""

    literals: tuple[str, ...]  # text literals with an ASCII letter (case can differ)
    numeric: frozenset[str]  # "table.column" (lower case) compared or computed with numbers

    @classmethod
    def of(cls, schema: Schema, queries: list[str], data: str | None) -> _QueryFacts:
        from spotit.ir import relational as R
        from spotit.ir import scalar as S
        from spotit.ir.walk import iter_exprs, iter_rels

        literals: dict[str, None] = {}
        numeric: set[str] = set()
        for plan in _plans(schema, queries, data):
            for e, _ in iter_exprs(plan):
                if isinstance(e, S.Const) and isinstance(e.value, str) and \
                        any(ch in string.ascii_letters for ch in e.value):
                    literals.setdefault(e.value)
                for x in _numeric_operands(e):
                    numeric.update(_origins(x))
            for rel in iter_rels(plan):
                if isinstance(rel, R.Aggregate):
                    for agg in rel.aggs:
                        if agg.func in ("SUM", "TOTAL", "AVG") and agg.arg is not None:
                            numeric.update(_origins(agg.arg))
        return cls(tuple(literals)[:MAX_LITERALS], frozenset(numeric))


def _plans(schema: Schema, queries: list[str], data: str | None) -> list:
    """The bound plans of ``queries`` (those that bind; features are best effort)."""
    from spotit.frontend.binder import bind
    from spotit.frontend.parser import parse

    level = data if data in ("declared", "sqlite") else "declared"
    out = []
    for sql in queries:
        try:
            out.append(bind(parse(sql), schema.with_data(level)))
        except Exception:  # only which features to look for depends on it
            continue
    return out


def _numeric_operands(e) -> list:
    """The operands ``e`` treats as numbers: both sides of arithmetic, what a CAST to a
    numeric type or ABS/ROUND takes, and a side compared with a numeric expression."""
    from spotit.ir import scalar as S
    from spotit.ir.types import Affinity

    if isinstance(e, S.Arith):
        return [e.left, e.right]
    if isinstance(e, S.Negate):
        return [e.operand]
    if isinstance(e, S.Cast) and e.target.is_numeric:
        return [e.operand]
    if isinstance(e, S.Call) and e.name in ("ABS", "ROUND"):
        return list(e.args[:1])
    if isinstance(e, S.Compare | S.Is):
        # a TEXT side compared with a number without numeric affinity (a literal, an
        # arithmetic result) compares as text: SQLite converts the number, not the text
        return [x for x, other in ((e.left, e.right), (e.right, e.left)) if _is_numeric(other)
                and (S.affinity_of(x) is not Affinity.TEXT or S.affinity_of(other).is_numeric)]
    return []


def _is_numeric(e) -> bool:
    from spotit.ir import scalar as S

    while isinstance(e, S.Collate):
        e = e.operand
    if isinstance(e, S.Const):
        return isinstance(e.value, int | float) and not isinstance(e.value, bool)
    if isinstance(e, S.Negate | S.Arith):
        return True
    if isinstance(e, S.Cast):
        return e.target.is_numeric
    if isinstance(e, S.ColumnRef):
        return e.affinity.is_numeric
    return isinstance(e, S.Call) and e.name in numeric_functions()


@functools.cache
def numeric_functions() -> frozenset[str]:
    """The scalar functions (and aliases) whose non-NULL result is always a number:
    those the function registry says return ``"numeric"``."""
    import spotit.encodings  # noqa: F401  (runs every registration)
    from spotit.encodings.registry import FUNCTIONS

    return frozenset(name for name, spec in FUNCTIONS.items() if spec.returns == "numeric")


def _origins(e) -> set[str]:
    """The base columns (``table.column``, lower case) an operand is, through COLLATE."""
    from spotit.ir import scalar as S

    while isinstance(e, S.Collate):
        e = e.operand
    origin = getattr(getattr(e, "collation", None), "origin", None) \
        if isinstance(e, S.ColumnRef) else None
    return {origin.lower()} if origin else set()


def _case_only(values: list[str], literals: tuple[str, ...]) -> bool:
    """Two of ``values``, or one and a literal, differ but are equal folded."""
    by_fold: dict[str, set[str]] = {}
    for v in values:
        by_fold.setdefault(fold(v), set()).add(v)
    if any(len(vs) > 1 for vs in by_fold.values()):
        return True
    return any(lit not in by_fold.get(fold(lit), {lit}) for lit in literals)


def _breaks(rule: Any, counterexample: dict, schema: Schema) -> bool:
    """SQLite says the counterexample breaks ``rule`` (True when it cannot say: the
    feature is then never ruled out on this counterexample)."""
    from spotit.constraints.model import ConstraintSet
    from spotit.constraints.violations import violations

    rows = {t: [tuple(r.values()) for r in rs] for t, rs in counterexample.items()}
    try:
        return bool(violations(schema, rows, ConstraintSet((rule,))))
    except Exception:
        return True


def explain(schema: Schema, gold: str, pred: str, result: CheckResult, *,
            seconds: float = 60.0, constraints: Any = None, **options: Any
            ) -> list[dict[str, Any]]:
    """``[{"feature", "detail", "needed"}]`` for a confirmed counterexample (empty for
    any other verdict). ``options`` are ``check``'s (bound, solver, semantics, now,
    dialect, data); ``seconds`` is the budget for all the searches together;
    ``constraints`` (a ``ConstraintSet`` resolved against ``schema``) gives the ranges
    a value can be out of."""
    from spotit.pipeline import check

    if result.verdict is not Verdict.NOT_EQUIVALENT or result.counterexample is None:
        return []
    found = features(result, schema, gold, pred, constraints)
    out = []
    deadline = time.monotonic() + seconds
    # random databases first: a confirmed counterexample without a feature shows it is
    # not needed, for every feature at once and without the solver
    witnesses = (_witnesses(schema, gold, pred, result, options, found)
                 if found and seconds > NO_TIME_SECONDS else [])
    searched = []
    for f in found:
        entry = {"feature": f.kind, "table": f.table, "column": f.column,
                 "detail": f.detail, "restriction": f.restriction, "needed": None}
        out.append(entry)
        if any(not f.present_in(w, schema) for w in witnesses):
            entry["needed"] = False
        else:
            searched.append((f, entry))
    if len(searched) > 1:
        # one search with every open feature forbidden at once: a counterexample there
        # shows at once that none of them is needed (most are not), where one search
        # per feature would take as many checks
        _without_all(searched, schema, gold, pred, options, deadline)
        searched = [(f, entry) for f, entry in searched if entry["needed"] is None]
    for i, (f, entry) in enumerate(searched):
        left = deadline - time.monotonic()
        if left <= NO_TIME_SECONDS:
            entry["why"] = "no time left"
            continue
        try:
            restricted, opts = _without(f, schema, options)
        except SpotItError as e:
            entry["why"] = f"cannot forbid it: {e}"
            continue
        share = left / (len(searched) - i)
        res = check(restricted, gold, pred, **{**opts, "timeout": share,
                                               "probe_trials": _search_trials([f]),
                                               "minimize": False})
        if res.verdict is Verdict.EQUIVALENT:
            entry["needed"] = True
        elif res.verdict is Verdict.NOT_EQUIVALENT and res.counterexample is not None \
                and not f.present_in(res.counterexample, schema):
            entry["needed"] = False
        else:
            entry["why"] = (res.reason if res.verdict is not Verdict.NOT_EQUIVALENT else
                            "the counterexample found without it has it too")
    division = inexact_division(schema, gold, pred, result, options.get("now"))
    if division is not None:
        out.append({"feature": division.kind, "table": None, "column": None,
                    "detail": division.detail, "restriction": division.restriction,
                    "needed": None, "why": NOT_SEARCHED})
    return out


def _without_all(searched: list[tuple[Feature, dict[str, Any]]], schema: Schema, gold: str,
                 pred: str, options: dict[str, Any], deadline: float) -> None:
    """Set ``needed`` to False for each feature a confirmed counterexample found with all
    of ``searched`` forbidden lacks (a share of the time one search per feature gets)."""
    from spotit.pipeline import check

    left = deadline - time.monotonic()
    if left <= NO_TIME_SECONDS:
        return
    restricted, opts = schema, options
    try:
        for f, _ in searched:
            restricted, opts = _without(f, restricted, opts)
    except SpotItError:
        return  # the searches one by one still decide
    res = check(restricted, gold, pred, **{**opts, "timeout": left / (len(searched) + 1),
                                           "probe_trials": _search_trials(
                                               [f for f, _ in searched]),
                                           "minimize": False})
    if res.verdict is Verdict.NOT_EQUIVALENT and res.counterexample is not None:
        for f, entry in searched:
            if not f.present_in(res.counterexample, schema):
                entry["needed"] = False


def _search_trials(forbidden: list[Feature]) -> int:
    """Random databases a search with ``forbidden`` features forbidden tries first: none
    where it forbids an empty table or a letter-case difference (the random search keeps
    keys, NOT NULL and CHECK, not "non-empty" nor case_exact: the solver alone there)."""
    return 0 if any(f.kind in ("empty", "case_only") for f in forbidden) else 100


# random databases tried for counterexamples without the features: they only spare
# searches, and the one search with every open feature forbidden is cheap, so half of
# the check's own random search is enough (60 refuted BIRD pairs: the same
# explanations, 12 % less time than with 300 and 0.5 s)
WITNESS_TRIALS = 150
WITNESS_SECONDS = 0.25
WITNESS_COUNT = 8  # confirmed counterexamples kept


def _witnesses(schema: Schema, gold: str, pred: str, result: CheckResult,
               options: dict[str, Any], found: list[Feature]) -> list[dict]:
    """Up to WITNESS_COUNT confirmed counterexamples among random databases within the
    bound (as ``check``'s random search draws them, on the same data level), as table ->
    row objects; [] where the queries cannot be run as given."""
    from spotit.encodings.equivalence import comparison
    from spotit.frontend.now import pin_now
    from spotit.pipeline import _rows_json
    from spotit.probe import DEFAULT_MAX_ROWS, confirmed_databases

    if (options.get("dialect") or "sqlite").lower() != "sqlite":
        if not result.transpiled:
            return []
        gold, pred = result.transpiled["gold"], result.transpiled["pred"]
    data = options.get("data") or "declared"
    level = "declared" if data == "realistic" else data
    try:
        sch = schema.with_data(level)
        if options.get("now") is not None:
            gold, pred = pin_now(gold, options["now"]), pin_now(pred, options["now"])
        semantics = options.get("semantics") or "set"
        semantics = comparison(semantics)
        bound = int(options.get("bound") or DEFAULT_MAX_ROWS)
        out: list[dict] = []
        open_features = list(found)
        for found_db in confirmed_databases(
                sch, gold, pred, semantics, trials=WITNESS_TRIALS, seconds=WITNESS_SECONDS,
                max_rows=min(bound, DEFAULT_MAX_ROWS), seed=len(found) * 7919 + 1):
            witness = _rows_json(sch, found_db.rows)
            out.append(witness)
            open_features = [f for f in open_features if f.present_in(witness, schema)]
            if not open_features or len(out) >= WITNESS_COUNT:
                break  # every feature has a counterexample without it
        return out
    except Exception:  # the witnesses only save searches: the searches still decide
        return []


def inexact_division(schema: Schema, gold: str, pred: str, result: CheckResult,
                     now: Any = None) -> Feature | None:
    """The inexact-division feature, when a query's result on the counterexample
    changes with its integer divisions made exact (``a / b`` as ``a * 1.0 / b`` where
    ``a % b`` is not 0) and its ROUND(x, n) as x -- SQLite's answer, both versions
    rendered from the plan."""
    from spotit.ir import scalar as S
    from spotit.ir.to_sql import plan_sql
    from spotit.ir.walk import rewrite
    from spotit.validate import build_database

    def exact(e, _level):
        if isinstance(e, S.Arith) and e.op == "/":
            # unchanged (type included) when the division is exact or real: only a
            # truncating one becomes a real division
            a, b = rewrite(e.left, exact), rewrite(e.right, exact)
            return S.Case(((S.Compare("=", S.Arith("%", a, b), S.Const(0)),
                            S.Arith("/", a, b)),),
                          S.Arith("/", S.Arith("*", a, S.Const(1.0)), b))
        if isinstance(e, S.Call) and e.name == "ROUND" and e.args:
            return rewrite(e.args[0], exact)
        return None

    if now is not None:
        from spotit.frontend.now import pin_now

        gold, pred = pin_now(gold, now), pin_now(pred, now)
    rows = {t: [tuple(r.values()) for r in rs]
            for t, rs in (result.counterexample or {}).items()}
    changed = []
    try:
        conn = build_database(schema, rows)
    except Exception:  # a counterexample the schema cannot hold here
        return None
    try:
        for who, sql in (("the gold query", gold), ("the predicted query", pred)):
            plan = _plans(schema, [sql], result.data)
            if not plan:
                continue
            changed_plan = rewrite(plan[0], exact)
            if changed_plan == plan[0]:
                continue
            try:
                before = conn.execute(plan_sql(plan[0], schema)).fetchall()
                after = conn.execute(plan_sql(changed_plan, schema)).fetchall()
            except Exception:  # a plan SQL cannot render: not measured
                continue
            if Counter(before) != Counter(after):  # 4 and 4.0 equal, as BIRD compares
                changed.append(who)
    finally:
        conn.close()
    if not changed:
        return None
    return Feature("inexact_division", "", queries=" and ".join(changed))


def _without(f: Feature, schema: Schema, options: dict[str, Any]
             ) -> tuple[Schema, dict[str, Any]]:
    """The schema (and check options) under which ``f`` cannot occur."""
    from spotit.constraints.augment import augment, with_checks
    from spotit.constraints.model import ConstraintSet, NotNull, Unique
    from spotit.constraints.sql import literal, q

    if f.kind == "stored_type":
        return schema, {**options, "data": "declared"}
    if f.kind == "dangling_reference":
        level = options.get("data") if options.get("data") in ("declared", "sqlite") \
            else "declared"
        return schema.with_data(level).restoring_foreign_key(f.table, f.fk), options
    if options.get("data") == "realistic":  # the schema given is the augmented one
        options = {**options, "data": "declared"}
    if f.kind == "empty":
        tables = tuple(replace(t, nonempty=True) if t.name == f.table else t
                       for t in schema.tables)
        return replace(schema, tables=tables, cache={}), options
    if f.kind == "out_of_range":
        return augment(schema, ConstraintSet((f.rule,))), options
    t = schema.require_table(f.table)
    col = q(f.column or "")
    if f.kind == "text_number":  # no text in the column: only numbers sort below ''
        return with_checks(schema, t.name, [f"{col} IS NULL OR {col} < ''"]), options
    if f.kind == "case_only":
        checks = [f"{col} IS NULL OR {col} < '' OR LOWER({col}) <> {literal(fold(lit))} "
                  f"OR {col} = {literal(lit)} COLLATE BINARY" for lit in f.literals]
        restricted = with_checks(schema, t.name, checks)
        tables = tuple(replace(x, case_exact=(*x.case_exact, t.column(f.column).name))
                       if x.name == t.name else x for x in restricted.tables)
        return replace(restricted, tables=tables, cache={}), options
    if f.kind == "null":
        c = NotNull(t.name, f.column)
    elif f.kind == "repeated":
        c = Unique(t.name, (f.column,))
    else:  # duplicates: rows that differ somewhere (NULLs aside, as UNIQUE has it)
        c = Unique(t.name, tuple(col.name for col in t.columns))
    return augment(schema, ConstraintSet((c,))), options


def _rows_of(counterexample: dict, table: str) -> list[dict[str, Any]]:
    low = table.lower()
    return next((rows for name, rows in counterexample.items() if name.lower() == low), [])


def _get(row: dict[str, Any], column: str | None) -> Any:
    low = (column or "").lower()
    return next((v for k, v in row.items() if k.lower() == low), None)


def _unique(t, column: str) -> bool:
    low = column.lower()
    return any(len(k) == 1 and k[0].lower() == low for k in t.keys) or \
        (t.rowid_alias or "").lower() == low


def _off_type(counterexample: dict, schema: Schema) -> bool:
    """Some value of the counterexample is outside its column's declared domain."""
    from spotit.ir.types import Domain, StorageClass

    for table, rows in counterexample.items():
        t = schema.table(table)
        if t is None:
            continue
        for c in t.columns:
            declared = replace(c, any_storage=False).domain
            for r in rows:
                v = _get(r, c.name)
                if v is None:
                    continue
                cls = (StorageClass.INTEGER if isinstance(v, int) else StorageClass.REAL
                       if isinstance(v, float) else StorageClass.TEXT)
                if cls not in declared.storage_classes:
                    return True
                if declared in (Domain.DATE, Domain.DATETIME) and isinstance(v, str):
                    from spotit.encodings.calendar import date_text_parts

                    if date_text_parts(v, declared) is None:
                        return True
    return False
