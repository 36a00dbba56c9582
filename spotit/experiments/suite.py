"""A benchmark as a family of SMT-LIB files: one per (system, question, k).

``DIR/<system>/<db_id>/q<question_id>_k<k>.smt2`` is the formula SpotIt solves for
that pair at bound k, in standard benchmark form (:func:`spotit.export.benchmark_script`),
and ``DIR/index.csv`` lists every file with its logic, status and size. Pairs that
cannot be encoded (unparseable or unsupported SQL, a schema that does not load, no
prediction) are listed with the reason in ``DIR/skipped.csv``.

A file's ``:status`` is stated only where it is *known*, from the results of
``spotit evaluate`` runs (``results``), never from one solver's say-so:

- ``sat``: a counterexample SQLite confirmed has at most k rows per table, and the
  formula with the database pinned to it is satisfiable (checked here: the solver
  only fills in the formula's auxiliary variables);
- ``unsat``: at least two different solvers proved bound k unsat for this pair.

The formats are documented in ``docs/smtlib-suite.md``.
"""

from __future__ import annotations

import csv
import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from spotit.errors import SpotItError
from spotit.experiments.inputs import Benchmark, Prediction, Question
from spotit.experiments.store import PairRecord, ResultsStore

INDEX_COLUMNS = ("file", "system", "question_id", "db_id", "k", "logic", "status",
                 "assertions", "nodes")
SKIPPED_COLUMNS = ("system", "question_id", "db_id", "reason")
PIN_TIMEOUT = 10.0  # seconds for the pinned satisfiability check of a known counterexample


@dataclass
class KnownAnswers:
    """What earlier evaluation runs established about pairs, for ``:status``."""

    unsat_by: dict[tuple, dict[int, set[str]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(set)))
    counterexamples: dict[tuple, list[dict[str, list[dict[str, Any]]]]] = field(
        default_factory=lambda: defaultdict(list))

    @staticmethod
    def pair(system: str, question_id: str, gold: str, pred: str, semantics: str,
             data: str) -> tuple:
        return (system, str(question_id), gold, pred, semantics, data)

    def add(self, record: PairRecord) -> None:
        if record.pred is None:
            return
        pair = self.pair(record.system, record.question_id, record.gold, record.pred,
                         record.semantics, record.result.get("data", "declared"))
        solver = record.result.get("solver") or ""
        for stat in record.result.get("per_bound") or []:
            if stat.get("status") != "unsat":
                continue
            # a portfolio's bound records each member's answer: "z3 unsat 0.12s, ..."
            agreeing = re.findall(r"(\w+) unsat \d", stat.get("answers") or "")
            for name in agreeing or ([solver] if solver else []):
                self.unsat_by[pair][int(stat["k"])].add(name)
        if record.verdict == "not_equivalent" and record.counterexample:
            self.counterexamples[pair].append(record.counterexample)

    def unsat(self, pair: tuple, k: int) -> bool:
        """Two different solvers proved bound k unsat (at k itself)."""
        return len(self.unsat_by.get(pair, {}).get(k, ())) >= 2

    def counterexamples_within(self, pair: tuple, k: int) -> list[dict]:
        return [cex for cex in self.counterexamples.get(pair, [])
                if max((len(rows) for rows in cex.values()), default=0) <= k]


def known_answers(results: Iterable[str | Path]) -> KnownAnswers:
    """Every record of the given results files (all runs)."""
    known = KnownAnswers()
    for path in results:
        if not Path(path).is_file():
            raise SpotItError(f"--results: no results file {path}")
        store = ResultsStore(path)
        try:
            for record in store.records():
                known.add(record)
        finally:
            store.close()
    return known


@dataclass
class SuiteSummary:
    files: int = 0
    pairs: int = 0
    skipped: int = 0
    statuses: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    logics: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    unpinned: list[str] = field(default_factory=list)  # counterexamples that did not pin

    def text(self, out_dir: Path) -> str:
        logics = ", ".join(f"{n} {c}" for c, n in sorted(
            ((c, n) for n, c in self.logics.items()), reverse=True))
        status = ", ".join(f"{s} {self.statuses.get(s, 0)}" for s in ("sat", "unsat", "unknown"))
        lines = [f"{self.files} files from {self.pairs} pairs in {out_dir} "
                 f"({self.skipped} pairs skipped: {out_dir / 'skipped.csv'})",
                 f"status: {status}", f"logics: {logics or '-'}"]
        if self.unpinned:
            lines.append(f"{len(self.unpinned)} counterexamples did not pin (status left "
                         f"unknown): " + "; ".join(self.unpinned[:5]))
        return "\n".join(lines)


def export_suite(benchmark: Benchmark, questions: list[Question],
                 predictions: dict[str, dict[str, Prediction]], *, out_dir: str | Path,
                 bound: int, semantics: str | None, now: datetime,
                 known: KnownAnswers | None = None, pin_solver: str = "z3",
                 dialect: str = "sqlite", data: str = "declared",
                 progress: Callable[[int, int], None] | None = None,
                 constraints: str | Path | None = None, enforced_fks: bool = False,
                 recursion_depth: int = 10) -> SuiteSummary:
    """Write the suite; one pair's failure costs that pair only (``skipped.csv``).
    With ``constraints`` (a file or a directory of one file per db_id) each pair is
    encoded over its augmented schema (``spotit.constraints.augment``); ``enforced_fks``:
    the databases enforce their foreign keys (assumed even at ``data="sqlite"``);
    ``recursion_depth``: rounds of a recursive CTE unrolled."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    known = known or KnownAnswers()
    summary = SuiteSummary()
    total = len(questions) * len(predictions)
    with open(out / "index.csv", "w", newline="", encoding="utf-8") as index_file, \
            open(out / "skipped.csv", "w", newline="", encoding="utf-8") as skipped_file:
        index = csv.writer(index_file)
        index.writerow(INDEX_COLUMNS)
        skipped = csv.writer(skipped_file)
        skipped.writerow(SKIPPED_COLUMNS)
        done = 0
        for system, preds in predictions.items():
            for q in questions:
                pred = preds.get(q.question_id)
                sem = semantics or q.semantics
                try:
                    if pred is None or pred.sql is None:
                        raise SpotItError(pred.problem if pred else "no prediction")
                    schema = _assumed(benchmark, q.db_id, constraints, enforced_fks)
                    rows = _export_pair(benchmark, q, system, pred.sql, sem, out, bound,
                                        now, known, pin_solver, summary, dialect, data,
                                        schema, recursion_depth)
                except SpotItError as e:
                    skipped.writerow((system, q.question_id, q.db_id, str(e)))
                    summary.skipped += 1
                except Exception as e:  # a bug costs this pair only, named
                    skipped.writerow((system, q.question_id, q.db_id,
                                      f"internal error: {type(e).__name__}: {e}"))
                    summary.skipped += 1
                else:
                    index.writerows(rows)
                    summary.pairs += 1
                    summary.files += len(rows)
                done += 1
                if progress is not None:
                    progress(done, total)
    return summary


def _assumed(benchmark: Benchmark, db_id: str, constraints: str | Path | None,
             enforced_fks: bool = False):
    """The schema of ``db_id``, augmented with its constraints when there are any."""
    from dataclasses import replace

    from spotit.constraints.augment import augment
    from spotit.constraints.formats import file_for, load_constraints

    schema = benchmark.schema(db_id)
    if enforced_fks:
        schema = replace(schema, enforced_foreign_keys=True, cache={})
    if constraints is None:
        return schema
    path = file_for(constraints, db_id)
    if path is None:
        return schema
    return augment(schema, load_constraints(path, schema, db_id))


def _export_pair(benchmark: Benchmark, q: Question, system: str, pred: str, semantics: str,
                 out: Path, bound: int, now: datetime, known: KnownAnswers, pin_solver: str,
                 summary: SuiteSummary, dialect: str, data: str, schema,
                 recursion_depth: int = 10) -> list[tuple]:
    from spotit.encodings.equivalence import comparison
    from spotit.export import benchmark_script, pair_source
    from spotit.pipeline import Checker, CheckOptions, in_sqlite
    from spotit.smt.logic import logic_of
    from spotit.smt.walkers import formula_size

    # realistic: the declared domains over the schema the constraints augmented
    checker = Checker(schema, CheckOptions(bound=bound, semantics=comparison(semantics), now=now,
                                           data="declared" if data == "realistic" else data,
                                           recursion_depth=recursion_depth))
    gold, pred_sql = q.gold, pred
    if dialect != "sqlite":  # results are matched on the queries as written
        gold, pred_sql = in_sqlite(q.gold, pred, dialect, schema, comparison(semantics))
    gold_plan = checker.plan(gold, "gold")
    pred_plan = checker.plan(pred_sql, "pred")
    pair = KnownAnswers.pair(system, q.question_id, q.gold, pred, semantics, data)
    folder = out / _safe(system) / _safe(q.db_id)
    folder.mkdir(parents=True, exist_ok=True)
    rows = []
    for k in range(1, bound + 1):
        enc, assertions = checker.encode(k, gold_plan, pred_plan)
        logic = logic_of(assertions)
        status = None
        if known.unsat(pair, k):
            status = "unsat"
        for cex in known.counterexamples_within(pair, k):
            found = _pinned_sat(schema, enc, assertions, cex, pin_solver)
            if found is True:
                if status == "unsat":  # two solvers' proof against a pinned model
                    raise SpotItError(f"k = {k}: results contradict each other (unsat by "
                                      f"two solvers, yet a confirmed counterexample pins)")
                status = "sat"
                break
            summary.unpinned.append(f"{system} q{q.question_id} k={k}: {found}")
        comments = []
        if enc.approximations:
            comments.append("over-approximated (sat may be spurious): "
                            + ", ".join(sorted(enc.approximations)))
        text = benchmark_script(
            assertions, logic=logic, status=status, comments=comments,
            source=pair_source(q.gold, pred, k, semantics, benchmark=benchmark.name,
                               question=q.question_id, db_id=q.db_id, system=system))
        path = folder / f"q{_safe(q.question_id)}_k{k}.smt2"
        path.write_text(text, encoding="utf-8")
        summary.statuses[status or "unknown"] += 1
        summary.logics[logic] += 1
        rows.append((path.relative_to(out).as_posix(), system, q.question_id, q.db_id, k,
                     logic, status or "unknown", len(assertions), formula_size(assertions)))
    return rows


def _pinned_sat(schema, enc, assertions, counterexample: dict, solver: str) -> bool | str:
    """True if the formula has a model with the database pinned to ``counterexample``;
    otherwise why not (a value outside the encoding's domain, a solver answer)."""
    from spotit.experiments.runners import stored_rows
    from spotit.smt.printer import SmtLibWriter
    from spotit.solvers import get_solver

    try:
        pins = enc.db.pins(stored_rows(schema, counterexample))
    except (ValueError, SpotItError) as e:
        return f"not representable: {e}"
    if enc.int_strings is not None:
        pins = enc.int_strings.convert(pins)
    res = get_solver(solver).check(SmtLibWriter().script([*assertions, *pins]),
                                   timeout=PIN_TIMEOUT)
    return True if res.is_sat else f"pinned formula is {res.status.value} ({solver})"


def _safe(name: str) -> str:
    """A path component: anything but letters, digits, ``-``, ``_`` and ``.`` is ``_``."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", str(name)) or "_"
