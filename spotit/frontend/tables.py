"""A base table as queries see it: its columns, and the rules its rows obey.

Most tables are just their stored columns. Some have more, and all of it is
bound here, once per table, with the same binder as queries:

- generated columns (VIRTUAL or STORED): their expression over the row, stored
  with the column's affinity, at their place in ``SELECT *``;
- the rowid of a table without an INTEGER PRIMARY KEY: a hidden INTEGER
  column after the stored ones (``rowid``, ``oid``, ``_rowid_`` name it; ``*``
  does not list it); with an INTEGER PRIMARY KEY those names mean that column;
- CHECK constraints: expressions that must not be FALSE on any row;
- UNIQUE indexes over expressions or with a WHERE clause.

``read_table`` gives the relation a FROM clause scans; ``TableRules`` what the
symbolic database asserts on every present row.
"""

from __future__ import annotations

from dataclasses import dataclass

from spotit.errors import SpotItError, Unsupported
from spotit.ir import relational as R
from spotit.ir import scalar as S
from spotit.ir.types import BINARY, Affinity, Collation
from spotit.ir.walk import rewrite
from spotit.schema import Schema, Table

ROWID_NAMES = ("rowid", "oid", "_rowid_")


@dataclass(frozen=True)
class UniqueRule:
    terms: tuple[S.Expr, ...]  # over the stored row
    collations: tuple[str, ...]
    where: S.Expr | None = None


@dataclass(frozen=True)
class TableRules:
    """A table bound once: what a scan of it yields, and what its rows obey."""

    relation: R.Rel  # the scan: declared columns in order, then the hidden rowid if any
    checks: tuple[S.Expr, ...] = ()  # over the stored row (then the rowid)
    unique: tuple[UniqueRule, ...] = ()
    rowid: int | None = None  # index in ``relation`` the rowid names resolve to


def table_rules(schema: Schema, table: Table) -> TableRules:
    """The bound rules of ``table`` (cached on the schema); ``Unsupported`` naming
    whatever about the table SpotIt cannot model."""
    key = ("table_rules", table.name)
    hit = schema.cache.get(key)
    if hit is None:
        try:
            hit = _bind_rules(schema, table)
        except Unsupported as e:
            hit = Unsupported(f"{e.message} (in the schema of table {table.name})")
        except SpotItError as e:
            hit = Unsupported(f"table {table.name}'s schema: {e.message}")
        schema.cache[key] = hit
    if isinstance(hit, Unsupported):
        raise hit
    return hit


def _plain_references(schema: Schema, table: Table) -> frozenset[tuple[int, str, int]]:
    """Single-column foreign keys into a unique parent key that SQLite looks up as a
    plain ``child = parent`` would compare (same affinity, BINARY collations)."""
    out = set()
    for fk in table.foreign_keys:
        parent = schema.table(fk.ref_table)
        if parent is None or len(fk.columns) != 1 or len(fk.ref_columns) != 1:
            continue
        ci, pi = table.column_index(fk.columns[0]), parent.column_index(fk.ref_columns[0])
        if ci is None or pi is None or parent.problem:
            continue
        child, key = table.columns[ci], parent.columns[pi]
        unique = any(tuple(c.lower() for c in k) == (key.name.lower(),) for k in parent.keys)
        if (unique and child.affinity is key.affinity and child.collation == BINARY
                and key.collation == BINARY
                and parent.key_collations((key.name,)) == (BINARY,)):
            out.add((ci, parent.name, pi))
    return frozenset(out)


def _unique_keys(table: Table) -> tuple[tuple[tuple[int, str], ...], ...]:
    """The table's keys as (column, collation) pairs; the hidden rowid is one too."""
    keys = []
    for key in table.keys:
        cols = [table.column_index(c) for c in key]
        if None not in cols:
            keys.append(tuple(zip(cols, table.key_collations(key), strict=True)))
    if table.hidden_rowid is not None:
        keys.append(((len(table.columns), BINARY),))
    return tuple(keys)


def _bind_rules(schema: Schema, table: Table) -> TableRules:
    from spotit.frontend.binder import bind_row_expression

    if table.problem:
        raise Unsupported(table.problem)
    stored = [R.OutColumn(c.name, c.affinity, Collation(c.collation, origin=f"{table.name}."
                                                        f"{c.name}"))
              for c in table.columns]
    hidden_rowid = table.hidden_rowid is not None
    if table.hidden_rowid is not None:
        stored.append(R.OutColumn(table.hidden_rowid, Affinity.INTEGER))
    never_null = {i for i, c in enumerate(table.columns) if c.not_null}
    if hidden_rowid:
        never_null.add(len(table.columns))
    scan = R.Scan(table.name, tuple(stored), frozenset(never_null),
                  _plain_references(schema, table), _unique_keys(table))
    # every column in declaration order: ("stored", index) or ("generated", column)
    order: list[tuple[str, object]] = []
    gens = {g.position: g for g in table.generated}
    si = 0
    for pos in range(len(table.columns) + len(table.generated)):
        if pos in gens:
            order.append(("generated", gens[pos]))
        else:
            order.append(("stored", si))
            si += 1
    columns = [stored[x] if k == "stored" else  # type: ignore[index]
               R.OutColumn(x.name, x.affinity,  # type: ignore[union-attr]
                           Collation(x.collation, origin=f"{table.name}.{x.name}"))  # type: ignore[union-attr]
               for k, x in order]
    names = [c.name for c in columns]
    declared: list[S.Expr | None] = [None] * len(order)
    for pos, (kind, x) in enumerate(order):
        if kind == "stored":
            col = stored[x]  # type: ignore[index]
            declared[pos] = S.ColumnRef(0, x, col.affinity, col.name, col.collation)

    def over_stored(e: S.Expr) -> S.Expr:
        """A bound expression over the declared row, rewritten over the stored row."""
        def fn(x: S.Expr, level: int) -> S.Expr | None:
            if isinstance(x, S.ColumnRef) and x.depth == level == 0:
                target = declared[x.index]
                if target is None:
                    raise Unsupported(f"generated column {names[x.index]} read before it is "
                                      "known (a cycle)")
                return target
            return None
        return rewrite(e, fn)

    def bind(text: str) -> S.Expr:
        return over_stored(bind_row_expression(schema, table.name, columns, text))

    pending = [pos for pos, (kind, _) in enumerate(order) if kind == "generated"]
    while pending:  # generated columns may read each other (never in a cycle)
        progress = False
        for pos in list(pending):
            g = order[pos][1]
            try:
                value = bind(g.expression)  # type: ignore[union-attr]
            except Unsupported as e:
                if "read before it is known" in e.message:
                    continue
                raise
            declared[pos] = S.StoredAs(value, g.affinity)  # type: ignore[union-attr]
            pending.remove(pos)
            progress = True
        if not progress:
            raise Unsupported(f"generated columns of {table.name} that read each other")
    checks = tuple(bind(c) for c in table.checks)
    unique = tuple(UniqueRule(tuple(bind(t) for t in u.terms), u.collations,
                              bind(u.where) if u.where else None)
                   for u in table.unique_indexes)
    relation: R.Rel = scan
    rowid = None
    if table.rowid_alias is not None:
        rowid = next(i for i, n in enumerate(names) if n.lower() == table.rowid_alias.lower())
    if hidden_rowid:
        rowid = len(order)
    if table.generated or hidden_rowid:
        exprs = [e for e in declared if e is not None]
        out = list(columns)
        if hidden_rowid:
            exprs.append(S.ColumnRef(0, len(stored) - 1, Affinity.INTEGER, stored[-1].name))
            out.append(stored[-1])
        if table.generated:
            relation = R.Project(scan, tuple(exprs), tuple(out))
    return TableRules(relation, checks, unique, rowid)
