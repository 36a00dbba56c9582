"""Proofs by one row per table (``spotit.canonical.rowwise``): select-project-join
queries over the same tables, each read once, differ on some database only if they
differ on one row per table. Proved pairs are confirmed independently by SQLite on
random databases of up to six rows per table; look-alikes that agree on every
one-row database but not on larger ones must not be proved this way."""

from __future__ import annotations

import pytest

from spotit import check
from spotit.encodings.equivalence import Semantics
from spotit.probe import probe
from spotit.schema import schema_from_ddl

DDL = """
CREATE TABLE p (id INTEGER PRIMARY KEY, name TEXT, code TEXT);
CREATE TABLE c (id INTEGER PRIMARY KEY, pid INTEGER NOT NULL REFERENCES p (id),
                label TEXT, qty INTEGER);
"""
SCHEMA = schema_from_ddl(DDL)

PROVED = [
    # the string proofs that time out as bounded searches (issue 13)
    ("bag", "SELECT id FROM p WHERE name LIKE 'abc%'",
     "SELECT id FROM p WHERE LOWER(SUBSTR(name, 1, 3)) = 'abc'"),
    ("set", "SELECT c.label FROM c JOIN p ON c.pid = p.id WHERE p.code LIKE 'x_'",
     "SELECT c.label FROM p, c WHERE p.id = c.pid AND LENGTH(p.code) = 2 "
     "AND LOWER(SUBSTR(p.code, 1, 1)) = 'x'"),
    ("bag", "SELECT qty * 2 FROM c WHERE qty BETWEEN 1 AND 3",
     "SELECT qty + qty FROM c WHERE qty >= 1 AND NOT qty > 3"),
]

# the same context around select-project-join parts equal as bags (congruence)
PROVED_IN_CONTEXT = [
    ("bag", "SELECT COUNT(*) FROM c JOIN p ON c.pid = p.id WHERE p.name LIKE 'abc%'",
     "SELECT COUNT(c.id) FROM p JOIN c ON p.id = c.pid "
     "WHERE LOWER(SUBSTR(p.name, 1, 3)) = 'abc'"),
    ("list", "SELECT p.code, SUM(c.qty) FROM c JOIN p ON c.pid = p.id "
     "WHERE p.name LIKE 'ab' GROUP BY p.code ORDER BY p.code",
     "SELECT p.code, SUM(c.qty) FROM p JOIN c ON p.id = c.pid "
     "WHERE LOWER(p.name) = 'ab' GROUP BY p.code ORDER BY p.code"),
]

NOT_PROVED = [
    ("the parts agree as bags but bring different collations to DISTINCT", "set",
     "SELECT DISTINCT x FROM (SELECT name COLLATE NOCASE AS x FROM p)",
     "SELECT DISTINCT x FROM (SELECT name AS x FROM p)"),
    # (why one row per table is not enough, semantics, gold, pred)
    ("a self-join combines two rows of one table", "bag",
     "SELECT a.id FROM p AS a, p AS b WHERE a.id = b.id", "SELECT a.id FROM p AS a, p AS b"),
    ("the foreign key makes them agree on one row per table only", "bag",
     "SELECT c.id FROM c JOIN p ON c.pid = p.id", "SELECT c.id FROM c, p"),
    ("DISTINCT merges rows from different combinations", "bag",
     "SELECT DISTINCT name FROM p", "SELECT name FROM p"),
]


def sqlite_difference(gold: str, pred: str, semantics: str):
    return probe(SCHEMA, gold, pred, Semantics(semantics), trials=2000, seconds=30,
                 max_rows=6, seed=3)


@pytest.mark.parametrize("solver", ["z3", "cvc5"])
@pytest.mark.parametrize("semantics,gold,pred", PROVED, ids=range(len(PROVED)))
def test_proved_with_one_row_per_table(solver, semantics, gold, pred):
    res = check(SCHEMA, gold, pred, semantics=semantics, bound=5, solver=solver, timeout=60)
    assert res.verdict.value == "equivalent", res.reason
    assert res.unbounded and res.proof in ("one row per table", "canonical form")
    assert sqlite_difference(gold, pred, semantics) is None


@pytest.mark.parametrize("semantics,gold,pred", PROVED_IN_CONTEXT,
                         ids=range(len(PROVED_IN_CONTEXT)))
def test_proved_in_context(semantics, gold, pred):
    res = check(SCHEMA, gold, pred, semantics=semantics, bound=5, timeout=60)
    assert res.verdict.value == "equivalent", res.reason
    assert res.unbounded and res.proof == "one row per table", res.reason
    assert sqlite_difference(gold, pred, semantics) is None


def test_one_row_proof_is_what_decides_the_like_pair():
    gold, pred = PROVED[0][1:]
    res = check(SCHEMA, gold, pred, semantics="bag", bound=5, timeout=60)
    assert res.proof == "one row per table" and res.unbounded


@pytest.mark.parametrize("why,semantics,gold,pred", NOT_PROVED,
                         ids=[w[:30] for w, *_ in NOT_PROVED])
def test_look_alikes_are_not_proved_by_one_row(why, semantics, gold, pred):
    assert sqlite_difference(gold, pred, semantics) is not None, why
    res = check(SCHEMA, gold, pred, semantics=semantics, bound=3, timeout=60)
    assert res.proof != "one row per table"
    assert res.verdict.value == "not_equivalent", res.reason
