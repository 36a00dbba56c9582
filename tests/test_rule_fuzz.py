"""The canonical-form rules under the fuzz: the plan renderer, the rules part, and a
planted wrong rule that the part must catch."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest
import sqlglot

from spotit import canonical
from spotit.ir import relational as R
from spotit.proofs import reproducers
from spotit.proofs.queries import FEATURE_SEEDS, FUZZ_DDL, FUZZ_DDL_FEATURES, SEEDS, mutant
from spotit.proofs.rules import check_rendering
from tests.fixtures import FIXTURES, load_pairs


def _seed_queries() -> list[tuple[str, str]]:
    rng = random.Random(7)
    out = []
    for ddl in (FUZZ_DDL, FUZZ_DDL_FEATURES):
        seeds = SEEDS + (FEATURE_SEEDS if ddl is FUZZ_DDL_FEATURES else ())
        for q in seeds:
            out.append((ddl, sqlglot.parse_one(q, dialect="sqlite").sql(dialect="sqlite")))
            for _ in range(2):
                picks = [(rng.randint(0, 50), rng.randint(0, 5)) for _ in range(2)]
                out.append((ddl, mutant(q, picks)))
    return out


def _fixture_queries() -> list[tuple[str, str]]:
    out = []
    for path in sorted((FIXTURES / "equiv").glob("*.sql")):
        for pair in load_pairs(path.name):
            out += [(pair.schema_ddl, pair.gold), (pair.schema_ddl, pair.pred)]
    return out


@pytest.mark.parametrize("source", ["seeds", "fixtures"])
def test_rendered_plans_give_the_querys_rows(source):
    """The renderer is exact: on many generated and hand-checked queries, the bound
    plan rendered back to SQL gives the query's rows on random databases."""
    queries = _seed_queries() if source == "seeds" else _fixture_queries()
    kinds: Counter[str] = Counter()
    for ddl, sql in queries:
        out = check_rendering(sql, ddl, databases=15)
        assert out.kind in ("ok", "skipped"), (sql, out)
        kinds[out.kind] += 1
    assert kinds["ok"] >= len(queries) // 3, kinds  # the check is not vacuous


def test_renderer_keeps_affinity_and_collation_of_references():
    """A HAVING on MAX(x) (no collation) against a NOCASE column, and a derived
    column of an expression: the rendered query compares as the original does."""
    ddl = "CREATE TABLE t (a TEXT COLLATE NOCASE, b TEXT, n INTEGER);"
    for sql in ("SELECT n FROM t GROUP BY n HAVING MAX(b) IN (SELECT a FROM t)",
                "SELECT n FROM t GROUP BY n HAVING MAX(b COLLATE BINARY) IN (SELECT a FROM t)",
                "SELECT x FROM (SELECT b || '' AS x FROM t) WHERE x = 'A'",
                "SELECT n FROM t WHERE n IN (SELECT a FROM t UNION ALL SELECT b FROM t)",
                "SELECT b FROM t WHERE b = (SELECT MAX(a COLLATE BINARY) FROM t)"):
        out = check_rendering(sql, ddl, databases=40)
        assert out.kind == "ok", (sql, out)


def test_rules_fuzz_finds_no_discrepancy(tmp_path):
    from spotit.proofs.fuzz import fuzz

    report = fuzz(examples=60, only="RULES", out_dir=tmp_path)
    assert not report.discrepancies, report.summary()
    assert report.rules_checked > 20
    assert report.expressions_checked == report.query_pairs_checked == 0
    assert report.rule_cases.get("column names", 0) > 0
    assert "queries checked (rules)" in report.summary()
    assert report.to_json()["rule_cases"] == report.rule_cases


def _drop_a_filter(plan: R.Rel, semantics: str) -> R.Rel:
    """Wrong: the outermost WHERE is dropped."""
    if isinstance(plan, R.Filter):
        return plan.input
    for name in ("input", "left"):
        child = getattr(plan, name, None)
        if isinstance(child, R.Rel):
            new = _drop_a_filter(child, semantics)
            if new is not child:
                return replace(plan, **{name: new})
    return plan


def _swap_left_join(plan: R.Rel, semantics: str) -> R.Rel:
    """Wrong: LEFT JOIN read as INNER."""
    if isinstance(plan, R.Join) and plan.kind == "LEFT":
        return replace(plan, kind="INNER")
    for name in ("input", "left", "right"):
        child = getattr(plan, name, None)
        if isinstance(child, R.Rel):
            new = _swap_left_join(child, semantics)
            if new is not child:
                return replace(plan, **{name: new})
    return plan


def _rules(monkeypatch, rules) -> None:
    """Replace the registered rules (the registry applies them; the package lists them)."""
    from spotit.canonical import registry

    monkeypatch.setattr(registry, "RULES", rules)
    monkeypatch.setattr(canonical, "RULES", rules)


@pytest.mark.parametrize("wrong", [_drop_a_filter, _swap_left_join],
                         ids=lambda f: f.__name__)
def test_fuzz_catches_a_planted_wrong_rule(wrong, monkeypatch, tmp_path):
    from spotit.proofs.fuzz import fuzz

    _rules(monkeypatch, [*canonical.RULES, canonical.Rule("planted", wrong, "wrong on purpose")])
    report = fuzz(examples=200, only="RULES", out_dir=tmp_path)
    found = [d for d in report.discrepancies if d.part == "rules"]
    assert found, report.summary()
    assert "planted" in found[0].detail
    case = reproducers.load(found[0].reproducer)
    assert "planted" in case["rules"] and case["database"] is not None
    assert reproducers.replay(found[0].reproducer).kind == "divergence"
    _rules(monkeypatch, [r for r in canonical.RULES if r.name != "planted"])
    assert reproducers.replay(found[0].reproducer).kind == "ok"


def test_a_rule_without_cases_is_a_warning(monkeypatch, tmp_path):
    from spotit.proofs.fuzz import fuzz

    _rules(monkeypatch, [*canonical.RULES,
                         canonical.Rule("idle", lambda plan, sem: plan, "never fires")])
    report = fuzz(examples=10, only="RULES", out_dir=tmp_path)
    assert "idle" in report.rules_without_cases()
    assert "WARNING: rule 'idle'" in report.summary()

