"""EX-TEST on small SQLite files made here: read-only databases, real time limits, and the
BIRD and Spider (test-suite-sql-eval) comparisons.

Expected results are derived by hand in the comments; the Spider search is also checked
against a brute force over every column permutation written out below.
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from collections import Counter
from itertools import permutations
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spotit.experiments import extest
from spotit.experiments.extest import (
    Execution,
    bird_equal,
    database_path,
    ex_test,
    execute,
    open_readonly,
    spider_equal,
    spider_order_matters,
)
from spotit.experiments.inputs import InputError

# counts to ten billion: minutes of work unless something stops it
RUNAWAY = ("WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1e10) "
           "SELECT max(i) FROM c")


def make_db(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.executescript("""
        CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, price REAL);
        INSERT INTO item VALUES (1, 'pen', 2.5), (2, 'ink', 7.0), (3, 'pad', 7.0),
                                (4, 'pen', 1.0);
        CREATE TABLE raw (t TEXT);
        INSERT INTO raw VALUES (CAST(X'FF61' AS TEXT));
    """)
    conn.commit()
    conn.close()
    return path


@pytest.fixture
def db(tmp_path) -> Path:
    return make_db(tmp_path / "shop" / "shop.sqlite")


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --------------------------------------------------------------------------- read-only


def test_nothing_can_change_the_database(db):
    before, files = digest(db), sorted(p.name for p in db.parent.iterdir())
    conn = open_readonly(db)
    writes = [
        "INSERT INTO item VALUES (9, 'x', 1)",
        "UPDATE item SET price = 0",
        "DELETE FROM item",
        "CREATE TABLE t (a)",
        "DROP TABLE item",
        "CREATE TEMP TABLE t (a)",
        "PRAGMA user_version = 5",
        "PRAGMA journal_mode = WAL",
        "PRAGMA query_only = OFF",
        f"ATTACH DATABASE '{db.parent / 'other.db'}' AS other",
        f"VACUUM INTO '{db.parent / 'copy.db'}'",
    ]
    for sql in writes:
        with pytest.raises(sqlite3.DatabaseError):
            conn.execute(sql).fetchall()
        # through execute: an error result, not an exception
        assert execute(conn, sql, 5).rows is None
    assert conn.execute("PRAGMA user_version").fetchone() == (0,)
    assert conn.execute("SELECT count(*) FROM item").fetchone() == (4,)
    conn.close()
    assert digest(db) == before
    assert sorted(p.name for p in db.parent.iterdir()) == files  # no journal, no new file


def test_path_needing_uri_quoting(tmp_path):
    odd = make_db(tmp_path / "a b?c#d%20e" / "shop.sqlite")
    conn = open_readonly(odd)
    assert conn.execute("SELECT count(*) FROM item").fetchone() == (4,)
    conn.close()


def test_not_a_database(tmp_path):
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not a database file, just some bytes" * 40)
    with pytest.raises(sqlite3.DatabaseError):
        open_readonly(junk)
    with pytest.raises(sqlite3.OperationalError):
        open_readonly(tmp_path / "missing.sqlite")  # mode=ro never creates a file
    assert not (tmp_path / "missing.sqlite").exists()


# --------------------------------------------------------------------------- execute


def test_time_limit_stops_a_runaway_query(db):
    conn = open_readonly(db)
    start = time.perf_counter()
    result = execute(conn, RUNAWAY, 0.5)
    elapsed = time.perf_counter() - start
    assert result.timed_out and result.rows is None
    assert result.error == "timed out after 0.5 s"
    assert result.seconds >= 0.5 and elapsed < 1.5
    # the handler is gone: with its deadline long past it would stop this at once
    count = ("WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 100000) "
             "SELECT count(*) FROM c")
    assert conn.execute(count).fetchone() == (100000,)
    conn.close()


def test_execute_results_and_errors(db):
    conn = open_readonly(db)
    ok = execute(conn, "SELECT name FROM item WHERE price = 7 ORDER BY id", 5)
    assert ok == Execution([("ink",), ("pad",)], None, ok.seconds)
    bad = execute(conn, "SELECT nope FROM item", 5)
    assert bad.rows is None and not bad.timed_out and "no such column: nope" in bad.error
    two = execute(conn, "SELECT 1; SELECT 2", 5)
    assert two.rows is None and "one statement at a time" in two.error
    assert execute(conn, "-- only a comment", 5).error == "not a query: it returns no columns"
    conn.close()


def test_invalid_utf8_is_replaced_not_fatal(db):
    conn = sqlite3.connect(db)
    with pytest.raises(sqlite3.OperationalError):  # the default factory gives up on the row
        conn.execute("SELECT t FROM raw").fetchall()
    assert execute(conn, "SELECT t FROM raw", 5).rows == [("\ufffda",)]
    assert conn.text_factory is str  # restored afterwards
    conn.close()


# --------------------------------------------------------------------------- comparisons


def test_bird_equal_is_set_equality():
    assert bird_equal([(1,), (1,), (2,)], [(2,), (1,)])  # duplicates and order ignored
    assert bird_equal([(1, None)], [(1.0, None)])  # 1 == 1.0, NULL equals NULL
    assert not bird_equal([(1,)], [("1",)])
    assert not bird_equal([(1, 2)], [(2, 1)])  # no column permutation in BIRD
    assert bird_equal([], [])
    assert not bird_equal([(1,)], [])


def test_spider_order_matters_is_a_text_test():
    assert spider_order_matters("SELECT a FROM t ORDER BY a")
    assert spider_order_matters("select a from t where a = (select a from t order by b limit 1)")
    assert spider_order_matters("SELECT a FROM t WHERE s = 'Order By'")
    assert not spider_order_matters("SELECT a FROM t ORDER  BY a")  # two spaces: not found
    assert not spider_order_matters("SELECT a FROM t GROUP BY a")


def test_spider_equal_fixtures():
    # columns may be permuted
    assert spider_equal([(1, 2)], [(2, 1)], False)
    # bags: 1 twice vs 2 twice
    assert not spider_equal([(1,), (1,), (2,)], [(1,), (2,), (2,)], False)
    # row order counts only when asked
    assert spider_equal([(1,), (2,)], [(2,), (1,)], False)
    assert not spider_equal([(1,), (2,)], [(2,), (1,)], True)
    # a column permutation under ordering: swap the columns of every row
    assert spider_equal([(1, 2), (3, 4)], [(2, 1), (4, 3)], True)
    assert not spider_equal([(1, 2), (3, 4)], [(4, 3), (2, 1)], True)
    assert spider_equal([(1, 2), (3, 4)], [(4, 3), (2, 1)], False)
    # sorted cells agree ({(1,2)} both), but no one permutation fits every row
    assert not spider_equal([(1, 2), (2, 1)], [(1, 2), (1, 2)], False)
    # empties, counts and widths
    assert spider_equal([], [], True)
    assert not spider_equal([(1,)], [], False)
    assert not spider_equal([(1,), (1,)], [(1,)], False)
    assert not spider_equal([(1, 2)], [(1,)], False)
    # Python equality of cells
    assert spider_equal([(1, None)], [(None, 1.0)], False)
    assert not spider_equal([(1,)], [("1",)], False)
    # the quick reject sorts cells by str(x) + str(type(x)): (1, 1.5) becomes (1.5, 1)
    # since '.' < '<', while (1.0, 1.5) stays; the sorted rows differ, so test-suite
    # rejects a pair that the identity permutation would accept
    assert not spider_equal([(1, 1.5)], [(1.0, 1.5)], False)


def test_spider_equal_many_columns():
    gold = [(1, 2, 3, 4, 5), (6, 7, 8, 9, 10), (1, 2, 3, 4, 5)]
    assert spider_equal(gold, [tuple(reversed(r)) for r in gold], True)
    # every column holds {a, b} once, so all 4! column matches pass the per-column test;
    # rows must pair up: pred columns (2, 3, 0, 1) of gold work, with rows in any order
    gold = [("a", "a", "b", "b"), ("b", "b", "a", "a")]
    assert spider_equal(gold, [("b", "b", "a", "a"), ("a", "a", "b", "b")], False)
    # every row sorts to (a, a, b, b) and every gold column has a pred column with the
    # same bag, but pred repeats a row and gold does not; a column permutation maps
    # distinct rows to distinct rows, so no permutation fits
    gold3 = [*gold, ("a", "b", "a", "b")]
    assert not spider_equal(gold3, [*gold, ("a", "a", "b", "b")], False)
    # eight identical columns: found without trying 8! permutations
    wide = [tuple([1] * 8), tuple([2] * 8)]
    assert spider_equal(wide, list(reversed(wide)), False)


def brute_force_result_eq(gold: list[tuple], pred: list[tuple], ordered: bool) -> bool:
    """test-suite's documented result_eq, written out with every column permutation."""
    if not gold and not pred:
        return True
    if len(gold) != len(pred) or len(gold[0]) != len(pred[0]):
        return False

    def cells_sorted(rows):
        return [tuple(sorted(r, key=lambda x: str(x) + str(type(x)))) for r in rows]

    sg, sp = cells_sorted(gold), cells_sorted(pred)
    if (sg != sp) if ordered else (set(sg) != set(sp)):
        return False
    for perm in permutations(range(len(gold[0]))):
        moved = [tuple(r[j] for j in perm) for r in pred]
        if moved == gold if ordered else Counter(moved) == Counter(gold):
            return True
    return False


CELL = st.sampled_from([None, 0, 1, 1.0, 2, 1.5, "1", "a", "b"])


@st.composite
def table_pairs(draw):
    width = draw(st.integers(1, 4))
    rows = st.lists(st.tuples(*[CELL] * width), min_size=0, max_size=5)
    gold = draw(rows)
    if draw(st.booleans()):  # a reshuffle of gold, often equal
        perm = draw(st.permutations(range(width)))
        pred = draw(st.permutations([tuple(r[j] for j in perm) for r in gold]))
    else:
        pred = draw(rows)
    return gold, list(pred)


@settings(max_examples=400, deadline=None)
@given(table_pairs(), st.booleans())
def test_spider_equal_matches_brute_force(pair, ordered):
    gold, pred = pair
    assert spider_equal(gold, pred, ordered) == brute_force_result_eq(gold, pred, ordered)


# --------------------------------------------------------------------------- ex_test


def test_ex_test_outcomes(db):
    gold = "SELECT name, price FROM item WHERE price > 2"
    ok = ex_test(db, gold, "SELECT name, price FROM item WHERE price >= 2.5", "bird")
    assert (ok.correct, ok.reason) == (True, "results equal")
    # BIRD: sets, so duplicates do not matter (ink and pad both cost 7.0)
    dup = ex_test(db, "SELECT price FROM item WHERE price > 2",
                  "SELECT DISTINCT price FROM item WHERE price > 2", "bird")
    assert dup.correct is True
    # Spider: bags, so they do (2.5, 7.0, 7.0 vs 2.5, 7.0)
    assert ex_test(db, "SELECT price FROM item WHERE price > 2",
                   "SELECT DISTINCT price FROM item WHERE price > 2", "spider").correct is False
    # permuted columns: right for Spider, wrong for BIRD
    swapped = "SELECT price, name FROM item WHERE price > 2"
    assert ex_test(db, gold, swapped, "spider").correct is True
    wrong = ex_test(db, gold, swapped, "bird")
    assert wrong.correct is False
    assert wrong.reason == "results differ (3 gold rows, 3 predicted rows)"
    # gold has ORDER BY: Spider compares lists
    ordered = "SELECT name FROM item ORDER BY id"
    assert ex_test(db, ordered, "SELECT name FROM item ORDER BY id DESC", "spider").correct is False
    assert ex_test(db, ordered, "SELECT name FROM item ORDER BY id DESC", "bird").correct is True


def test_ex_test_failures(db, tmp_path):
    gold_bad = ex_test(db, "SELECT * FROM nowhere", "SELECT 1", "bird")
    assert gold_bad.correct is None
    assert gold_bad.reason == "gold failed on the database: no such table: nowhere"
    slow_gold = ex_test(db, RUNAWAY, "SELECT 1", "spider", time_limit=0.3)
    assert slow_gold.correct is None and "timed out" in slow_gold.reason
    assert slow_gold.reason.startswith("gold failed on the database")
    none = ex_test(db, "SELECT 1", None, "bird")
    assert (none.correct, none.reason) == (False, "no prediction")
    assert ex_test(db, "SELECT 1", "  ", "bird").reason == "no prediction"
    bad = ex_test(db, "SELECT name FROM item", "SELECT nam FROM item", "bird")
    assert (bad.correct, bad.reason) == (False, "prediction failed: no such column: nam")
    slow = ex_test(db, "SELECT 1", RUNAWAY, "bird", time_limit=0.3)
    assert slow.correct is False and slow.reason.startswith("prediction timed out")
    assert slow.pred_seconds < 2.0
    missing = tmp_path / "none" / "none.sqlite"
    gone = ex_test(missing, "SELECT 1", "SELECT 1", "bird")
    assert gone.correct is None and str(missing) in gone.reason
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database " * 100)
    broken = ex_test(junk, "SELECT 1", "SELECT 1", "bird")
    assert broken.correct is None and str(junk) in broken.reason
    with pytest.raises(InputError):
        ex_test(db, "SELECT 1", "SELECT 1", "wikisql")


def test_prediction_time_limit_follows_gold(db, monkeypatch):
    limits = []

    def fake_execute(conn, sql, time_limit):
        limits.append(time_limit)
        return Execution([(1,)], None, 2.0 if sql == "gold" else 0.1)

    monkeypatch.setattr(extest, "execute", fake_execute)
    result = ex_test(db, "gold", "pred", "bird", time_limit=5.0)
    assert limits == [5.0, 5.0 + 3 * 2.0]
    assert (result.correct, result.gold_seconds, result.pred_seconds) == (True, 2.0, 0.1)


# --------------------------------------------------------------------------- layouts


def test_database_path_layouts(tmp_path):
    flat = make_db(tmp_path / "flat" / "shop" / "shop.sqlite")
    assert database_path(tmp_path / "flat", "shop", "bird") == flat
    assert database_path(tmp_path / "flat", "shop", "spider") == flat
    bird = make_db(tmp_path / "b" / "dev_databases" / "shop" / "shop.sqlite")
    assert database_path(tmp_path / "b", "shop", "bird") == bird
    spider = make_db(tmp_path / "s" / "database" / "shop" / "shop.sqlite")
    assert database_path(str(tmp_path / "s"), "shop", "spider") == spider
    with pytest.raises(InputError) as info:
        database_path(tmp_path / "s", "shop", "bird")  # Spider's layout is not BIRD's
    message = str(info.value)
    assert str(tmp_path / "s" / "shop" / "shop.sqlite") in message
    assert str(tmp_path / "s" / "dev_databases" / "shop" / "shop.sqlite") in message
    with pytest.raises(InputError, match="unknown benchmark"):
        database_path(tmp_path, "shop", "wikisql")
