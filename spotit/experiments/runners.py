"""Run a benchmark evaluation: every (system, question) checked once, results stored
as they come, EX-TEST and EX-SpotIt+ computed, interruptions survived.

One check per (system, question) with the run's settings. A pair whose key
(inputs + settings + versions, ``store.pair_key``) is already in the results
file is reused; the rest go to workers -- local processes
(``spotit.experiments.batch``: a hard wall-clock limit and a memory cap per
check, a crashed or killed worker costs its pair only) or a Dask cluster.
Each result is committed as it arrives, so a killed run resumes where it
stopped. Then EX-SpotIt+: every confirmed counterexample of a question is run
on SQLite against every other system's prediction for that question.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import platform
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from spotit.errors import SpotItError
from spotit.experiments.batch import Task, run_batch
from spotit.experiments.inputs import Benchmark, Prediction, Question
from spotit.experiments.store import PairRecord, ResultsStore, pair_key

DEFAULT_NOW = "2024-01-01 00:00:00"  # 'now' of every check, fixed so results are reusable
COMMIT_EVERY = 1.0  # seconds between commits of finished pairs (and at the end)


@dataclass(frozen=True)
class EvaluationSettings:
    """Everything that decides a check's outcome (part of every result's key)."""

    benchmark: str
    bound: int = 5
    solver: str = "z3"
    timeout: float = 60.0
    semantics: str | None = None  # None: the benchmark's (BIRD set; Spider per question)
    probe_trials: int = 300
    now: str = DEFAULT_NOW
    ex_time_limit: float = 30.0  # seconds for the gold query on the real database
    dialect: str = "sqlite"  # the queries' SQL dialect (spotit.frontend.dialects)
    data: str = "declared"  # what the columns may hold (spotit.schema.Schema.with_data)
    explain: bool = False  # search what each refutation needs (spotit.explain)
    enforced_fks: bool = False  # the databases enforce their foreign keys
    recursion_depth: int = 10  # rounds of a recursive CTE unrolled

    def key_settings(self, mentions_now: bool) -> dict[str, Any]:
        out = asdict(self)
        out.pop("benchmark")
        out.pop("ex_time_limit")  # EX-TEST's limit does not change SpotIt's verdict
        if self.dialect == "sqlite":
            out.pop("dialect")  # keys of runs from before dialects existed stay valid
        if self.data == "declared":
            out.pop("data")  # likewise for runs from before data levels
        if not self.explain:
            out.pop("explain")
        if not self.enforced_fks:
            out.pop("enforced_fks")
        if self.recursion_depth == 10:
            out.pop("recursion_depth")
        if not mentions_now:
            out.pop("now")  # only queries that read the clock depend on it
        return out


@dataclass
class PairJob:
    """One (system, question) to check, with what a worker needs (picklable)."""

    key: str
    system: str
    question: Question
    prediction: Prediction
    ddl: str
    semantics: str
    db_path: str | None = None
    ex_label: bool | None = None
    ex_label_source: str = ""
    settings: dict[str, Any] = field(default_factory=dict)
    ex_unknown: str = ""  # why EX-TEST cannot be run (no database for this db_id)
    constraints: dict[str, Any] | None = None  # assumed (SpotIt's format), for this db_id
    # declared constraints the test database's data break (spotit.constraints.declared):
    # not assumed
    breaches: list[dict[str, Any]] | None = None


# ---------------------------------------------------------------------- the work of one pair


def check_pair(job: PairJob) -> dict[str, Any]:
    """Run EX-TEST (when a database is given) and the SpotIt check of one pair.

    Runs in a worker process; never raises for bad input (it becomes the result)."""
    from spotit.pipeline import check

    s = job.settings
    out: dict[str, Any] = {}
    if job.db_path is not None:
        from spotit.experiments.extest import ex_test

        ex = ex_test(job.db_path, job.question.gold, job.prediction.sql, s["benchmark"],
                     s["ex_time_limit"], semantics=job.semantics)
        out.update(ex_test=ex.correct, ex_test_source="database", ex_test_reason=ex.reason)
    elif job.ex_label is not None:
        out.update(ex_test=job.ex_label, ex_test_source=job.ex_label_source)
    if job.prediction.sql is None:
        out.update(verdict="error", reason=job.prediction.problem or "no prediction",
                   result={})
        return out
    data = s.get("data", "declared")
    schema = job_schema(job) if data != "realistic" else _realistic_schema(job)
    res = check(schema, job.question.gold, job.prediction.sql, bound=s["bound"],
                solver=s["solver"], semantics=job.semantics, timeout=s["timeout"],
                now=datetime.fromisoformat(s["now"]), probe_trials=s["probe_trials"],
                dialect=s.get("dialect", "sqlite"),
                data="declared" if data == "realistic" else data,
                recursion_depth=s.get("recursion_depth", 10))
    res.data = data
    if job.constraints is not None and data != "realistic":
        res.constrained = _constrained(job, res)
    explained = False
    if s.get("explain") and res.verdict.value == "not_equivalent":
        from spotit.constraints.formats import read_native
        from spotit.explain import explain

        ranges = None  # the assumed constraints: a value out of their ranges is a feature
        if job.constraints is not None and data != "realistic":
            with contextlib.suppress(SpotItError):
                ranges = read_native(job.constraints, schema, "constraints")
        res.explanation = explain(
            schema, job.question.gold, job.prediction.sql, res, constraints=ranges,
            seconds=explain_budget(s["timeout"], res.seconds), bound=s["bound"],
            solver=s["solver"],
            semantics=job.semantics, now=datetime.fromisoformat(s["now"]),
            dialect=s.get("dialect", "sqlite"), data=s.get("data", "declared"))
        explained = True
    data = res.to_json()
    data["explained"] = explained
    out.update(verdict=data["verdict"], reason=data["reason"], seconds=data["seconds"],
               result=data)
    return out


EXPLAIN_MIN_SECONDS = 5.0  # an evaluation's explanation of one refutation gets at least
EXPLAIN_CHECK_FACTOR = 10.0  # this many times the check's own time, within --timeout


def explain_budget(timeout: float, check_seconds: float) -> float:
    """Seconds for all the searches of one refutation's explanation in a batch: a search
    that would take far longer than the refutation itself ends undecided (``needed``
    null, "no time left") instead of holding a worker for the whole timeout."""
    return min(timeout, max(EXPLAIN_MIN_SECONDS, EXPLAIN_CHECK_FACTOR * check_seconds))


def job_schema(job: PairJob):
    """The schema a job's check assumes: its DDL, less what the test database's data
    break, with foreign keys enforced if the run says so."""
    from dataclasses import replace

    from spotit.constraints.declared import Breach

    schema = _schema(job.ddl)
    if job.settings.get("enforced_fks"):
        schema = replace(schema, enforced_foreign_keys=True, cache={})
    if job.breaches:
        schema = schema.assume_only([Breach.from_json(b) for b in job.breaches])
    return schema


def _realistic_schema(job: PairJob):
    """``--data realistic``: the schema with the constraints its job carries declared in
    it (none for a database the constraint directory has no file for)."""
    from spotit.constraints.augment import augment
    from spotit.constraints.formats import read_native

    schema = job_schema(job)
    return augment(schema, read_native(job.constraints or {"constraints": []}, schema,
                                       "constraints"))


def _constrained(job: PairJob, res):
    """The verdict of one pair under the constraints its job carries."""
    from spotit.constraints.assume import constrained_verdict
    from spotit.constraints.formats import read_native
    from spotit.constraints.model import ConstraintSet

    s = job.settings
    schema = job_schema(job)
    cs = read_native(job.constraints or {}, schema, "constraints")
    cs = ConstraintSet(cs.constraints, tuple((job.constraints or {}).get("skipped", ())))
    return constrained_verdict(
        schema, job.question.gold, job.prediction.sql or "", cs, res, bound=s["bound"],
        solver=s["solver"], semantics=job.semantics, timeout=s["timeout"],
        now=datetime.fromisoformat(s["now"]), probe_trials=s["probe_trials"],
        dialect=s.get("dialect", "sqlite"), data=s.get("data", "declared"))


_SCHEMAS: dict[str, Any] = {}


def _schema(ddl: str):
    """The schema of DDL text, built once per worker process."""
    from spotit.schema import schema_from_ddl

    hit = _SCHEMAS.get(ddl)
    if hit is None:
        hit = _SCHEMAS[ddl] = schema_from_ddl(ddl)
    return hit


def record_of(job: PairJob, out: dict[str, Any]) -> PairRecord:
    """The stored record of a finished job (``out``: check_pair's dict, or the batch
    runner's own verdict when the worker was killed)."""
    result = out.get("result") or {}
    ex_test = out.get("ex_test", job.ex_label)
    return PairRecord(
        key=job.key, system=job.system, question_id=job.question.question_id,
        db_id=job.question.db_id, gold=job.question.gold, pred=job.prediction.sql,
        semantics=job.semantics, verdict=out.get("verdict", "error"),
        reason=out.get("reason", ""), seconds=float(out.get("seconds") or 0.0),
        question=job.question.question, difficulty=job.question.difficulty,
        cex_bound=result.get("cex_bound"), proven_bound=result.get("proven_bound") or 0,
        found_by=result.get("cex_found_by"), counterexample=result.get("counterexample"),
        gold_result=result.get("gold_result"), pred_result=result.get("pred_result"),
        vacuous=result.get("vacuous") or [], ex_test=ex_test,
        ex_test_source=out.get("ex_test_source", job.ex_label_source if
                               job.ex_label is not None else ""),
        ex_test_reason=out.get("ex_test_reason", job.ex_unknown), result=result)


# ---------------------------------------------------------------------- executors


def run_tasks(tasks: list[Task], workers: int, memory_mb: int | None, executor: str = "local",
              scheduler: str | None = None) -> Iterator[tuple[Any, dict[str, Any]]]:
    """(key, outcome) of every task as it finishes, on local worker processes or Dask."""
    if executor == "dask":
        yield from run_dask(tasks, workers, memory_mb, scheduler)
    else:
        yield from run_batch(tasks, workers=workers, memory_mb=memory_mb)


def run_dask(tasks: list[Task], workers: int, memory_mb: int | None,
             scheduler: str | None) -> Iterator[tuple[Any, dict[str, Any]]]:
    """The same tasks on a Dask cluster (``scheduler`` address, or a LocalCluster of
    ``workers`` processes). Each task still runs in its own child process with the
    batch runner's limits, so a crash or hang costs that task only."""
    import dask
    from distributed import Client, LocalCluster, as_completed

    with contextlib.ExitStack() as stack:
        if scheduler:
            client = stack.enter_context(Client(scheduler))
        else:
            # workers that may start a child process per task (see isolated)
            stack.enter_context(dask.config.set({"distributed.worker.daemon": False}))
            cluster = stack.enter_context(LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True,
                dashboard_address=None, silence_logs=40))
            client = stack.enter_context(Client(cluster))
        futures = {client.submit(isolated, t, memory_mb, key=str(t.key), pure=False): t.key
                   for t in tasks}
        for future in as_completed(futures):
            try:
                out = future.result()
            except Exception as e:  # the worker died: this task only
                out = {"verdict": "error", "reason": f"dask worker: {type(e).__name__}: {e}"}
            yield futures[future], out


def isolated(task: Task, memory_mb: int | None) -> dict[str, Any]:
    """One task in a child process with the batch runner's limits (on a Dask worker)."""
    try:
        return next(out for _key, out in run_batch([task], workers=1, memory_mb=memory_mb))
    except AssertionError:  # a daemonic worker cannot start children: run in place
        return task.fn(*task.args)


# ---------------------------------------------------------------------- the evaluation


@dataclass
class Evaluation:
    """An evaluation to run: the benchmark, the systems' predictions and the settings."""

    benchmark: Benchmark
    questions: list[Question]
    predictions: dict[str, dict[str, Prediction]]  # system -> question_id -> prediction
    settings: EvaluationSettings
    db_dir: str | None = None
    ex_labels: dict[str, dict[str, bool]] = field(default_factory=dict)  # system -> labels
    ex_label_sources: dict[str, str] = field(default_factory=dict)
    constraints: str | None = None  # a constraint file or directory (spotit.constraints)
    _constraint_cache: dict[str, dict[str, Any] | None] = field(default_factory=dict,
                                                                 repr=False)
    # per db_id: what the test database's data say of the declared constraints
    declared_checks: dict[str, Any] = field(default_factory=dict, repr=False)

    def checked_schema(self, db_id: str, db_path: str | None):
        """(DDL, fingerprint, breaches as JSON) of ``db_id``: with a test database, the
        declared constraints its data break are tested (``spotit.constraints.declared``)
        and not assumed -- a broken key is dropped from the schema text, a broken
        foreign key or declared type travels with the job (``job_schema``)."""
        schema = self.benchmark.schema(db_id)
        if db_path is None or self.benchmark.tables_path is None:
            return schema.ddl, self.benchmark.schema_fingerprint(db_id), None
        if db_id not in self.declared_checks:
            from spotit.constraints.declared import check_declared

            self.declared_checks[db_id] = check_declared(schema, db_path)
        check = self.declared_checks[db_id]
        keys = [b for b in check.breaches if b.kind == "unique"]
        if keys:
            schema = self.benchmark.schema_without_keys(
                db_id, [(b.table, *b.columns) for b in keys])
        ddl = schema.ddl
        return ddl, _fingerprint(ddl), job_breaches(check.to_json())


    def constraints_of(self, db_id: str) -> dict[str, Any] | None:
        """The constraints of ``db_id`` in SpotIt's format (with ``skipped``), or None
        without ``--constraints``; a directory without a file for it gives none.
        A file that does not load raises ``InputError`` naming it."""
        from spotit.constraints.formats import file_for, load_constraints, to_json
        from spotit.experiments.inputs import InputError

        if self.constraints is None:
            return None
        if db_id not in self._constraint_cache:
            try:
                path = file_for(self.constraints, db_id)
                data = {"constraints": [], "skipped": []}
                if path is not None:
                    cs = load_constraints(path, self.benchmark.schema(db_id), db_id)
                    data = {**to_json(cs), "skipped": list(cs.skipped)}
            except SpotItError as e:
                raise InputError(f"constraints of {db_id}: {e}") from None
            self._constraint_cache[db_id] = data
        return self._constraint_cache[db_id]

    def jobs(self) -> tuple[list[PairJob], list[tuple[PairJob, dict[str, Any]]]]:
        """Every pair as a job, and the pairs that need no worker (their outcome)."""
        from spotit.experiments.extest import database_path

        jobs, settled = [], []
        version = spotit_version()
        schema_problem: dict[str, str] = {}
        for system, preds in self.predictions.items():
            labels = self.ex_labels.get(system, {})
            for q in self.questions:
                pred = preds.get(q.question_id) or Prediction(
                    q.question_id, None, "no prediction for this question")
                db_path, ex_unknown = None, ""
                if self.db_dir is not None:
                    try:
                        db_path = str(database_path(self.db_dir, q.db_id, self.benchmark.name))
                    except SpotItError as e:
                        ex_unknown = str(e)  # EX-TEST unknown; SpotIt still checks the pair
                ddl, fingerprint, breaches = "", "", None
                if q.db_id not in schema_problem:
                    try:
                        ddl, fingerprint, breaches = self.checked_schema(q.db_id, db_path)
                    except SpotItError as e:
                        schema_problem[q.db_id] = f"schema of {q.db_id}: {e}"
                semantics = self.settings.semantics or q.semantics
                assumed = self.constraints_of(q.db_id) if not schema_problem.get(
                    q.db_id) else None
                key = check_key(self.settings, system=system, question=q, pred=pred.sql,
                                semantics=semantics, fingerprint=fingerprint, assumed=assumed,
                                version=version, breaches=breaches)
                job = PairJob(key, system, q, pred, ddl, semantics, db_path,
                              labels.get(q.question_id),
                              self.ex_label_sources.get(system, ""),
                              {**asdict(self.settings)}, ex_unknown, assumed, breaches)
                if q.db_id in schema_problem:
                    settled.append((job, {"verdict": "error",
                                          "reason": schema_problem[q.db_id]}))
                elif pred.sql is None and db_path is None:
                    settled.append((job, {"verdict": "error",
                                          "reason": pred.problem or "no prediction"}))
                else:
                    jobs.append(job)
        return jobs, settled


def job_breaches(data_check: dict[str, Any] | None) -> list[dict[str, Any]] | None:
    """The breaches a job carries (foreign keys, declared types): a broken key is
    already out of the schema text."""
    found = [b for b in (data_check or {}).get("breaches") or [] if b["kind"] != "unique"]
    return found or None


def check_key(settings: EvaluationSettings, *, system: str, question: Question,
              pred: str | None, semantics: str, fingerprint: str,
              assumed: dict[str, Any] | None, version: str,
              breaches: list[dict[str, Any]] | None = None) -> str:
    """The store key of one check: everything that decides its outcome."""
    from spotit.frontend.now import mentions_now

    sql_now = mentions_now(question.gold) or bool(pred and mentions_now(pred))
    key_settings = {**settings.key_settings(sql_now), "semantics": semantics}
    if assumed is not None:
        key_settings["constraints"] = hashlib.sha256(json.dumps(
            assumed, sort_keys=True, default=str).encode()).hexdigest()
    if breaches:
        key_settings["breaches"] = hashlib.sha256(json.dumps(
            breaches, sort_keys=True, default=str).encode()).hexdigest()
    return pair_key(system=system, question_id=question.question_id, db_id=question.db_id,
                    gold=question.gold, pred=pred, schema_fingerprint=fingerprint,
                    settings=key_settings, spotit_version=version)


def evaluate(ev: Evaluation, store: ResultsStore, *, workers: int | None = None,
             executor: str = "local", scheduler: str | None = None,
             memory_mb: int | None = 8192,
             progress: Callable[[int, int, dict[str, int]], None] | None = None) -> int:
    """Run ``ev`` into ``store``; returns the run id. Pairs already stored are reused."""
    workers = workers or os.cpu_count() or 1
    if executor == "dask":
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise SpotItError("the Dask executor needs Dask: pip install 'spotit[dask]'"
                              ) from None
    settings = {**asdict(ev.settings), "systems": sorted(ev.predictions),
                "questions": len(ev.questions), "db_dir": ev.db_dir,
                "ex_labels": dict(ev.ex_label_sources), "executor": executor,
                "workers": workers, "constraints": ev.constraints}
    run_id = store.start_run(settings, provenance())
    jobs, settled = ev.jobs()
    store.put_schemas(run_id, {j.question.db_id: (_fingerprint(j.ddl), j.ddl, j.constraints)
                               for j in jobs if j.ddl},
                      {db: c.to_json() for db, c in ev.declared_checks.items()})
    known = store.known_keys()
    reused = [j for j in jobs if j.key in known]
    todo = [j for j in jobs if j.key not in known]
    counts: dict[str, int] = {}
    total = len(jobs) + len(settled)
    done = 0

    def tick(records: list[PairRecord]) -> None:
        nonlocal done
        for r in records:
            counts[r.verdict] = counts.get(r.verdict, 0) + 1
        done += len(records)
        if progress is not None:
            progress(done, total, counts)

    store.add_to_run(run_id, [_stub(j) for j in reused])
    for j in reused:
        r = store.get(j.key)
        if r is not None:
            tick([r])
    first = [record_of(j, out) for j, out in settled]
    store.put(first)
    store.add_to_run(run_id, first)
    tick(first)
    searches = 3 if ev.constraints else 1  # under constraints: up to two more searches
    searches += 1 if ev.settings.explain else 0  # the explanation's searches share one more
    hard = searches * ev.settings.timeout + 2 * ev.settings.ex_time_limit + 30.0
    if todo:
        by_key = {j.key: j for j in todo}
        tasks = [Task(j.key, check_pair, (j,), hard) for j in todo]
        stream = run_tasks(tasks, workers, memory_mb, executor, scheduler)
        for batch in _batches(stream, COMMIT_EVERY):
            records = [record_of(by_key[key], out) for key, out in batch]
            store.put(records)
            store.add_to_run(run_id, records)
            tick(records)
    tasks = cross_check_tasks(ev, store, run_id)
    refuted: dict[str, str] = {}
    for _key, out in run_tasks(tasks, workers, memory_mb, executor, scheduler):
        refuted.update(out.get("refuted") or {})  # a killed task loses its question only
    store.set_refuted_by(run_id, refuted)
    store.finish_run(run_id)
    return run_id


def _fingerprint(ddl: str) -> str:
    return hashlib.sha256(ddl.encode("utf-8")).hexdigest()


def _stub(job: PairJob) -> PairRecord:
    return PairRecord(job.key, job.system, job.question.question_id, job.question.db_id,
                      job.question.gold, job.prediction.sql, job.semantics, "")


def _batches(stream: Iterable, seconds: float) -> Iterator[list]:
    batch: list = []
    last = time.monotonic()
    for item in stream:
        batch.append(item)
        if time.monotonic() - last >= seconds:
            yield batch
            batch, last = [], time.monotonic()
    if batch:
        yield batch


def run_evaluation(*, benchmark: str, dev: str | Path, tables: str | Path | None,
                   predictions: dict[str, str | Path], results: str | Path,
                   db_dir: str | Path | None = None, gold: str | Path | None = None,
                   ex_labels: dict[str, str | Path] | None = None,
                   questions: str | None = None, limit: int | None = None,
                   settings: EvaluationSettings | None = None, workers: int | None = None,
                   executor: str = "local", scheduler: str | None = None,
                   progress: Callable[[int, int, dict[str, int]], None] | None = None,
                   constraints: str | Path | None = None,
                   notice: Callable[[str], None] | None = None) -> tuple[ResultsStore, int]:
    """``spotit evaluate`` from Python: read the inputs (any problem with a file raises
    ``InputError`` naming it before anything runs), run, return (store, run id).

    For ``verieql`` the dev file holds the schemas and both queries of each pair:
    no ``tables`` or ``predictions`` are read (the file's second queries are the
    predictions of a system named after it). ``notice`` hears what was read but not
    run (Spider 2.0's tasks without public gold)."""
    from spotit.experiments.inputs import (
        InputError,
        load_benchmark,
        load_ex_labels,
        load_predictions,
        select_questions,
    )

    if benchmark == "verieql":
        from spotit.experiments.verieql import load_verieql

        bench, system, own = load_verieql(dev)
        preds = {system: own}
    else:
        if tables is None:
            raise InputError(f"benchmark {benchmark} needs its tables file (--tables)")
        if benchmark == "spider2":
            from spotit.experiments.spider2_inputs import load_spider2

            tasks = load_spider2(dev, tables, gold)
            bench = tasks.benchmark
            if notice is not None:
                skipped = ", ".join(f"{n} {why}" for why, n in sorted(tasks.skipped.items()))
                notice(f"spider2: {len(bench.questions)} tasks with public gold and "
                       f"metadata" + (f"; skipped: {skipped}" if skipped else ""))
        else:
            bench = load_benchmark(benchmark, dev, tables)
        preds = {name: load_predictions(path, bench) for name, path in predictions.items()}
    chosen = select_questions(bench, questions, limit)
    labels = {name: load_ex_labels(path, bench) for name, path in (ex_labels or {}).items()}
    ev = Evaluation(bench, chosen, preds, settings or EvaluationSettings(benchmark),
                    str(db_dir) if db_dir is not None else None, labels,
                    {name: f"labels:{Path(path).name}" for name, path in (ex_labels or {}).items()},
                    str(constraints) if constraints is not None else None)
    store = ResultsStore(results)
    run_id = evaluate(ev, store, workers=workers, executor=executor, scheduler=scheduler,
                      progress=progress)
    return store, run_id


# ---------------------------------------------------------------------- EX-SpotIt+


def cross_check_tasks(ev: Evaluation, store: ResultsStore, run_id: int) -> list[Task]:
    """EX-SpotIt+: for each question, every confirmed counterexample database (of any
    system) is run on SQLite against every other system's prediction for it.

    One task per question with a counterexample and a prediction not yet refuted; its
    outcome ``{"refuted": {key: system}}`` names, for each prediction a counterexample
    shows wrong, the first system (by name) whose counterexample does."""
    by_question: dict[str, list[PairRecord]] = {}
    for r, _ in store.run_records(run_id):
        by_question.setdefault(r.question_id, []).append(r)
    limit = ev.settings.ex_time_limit
    tasks = []
    for qid, records in by_question.items():
        ordered = sorted(records, key=lambda r: r.system)
        witnesses = [(r.system, r.counterexample) for r in ordered
                     if r.verdict == "not_equivalent" and r.counterexample]
        candidates = [(r.key, r.system, r.gold, r.pred, r.semantics) for r in ordered
                      if r.pred is not None and r.verdict != "not_equivalent"]
        if not witnesses or not candidates:
            continue
        try:
            ddl = ev.benchmark.schema(records[0].db_id).ddl
        except SpotItError:
            continue
        trials = len(witnesses) * len(candidates)
        tasks.append(Task(f"cross:{qid}", cross_check_question,
                          (ddl, witnesses, candidates, limit), 30.0 + 4 * limit * trials))
    return tasks


def cross_check_question(ddl: str, witnesses: list[tuple[str, dict]],
                         candidates: list[tuple[str, str, str, str, str]],
                         time_limit: float) -> dict[str, Any]:
    """Run in a worker: which candidates some other system's counterexample refutes."""
    from spotit.validate import validate

    schema = _schema(ddl)
    refuted: dict[str, str] = {}
    for key, system, gold, pred, semantics in candidates:
        for witness, counterexample in witnesses:
            if witness == system:
                continue
            try:
                rows = stored_rows(schema, counterexample)
                v = validate(schema, rows, gold, pred, _semantics(semantics),
                             time_limit=time_limit)
            except (sqlite3.Error, SpotItError, ValueError):
                continue
            if v.confirmed:
                refuted[key] = witness
                break
    return {"refuted": refuted}


def stored_rows(schema, counterexample: dict[str, list[dict[str, Any]]]) -> dict[str, list[tuple]]:
    """A stored counterexample (table -> row objects) as insertable tuples."""
    out = {}
    for table, rows in counterexample.items():
        t = schema.require_table(table)
        out[t.name] = [tuple(row.get(c) for c in t.row_columns(len(row))) for row in rows]
    return out


def _semantics(name: str):
    from spotit.encodings.equivalence import comparison

    return comparison(name)


# ---------------------------------------------------------------------- provenance


def spotit_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("spotit")
    except PackageNotFoundError:
        return "unknown"


def provenance() -> dict[str, Any]:
    """What produced a run: versions of SpotIt, its solvers, Python, SQLite, the machine."""
    out: dict[str, Any] = {
        "spotit_version": spotit_version(), "git_hash": _git_hash(),
        "python": sys.version.split()[0], "sqlite": sqlite3.sqlite_version,
        "platform": platform.platform(), "cpus": os.cpu_count(),
        "started": datetime.now().isoformat(timespec="seconds"),
    }
    with contextlib.suppress(Exception):
        import z3

        out["z3"] = z3.get_version_string()
    with contextlib.suppress(Exception):
        from importlib.metadata import version

        out["cvc5"] = version("cvc5")
    return out


def _git_hash() -> str | None:
    here = Path(__file__).resolve().parent
    try:
        return subprocess.run(["git", "-C", str(here), "rev-parse", "HEAD"], capture_output=True,
                              text=True, timeout=5, check=True).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None
