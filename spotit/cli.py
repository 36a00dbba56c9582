"""Command line: ``spotit check | smtlib | example | fuzz | evaluate | report | bench-solvers``.

Exit status is 0 for every verdict (a verdict is an answer, not a failure)
and 2 for usage errors; ``spotit fuzz`` exits 1 when it found a discrepancy,
``spotit bench-solvers`` when solvers disagree or contradict a file's ``:status``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import sys
import time
from datetime import datetime
from pathlib import Path

from spotit.errors import SpotItError


def _sql_arg(value: str) -> str:
    """SQL text, or ``@path`` to read it from a file."""
    if value.startswith("@"):
        try:
            return Path(value[1:]).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            # argparse turns this into "argument --gold: <message>" and exit status 2
            raise argparse.ArgumentTypeError(
                f"cannot read {value[1:]}: {getattr(e, 'strerror', None) or e}") from None
    return value


def _positive_int(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {value!r}")
    return number


def _add_check_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--schema", required=True,
                   help="DDL .sql file, SQLite database file, or tables.json (with --db-id)")
    p.add_argument("--db-id", help="database id inside a tables.json")
    p.add_argument("--gold", required=True, type=_sql_arg, help="gold SQL (or @file)")
    p.add_argument("--pred", required=True, type=_sql_arg, help="predicted SQL (or @file)")
    p.add_argument("--bound", "-k", type=int, default=5, help="max rows per table (default 5)")
    p.add_argument("--solver", default="z3", choices=["z3", "cvc5", "portfolio", "yices"],
                   help="portfolio: z3 and cvc5 in parallel, the first definite answer; "
                        "yices: yices-smt2 (pip install 'spotit[yices]'), z3 for strings")
    p.add_argument("--semantics", default="set", type=_semantics_arg,
                   help="set (default), bag, list, or Spider 2.0's column matching: "
                        "spider2 (order ignored), spider2-ordered, with the gold's "
                        "condition columns as spider2:0,2")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds for the whole check")
    p.add_argument("--now", help="evaluation instant for 'now' (YYYY-MM-DD HH:MM:SS)")
    p.add_argument("--probe-trials", type=int, default=300,
                   help="random databases tried before the solver (0: solver only)")
    _add_constraints_arg(p)
    _add_dialect_arg(p)
    _add_data_arg(p, ("declared", "sqlite", "realistic"))


def _add_data_arg(p: argparse.ArgumentParser,
                  data_levels: tuple[str, ...] = ("declared", "sqlite")) -> None:
    p.add_argument("--data", default="declared", choices=list(data_levels),
                   help="what the database may hold: 'declared' (default) values of each "
                        "column's declared type, declared foreign keys holding; 'sqlite' "
                        "what SQLite enforces: any value SQLite stores (text in a DATE "
                        "column, 50.5 in an INTEGER one), no foreign key unless "
                        "--enforced-fks: the strongest 'equivalent'"
                        + ("; 'realistic' declared plus the --constraints"
                           if "realistic" in data_levels else ""))
    p.add_argument("--enforced-fks", action="store_true",
                   help="the database enforces its foreign keys (PRAGMA foreign_keys = "
                        "ON): --data sqlite assumes them too")
    p.add_argument("--recursion-depth", type=int, default=10, metavar="D",
                   help="rounds of a recursive CTE unrolled at first (default 10), doubled "
                        "where a recursion goes deeper, up to 16 D; a proof needs every "
                        "recursion to stop within them at the bound")


def _add_constraints_arg(p: argparse.ArgumentParser, directory: bool = False,
                         effect: str = "also report whether a difference survives them"
                         ) -> None:
    more = (" or a directory of <db_id>.json / <db_id>_constraints*.json files"
            if directory else "")
    p.add_argument("--constraints", metavar="FILE" + ("|DIR" if directory else ""),
                   help="constraints the real data satisfies (SpotIt's, VeriEQL's or "
                        f"SpotIt+'s format{more}): {effect}; see docs/constraints.md")


def _constraints(path: str, schema, db_id: str | None):
    """The constraint set for one schema, or SystemExit naming the problem."""
    from spotit.constraints.formats import file_for, load_constraints
    from spotit.constraints.model import ConstraintSet

    try:
        found = file_for(path, db_id)
        cs = (ConstraintSet() if found is None else load_constraints(found, schema, db_id))
    except SpotItError as e:
        raise SystemExit(f"spotit: error: {e}") from None
    for msg in cs.skipped:
        print(f"spotit: warning: skipped {msg}", file=sys.stderr)
    return cs


def _semantics_arg(text: str) -> str:
    """set, bag, list, spider2, spider2-ordered, spider2:0,2 (argparse type)."""
    from spotit.encodings.equivalence import comparison

    try:
        return comparison(text).value
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"unknown semantics {text!r}: set, bag, list, spider2, spider2-ordered, "
            "or spider2:<gold columns> such as spider2:0,2") from None


def _add_dialect_arg(p: argparse.ArgumentParser) -> None:
    from spotit.frontend.dialects import dialect_names

    p.add_argument("--dialect", default="sqlite", choices=dialect_names(),
                   help="the SQL dialect of the queries: transpiled to SQLite where the "
                        "meaning is the same, unsupported where it is not (generic/ansi: "
                        "sqlglot's generic SQL, e.g. Calcite's; mysql is read as with a "
                        "case-sensitive binary collation without space padding); see "
                        "docs/dialects.md")


def _now(args) -> datetime | None:
    if not args.now:
        return None
    try:
        return datetime.fromisoformat(args.now)
    except ValueError:
        raise SystemExit(f"spotit: error: --now must look like 2024-01-31 12:00:00, "
                         f"not {args.now!r}") from None


def cmd_check(args) -> int:
    from spotit.pipeline import check, coerce_schema, is_sqlite_file
    from spotit.report import format_result, sql_script
    from spotit.validate import build_database

    if args.bound < 1:
        raise SystemExit("spotit: error: --bound must be at least 1")
    started = time.monotonic()  # --timeout covers the explanation too
    schema = None
    with contextlib.suppress(SpotItError):
        schema = coerce_schema(args.schema, args.db_id)
    data_check = None
    if schema is not None:
        from dataclasses import replace

        if args.enforced_fks:
            schema = replace(schema, enforced_foreign_keys=True, cache={})
        if is_sqlite_file(args.schema):
            from spotit.constraints.declared import check_declared

            # a database: assume only the declared constraints its data keep
            data_check = check_declared(schema, args.schema)
            schema = schema.assume_only(data_check.breaches)
    options = dict(bound=args.bound, solver=args.solver, semantics=args.semantics,
                   timeout=args.timeout, now=_now(args), minimize=not args.no_minimize,
                   probe_trials=args.probe_trials, dialect=args.dialect, data=args.data,
                   enforced_fks=args.enforced_fks, recursion_depth=args.recursion_depth,
                   rlimit=args.rlimit)
    _realistic_needs_constraints(args)
    cs = None  # assumed constraints: their ranges are features an explanation tests
    if args.data == "realistic":
        if schema is not None:
            from spotit.constraints.augment import augment

            # declared types plus the constraints, as if the schema declared them
            schema = augment(schema, _constraints(args.constraints, schema, args.db_id))
        res = check(schema if schema is not None else args.schema, args.gold, args.pred,
                    db_id=args.db_id, **{**options, "data": "declared"})
        res.data = options["data"] = "realistic"
    elif args.constraints and schema is not None:
        from spotit.constraints.assume import check_with_constraints

        cs = _constraints(args.constraints, schema, args.db_id)
        res = check_with_constraints(schema, args.gold, args.pred, cs, **options)
    else:
        res = check(schema if schema is not None else args.schema, args.gold, args.pred,
                    db_id=args.db_id, **options)
    if data_check is not None:
        res.database_check = data_check.to_json()
    if not args.no_explain and schema is not None:
        from spotit.explain import explain

        # what the check left of --timeout (at most a minute): the features it cannot
        # search in time say "no time left"
        left = min(60.0, args.timeout - (time.monotonic() - started))
        res.explanation = explain(schema, args.gold, args.pred, res,
                                  seconds=max(0.0, left), constraints=cs, **options)
    if args.save_cex and res.cex_rows is not None and schema is not None:
        path = Path(args.save_cex)
        if path.exists():
            path.unlink()
        build_database(schema, res.cex_rows, path=str(path)).close()
        path.with_suffix(".sql").write_text(sql_script(schema, res.cex_rows), encoding="utf-8")
    if args.json:
        print(json.dumps(res.to_json(), default=str))
    else:
        print(format_result(res, schema))
        if args.save_cex and res.cex_rows is not None:
            print(f"\nsaved: {args.save_cex} and {Path(args.save_cex).with_suffix('.sql')}")
    return 0


def _realistic_needs_constraints(args) -> None:
    if args.data == "realistic" and not args.constraints:
        raise SystemExit("spotit: error: --data realistic needs --constraints (the "
                         "constraints assumed to hold: a file or directory, or mined with "
                         "spotit constraints mine)")


def cmd_smtlib(args) -> int:
    if args.bound < 1:
        raise SystemExit("spotit: error: --bound must be at least 1")
    _realistic_needs_constraints(args)
    if args.benchmark:
        return _smtlib_suite(args)
    missing = [f"--{n}" for n in ("schema", "gold", "pred") if getattr(args, n) is None]
    if missing:
        raise SystemExit(f"spotit: error: smtlib needs {', '.join(missing)} (one pair) or "
                         f"--benchmark (a whole benchmark)")
    from spotit.export import export_smtlib
    from spotit.pipeline import coerce_schema

    try:
        pred = _sql_arg(args.pred[0])
    except argparse.ArgumentTypeError as e:
        raise SystemExit(f"spotit: error: argument --pred: {e}") from None
    try:
        schema = coerce_schema(args.schema, args.db_id)
        if args.enforced_fks:
            from dataclasses import replace

            schema = replace(schema, enforced_foreign_keys=True, cache={})
        if args.constraints:
            from spotit.constraints.augment import augment

            schema = augment(schema, _constraints(args.constraints, schema, args.db_id))
        paths = export_smtlib(schema, args.gold, pred, out_dir=args.out,
                              bound=args.bound, semantics=args.semantics or "set",
                              db_id=args.db_id, now=_now(args), dialect=args.dialect,
                              data=args.data, recursion_depth=args.recursion_depth)
    except SpotItError as e:
        raise SystemExit(f"spotit: error: {e}") from None
    for p in paths:
        print(p)
    return 0


def _smtlib_suite(args) -> int:
    from spotit.experiments.inputs import (
        load_benchmark,
        load_predictions,
        parse_named_path,
        select_questions,
    )
    from spotit.experiments.runners import DEFAULT_NOW
    from spotit.experiments.suite import export_suite, known_answers

    if not args.dev:
        raise SystemExit("spotit: error: smtlib --benchmark needs --dev")
    _check_benchmark_args(args)
    try:
        if args.benchmark == "verieql":
            from spotit.experiments.verieql import load_verieql

            bench, system, own = load_verieql(args.dev)
            preds = {system: own}
        else:
            bench = load_benchmark(args.benchmark, args.dev, args.tables)
            preds = {}
            for arg in args.pred:
                name, path = parse_named_path(arg, "--pred")
                preds[name] = load_predictions(path, bench)
        questions = select_questions(bench, args.questions, args.limit)
        known = known_answers(args.results or [])
        now = _now(args) or datetime.fromisoformat(DEFAULT_NOW)
        bar = _progress_bar()
        summary = export_suite(
            bench, questions, preds, out_dir=args.out, bound=args.bound,
            semantics=args.semantics, now=now, known=known, dialect=args.dialect,
            data=args.data,
            progress=None if bar is None else lambda done, total: bar(done, total, {}),
            constraints=args.constraints, enforced_fks=args.enforced_fks,
            recursion_depth=args.recursion_depth)
    except SpotItError as e:
        raise SystemExit(f"spotit: error: {e}") from None
    print(summary.text(Path(args.out)))
    return 0


def cmd_example(args) -> int:
    from spotit.examples import run_example

    print(run_example(args.solver))
    return 0


def cmd_functions(args) -> int:
    from spotit.reference import reference_markdown, reference_text

    print(reference_markdown() if args.markdown else reference_text())
    return 0


def cmd_fuzz(args) -> int:
    from spotit.proofs.fuzz import fuzz
    from spotit.proofs.generators import operator_names

    if args.mutants or args.only_mutant:
        return _fuzz_mutants(args)

    parts = {"WINDOW", "RULES", "QUERIES"}
    if args.only and args.only.upper() not in {*operator_names(), *parts}:
        names = ", ".join(sorted({*operator_names(), *parts}))
        raise SystemExit(f"spotit: error: --only {args.only!r} is not an operator; one of: "
                         f"{names}")
    if args.examples is not None and args.examples < 1:
        raise SystemExit("spotit: error: --examples must be at least 1")
    if args.checks is not None and args.checks < 1:
        raise SystemExit("spotit: error: --checks must be at least 1")
    if args.minutes is not None and args.minutes <= 0:
        raise SystemExit("spotit: error: --minutes must be positive")
    solvers = ("z3", "cvc5") if args.solver == "both" else (args.solver,)
    say = None if args.json else (lambda line: print(line, file=sys.stderr, flush=True))
    if args.jobs is not None and args.jobs < 1:
        raise SystemExit("spotit: error: --jobs must be at least 1")
    seeds = _fuzz_seeds(args, say)
    # on a terminal a progress bar; else a line a round (one process) or every half
    # minute (workers); OUT/status.json holds the counts so far either way
    bar = None if args.json else _fuzz_bar(args.checks, args.minutes)
    progress = None if bar is not None else say
    on_status = bar if bar is not None else (_every(30.0, _status_line, say)
                                              if say and args.jobs and args.jobs > 1 else None)
    common = dict(examples=args.examples, minutes=args.minutes, checks=args.checks,
                  seed=args.seed, solvers=solvers, only=args.only, out_dir=str(args.out),
                  progress=progress, seeds=seeds, status=Path(args.out) / "status.json",
                  on_status=on_status)
    # Ctrl-C, or a scheduler's SIGTERM, ends the run with the summary of what was done
    from spotit.proofs.fuzz import stop_on_signal

    signal.signal(signal.SIGINT, stop_on_signal)
    signal.signal(signal.SIGTERM, stop_on_signal)
    if args.jobs and args.jobs > 1:
        from spotit.proofs.fuzz import fuzz_in_parallel

        report = fuzz_in_parallel(jobs=args.jobs, **common)
    else:
        report = fuzz(**common)
    print(json.dumps(report.to_json(), default=str) if args.json else report.summary())
    return 1 if report.discrepancies else 130 if report.interrupted else 0


def _fuzz_bar(checks: int | None, minutes: float | None):
    """A progress bar on stderr for a fuzz run, when it is a terminal: checks done of
    ``--checks``, or seconds of ``--minutes``; discrepancies and part counts beside."""
    if not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    bar: dict = {}

    def update(status: dict) -> None:
        done = _theorem_checks(status)
        if "bar" not in bar:
            total = checks if checks is not None else (round(minutes * 60) if minutes else None)
            bar["bar"] = tqdm(total=total, unit="check" if checks is not None or not minutes
                              else "s", file=sys.stderr, dynamic_ncols=True)
        b = bar["bar"]
        b.update((done if checks is not None or not minutes
                  else min(b.total, round(status["seconds"]))) - b.n)
        b.set_postfix_str(_status_line(status, short=True))
        if status.get("finished"):
            b.close()

    return update


def _status_line(status: dict, short: bool = False) -> str:
    """A fuzz run's counts so far (``OUT/status.json``) in one line."""
    done = _theorem_checks(status)
    line = (f"{status['discrepancies']} discrepancies, {status['query_pairs_checked']} "
            f"pairs, {status['inconclusive']} inconclusive")
    return line if short else f"{done} Thm 1/2 checks in {status['seconds']:.0f} s: {line}"


def _theorem_checks(status: dict) -> int:
    """``FuzzReport.theorem_checks`` of a status object (Thm 1 and Thm 2 checks)."""
    return (status["expressions_checked"] + status["windows_checked"]
            + status["relations_checked"] + status["tables_checked"])


def _every(seconds: float, render, say):
    """``say(render(status))`` at most once every ``seconds``, and at the end."""
    last = [0.0]

    def update(status: dict) -> None:
        now = time.monotonic()
        if status.get("finished") or now - last[0] >= seconds:
            last[0] = now
            say(render(status))

    return update


def _fuzz_seeds(args, progress):
    """The user's seed queries (``--seeds``), or None; a file that does not load is a
    usage error naming it."""
    from spotit.errors import SpotItError
    from spotit.proofs.seeds import load_seeds

    if args.seeds is None:
        if args.schema or args.tables:
            raise SystemExit("spotit: error: --schema and --tables go with --seeds")
        return None
    if bool(args.schema) == bool(args.tables):
        raise SystemExit("spotit: error: --seeds needs --schema (a file of queries) or "
                         "--tables (a benchmark's dev.json), one of them")
    try:
        seeds = load_seeds(args.seeds, schema=args.schema, tables=args.tables)
    except SpotItError as e:
        raise SystemExit(f"spotit: error: {e}") from e
    if progress is not None:
        progress(seeds.summary())
    return seeds


def _fuzz_mutants(args) -> int:
    """``spotit fuzz --mutants``: exit 1 when some planted bug was not found."""
    from spotit.mutants import MUTANTS
    from spotit.proofs.mutation import run_mutants

    for flag, value in (("--examples", args.examples), ("--minutes", args.minutes),
                        ("--only", args.only), ("--seeds", args.seeds)):
        if value is not None:
            raise SystemExit(f"spotit: error: {flag} does not apply to --mutants "
                             "(see --minutes-per-mutant)")
    unknown = [n for n in args.only_mutant or () if n not in MUTANTS]
    if unknown:
        raise SystemExit(f"spotit: error: no mutant {', '.join(unknown)}; one of: "
                         f"{', '.join(MUTANTS)}")
    if args.minutes_per_mutant <= 0:
        raise SystemExit("spotit: error: --minutes-per-mutant must be positive")
    solvers = ("z3", "cvc5") if args.solver == "both" else (args.solver,)
    progress = None if args.json else (lambda line: print(line, file=sys.stderr, flush=True))
    if args.jobs is not None and args.jobs < 1:
        raise SystemExit("spotit: error: --jobs must be at least 1")
    report = run_mutants(args.only_mutant, minutes_per_mutant=args.minutes_per_mutant,
                         seed=args.seed, solvers=solvers, out_dir=args.out, progress=progress,
                         jobs=args.jobs or 1)
    print(json.dumps(report.to_json()) if args.json else report.summary())
    return 0 if report.found == len(report.results) else 1


def cmd_evaluate(args) -> int:
    from spotit.experiments.inputs import parse_named_path
    from spotit.experiments.report import summary_table, write_report
    from spotit.experiments.runners import EvaluationSettings, run_evaluation

    if args.bound < 1:
        raise SystemExit("spotit: error: --bound must be at least 1")
    if args.scheduler and args.executor != "dask":
        args.executor = "dask"
    _realistic_needs_constraints(args)
    _check_benchmark_args(args)
    if args.gold and args.benchmark != "spider2":
        raise SystemExit("spotit: error: --gold goes with --benchmark spider2")
    try:
        preds = dict(parse_named_path(p, "--pred") for p in args.pred or [])
        labels = dict(parse_named_path(p, "--ex-labels") for p in args.ex_labels or [])
        settings = EvaluationSettings(
            benchmark=args.benchmark, bound=args.bound, solver=args.solver,
            timeout=args.timeout, semantics=args.semantics, probe_trials=args.probe_trials,
            now=args.now or EvaluationSettings.now, ex_time_limit=args.ex_time_limit,
            dialect=args.dialect, data=args.data, explain=args.explain,
            enforced_fks=args.enforced_fks, recursion_depth=args.recursion_depth)
        store, run_id = run_evaluation(
            benchmark=args.benchmark, dev=args.dev, tables=args.tables, predictions=preds,
            results=args.results, db_dir=args.db_dir, gold=args.gold, ex_labels=labels,
            questions=args.questions, limit=args.limit, settings=settings, workers=args.jobs,
            executor=args.executor, scheduler=args.scheduler, progress=_progress_bar(),
            constraints=args.constraints, notice=lambda line: print(line, file=sys.stderr))
    except SpotItError as e:
        raise SystemExit(f"spotit: error: {e}") from None
    findings = None
    if args.audit:
        from spotit.experiments.audit import audit

        try:
            findings = audit(store, run_id=run_id, min_agree=args.min_agree,
                             explain=True, workers=args.jobs, progress=_stage_progress_bar(),
                             executor=args.executor, scheduler=args.scheduler)
        except SpotItError as e:
            raise SystemExit(f"spotit: error: {e}") from None
    report_dir = Path(args.report) if args.report else Path(args.results).with_suffix("")
    summary = write_report(args.results, report_dir, run_id=run_id)
    store.close()
    print(summary_table(summary))
    if findings is not None:
        from spotit.experiments.audit_report import summary_text

        print("\n" + summary_text(findings))
        print(f"\naudit: {report_dir / 'audit'}/audit.jsonl, audit.csv")
    print(f"\nresults: {args.results}; report: {report_dir}/index.html")
    return 0


def _check_benchmark_args(args) -> None:
    """BIRD and Spider need a tables file and predictions; a VeriEQL file holds both
    queries and the schema of every pair, and has no databases."""
    if args.benchmark == "verieql":
        given = [flag for flag, value in (("--tables", args.tables), ("--pred", args.pred),
                                          ("--db-dir", getattr(args, "db_dir", None)),
                                          ("--ex-labels", getattr(args, "ex_labels", None)))
                 if value]
        if given:
            raise SystemExit(f"spotit: error: {', '.join(given)} not used with --benchmark "
                             "verieql: the file holds each pair's schema and both queries")
        return
    missing = [flag for flag, value in (("--tables", args.tables), ("--pred", args.pred))
               if not value]
    if missing:
        raise SystemExit(f"spotit: error: --benchmark {args.benchmark} needs "
                         f"{' and '.join(missing)}")


def _progress_bar():
    """A progress bar on stderr (pairs done, verdict counts, ETA) when it is a terminal."""
    if not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    bar: dict = {}

    def update(done: int, total: int, counts: dict[str, int]) -> None:
        if "bar" not in bar:
            bar["bar"] = tqdm(total=total, unit="pair", file=sys.stderr, dynamic_ncols=True)
        b = bar["bar"]
        b.update(done - b.n)
        b.set_postfix_str(", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
        if done >= total:
            b.close()

    return update


def cmd_constraints(args) -> int:
    from spotit.constraints.formats import write_constraints
    from spotit.constraints.mine import MineOptions, mine

    if not 0 < args.confidence <= 1:
        raise SystemExit("spotit: error: --confidence must be in (0, 1]")
    if args.sample is not None and args.sample < 1:
        raise SystemExit("spotit: error: --sample must be at least 1")
    options = MineOptions(tables=tuple(args.tables or ()), min_support=args.min_support,
                          confidence=args.confidence, sample=args.sample)
    try:
        cs, _schema = mine(args.db, options)
    except SpotItError as e:
        raise SystemExit(f"spotit: error: {e}") from None
    write_constraints(cs, args.out, database=Path(args.db).name, mined={
        "min_support": args.min_support, "confidence": args.confidence,
        "tables": list(options.tables) or None})
    counts = ", ".join(f"{k} {n}" for k, n in sorted(cs.counts().items())) or "none"
    print(f"{len(cs)} constraints ({counts}) written to {args.out}")
    return 0


def cmd_audit(args) -> int:
    from spotit.experiments.audit import AuditError, audit
    from spotit.experiments.audit_report import summary_text, write_audit
    from spotit.experiments.report import write_report
    from spotit.experiments.store import ResultsStore

    if not Path(args.results).exists():
        raise SystemExit(f"spotit: error: no results file {args.results}")
    if args.min_agree is not None and args.min_agree < 1:
        raise SystemExit("spotit: error: --min-agree must be at least 1")
    store = ResultsStore(args.results)
    try:
        schemas = _schemas_from_tables(args.tables) if args.tables else None
        findings = audit(store, run_id=args.run, min_agree=args.min_agree,
                         explain=not args.no_explain, workers=args.jobs, schemas=schemas,
                         progress=_stage_progress_bar())
        run_id = args.run or store.latest_run()["run_id"]
    except (AuditError, SpotItError) as e:
        raise SystemExit(f"spotit: error: {e}") from None
    finally:
        store.close()
    report_dir = Path(args.report) if args.report else Path(args.results).with_suffix("")
    out = Path(args.out) if args.out else report_dir / "audit"
    jsonl, csv_path = write_audit(findings, out)
    write_report(args.results, report_dir, run_id=run_id)
    print(summary_text(findings))
    print(f"\naudit: {jsonl}, {csv_path}; report: {report_dir / 'index.html'}#audit")
    return 0


def _schemas_from_tables(path: str) -> dict:
    """db_id -> (fingerprint, DDL, None) from a BIRD/Spider tables file, for results files
    written before runs stored their schemas."""
    import hashlib

    from spotit.experiments.inputs import _read_tables
    from spotit.schema import schema_from_tables_entry

    out = {}
    for db_id, entry in _read_tables(Path(path)).items():
        try:
            ddl = schema_from_tables_entry(entry, source=f"{path}#{db_id}").ddl
        except SpotItError:
            continue
        out[db_id] = (hashlib.sha256(ddl.encode("utf-8")).hexdigest(), ddl, None)
    return out


def _stage_progress_bar():
    """A progress bar per stage of a long command (checks, explanations) on stderr, when
    it is a terminal; otherwise a line per stage when it ends."""
    from tqdm import tqdm

    bars: dict = {}
    tty = sys.stderr.isatty()

    def update(stage: str, done: int, total: int, counts: dict[str, int]) -> None:
        if not tty:
            if done >= total:
                verdicts = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
                print(f"{stage}: {done} done ({verdicts})", file=sys.stderr)
            return
        b = bars.get(stage)
        if b is None:
            b = bars[stage] = tqdm(total=total, unit="check", desc=stage, file=sys.stderr,
                                   dynamic_ncols=True)
        if total != b.total:
            b.total = total
            b.refresh()
        b.update(done - b.n)
        b.set_postfix_str(", ".join(f"{k} {v}" for k, v in sorted(counts.items())))

    return update


def cmd_report(args) -> int:
    from spotit.experiments.report import summary_table, write_report

    if not Path(args.results).exists():
        raise SystemExit(f"spotit: error: no results file {args.results}")
    if args.accept_proposals is not None and not 0 <= args.accept_proposals <= 100:
        raise SystemExit("spotit: error: --accept-proposals takes a score from 0 to 100")
    try:
        summary = write_report(args.results, args.out, run_id=args.run,
                               gold_fixes=args.gold_fixes,
                               accept_proposals=args.accept_proposals, workers=args.jobs,
                               progress=_progress_bar())
    except SpotItError as e:
        raise SystemExit(f"spotit: error: {e}") from None
    print(summary_table(summary))
    print(f"\nreport: {Path(args.out) / 'index.html'}")
    return 0


def cmd_bench_solvers(args) -> int:
    from spotit.solverbench import bench_solvers
    from spotit.solverbench.entrants import lineup
    from spotit.solverbench.summary import format_table

    try:
        entrants = lineup(args.solver or [], args.solver_cmd or [], args.solver_logics or [])
        report = bench_solvers(Path(args.dir), entrants, timeout=args.timeout, out=Path(args.out),
                               jobs=args.jobs, limits=args.limits, progress=_run_bar())
    except SpotItError as e:
        print(f"spotit: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\nspotit: interrupted; finished runs are in {Path(args.out) / 'results.csv'}: "
              "rerun the same command to resume", file=sys.stderr)
        return 130
    summary = report.summary
    for item in summary["disagreements"]:
        answers = ", ".join(f"{s}: {a}" for s, a in item["answers"].items())
        print(f"DISAGREEMENT on {item['file']}: {answers}", file=sys.stderr)
    for item in summary["wrong_status"]:
        print(f"WRONG ANSWER on {item['file']}: {item['solver']} says {item['got']}, "
              f"the file's :status is {item['expected']}", file=sys.stderr)
    print(format_table(summary))
    print(f"\n{summary['files']} files, time limit {args.timeout:g} s, limits: "
          f"{summary['limits']} ({summary['limits_reason']}); {report.ran} runs now, "
          f"{report.reused} from an earlier run")
    print(f"results: {report.out / 'results.csv'}; summary, plots: {report.out}")
    return 1 if report.problems else 0


def _run_bar():
    """A progress bar on stderr (runs done, ETA) when it is a terminal."""
    if not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    bar: dict = {}

    def update(done: int, total: int, row) -> None:
        if "bar" not in bar:
            bar["bar"] = tqdm(total=total, unit="run", file=sys.stderr, dynamic_ncols=True)
        b = bar["bar"]
        b.update(done - b.n)
        b.set_postfix_str(f"{row.solver} {row.status}")
        if done >= total:
            b.close()

    return update


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="spotit",
        description="Bounded equivalence checking of SQL queries with SQLite-confirmed "
                    "counterexamples.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("check", help="check one (gold, predicted) pair")
    _add_check_args(p)
    p.add_argument("--rlimit", type=_positive_int, metavar="N",
                   help="deterministic resource limit on each solver call, in the solver's "
                        "own units (z3 rlimit, cvc5 rlimit-per; not yices): unlike "
                        "--timeout it stops at the same point on every machine and under "
                        "any load; a call it stops makes the verdict 'timeout' (resource "
                        "limit reached). Default: none")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--save-cex", metavar="PATH",
                   help="write the counterexample as a SQLite file (and PATH.sql)")
    p.add_argument("--no-explain", action="store_true",
                   help="do not search what a counterexample relies on (NULLs, duplicates, "
                        "repeated values, empty tables)")
    p.add_argument("--no-minimize", action="store_true",
                   help="report the first counterexample found, without shrinking it")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("smtlib", help="write SMT-LIB 2.6 benchmark files: one pair's bounds "
                                      "k = 1..K, or a whole benchmark's (--benchmark)")
    p.add_argument("--schema", help="one pair: DDL .sql file, SQLite database file, or "
                                    "tables.json (with --db-id)")
    p.add_argument("--db-id", help="database id inside a tables.json")
    p.add_argument("--gold", type=_sql_arg, help="one pair: gold SQL (or @file)")
    p.add_argument("--pred", action="append", metavar="SQL | NAME=FILE",
                   help="one pair: predicted SQL (or @file); with --benchmark: a system's "
                        "predictions (repeat for several systems)")
    p.add_argument("--benchmark", choices=["bird", "spider", "verieql"],
                   help="export a whole benchmark: DIR/<system>/<db_id>/q<id>_k<k>.smt2 "
                        "and DIR/index.csv")
    p.add_argument("--dev", help="with --benchmark: dev.json (gold queries); for verieql "
                                 "the .jsonlines file of pairs")
    p.add_argument("--tables", help="with --benchmark: dev_tables.json / tables.json")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--questions", help="question ids, comma-separated")
    which.add_argument("--limit", type=int, help="the first N questions")
    p.add_argument("--results", action="append", metavar="FILE",
                   help="results files of spotit evaluate runs: the known statuses (sat: a "
                        "confirmed counterexample; unsat: two solvers agree); repeatable")
    p.add_argument("--bound", "-k", type=int, default=5, help="max rows per table (default 5)")
    p.add_argument("--semantics", type=_semantics_arg,
                   help="result comparison (default: one pair set; a benchmark its own)")
    p.add_argument("--now", help="evaluation instant for 'now' (YYYY-MM-DD HH:MM:SS; "
                                 "with --benchmark the default is evaluate's)")
    _add_dialect_arg(p)
    _add_data_arg(p, ("declared", "sqlite", "realistic"))
    p.add_argument("--out", required=True, help="output directory")
    _add_constraints_arg(p, directory=True,
                         effect="encoded as assumptions over the schema (declared domains)")
    p.set_defaults(func=cmd_smtlib)

    p = sub.add_parser("example", help="run a bundled example check")
    p.add_argument("--solver", default="z3", choices=["z3", "cvc5"])
    p.set_defaults(func=cmd_example)

    p = sub.add_parser("functions", help="every function, operator and clause SpotIt encodes "
                                         "(exact or over-approximated), and what it refuses")
    p.add_argument("--markdown", action="store_true",
                   help="as docs/sql-reference.md (python -m spotit.reference --write ...)")
    p.set_defaults(func=cmd_functions)

    p = sub.add_parser("fuzz", help="check the encodings against SQLite on generated cases")
    budget = p.add_mutually_exclusive_group()
    budget.add_argument("--minutes", type=float, help="wall-clock budget (fractions allowed)")
    budget.add_argument("--checks", type=int,
                        help="stop after this many Thm 1 and Thm 2 checks in all (expressions, "
                        "window calls, queries on tables, table pairs), every part running "
                        "in its share as usual; with --jobs, split between the workers")
    budget.add_argument("--examples", type=int,
                        help="cases per claim and solver (expressions, table pairs; "
                             "query pairs: 1/4)")
    p.add_argument("--seed", type=int, default=0, help="the run is deterministic per seed")
    p.add_argument("--jobs", "-j", type=int,
                   help="worker processes, one seed each (seed*1000+i), the example budget "
                        "split between them (default 1)")
    p.add_argument("--solver", default="z3", choices=["z3", "cvc5", "both"])
    p.add_argument("--only", metavar="OPERATOR",
                   help="only expressions whose outermost operator is this one "
                        "(an IR class like LIKE, CAST, COMPARE, a function like SUBSTR, a "
                        "window function like RANK, WINDOW for every window function, "
                        "RULES for the canonical-form rules alone, or QUERIES for the "
                        "end-to-end query pairs alone)")
    p.add_argument("--seeds", metavar="FILE",
                   help="end-to-end query pairs are mutants of these queries: a file with one "
                        "query per line (with --schema) or a BIRD/Spider dev.json (with "
                        "--tables); QUERIES as --only runs that part alone")
    p.add_argument("--schema", help="with --seeds FILE of queries: their schema (DDL, a "
                                    "SQLite file or a tables.json entry)")
    p.add_argument("--tables", help="with --seeds dev.json: the benchmark's tables file")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--out", default="spotit-fuzz",
                   help="directory for reproducers (default ./spotit-fuzz)")
    p.add_argument("--mutants", action="store_true",
                   help="measure the fuzz: run it against each planted encoding bug "
                        "(spotit/mutants.py) until it finds it; reproducers go to "
                        "OUT/mutants/NAME/")
    p.add_argument("--only-mutant", nargs="+", metavar="NAME",
                   help="with --mutants: only these mutants (implies --mutants)")
    p.add_argument("--minutes-per-mutant", type=float, default=2.0,
                   help="with --mutants: budget per mutant (default 2)")
    p.set_defaults(func=cmd_fuzz)

    p = sub.add_parser("evaluate", help="check every prediction of one or more systems on a "
                                        "benchmark (BIRD, Spider, VeriEQL's pairs): EX-TEST, "
                                        "EX-SpotIt, EX-SpotIt+")
    p.add_argument("--benchmark", required=True,
                   choices=["bird", "spider", "spider2", "verieql"])
    p.add_argument("--dev", required=True,
                   help="dev.json (gold queries); for verieql the .jsonlines file of pairs; "
                        "for spider2 spider2-lite.jsonl (the task list)")
    p.add_argument("--tables", help="dev_tables.json / tables.json (bird, spider); for "
                                    "spider2 the folder of schemas (<db>.sql or <db>/DDL.csv)")
    p.add_argument("--gold", help="spider2: the folder of gold <instance_id>.sql files and "
                                  "spider2lite_eval.jsonl (default: evaluation_suite/gold "
                                  "next to --dev)")
    p.add_argument("--pred", action="append", metavar="NAME=FILE",
                   help="a system's predictions (repeat for several systems; bird, spider)")
    p.add_argument("--db-dir", help="the benchmark's SQLite databases, for EX-TEST")
    p.add_argument("--ex-labels", action="append", metavar="NAME=FILE",
                   help="EX-TEST results of a system, when there are no databases")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--questions", help="question ids, comma-separated")
    which.add_argument("--limit", type=int, help="the first N questions")
    p.add_argument("--bound", "-k", type=int, default=5, help="max rows per table (default 5)")
    p.add_argument("--solver", default="z3", choices=["z3", "cvc5", "portfolio", "yices"])
    p.add_argument("--semantics", type=_semantics_arg,
                   help="result comparison (default: BIRD set; Spider bag, list with ORDER BY; "
                        "Spider 2.0 spider2 per task; "
                        "VeriEQL bag)")
    _add_dialect_arg(p)
    p.add_argument("--explain", action="store_true",
                   help="for each refutation, search what it needs (NULLs, identical rows, "
                        "repeated values, empty tables; max(5 s, 10 x the check's time) "
                        "more per refutation, within --timeout)")
    _add_data_arg(p, ("declared", "sqlite", "realistic"))
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per check (default 60)")
    p.add_argument("--probe-trials", type=int, default=300,
                   help="random databases tried before the solver (0: solver only)")
    p.add_argument("--now", help="the instant 'now' means (default 2024-01-01 00:00:00)")
    p.add_argument("--ex-time-limit", type=float, default=30.0,
                   help="seconds for the gold query on the database (the prediction gets "
                        "this plus 3 x the gold's time)")
    p.add_argument("--jobs", "-j", type=int, help="worker processes (default: all cores)")
    p.add_argument("--executor", default="local", choices=["local", "dask"])
    p.add_argument("--scheduler", help="a Dask scheduler address (tcp://host:port)")
    p.add_argument("--results", default="spotit-results.sqlite",
                   help="the results file (resumable; default spotit-results.sqlite)")
    p.add_argument("--report", help="report directory (default: the results file's name)")
    p.add_argument("--audit", action="store_true",
                   help="then audit the gold (spotit audit): classes, findings, proposals")
    p.add_argument("--min-agree", type=int, metavar="M",
                   help="with --audit: systems a class needs to outvote the gold")
    _add_constraints_arg(p, directory=True)
    p.set_defaults(func=cmd_evaluate)

    p = sub.add_parser("constraints", help="constraints on the data: mine them from a database")
    csub = p.add_subparsers(dest="constraints_command", required=True)
    m = csub.add_parser("mine", help="the constraints a real SQLite database satisfies, in "
                                     "SpotIt's format (docs/constraints.md)")
    m.add_argument("--db", required=True, help="the SQLite database (opened read-only)")
    m.add_argument("--tables", nargs="+", metavar="T", help="only these tables")
    m.add_argument("--min-support", type=int, default=1,
                   help="rows a constraint must be seen on (default 1)")
    m.add_argument("--confidence", type=float, default=1.0,
                   help="least share of rows (groups) satisfying an approximate constraint "
                        "(default 1: exact only)")
    m.add_argument("--sample", type=int, metavar="N",
                   help="mine at most N random rows per table (ORDER BY random() LIMIT N)")
    m.add_argument("--out", required=True, help="the JSON file to write")
    m.set_defaults(func=cmd_constraints)

    p = sub.add_parser("audit", help="gold audit of an evaluation: which side is wrong when "
                                     "SpotIt refutes predictions (classes, findings, "
                                     "proposed corrections)")
    p.add_argument("results", help="the results file of spotit evaluate")
    p.add_argument("--run", type=int, help="a run id (default: the latest)")
    p.add_argument("--min-agree", type=int, metavar="M",
                   help="systems a class needs to outvote the gold (default: half the "
                        "systems, at least 2)")
    p.add_argument("--out", help="directory for audit.jsonl and audit.csv (default: "
                                 "REPORT/audit)")
    p.add_argument("--report", help="report directory, rewritten with the Audit section "
                                    "(default: the results file's name)")
    p.add_argument("--jobs", "-j", type=int, help="worker processes (default: all cores)")
    p.add_argument("--no-explain", action="store_true",
                   help="do not search what each finding's counterexample needs")
    p.add_argument("--tables", help="the benchmark's tables file, for results files written "
                                    "before runs stored their schemas")
    p.set_defaults(func=cmd_audit)

    p = sub.add_parser("report", help="write the report of an evaluation's results file")
    p.add_argument("results", help="the results file of spotit evaluate")
    p.add_argument("--out", required=True, help="report directory")
    p.add_argument("--run", type=int, help="a run id (default: the latest)")
    p.add_argument("--gold-fixes", metavar="FILE",
                   help="corrected gold queries or exclusions (JSON or CSV; audit.csv with "
                        "its verdict column filled in): also score against the audited gold")
    p.add_argument("--accept-proposals", type=float, metavar="MIN_SCORE",
                   help="take the gold audit's proposals scoring at least MIN_SCORE as "
                        "corrections (a --gold-fixes entry wins over a proposal)")
    p.add_argument("--jobs", "-j", type=int,
                   help="worker processes for checks against corrected gold queries")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser(
        "bench-solvers", help="run SMT solvers on every .smt2 file under a directory and "
                              "compare them (PAR-2, cactus and scatter plots)",
        description="Every solver on every .smt2 file under DIR, each run a process of its own "
                    "with a wall-clock limit and its peak memory measured. Results are "
                    "appended to OUT/results.csv as runs finish: rerun the same command to "
                    "resume. Exit status 1 when solvers disagree (sat vs unsat) or contradict "
                    "a file's :status.")
    p.add_argument("dir", metavar="DIR", help="directory searched recursively for .smt2 files")
    p.add_argument("--solver", action="append", metavar="NAME",
                   help="a built-in solver: z3, cvc5 (our bindings, in a worker process) or "
                        "yices (yices-smt2, if installed); repeat for several (default: z3 and "
                        "cvc5 when no --solver-cmd is given either)")
    p.add_argument("--solver-cmd", action="append", metavar="NAME=CMD",
                   help="an SMT-LIB solver command line with {file} (and optionally "
                        "{timeout}, the limit in seconds), e.g. z3-4.8='z3-4.8 -smt2 {file}'; "
                        "its first output line sat/unsat/unknown is the answer")
    p.add_argument("--solver-logics", action="append", metavar="NAME=L1,L2",
                   help="run solver NAME only on files whose (set-logic ...) is one of these "
                        "(others are 'skipped'); replaces a built-in list such as yices'")
    p.add_argument("--timeout", type=float, default=60.0,
                   help="wall-clock seconds per run (default 60); PAR-2 charges 2x this")
    p.add_argument("--jobs", "-j", type=int, default=1,
                   help="runs at a time (default 1). Parallel runs share cores, caches and "
                        "memory bandwidth and so slow each other: for times you publish, use "
                        "1, or at most one per idle physical core")
    p.add_argument("--limits", default="auto", choices=["auto", "runexec", "process"],
                   help="how limits are enforced and memory measured: BenchExec's runexec "
                        "(cgroups; pip install 'spotit[benchexec]'), plain processes, or auto "
                        "(runexec where it works; default)")
    p.add_argument("--out", default="spotit-solverbench",
                   help="output directory (default ./spotit-solverbench)")
    p.set_defaults(func=cmd_bench_solvers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except OSError as e:
        print(f"spotit: error: {e.strerror}: {e.filename}", file=sys.stderr)
        return 2
    except SpotItError as e:
        print(f"spotit: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
