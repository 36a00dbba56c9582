"""Database schemas: tables, typed columns, keys, and where they come from.

Every source is turned into CREATE TABLE text and loaded into an in-memory
SQLite database; the schema is then read back with SQLite's own PRAGMAs. So
SQLite, not a hand-written DDL parser, decides what a DDL means (implicit
NOT NULL of an INTEGER PRIMARY KEY, composite keys, quoted names), and the
same DDL later builds the database each counterexample is validated on.

Sources: SQL DDL text or file, an existing SQLite database file, and a
BIRD/Spider ``tables.json`` plus a ``db_id``.

What no PRAGMA reports -- CHECK and generated-column expressions, view
queries, partial and expression indexes -- is read from the CREATE statements
(``spotit.ddl``) and bound like queries (``spotit.frontend.tables``). Anything
SpotIt cannot model is recorded on the table (``Table.problem``) and makes a
query that reads the table ``unsupported``, naming it: nothing is dropped
silently. See docs/semantics.md, "Schemas".
"""

from __future__ import annotations

import dataclasses
import json
import re
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from spotit import ddl as ddl_text
from spotit.errors import SchemaError
from spotit.ir.types import (
    BINARY,
    Affinity,
    Domain,
    affinity_of_declared_type,
    domain_of_declared_type,
)


@dataclass(frozen=True)
class Column:
    name: str
    declared_type: str
    not_null: bool = False
    collation: str = BINARY  # the declared collating sequence, upper case
    strict: bool = False  # of a STRICT table: the type is enforced, ANY has no affinity
    # any value SQLite would store (--data sqlite), not only values of the declared type
    any_storage: bool = False

    @property
    def affinity(self) -> Affinity:
        if self.strict and self.declared_type.upper() == "ANY":
            return Affinity.BLOB
        return affinity_of_declared_type(self.declared_type)

    @property
    def domain(self) -> Domain:
        if self.strict and self.declared_type.upper() == "ANY":
            return Domain.ANY
        if self.any_storage and not self.strict:
            # SQLite stores any value in any column; only TEXT affinity turns every
            # number into text. (Numbers in REAL columns, and numeric-looking text in
            # numeric ones, are converted on insert: searching them too is a superset.)
            return Domain.TEXT if self.affinity is Affinity.TEXT else Domain.ANY
        return domain_of_declared_type(self.declared_type)


@dataclass(frozen=True)
class GeneratedColumn:
    """A VIRTUAL or STORED generated column: no storage of its own in SpotIt's model,
    its value is ``expression`` over the row, stored with the column's affinity."""

    name: str
    declared_type: str
    expression: str  # SQL text, bound by spotit.frontend.tables
    position: int  # index among all the table's columns, as SELECT * lists them
    collation: str = BINARY
    stored: bool = False

    @property
    def affinity(self) -> Affinity:
        return affinity_of_declared_type(self.declared_type)


@dataclass(frozen=True)
class UniqueIndex:
    """A UNIQUE index PRAGMAs cannot express as a column key: over expressions, or
    partial (``WHERE``). Terms and condition are SQL text over the table's row."""

    name: str
    terms: tuple[str, ...]
    collations: tuple[str, ...]
    where: str | None = None


@dataclass(frozen=True)
class ForeignKey:
    """``columns`` of the child table reference ``ref_columns`` of ``ref_table``."""

    columns: tuple[str, ...]
    ref_table: str
    ref_columns: tuple[str, ...]


@dataclass(frozen=True)
class Table:
    name: str
    columns: tuple[Column, ...]
    primary_key: tuple[str, ...] = ()
    unique: tuple[tuple[str, ...], ...] = ()
    foreign_keys: tuple[ForeignKey, ...] = ()
    # the collations of keys whose index declares its own (PRIMARY KEY (a COLLATE NOCASE))
    index_collations: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = ()
    checks: tuple[str, ...] = ()  # CHECK expressions (SQL text over the row)
    generated: tuple[GeneratedColumn, ...] = ()
    unique_indexes: tuple[UniqueIndex, ...] = ()  # partial or over expressions
    without_rowid: bool = False
    strict: bool = False
    rowid_alias: str | None = None  # the INTEGER PRIMARY KEY column, which is the rowid
    problem: str | None = None  # why queries reading this table are unsupported
    # assumed, not declared (no DDL says it; see spotit.constraints.augment): rows whose
    # determinant columns are non-NULL and equal have equal dependent columns
    functional_dependencies: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = ()
    nonempty: bool = False  # assumed to hold at least one row (an explanation's search)
    # assumed (an explanation's search): two rows' non-NULL values of each of these
    # columns that are equal under NOCASE are equal (no values differing only in case)
    case_exact: tuple[str, ...] = ()
    # declared foreign keys SpotIt does not assume, each with why: SQLite does not
    # enforce them (``--data sqlite``), or the real database's data break them
    dropped_foreign_keys: tuple[tuple[ForeignKey, str], ...] = ()

    @property
    def has_rowid(self) -> bool:
        """A table with a rowid that no column aliases: the rowid is a hidden column."""
        return not self.without_rowid and self.rowid_alias is None

    @property
    def hidden_rowid(self) -> str | None:
        """The name under which a hidden rowid is read and written: the first of
        rowid, oid, _rowid_ that no column takes (None: no hidden rowid)."""
        if not self.has_rowid:
            return None
        taken = {c.name.lower() for c in self.columns} | {g.name.lower()
                                                           for g in self.generated}
        return next((n for n in ("rowid", "oid", "_rowid_") if n not in taken), None)

    def row_columns(self, width: int) -> list[str]:
        """The names of a stored row's values: the columns, then the rowid when the
        row carries it (a query read it)."""
        names = [c.name for c in self.columns]
        if width > len(names) and self.hidden_rowid is not None:
            names.append(self.hidden_rowid)
        return names

    def column_index(self, name: str) -> int | None:
        low = name.lower()
        for i, c in enumerate(self.columns):
            if c.name.lower() == low:
                return i
        return None

    def column(self, name: str) -> Column:
        i = self.column_index(name)
        if i is None:
            raise SchemaError(f"table {self.name} has no column {name}")
        return self.columns[i]

    def key_collations(self, key: tuple[str, ...]) -> tuple[str, ...]:
        """The collations the values of ``key`` are compared under for uniqueness
        (and foreign keys referencing it): its index's, else each column's own."""
        low = tuple(c.lower() for c in key)
        for cols, colls in self.index_collations:
            if tuple(c.lower() for c in cols) == low:
                return colls
        return tuple(self.column(c).collation for c in key)

    @property
    def keys(self) -> tuple[tuple[str, ...], ...]:
        """Every set of columns whose values must be distinct across rows."""
        ks = ((self.primary_key,) if self.primary_key else ()) + self.unique
        return tuple(dict.fromkeys(ks))


@dataclass(frozen=True)
class View:
    name: str
    columns: tuple[str, ...]
    query: str  # the SELECT, as written
    problem: str | None = None


@dataclass(frozen=True)
class Schema:
    tables: tuple[Table, ...]
    ddl: str = field(default="", compare=False)
    source: str = field(default="", compare=False)
    views: tuple[View, ...] = ()
    # collations the schema names that SQLite does not know (an application's own):
    # registered as placeholders that refuse to compare, so the DDL loads
    foreign_collations: tuple[str, ...] = ()
    # what loading the schema left out or changed, for the user (shown with every
    # check): e.g. SQLite's internal tables listed by a tables.json
    notes: tuple[str, ...] = field(default=(), compare=False)
    # SQLite's internal tables (``sqlite_sequence``, ...) the source listed and SpotIt
    # left out: a query reading one is ``unsupported``
    internal_tables: tuple[str, ...] = ()
    # the database enforces its foreign keys (PRAGMA foreign_keys = ON in the schema's
    # DDL, or --enforced-fks): even --data sqlite assumes them
    enforced_foreign_keys: bool = False
    level: str = "declared"  # the data level ``with_data`` made this schema for
    cache: dict = field(default_factory=dict, compare=False, hash=False, repr=False)

    def with_data(self, level: str) -> Schema:
        """The schema whose columns hold what data ``level`` assumes.

        ``declared`` (SpotIt's default): each column holds values of its declared type
        (a valid date in a DATE column, an integer in an INTEGER column). ``sqlite``:
        any value SQLite stores in a column of that affinity (text in a DATE or
        INTEGER column, 50.5 in an INTEGER column) -- the weakest assumption, so the
        strongest "equivalent". STRICT tables and rowid aliases keep their types:
        SQLite enforces them.
        """
        if level == "declared" or level == self.level:
            return self
        if level != "sqlite":
            raise SchemaError(f"unknown data level {level!r} (declared or sqlite)")
        tables = tuple(replace(t, columns=tuple(
            c if t.strict or c.name == t.rowid_alias else replace(c, any_storage=True)
            for c in t.columns)) for t in self.tables)
        out = replace(self, tables=tables, level=level, cache={})
        if self.enforced_foreign_keys:
            return out
        return out.dropping_foreign_keys(
            lambda t, fk: True, "SQLite does not enforce foreign keys (PRAGMA foreign_keys "
            "is off): --data sqlite does not assume them")

    def dropping_foreign_keys(self, which: Callable[[Table, ForeignKey], bool],
                              why: str) -> Schema:
        """The schema without the foreign keys ``which`` selects (kept, with ``why``, in
        ``Table.dropped_foreign_keys``: an explanation may search with one restored)."""
        tables = []
        changed = False
        for t in self.tables:
            gone = tuple(fk for fk in t.foreign_keys if which(t, fk))
            if gone:
                changed = True
                t = replace(t, foreign_keys=tuple(fk for fk in t.foreign_keys
                                                  if fk not in gone),
                            dropped_foreign_keys=t.dropped_foreign_keys
                            + tuple((fk, why) for fk in gone))
            tables.append(t)
        return replace(self, tables=tuple(tables), cache={}) if changed else self

    def restoring_foreign_key(self, table: str, fk: ForeignKey) -> Schema:
        """The schema with a dropped foreign key assumed again."""
        tables = tuple(replace(t, foreign_keys=(*t.foreign_keys, fk),
                               dropped_foreign_keys=tuple(d for d in t.dropped_foreign_keys
                                                          if d[0] != fk))
                       if t.name == table else t for t in self.tables)
        return replace(self, tables=tables, cache={})

    def assume_only(self, breaches: Iterable[Any]) -> Schema:
        """The schema without what a real database's data break
        (``spotit.constraints.declared``): its broken foreign keys dropped, and the
        columns holding values outside their declared type taking any value (as
        ``--data sqlite`` has them). Keys and NOT NULL are enforced by the DDL SQLite
        builds every counterexample with: a caller drops them from the schema text."""
        breaches = list(breaches)
        fks = {(b.table.lower(), tuple(c.lower() for c in b.columns),
                (b.parent or "").lower()): b for b in breaches if b.kind == "foreign_key"}
        out = self
        if fks:
            def broken(t: Table, fk: ForeignKey) -> bool:
                return (t.name.lower(), tuple(c.lower() for c in fk.columns),
                        fk.ref_table.lower()) in fks

            for b in fks.values():
                out = out.dropping_foreign_keys(
                    lambda t, fk, b=b: broken(t, fk) and t.name.lower() == b.table.lower()
                    and tuple(c.lower() for c in fk.columns) == tuple(
                        c.lower() for c in b.columns),
                    f"the database's data break it ({b.rows} rows point nowhere)")
        loose = {(b.table.lower(), b.columns[0].lower()) for b in breaches
                 if b.kind == "declared_type"}
        if loose:
            tables = tuple(replace(t, columns=tuple(
                replace(c, any_storage=True) if (t.name.lower(), c.name.lower()) in loose
                and not t.strict and c.name != t.rowid_alias else c for c in t.columns))
                for t in out.tables)
            out = replace(out, tables=tables, cache={})
        return out

    def view(self, name: str) -> View | None:
        low = name.lower()
        return next((v for v in self.views if v.name.lower() == low), None)

    def table(self, name: str) -> Table | None:
        low = name.lower()
        for t in self.tables:
            if t.name.lower() == low:
                return t
        return None

    def require_table(self, name: str) -> Table:
        t = self.table(name)
        if t is None:
            raise SchemaError(f"no table named {name} in the schema")
        return t

    def create_database(self, path: str = ":memory:") -> sqlite3.Connection:
        """A new SQLite database with this schema and no rows."""
        conn = sqlite3.connect(path)
        register_placeholder_collations(conn, self.foreign_collations)
        conn.executescript(self.ddl)
        return conn


def register_placeholder_collations(conn: sqlite3.Connection, names: Iterable[str]) -> None:
    """Collations SpotIt does not know: the DDL loads, but comparing with one fails."""
    def refuse(a: str, b: str) -> int:
        raise sqlite3.OperationalError("collation not modelled by SpotIt")

    for name in names:
        conn.create_collation(name, refuse)


# --------------------------------------------------------------------------- loading


def load_schema(source: str | Path, db_id: str | None = None) -> Schema:
    """Load a schema from a DDL file (.sql), a SQLite file, or tables.json (+ ``db_id``).

    The kind is decided by the file's content, not only its name: a file that
    starts with SQLite's magic header is a database; JSON is tables.json.
    """
    path = Path(source)
    try:
        found = path.exists()
    except (OSError, ValueError) as e:  # a name the OS refuses (too long, a NUL byte)
        shown = str(path) if len(str(path)) <= 80 else str(path)[:77] + "..."
        raise SchemaError(f"neither a schema file nor DDL: {shown} "
                          f"({getattr(e, 'strerror', None) or e})") from None
    if not found:
        raise SchemaError(f"schema file not found: {path}")
    try:
        head = path.open("rb").read(16)
    except OSError as e:
        raise SchemaError(f"cannot read schema file {path}: {e.strerror}") from None
    if head.startswith(b"SQLite format 3"):
        return schema_from_sqlite_file(path)
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix.lower() == ".json" or text.lstrip().startswith(("[", "{")):
        if db_id is None:
            raise SchemaError(f"{path} is a tables.json file: give the database with --db-id")
        return schema_from_tables_json(path, db_id)
    return schema_from_ddl(text, source=str(path))


_NO_COLLATION = re.compile(r"no such collation sequence: (\S+)")


def schema_from_ddl(ddl: str, source: str = "<ddl>") -> Schema:
    """Load CREATE TABLE statements (other statements such as indexes are kept too)."""
    foreign: list[str] = []
    if "\x00" in ddl:  # sqlite3 refuses it with a ValueError: a binary file, not DDL
        raise SchemaError("the schema holds a NUL character: a binary file, not DDL text",
                          source=source)
    while True:
        conn = sqlite3.connect(":memory:")
        register_placeholder_collations(conn, foreign)
        try:
            conn.executescript(ddl)
            break
        except sqlite3.Error as e:
            conn.close()
            unknown = _NO_COLLATION.search(str(e))
            if unknown is None or unknown.group(1) in foreign or len(foreign) > 20:
                raise SchemaError(f"the schema DDL does not load into SQLite: {e}",
                                  source=source) from None
            foreign.append(unknown.group(1))
    try:
        schema = _introspect(conn, source=source, foreign_collations=tuple(foreign))
        if conn.execute("PRAGMA foreign_keys").fetchone()[0]:
            # the schema text turns enforcement on: the database enforces its keys
            schema = replace(schema, enforced_foreign_keys=True)
        return schema
    finally:
        conn.close()


def schema_from_sqlite_file(path: str | Path) -> Schema:
    """Read the schema (not the rows) of an existing SQLite database file."""
    try:
        conn = sqlite3.connect(f"file:{Path(path)}?mode=ro", uri=True)
        rows = conn.execute(
            "SELECT sql FROM sqlite_master WHERE type IN ('table', 'view', 'index') "
            "AND sql IS NOT NULL AND name NOT LIKE 'sqlite_%' "
            "ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'view' THEN 1 ELSE 2 END, rowid"
        ).fetchall()
        conn.close()
    except sqlite3.Error as e:
        raise SchemaError(f"{path} is not a readable SQLite database: {e}") from None
    ddl = ";\n".join(r[0] for r in rows) + (";\n" if rows else "")
    return schema_from_ddl(ddl, source=str(path))


def schema_from_tables_json(path: str | Path, db_id: str) -> Schema:
    """Build the schema of ``db_id`` from a Spider/BIRD ``tables.json``."""
    try:
        entries = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise SchemaError(f"cannot read {path} as tables.json: {e}") from None
    if isinstance(entries, dict):
        entries = [entries]
    for entry in entries:
        if isinstance(entry, dict) and entry.get("db_id") == db_id:
            return schema_from_tables_entry(entry, source=f"{path}#{db_id}")
    known = ", ".join(sorted(str(e.get("db_id")) for e in entries if isinstance(e, dict)))
    raise SchemaError(f"db_id {db_id!r} is not in {path} (it has: {known})")


def schema_from_tables_entry(entry: dict, source: str = "<tables.json>") -> Schema:
    """One Spider-style entry (table_names_original, column_names_original, ...) to a schema."""
    try:
        tables = list(entry["table_names_original"])
        columns = [(int(t), str(c)) for t, c in entry["column_names_original"]]
        types = list(entry["column_types"])
        pks = entry.get("primary_keys", [])
        fks = entry.get("foreign_keys", [])
    except (KeyError, TypeError, ValueError) as e:
        raise SchemaError(f"malformed tables.json entry: missing or bad {e}",
                          source=source) from None
    if len(types) != len(columns):
        raise SchemaError("column_types and column_names_original differ in length", source=source)
    by_table: dict[int, list[int]] = {i: [] for i in range(len(tables))}
    for ci, (ti, _) in enumerate(columns):
        if ti >= 0:
            by_table.setdefault(ti, []).append(ci)
    pk_of: dict[int, list[int]] = {}
    for pk in pks:
        cols = pk if isinstance(pk, list) else [pk]
        pk_of[columns[cols[0]][0]] = [int(c) for c in cols]
    fk_groups = _group_foreign_keys(fks, columns, pk_of)
    # SQLite keeps its own tables beside the user's (``sqlite_sequence`` holds the
    # AUTOINCREMENT counters); Spider's tables.json lists them, but no CREATE TABLE may
    # name one ("object name reserved for internal use"). Their content is SQLite's
    # bookkeeping, not data a query pair is about: they are left out, said so in the
    # schema's notes, and a query reading one is unsupported (binder).
    internal = [ti for ti, t in enumerate(tables) if is_internal_table(str(t))]
    for ti in internal:
        fk_groups.pop(ti, None)
    for ti in fk_groups:
        fk_groups[ti] = [g for g in fk_groups[ti] if g[1] not in internal]

    statements = []
    for ti, tname in enumerate(tables):
        if ti in internal:
            continue
        parts = [f"{_q(columns[ci][1])} {_sql_type(types[ci])}" for ci in by_table[ti]]
        if ti in pk_of:
            parts.append(f"PRIMARY KEY ({', '.join(_q(columns[c][1]) for c in pk_of[ti])})")
        for child_cols, parent_t, parent_cols in fk_groups.get(ti, []):
            parts.append(
                f"FOREIGN KEY ({', '.join(_q(columns[c][1]) for c in child_cols)}) REFERENCES "
                f"{_q(tables[parent_t])} ({', '.join(_q(columns[c][1]) for c in parent_cols)})"
            )
        statements.append(f"CREATE TABLE {_q(tname)} (\n  " + ",\n  ".join(parts) + "\n);")
    schema = schema_from_ddl("\n".join(statements) + "\n", source=source)
    if not internal:
        return schema
    names = tuple(str(tables[ti]) for ti in internal)
    notes = tuple(f"table {n} left out: it is SQLite's internal table (SQLite's own "
                  "bookkeeping, not user data); a query reading it is unsupported"
                  for n in names)
    return dataclasses.replace(schema, notes=schema.notes + notes, internal_tables=names,
                               cache={})


def internal_table_construct(name: str) -> str:
    """What ``unsupported:`` names for a query reading SQLite's internal table ``name``."""
    return (f"SQLite's internal table {name} (its rows are SQLite's own bookkeeping, "
            "which SpotIt does not model)")


def is_internal_table(name: str) -> bool:
    """A name SQLite reserves for its own tables (``sqlite_sequence``, ``sqlite_stat1``,
    ``sqlite_master`` ...): no user table can have it."""
    return name.lower().startswith("sqlite_")


def _group_foreign_keys(
    fks: Iterable, columns: list[tuple[int, str]], pk_of: dict[int, list[int]]
) -> dict[int, list[tuple[list[int], int, list[int]]]]:
    """tables.json lists FK column *pairs*; rebuild composite keys.

    Pairs from one child table to one parent table form a composite key when
    their parent columns are exactly the parent's composite primary key;
    otherwise each pair is its own single-column key (e.g. atom_id and atom_id2
    both referencing atom.atom_id).
    """
    pairs: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for child, parent in fks:
        pairs.setdefault((columns[child][0], columns[parent][0]), []).append((child, parent))
    out: dict[int, list[tuple[list[int], int, list[int]]]] = {}
    for (ct, pt), ps in pairs.items():
        parent_pk = pk_of.get(pt, [])
        parents = [p for _, p in ps]
        composite = len(parent_pk) > 1 and len(ps) == len(parent_pk)
        if composite and sorted(parents) == sorted(parent_pk):
            out.setdefault(ct, []).append(([c for c, _ in ps], pt, parents))
        else:
            for c, p in dict.fromkeys(ps):
                out.setdefault(ct, []).append(([c], pt, [p]))
    return out


def _sql_type(t: str) -> str:
    t = str(t).strip().lower()
    return {"number": "NUMERIC", "others": "", "boolean": "BOOLEAN", "time": "TIME"}.get(
        t, t.upper()
    )


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _introspect(conn: sqlite3.Connection, source: str,
                foreign_collations: tuple[str, ...] = ()) -> Schema:
    names = [
        r[0]
        for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' "
            "ORDER BY rowid"
        )
    ]
    if not names:
        raise SchemaError("the schema defines no tables", source=source)
    ddl_rows = conn.execute(
        "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' "
        "ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'view' THEN 1 ELSE 2 END, rowid"
    ).fetchall()
    tables = [_table(conn, name, source) for name in names]
    schema = Schema(tuple(tables), ddl=";\n".join(r[0] for r in ddl_rows) + ";\n", source=source,
                    views=_views(conn), foreign_collations=foreign_collations)
    _check_references(schema)
    return schema


def _table(conn: sqlite3.Connection, name: str, source: str) -> Table:
    sql = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?",
                       (name,)).fetchone()[0] or ""
    info = conn.execute(f"PRAGMA table_xinfo({_q(name)})").fetchall()
    without_rowid, strict = _table_flags(conn, name, sql)
    pk = [r for r in info if r[5] > 0]
    pk_cols = tuple(r[1] for r in sorted(pk, key=lambda r: r[5]))
    # SQLite's own answer: a primary key that is not the rowid has an index of origin
    # 'pk' (``id INTEGER PRIMARY KEY DESC`` is such a key, a quirk SQLite keeps)
    rowid_alias = (
        len(pk_cols) == 1 and not without_rowid and pk[0][2].strip().upper() == "INTEGER"
        and not any(r[3] == "pk" for r in conn.execute(f"PRAGMA index_list({_q(name)})"))
    )
    problems: list[str] = []
    if sql.lstrip().upper().startswith("CREATE VIRTUAL"):
        problems.append(f"virtual table {name}")
    collations = _column_collations(
        conn, name, [r[1] for r in info if not (rowid_alias and r[5] > 0)])
    text = ddl_text.TableText()
    if "CHECK" in sql.upper() or any(r[6] in (2, 3) for r in info):
        try:
            text = ddl_text.read_table(sql)
        except ddl_text.DdlError as e:
            problems.append(f"the CHECK constraints or generated columns of {name} ({e})")
    cols, generated = [], []
    for position, (_cid, cname, ctype, notnull, _dflt, pkpos, hidden) in enumerate(info):
        coll = collations.get(cname, BINARY)  # the rowid alias holds integers only
        if hidden in (2, 3):
            expr = text.generated.get(cname.lower())
            if expr is None:
                problems.append(f"generated column {name}.{cname} (its expression was not read)")
                continue
            generated.append(GeneratedColumn(cname, ctype or "", expr, position, coll,
                                             hidden == 3))
            continue
        if hidden != 0:
            problems.append(f"hidden column {name}.{cname}")
            continue
        implied = (rowid_alias and pkpos > 0) or (without_rowid and pkpos > 0)
        if strict and (ctype or "").upper() == "BLOB":
            problems.append(f"BLOB column {name}.{cname} of a STRICT table")
        cols.append(Column(cname, ctype or "", bool(notnull) or implied, coll, strict))
    unique, index_collations, unique_indexes = _unique_keys(conn, name, collations, problems)
    return Table(name, tuple(cols), pk_cols, tuple(unique), _foreign_keys(conn, name, source),
                 tuple(index_collations), text.checks, tuple(generated), tuple(unique_indexes),
                 without_rowid, strict, pk_cols[0] if rowid_alias else None,
                 "; ".join(problems) or None)


def _table_flags(conn: sqlite3.Connection, name: str, sql: str) -> tuple[bool, bool]:
    """(WITHOUT ROWID, STRICT), from ``PRAGMA table_list`` (SQLite 3.37+)."""
    try:
        row = conn.execute("SELECT wr, strict FROM pragma_table_list WHERE name = ? "
                           "AND schema = 'main'", (name,)).fetchone()
    except sqlite3.Error:
        row = None
    if row is not None:
        return bool(row[0]), bool(row[1])
    flat = " ".join(sql.upper().split())
    return "WITHOUT ROWID" in flat, False


def _unique_keys(conn: sqlite3.Connection, name: str, collations: dict[str, str],
                 problems: list[str]):
    """Column keys (UNIQUE constraints and indexes), their collations when an index
    declares its own, and the unique indexes over expressions or partial ones."""
    unique, index_collations, indexes = [], [], []
    for _seq, iname, is_unique, origin, partial in conn.execute(
        f"PRAGMA index_list({_q(name)})"
    ).fetchall():
        if not is_unique:
            continue
        xinfo = [r for r in conn.execute(f"PRAGMA index_xinfo({_q(iname)})") if r[5]]
        icols = tuple(r[2] for r in xinfo)
        colls = tuple(str(r[4]).upper() for r in xinfo)
        if partial or any(c is None for c in icols):
            sql = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?",
                               (iname,)).fetchone()
            try:
                text = ddl_text.read_index(sql[0] if sql and sql[0] else "")
            except ddl_text.DdlError as e:
                problems.append(f"unique index {iname} ({e})")
                continue
            indexes.append(UniqueIndex(iname, text.terms, colls, text.where))
            continue
        if colls != tuple(collations.get(c, BINARY) for c in icols):
            index_collations.append((icols, colls))
        if origin in ("u", "c"):
            unique.append(icols)
    return unique, index_collations, indexes


def _foreign_keys(conn: sqlite3.Connection, name: str, source: str) -> tuple[ForeignKey, ...]:
    fks: dict[int, list[tuple]] = {}
    for row in conn.execute(f"PRAGMA foreign_key_list({_q(name)})").fetchall():
        fks.setdefault(row[0], []).append(row)
    foreign = []
    for rows in fks.values():
        rows.sort(key=lambda r: r[1])
        parent = rows[0][2]
        child_cols = tuple(r[3] for r in rows)
        ref_cols = tuple(r[4] for r in rows)
        if any(c is None for c in ref_cols):
            ref_cols = _parent_primary_key(conn, parent, len(rows), source)
        foreign.append(ForeignKey(child_cols, parent, ref_cols))
    return tuple(foreign)


def _views(conn: sqlite3.Connection) -> tuple[View, ...]:
    out = []
    for name, sql in conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'view' ORDER BY rowid"
    ).fetchall():
        try:
            query = ddl_text.view_query(sql)
            columns = tuple(r[1] for r in conn.execute(f"PRAGMA table_xinfo({_q(name)})"))
        except (ddl_text.DdlError, sqlite3.Error) as e:
            # kept: a query naming it is told why it cannot be read
            out.append(View(name, (), "", problem=f"view {name} ({e})"))
            continue
        out.append(View(name, columns, query))
    return tuple(out)


_COMPARISONS = ("Eq", "Ne", "Lt", "Le", "Gt", "Ge")


def _column_collations(conn: sqlite3.Connection, table: str, names: list[str]
                       ) -> dict[str, str]:
    """Each column's collating sequence, as SQLite itself resolves it.

    No PRAGMA reports a column's collation; the comparison opcode SQLite compiles
    for ``column < ''`` carries it (``P4`` is ``NOCASE-8``: name and encoding)."""
    out = {}
    for name in names:
        ops = conn.execute(f"EXPLAIN SELECT {_q(name)} < '' FROM {_q(table)}").fetchall()
        p4 = next((op[5] for op in ops if op[1] in _COMPARISONS), None)
        if not isinstance(p4, str):
            raise SchemaError(f"cannot tell the collation of {table}.{name}")
        out[name] = p4.rsplit("-", 1)[0].upper()
    return out


def _parent_primary_key(conn: sqlite3.Connection, parent: str, n: int, source: str) -> tuple:
    info = conn.execute(f"PRAGMA table_info({_q(parent)})").fetchall()
    pk = tuple(r[1] for r in sorted((r for r in info if r[5] > 0), key=lambda r: r[5]))
    if len(pk) != n:
        raise SchemaError(
            f"a foreign key references {parent} without naming columns, "
            f"but {parent}'s primary key does not match it",
            source=source,
        )
    return pk


def _check_references(schema: Schema) -> None:
    for t in schema.tables:
        for fk in t.foreign_keys:
            parent = schema.table(fk.ref_table)
            if parent is None:
                raise SchemaError(
                    f"foreign key of {t.name} references unknown table {fk.ref_table}",
                    source=schema.source,
                )
            for c in fk.ref_columns:
                if parent.column_index(c) is None:
                    raise SchemaError(
                        f"foreign key of {t.name} references unknown column {parent.name}.{c}",
                        source=schema.source,
                    )
