"""Schemas from DDL, SQLite files and tables.json, read back through SQLite."""

from __future__ import annotations

import json
import sqlite3

from spotit.ir.types import Affinity, Domain
from spotit.schema import load_schema, schema_from_ddl, schema_from_tables_entry

DDL = """
CREATE TABLE parent (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, d DATE, ts DATETIME);
CREATE TABLE child (
  pid INTEGER REFERENCES parent,
  seq INT,
  "Free Meal Count (K-12)" REAL,
  PRIMARY KEY (pid, seq)
);
CREATE TABLE loose (a, b NUMERIC, c VARCHAR(10));
"""


def test_ddl_keys_and_types():
    s = schema_from_ddl(DDL)
    parent, child, loose = s.tables
    assert parent.primary_key == ("id",)
    # only an INTEGER PRIMARY KEY is implicitly NOT NULL (SQLite's rowid alias)
    assert parent.column("id").not_null
    assert not child.column("pid").not_null and not child.column("seq").not_null
    assert parent.column("code").not_null and ("code",) in parent.unique
    assert child.primary_key == ("pid", "seq")
    fk = child.foreign_keys[0]
    assert fk.ref_table == "parent" and fk.ref_columns == ("id",)  # implicit parent PK
    assert child.column("free meal count (k-12)").affinity is Affinity.REAL
    assert parent.column("d").domain is Domain.DATE
    assert parent.column("ts").domain is Domain.DATETIME
    assert loose.column("a").domain is Domain.ANY
    assert loose.column("b").domain is Domain.NUMERIC
    assert loose.column("c").affinity is Affinity.TEXT


def test_without_rowid_primary_key_is_not_null():
    s = schema_from_ddl("CREATE TABLE w (k TEXT PRIMARY KEY, v INT) WITHOUT ROWID;")
    assert s.tables[0].column("k").not_null


def test_sqlite_file(tmp_path):
    path = tmp_path / "db.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript(DDL)
    conn.execute("INSERT INTO parent VALUES (1, 'a', NULL, NULL)")
    conn.commit()
    conn.close()
    s = load_schema(path)
    assert [t.name for t in s.tables] == ["parent", "child", "loose"]
    assert s.table("CHILD").foreign_keys[0].ref_table == "parent"
    # the schema's own DDL builds an empty database with the same tables
    fresh = s.create_database()
    assert fresh.execute("SELECT COUNT(*) FROM parent").fetchone() == (0,)


def test_tables_json_composite_keys(tmp_path):
    entry = {
        "db_id": "d",
        "table_names_original": ["atom", "connected"],
        "column_names_original": [[-1, "*"], [0, "atom_id"], [0, "n"], [1, "atom_id"],
                                  [1, "atom_id2"]],
        "column_types": ["text", "text", "integer", "text", "text"],
        "primary_keys": [1, [3, 4]],
        "foreign_keys": [[3, 1], [4, 1]],
    }
    path = tmp_path / "tables.json"
    path.write_text(json.dumps([entry]))
    s = load_schema(path, "d")
    connected = s.table("connected")
    assert connected.primary_key == ("atom_id", "atom_id2")
    # two separate single-column keys to atom.atom_id, not one composite key
    refs = sorted(fk.columns for fk in connected.foreign_keys)
    assert refs == [("atom_id",), ("atom_id2",)]
    assert schema_from_tables_entry(entry).tables == s.tables


# Spider's world_1, soccer_1 and store_1 list SQLite's internal table sqlite_sequence
# (their databases use AUTOINCREMENT); no CREATE TABLE may name it.
WORLD_1 = {
    "db_id": "world_1",
    "table_names_original": ["city", "sqlite_sequence", "country"],
    "table_names": ["city", "sqlite sequence", "country"],
    "column_names_original": [[-1, "*"], [0, "ID"], [0, "Name"], [0, "CountryCode"],
                              [1, "name"], [1, "seq"], [2, "Code"], [2, "Name"]],
    "column_names": [[-1, "*"], [0, "id"], [0, "name"], [0, "country code"],
                     [1, "name"], [1, "seq"], [2, "code"], [2, "name"]],
    "column_types": ["text", "number", "text", "text", "text", "text", "text", "text"],
    "primary_keys": [1, 6],
    "foreign_keys": [[3, 6]],
}


def test_tables_json_leaves_out_sqlite_internal_tables(tmp_path):
    from spotit.pipeline import check

    path = tmp_path / "tables.json"
    path.write_text(json.dumps([WORLD_1]))
    s = load_schema(path, "world_1")
    assert [t.name for t in s.tables] == ["city", "country"]
    assert s.internal_tables == ("sqlite_sequence",)
    assert any("sqlite_sequence" in n for n in s.notes)
    assert s.require_table("city").foreign_keys[0].ref_table == "country"
    # a pair over the user's tables is checked, and the note travels with the result
    res = check(s, "SELECT Name FROM city", "SELECT Name FROM city WHERE ID > 0", bound=2,
                probe_trials=0)
    assert res.verdict.value == "not_equivalent", res.reason
    assert any("sqlite_sequence" in n for n in res.notes)
    assert "sqlite_sequence" in res.to_json()["notes"][0]
    # a query reading the internal table is unsupported, naming it
    res = check(s, "SELECT seq FROM sqlite_sequence WHERE name = 'city'",
                "SELECT COUNT(*) FROM city", bound=2, probe_trials=0)
    assert res.verdict.value == "unsupported", res.reason
    assert "internal table sqlite_sequence" in res.reason


def test_ddl_autoincrement_sqlite_sequence_is_unsupported():
    from spotit.pipeline import check

    ddl = "CREATE TABLE t(id INTEGER PRIMARY KEY AUTOINCREMENT, x INTEGER);"
    res = check(ddl, "SELECT seq FROM sqlite_sequence", "SELECT MAX(id) FROM t", bound=2,
                probe_trials=0)
    assert res.verdict.value == "unsupported", res.reason
    assert "internal table sqlite_sequence" in res.reason
    res = check(ddl, "SELECT name FROM sqlite_master", "SELECT 't'", bound=2, probe_trials=0)
    assert res.verdict.value == "unsupported", res.reason
    assert "internal table sqlite_master" in res.reason
