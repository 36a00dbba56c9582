"""A bundled example: the gold-query bug from the SpotIt paper (BIRD, thrombosis).

The gold query writes ``rnp != '-' OR '+-'``: the string ``'+-'`` in a boolean
context is the number 0 (FALSE), so the condition silently loses its second
half. SpotIt finds a two-table database on which it differs from the intended
query, and SQLite confirms it.
"""

from __future__ import annotations

SCHEMA = """
CREATE TABLE Patient (ID INTEGER PRIMARY KEY, SEX TEXT, Birthday DATE);
CREATE TABLE Laboratory (
  ID INTEGER NOT NULL REFERENCES Patient(ID),
  Date DATE NOT NULL,
  RNP TEXT,
  PRIMARY KEY (ID, Date)
);
"""

GOLD = ("SELECT T1.Birthday FROM Patient AS T1 INNER JOIN Laboratory AS T2 ON T1.ID = T2.ID "
        "WHERE T2.RNP != '-' OR '+-' ORDER BY T1.Birthday DESC LIMIT 1")
PRED = ("SELECT T1.Birthday FROM Patient AS T1 INNER JOIN Laboratory AS T2 ON T1.ID = T2.ID "
        "WHERE T2.RNP != '-' AND T2.RNP != '+-' ORDER BY T1.Birthday DESC LIMIT 1")


def run_example(solver: str = "z3") -> str:
    from spotit.pipeline import check, coerce_schema
    from spotit.report import format_result

    res = check(SCHEMA, GOLD, PRED, bound=3, solver=solver)
    header = f"gold: {GOLD}\npred: {PRED}\n"
    return header + format_result(res, coerce_schema(SCHEMA))
