"""Self-contained discrepancy cases: written by the fuzzer, replayed by tests.

A reproducer is one JSON file naming the claim it refutes (``expression``:
Thm 1, ``tables``: Thm 2, ``query_pair``: end to end, ``window``: Thm 1 for
window functions, ``relation``: Thm 1 for queries on small tables, ``rules``: the
canonical-form rules) and everything needed
to re-run it without the fuzzer: the schema, the expression or queries, the
concrete row, tables or database, and both sides' answers when it was found.
``replay`` re-runs the check and returns its fresh outcome, so a fixed bug's
reproducer becomes a regression test (``tests/regressions/``).
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from pathlib import Path
from typing import Any

from spotit.proofs.pinned import PinnedCase, check_pinned
from spotit.proofs.queries import FUZZ_DDL, check_query_pair
from spotit.proofs.relations import QueryCase, check_query
from spotit.proofs.rules import check_rules
from spotit.proofs.tables import TableCase, check_tables
from spotit.proofs.windows import WindowCase, check_window


def write(directory: str | Path, case: dict[str, Any]) -> Path:
    """Save ``case`` under a name derived from its content (same case, same file)."""
    path = Path(directory)
    path.mkdir(parents=True, exist_ok=True)
    body = json.dumps(case, indent=2, sort_keys=True, default=str)
    digest = hashlib.sha1(body.encode()).hexdigest()[:10]
    out = path / f"{case['part']}-{case.get('solver', 'any')}-{digest}.json"
    out.write_text(body + "\n", encoding="utf-8")
    return out


def expression_case(case: PinnedCase, solver: str, outcome) -> dict[str, Any]:
    return {
        "part": "expression", "claim": "Thm 1", "solver": solver,
        "columns": [list(c) for c in case.columns], "row": list(case.row),
        "generated": [list(c) for c in case.generated], "checks": list(case.checks),
        "expr": case.expr, "now": case.now.isoformat(sep=" "), "data": case.data,
        "sqlite_value": outcome.sqlite_value, "encoded_value": outcome.encoded_value,
        "detail": outcome.detail,
    }


def tables_case(case: TableCase, solver: str, outcome) -> dict[str, Any]:
    return {
        "part": "tables", "claim": "Thm 2", "solver": solver, "width": case.width,
        "semantics": case.semantics,
        "rows1": [list(r) for r in case.rows1], "rows2": [list(r) for r in case.rows2],
        "absent1": [list(r) for r in case.absent1], "absent2": [list(r) for r in case.absent2],
        "expected_differ": outcome.expected_differ, "formula_differ": outcome.formula_differ,
        "detail": outcome.detail,
    }


def query_pair_case(gold: str, pred: str, bound: int, solver: str, outcome,
                    ddl: str = FUZZ_DDL) -> dict[str, Any]:
    return {
        "part": "query_pair", "claim": "end to end", "solver": solver, "schema": ddl,
        "gold": gold, "pred": pred, "bound": bound, "database": outcome.database,
        "verdict": outcome.verdict, "proven_bound": outcome.proven_bound,
        "difference_at": outcome.difference_at, "detail": outcome.detail,
    }


def window_case(case: WindowCase, solver: str, outcome) -> dict[str, Any]:
    return {
        "part": "window", "claim": "Thm 1 (window functions)", "solver": solver,
        "rows": [list(r) for r in case.rows], "call": case.call,
        "sqlite_value": outcome.sqlite_value, "encoded_value": outcome.encoded_value,
        "detail": outcome.detail,
    }


def relation_case(case: QueryCase, solver: str, outcome) -> dict[str, Any]:
    return {
        "part": "relation", "claim": "Thm 1 (queries on tables)", "solver": solver,
        "rows": [list(r) for r in case.rows], "query": case.sql,
        "sqlite_value": outcome.sqlite_value, "encoded_value": outcome.encoded_value,
        "detail": outcome.detail,
    }


def rules_case(sql: str, ddl: str, outcome) -> dict[str, Any]:
    return {
        "part": "rules", "claim": "canonical-form rules", "schema": ddl, "query": sql,
        "semantics": outcome.semantics, "rules": list(outcome.rules),
        "canonical_sql": outcome.canonical_sql, "database": outcome.database,
        "original_rows": outcome.original_rows, "canonical_rows": outcome.canonical_rows,
        "detail": outcome.detail, "data": outcome.data,
    }


def load(path: str | Path) -> dict[str, Any]:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def replay(path: str | Path, solver: str | None = None):
    """Re-run a reproducer (with its own solver unless ``solver`` is given)."""
    case = load(path)
    solver = solver or case.get("solver", "z3")
    part = case["part"]
    if part == "expression":
        pinned = PinnedCase(tuple(tuple(c) for c in case["columns"]), tuple(case["row"]),
                            case["expr"], datetime.fromisoformat(case["now"]),
                            tuple(tuple(c) for c in case.get("generated", ())),
                            tuple(case.get("checks", ())), case.get("data", "declared"))
        return check_pinned(pinned, solver)
    if part == "tables":
        return check_tables(TableCase(
            case["width"], tuple(map(tuple, case["rows1"])), tuple(map(tuple, case["rows2"])),
            tuple(map(tuple, case["absent1"])), tuple(map(tuple, case["absent2"])),
            case["semantics"]), solver)
    if part == "query_pair":
        return check_query_pair(case["gold"], case["pred"], solver, case["bound"],
                                ddl=case["schema"], known_database=case.get("database"))
    if part == "window":
        return check_window(WindowCase(tuple(map(tuple, case["rows"])), case["call"]), solver)
    if part == "relation":
        return check_query(QueryCase(tuple(map(tuple, case["rows"])), case["query"]), solver)
    if part == "rules":
        sems = (case["semantics"],) if case.get("semantics") else ("set", "bag", "list")
        return check_rules(case["query"], case["schema"], semantics=sems,
                           known_database=case.get("database"),
                           data=case.get("data") or "declared")
    raise ValueError(f"{path}: unknown reproducer part {part!r}")
