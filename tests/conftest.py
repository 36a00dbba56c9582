"""The suite's two speeds: ``python -m pytest -q`` runs the fast part (under five
minutes on two cores), ``python -m pytest -q -m slow`` the rest; ``.ci/run`` runs both.

A test goes in ``SLOW`` when one run of it takes more than about 4 s on two busy
cores (``pytest --durations=80`` shows them); a fast test must not wait on a solver's
time limit. What a slow test covers stays covered: CI runs it on every change.
"""

from __future__ import annotations

import pytest

# test functions (every parameter), by node id without parameters
SLOW = (
    "tests/test_audit.py::test_kill_minus_nine_during_an_audit_then_rerun_completes_it",
    "tests/test_bad_input.py::test_a_time_limit_is_kept_while_encoding",
    "tests/test_datetime_fraction.py::test_cell_holds_exactly_the_domain",
    "tests/test_experiments_evaluate.py::test_dask_local_cluster_gives_the_same_results",
    "tests/test_experiments_evaluate.py::test_kill_minus_nine_then_rerun_finishes_every_pair_once",
    "tests/test_fuzz_coverage.py::test_focused_expressions_reach_every_function",
    "tests/test_fuzz_schedule.py::test_sigterm_ends_a_run_with_the_summary_of_what_was_done",
    "tests/test_guide.py::test_a_function_added_as_the_guide_says",
    "tests/test_long_queries.py::test_spider2_standin_against_itself_wrapped",
    "tests/test_mutants.py::test_mutation_slice_finds_its_mutants",
    "tests/test_proofs.py::test_example_budget_is_per_solver",
    "tests/test_proofs.py::test_fuzz_finds_a_planted_bug",
    "tests/test_proofs.py::test_fuzz_jobs_split_the_budget_and_add_up",
    "tests/test_recursive.py::test_walking_a_hierarchy",
    "tests/test_recursive.py::test_recursion_deeper_than_the_rounds_is_unrolled_further",
    "tests/test_recursive.py::test_a_recursion_the_same_on_every_database_runs_to_its_end",
    "tests/test_recursive.py::test_a_bound_whose_recursion_may_not_stop_leaves_the_larger_ones_searched",
    "tests/test_recursive.py::test_a_pair_no_bound_can_prove_is_never_equivalent",
    "tests/test_relations.py::test_queries_on_pinned_tables_agree_with_sqlite",
    "tests/test_relations.py::test_query_paths_agree",
    "tests/test_relations.py::test_what_the_assertions_force_decides_without_the_solver",
    "tests/test_relations.py::test_window_paths_agree",
    "tests/test_rule_fuzz.py::test_fuzz_catches_a_planted_wrong_rule",
    "tests/test_thm1_evaluated.py::test_solver_and_evaluated_paths_agree",
    "tests/test_thm1_evaluated.py::test_thm2_paths_agree",
    "tests/test_thm1_rows.py::test_rows_and_batch_paths_agree",
    "tests/test_proofs.py::test_short_deterministic_slice_is_clean",
    "tests/test_date_modifiers.py::test_a_computed_month_move_starts_from_the_date_as_written",
    "tests/test_lookup_joins.py::test_thm1_on_lookup_joins",
    "tests/test_lookup_joins.py::test_a_chain_of_lookups_is_proved_and_refuted",
    "tests/test_nontermination.py::test_a_splitter_that_never_stops_is_refuted_with_the_reason",
    "tests/test_spider2.py::test_public_spider2_gold_against_itself",
    "tests/test_bad_input.py::test_a_long_in_list_is_decided",
    "tests/test_generator_weights.py::test_a_text_cell_is_often_empty",
    "tests/test_proofs.py::test_a_mutant_run_that_meets_a_real_bug_reports_it_not_the_mutant",
    "tests/test_proofs.py::test_a_crash_is_a_finding_and_the_run_goes_on",
)
# pairs of tests/fixtures/*.json (test_equivalence_fixtures.py::test_pair), by name:
# the solver needs seconds, or its time limit is part of the test
SLOW_PAIRS = (
    'aggregates: scalar subquery with an aggregate versus multiplying out',
    'collations: COUNT(DISTINCT) of a NOCASE column is not COUNT(DISTINCT) of its BINARY value',
    'collations: IN (SELECT a NOCASE column) compares under NOCASE when the left has no collation',
    'collations: MAX under NOCASE is not MAX under BINARY',
    'collations: ORDER BY ... COLLATE BINARY sorts upper case first',
    "collations: a UNION dedups under the first SELECT's collation",
    'collations: a foreign key to a NOCASE key matches under NOCASE',
    'dates_strings: JULIANDAY difference versus STRFTIME year difference',
    'dates_strings: REPLACE removes inner spaces, TRIM only the outer ones',
    'dates_strings: STRFTIME of text that is not a date is NULL',
    'dates_strings: a month 13 is not a date, but it matches LIKE',
    'datetimes: equal instants, different texts',
    'schema_features: a TEXT generated column stores its number as text',
    'schema_features: a generated column is its expression',
)


def pytest_collection_modifyitems(config, items):
    for item in items:
        base = item.nodeid.split("[", 1)[0]
        if base in SLOW or (base.endswith("::test_pair")
                            and any(f"[{p}-" in item.nodeid for p in SLOW_PAIRS)):
            item.add_marker(pytest.mark.slow)
