"""The fuzz's coverage report: edge-value classes and operators, derived by hand."""

from __future__ import annotations

from collections import Counter

from spotit.proofs.coverage import EDGE_CLASSES, count, edge_classes, operators_of, warnings
from spotit.proofs.fuzz import FuzzReport


def test_each_edge_class_is_recognised():
    assert edge_classes((None,)) == {"null"}
    assert edge_classes(("",)) == {"empty_text"}
    assert edge_classes(("12abc",)) == {"numeric_prefix_text"}
    assert edge_classes((" 12 ", "12", "-3", "abc")) == set()  # whole numbers, no prefix
    assert edge_classes(("a_c",)) == {"like_wildcards"}
    assert edge_classes(("aBc",)) == {"mixed_case"}
    # a date is numeric-prefix text too: '2020-02-29' + 0 is 2020 in SQLite
    assert edge_classes(("2020-02-29",)) == {"leap_day", "numeric_prefix_text"}
    assert edge_classes(("2019-02-29",)) == {"leap_day", "invalid_date_text",
                                             "numeric_prefix_text"}
    assert edge_classes(("2019-13-01 10:00",)) == {"invalid_date_text", "numeric_prefix_text"}
    assert edge_classes(("9223372036854775807",)) == {"long_numeric_text"}
    assert edge_classes(("1.00000000000000001",)) == {"long_numeric_text"}
    assert edge_classes(("123456789012345",)) == set()  # 15 digits: a double holds them
    assert edge_classes((2**62,)) == {"int_overflow_edge"}
    assert edge_classes((0.5,)) == {"real"}
    # 0.1 and 0.285 are no doubles (0.1's double is 0.1000000000000000055...): exact
    # arithmetic and SQLite's doubles part there; 0.5 and 1e10 are doubles
    assert edge_classes((0.1,)) == edge_classes((-0.285,)) == {"real", "inexact_decimal"}
    assert edge_classes((100.0, 2.5e-3)) == {"real", "inexact_decimal"}  # 0.0025 is not
    assert edge_classes((100.0, -2.25)) == {"real"}


def test_literals_count_and_strings_hide_their_digits():
    assert edge_classes((1,), "s LIKE '%a'") == {"like_wildcards"}
    assert edge_classes((1,), "'1.5' || s") == set()  # a whole number, and no REAL literal
    assert edge_classes((1,), "r + 1.5") == {"real"}
    assert edge_classes((1,), "ROUND(r, 2) = 2.675") == {"real", "inexact_decimal"}
    assert edge_classes((1,), "s || '0.1'") == set()  # text, not a REAL
    assert edge_classes((1,), "i IS NULL") == {"null"}


def test_functions_are_read_from_the_text():
    # IIF is no registered function (the binder makes it a CASE): not counted as one
    assert operators_of(None, "IIF(SUBSTR(s, 1), (+ 3), CURRENT_DATE)") == {
        "SUBSTR", "+", "CURRENT_DATE"}


def test_a_generated_column_counts_only_where_the_expression_reads_it():
    # the fuzz table's generated columns (gi = r * 2, gt = i + n, gn = s || '', gs =
    # UPPER(sr)) are computed under every expression; ABS(i) uses no arithmetic, and a
    # column's name inside a text literal reads nothing
    from spotit.proofs.fuzz import _pinned
    from spotit.proofs.pinned import _schema, bound_plan

    def reached(expr: str) -> set[str]:
        case = _pinned((None,) * 9, expr)
        return operators_of(bound_plan(case.sql, _schema(case.ddl, "declared"), None), expr)

    assert reached("ABS(i)") == {"ABS", "CALL"}
    assert reached("ABS(gi)") == {"ABS", "CALL", "ARITH", "STOREDAS"}
    assert reached("('gi' || i)") == {"CONCAT"}
    assert reached("EXISTS (SELECT 1 FROM t AS t2 WHERE t2.gt = 'x')") == {
        "EXISTS", "COMPARE", "ARITH", "STOREDAS"}


def test_warnings_name_what_no_case_reached():
    cov: dict[str, Counter] = {}
    count(cov, {"LIKE"}, (None, "a%"), "s LIKE 'a%'")
    found = warnings(cov, {"LIKE", "SUBSTR"})
    assert "operator SUBSTR was exercised by no expression" in found
    assert not any("LIKE" in w for w in found)
    assert {w.split("'")[1] for w in found if w.startswith("edge")} == \
        set(EDGE_CLASSES) - {"null", "like_wildcards"}


def test_the_report_carries_the_counts_and_warns_only_after_a_minute():
    report = FuzzReport(expressions_checked=1, expected_operators=frozenset({"SUBSTR"}))
    count(report.coverage, {"LIKE"}, ("",), "s LIKE 'x'")
    report.seconds = 5
    assert report.to_json()["coverage"]["operators"] == {"LIKE": 1}
    assert report.to_json()["coverage_warnings"] == []
    report.seconds = 61
    assert "operator SUBSTR was exercised by no expression" in report.to_json()[
        "coverage_warnings"]
    assert "WARNING: operator SUBSTR" in report.summary()


def test_a_checks_budget_stops_the_run_once_reached(tmp_path):
    """``--checks``: the cheapest part (table pairs) runs first; one check asked for,
    the run stops after that part's search instead of running the others."""
    from spotit.proofs.fuzz import fuzz

    report = fuzz(checks=1, seed=5, out_dir=tmp_path)
    assert report.tables_checked >= 1 and report.theorem_checks == report.tables_checked
    assert report.expressions_checked == report.query_pairs_checked == 0


def test_focused_expressions_reach_every_function():
    """Three Thm 1 expressions in four are focused: the outermost operator or function
    is drawn uniformly, so in a few hundred draws every registered scalar function
    that takes an argument is outermost somewhere (a free draw reached SUBSTR or ROUND
    a handful of times a minute; CURRENT_DATE, which cannot read a column, is reached
    inside free ones). The function names are read back from the text, as the
    coverage report reads them."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed

    from spotit.encodings import registry
    from spotit.proofs.generators import focusable_operator_names, focused_expressions

    drawn: list[str] = []

    @hypothesis_seed(5)
    @settings(max_examples=1500, database=None, deadline=None, phases=(Phase.generate,),
              suppress_health_check=list(HealthCheck))
    @given(focused_expressions())
    def collect(expr):
        drawn.append(expr.upper())

    collect()
    functions = [n.upper() for n in registry.FUNCTIONS
                 if n.upper() in focusable_operator_names() and n.isalpha()]
    assert "CURRENT_DATE" in registry.FUNCTIONS and "CURRENT_DATE" not in functions
    missing = [f for f in functions if not any(f"{f}(" in e for e in drawn)]
    assert len(functions) > 20 and not missing, missing


def test_the_summary_says_how_often_the_only_operator_ran():
    report = FuzzReport(solvers=("z3",), seed=0, only="SIGN")
    report.coverage["operators"] = Counter({"SIGN": 7, "ABS": 2})
    assert "--only SIGN: exercised 7 time(s)" in report.summary()
    report.coverage["operators"] = Counter({"ABS": 2})
    assert "--only SIGN: exercised 0 time(s) in the checked expressions (WARNING: never)" \
        in report.summary()


def test_unsupported_expressions_are_counted_by_reason():
    from types import SimpleNamespace

    from spotit.proofs.fuzz import _tally

    report = FuzzReport(solvers=("z3",), seed=0)
    for detail in ("date modifier '+3 days' on a time value", "date modifier '+4 days' on a "
                   "time value", "STRFTIME with a non-constant format"):
        _tally(report, SimpleNamespace(kind="unsupported", detail=detail))
    assert report.unsupported == 3
    assert report.unsupported_reasons.most_common(1)[0][1] == 2  # one cause, counted once
    assert "2 date modifier … on a time value; 1 STRFTIME" in report.summary()


def test_reproducers_of_one_finding_are_grouped():
    from spotit.proofs.fuzz import Discrepancy

    report = FuzzReport(solvers=("z3", "cvc5"), seed=0)
    report.discrepancies = [
        Discrepancy("expressions", "z3", "SIGN('12abc'): SQLite NULL, encoding 1", "a.json"),
        Discrepancy("expressions", "cvc5", "SIGN('7abc'): SQLite NULL, encoding 1", "b.json"),
        Discrepancy("tables", "z3", "another claim", "c.json"),
    ]
    assert [len(g) for g in report.findings()] == [2, 1]
    text = report.summary()
    assert "3 (0 crashes; 2 distinct)" in text
    assert "-> a.json (and 1 more reproducer(s) of it: b.json)" in text
