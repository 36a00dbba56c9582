"""Subquery expressions: EXISTS, IN (SELECT ...), and scalar subqueries.

The subquery is encoded with the current row pushed on the environment, so a
correlated subquery is a different relation for each outer row (and an
uncorrelated one is encoded once, see ``Encoder.rel``).
"""

from __future__ import annotations

from pysmt.typing import INT

from spotit.encodings import conversions as C
from spotit.encodings.encoder import Encoder, Env, SymRel
from spotit.encodings.registry import encodes
from spotit.encodings.values import Truth, Value, choose, null_value
from spotit.ir import relational as R
from spotit.ir import scalar as S
from spotit.ir.types import BINARY, NO_AFFINITY
from spotit.mutants import planted


@encodes(S.Exists)
def encode_exists(enc: Encoder, e: S.Exists, env: Env) -> Truth:
    b = enc.b
    rel = enc.rel(e.query, env)
    some = b.or_(row.present for row in rel.rows)
    return Truth(some, b.not_(some))


@encodes(S.InSubquery)
def encode_in_subquery(enc: Encoder, e: S.InSubquery, env: Env) -> Truth:
    """TRUE if some row equals x; FALSE if every row is unequal (or there are none);
    otherwise NULL. Comparisons are ``x = y`` for the subquery's column y: its
    affinity, and the collation rule of ``=`` with y's collation."""
    if e.rest:
        return _row_in_subquery(enc, e, env)
    b = enc.b
    x = enc.value(e.operand, env)
    ax = S.affinity_of(e.operand)
    ay = e.query.columns[0].affinity
    collation = S.binary_collation(S.collation_of(e.operand), R.in_operand_collation(e.query))
    rel = enc.rel(e.query, env)
    t, f = [], []
    for row in rel.rows:
        c = C.compare(enc, "=", x, ax, row.values[0], ay, collation)
        t.append(b.and_(row.present, c.t))
        unequal = b.not_(c.t) if planted("in-subquery-null-false") else c.f
        f.append(b.or_(b.not_(row.present), unequal))
    return Truth(b.or_(t), b.and_(f))


def _row_in_subquery(enc: Encoder, e: S.InSubquery, env: Env) -> Truth:
    """``(x1, x2) IN (SELECT y1, y2 ...)`` as SQLite codes it (``sqlite3ExprCodeIN``,
    rowvalue.html for the intent). Each column has the affinity of ``x_i = y_i``
    (applied to the stored y's, and to the x's before the lookup) and the collation
    of ``=``:

    - TRUE when no x_i is NULL and some row equals column by column (the lookup);
    - otherwise SQLite scans the rows: a row none of whose pairs is *unequal* (a
      NULL pair is not) makes the result NULL, and FALSE if there is none. The scan
      compares under each x_i's own collation (``sqlite3ExprCollSeq``, BINARY if
      none; y_i's is not consulted), and when some x_i is NULL it compares the x's
      as they were, before the affinity (the NULL test jumps past it).

    Where the x's collations are the pairs' and no conversion applies, this is the
    three-valued ``OR`` over the rows of the ``AND`` of ``x_i = y_i``."""
    b = enc.b
    operands = (e.operand, *e.rest)
    xs = [enc.value(x, env) for x in operands]
    lhs_null = b.or_(x.null for x in xs)
    rel = enc.rel(e.query, env)
    cols = []
    for i, xe in enumerate(operands):
        own = S.collation_of(xe)
        cols.append((S.affinity_of(xe), e.query.columns[i].affinity,
                     S.binary_collation(own, R.in_operand_collation(e.query, i)),
                     own.checked_name() if own is not None else BINARY))
    found, survivors = [], []
    for row in rel.rows:
        eq, unequal = [], []
        for (ax, ay, key, own), x, y in zip(cols, xs, row.values, strict=False):
            xa, ys = C.comparison_affinity(enc, x, ax, y, ay)
            eq.append(C.compare(enc, "=", xa, NO_AFFINITY, ys, NO_AFFINITY, key).t)
            after = C.compare(enc, "=", xa, NO_AFFINITY, ys, NO_AFFINITY, own).f
            before = C.compare(enc, "=", x, NO_AFFINITY, ys, NO_AFFINITY, own).f
            unequal.append(b.ite(lhs_null, before, after))
        found.append(b.and_(row.present, *eq))
        survivors.append(b.and_(row.present, b.not_(b.or_(unequal))))
    true = b.and_(b.not_(lhs_null), b.or_(found))
    return Truth(true, b.and_(b.not_(true), b.not_(b.or_(survivors))))


def at_most_one_row(r: R.Rel) -> bool:
    """Whether the relation can never have more than one row, whatever the database."""
    if isinstance(r, R.Aggregate):
        return not r.keys
    if isinstance(r, R.Sort):
        return (r.limit is not None and r.limit <= 1) or at_most_one_row(r.input)
    if isinstance(r, R.Filter | R.Project | R.Distinct):
        return at_most_one_row(r.input)
    if isinstance(r, R.Values):
        return len(r.rows) <= 1
    return False


@encodes(S.ScalarSubquery)
def encode_scalar_subquery(enc: Encoder, e: S.ScalarSubquery, env: Env) -> Value:
    """The first row's value, NULL when there is no row.

    "First" is defined by an ORDER BY; otherwise SQLite returns whichever row
    its plan meets first, so a subquery that may return several rows is a free
    choice among them.
    """
    rel = enc.rel(e.query, env)
    return first_value(enc, rel, sorted_=_is_sorted(e.query), single=at_most_one_row(e.query))


def _is_sorted(r: R.Rel) -> bool:
    while isinstance(r, R.Project):
        r = r.input
    return isinstance(r, R.Sort) and bool(r.keys)


def first_value(enc: Encoder, rel: SymRel, *, sorted_: bool, single: bool) -> Value:
    b = enc.b
    rows = [row for row in rel.rows if not row.present.is_false()]
    if not rows:
        return null_value(b)
    if single or len(rows) == 1:
        out = null_value(b)
        for row in reversed(rows):
            out = choose(b, row.present, row.values[0], out)
        return out
    if sorted_ and rel.order is not None:
        first = [b.and_(row.present, b.eq(rel.order[i], b.int(0)))
                 for i, row in enumerate(rel.rows) if not row.present.is_false()]
        out = null_value(b)
        for cond, row in reversed(list(zip(first, rows, strict=True))):
            out = choose(b, cond, row.values[0], out)
        return out
    pick = b.fresh("first_row", INT)
    some = b.or_(row.present for row in rows)
    enc.side.append(b.implies(some, b.or_(
        b.and_(b.eq(pick, b.int(j)), row.present) for j, row in enumerate(rows)
    )))
    out = null_value(b)
    for j, row in enumerate(rows):
        out = choose(b, b.and_(row.present, b.eq(pick, b.int(j))), row.values[0], out)
    agree = b.and_(b.implies(row.present, C.same_value(b, row.values[0], out)) for row in rows)
    enc.choice("scalar subquery that may return several rows", agree)
    return out
