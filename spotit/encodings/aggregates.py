"""GROUP BY and aggregates: COUNT, SUM, TOTAL, AVG, MIN, MAX, GROUP_CONCAT and bare
columns.

Groups: input rows whose keys are the same formulas are one candidate (``_groups``);
a candidate *leads* its group when one of its rows is present and no earlier
candidate has a present row with the same key (NULL keys form one group); the
output has one row per leader. Row j is a *member* of a group when present with
the same key. Without GROUP BY there is exactly one output row, even on empty input.

Aggregates skip NULLs; COUNT of nothing is 0; SUM/AVG/MIN/MAX of nothing is
NULL; TOTAL of nothing is 0.0. SUM is INTEGER when every summed value is,
else REAL; AVG and TOTAL are REAL. A bare column next to exactly one MIN/MAX
comes from a row holding that extreme; otherwise from some row of the group:
both are SQLite's arbitrary choices, modelled by a free choice per group.
"""

from __future__ import annotations

from collections.abc import Sequence

from pysmt.fnode import FNode
from pysmt.typing import INT, REAL, STRING

from spotit.encodings import collation, numtext, strings
from spotit.encodings import conversions as C
from spotit.encodings.encoder import Encoder, Env, SymRel, SymRow
from spotit.encodings.registry import encodes
from spotit.encodings.relational import identical, push, same_row
from spotit.encodings.rounding import accumulated, magnitude, promoted, rounded, slid
from spotit.encodings.values import (
    Alt,
    Value,
    choose,
    int_value,
    normalize,
    null_value,
    real_value,
    text_value,
)
from spotit.errors import Unsupported
from spotit.ir import relational as R
from spotit.ir import scalar as S
from spotit.ir.types import BINARY, StorageClass
from spotit.mutants import planted

INT_C, REAL_C, TEXT_C = StorageClass.INTEGER, StorageClass.REAL, StorageClass.TEXT


@encodes(R.Aggregate)
def encode_aggregate(enc: Encoder, r: R.Aggregate, env: Env) -> SymRel:
    b = enc.b
    src = enc.rel(r.input, env)
    rows = [row for row in src.rows if not row.present.is_false()]
    keys = [[enc.value(k, push(env, row.values)) for k in r.keys] for row in rows]
    args = [
        [enc.value(c.arg, push(env, row.values)) if c.arg is not None else None
         for c in r.aggs]
        for row in rows
    ]
    if not r.keys:
        groups = [(b.TRUE, [row.present for row in rows], [])]
    else:
        groups = _groups(enc, r, rows, keys)
    out = []
    for leader, members, key_values in groups:
        values = _aggregate_values(enc, r, members, [a for a in args], rows)
        out.append(SymRow(leader, tuple(key_values) + tuple(values)))
    return SymRel(tuple(out), width=len(r.out))


def _groups(enc: Encoder, r: R.Aggregate, rows: Sequence[SymRow], keys: list[list[Value]]
            ) -> list[tuple[FNode, list[FNode], list[Value]]]:
    """(leader, members, key values) of each candidate group.

    Rows whose keys are the same formulas (``identical``: a key read from one base row,
    carried through joins) always fall in one group: they are one candidate, led by
    whichever of them is present. A GROUP BY on a column of one table after a long join then has
    as many candidates as that table has rows, not as the join has.
    """
    b = enc.b
    n = len(rows)
    collations = [S.collation_name(k) for k in r.keys]
    # (each row its own candidate under the planted mutant, which keeps NULLs apart)
    of, cls = identical([tuple(k) for k in keys], not planted("group-by-null-apart"))
    first = [c[0] for c in of]
    keyed = [collation.keys(enc, keys[i], collations) for i in first]
    m = len(of)
    pairs = {(c, d): same_row(b, keyed[d], keyed[c]) for c in range(m) for d in range(c)}
    if planted("group-by-null-apart"):
        pairs = {(c, d): b.and_(same, b.not_(b.or_(k.null for k in keyed[c])))
                 for (c, d), same in pairs.items()}
    present = [b.or_(rows[j].present for j in members) for members in of]
    groups = []
    for c in range(m):
        same = [b.TRUE if d == c else pairs[max(c, d), min(c, d)] for d in range(m)]
        earlier = b.or_(b.and_(present[d], same[d]) for d in range(c))
        leader = b.and_(present[c], b.not_(earlier))
        members = [b.and_(rows[j].present, same[cls[j]]) for j in range(n)]
        key_values = keys[first[c]]
        if collation.folds(collations):
            key_values = collation.representative(
                enc, members, keys, "which value of a collation-equal group GROUP BY shows")
        groups.append((leader, members, key_values))
    return groups


def _aggregate_values(enc: Encoder, r: R.Aggregate, members: list[FNode],
                      args: list[list[Value | None]], rows: Sequence[SymRow]) -> list[Value]:
    b = enc.b
    n = len(members)
    column = lambda k: [args[j][k] for j in range(n)]  # noqa: E731
    extremes = [k for k, c in enumerate(r.aggs) if c.func in ("MIN", "MAX")]
    results: list[Value | None] = [None] * len(r.aggs)
    winners: dict[int, list[FNode]] = {}
    for k, call in enumerate(r.aggs):
        if call.func == "BARE":
            continue
        vals = column(k)
        coll = S.collation_name(call.arg) if call.arg is not None else BINARY
        if call.func == "COUNT":
            results[k] = _count(enc, members, vals if call.arg is not None else None,
                                call.distinct, coll)
        elif call.func in ("SUM", "TOTAL", "AVG"):
            results[k] = _sum_like(enc, call, members, vals, coll)
        elif call.func in ("MIN", "MAX"):
            results[k], winners[k] = _extreme(enc, members, vals, call.func == "MAX", coll)
        elif call.func == "GROUP_CONCAT":
            results[k] = _group_concat(enc, call, members, vals)
        else:
            raise Unsupported(f"aggregate {call.func}")
    bare = [k for k, c in enumerate(r.aggs) if c.func == "BARE"]
    if bare:
        pick, allowed = _bare_row(enc, members,
                                  winners[extremes[0]] if len(extremes) == 1 else None)
        nonempty = b.or_(members)
        agree = []
        for k in bare:
            vals = column(k)
            v = null_value(b)
            for j in range(n):
                v = choose(b, b.eq(pick, b.int(j)), vals[j], v)
            results[k] = Value(b.or_(b.not_(nonempty), v.null), v.alts)
            agree += [b.implies(allowed[j], C.same_value(b, vals[j], v)) for j in range(n)]
        enc.choice("bare column next to an aggregate", b.and_(agree))
    return [v if v is not None else null_value(b) for v in results]


def _group_concat(enc: Encoder, call: R.AggCall, members: list[FNode], vals: list[Value]
                  ) -> Value:
    """GROUP_CONCAT: the text of the non-NULL values joined by the separator, in an
    order SQLite does not define. Exact where the group's values are all the same
    value (then every order gives the same text: n copies, or one with DISTINCT);
    otherwise any text, an over-approximation searched last."""
    b = enc.b
    sep = call.separator
    if sep is not None and not isinstance(sep, S.Const):
        raise Unsupported("GROUP_CONCAT with a separator that is not a constant")
    # SQLite takes the separator as text; NULL is no separator at all
    sep_text = "," if sep is None else ("" if sep.value is None else _as_text(sep.value))
    n = len(members)
    counted = [b.and_(members[j], b.not_(vals[j].null)) for j in range(n)]
    first = null_value(b)
    for j in reversed(range(n)):
        first = choose(b, counted[j], vals[j], first)
    same = b.and_(b.implies(counted[j], C.same_value(b, vals[j], first)) for j in range(n))
    text = strings.text_of(enc, first)
    count = b.sum([b.ite(c, b.int(1), b.int(0)) for c in counted])
    joined = text
    if not call.distinct:
        copies = [text]
        for _ in range(1, n):
            copies.append(b.concat(b.concat(copies[-1], b.str(sep_text)), text))
        joined = copies[-1]
        for c in reversed(range(1, n)):
            joined = b.ite(b.eq(count, b.int(c)), copies[c - 1], joined)
    enc.approximate("GROUP_CONCAT of different values (their order is not defined)", same)
    term = b.ite(same, joined, b.fresh("group_concat", STRING))
    return text_value(b, term, b.eq(count, b.int(0)))


def _as_text(value) -> str:
    from spotit import concrete

    return str(concrete.evaluate("CAST(? AS TEXT)", (value,)))


def _count(enc: Encoder, members: list[FNode], vals: list[Value] | None, distinct: bool,
           coll: str) -> Value:
    b = enc.b
    n = len(members)
    if vals is None or planted("count-null"):
        counted = members
    else:
        counted = [b.and_(members[j], b.not_(vals[j].null)) for j in range(n)]
        if distinct:
            counted = _first_occurrences(enc, counted, vals, coll)
    return int_value(b, b.sum([b.ite(c, b.int(1), b.int(0)) for c in counted]))


def _first_occurrences(enc: Encoder, counted: list[FNode], vals: list[Value], coll: str
                       ) -> list[FNode]:
    """Counted rows whose value no earlier counted row has under the argument's
    collation (DISTINCT inside aggregates). Collation-equal text has the same
    numeric value, so which one SUM(DISTINCT) adds does not matter."""
    b = enc.b
    keyed = [collation.key(enc, v, coll) for v in vals]
    return [
        b.and_(counted[j], b.not_(b.or_(
            b.and_(counted[i], C.same_value(b, keyed[i], keyed[j])) for i in range(j)
        )))
        for j in range(len(counted))
    ]


def _sum_like(enc: Encoder, call: R.AggCall, members: list[FNode], vals: list[Value],
              coll: str, history: list[FNode] | None = None) -> Value:
    """SUM, TOTAL or AVG of the ``members``' values; ``history``: for a sliding window
    frame, the rows whose values SQLite's running sum has seen (see rounding.slid)."""
    b = enc.b
    n = len(members)
    nums = [C.to_numeric(enc, v) for v in vals]
    counted = [b.and_(members[j], b.not_(nums[j].null)) for j in range(n)]
    if call.distinct:
        counted = _first_occurrences(enc, counted, vals, coll)  # as stored: '12' <> 12
    int_terms, real_terms, magnitudes = [], [], []
    for j in range(n):
        for a in nums[j].alts:
            g = b.and_(counted[j], a.guard)
            x = a.term if a.cls is not INT_C else promoted(enc, a.term, g)
            real_terms.append(b.ite(g, x, b.real(0)))
            magnitudes.append((j, a.guard, magnitude(b, x)))
            if a.cls is INT_C:
                int_terms.append(b.ite(g, a.term, b.int(0)))
    any_real = [b.and_(counted[j], b.not_(_sums_as_integer(enc, vals[j]))) for j in range(n)]
    count = b.sum([b.ite(c, b.int(1), b.int(0)) for c in counted])
    empty = b.not_(b.or_(counted))
    exact_total = b.sum(real_terms, ty=REAL) if real_terms else b.real(0)

    def size(rows: list[FNode]) -> FNode:
        """The sum of the magnitudes of the values of ``rows``."""
        return b.sum([b.ite(b.and_(rows[j], b.not_(nums[j].null), guard), m, b.real(0))
                      for j, guard, m in magnitudes], ty=REAL)

    # SQLite adds the values up in doubles (its rSum, for TOTAL, AVG and a REAL SUM)
    if history is None:
        total_real = accumulated(enc, exact_total, size(counted), n, b.not_(empty))
    else:
        total_real = slid(enc, exact_total, size(history))
    if call.func == "TOTAL":
        return real_value(b, total_real)
    if call.func == "AVG":
        mean = b.real_div(total_real, b.ite(empty, b.int(1), count))
        return real_value(b, rounded(enc, mean, b.not_(empty)), empty)
    has_real = b.or_(any_real)
    total_int = b.sum(int_terms) if int_terms else b.int(0)
    alts = []
    if not has_real.is_true():
        alts.append(Alt(INT_C, b.not_(has_real), total_int))
    if not has_real.is_false():
        alts.append(Alt(REAL_C, has_real, total_real))
    return normalize(b, Value(b.FALSE if planted("sum-empty-zero") else empty, tuple(alts)))


def _sums_as_integer(enc: Encoder, v: Value) -> FNode:
    """SUM stays INTEGER only over integers and text that is exactly an integer
    (``sqlite3_value_numeric_type``: ' 12 ' counts as 12, but '12.0', '12abc' and ''
    make the sum REAL)."""
    b = enc.b
    out = []
    for a in v.alts:
        if a.cls is INT_C:
            out.append(a.guard)
        elif a.cls is TEXT_C and a.date is None:
            nt = numtext.decompose(enc, a.term)
            out.append(b.and_(a.guard, nt.well_formed, b.not_(nt.has_point),
                              b.not_(nt.has_exponent), numtext.integer_fits(enc, a.term, nt)))
    return b.or_(out)


def _extreme(enc: Encoder, members: list[FNode], vals: list[Value], want_max: bool,
             coll: str) -> tuple[Value, list[FNode]]:
    """MIN/MAX over non-NULL members under the argument's collation, and for each row
    whether it holds the extreme. Of several collation-equal extremes SQLite keeps
    the first it meets: a free choice among them."""
    b = enc.b
    n = len(members)
    keyed = [collation.key(enc, v, coll) for v in vals]
    best = null_value(b)
    for j in range(n):
        cand = b.and_(members[j], b.not_(vals[j].null))
        better = C.less_than(b, best, keyed[j]) if want_max else C.less_than(b, keyed[j], best)
        take = b.and_(cand, b.or_(best.null, better))
        best = choose(b, take, keyed[j], best)
    if planted("min-agg-null-smallest") and not want_max:
        best = Value(b.or_(best.null, *(b.and_(members[j], vals[j].null) for j in range(n))),
                     best.alts)
    holds = [
        b.and_(members[j], b.not_(vals[j].null), b.not_(best.null),
               C.same_value(b, keyed[j], best))
        for j in range(n)
    ]
    if coll == BINARY or not n:
        return best, holds
    what = "MAX" if want_max else "MIN"
    value = collation.representative(
        enc, holds, [[v] for v in vals],
        f"which of several collation-equal {what} values SQLite returns")[0]
    return Value(best.null, value.alts), holds


def _bare_row(enc: Encoder, members: list[FNode], winners: list[FNode] | None
              ) -> tuple[FNode, list[FNode]]:
    """The row a bare column is read from: a free choice among the group's rows
    (among the rows holding the extreme when the query has one MIN/MAX)."""
    b = enc.b
    n = len(members)
    pick = b.fresh("bare_row", INT)
    allowed = winners if winners is not None else members
    fallback = members
    if winners is not None:
        # all values NULL (no winner): SQLite still reads some row of the group
        no_winner = b.not_(b.or_(winners))
        allowed = [b.or_(w, b.and_(no_winner, m)) for w, m in zip(winners, fallback,
                                                                  strict=True)]
    nonempty = b.or_(members)
    enc.side.append(b.implies(nonempty, b.or_(
        b.and_(b.eq(pick, b.int(j)), allowed[j]) for j in range(n)
    )))
    return pick, allowed
