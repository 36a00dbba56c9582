"""Window functions: ``f(...) OVER (PARTITION BY p ORDER BY o frame)``.

The Window operator keeps every input row and appends one value per call,
computed over the bounded rows of its input, pairwise:

- row j is in row i's *partition* when both are present and their PARTITION BY
  values are equal (NULLs together, under the terms' collations);
- j is *before* i when it sorts strictly before it under the window's ORDER BY
  (NULLs first ascending, last descending, unless NULLS FIRST/LAST says), and a
  *peer* of i when it ties with it on every term (without ORDER BY every row of
  the partition is a peer);
- RANK = 1 + #partition rows before; DENSE_RANK = 1 + #peer groups before (a
  group is counted at its first row); PERCENT_RANK and CUME_DIST follow;
- ROW_NUMBER, NTILE, LAG, LEAD, FIRST_VALUE, LAST_VALUE, NTH_VALUE and ROWS
  frames need a *position*: peers come in an order SQLite does not define, so a
  solver-chosen permutation breaks the ties (as for ORDER BY ... LIMIT), and
  the choice is recorded: irrelevant when no two rows of a partition are peers;
- aggregates (COUNT, SUM, TOTAL, AVG, MIN, MAX) are the GROUP BY aggregates
  (``aggregates.py``) over the rows of the frame: by default RANGE BETWEEN
  UNBOUNDED PRECEDING AND CURRENT ROW (peers included), the whole partition
  without ORDER BY; ROWS, GROUPS and RANGE frames with UNBOUNDED/N
  PRECEDING/FOLLOWING and CURRENT ROW (a RANGE offset moves a numeric key; a
  NULL or text key's offset bounds are its peers), and every EXCLUDE.

- LAG/LEAD take any offset expression (SQLite's seek by position, see ``_lag_lead``);
- GROUP_CONCAT is the GROUP BY encoding over the frame: exact where the frame's
  values are all the same, a free text otherwise (the order among peers is open).

Not modelled (``unsupported``): a non-constant N of NTILE/NTH_VALUE (SQLite raises at
run time unless it is a positive integer), non-constant frame offsets, a non-constant
GROUP_CONCAT separator, and any window function without an entry here.
See docs/semantics.md, "Window functions".
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from pysmt.fnode import FNode
from pysmt.typing import BOOL, INT

from spotit.encodings import collation
from spotit.encodings import conversions as C
from spotit.encodings.aggregates import (
    _count,
    _extreme,
    _group_concat,
    _sum_like,
    _sums_as_integer,
)
from spotit.encodings.encoder import Encoder, Env, SymRel, SymRow
from spotit.encodings.registry import WINDOW_FUNCTIONS, encodes, window_function
from spotit.encodings.relational import Concat, push, same_row
from spotit.encodings.rounding import EDGE_ROUNDING, promoted, rounded
from spotit.encodings.values import Alt, Value, choose, int_value, null_value, real_value
from spotit.errors import BindError, Unsupported
from spotit.ir import relational as R
from spotit.ir import scalar as S
from spotit.ir.types import BINARY, StorageClass


@encodes(R.Window)
def encode_window(enc: Encoder, r: R.Window, env: Env) -> SymRel:
    src = enc.rel(r.input, env)
    rows = [row for row in src.rows if not row.present.is_false()]
    windows: dict[tuple, Windowed] = {}
    appended: list[list[Value]] = [[] for _ in rows]
    for call in r.calls:
        spec = WINDOW_FUNCTIONS.get(call.func)
        if spec is None:
            raise Unsupported(f"window function {call.func}()")
        if not spec.min_args <= len(call.args) <= spec.max_args:
            raise Unsupported(f"window function {call.func}() with {len(call.args)} "
                              "arguments")
        key = (call.partition, call.order)
        w = windows.get(key)
        if w is None:
            w = windows[key] = Windowed(enc, env, rows, call)
        for i, v in enumerate(spec.encode(enc, w, call)):
            appended[i].append(v)
    out = tuple(SymRow(row.present, Concat(row.values, tuple(appended[i])))
                for i, row in enumerate(rows))
    return SymRel(out, width=len(r.out))


class Windowed:
    """The pairwise structure of one (PARTITION BY, ORDER BY) over the input rows."""

    def __init__(self, enc: Encoder, env: Env, rows: list[SymRow], call: R.WindowCall):
        b = self.b = enc.b
        self.enc, self.env, self.rows = enc, env, rows
        n = self.n = len(rows)
        envs = self.envs = [push(env, row.values) for row in rows]
        colls = [S.collation_name(p) for p in call.partition]
        pkeys = [collation.keys(enc, [enc.value(p, e) for p in call.partition], colls)
                 for e in envs]
        part = [[b.TRUE] * n for _ in range(n)]
        for i in range(n):
            for j in range(i):
                part[i][j] = part[j][i] = same_row(b, pkeys[i], pkeys[j])
        # members[i][j]: row j is present and in row i's partition
        self.members = [[b.and_(rows[j].present, part[i][j]) for j in range(n)]
                        for i in range(n)]
        okeys = [[collation.key(enc, enc.value(k.expr, e), k.collation) for k in call.order]
                 for e in envs]
        self.order, self.okeys = call.order, okeys
        self.before = [[b.FALSE] * n for _ in range(n)]  # before[j][i]: j sorts before i
        self.peer = [[b.TRUE] * n for _ in range(n)]
        for i in range(n):
            for j in range(n):
                if i != j and call.order:
                    self.before[j][i], self.peer[j][i] = _key_before(
                        b, call.order, okeys[j], okeys[i])
        self.size = [b.sum([b.ite(m, b.int(1), b.int(0)) for m in self.members[i]])
                     for i in range(n)]
        self._rn: list[FNode] | None = None
        self._pos_before: list[list[FNode]] | None = None
        self._groups: list[FNode] | None = None

    # ------------------------------------------------------------------ derived

    def count(self, conds) -> FNode:
        b = self.b
        return b.sum([b.ite(c, b.int(1), b.int(0)) for c in conds])

    def rank(self) -> list[FNode]:
        """1 + the number of rows of the partition sorting strictly before."""
        b = self.b
        return [b.plus(b.int(1), self.count(b.and_(self.members[i][j], self.before[j][i])
                                            for j in range(self.n) if j != i))
                for i in range(self.n)]

    def groups(self) -> list[FNode]:
        """0-based index of each row's peer group in its partition (DENSE_RANK - 1)."""
        if self._groups is None:
            b, n = self.b, self.n
            first = [b.not_(b.or_(b.and_(self.rows[k].present, self.members[j][k],
                                         self.peer[k][j]) for k in range(j)))
                     for j in range(n)]
            self._groups = [self.count(b.and_(self.members[i][j], self.before[j][i], first[j])
                                       for j in range(n) if j != i) for i in range(n)]
        return self._groups

    def positions(self) -> tuple[list[FNode], list[list[FNode]]]:
        """(row number - 1 of each row, pos_before[j][i]): ties broken by a solver-chosen
        permutation, an arbitrary choice recorded as such."""
        if self._rn is None:
            b, n = self.b, self.n
            tb = [b.fresh("window_tiebreak", INT) for _ in range(n)] if n > 1 else [b.int(0)]
            for i in range(n):
                for j in range(i):
                    self.enc.side.append(b.not_(b.eq(tb[i], tb[j])))
            pb = [[b.FALSE] * n for _ in range(n)]
            ties = []
            for i in range(n):
                for j in range(n):
                    if i != j:
                        pb[j][i] = b.or_(self.before[j][i],
                                         b.and_(self.peer[j][i], b.lt(tb[j], tb[i])))
                        if j < i:
                            ties.append(b.and_(self.rows[i].present, self.members[i][j],
                                               self.peer[j][i]))
            self.enc.choice("order of rows tied under a window's ORDER BY",
                            b.not_(b.or_(ties)))
            self._pos_before = pb
            self._rn = [self.count(b.and_(self.members[i][j], pb[j][i])
                                   for j in range(n) if j != i) for i in range(n)]
        assert self._pos_before is not None
        return self._rn, self._pos_before

    def arg(self, call: R.WindowCall, k: int) -> list[Value]:
        return [self.enc.value(call.args[k], e) for e in self.envs]

    def _range_bound(self, bound: R.FrameBound, i: int, j: int, *, start: bool) -> FNode:
        """Row j is on the frame's side of this bound of row i's RANGE frame: not before
        the start's key (not after the end's), in the ORDER BY's order. ``N PRECEDING``
        and ``N FOLLOWING`` move a numeric key by N against or along the order
        (SQLite's ``windowCodeRangeTest``)."""
        b = self.b
        if bound.kind in ("UNBOUNDED PRECEDING", "UNBOUNDED FOLLOWING"):
            return b.bool((bound.kind == "UNBOUNDED PRECEDING") == start)
        if bound.kind == "CURRENT ROW":
            return b.not_(self.before[j][i] if start else self.before[i][j])
        key = self.order[0]
        toward_end = (bound.kind == "FOLLOWING") != key.descending
        edge = _shifted(self.enc, self.okeys[i][0],
                        bound.offset if toward_end else -bound.offset)
        x, y = (self.okeys[j][0], edge) if start else (edge, self.okeys[j][0])
        return b.not_(C.sort_before(b, x, y, key.descending, key.nulls_first))

    def frame(self, f: R.Frame) -> list[list[FNode]]:
        """frame[i][j]: row j is in row i's frame."""
        b, n = self.b, self.n
        coord: list[FNode] | None = None
        if f.unit in ("ROWS", "GROUPS") and (f.start.kind != "UNBOUNDED PRECEDING"
                                             or f.end.kind != "UNBOUNDED FOLLOWING"):
            for bound in (f.start, f.end):
                if bound.offset is not None and not isinstance(bound.offset, int):
                    raise Unsupported(f"window frame {f.unit} with offset {bound.offset}")
            coord = self.positions()[0] if f.unit == "ROWS" else self.groups()
        if f.unit == "RANGE" and (f.start.offset is not None or f.end.offset is not None) \
                and len(self.order) != 1:
            raise BindError("RANGE with offset PRECEDING/FOLLOWING requires one ORDER BY "
                            "expression")
        out = []
        for i in range(n):
            row = []
            for j in range(n):
                conds = [self.members[i][j]]
                if coord is not None:
                    conds.append(_coord_bound(b, f.start, coord[j], coord[i], start=True))
                    conds.append(_coord_bound(b, f.end, coord[j], coord[i], start=False))
                elif f.unit == "RANGE":
                    conds.append(self._range_bound(f.start, i, j, start=True))
                    conds.append(self._range_bound(f.end, i, j, start=False))
                if f.exclude == "CURRENT ROW":
                    conds.append(b.bool(i != j))
                elif f.exclude == "GROUP":
                    conds.append(b.not_(self.peer[j][i]) if i != j else b.FALSE)
                elif f.exclude == "TIES":
                    conds.append(b.not_(self.peer[j][i]) if i != j else b.TRUE)
                row.append(b.and_(*conds))
            out.append(row)
        return out


def _shifted(enc: Encoder, v: Value, delta: int | float) -> Value:
    """The value a RANGE offset bound compares with: a number moved by ``delta`` (an
    INTEGER stays one for a small integer delta: past 64 bits it would be a double
    within EDGE_ROUNDING of 2**63, which no integer lies between), any other value (NULL,
    text) unchanged -- SQLite does no arithmetic on it, so the bound is the current
    row's peers. Otherwise the sum is taken in doubles, as SQLite's OP_Add does."""
    b = enc.b
    alts = []
    for a in v.alts:
        if (a.cls is StorageClass.INTEGER and isinstance(delta, int)
                and abs(delta) <= EDGE_ROUNDING):
            alts.append(replace(a, term=b.plus(a.term, b.int(delta))))
        elif a.cls in (StorageClass.INTEGER, StorageClass.REAL):
            taken = b.and_(b.not_(v.null), a.guard)
            x = promoted(enc, a.term, taken) if a.cls is StorageClass.INTEGER else a.term
            alts.append(Alt(StorageClass.REAL, a.guard,
                            rounded(enc, b.plus(x, b.real(Fraction(delta))), taken)))
        else:
            alts.append(a)
    return Value(v.null, tuple(alts))


def _key_before(b, keys: tuple[R.SortKey, ...], kx: list[Value], ky: list[Value]
                ) -> tuple[FNode, FNode]:
    """(x sorts strictly before y, x is a peer of y) under the window's ORDER BY."""
    before = []
    equal_so_far = b.TRUE
    for key, u, v in zip(keys, kx, ky, strict=True):
        before.append(b.and_(equal_so_far,
                             C.sort_before(b, u, v, key.descending, key.nulls_first)))
        equal_so_far = b.and_(equal_so_far, C.same_value(b, u, v))
    return b.or_(before), equal_so_far


def _coord_bound(b, bound: R.FrameBound, cj: FNode, ci: FNode, *, start: bool) -> FNode:
    """Whether coordinate cj (a row position or a peer-group index) is within this
    bound of the current row's ci."""
    kind = bound.kind
    if kind in ("UNBOUNDED PRECEDING", "UNBOUNDED FOLLOWING"):
        return b.bool((kind == "UNBOUNDED PRECEDING") == start)
    offset = 0 if kind == "CURRENT ROW" else int(bound.offset or 0)
    edge = b.plus(ci, b.int(offset if kind == "FOLLOWING" else -offset))
    return b.le(edge, cj) if start else b.le(cj, edge)


def _constant_int(call: R.WindowCall, k: int, default: int, *, minimum: int | None,
                  why: str = "") -> int:
    """A constant integer argument (an offset, a bucket count)."""
    if len(call.args) <= k:
        return default
    value = _int_literal(call.args[k])
    if value is None or (minimum is not None and value < minimum):
        raise Unsupported(f"window function {call.func}() with a non-constant or "
                          f"out-of-range argument {k + 1}" + (f" {why}" if why else ""))
    return value


def _int_literal(a: S.Expr) -> int | None:
    """The integer an argument spells (``3``, ``+3``, ``-3``), or None."""
    if isinstance(a, S.Call) and a.name == "+" and len(a.args) == 1:
        a = a.args[0]
    sign = 1
    if isinstance(a, S.Negate) and isinstance(a.operand, S.Const):
        a, sign = a.operand, -1
    if isinstance(a, S.Const) and isinstance(a.value, int):
        return sign * a.value
    return None


# ---------------------------------------------------------------------- ranking


@window_function("ROW_NUMBER", arity=(0, 0))
def win_row_number(enc: Encoder, w: Windowed, call: R.WindowCall) -> list[Value]:
    b = enc.b
    rn, _ = w.positions()
    return [int_value(b, b.plus(x, b.int(1))) for x in rn]


@window_function("RANK", arity=(0, 0))
def win_rank(enc: Encoder, w: Windowed, call: R.WindowCall) -> list[Value]:
    return [int_value(enc.b, x) for x in w.rank()]


@window_function("DENSE_RANK", arity=(0, 0))
def win_dense_rank(enc: Encoder, w: Windowed, call: R.WindowCall) -> list[Value]:
    b = enc.b
    return [int_value(b, b.plus(g, b.int(1))) for g in w.groups()]


@window_function("PERCENT_RANK", arity=(0, 0))
def win_percent_rank(enc: Encoder, w: Windowed, call: R.WindowCall) -> list[Value]:
    """(rank - 1) / (partition size - 1), 0.0 for a partition of one row (REAL)."""
    b = enc.b
    out = []
    for rank, size in zip(w.rank(), w.size, strict=True):
        single = b.le(size, b.int(1))
        ratio = b.real_div(b.to_real(b.minus(rank, b.int(1))),
                           b.ite(single, b.int(1), b.minus(size, b.int(1))))
        out.append(real_value(b, b.ite(single, b.real(0), rounded(enc, ratio))))
    return out


@window_function("CUME_DIST", arity=(0, 0))
def win_cume_dist(enc: Encoder, w: Windowed, call: R.WindowCall) -> list[Value]:
    """(rows of the partition before the row or its peers) / partition size (REAL)."""
    b = enc.b
    out = []
    for i in range(w.n):
        upto = w.count(b.and_(w.members[i][j], b.not_(w.before[i][j])) for j in range(w.n))
        out.append(real_value(b, rounded(enc, b.real_div(b.to_real(upto), w.size[i]))))
    return out


@window_function("NTILE", arity=(1, 1), arg_kinds=("bucket",))
def win_ntile(enc: Encoder, w: Windowed, call: R.WindowCall) -> list[Value]:
    """SQLite's ntileValueFunc: a partition of T rows in N buckets, the first T % N of
    them one row larger; tabulated over the (bounded) partition size and position."""
    b = enc.b
    n_buckets = _constant_int(call, 0, 1, minimum=1, why=_NTILE_WHY)
    rn, _ = w.positions()
    out = []
    for i in range(w.n):
        term = b.int(1)
        for total in range(1, w.n + 1):
            for row in range(total):
                term = b.ite(b.and_(b.eq(w.size[i], b.int(total)), b.eq(rn[i], b.int(row))),
                             b.int(_ntile(total, n_buckets, row)), term)
        out.append(int_value(b, term))
    return out


def _ntile(total: int, n: int, row: int) -> int:
    size = total // n
    if size == 0:
        return row + 1
    large = total - n * size
    small_from = large * (size + 1)
    if row < small_from:
        return 1 + row // (size + 1)
    return 1 + large + (row - small_from) // size


# ---------------------------------------------------------------------- offsets and values


def _lag_lead(enc: Encoder, w: Windowed, call: R.WindowCall, sign: int) -> list[Value]:
    """SQLite (``windowReturnOneRow``) seeks the row whose position in the partition is
    the current one's minus (LAG) or plus (LEAD) the offset, the offset taken as a
    number on the current row (``OP_Subtract``/``OP_Add``: text by its numeric prefix,
    NULL stays NULL); the seek succeeds only for an integral position
    (``OP_SeekRowid``), so a NULL or fractional offset gives the default, a negative
    one looks the other way, 0 is the row itself. No offset is an error."""
    b = enc.b
    xs = w.arg(call, 0)
    defaults = w.arg(call, 2) if len(call.args) > 2 else [null_value(b)] * w.n
    if len(call.args) < 2 or _int_literal(call.args[1]) is not None:
        offset = _constant_int(call, 1, 1, minimum=None)
        if offset == 0:
            return xs
        rn, _ = w.positions()
        steps = [[b.eq(rn[j], b.plus(rn[i], b.int(sign * offset))) for j in range(w.n)]
                 for i in range(w.n)]
    else:
        rn, _ = w.positions()
        steps = []
        for i, v in enumerate(w.arg(call, 1)):
            off = C.to_numeric(enc, v)
            row = []
            for j in range(w.n):
                # position j is rn[i] + sign * offset: (rn[j] - rn[i]) * sign = offset
                gap = b.times(b.minus(rn[j], rn[i]), b.int(sign))
                hits = []
                for a in off.alts:
                    if a.cls is StorageClass.INTEGER:
                        hits.append(b.and_(a.guard, b.eq(gap, a.term)))
                    elif a.cls is StorageClass.REAL:
                        # the position rn[i] -/+ offset, computed in doubles
                        at = rounded(enc, b.plus(b.to_real(rn[i]),
                                                 b.times(b.real(sign), a.term)))
                        hits.append(b.and_(a.guard, b.eq(b.to_real(rn[j]), at)))
                row.append(b.and_(b.not_(off.null), b.or_(hits)))
            steps.append(row)
    out = []
    for i in range(w.n):
        v = defaults[i]
        for j in range(w.n):
            if j != i or not steps[i][j].is_false():
                v = choose(b, b.and_(w.members[i][j] if j != i else b.TRUE, steps[i][j]),
                           xs[j], v)
        out.append(v)
    return out


@window_function("LAG", arity=(1, 3), arg_kinds=("any", "offset", "any"))
def win_lag(enc: Encoder, w: Windowed, call: R.WindowCall) -> list[Value]:
    """x of the row ``offset`` (default 1) positions earlier in the partition, else
    ``default`` (evaluated on the current row; NULL if none)."""
    return _lag_lead(enc, w, call, -1)


@window_function("LEAD", arity=(1, 3), arg_kinds=("any", "offset", "any"))
def win_lead(enc: Encoder, w: Windowed, call: R.WindowCall) -> list[Value]:
    return _lag_lead(enc, w, call, 1)


def _nth_in_frame(enc: Encoder, w: Windowed, call: R.WindowCall, nth: int | None
                  ) -> list[Value]:
    """x of the nth row (1-based; None: the last) of each row's frame, in the window's
    order; NULL when the frame has fewer rows."""
    b = enc.b
    xs = w.arg(call, 0)
    frames = w.frame(call.frame)
    _, pb = w.positions()
    out = []
    for i in range(w.n):
        f = frames[i]
        v = null_value(b)
        for j in range(w.n):
            if nth is None:
                after = b.or_(b.and_(f[k], pb[j][k]) for k in range(w.n) if k != j)
                at = b.and_(f[j], b.not_(after))
            else:
                earlier = w.count(b.and_(f[k], pb[k][j]) for k in range(w.n) if k != j)
                at = b.and_(f[j], b.eq(earlier, b.int(nth - 1)))
            v = choose(b, at, xs[j], v)
        out.append(v)
    return out


@window_function("FIRST_VALUE", arity=(1, 1), arg_kinds=("any",), frame=True)
def win_first_value(enc: Encoder, w: Windowed, call: R.WindowCall) -> list[Value]:
    return _nth_in_frame(enc, w, call, 1)


@window_function("LAST_VALUE", arity=(1, 1), arg_kinds=("any",), frame=True)
def win_last_value(enc: Encoder, w: Windowed, call: R.WindowCall) -> list[Value]:
    return _nth_in_frame(enc, w, call, None)


@window_function("NTH_VALUE", arity=(2, 2), arg_kinds=("any", "nth"), frame=True)
def win_nth_value(enc: Encoder, w: Windowed, call: R.WindowCall) -> list[Value]:
    return _nth_in_frame(enc, w, call, _constant_int(call, 1, 1, minimum=1, why=_NTH_WHY))


# Why NTILE's and NTH_VALUE's argument must be a constant positive integer here: SQLite
# raises an error for other values (checked at run time, row by row), and whether it
# raises depends on how far the statement runs (LIMIT, EXISTS stop early), which the
# encoding does not model.
_NTILE_WHY = ("(SQLite reads N on the partition's first row and raises "
              "'argument of ntile must be a positive integer' for N < 1 or NULL)")
_NTH_WHY = ("(SQLite reads N on every row and raises 'second argument to nth_value "
            "must be a positive integer' unless it is one)")


# ---------------------------------------------------------------------- aggregates


def _sliding(f: R.Frame) -> bool:
    """Whether SQLite removes rows from the running aggregate (its xInverse): a frame
    whose start moves, or one that excludes rows."""
    return f.start.kind != "UNBOUNDED PRECEDING" or f.exclude != "NO OTHERS"


def _sum_history(enc: Encoder, w: Windowed, i: int, vals: list[Value], v: Value) -> Value:
    """SUM over a sliding frame: SQLite's sum stays REAL once a non-integer has entered
    it, even after that row left the frame (sumInverse keeps the ``approx`` flag), so
    an all-integer frame may still give a REAL. Which rows entered before depends on
    the partition's history: the class is left free (INTEGER or REAL, the same
    number) unless no row of the partition is a non-integer summand."""
    b = enc.b
    int_alt = next((a for a in v.alts if a.cls is StorageClass.INTEGER), None)
    if int_alt is None:
        return v
    real_alt = next((a for a in v.alts if a.cls is StorageClass.REAL), None)
    partition_real = b.or_(b.and_(w.members[i][j], b.not_(vals[j].null),
                                  b.not_(_sums_as_integer(enc, vals[j])))
                           for j in range(w.n))
    if partition_real.is_false():
        return v
    drift = b.fresh("sum_history_real", BOOL)
    enc.define([drift], b.implies(drift, partition_real),
               "the class (INTEGER or REAL) of SUM over a sliding window frame",
               b.not_(partition_real))
    as_real = b.to_real(int_alt.term)
    alts = [Alt(StorageClass.INTEGER, b.and_(int_alt.guard, b.not_(drift)), int_alt.term),
            Alt(StorageClass.REAL, b.or_(b.and_(int_alt.guard, drift),
                                         real_alt.guard if real_alt else b.FALSE),
                b.ite(int_alt.guard, as_real, real_alt.term) if real_alt else as_real)]
    return Value(v.null, tuple(alts))


def _aggregate(func: str):
    def encode(enc: Encoder, w: Windowed, call: R.WindowCall) -> list[Value]:
        frames = w.frame(call.frame)
        vals = w.arg(call, 0) if call.args else None
        coll = S.collation_name(call.args[0]) if call.args else BINARY
        out = []
        for i in range(w.n):
            if func == "COUNT":
                out.append(_count(enc, frames[i], vals, False, coll))
            elif func in ("MIN", "MAX"):
                assert vals is not None
                out.append(_extreme(enc, frames[i], vals, func == "MAX", coll)[0])
            else:
                assert vals is not None
                # a sliding frame's sum adds rows and takes leaving ones off again: its
                # rounding depends on the partition's history
                history = w.members[i] if _sliding(call.frame) else None
                v = _sum_like(enc, R.AggCall(func, call.args[0]), frames[i], vals, coll,
                              history)
                if func == "SUM" and _sliding(call.frame):
                    v = _sum_history(enc, w, i, vals, v)
                out.append(v)
        return out

    encode.__name__ = f"win_{func.lower()}"
    encode.__doc__ = (f"{func} over each row's frame: the GROUP BY aggregate's encoding "
                      "with the frame's rows as the group.")
    return encode


window_function("COUNT", arity=(0, 1), arg_kinds=("any",), frame=True, star=True)(
    _aggregate("COUNT"))
for _func in ("SUM", "TOTAL", "AVG", "MIN", "MAX"):
    window_function(_func, arity=(1, 1), arg_kinds=("num" if _func in ("SUM", "TOTAL", "AVG")
                                                    else "any",), frame=True)(
        _aggregate(_func))


@window_function("GROUP_CONCAT", arity=(1, 2), arg_kinds=("any", "separator"), frame=True)
def win_group_concat(enc: Encoder, w: Windowed, call: R.WindowCall) -> list[Value]:
    """GROUP_CONCAT over each row's frame: the GROUP BY aggregate's encoding with the
    frame's rows as the group (a constant separator). SQLite concatenates in frame
    order, which ties leave open; the text is exact where the frame's non-NULL values
    are all the same value (every order gives it), otherwise a free text, an
    over-approximation searched last (as for the plain aggregate).

    Unlike the aggregate, an empty text is NULL: SQLite's window value
    (``groupConcatValue``) reads the accumulator, which holds no text until a
    character is added (``GROUP_CONCAT('') OVER ()`` is NULL, the aggregate ''). Not
    with an EXCLUDE clause, even ``EXCLUDE NO OTHERS``: SQLite then computes each
    frame afresh and finalizes it as the aggregate does (``''``; SQLite 3.40, found by
    the fuzz)."""
    b = enc.b
    frames = w.frame(call.frame)
    vals = w.arg(call, 0)
    agg = R.AggCall("GROUP_CONCAT", call.args[0], False,
                    call.args[1] if len(call.args) > 1 else None)
    out = []
    for i in range(w.n):
        v = _group_concat(enc, agg, frames[i], vals)
        (a,) = v.alts
        if call.frame.exclude_written:
            out.append(v)
        else:
            out.append(Value(b.or_(v.null, b.eq(b.str_len(a.term), b.int(0))), v.alts))
    return out
