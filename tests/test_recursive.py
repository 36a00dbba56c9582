"""Recursive CTEs: unrolled round by round, exact where the recursion stops within the
rounds on every database of the bound, ``unsupported`` where it may not, and every
counterexample confirmed on SQLite. Expected values are SQLite's own."""

from __future__ import annotations

import sqlite3

import pytest

import spotit

DDL = ("CREATE TABLE emp (id INTEGER PRIMARY KEY, boss INTEGER, name TEXT);"
       "CREATE TABLE s (csv TEXT);")
COUNT = "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < {}) "
WALK = ("WITH RECURSIVE r(id) AS (SELECT id FROM emp WHERE boss IS NULL {} "
        "SELECT e.id FROM emp e JOIN r ON e.boss = r.id) SELECT COUNT(*) FROM r")
SPLIT = ("WITH RECURSIVE sp(w, rest) AS (SELECT '', csv || ',' FROM s UNION ALL "
         "SELECT SUBSTR(rest, 1, INSTR(rest, ',') - 1), SUBSTR(rest, INSTR(rest, ',') + 1) "
         "FROM sp WHERE rest <> '') SELECT w FROM sp WHERE w <> ''")


def sqlite_value(sql: str):
    conn = sqlite3.connect(":memory:")
    conn.executescript(DDL)
    return conn.execute(sql).fetchall()


def test_counting_sequence_with_or_without_the_keyword():
    q = COUNT.format(10) + "SELECT SUM(n) FROM c"
    assert sqlite_value(q) == [(55,)]
    for sql in (q, q.replace("WITH RECURSIVE", "WITH")):
        r = spotit.check(DDL, sql, "SELECT 55", bound=2)
        assert r.verdict.value == "equivalent", r.reason
        r = spotit.check(DDL, sql, "SELECT 56", bound=2)
        assert r.verdict.value == "not_equivalent"


def test_a_changed_condition_is_refuted_and_confirmed():
    r = spotit.check(DDL, COUNT.format(10) + "SELECT n FROM c",
                     COUNT.replace("n < {}", "n <= {}").format(10) + "SELECT n FROM c",
                     bound=2)
    assert r.verdict.value == "not_equivalent"
    assert sorted(r.pred_result) == sorted([*r.gold_result, (11,)])


def test_recursion_deeper_than_the_rounds_is_unrolled_further():
    """A sequence past the first rounds (12 months, 30 days) has the rounds doubled
    until it ends within them; one whose depth the data decide, past 16 times the
    rounds on some database, stays unsupported."""
    q = COUNT.format(30) + "SELECT COUNT(*) FROM c"
    r = spotit.check(DDL, q, "SELECT 30", bound=2)
    assert r.verdict.value == "equivalent", r.reason
    assert spotit.check(DDL, q, "SELECT 31", bound=2).verdict.value == "not_equivalent"
    # 1, 2, ... up to the largest boss: a boss of 10**9 needs that many rounds (n is
    # never NULL, so COUNT(n) is COUNT(*): the same on every database, by hand)
    deep = COUNT.format("(SELECT MAX(boss) FROM emp)") + "SELECT COUNT(*) FROM c"
    same = deep.replace("COUNT(*)", "COUNT(n)")
    r = spotit.check(DDL, deep, same, bound=2)
    assert r.verdict.value == "unsupported" and "deeper than 160 rounds" in r.reason
    r = spotit.check(DDL, deep, same, bound=2, recursion_depth=5)
    assert r.verdict.value == "unsupported" and "deeper than 80 rounds" in r.reason


def test_a_recursion_the_same_on_every_database_runs_to_its_end():
    """A count to 1,000 or a calendar of 2021's days reads no table: its rounds are
    constants, run to their end however many (up to 4,096 rows), where an unrolled
    recursion stops at 160 rounds. By hand: 1,000 numbers, 365 days (2021 is not a leap
    year); x IN 1..200 is x BETWEEN 1 AND 200 for an INTEGER x. Past 4,096 rows the
    rounds are bounded again."""
    far = COUNT.format(1000) + "SELECT COUNT(*) FROM c"
    assert sqlite_value(far) == [(1000,)]
    r = spotit.check(DDL, far, "SELECT 1000", bound=2)
    assert r.verdict.value == "equivalent", r.reason
    assert spotit.check(DDL, far, "SELECT 999", bound=2).verdict.value == "not_equivalent"
    days = ("WITH RECURSIVE d(day) AS (SELECT '2021-01-01' UNION ALL SELECT date(day, "
            "'+1 day') FROM d WHERE day < '2021-12-31') SELECT COUNT(*), MAX(day) FROM d")
    assert sqlite_value(days) == [(365, "2021-12-31")]
    r = spotit.check(DDL, days, "SELECT 365, '2021-12-31'", bound=2)
    assert r.verdict.value == "equivalent", r.reason
    within = COUNT.format(200) + "SELECT id FROM emp WHERE boss IN (SELECT n FROM c)"
    r = spotit.check(DDL, within, "SELECT id FROM emp WHERE boss BETWEEN 1 AND 200",
                     bound=2)
    assert r.verdict.value == "equivalent", r.reason
    r = spotit.check(DDL, within, within.replace("n < 200", "n < 150"), bound=2)
    assert r.verdict.value == "not_equivalent", r.reason
    beyond = COUNT.format(5000) + "SELECT COUNT(*) FROM c"
    r = spotit.check(DDL, beyond, "SELECT 5000", bound=2)
    assert r.verdict.value == "unsupported" and "deeper than" in r.reason


def test_a_candidate_past_the_rounds_unrolls_more_instead_of_being_spurious():
    """On 10 rounds a row of emp with boss = 14 finds no match among 1..11, a difference
    SQLite (which runs all 15 rounds) does not confirm; with more rounds the solver
    proves what holds by hand: each boss in 1..15 matches exactly one n."""
    q = COUNT.format(15) + "SELECT COUNT(*) FROM c, emp WHERE boss = n"
    r = spotit.check(DDL, q, "SELECT COUNT(*) FROM emp WHERE boss BETWEEN 1 AND 15",
                     bound=2)
    assert r.verdict.value == "equivalent", r.reason


def test_walking_a_hierarchy():
    # emp.id is a key and each row names one boss, so from the roots every employee is
    # reached along one path: UNION and UNION ALL count the same (hand derivation)
    r = spotit.check(DDL, WALK.format("UNION"), WALK.format("UNION ALL"), bound=2)
    assert r.verdict.value == "equivalent", r.reason
    # from every employee, not only the roots, UNION ALL reaches an employee twice (from
    # itself and from its boss): 3 rows against 2 on (1, boss NULL), (2, boss 1)
    every = WALK.replace("WHERE boss IS NULL", "")
    conn = sqlite3.connect(":memory:")
    conn.executescript(DDL + "INSERT INTO emp VALUES (1, NULL, 'a'), (2, 1, 'b');")
    assert conn.execute(every.format("UNION")).fetchall() == [(2,)]
    assert conn.execute(every.format("UNION ALL")).fetchall() == [(3,)]
    r = spotit.check(DDL, every.format("UNION"), every.format("UNION ALL"), bound=2,
                     timeout=30)
    assert r.verdict.value == "not_equivalent"


def test_string_splitting():
    r = spotit.check(DDL, SPLIT, SPLIT, bound=2)
    assert r.verdict.value == "equivalent"
    r = spotit.check(DDL, SPLIT, SPLIT.replace("INSTR(rest, ',') + 1", "INSTR(rest, ',') + 2"),
                     bound=2)
    assert r.verdict.value == "not_equivalent" and r.counterexample is not None


@pytest.mark.parametrize("sql,what", [
    (COUNT.format(3) + "SELECT n FROM c LIMIT 2", None),
    ("WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 3 LIMIT 2) "
     "SELECT n FROM c", "ORDER BY or LIMIT"),
    ("WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT c1.n + 1 FROM c AS c1, c AS c2 "
     "WHERE c1.n < 3) SELECT n FROM c", "multiple references to recursive table"),
])
def test_shapes_outside_the_fragment_are_named(sql, what):
    r = spotit.check(DDL, sql, sql + " ", bound=1)
    if what is None:
        assert r.verdict.value != "unsupported"
    else:
        assert r.verdict.value in ("unsupported", "error") and what in r.reason, r.reason



CHOP = ("WITH RECURSIVE r(x) AS (SELECT csv FROM s {} UNION ALL SELECT SUBSTR(x, 2) FROM r "
        "WHERE x <> '') SELECT x FROM r")


def test_a_bound_whose_recursion_may_not_stop_leaves_the_larger_ones_searched():
    """Chopping a text one letter a round goes as deep as the text is long: no bound can
    be proven. The prediction starts only from the largest text, which is every text of
    a one-row table (by hand: MAX of one value is that value, NULL included, and IS
    matches NULL), so a difference needs two rows: the solver alone (no random search)
    finds it at k = 2, where it used to stop at k = 1."""
    gold = CHOP.format("")
    pred = CHOP.format("WHERE csv IS (SELECT MAX(csv) FROM s)")
    r = spotit.check(DDL, gold, pred, bound=3, probe_trials=0, recursion_depth=2)
    assert r.verdict.value == "not_equivalent", r.reason
    assert len(r.counterexample["s"]) == 2
    assert sorted(map(repr, r.gold_result)) != sorted(map(repr, r.pred_result))


def test_a_pair_no_bound_can_prove_is_never_equivalent():
    """The same searched up to the bound without a difference is still not
    `equivalent` -- `unsupported` where the solver shows a database deeper than the
    rounds, `timeout` where it did not decide in its share of the time (a busy machine)
    -- saying how far the search went: the rounds were never shown to be enough."""
    gold = CHOP.format("")
    r = spotit.check(DDL, gold, gold + " WHERE x = x OR x IS NULL", bound=2, probe_trials=0,
                     recursion_depth=2)
    assert r.verdict.value in ("unsupported", "timeout"), r.reason
    assert "rounds" in r.reason and "k=2" in r.reason  # searched up to the bound
    if r.verdict.value == "unsupported":  # the stop check decided: it says how deep
        assert "deeper than 32 rounds" in r.reason, r.reason
        assert "no counterexample up to k=2" in r.reason, r.reason
