"""Collating sequences: BINARY, NOCASE and RTRIM, as SQLite applies them to text.

A collation only changes how two TEXT values compare
(https://sqlite.org/datatype3.html#collation); numbers and NULL are untouched
and the cross-class order (numbers before text) stays. Each built-in collation
is a *key*: NOCASE compares ``LOWER(x)`` under BINARY (SQLite folds ASCII
letters only, as its LOWER does), RTRIM compares ``RTRIM(x)`` (trailing spaces
only, as its RTRIM does). So a collated comparison, DISTINCT, GROUP BY, ORDER BY
or MIN/MAX is the BINARY one on keys, and its semantics is that of LOWER and
RTRIM, encoded and checked once in ``strings.py``.

Which collation an operation uses is decided from the IR (``spotit.ir.scalar.
collation_of`` and friends); a collation SpotIt does not model (one an
application registers) is ``unsupported`` by name, never treated as BINARY.

Grouping under a collation is nondeterministic: of ``'abc'`` and ``'ABC'`` in
one NOCASE group, SQLite outputs one, depending on its plan. The encodings of
DISTINCT, GROUP BY, set operations and MIN/MAX then take the representative as
a free choice (see ``representative``), like a bare column.
"""

from __future__ import annotations

from collections.abc import Sequence

from pysmt.fnode import FNode
from pysmt.typing import INT

from spotit.encodings import conversions as C
from spotit.encodings.encoder import Encoder
from spotit.encodings.values import Alt, Value, choose, null_value, text_value
from spotit.errors import Unsupported
from spotit.ir.types import BINARY, MODELLED_COLLATIONS, StorageClass
from spotit.mutants import planted

TEXT_C = StorageClass.TEXT


def check_modelled(name: str, where: str = "") -> None:
    if name not in MODELLED_COLLATIONS:
        raise Unsupported(f"collation {name}" + (f" on {where}" if where else ""))


def key(enc: Encoder, v: Value, collation: str) -> Value:
    """The value whose BINARY comparisons are ``v``'s comparisons under ``collation``."""
    if collation == BINARY:
        return v
    check_modelled(collation)
    a = v.alt(TEXT_C)
    if a is None or a.date is not None or (a.shape is not None and _digits_only(a.shape)):
        return v  # date and padded-number text has no letters and no trailing space
    cache = enc.collation_keys
    k = (collation, a.term)
    hit = cache.get(k)
    if hit is None:
        hit = cache[k] = _key_alt(enc, a.term, collation)
    alts = tuple(Alt(TEXT_C, x.guard, hit.term, None, hit.shape) if x.cls is TEXT_C else x
                 for x in v.alts)
    return Value(v.null, alts)


def keys(enc: Encoder, row: Sequence[Value], collations: Sequence[str]) -> list[Value]:
    return [key(enc, v, c) for v, c in zip(row, collations, strict=True)]


def _digits_only(shape) -> bool:
    from spotit.encodings.textorder import Padded

    return isinstance(shape, Padded)  # separators are never letters nor at the end


def _key_alt(enc: Encoder, s: FNode, collation: str) -> Alt:
    """LOWER(s) (keeping its case-mapped view: exact equality with constants) or
    RTRIM(s), by the registered encodings of those functions."""
    from spotit.encodings.registry import FUNCTIONS

    b = enc.b
    if s.is_constant():
        t = s.constant_value()
        if collation == "NOCASE":
            t = "".join(c.lower() if c.isascii() else c for c in t)
            if planted("nocase-ignores-spaces"):
                t = t.rstrip(" ")
        else:
            t = t.rstrip(" ")
        return Alt(TEXT_C, b.TRUE, b.str(t))
    fn = FUNCTIONS["LOWER" if collation == "NOCASE" else "RTRIM"].encode
    out = fn(enc, [text_value(b, s)]).alts[0]
    if collation == "NOCASE" and planted("nocase-ignores-spaces"):
        out = FUNCTIONS["RTRIM"].encode(enc, [text_value(b, out.term)]).alts[0]
    return out


def same(enc: Encoder, x: Value, y: Value, collation: str) -> FNode:
    """Equal under ``collation``, NULL equal to NULL (DISTINCT, GROUP BY, keys)."""
    return C.same_value(enc.b, key(enc, x, collation), key(enc, y, collation))


def same_row(enc: Encoder, x: Sequence[Value], y: Sequence[Value],
             collations: Sequence[str]) -> FNode:
    b = enc.b
    return b.and_(same(enc, u, v, c) for u, v, c in zip(x, y, collations, strict=True))


def folds(collations: Sequence[str]) -> bool:
    """Whether any collation can make different values equal (a choice of
    representative then exists)."""
    return any(c != BINARY for c in collations)


def representative(enc: Encoder, members: Sequence[FNode], rows: Sequence[Sequence[Value]],
                   why: str) -> list[Value]:
    """The values of one member row, chosen freely among ``members`` (SQLite outputs
    one row of a group of collation-equal rows; which one depends on its plan).

    The choice cannot matter when every member equals the first under BINARY:
    recorded so the pipeline looks there first.
    """
    b = enc.b
    n = len(members)
    pick = b.fresh("representative", INT)
    nonempty = b.or_(members)
    enc.side.append(b.implies(nonempty, b.or_(
        b.and_(b.eq(pick, b.int(j)), members[j]) for j in range(n))))
    width = len(rows[0]) if rows else 0
    out = []
    for col in range(width):
        v = null_value(b)
        for j in range(n):
            v = choose(b, b.eq(pick, b.int(j)), rows[j][col], v)
        out.append(v)
    agree = [b.implies(b.and_(members[i], members[j]),
                       b.and_(C.same_value(b, rows[i][c], rows[j][c]) for c in range(width)))
             for i in range(n) for j in range(i)]
    enc.choice(why, b.and_(agree))
    return out


def ordered_before(enc: Encoder, x: Value, y: Value, collation: str) -> FNode:
    """x < y under ``collation`` for non-NULL values."""
    return C.less_than(enc.b, key(enc, x, collation), key(enc, y, collation))
