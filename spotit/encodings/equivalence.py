"""When do two query results differ? One formula per semantics.

The solver needs a witness, not a proof of equality, so each formula says
"the results differ":

- **set** (BIRD's ``set(pred) == set(gold)``): some present row of one result
  has no equal present row in the other;
- **bag**: some present row occurs a different number of times in the two;
- **list**: the number of rows differs, or some position holds different rows.

Row equality is Python's ``==`` on fetched rows: NULL equals NULL, INTEGER 1
equals REAL 1.0, text never equals a number (``relational.same_row``).
Results of different widths differ unless both are empty.
"""

from __future__ import annotations

from enum import Enum

from pysmt.fnode import FNode

from spotit.encodings.builder import Builder
from spotit.encodings.encoder import SymRel
from spotit.encodings.relational import same_row
from spotit.mutants import planted


class Semantics(Enum):
    SET = "set"
    BAG = "bag"
    LIST = "list"


def differ(b: Builder, r1: SymRel, r2: SymRel, semantics: Semantics) -> FNode:
    rows1 = [r for r in r1.rows if not r.present.is_false()]
    rows2 = [r for r in r2.rows if not r.present.is_false()]
    if r1.width != r2.width:
        return b.or_([r.present for r in rows1] + [r.present for r in rows2])
    if planted("set-as-bag") and semantics is Semantics.SET:
        return _bag_differ(b, rows1, rows2)
    if planted("bag-as-set") and semantics is Semantics.BAG:
        return b.or_(_missing(b, rows1, rows2), _missing(b, rows2, rows1))
    if semantics is Semantics.SET:
        return b.or_(_missing(b, rows1, rows2), _missing(b, rows2, rows1))
    if semantics is Semantics.BAG or r1.order is None or r2.order is None:
        return _bag_differ(b, rows1, rows2)
    return _list_differ(b, r1, r2)


def _missing(b: Builder, xs, ys) -> FNode:
    """Some present row of xs has no equal present row in ys."""
    return b.or_(
        b.and_(x.present, b.not_(b.or_(b.and_(y.present, same_row(b, x.values, y.values))
                                       for y in ys)))
        for x in xs
    )


def _count(b: Builder, row, rows) -> FNode:
    return b.sum([
        b.ite(b.and_(o.present, same_row(b, row.values, o.values)), b.int(1), b.int(0))
        for o in rows
    ])


def _bag_differ(b: Builder, rows1, rows2) -> FNode:
    return b.or_(
        b.and_(w.present, b.not_(b.eq(_count(b, w, rows1), _count(b, w, rows2))))
        for w in rows1 + rows2
    )


def _list_differ(b: Builder, r1: SymRel, r2: SymRel) -> FNode:
    n1 = b.sum([b.ite(r.present, b.int(1), b.int(0)) for r in r1.rows])
    n2 = b.sum([b.ite(r.present, b.int(1), b.int(0)) for r in r2.rows])
    positions = []
    assert r1.order is not None and r2.order is not None
    for x, ox in zip(r1.rows, r1.order, strict=True):
        for y, oy in zip(r2.rows, r2.order, strict=True):
            positions.append(b.and_(x.present, y.present, b.eq(ox, oy),
                                    b.not_(same_row(b, x.values, y.values))))
    return b.or_(b.not_(b.eq(n1, n2)), b.or_(positions))
