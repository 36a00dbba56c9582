"""Schemas as SQLite reads them: every column and table constraint is modelled or
refused by name, never dropped; collations, CHECK, generated columns, views, the
rowid and unknown collations end to end.

Verdicts of query pairs that depend on these features are in
``fixtures/equiv/schema_features.sql`` and ``collations.sql``; here, the
coverage of SQLite's constraint grammar and the reading of schema text.
"""

from __future__ import annotations

import json
import sqlite3

import pytest

from spotit import cli, ddl
from spotit.pipeline import check
from spotit.schema import load_schema, schema_from_ddl

# ------------------------------------------------------------------ the DDL text reader


def test_read_table_finds_checks_and_generated_expressions():
    text = ddl.read_table(
        'CREATE TABLE "g x" (a INTEGER CHECK (a > 0), b AS (a*2) VIRTUAL, '
        "c TEXT GENERATED ALWAYS AS (upper(b || 'x)')) STORED, "
        "CONSTRAINT ck CHECK(a <> 3 AND c <> ''), d DEFAULT (1+2) REFERENCES t(a), "
        "e VARCHAR(10) CONSTRAINT c2 CHECK (length(e) < 10))")
    assert text.checks == ("a > 0", "a <> 3 AND c <> ''", "length(e) < 10")
    assert text.generated == {"b": "a*2", "c": "upper(b || 'x)')"}


def test_view_query_and_index_terms():
    assert ddl.view_query("CREATE VIEW v(x) AS SELECT (SELECT 1 AS y) AS x FROM t;") == (
        "SELECT (SELECT 1 AS y) AS x FROM t")
    idx = ddl.read_index("CREATE UNIQUE INDEX i ON t(lower(b) COLLATE NOCASE DESC, a) "
                         "WHERE a > 'x'")
    assert idx.terms == ("lower(b)", "a") and idx.where == "a > 'x'"


# ------------------------------------------------------------------ no silent drop

# SQLite's column-constraint and table-constraint grammar
# (https://sqlite.org/lang_createtable.html), one case each: the DDL of table t, and
# how SpotIt must read it -- a predicate on the loaded table ("modelled") or the
# name an ``unsupported`` verdict must give ("refused").
MODELLED = {
    "type VARCHAR(10)": ("c VARCHAR(10)", lambda t: t.column("c").affinity.value == "TEXT"),
    "type DOUBLE PRECISION": ("c DOUBLE PRECISION",
                              lambda t: t.column("c").affinity.value == "REAL"),
    "type BOOLEAN": ("c BOOLEAN", lambda t: t.column("c").affinity.value == "NUMERIC"),
    "type DATETIME": ("c DATETIME", lambda t: t.column("c").domain.value == "datetime"),
    "type DECIMAL(10,2)": ("c DECIMAL(10,2)", lambda t: t.column("c").affinity.value == "NUMERIC"),
    "no type": ("c", lambda t: t.column("c").affinity.value == "BLOB"),
    "NOT NULL": ("c TEXT NOT NULL", lambda t: t.column("c").not_null),
    "UNIQUE": ("c TEXT UNIQUE", lambda t: ("c",) in t.unique),
    "PRIMARY KEY": ("c TEXT PRIMARY KEY", lambda t: t.primary_key == ("c",)),
    "INTEGER PRIMARY KEY": ("c INTEGER PRIMARY KEY",
                            lambda t: t.rowid_alias == "c" and t.column("c").not_null),
    "PRIMARY KEY AUTOINCREMENT": ("c INTEGER PRIMARY KEY AUTOINCREMENT",
                                  lambda t: t.rowid_alias == "c"),
    "table PRIMARY KEY": ("a INTEGER, c TEXT, PRIMARY KEY (a, c)",
                          lambda t: t.primary_key == ("a", "c")),
    "table UNIQUE": ("a INTEGER, c TEXT, UNIQUE (c, a)", lambda t: ("c", "a") in t.unique),
    "CHECK": ("c INTEGER CHECK (c > 0)", lambda t: t.checks == ("c > 0",)),
    "table CHECK": ("c INTEGER, CONSTRAINT pos CHECK (c > 0)", lambda t: t.checks == ("c > 0",)),
    "DEFAULT": ("c INTEGER DEFAULT 7", lambda t: t.column("c").declared_type == "INTEGER"),
    "COLLATE NOCASE": ("c TEXT COLLATE NOCASE", lambda t: t.column("c").collation == "NOCASE"),
    "COLLATE RTRIM": ("c TEXT COLLATE rtrim", lambda t: t.column("c").collation == "RTRIM"),
    "REFERENCES": ("c INTEGER REFERENCES other(id)",
                   lambda t: t.foreign_keys[0].ref_table == "other"),
    "table FOREIGN KEY": ("c INTEGER, FOREIGN KEY (c) REFERENCES other(id) ON DELETE CASCADE",
                          lambda t: t.foreign_keys[0].columns == ("c",)),
    "GENERATED VIRTUAL": ("a INTEGER, c INTEGER GENERATED ALWAYS AS (a + 1) VIRTUAL",
                          lambda t: t.generated[0].expression == "a + 1"),
    "GENERATED STORED": ("a INTEGER, c TEXT AS (a || 'x') STORED",
                         lambda t: t.generated[0].stored),
    "ON CONFLICT": ("c TEXT UNIQUE ON CONFLICT REPLACE", lambda t: ("c",) in t.unique),
}
TABLE_OPTIONS = {
    "WITHOUT ROWID": ("(c TEXT PRIMARY KEY) WITHOUT ROWID",
                      lambda t: t.without_rowid and t.column("c").not_null),
    "STRICT": ("(c ANY) STRICT", lambda t: t.strict and t.column("c").affinity.value == "BLOB"),
}
REFUSED = {
    # a collation an application registers: SQLite cannot compare with it here
    "an unknown collation": ("c TEXT COLLATE myorder", "collation MYORDER on t.c",
                             "SELECT c FROM t WHERE c = 'x'"),
    "a BLOB column of a STRICT table": ("c BLOB) STRICT; --", "BLOB column t.c",
                                        "SELECT c FROM t"),
}
OTHER = "CREATE TABLE other (id INTEGER PRIMARY KEY);\n"


@pytest.mark.parametrize("feature", sorted(MODELLED))
def test_column_and_table_constraints_are_modelled(feature):
    columns, holds = MODELLED[feature]
    schema = schema_from_ddl(OTHER + f"CREATE TABLE t ({columns});")
    t = schema.require_table("t")
    assert holds(t), feature
    assert t.problem is None
    res = check(schema, "SELECT * FROM t", "SELECT * FROM t WHERE 1", bound=1, probe_trials=0)
    assert res.verdict.value == "equivalent", res.reason


@pytest.mark.parametrize("feature", sorted(TABLE_OPTIONS))
def test_table_options_are_modelled(feature):
    body, holds = TABLE_OPTIONS[feature]
    t = schema_from_ddl(f"CREATE TABLE t {body};").require_table("t")
    assert holds(t), feature


@pytest.mark.parametrize("feature", sorted(REFUSED))
def test_what_is_not_modelled_is_refused_by_name(feature):
    columns, name, query = REFUSED[feature]
    schema = schema_from_ddl(f"CREATE TABLE t ({columns});")
    res = check(schema, query, query + " AND 1" if "WHERE" in query else query + " WHERE 1",
                bound=1)
    assert res.verdict.value == "unsupported", res.reason
    assert name in res.reason


def test_every_constraint_keyword_is_covered():
    """The cases above name every column/table constraint of SQLite's grammar."""
    covered = " ".join(list(MODELLED) + list(TABLE_OPTIONS)).upper()
    for keyword in ("NOT NULL", "UNIQUE", "PRIMARY KEY", "CHECK", "DEFAULT", "COLLATE",
                    "REFERENCES", "FOREIGN KEY", "GENERATED", "AUTOINCREMENT", "WITHOUT ROWID",
                    "STRICT", "ON CONFLICT"):
        assert keyword in covered, keyword


# ------------------------------------------------------------------ views, rowid, features


def test_a_view_in_a_sqlite_file_is_expanded(tmp_path):
    path = tmp_path / "shop.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript("CREATE TABLE p (id INTEGER PRIMARY KEY, price INTEGER);"
                       "CREATE VIEW cheap AS SELECT id FROM p WHERE price < 10;")
    conn.close()
    schema = load_schema(path)
    assert [v.name for v in schema.views] == ["cheap"]
    same = check(schema, "SELECT id FROM cheap", "SELECT id FROM p WHERE price < 10", bound=2)
    assert same.verdict.value == "equivalent", same.reason
    differ = check(schema, "SELECT id FROM cheap", "SELECT id FROM p WHERE price <= 10",
                   bound=2, probe_trials=0)
    assert differ.verdict.value == "not_equivalent", differ.reason
    assert differ.counterexample["p"][0]["price"] == 10


def test_rowid_of_a_without_rowid_table_is_an_error_as_in_sqlite():
    schema = schema_from_ddl("CREATE TABLE w (k TEXT PRIMARY KEY) WITHOUT ROWID;")
    res = check(schema, "SELECT rowid FROM w", "SELECT k FROM w")
    assert res.verdict.value == "error" and "no such column: rowid" in res.reason


@pytest.mark.parametrize("gold,pred", [
    ("SELECT id FROM w", "SELECT rowid FROM w"),
    ("SELECT v FROM w WHERE id IS NOT NULL", "SELECT v FROM w"),
    ("SELECT COUNT(id) FROM w", "SELECT COUNT(*) FROM w"),
])
def test_integer_primary_key_desc_is_not_the_rowid(gold, pred):
    # SQLite's quirk: the column-constraint form `INTEGER PRIMARY KEY DESC` is an
    # ordinary key (NULL allowed, values apart from the rowid), where `PRIMARY KEY
    # (id DESC)` is the rowid. By SQLite: a row (NULL, 'a') or (2, 'a') tells each pair
    # apart (SpotIt said `equivalent`, reading id as the rowid)
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE w (id INTEGER PRIMARY KEY DESC, v TEXT)")
    conn.executemany("INSERT INTO w VALUES (?, 'a')", [(None,), (2,)])
    assert conn.execute(gold).fetchall() != conn.execute(pred).fetchall()
    assert schema_from_ddl("CREATE TABLE w (id INTEGER PRIMARY KEY DESC, v TEXT);"
                           ).table("w").rowid_alias is None
    assert schema_from_ddl("CREATE TABLE w (id INTEGER, v TEXT, PRIMARY KEY (id DESC));"
                           ).table("w").rowid_alias == "id"
    res = check("CREATE TABLE w (id INTEGER PRIMARY KEY DESC, v TEXT);", gold, pred, bound=2)
    assert res.verdict.value == "not_equivalent", res.reason


def test_a_counterexample_that_reads_the_rowid_carries_it():
    schema = schema_from_ddl("CREATE TABLE log (msg TEXT);")
    res = check(schema, "SELECT rowid FROM log", "SELECT rowid FROM log WHERE msg IS NOT NULL",
                bound=1, probe_trials=0)
    assert res.verdict.value == "not_equivalent"
    row = res.counterexample["log"][0]
    assert set(row) == {"msg", "rowid"} and row["msg"] is None
    # the rebuilt database has that rowid
    conn = schema.create_database()
    conn.execute("INSERT INTO log (msg, rowid) VALUES (?, ?)", (row["msg"], row["rowid"]))
    assert conn.execute("SELECT rowid FROM log").fetchall() == [(row["rowid"],)]


def test_a_circular_or_unreadable_view_is_named():
    schema = schema_from_ddl("CREATE TABLE t (a INTEGER);"
                             "CREATE VIEW v AS SELECT a FROM t WHERE a > 1;")
    res = check(schema, "SELECT a FROM v", "SELECT a FROM t WHERE a > 1")
    assert res.verdict.value == "equivalent"


def test_generated_columns_that_read_each_other():
    schema = schema_from_ddl("CREATE TABLE g (a INTEGER, c INTEGER AS (b * 2), "
                             "b INTEGER AS (a + 1));")
    res = check(schema, "SELECT c FROM g", "SELECT (a + 1) * 2 FROM g", bound=2)
    assert res.verdict.value == "equivalent", res.reason
    star = check(schema, "SELECT * FROM g", "SELECT a, (a + 1) * 2, a + 1 FROM g", bound=2)
    assert star.verdict.value == "equivalent", star.reason


# ------------------------------------------------------------------ vacuity in the outputs


def test_vacuity_in_json_and_text(tmp_path, capsys):
    schema = tmp_path / "s.sql"
    schema.write_text("CREATE TABLE t (id INTEGER PRIMARY KEY, d DATE);")
    args = ["check", "--schema", str(schema), "--gold", "SELECT id FROM t WHERE d = 'x'",
            "--pred", "SELECT id + 1 FROM t WHERE d = 'x'", "--bound", "2"]
    assert cli.main([*args, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == "equivalent" and out["vacuous"] == ["gold", "pred"]
    assert "d = 'x'" in out["reason"]
    assert cli.main(args) == 0
    assert "equivalent (vacuous: both queries return no rows" in capsys.readouterr().out
