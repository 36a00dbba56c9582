"""GROUP BY and DISTINCT after joins: rows carrying the same base row's values are one
candidate group (or one candidate row), so a grouping by a column of one table after a
long join has as many candidates as that table has rows -- and every verdict is still
SQLite's."""

from __future__ import annotations

import sqlite3

import pytest
from pysmt.environment import reset_env

import spotit
from spotit import encodings  # noqa: F401  (registers every encoding)
from spotit.encodings.builder import Builder
from spotit.encodings.database import SymbolicDatabase
from spotit.encodings.encoder import Encoder, EncoderOptions
from spotit.frontend.binder import bind
from spotit.frontend.parser import parse
from spotit.schema import schema_from_ddl

DDL = ("CREATE TABLE cat (cid INTEGER, name TEXT);"
       "CREATE TABLE film (fid INTEGER, cid INTEGER);"
       "CREATE TABLE rental (rid INTEGER, fid INTEGER, days INTEGER);")
JOIN = "FROM cat JOIN film ON film.cid = cat.cid JOIN rental ON rental.fid = film.fid"


def candidates(sql: str, k: int) -> int:
    """How many rows the encoding of ``sql`` has at bound k (present or not)."""
    reset_env()
    schema = schema_from_ddl(DDL)
    db = SymbolicDatabase(schema, k, Builder())
    return len(Encoder(db, EncoderOptions()).rel(bind(parse(sql), schema)).rows)


@pytest.mark.parametrize("sql, k, expected", [
    # the join has k**3 rows; the names come from cat's k rows
    (f"SELECT cat.name, SUM(rental.days) {JOIN} GROUP BY cat.name", 3, 3),
    (f"SELECT DISTINCT cat.name {JOIN}", 3, 3),
    (f"SELECT DISTINCT cat.name, film.fid {JOIN}", 2, 4),
    # a key computed from two tables: one candidate per pair of their rows (film's
    # rows in between do not matter: the same two cells give the same formula)
    (f"SELECT cat.name || rental.rid, COUNT(*) {JOIN} GROUP BY cat.name || rental.rid", 2, 4),
    # a key of all three tables' cells: one candidate per joined row
    (f"SELECT cat.name || film.fid || rental.rid, COUNT(*) {JOIN} GROUP BY 1", 2, 8),
])
def test_rows_of_one_base_row_are_one_candidate(sql, k, expected):
    assert candidates(sql, k) == expected


def sqlite_rows(sql: str, rows: dict) -> list:
    conn = sqlite3.connect(":memory:")
    conn.executescript(DDL)
    for table, values in rows.items():
        for v in values:
            conn.execute(f"INSERT INTO {table} VALUES ({', '.join('?' * len(v))})", v)
    return sorted(conn.execute(sql).fetchall(), key=repr)


def test_a_grouping_after_a_join_is_decided_as_sqlite_decides_it():
    """The top category by rental days, with and without ties left to SQLite; the
    counterexample is SQLite's, and COUNT(*) against SUM(1) per group is the same
    on every database (a group has at least one row: by hand)."""
    top = f"SELECT cat.name {JOIN} GROUP BY cat.name ORDER BY SUM(rental.days) DESC LIMIT 1"
    other = top.replace("DESC", "ASC")
    r = spotit.check(DDL, top, other, bound=3, probe_trials=0)
    assert r.verdict.value == "not_equivalent", r.reason
    db = r.counterexample
    assert sqlite_rows(top, {t: [tuple(row.values()) for row in rs] for t, rs in db.items()}) \
        != sqlite_rows(other, {t: [tuple(row.values()) for row in rs] for t, rs in db.items()})
    count = f"SELECT cat.name, COUNT(*) {JOIN} GROUP BY cat.name"
    r = spotit.check(DDL, count, count.replace("COUNT(*)", "SUM(1)"), bound=3, probe_trials=0)
    assert r.verdict.value == "equivalent", r.reason
    names = f"SELECT DISTINCT cat.name {JOIN}"
    r = spotit.check(DDL, names, names + " WHERE rental.days > 0", bound=3, probe_trials=0)
    assert r.verdict.value == "not_equivalent", r.reason
