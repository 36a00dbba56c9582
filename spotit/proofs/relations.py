"""Queries, checked on one point: a small concrete table, a query over it, and the
encoding with every cell pinned against SQLite's rows (Thm 1 for whole results).

Thm 1 on expressions sees one row, so it cannot tell how GROUP BY groups NULL
keys, how DISTINCT treats NULL rows, which rows LIMIT keeps among ties or how a
LEFT JOIN pads: those only show on several rows. Here the table ``w`` (the window
table of :mod:`spotit.proofs.windows`: ties, NULLs, a NOCASE column, a column of
any class) holds up to four rows, a generated query (GROUP BY, aggregates,
DISTINCT, ORDER BY ... LIMIT, joins, set operations, IN and EXISTS) runs on it in
SQLite, and the solver is asked, comparing results as bags (``equivalence.differ``):

- *admissible*: can the encoded result be SQLite's rows? (must be SAT);
- *exact*: where no arbitrary choice matters and no approximation bites, can it
  be any other bag of rows? (must be UNSAT).

Results are compared exactly, so the generated queries avoid REAL results that
doubles round (no AVG, no division; the REAL cells are dyadic).
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass

from hypothesis import strategies as st
from pysmt.environment import reset_env
from pysmt.fnode import FNode

from spotit import encodings  # noqa: F401
from spotit.encodings.builder import Builder
from spotit.encodings.database import SymbolicDatabase
from spotit.encodings.encoder import Encoder, EncoderOptions, SymRel, SymRow
from spotit.encodings.equivalence import Semantics, differ
from spotit.encodings.values import constant
from spotit.errors import Unsupported
from spotit.proofs.crashes import CRASH, crash_proof
from spotit.proofs.determined import Residual, at_doubles, leftovers_hold, propagated
from spotit.proofs.generators import query_rows
from spotit.proofs.pinned import EVALUATED, PinnedOutcome, bound_plan
from spotit.proofs.windows import (
    WINDOW_DDL,
    Questions,
    no_claim_on_inexact_sums,
    stored_table,
    table_pins,
)
from spotit.schema import schema_from_ddl
from spotit.smt.evaluate import Evaluator
from spotit.solvers.base import Status


@dataclass(frozen=True)
class QueryCase:
    rows: tuple[tuple, ...]  # values for the columns after id (id is the row's index)
    sql: str

    @property
    def ddl(self) -> str:
        return WINDOW_DDL


QueryOutcome = PinnedOutcome
"""Thm 1 on a query has the same outcomes as on an expression (values: row lists)."""


def sqlite_rows(case: QueryCase) -> tuple[list[tuple], list[tuple]]:
    """SQLite's result rows and the table as stored (raises sqlite3.Error)."""
    conn, stored = stored_table(case.rows)
    return conn.execute(case.sql).fetchall(), stored


@crash_proof(lambda detail: QueryOutcome(CRASH, detail=detail))
def check_query(case: QueryCase, solver: str = "z3", timeout: float = 20.0,
                solver_free: bool = True) -> QueryOutcome:
    """Thm 1 on a query over pinned rows; with ``solver_free``, without the solver where
    the pins decide the comparison (the outcome's ``path`` says which way), else the
    solver on what they leave open (``Residual``). ``timeout``: the solver's seconds
    for the whole check."""
    try:
        expected, stored = sqlite_rows(case)
    except (sqlite3.Error, OverflowError) as e:
        return QueryOutcome("skipped", detail=f"SQLite raises: {e}")
    if any(isinstance(v, bytes) for row in expected for v in row):
        return QueryOutcome("skipped", detail="blob result")
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
        theirs = SymRel(tuple(SymRow(b.TRUE, tuple(constant(b, v) for v in row))
                              for row in expected), width=out.width)
        different = differ(b, out, theirs, Semantics.BAG)  # reads (encodes) every cell
    except Unsupported as e:
        return QueryOutcome("unsupported", expected, detail=str(e))
    no_claim_on_inexact_sums(enc, stored)
    pins = table_pins(b, db, schema, stored, k)
    core = [*db.constraints(enc), *enc.side, *pins]
    if enc.recursion_open:  # the claim is the unrolled rounds' (the pipeline's check)
        from spotit.smt.printer import SmtLibWriter
        from spotit.solvers import get_solver

        deeper = [*core, b.or_(enc.recursion_open)]
        res = get_solver(solver).check(SmtLibWriter().script(
            [*deeper, *enc.used_definitions(deeper)]), timeout=timeout)
        if res.status is not Status.UNSAT:
            return QueryOutcome("skipped", expected, detail="a recursion deeper than the "
                                "unrolled rounds on this table (or not decided)")
    base = [*core, *enc.used_definitions([*core, different])]
    deadline = time.monotonic() + timeout  # the solver's time for the whole check
    residual = None
    if solver_free:  # what the assertions force: for the evaluation and the residual
        forced = propagated(b, base, definitions=enc.definitions)
        known = _evaluated(b, base, forced, different, expected, enc, solver, timeout)
        if known is not None:
            return known
        residual = Residual(b, base, enc.definitions, forced)
    ask = Questions(base, solver, deadline, residual)
    res = ask(b.not_(different), likely_sat=True)
    if res.status is Status.UNSAT:
        return QueryOutcome("divergence", expected, None,
                            "the encoding cannot produce SQLite's rows")
    if res.status is not Status.SAT:
        return QueryOutcome("error", expected, detail=f"{res.status.value}: {res.reason}")
    if enc.always_approximate:
        return QueryOutcome("ok", expected, expected, "admissible (over-approximated)", False)
    settled = [*enc.determinism, *enc.exactness, *at_doubles(b, (enc,), base)]
    res = ask(*settled, likely_sat=True)
    if res.status is not Status.SAT:
        return QueryOutcome("ok", expected, expected, "admissible (a choice matters)", False)
    res = ask(*settled, different)
    if res.status is Status.SAT:
        return QueryOutcome("divergence", expected, "another bag of rows",
                            "the encoding also allows another result")
    if res.status is not Status.UNSAT:
        return QueryOutcome("error", expected, detail=f"{res.status.value}: {res.reason}")
    return QueryOutcome("ok", expected, expected, "exact")


def _evaluated(b: Builder, base: list, forced: dict | None, different: FNode,
               expected: list[tuple], enc: Encoder, solver: str, timeout: float
               ) -> QueryOutcome | None:
    """The outcome without the solver where what the pins force decides ``different``:
    then every model gives the same answer, provided what is left of the assertions
    has a model (Python's completion, else the solver once per shape). Where a choice
    or an approximation is left (a tie, a REAL sum), the solver path's last two
    questions are asked the same way with the exact range and determinism added: if
    they decide ``different``, the answer is the one the solver would give.
    ``forced``: what ``base`` forces (``propagated``)."""
    verdict, rest, values = _decided(b, base, different, forced)
    detail = "the encoding cannot produce SQLite's rows"
    if verdict is None:
        if enc.always_approximate or values is None:
            return None
        settled = [*enc.determinism, *enc.exactness, *at_doubles(b, (enc,), base, values)]
        more = [*base, *settled]
        verdict, rest, values = _decided(
            b, more, different, propagated(b, more, definitions=enc.definitions))
        # with no choice left, another bag in every model: a divergence, whatever the
        # first question would answer
        detail = "the encoding also allows another result"
        if verdict is None:
            return None
    if rest and leftovers_hold(b, rest, values, enc.definitions, solver,
                               min(timeout, 2.0)) is not True:
        return None
    if verdict:
        return QueryOutcome("divergence", expected, "another bag of rows", detail,
                            path=EVALUATED)
    return QueryOutcome("ok", expected, expected, "exact", True, EVALUATED)


def _decided(b: Builder, assertions: list, different: FNode, values: dict | None
             ) -> tuple[bool | None, list, dict | None]:
    """(``different`` where what ``assertions`` force (``values``, from ``propagated``)
    decides it, else None; what is left of them; the forced values)."""
    if values is None:
        return None, [], None
    ev = Evaluator(b.m.env, values)
    verdict = ev.simplify(different)
    if not verdict.is_bool_constant():
        return None, [], values
    rest = [r for f in assertions if not (r := ev.simplify(f)).is_true()]
    return verdict.is_true(), rest, values


# --------------------------------------------------------------------------- the queries

_COLUMNS = ("p", "o", "r", "s", "x")
# a self-join as a derived table with the columns of w: LEFT JOIN pads with NULLs
_JOINS = tuple(
    f"(SELECT a.id AS id, a.p AS p, b.o AS o, b.r AS r, a.s AS s, b.x AS x "
    f"FROM w AS a {kind}JOIN w AS b ON a.{c} = b.{d}) AS j"
    for kind in ("LEFT ", "LEFT ", "", "RIGHT ", "FULL ")
    for c, d in (("p", "o"), ("o", "p"), ("s", "s"))
) + tuple(  # key lookups (spotit.ir.unique): on w's key, on a GROUP BY key, on DISTINCT
    f"(SELECT a.id AS id, a.p AS p, {o} AS o, {r} AS r, a.s AS s, a.x AS x "
    f"FROM w AS a {kind}JOIN {right} ON a.{c} = {key}) AS j"
    for kind in ("LEFT ", "") for c in ("p", "o")
    for right, key, o, r in (
        ("w AS b", "b.id", "b.o", "b.r"),
        ("(SELECT p AS k, COUNT(*) AS n, MAX(r) AS hi FROM w GROUP BY p) AS g", "g.k",
         "g.n", "g.hi"),
        ("(SELECT DISTINCT o AS k FROM w) AS g", "g.k", "g.k", "a.r"))
)
_CONDITIONS = ("o > 1", "p IS NULL", "p IS NOT NULL", "s = 'a'", "r < 1", "p = o",
               "x IN (SELECT o FROM w)", "x NOT IN (SELECT p FROM w)", "o <> 2",
               "EXISTS (SELECT 1 FROM w AS w2 WHERE w2.o = p)", "s LIKE 'a%'")
_AGGREGATES = ("COUNT(*)", "COUNT({c})", "SUM({c})", "TOTAL({c})", "MIN({c})", "MAX({c})",
               "COUNT(DISTINCT {c})")
_ORDER_TERMS = ("o", "o DESC", "p", "r", "s", "x", "p, o", "o NULLS LAST", "r DESC")
# a group of one row shows nothing of an aggregate: keys of few values (p, o, s) come
# twice as often as the others, two columns in one key of five
_GROUP_KEYS = ("p", "o", "s", "p", "o", "s", "r", "x", "p, s", "o, x")


@st.composite
def query_sql(draw) -> str:
    """A query over ``w`` (or a self-join of it) with the operators that only show on
    several rows."""
    source = draw(st.one_of(st.just("w"), st.just("w"), st.sampled_from(_JOINS)))
    where = f" WHERE {draw(st.sampled_from(_CONDITIONS))}" if draw(st.booleans()) else ""
    column = st.sampled_from(_COLUMNS)
    columns = st.lists(column, min_size=1, max_size=2, unique=True).map(", ".join)
    aggregates = st.lists(st.tuples(st.sampled_from(_AGGREGATES), column).map(
        lambda a: a[0].format(c=a[1])), min_size=1, max_size=3).map(", ".join)
    shape = draw(st.sampled_from(("group", "group", "aggregate", "aggregate", "distinct",
                                  "limit", "limit", "setop", "filter", "recursive")))
    if shape == "recursive":
        return draw(recursive_sql(where))
    if shape == "group":
        key = draw(st.sampled_from(_GROUP_KEYS))
        return f"SELECT {key}, {draw(aggregates)} FROM {source}{where} GROUP BY {key}"
    if shape == "aggregate":
        return f"SELECT {draw(aggregates)} FROM {source}{where}"
    if shape == "distinct":
        return f"SELECT DISTINCT {draw(columns)} FROM {source}{where}"
    if shape == "limit":
        n = draw(st.integers(1, 2))
        offset = " OFFSET 1" if draw(st.integers(0, 3)) == 0 else ""
        order = draw(st.sampled_from(_ORDER_TERMS))
        return f"SELECT {draw(columns)} FROM {source}{where} ORDER BY {order} LIMIT {n}{offset}"
    if shape == "setop":
        op = draw(st.sampled_from(("UNION", "UNION ALL", "INTERSECT", "EXCEPT")))
        return (f"SELECT {draw(column)} FROM {source}{where} {op} "
                f"SELECT {draw(column)} FROM w")
    return f"SELECT id, {draw(columns)} FROM {source}{where or ' WHERE o > 1'}"


@st.composite
def recursive_sql(draw, where: str = "") -> str:
    """A recursive CTE over ``w``: a counting sequence seeded from its rows (UNION or
    UNION ALL, stopped by a depth), a walk along ``p -> id`` (UNION: it stops on any
    table; a depth stops UNION ALL around a cycle), or splitting ``s`` at its 'a's."""
    op = draw(st.sampled_from(("UNION", "UNION ALL")))
    kind = draw(st.sampled_from(("count", "walk", "split")))
    depth = draw(st.integers(1, 3))
    read = draw(st.sampled_from(("SELECT * FROM c", "SELECT COUNT(*), SUM(n) FROM c",
                                 "SELECT DISTINCT v FROM c", "SELECT v, MAX(n) FROM c "
                                 "GROUP BY v")))
    if kind == "count":
        seed = draw(st.sampled_from(("o", "p", "x", "r")))
        return (f"WITH RECURSIVE c(v, n) AS (SELECT {seed}, 0 FROM w{where} {op} "
                f"SELECT v + 1, n + 1 FROM c WHERE n < {depth}) {read}")
    if kind == "walk":
        stop = "" if op == "UNION" else f" AND c.n < {depth}"
        return (f"WITH RECURSIVE c(v, n) AS (SELECT id, 0 FROM w WHERE p IS NULL {op} "
                f"SELECT w.id, c.n + 1 FROM w JOIN c ON w.p = c.v WHERE 1 = 1{stop}) {read}")
    return (f"WITH RECURSIVE c(v, n) AS (SELECT s, 0 FROM w{where} {op} "
            f"SELECT SUBSTR(v, INSTR(v, 'a') + 1), n + 1 FROM c "
            f"WHERE INSTR(v, 'a') > 0 AND n < {depth}) {read}")


def query_cases() -> st.SearchStrategy[tuple[list[tuple], str]]:
    """(rows of w, query): two to four rows, with ties and many NULLs."""
    return st.tuples(query_rows(), query_sql())
