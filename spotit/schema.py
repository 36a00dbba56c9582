"""Database schemas: tables, typed columns, keys, and where they come from.

Every source is turned into CREATE TABLE text and loaded into an in-memory
SQLite database; the schema is then read back with SQLite's own PRAGMAs. So
SQLite, not a hand-written DDL parser, decides what a DDL means (implicit
NOT NULL of an INTEGER PRIMARY KEY, composite keys, quoted names), and the
same DDL later builds the database each counterexample is validated on.

Sources: SQL DDL text or file, an existing SQLite database file, and a
BIRD/Spider ``tables.json`` plus a ``db_id``.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from spotit.errors import SchemaError
from spotit.ir.types import (
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

    @property
    def affinity(self) -> Affinity:
        return affinity_of_declared_type(self.declared_type)

    @property
    def domain(self) -> Domain:
        return domain_of_declared_type(self.declared_type)


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

    @property
    def keys(self) -> tuple[tuple[str, ...], ...]:
        """Every set of columns whose values must be distinct across rows."""
        ks = ((self.primary_key,) if self.primary_key else ()) + self.unique
        return tuple(dict.fromkeys(ks))


@dataclass(frozen=True)
class Schema:
    tables: tuple[Table, ...]
    ddl: str = field(default="", compare=False)
    source: str = field(default="", compare=False)

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
        conn.executescript(self.ddl)
        return conn


# --------------------------------------------------------------------------- loading


def load_schema(source: str | Path, db_id: str | None = None) -> Schema:
    """Load a schema from a DDL file (.sql), a SQLite file, or tables.json (+ ``db_id``).

    The kind is decided by the file's content, not only its name: a file that
    starts with SQLite's magic header is a database; JSON is tables.json.
    """
    path = Path(source)
    if not path.exists():
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


def schema_from_ddl(ddl: str, source: str = "<ddl>") -> Schema:
    """Load CREATE TABLE statements (other statements such as indexes are kept too)."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.executescript(ddl)
    except sqlite3.Error as e:
        raise SchemaError(f"the schema DDL does not load into SQLite: {e}", source=source) from None
    try:
        return _introspect(conn, source=source)
    finally:
        conn.close()


def schema_from_sqlite_file(path: str | Path) -> Schema:
    """Read the schema (not the rows) of an existing SQLite database file."""
    try:
        conn = sqlite3.connect(f"file:{Path(path)}?mode=ro", uri=True)
        rows = conn.execute(
            "SELECT sql FROM sqlite_master WHERE type IN ('table', 'index') AND sql IS NOT NULL "
            "AND name NOT LIKE 'sqlite_%' ORDER BY type DESC, rowid"
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

    statements = []
    for ti, tname in enumerate(tables):
        parts = [f"{_q(columns[ci][1])} {_sql_type(types[ci])}" for ci in by_table[ti]]
        if ti in pk_of:
            parts.append(f"PRIMARY KEY ({', '.join(_q(columns[c][1]) for c in pk_of[ti])})")
        for child_cols, parent_t, parent_cols in fk_groups.get(ti, []):
            parts.append(
                f"FOREIGN KEY ({', '.join(_q(columns[c][1]) for c in child_cols)}) REFERENCES "
                f"{_q(tables[parent_t])} ({', '.join(_q(columns[c][1]) for c in parent_cols)})"
            )
        statements.append(f"CREATE TABLE {_q(tname)} (\n  " + ",\n  ".join(parts) + "\n);")
    return schema_from_ddl("\n".join(statements) + "\n", source=source)


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


def _introspect(conn: sqlite3.Connection, source: str) -> Schema:
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
        "ORDER BY CASE type WHEN 'table' THEN 0 ELSE 1 END, rowid"
    ).fetchall()
    tables = []
    for name in names:
        info = conn.execute(f"PRAGMA table_xinfo({_q(name)})").fetchall()
        without_rowid = _is_without_rowid(conn, name)
        pk = [r for r in info if r[5] > 0]
        pk_cols = tuple(r[1] for r in sorted(pk, key=lambda r: r[5]))
        rowid_alias = (
            len(pk_cols) == 1 and not without_rowid and pk[0][2].strip().upper() == "INTEGER"
        )
        cols = []
        for _cid, cname, ctype, notnull, _dflt, pkpos, hidden in info:
            if hidden not in (0,):  # generated / hidden columns are not modelled
                continue
            implied = (rowid_alias and pkpos > 0) or (without_rowid and pkpos > 0)
            cols.append(Column(cname, ctype or "", bool(notnull) or implied))
        unique = []
        for _seq, iname, is_unique, origin, _partial in conn.execute(
            f"PRAGMA index_list({_q(name)})"
        ).fetchall():
            if is_unique and origin in ("u", "c"):
                icols = tuple(r[2] for r in conn.execute(f"PRAGMA index_info({_q(iname)})"))
                if all(c is not None for c in icols):
                    unique.append(icols)
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
        tables.append(Table(name, tuple(cols), pk_cols, tuple(unique), tuple(foreign)))
    schema = Schema(tuple(tables), ddl=";\n".join(r[0] for r in ddl_rows) + ";\n", source=source)
    _check_references(schema)
    return schema


def _is_without_rowid(conn: sqlite3.Connection, name: str) -> bool:
    sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", (name,)).fetchone()[0]
    return "WITHOUT ROWID" in " ".join(sql.upper().split())


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
