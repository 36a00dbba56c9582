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

- **spider2** (Spider 2.0's evaluator, ``Spider2``): some gold column (or listed
  condition column) matches no column of the prediction. The evaluator matches
  columns of CSV files re-read by pandas, with a tolerance of 0.01 and, when the
  order is ignored, each column sorted by its text; the formula claims a match only
  where that evaluator surely finds one (the same values of the same storage class;
  numbers of all-number columns, equal or, in order, within 0.0099), so a proof is
  sound and a difference the evaluator does not see is a candidate SQLite rejects.
  ``docs/semantics.md`` has the exact definition.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from pysmt.fnode import FNode

from spotit.encodings.builder import Builder
from spotit.encodings.conversions import (
    numbers_within,
    numeric_or_null,
    same_typed,
    same_value,
)
from spotit.encodings.encoder import SymRel
from spotit.encodings.relational import same_row
from spotit.errors import Unsupported
from spotit.mutants import planted


class Semantics(Enum):
    SET = "set"
    BAG = "bag"
    LIST = "list"

    @property
    def basis(self) -> str:
        """The semantics the canonical forms are taken under."""
        return self.value

    @property
    def ordered(self) -> bool:
        return self is Semantics.LIST


# Spider 2.0's evaluator: numbers within this of each other are equal
SPIDER2_TOLERANCE = 0.01
# the formula's own tolerance, a margin inside it for doubles read back from text
SPIDER2_CLAIMED = 0.0099
# all-number columns compare by value when sorted by text only below this magnitude
# (from 1e16 Python prints a float as 1e+16 and an integer in full: orders part)
SPIDER2_PLAIN_NUMBERS = 1e15


@dataclass(frozen=True)
class Spider2:
    """Spider 2.0-lite's comparison of a prediction with a gold result.

    ``columns``: the gold columns that must be found (its ``condition_cols``; None:
    all), or several lists of them, one per gold result of the task: the first that
    fits the gold query's result is its own (``written``: ``spider2:2/1``);
    ``ordered``: rows compared in order (``ignore_order`` false)."""

    columns: tuple[tuple[int, ...], ...] | None = None
    ordered: bool = False

    @property
    def value(self) -> str:
        name = "spider2-ordered" if self.ordered else "spider2"
        if not self.columns:
            return name
        return name + ":" + "/".join(",".join(map(str, c)) for c in self.columns)

    def gold_columns(self, width: int) -> tuple[int, ...] | None:
        """The gold columns compared, for a gold result of ``width`` columns (None: no
        list of condition columns fits it)."""
        if not self.columns:
            return tuple(range(width))
        return next((c for c in self.columns if all(i < width for i in c)), None)

    @property
    def basis(self) -> str:
        # equal results (same rows, same storage classes) pass the evaluator
        return "list" if self.ordered else "bag"


Comparison = Semantics | Spider2


def comparison(name: str | Comparison) -> Comparison:
    """``set``, ``bag``, ``list``, or ``spider2[-ordered][:i,j,...]``."""
    if isinstance(name, (Semantics, Spider2)):
        return name
    head, _, cols = name.partition(":")
    if head in ("spider2", "spider2-ordered"):
        try:
            columns = tuple(tuple(int(c) for c in alt.split(",")) for alt in cols.split("/")
                            ) if cols else None
        except ValueError:
            raise ValueError(f"bad condition columns in {name!r}: want spider2:0,2") from None
        if columns is not None and any(c < 0 for alt in columns for c in alt):
            raise ValueError(f"bad condition columns in {name!r}: negative index")
        return Spider2(columns, head == "spider2-ordered")
    return Semantics(name)


def differ(b: Builder, r1: SymRel, r2: SymRel, semantics: Comparison) -> FNode:
    if isinstance(semantics, Spider2):
        return _spider2_differ(b, r1, r2, semantics)
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
    if semantics is Semantics.BAG or (r1.order is None and r2.order is None):
        # (in order, two results in SQLite's own order have the same possible results
        # exactly when they hold the same rows: any order of them)
        return _bag_differ(b, rows1, rows2)
    if r1.order is None or r2.order is None:
        # one result in any order SQLite picks, the other sorted: they may differ as soon
        # as it has two different rows (an over-approximation: SQLite confirms or not)
        return b.or_(_bag_differ(b, rows1, rows2), _two_different(b, rows1))
    return _list_differ(b, r1, r2)


def _two_different(b: Builder, rows) -> FNode:
    """Two present rows that differ."""
    return b.or_(b.and_(x.present, y.present, b.not_(same_row(b, x.values, y.values)))
                 for i, x in enumerate(rows) for y in rows[i + 1:])


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


def _size(b: Builder, r: SymRel) -> FNode:
    """How many rows are present."""
    return b.sum([b.ite(row.present, b.int(1), b.int(0)) for row in r.rows])


def _list_differ(b: Builder, r1: SymRel, r2: SymRel) -> FNode:
    n1, n2 = _size(b, r1), _size(b, r2)
    positions = []
    assert r1.order is not None and r2.order is not None
    for x, ox in zip(r1.rows, r1.order, strict=True):
        for y, oy in zip(r2.rows, r2.order, strict=True):
            positions.append(b.and_(x.present, y.present, b.eq(ox, oy),
                                    b.not_(same_row(b, x.values, y.values))))
    return b.or_(b.not_(b.eq(n1, n2)), b.or_(positions))


def _spider2_differ(b: Builder, gold: SymRel, pred: SymRel, how: Spider2) -> FNode:
    """Some gold column is matched by no column of the prediction."""
    columns = how.gold_columns(gold.width)
    if columns is None:
        raise Unsupported(f"condition columns {how.value} of a gold result with "
                          f"{gold.width} columns")
    ordered = how.ordered and min(len(gold.rows), len(pred.rows)) > 1
    if ordered and (gold.order is None or pred.order is None):
        # the evaluator compares rows in the order SQLite returns them, which no
        # ORDER BY fixes here (at most one row on a side: any order is the same)
        raise Unsupported("rows compared in order (Spider 2.0's ignore_order false) "
                          "whose order no ORDER BY fixes")
    # once per column: whether it holds only numbers (pandas reads it back as numbers)
    below = None if ordered else SPIDER2_PLAIN_NUMBERS
    gold_plain = {i: _plain(b, gold.rows, i, below) for i in columns}
    pred_plain = [_plain(b, pred.rows, j, below) for j in range(pred.width)]
    # a cell the CSV round trip does not read back as one cell of one row: claim no match
    mangled = b.or_(_csv_mangled(b, gold, gold.width == 1 and pred.width != 1),
                    _csv_mangled(b, pred, pred.width == 1 and gold.width != 1))
    if ordered:
        same_size = b.eq(_size(b, gold), _size(b, pred))
        return b.or_(mangled, *(
            b.and_(b.not_(b.and_(same_size, _in_order(b, gold, pred, i, j, b.and_(
                gold_plain[i], pred_plain[j])))) for j in range(pred.width))
            for i in columns))
    return b.or_(mangled, *(
        b.and_(b.not_(_as_multisets(b, gold, pred, i, j, b.and_(gold_plain[i], pred_plain[j])))
               for j in range(pred.width))
        for i in columns
    ))


def _csv_mangled(b: Builder, rel: SymRel, alone: bool) -> FNode:
    """Some present row holds a text the evaluator's CSV round trip does not read back as
    one cell of one row: a carriage return (pandas writes it unquoted and read_csv ends
    the line there), or, where ``alone`` (a one-column result beside a wider one), a
    non-empty text of spaces, tabs and carriage returns only: a blank line, which
    read_csv skips (so ``SELECT name`` and ``SELECT id, name`` differ where a name is
    ' '). The formula claims no match there; a candidate is judged on SQLite."""
    from spotit.ir.types import StorageClass
    from spotit.smt import ops

    blank = ops.re_plus(ops.re_union(ops.re_union(ops.str_to_re(b.str(" ")),
                                                  ops.str_to_re(b.str("\t"))),
                                     ops.str_to_re(b.str("\r"))))
    out = []
    for r in rel.rows:
        if r.present.is_false():
            continue
        for v in r.values:
            t = v.alt(StorageClass.TEXT)
            if t is None:
                continue
            bad = b.contains(t.term, b.str("\r"))
            if alone:
                bad = b.or_(bad, ops.str_in_re(t.term, blank))
            out.append(b.and_(r.present, b.not_(v.null), t.guard, bad))
    return b.or_(out)


def _plain(b: Builder, rows, i: int, below: float | None) -> FNode:
    """Column i holds only numbers and NULLs (of magnitude below ``below``)."""
    return b.and_(b.implies(r.present, numeric_or_null(b, r.values[i], below)) for r in rows
                  if not r.present.is_false())


def _as_multisets(b: Builder, gold: SymRel, pred: SymRel, i: int, j: int,
                  plain: FNode) -> FNode:
    """Gold column i and prediction column j hold the same values as many times each:
    of one storage class, or by value where both columns hold only (``plain``, below
    SPIDER2_PLAIN_NUMBERS) numbers."""
    grows = [(r, r.values[i]) for r in gold.rows if not r.present.is_false()]
    prows = [(r, r.values[j]) for r in pred.rows if not r.present.is_false()]

    def same_counts(eq) -> FNode:
        def count(v, cells) -> FNode:
            return b.sum([b.ite(b.and_(r.present, eq(b, v, c)), b.int(1), b.int(0))
                          for r, c in cells])
        return b.and_(b.implies(w.present, b.eq(count(v, grows), count(v, prows)))
                      for w, v in grows + prows)

    return b.or_(same_counts(same_typed), b.and_(plain, same_counts(same_value)))


def _in_order(b: Builder, gold: SymRel, pred: SymRel, i: int, j: int,
              plain: FNode) -> FNode:
    """At each position the same value of one storage class, or numbers within the
    tolerance where both columns hold only numbers (``plain``); the caller asks for
    as many rows."""
    assert gold.order is not None and pred.order is not None
    cells = []
    for x, ox in zip(gold.rows, gold.order, strict=True):
        for y, oy in zip(pred.rows, pred.order, strict=True):
            u, v = x.values[i], y.values[j]
            close = b.or_(same_typed(b, u, v),
                          b.and_(plain, numbers_within(b, u, v, SPIDER2_CLAIMED)))
            cells.append(b.implies(b.and_(x.present, y.present, b.eq(ox, oy)), close))
    return b.and_(cells)
