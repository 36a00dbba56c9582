"""SQLite function edges a helper's hunt found SpotIt wrong on (each pair was
`equivalent`, or `check` raised), with the database SQLite tells the pair apart on."""

from __future__ import annotations

import sqlite3

import pytest

from spotit import check

T = "CREATE TABLE t(id INTEGER PRIMARY KEY, x INTEGER NOT NULL, y TEXT);"

CASES = [
    # CHAR(0) puts a NUL in the text, which LENGTH reads as its end: LENGTH is 0
    ("char-nul", "SELECT id, LENGTH(CHAR(x / 1000 - 3)) FROM t", "SELECT id, 1 FROM t",
     [(1, 3000, "a")]),
    # SQLite text holds characters past U+2FFFF, where SMT-LIB strings end
    ("unicode-high", "SELECT id FROM t WHERE UNICODE(y) > 196607", "SELECT id FROM t WHERE 0",
     [(1, 0, chr(917569))]),
    # MOD takes the doubles: 2**53 + 1 is the double 2**53, even
    ("mod-big", "SELECT id FROM t WHERE MOD(x, 2) = 0", "SELECT id FROM t WHERE x % 2 = 0",
     [(1, 2**53 + 1, "a")]),
    # LOWER changes ASCII letters only: LOWER(y) holds 'É' where y does
    ("instr-lower", "SELECT id FROM t WHERE INSTR(LOWER(y), 'É') > 3",
     "SELECT id FROM t WHERE INSTR(y, 'é') > 3", [(1, 0, "abcdé")]),
    # PRINTF's value is free in the encoding: a database that differs from a spurious
    # candidate only in the text it formats was blocked with it, and the bound "proved"
    ("printf-block", "SELECT printf('%s', y) FROM t WHERE x * 3 = 369",
     "SELECT printf('%s', y) FROM t WHERE x * 3 = 369 LIMIT 1", [(1, 123, "a"), (2, 123, "b")]),
]


@pytest.mark.parametrize("name,q1,q2,rows", CASES, ids=[c[0] for c in CASES])
def test_a_pair_sqlite_tells_apart_is_never_equivalent(name, q1, q2, rows):
    conn = sqlite3.connect(":memory:")
    conn.execute(T)
    conn.executemany("INSERT INTO t VALUES (?, ?, ?)", rows)
    assert sorted(conn.execute(q1).fetchall()) != sorted(conn.execute(q2).fetchall())
    res = check(T, q1, q2, bound=2, timeout=60)
    assert res.verdict.value != "equivalent", res.reason
    assert res.verdict.value in ("not_equivalent", "spurious", "unsupported", "timeout")


@pytest.mark.parametrize("literal", ["\U0001F3F4\U000E0067\U000E0062", chr(0x2F900)])
def test_a_literal_past_the_stand_in_characters_is_unsupported_not_a_crash(literal):
    # (U+E0067 raised ValueError out of check: SMT-LIB strings stop at U+2FFFF)
    res = check(T, f"SELECT id FROM t WHERE y = '{literal}'",
                f"SELECT id FROM t WHERE y = '{literal}' COLLATE NOCASE", bound=2)
    assert res.verdict.value == "unsupported", res.reason
    assert "U+" in res.reason


def test_char_of_constants_stays_exact():
    res = check(T, "SELECT id FROM t WHERE y = CHAR(65, 66) || CHAR(10)",
                "SELECT id FROM t WHERE y = 'AB' || CHAR(10)", bound=2)
    assert res.verdict.value == "equivalent", res.reason


def test_the_sign_of_a_zero_is_not_lost_in_atan2():
    # 0 - 0.0 is 0.0 and -1 * 0.0 is -0.0: ATAN2 gives pi and -pi (was `equivalent`: one
    # rational zero, one value of the uninterpreted function)
    ddl = "CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, r REAL);"
    q1 = "SELECT ATAN2(0 - r, -1) FROM t WHERE a * a = 49"
    q2 = "SELECT ATAN2(-1 * r, -1) FROM t WHERE a * a = 49"
    conn = sqlite3.connect(":memory:")
    conn.execute(ddl)
    conn.execute("INSERT INTO t VALUES (1, 7, 0.0)")
    assert conn.execute(q1).fetchall() != conn.execute(q2).fetchall()
    res = check(ddl, q1, q2, bound=2, probe_trials=0, timeout=60)
    assert res.verdict.value in ("not_equivalent", "spurious", "timeout"), res.reason
