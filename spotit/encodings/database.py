"""The symbolic database: at most k rows per table, and its integrity constraints.

Each table has k symbolic rows. Row r of table T has a presence flag
``p!T!r`` (DESIGN.md's ``not Del(t)``), so every database with at most k rows
is a model. A cell is created only when a query or a constraint reads it, so
columns no query mentions cost nothing; when decoding, such a cell gets a
neutral value (NULL, or the first value of its domain if NOT NULL).

Integrity constraints hold over present rows: primary keys and UNIQUE sets
(SQLite's rule: NULLs never collide), NOT NULL, foreign keys (every present
child row whose key is not NULL has a present parent row with an equal key),
assumed functional dependencies (``spotit.constraints``), and each column's
domain. Present rows come first (a symmetry cut that keeps
every database reachable). With ``ordered_keys`` (the bounded search), a table whose
integer key (the rowid or its alias) is read also keeps its present rows in key
order: the k! orders of the same rows are one database, and no encoding depends on
a row's position (SQLite's scan order is modelled by free choices: ties, bare
columns, first rows), so every database stays reachable up to row order.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from fractions import Fraction
from typing import TYPE_CHECKING

from pysmt.fnode import FNode
from pysmt.typing import BOOL, INT, REAL, STRING

from spotit.encodings import calendar, numtext
from spotit.encodings.builder import Builder
from spotit.encodings.values import Alt, Value
from spotit.errors import Unsupported
from spotit.ir.types import BINARY, INT64_MAX, INT64_MIN, Affinity, Domain, StorageClass
from spotit.schema import Column, Schema, Table
from spotit.smt import ops

if TYPE_CHECKING:
    from spotit.encodings.encoder import Encoder


CONVERTED_ON_INSERT = "values SQLite converts on insert (--data sqlite)"
_NUMBER_START = "0123456789+-." + numtext.WHITESPACE  # how a number's text starts


def _kept_on_insert(b: Builder, affinity: Affinity, alts: list[Alt]) -> FNode:
    """The cell's value is one SQLite stores as given in a column of ``affinity``: no
    integer in a REAL column (it becomes a REAL), no text that may read as a number in
    a numeric one (it becomes the number; text starting otherwise never does)."""
    out = []
    for a in alts:
        if a.cls is StorageClass.INTEGER and affinity is Affinity.REAL:
            out.append(b.not_(a.guard))
        elif a.cls is StorageClass.TEXT and a.date is None and affinity in (
                Affinity.NUMERIC, Affinity.INTEGER, Affinity.REAL):
            first = b.char_at(a.term, b.int(0))
            looks = b.and_(b.not_(b.eq(a.term, b.str(""))),
                           b.or_(*(b.eq(first, b.str(c)) for c in _NUMBER_START)))
            out.append(b.implies(a.guard, b.not_(looks)))
    return b.and_(out)


@dataclass
class _Cell:
    value: Value
    symbols: dict[str, FNode]  # role -> symbol: "null", "int", "real", "text", "cls_int" ...


class SymbolicDatabase:
    """k symbolic rows per table, created lazily, with their constraints."""

    def __init__(self, schema: Schema, k: int, b: Builder, *, prefix: str = "",
                 ordered_keys: bool = False, caps: dict[str, int] | None = None):
        self.schema = schema
        self.k = k
        # fewer rows for some tables (by name): a row past its table's cap is absent,
        # so the encoding of everything over it folds away (see ``Checker._shapes``)
        self.caps = {name: min(n, k) for name, n in (caps or {}).items()}
        self.b = b
        self.prefix = prefix
        self.ordered_keys = ordered_keys  # pinned rows come in any order: off by default
        self._cells: dict[tuple[str, int, int], _Cell] = {}
        self._present: dict[tuple[str, int], FNode] = {}
        self.domain_constraints: list[FNode] = []
        # where a cell holds what SQLite would have converted on insert (--data sqlite
        # searches those values too, a superset): false there (see _kept_on_insert)
        self.stored_as_given: list[FNode] = []
        self._table_index = {t.name: i for i, t in enumerate(schema.tables)}

    # ------------------------------------------------------------------ access

    def table(self, name: str) -> Table:
        return self.schema.require_table(name)

    def rows(self, table: str) -> range:
        """The row positions of ``table``: k, or its cap."""
        return range(self.caps.get(table, self.k))

    def present(self, table: str, row: int) -> FNode:
        key = (table, row)
        if row >= self.caps.get(table, self.k):
            return self.b.FALSE
        if key not in self._present:
            ti = self._table_index[table]
            self._present[key] = self.b.sym(f"{self.prefix}p!{ti}!{row}", BOOL)
        return self._present[key]

    def cell(self, table: str, row: int, col: int) -> Value:
        key = (table, row, col)
        c = self._cells.get(key)
        if c is None:
            c = self._make_cell(table, row, col)
            self._cells[key] = c
        return c.value

    def row_cells(self, table: str, row: int) -> TableCells:
        """The stored columns of a row, then its rowid if the table has a hidden one."""
        t = self.table(table)
        return TableCells(self, table, row, len(t.columns) + (1 if hidden_rowid(t) else 0))

    def _make_cell(self, table: str, row: int, col: int) -> _Cell:
        b = self.b
        t = self.table(table)
        column = t.columns[col] if col < len(t.columns) else ROWID_COLUMN
        base = f"{self.prefix}c!{self._table_index[table]}!{row}!{col}"
        symbols: dict[str, FNode] = {}
        if column.not_null:
            null = b.FALSE
        else:
            null = symbols["null"] = b.sym(base + "!n", BOOL)
        domain = column.domain
        alts: list[Alt] = []
        classes = sorted(domain.storage_classes, key=lambda c: c.value)
        guards = self._class_guards(base, classes, symbols)
        for cls, guard in zip(classes, guards, strict=True):
            parts = None
            if domain in (Domain.DATE, Domain.DATETIME):
                term, constraint, parts = calendar.symbolic_date_text(b, base, domain, symbols)
                self.domain_constraints.append(constraint)
            else:
                role = cls.value
                term = symbols[role] = b.sym(f"{base}!{role[0]}", _SORT[cls])
                self.domain_constraints.append(_domain_constraint(b, cls, term))
                if cls is StorageClass.REAL and column.affinity in (Affinity.NUMERIC,
                                                                     Affinity.INTEGER):
                    # NUMERIC and INTEGER affinity store an integral real that fits as an
                    # INTEGER (REAL affinity keeps it a REAL)
                    self.domain_constraints.append(b.not_(b.and_(
                        ops.real_is_int(term), b.le(b.real(INT64_MIN), term),
                        b.le(term, b.real(INT64_MAX)))))
            alts.append(Alt(cls, guard, term, parts))
        if column.domain is Domain.ANY and column.affinity is not Affinity.BLOB:
            kept = _kept_on_insert(b, column.affinity, alts)
            if not kept.is_true():
                self.stored_as_given.append(b.implies(b.not_(null), kept))
        return _Cell(Value(null, tuple(alts)), symbols)

    def _class_guards(self, base: str, classes: list[StorageClass], symbols) -> list[FNode]:
        b = self.b
        if len(classes) == 1:
            return [b.TRUE]
        # k classes: k-1 selector flags, "first true wins", the last is the default.
        flags = []
        for cls in classes[:-1]:
            flags.append(symbols.setdefault(f"is_{cls.value}", b.sym(f"{base}!is_{cls.value}",
                                                                    BOOL)))
        guards = []
        for i in range(len(classes)):
            earlier = [b.not_(f) for f in flags[:i]]
            own = [flags[i]] if i < len(flags) else []
            guards.append(b.and_(*earlier, *own))
        return guards

    # ------------------------------------------------------------------ constraints

    def constraints(self, enc: Encoder) -> list[FNode]:
        """Integrity, domain and symmetry constraints of the current bound (``enc``
        encodes the collations keys are compared under).

        A key none of whose columns is read (no cell of them exists once the queries
        and foreign keys are encoded) is not asserted: nothing depends on those
        values, and decoding gives such columns distinct values row by row.
        """
        b = self.b
        self._enc = enc
        out: list[FNode] = []
        self.close_over_foreign_keys()
        used = self.used_tables()
        for t in used:
            if t.nonempty:
                out.append(self.present(t.name, 0))
            # present rows first
            for r in range(1, len(self.rows(t.name))):
                out.append(b.implies(self.present(t.name, r), self.present(t.name, r - 1)))
            if self.ordered_keys:
                out.extend(self._key_order(t))
            out.extend(self._foreign_key_constraints(t))
            out.extend(self._rule_constraints(t))
            out.extend(self._functional_dependency_constraints(t))
            out.extend(self._case_exact_constraints(t))
        for t in used:
            if hidden_rowid(t) and self._column_read(t, len(t.columns)):
                rid = len(t.columns)
                out.extend(b.not_(b.and_(self.present(t.name, r), self.present(t.name, s),
                                         self._key_equal(t.name, r, t.name, s, rid, rid,
                                                         BINARY)))
                           for r in self.rows(t.name) for s in range(r))
            for key in t.keys:
                idx = [t.column_index(c) for c in key]
                if not any(self._column_read(t, i) for i in idx):
                    continue
                colls = t.key_collations(key)
                for r in self.rows(t.name):
                    for s in range(r):
                        collide = b.and_(
                            self.present(t.name, r), self.present(t.name, s),
                            *(self._key_equal(t.name, r, t.name, s, i, i, c)
                              for i, c in zip(idx, colls, strict=True)),
                        )
                        out.append(b.not_(collide))
        out.extend(self.domain_constraints)
        for kept in self.stored_as_given:
            enc.approximate(CONVERTED_ON_INSERT, kept)
        return out

    def _key_order(self, t: Table) -> list[FNode]:
        """Present rows in increasing integer key (rowid alias, else the hidden rowid),
        when a query reads it: a lex-leader cut of the rows' k! orders."""
        col = self._ordered_key(t)
        if col is None:
            return []
        terms = []
        for r in self.rows(t.name):
            v = self.cell(t.name, r, col)
            plain = len(v.alts) == 1 and v.alts[0].cls is StorageClass.INTEGER
            if not v.null.is_false() or not plain:
                return []  # not a plain integer: no order to cut by
            terms.append(v.alts[0].term)
        b = self.b
        return [b.implies(self.present(t.name, r), b.lt(terms[r - 1], terms[r]))
                for r in range(1, len(self.rows(t.name)))]

    def _ordered_key(self, t: Table) -> int | None:
        """The integer key column rows are kept in order of (``ordered_keys``), if any."""
        if not self.ordered_keys:
            return None
        col = t.column_index(t.rowid_alias) if t.rowid_alias else (
            len(t.columns) if hidden_rowid(t) else None)
        return col if col is not None and self._column_read(t, col) else None

    def _foreign_key_constraints(self, t: Table) -> list[FNode]:
        """Every present child row whose key is not NULL has a parent row with an
        equal key, as SQLite looks the parent up: the child's values converted by the
        parent columns' affinities (text '1' in a TEXT column refers to the NUMERIC
        key 1), then compared under the parent key's collations."""
        from spotit.encodings.collation import same
        from spotit.encodings.conversions import stored_value

        b = self.b
        out = []
        rows = self.rows(t.name)
        for fk in t.foreign_keys:
            parent = self.table(fk.ref_table)
            ci = [t.column_index(c) for c in fk.columns]
            pi = [parent.column_index(c) for c in fk.ref_columns]
            colls = parent.key_collations(fk.ref_columns)  # the parent key's index
            for r in rows:
                child = [self.cell(t.name, r, i) for i in ci]
                has_key = b.and_(self.present(t.name, r), *(b.not_(v.null) for v in child))
                looked_up = [v if t.columns[i].affinity is parent.columns[j].affinity
                             else stored_value(self._enc, v, parent.columns[j].affinity)
                             for v, i, j in zip(child, ci, pi, strict=True)]
                matches = b.or_(
                    b.and_(
                        self.present(parent.name, s),
                        *(b.and_(b.not_(self.cell(parent.name, s, j).null),
                                 same(self._enc, v, self.cell(parent.name, s, j), c))
                          for v, j, c in zip(looked_up, pi, colls, strict=True)),
                    )
                    for s in self.rows(parent.name)
                )
                out.append(b.implies(has_key, matches))
        return out

    def _functional_dependency_constraints(self, t: Table) -> list[FNode]:
        """Assumed functional dependencies X -> Y: two present rows whose X values are
        all non-NULL and equal (under each column's collation, as GROUP BY groups) have
        equal Y values, NULL equal to NULL (as DISTINCT compares)."""
        from spotit.encodings.collation import same

        b = self.b
        out = []
        for lhs, rhs in t.functional_dependencies:
            xs = [t.column_index(c) for c in lhs]
            ys = [t.column_index(c) for c in rhs]
            for r in self.rows(t.name):
                for s in range(r):
                    agree = b.and_(self.present(t.name, r), self.present(t.name, s), *(
                        self._key_equal(t.name, r, t.name, s, i, i, t.columns[i].collation)
                        for i in xs))
                    out.append(b.implies(agree, b.and_(*(
                        same(self._enc, self.cell(t.name, r, j), self.cell(t.name, s, j),
                             t.columns[j].collation) for j in ys))))
        return out

    def _case_exact_constraints(self, t: Table) -> list[FNode]:
        """Assumed for ``t.case_exact`` columns: two present rows whose values are equal
        under NOCASE (ASCII case folded, NULL equal to NULL) are equal under BINARY, so
        no two values differ only in letter case (numbers are untouched by NOCASE)."""
        from spotit.encodings.collation import same

        b = self.b
        out = []
        for name in t.case_exact:
            j = t.column_index(name)
            for r in self.rows(t.name):
                for s in range(r):
                    x, y = self.cell(t.name, r, j), self.cell(t.name, s, j)
                    out.append(b.implies(
                        b.and_(self.present(t.name, r), self.present(t.name, s),
                               same(self._enc, x, y, "NOCASE")),
                        same(self._enc, x, y, BINARY)))
        return out

    def _rule_constraints(self, t: Table) -> list[FNode]:
        """CHECK constraints (not FALSE on a present row) and UNIQUE indexes over
        expressions or partial ones (no two present rows where both WHERE hold with
        equal, non-NULL terms)."""
        from spotit.encodings.collation import same
        from spotit.frontend.tables import table_rules

        if not (t.checks or t.unique_indexes):
            return []
        try:
            rules = table_rules(self.schema, t)
        except Unsupported:
            return []  # no query reads it (the binder refused those): fewer assumptions
        b, enc = self.b, self._enc
        out = []
        rows = [(self.present(t.name, r), (self.row_cells(t.name, r),)) for r in self.rows(t.name)]
        for check in rules.checks:
            out.extend(b.implies(p, b.not_(enc.truth(check, env).f)) for p, env in rows)
        for rule in rules.unique:
            keys = []
            for p, env in rows:
                live = [p] if rule.where is None else [p, enc.truth(rule.where, env).t]
                vals = [enc.value(term, env) for term in rule.terms]
                keys.append((b.and_(*live, *(b.not_(v.null) for v in vals)), vals))
            for r in self.rows(t.name):
                for s in range(r):
                    (lr, vr), (ls, vs) = keys[r], keys[s]
                    out.append(b.not_(b.and_(lr, ls, *(
                        same(enc, x, y, c) for x, y, c in zip(vr, vs, rule.collations,
                                                               strict=True)))))
        return out

    def _column_read(self, t: Table, col: int) -> bool:
        return any((t.name, r, col) in self._cells for r in self.rows(t.name))

    def _key_equal(self, t1: str, r1: int, t2: str, r2: int, c1: int, c2: int,
                   collation_name: str) -> FNode:
        """Both cells non-NULL and equal under the key's collation (NULLs never
        collide in keys)."""
        from spotit.encodings.collation import same

        v1, v2 = self.cell(t1, r1, c1), self.cell(t2, r2, c2)
        b = self.b
        return b.and_(b.not_(v1.null), b.not_(v2.null), same(self._enc, v1, v2, collation_name))

    def _used(self, t: Table) -> bool:
        return any(key[0] == t.name for key in self._present)

    def _touch(self, t: Table) -> None:
        self.present(t.name, 0)

    def used_tables(self) -> list[Table]:
        """Tables some query or constraint reads, in schema order."""
        names = {key[0] for key in self._present}
        return [t for t in self.schema.tables if t.name in names]

    def close_over_foreign_keys(self) -> None:
        """Make every table reachable by foreign keys from a used table used too."""
        changed = True
        while changed:
            changed = False
            for t in self.used_tables():
                for fk in t.foreign_keys:
                    parent = self.table(fk.ref_table)
                    if not self._used(parent):
                        self._touch(parent)
                        changed = True

    # ------------------------------------------------------------------ decoding

    def decode(self, model: dict) -> dict[str, list[tuple]]:
        """Concrete rows (present rows only) of every used table, from a solver model."""
        out: dict[str, list[tuple]] = {}
        for t in self.used_tables():
            rows = []
            width = len(t.columns) + (1 if hidden_rowid(t) and self._column_read(
                t, len(t.columns)) else 0)  # the rowid, when a query reads it
            for r in self.rows(t.name):
                if not _truthy(model.get(self.present(t.name, r).symbol_name()), False):
                    continue
                rows.append(tuple(self._decode_cell(t, r, c, model) for c in range(width)))
            out[t.name] = rows
        return out

    def _decode_cell(self, t: Table, r: int, c: int, model: dict):
        cell = self._cells.get((t.name, r, c))
        column = t.columns[c] if c < len(t.columns) else ROWID_COLUMN
        if cell is None:  # nothing reads it: a value no key constraint can object to
            if not column.not_null:
                return None  # NULLs never collide
            in_key = any(column.name in key for key in t.keys)
            return default_value(column, r if in_key else 0)
        syms = cell.symbols
        if "null" in syms and _truthy(model.get(syms["null"].symbol_name()), True):
            return None
        for alt in cell.value.alts:
            if _eval_guard(alt.guard, model):
                if alt.cls is StorageClass.TEXT and column.domain in (Domain.DATE,
                                                                      Domain.DATETIME):
                    return calendar.decode_date_text(syms, column.domain, model)
                sym = syms.get(alt.cls.value)
                v = model.get(sym.symbol_name()) if sym is not None else None
                return _python_value(alt.cls, v)
        return None

    def pin_cell(self, table: str, row: int, col: int, v) -> list[FNode]:
        """Formulas fixing one cell to the concrete value ``v`` (as SQLite stored it).

        Raises:
            ValueError: the column's domain cannot hold ``v`` (a NULL in a NOT NULL
                column, a storage class or date text outside the domain).
        """
        b = self.b
        value = self.cell(table, row, col)
        t = self.table(table)
        column = t.columns[col] if col < len(t.columns) else ROWID_COLUMN
        if v is None:
            if value.null.is_false():
                raise ValueError(f"column {column.name} cannot hold NULL")
            return [value.null]
        out = [b.not_(value.null)]
        if column.domain in (Domain.DATE, Domain.DATETIME):
            # every part, a DATETIME cell's fraction of a second included
            date_pins = calendar.pin_date_text(b, self._cells[(table, row, col)].symbols, v,
                                               column.domain)
            if date_pins is None:
                raise ValueError(f"column {column.name} cannot hold {v!r}")
            return out + date_pins
        cls = (StorageClass.INTEGER if isinstance(v, int) else
               StorageClass.REAL if isinstance(v, float) else
               StorageClass.TEXT if isinstance(v, str) else None)
        for a in value.alts:
            if a.cls is cls:
                return [*out, a.guard, b.eq(a.term, b.int(v) if cls is StorageClass.INTEGER
                                            else b.real(Fraction(v))
                                            if cls is StorageClass.REAL else b.str(v))]
        raise ValueError(f"column {column.name} cannot hold {v!r}")

    def pins(self, rows: dict[str, list[tuple]]) -> list[FNode]:
        """Formulas fixing the database to ``rows`` (table -> stored rows, in row
        order; tables left out are empty). Only cells the encoding reads are pinned:
        the others do not occur in the formula.

        Raises:
            ValueError: a table has more than k rows, or a value is outside its domain.
        """
        b = self.b
        out: list[FNode] = []
        known = {t.name.lower(): t.name for t in self.schema.tables}
        by_table = {known.get(name.lower(), name): r for name, r in rows.items()}
        for t in self.used_tables():
            trows = by_table.get(t.name, [])
            key = self._ordered_key(t)
            if key is not None and all(len(row) > key and isinstance(row[key], int)
                                       for row in trows):
                by_table[t.name] = trows = sorted(trows, key=lambda row: row[key])
            if len(trows) > len(self.rows(t.name)):
                raise ValueError(f"table {t.name} has {len(trows)} rows, more than "
                                 f"{len(self.rows(t.name))}")
            for r in self.rows(t.name):
                present = self.present(t.name, r)
                out.append(present if r < len(trows) else b.not_(present))
        for (table, r, c) in list(self._cells):
            trows = by_table.get(table, [])
            if r < len(trows) and c < len(trows[r]):
                out += self.pin_cell(table, r, c, trows[r][c])
        return out

    def between_doubles(self, model: dict) -> list[FNode]:
        """``cell <= lo or cell >= hi`` for each REAL cell the model puts strictly
        between two neighbouring doubles lo < hi: true of every database (a REAL holds a
        double), so adding it keeps answers sound, and the next model has a value the
        decoded database holds exactly (else SQLite sees the nearest double, and a
        difference at 1.7e308 + 1 is never confirmed)."""
        b = self.b
        out = []
        for cell in self._cells.values():
            sym = cell.symbols.get(StorageClass.REAL.value)
            v = model.get(sym.symbol_name()) if sym is not None else None
            if v is None or isinstance(v, bool) or not isinstance(v, int | Fraction):
                continue
            q = Fraction(v)
            if abs(q) > _DBL_MAX:
                continue
            d = float(q)
            if Fraction(d) == q:
                continue
            lo, hi = (d, math.nextafter(d, math.inf)) if Fraction(d) < q else (
                math.nextafter(d, -math.inf), d)
            out.append(b.or_(b.le(sym, b.real(Fraction(lo))), b.le(b.real(Fraction(hi)), sym)))
        return out

    def cell_keys(self) -> list[tuple[str, int, int]]:
        """(table, row, column) of every cell the encoding has read so far."""
        return list(self._cells)

    def cell_symbols(self) -> Iterator[tuple[tuple[str, int, int], dict[str, FNode]]]:
        for key, cell in self._cells.items():
            yield key, cell.symbols


class TableCells(Sequence):
    """The cells of one row of a base table, created when read."""

    __slots__ = ("_db", "_n", "_row", "_table")

    def __init__(self, db: SymbolicDatabase, table: str, row: int, n: int):
        self._db, self._table, self._row, self._n = db, table, row, n

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return tuple(self[j] for j in range(*i.indices(self._n)))
        if not -self._n <= i < self._n:
            raise IndexError(i)
        return self._db.cell(self._table, self._row, i % self._n)


_SORT = {StorageClass.INTEGER: INT, StorageClass.REAL: REAL, StorageClass.TEXT: STRING}

# the hidden rowid of a table without an INTEGER PRIMARY KEY: the cell after its columns
ROWID_COLUMN = Column("rowid", "INTEGER", not_null=True)


def hidden_rowid(t: Table) -> bool:
    return t.hidden_rowid is not None


def _domain_constraint(b: Builder, cls: StorageClass, term: FNode) -> FNode:
    if cls is StorageClass.INTEGER:
        return b.and_(b.le(b.int(INT64_MIN), term), b.le(term, b.int(INT64_MAX)))
    if cls is StorageClass.TEXT:
        # SQLite text never holds NUL in practice (C strings); keep models loadable.
        return b.not_(b.contains(term, b.str("\x00")))
    if cls is StorageClass.REAL:  # a double: finite, at most DBL_MAX in magnitude
        return b.and_(b.le(b.real(-_DBL_MAX), term), b.le(term, b.real(_DBL_MAX)))
    return b.TRUE


_DBL_MAX = Fraction(sys.float_info.max)  # exact, as a rational


def default_value(column: Column, n: int = 0):
    """The value a NOT NULL cell no query reads gets in a decoded database (the
    ``n``-th of distinct ones, for keys)."""
    d = column.domain
    if d in (Domain.INTEGER, Domain.NUMERIC, Domain.ANY):
        return n
    if d is Domain.REAL:
        return float(n)
    if d in (Domain.DATE, Domain.DATETIME):
        day = date(2000, 1, 1) + timedelta(days=n)
        return day.isoformat() + (" 00:00:00" if d is Domain.DATETIME else "")
    return str(n) if n else ""


def _truthy(v, default: bool) -> bool:
    if v is None:
        return default
    return bool(v)


def _eval_guard(g: FNode, model: dict) -> bool:
    """Evaluate a class guard (a conjunction of selector flags or their negations)."""
    if g.is_true():
        return True
    if g.is_false():
        return False
    if g.is_symbol():
        return _truthy(model.get(g.symbol_name()), False)
    if g.is_not():
        return not _eval_guard(g.arg(0), model)
    if g.is_and():
        return all(_eval_guard(a, model) for a in g.args())
    raise ValueError(f"unexpected guard {g}")


def _python_value(cls: StorageClass, v):
    if cls is StorageClass.INTEGER:
        return int(v) if v is not None else 0
    if cls is StorageClass.REAL:
        if v is None:
            return 0.0
        q = Fraction(v)
        # beyond the doubles (a model of a formula without the cells' range, e.g. an
        # expression's value): the nearest double, and SQLite judges the database
        return float(max(-_DBL_MAX, min(_DBL_MAX, q)))
    return str(v) if v is not None else ""
