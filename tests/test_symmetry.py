"""The bounded search keeps a table's present rows in increasing integer key (a
lex-leader cut of the k! orders of the same rows): it must lose no database up to
row order -- counterexamples that need several rows are still found, a database
pinned in any row order is still a model -- and it must be in force."""

from __future__ import annotations

from spotit import check
from spotit.encodings.equivalence import Semantics
from spotit.pipeline import Checker, CheckOptions
from spotit.schema import schema_from_ddl
from spotit.smt.printer import SmtLibWriter
from spotit.solvers import get_solver

SCHEMA = schema_from_ddl("CREATE TABLE t (id INTEGER PRIMARY KEY, g INTEGER, v INTEGER);")
# differ only when a group has three rows: COUNT(*) > 2 against COUNT(*) > 3
# (both read the key, so the cut applies)
GOLD = "SELECT g, MIN(id) FROM t GROUP BY g HAVING COUNT(*) > 2"
PRED = "SELECT g, MIN(id) FROM t GROUP BY g HAVING COUNT(*) > 3"


def test_counterexample_needing_several_rows_is_found_in_key_order():
    res = check(SCHEMA, GOLD, PRED, semantics="bag", bound=3, probe_trials=0)
    assert res.verdict.value == "not_equivalent", res.reason
    rows = res.counterexample["t"]
    assert len(rows) == 3
    ids = [r["id"] if isinstance(r, dict) else r[0] for r in rows]
    assert ids == sorted(ids)  # the cut is in force on the solver's database


def test_a_database_pinned_in_any_row_order_is_still_a_model():
    checker = Checker(SCHEMA, CheckOptions(bound=3, semantics=Semantics.BAG))
    gold, pred = checker.plan(GOLD, "gold"), checker.plan(PRED, "pred")
    enc, assertions = checker.encode(3, gold, pred)
    assert enc.db._ordered_key(SCHEMA.require_table("t")) == 0  # the cut is in force
    rows = {"t": [(9, 1, 0), (4, 1, 0), (7, 1, 0)]}  # a difference, keys out of order
    pins = enc.db.pins(rows)
    if enc.int_strings is not None:
        pins = enc.int_strings.convert(pins)
    res = get_solver("z3").check(SmtLibWriter().script([*assertions, *pins]), timeout=30)
    assert res.is_sat
