"""Relational operators over symbolic rows (each row: presence flag + values).

Sizes: a join of n and m rows has n*m rows (+ n for LEFT); DISTINCT, set
operations and GROUP BY add pairwise "same row" terms; ORDER BY ... LIMIT adds
a rank per row (number of present rows sorting strictly before it).

Rows that tie under ORDER BY may come in any order in SQLite; a fresh integer
per row (distinct among rows) breaks ties *symbolically*, so the encoding
covers every order SQLite might pick. That keeps proofs sound; the cost is
that a counterexample may depend on the order chosen, which validation on
SQLite (with the rows inserted in several orders) rules out.
"""

from __future__ import annotations

from collections.abc import Sequence

from pysmt.fnode import FNode
from pysmt.typing import INT

from spotit.encodings import collation
from spotit.encodings import conversions as C
from spotit.encodings.builder import Builder
from spotit.encodings.encoder import Encoder, Env, SymRel, SymRow
from spotit.encodings.registry import encodes
from spotit.encodings.values import Value, choose, null_value
from spotit.ir import relational as R
from spotit.ir.pushdown import into_joins
from spotit.ir.unique import is_lookup
from spotit.mutants import planted


class Concat(Sequence):
    """Two value sequences side by side, without reading either (cells stay lazy)."""

    __slots__ = ("_a", "_b", "_na")

    def __init__(self, a: Sequence[Value], b: Sequence[Value]):
        self._a, self._b, self._na = a, b, len(a)

    def __len__(self) -> int:
        return self._na + len(self._b)

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return tuple(self[j] for j in range(*i.indices(len(self))))
        if i < 0:
            i += len(self)
        return self._a[i] if i < self._na else self._b[i - self._na]


def same_row(b: Builder, x: Sequence[Value], y: Sequence[Value]) -> FNode:
    """Rows equal column by column, NULL = NULL (DISTINCT, UNION, GROUP BY, results)."""
    if len(x) != len(y):
        return b.FALSE
    return b.and_(C.same_value(b, u, v) for u, v in zip(x, y, strict=True))


def push(env: Env, row: Sequence[Value]) -> Env:
    return (*env, row)


@encodes(R.Scan)
def encode_scan(enc: Encoder, r: R.Scan, env: Env) -> SymRel:
    db = enc.db
    rows = tuple(
        SymRow(db.present(r.table, i), db.row_cells(r.table, i)) for i in db.rows(r.table)
    )
    return SymRel(rows, width=len(r.out))


@encodes(R.Values)
def encode_values(enc: Encoder, r: R.Values, env: Env) -> SymRel:
    rows = tuple(
        SymRow(enc.b.TRUE, tuple(enc.value(e, env) for e in row)) for row in r.rows
    )
    return SymRel(rows, width=len(r.out))


@encodes(R.Filter)
def encode_filter(enc: Encoder, r: R.Filter, env: Env) -> SymRel:
    if isinstance(r.input, R.Join) and r.input.kind == "INNER" and \
            (joined := into_joins(r)) is not r and _has_lookup(joined):
        return enc.rel(joined, env)  # the same rows, looked up while joining
    src = enc.rel(r.input, env)
    b = enc.b
    rows = []
    for row in src.rows:
        if row.present.is_false():
            continue
        keep = enc.truth(r.predicate, push(env, row.values)).t
        rows.append(SymRow(b.and_(row.present, keep), row.values))
    return SymRel(tuple(rows), width=src.width)


@encodes(R.Project)
def encode_project(enc: Encoder, r: R.Project, env: Env) -> SymRel:
    src = enc.rel(r.input, env)
    rows = tuple(SymRow(row.present, Projected(enc, r.exprs, push(env, row.values)))
                 for row in src.rows)
    return SymRel(rows, src.order, width=len(r.exprs))


class LazyValues(Sequence):
    """A row's values, each computed when first read (``_compute``) and kept."""

    __slots__ = ("_cache",)

    def __init__(self, width: int):
        self._cache: list[Value | None] = [None] * width

    def __len__(self) -> int:
        return len(self._cache)

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return tuple(self[j] for j in range(*i.indices(len(self))))
        if i < 0:
            i += len(self)
        v = self._cache[i]
        if v is None:
            v = self._cache[i] = self._compute(i)
        return v

    def _compute(self, i: int) -> Value:
        raise NotImplementedError


class Projected(LazyValues):
    """A projected row whose values are encoded when first read: a column nobody
    reads (a generated column, a derived table's unused column) costs nothing."""

    __slots__ = ("_enc", "_env", "_exprs")

    def __init__(self, enc: Encoder, exprs: tuple, env: Env):
        super().__init__(len(exprs))
        self._enc, self._exprs, self._env = enc, exprs, env

    def _compute(self, i: int) -> Value:
        return self._enc.value(self._exprs[i], self._env)


class OrNull(LazyValues):
    """A row's values where ``cond`` holds, else NULLs, read lazily (a LEFT JOIN's right
    side when the matched row and the padded one are one row)."""

    __slots__ = ("_b", "_cond", "_values")

    def __init__(self, b: Builder, cond: FNode, values: Sequence[Value]):
        super().__init__(len(values))
        self._b, self._cond, self._values = b, cond, values

    def _compute(self, i: int) -> Value:
        return choose(self._b, self._cond, self._values[i], null_value(self._b))


def _has_lookup(rel: R.Rel) -> bool:
    """Whether a join down the left spine of ``rel`` is a key lookup: only then are the
    conditions worth moving into the joins (elsewhere the rows are the same, and z3 has
    been seen slower on the moved form: Spider dev q369, 3.7 s -> 16 s at k = 5)."""
    while isinstance(rel, R.Join):
        if is_lookup(rel):
            return True
        rel = rel.left
    return False


class Picked(LazyValues):
    """The values of the one row among ``rows`` whose ``matches`` holds (at most one
    does), NULLs where none does; read lazily."""

    __slots__ = ("_b", "_matches", "_rows")

    def __init__(self, b: Builder, matches: list[FNode], rows: list[Sequence[Value]],
                 width: int):
        super().__init__(width)
        self._b, self._matches, self._rows = b, matches, rows

    def _compute(self, i: int) -> Value:
        v = null_value(self._b)
        for match, row in zip(reversed(self._matches), reversed(self._rows), strict=True):
            v = choose(self._b, match, row[i], v)
        return v


@encodes(R.Join)
def encode_join(enc: Encoder, r: R.Join, env: Env) -> SymRel:
    b = enc.b
    left, right = enc.rel(r.left, env), enc.rel(r.right, env)
    if r.kind == "LEFT" and len(right.rows) == 1 and not planted("left-join-no-padding"):
        return _left_join_one(enc, r, env, left, right.rows[0], right.width)
    if len(right.rows) > 1 and is_lookup(r):
        return _lookup(enc, r, env, left, right)
    rows = []
    for lrow in left.rows:
        matches = []
        for rrow in right.rows:
            values, match = _joined(enc, r, env, lrow, rrow)
            matches.append(match)
            rows.append(SymRow(b.and_(lrow.present, match), values))
        if r.kind == "LEFT" and not planted("left-join-no-padding"):
            nulls = tuple(null_value(b) for _ in range(right.width))
            rows.append(SymRow(b.and_(lrow.present, b.not_(b.or_(matches))),
                               Concat(lrow.values, nulls)))
    return SymRel(tuple(r_ for r_ in rows if not r_.present.is_false()),
                  width=left.width + right.width)


def _joined(enc: Encoder, r: R.Join, env: Env, lrow: SymRow, rrow: SymRow
            ) -> tuple[Concat, FNode]:
    """The two rows side by side, and where they make a joined row (the right one is
    present and the ON condition holds on them)."""
    values = Concat(lrow.values, rrow.values)
    cond = enc.truth(r.condition, push(env, values)).t if r.condition else enc.b.TRUE
    return values, enc.b.and_(rrow.present, cond)


def _lookup(enc: Encoder, r: R.Join, env: Env, left: SymRel, right: SymRel) -> SymRel:
    """A join whose right side matches at most one row per left row (a key lookup,
    ``spotit.ir.unique``): one row per left row, the right side's values those of the
    matching row (NULLs for a LEFT JOIN's unmatched row), where a row per pair made a
    chain of T such joins k**T rows at k rows each."""
    b = enc.b
    rows = []
    for lrow in left.rows:
        matches = []
        for rrow in right.rows:
            matches.append(_joined(enc, r, env, lrow, rrow)[1])
        present = (lrow.present if r.kind == "LEFT" or planted("lookup-inner-as-left")
                   else b.and_(lrow.present, b.or_(matches)))
        picked = Picked(b, matches, [rrow.values for rrow in right.rows], right.width)
        rows.append(SymRow(present, Concat(lrow.values, picked)))
    return SymRel(tuple(r_ for r_ in rows if not r_.present.is_false()),
                  width=left.width + right.width)


def _left_join_one(enc: Encoder, r: R.Join, env: Env, left: SymRel, rrow: SymRow,
                   width: int) -> SymRel:
    """A LEFT JOIN to a relation of one row: each left row gives exactly one row, the
    joined one or the padded one, so they are one row whose right side is NULL where
    there is no match -- the same rows in the same order, where a row apiece doubled the
    rows with every such join (a chain of 22 was 2**22 rows at one row per table)."""
    b = enc.b
    rows = []
    for lrow in left.rows:
        _, match = _joined(enc, r, env, lrow, rrow)
        rows.append(SymRow(lrow.present, Concat(lrow.values, OrNull(b, match, rrow.values))))
    return SymRel(tuple(r_ for r_ in rows if not r_.present.is_false()),
                  width=left.width + width)


def identical(keys: Sequence[tuple], merge: bool = True) -> tuple[list[list[int]], list[int]]:
    """Rows whose ``keys`` are the same formulas (read from the same base rows through
    joins; pysmt builds each formula once): the classes of row indices, in order of
    first appearance, and each row's class. Such rows are equal on every database, so
    DISTINCT and GROUP BY treat each class as one candidate. Without ``merge`` every
    row is its own class."""
    classes: dict[tuple, list[int]] = {}
    for i, key in enumerate(keys):
        classes.setdefault(key if merge else (i,), []).append(i)
    of = list(classes.values())
    cls = [0] * len(keys)
    for c, members in enumerate(of):
        for j in members:
            cls[j] = c
    return of, cls


def distinct_rows(enc: Encoder, rows: Sequence[SymRow], collations: Sequence[str],
                  merge: bool = True) -> list[SymRow]:
    """One row per class of equal rows (each column compared under its collation):
    the first present occurrence, with the values of a freely chosen member of
    its class when a collation can make different values equal.

    Rows whose values are the same formulas are one candidate (``identical``), present
    when any of them is: DISTINCT after a long join has as many candidates as the values
    can take, not as the join has rows. Without ``merge``, the i-th row out is the i-th
    row in (a recursion's rounds need that)."""
    b = enc.b
    # (each row its own candidate under the planted mutant, which keeps NULLs apart)
    of, cls = identical([tuple(row.values) for row in rows],
                        merge and not planted("distinct-nulls-apart"))
    keyed = [collation.keys(enc, rows[c[0]].values, collations) for c in of]
    same = [[same_row(b, keyed[d], keyed[c]) for d in range(c)] for c in range(len(of))]
    if planted("distinct-nulls-apart"):
        same = [[b.and_(s, b.not_(b.or_(v.null for v in keyed[c]))) for s in row_same]
                for c, row_same in enumerate(same)]
    present = [b.or_(rows[j].present for j in c) for c in of]
    out = []
    for c, members_of in enumerate(of):
        dup = b.or_(b.and_(present[d], same[c][d]) for d in range(c))
        values = rows[members_of[0]].values
        if collation.folds(collations):
            members = [b.and_(rows[j].present, same[max(c, cls[j])][min(c, cls[j])]
                              if cls[j] != c else b.TRUE) for j in range(len(rows))]
            values = tuple(collation.representative(
                enc, members, [r.values for r in rows],
                "which of several collation-equal rows DISTINCT or a set operation keeps"))
        out.append(SymRow(b.and_(present[c], b.not_(dup)), values))
    return out


@encodes(R.Distinct)
def encode_distinct(enc: Encoder, r: R.Distinct, env: Env) -> SymRel:
    src = enc.rel(r.input, env)
    collations = R.collation_names(r.input.columns)
    return SymRel(tuple(distinct_rows(enc, src.rows, collations)), width=src.width)


@encodes(R.SetOp)
def encode_setop(enc: Encoder, r: R.SetOp, env: Env) -> SymRel:
    b = enc.b
    left, right = enc.rel(r.left, env), enc.rel(r.right, env)
    collations = R.compound_collations(r)
    if r.op == "UNION":
        rows = left.rows + right.rows
        return SymRel(rows if r.all else tuple(distinct_rows(enc, rows, collations)),
                      width=left.width)
    lrows = distinct_rows(enc, left.rows, collations)
    out = []
    for row in lrows:
        mine = collation.keys(enc, row.values, collations)
        found = b.or_(b.and_(o.present, same_row(b, collation.keys(enc, o.values, collations),
                                                 mine)) for o in right.rows)
        keep = found if r.op == "INTERSECT" else b.not_(found)
        out.append(SymRow(b.and_(row.present, keep), row.values))
    return SymRel(tuple(out), width=left.width)


# ---------------------------------------------------------------------- ORDER BY / LIMIT


def _sort_keys(enc: Encoder, r: R.Sort, env: Env, rows) -> list[list[Value]]:
    """Each row's ORDER BY values, as keys of their collations."""
    return [[collation.key(enc, enc.value(k.expr, push(env, row.values)), k.collation)
             for k in r.keys] for row in rows]


def _key_before(b: Builder, r: R.Sort, kx: list[Value], ky: list[Value]) -> tuple[FNode, FNode]:
    """(x strictly before y, x ties with y) under the ORDER BY keys."""
    before = []
    equal_so_far = b.TRUE
    for key, u, v in zip(r.keys, kx, ky, strict=True):
        before.append(b.and_(equal_so_far,
                             C.sort_before(b, u, v, key.descending, key.nulls_first)))
        equal_so_far = b.and_(equal_so_far, C.same_value(b, u, v))
    return b.or_(before), equal_so_far


@encodes(R.Sort)
def encode_sort(enc: Encoder, r: R.Sort, env: Env) -> SymRel:
    b = enc.b
    src = enc.rel(r.input, env)
    rows = [row for row in src.rows if not row.present.is_false()]
    n = len(rows)
    keys = _sort_keys(enc, r, env, rows)
    # tie-break order: a permutation chosen by the solver
    tb = [b.fresh("tiebreak", INT) for _ in range(n)] if n > 1 else []
    for i in range(len(tb)):
        for j in range(i):
            enc.side.append(b.not_(b.eq(tb[i], tb[j])))
    before = [[b.FALSE] * n for _ in range(n)]  # before[j][i]: row j precedes row i
    strict = [[b.FALSE] * n for _ in range(n)]  # row j sorts strictly before row i
    ties = []
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            strictly, tie = _key_before(b, r, keys[j], keys[i])
            strict[j][i] = strictly
            before[j][i] = b.or_(strictly, b.and_(tie, b.lt(tb[j], tb[i])))
            if j < i:
                ties.append(b.and_(rows[i].present, rows[j].present, tie))
    if r.limit is not None or r.offset or enc.options.order_observable:
        enc.choice("ORDER BY/LIMIT with ties", b.not_(b.or_(ties)))
    ranks = [
        b.sum([b.ite(b.and_(rows[j].present, before[j][i]), b.int(1), b.int(0))
               for j in range(n) if j != i])
        for i in range(n)
    ]
    if planted("limit-with-ties"):
        # the limit counts the rows strictly before: the rows tied with the last stay
        limited = [
            b.sum([b.ite(b.and_(rows[j].present, strict[j][i]), b.int(1), b.int(0))
                   for j in range(n) if j != i])
            for i in range(n)
        ]
    else:
        limited = ranks
    out = []
    order = []
    for i, row in enumerate(rows):
        keep = row.present
        if r.offset:
            keep = b.and_(keep, b.le(b.int(r.offset), ranks[i]))
        if r.limit is not None:
            if r.limit == 1 and not r.offset and limited is ranks:
                first = b.not_(b.or_(b.and_(rows[j].present, before[j][i])
                                     for j in range(n) if j != i))
                keep = b.and_(keep, first)
            else:
                keep = b.and_(keep, b.lt(limited[i], b.int(r.offset + r.limit)))
        out.append(SymRow(keep, row.values))
        order.append(b.minus(ranks[i], b.int(r.offset)) if r.offset else ranks[i])
    return SymRel(tuple(out), tuple(order), width=src.width)
