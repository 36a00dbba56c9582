"""Shapes of a bound: which tables get k rows when the whole bound is too big.

At bound k a join of T tables is k**T candidate rows, and an encoding that big can
outlast the time limit before the solver starts. A difference usually needs more than
one row in few tables: the second row of a GROUP BY, of a LIMIT, of the table the
queries disagree on. A shape gives k rows to a few tables and one row to the rest, so
its formula is small. Shapes only ever look for a counterexample (SQLite confirms it
as always); that a shape has none says nothing about the bound.

The order follows the joins: one table, two tables a condition joins, three tables
joined in a path, then any two. Which tables a condition joins is read from the plans:
each column of an operator's output is traced back to the base table it is a column
of, through filters, joins and plain projections.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Iterator

from spotit.canonical.regions import row_refs
from spotit.canonical.trees import conjuncts
from spotit.ir import relational as R
from spotit.ir import scalar as S
from spotit.ir.walk import iter_rels

MAX_SHAPES = 200
MAX_SCANNED_ROWS = 4096  # a shape whose scans hold more row combinations is left out


def raised_tables(plans: Iterable[R.Rel], tables: list[str], k: int
                  ) -> Iterator[tuple[str, ...]]:
    """Groups of ``tables`` (schema spellings) to give k rows, most promising first;
    within each kind the smallest first (a table scanned n times gives k**n rows)."""
    plans = tuple(plans)
    links = joined_pairs(plans)
    scans = [Counter(r.table.lower() for r in iter_rels(p) if isinstance(r, R.Scan))
             for p in plans]
    lower = {t: t.lower() for t in tables}

    def linked(a: str, b: str) -> bool:
        return frozenset((lower[a], lower[b])) in links

    def rows(group: tuple[str, ...]) -> int:
        # the plans are encoded side by side: the larger one's combinations, not both's
        return max((k ** sum(n[lower[t]] for t in group) for n in scans), default=1)

    pairs = list(itertools.combinations(tables, 2))
    kinds = [[(t,) for t in tables], [p for p in pairs if linked(*p)],
             [tri for tri in itertools.combinations(tables, 3)
              if sum(linked(a, b) for a, b in itertools.combinations(tri, 2)) >= 2],
             [p for p in pairs if not linked(*p)]]
    ordered = [g for kind in kinds for g in sorted(kind, key=rows)
               if rows(g) <= MAX_SCANNED_ROWS]
    return iter(ordered[:MAX_SHAPES])


def joined_pairs(plans: Iterable[R.Rel]) -> set[frozenset[str]]:
    """Pairs of base tables (lower-case) that one conjunct of a join condition or a
    filter reads columns of: ``a.id = b.aid`` joins a and b."""
    out: set[frozenset[str]] = set()
    for rel in iter_rels(tuple(plans)):
        if isinstance(rel, R.Join) and rel.condition is not None:
            origins, cond = _origins(rel.left) + _origins(rel.right), rel.condition
        elif isinstance(rel, R.Filter):
            origins, cond = _origins(rel.input), rel.predicate
        else:
            continue
        for conjunct in conjuncts(cond):
            read = {origins[i] for i in row_refs(conjunct)
                    if i < len(origins) and origins[i] is not None}
            out.update(frozenset(p) for p in itertools.combinations(sorted(read), 2))
    return out


def _origins(rel: R.Rel) -> tuple[str | None, ...]:
    """For each output column of ``rel``, the base table it is a column of (None where
    it is computed)."""
    if isinstance(rel, R.Scan):
        return (rel.table.lower(),) * len(rel.out)
    if isinstance(rel, R.Join):
        return _origins(rel.left) + _origins(rel.right)
    if isinstance(rel, R.Project):
        src = _origins(rel.input)
        return tuple(src[e.index] if isinstance(e, S.ColumnRef) and e.depth == 0
                     and e.index < len(src) else None for e in rel.exprs)
    inner = getattr(rel, "input", None)
    if isinstance(inner, R.Rel) and len(inner.columns) == len(rel.columns):
        return _origins(inner)  # filters, sorts, limits, DISTINCT keep their columns
    return (None,) * len(rel.columns)
