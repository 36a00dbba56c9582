"""Command line: ``spotit check | smtlib | example | fuzz``.

Exit status is 0 for every verdict (a verdict is an answer, not a failure)
and 2 for usage errors; ``spotit fuzz`` exits 1 when it found a discrepancy.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from datetime import datetime
from pathlib import Path

from spotit.errors import SpotItError


def _sql_arg(value: str) -> str:
    """SQL text, or ``@path`` to read it from a file."""
    if value.startswith("@"):
        return Path(value[1:]).read_text(encoding="utf-8")
    return value


def _add_check_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--schema", required=True,
                   help="DDL .sql file, SQLite database file, or tables.json (with --db-id)")
    p.add_argument("--db-id", help="database id inside a tables.json")
    p.add_argument("--gold", required=True, type=_sql_arg, help="gold SQL (or @file)")
    p.add_argument("--pred", required=True, type=_sql_arg, help="predicted SQL (or @file)")
    p.add_argument("--bound", "-k", type=int, default=5, help="max rows per table (default 5)")
    p.add_argument("--solver", default="z3", choices=["z3", "cvc5"])
    p.add_argument("--semantics", default="set", choices=["set", "bag", "list"])
    p.add_argument("--timeout", type=float, default=60.0, help="seconds for the whole check")
    p.add_argument("--now", help="evaluation instant for 'now' (YYYY-MM-DD HH:MM:SS)")
    p.add_argument("--probe-trials", type=int, default=300,
                   help="random databases tried before the solver (0: solver only)")
    _add_dialect_arg(p)


def _add_dialect_arg(p: argparse.ArgumentParser) -> None:
    from spotit.frontend.dialects import dialect_names

    p.add_argument("--dialect", default="sqlite", choices=dialect_names(),
                   help="the SQL dialect of the queries: transpiled to SQLite where the "
                        "meaning is the same, unsupported where it is not (generic/ansi: "
                        "sqlglot's generic SQL, e.g. Calcite's; mysql is read as with a "
                        "case-sensitive binary collation); see docs/dialects.md")


def _now(args) -> datetime | None:
    if not args.now:
        return None
    try:
        return datetime.fromisoformat(args.now)
    except ValueError:
        raise SystemExit(f"spotit: error: --now must look like 2024-01-31 12:00:00, "
                         f"not {args.now!r}") from None


def cmd_check(args) -> int:
    from spotit.pipeline import check, coerce_schema
    from spotit.report import format_result, sql_script
    from spotit.validate import build_database

    if args.bound < 1:
        raise SystemExit("spotit: error: --bound must be at least 1")
    res = check(args.schema, args.gold, args.pred, bound=args.bound, solver=args.solver,
                semantics=args.semantics, timeout=args.timeout, db_id=args.db_id,
                now=_now(args), minimize=not args.no_minimize,
                probe_trials=args.probe_trials, dialect=args.dialect)
    schema = None
    with contextlib.suppress(SpotItError):
        schema = coerce_schema(args.schema, args.db_id)
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


def cmd_smtlib(args) -> int:
    from spotit.export import export_smtlib

    paths = export_smtlib(args.schema, args.gold, args.pred, out_dir=args.out,
                          bound=args.bound, semantics=args.semantics, db_id=args.db_id,
                          now=_now(args), dialect=args.dialect)
    for p in paths:
        print(p)
    return 0


def cmd_example(args) -> int:
    from spotit.examples import run_example

    print(run_example(args.solver))
    return 0


def cmd_fuzz(args) -> int:
    from spotit.proofs.fuzz import fuzz
    from spotit.proofs.generators import operator_names

    if args.only and args.only.upper() not in operator_names():
        names = ", ".join(sorted(operator_names()))
        raise SystemExit(f"spotit: error: --only {args.only!r} is not an operator; one of: "
                         f"{names}")
    if args.examples is not None and args.examples < 1:
        raise SystemExit("spotit: error: --examples must be at least 1")
    if args.minutes is not None and args.minutes <= 0:
        raise SystemExit("spotit: error: --minutes must be positive")
    solvers = ("z3", "cvc5") if args.solver == "both" else (args.solver,)
    progress = None if args.json else (lambda line: print(line, file=sys.stderr, flush=True))
    if args.jobs is not None and args.jobs < 1:
        raise SystemExit("spotit: error: --jobs must be at least 1")
    if args.jobs and args.jobs > 1:
        from spotit.proofs.fuzz import fuzz_in_parallel

        report = fuzz_in_parallel(jobs=args.jobs, examples=args.examples, minutes=args.minutes,
                                  seed=args.seed, solvers=solvers, only=args.only,
                                  out_dir=str(args.out), progress=progress)
    else:
        report = fuzz(examples=args.examples, minutes=args.minutes, seed=args.seed,
                      solvers=solvers, only=args.only, out_dir=args.out, progress=progress)
    print(json.dumps(report.to_json(), default=str) if args.json else report.summary())
    return 1 if report.discrepancies else 0


def cmd_evaluate(args) -> int:
    from spotit.experiments.inputs import parse_named_path
    from spotit.experiments.report import summary_table, write_report
    from spotit.experiments.runners import EvaluationSettings, run_evaluation

    if args.bound < 1:
        raise SystemExit("spotit: error: --bound must be at least 1")
    if args.scheduler and args.executor != "dask":
        args.executor = "dask"
    _check_benchmark_args(args)
    try:
        preds = dict(parse_named_path(p, "--pred") for p in args.pred or [])
        labels = dict(parse_named_path(p, "--ex-labels") for p in args.ex_labels or [])
        settings = EvaluationSettings(
            benchmark=args.benchmark, bound=args.bound, solver=args.solver,
            timeout=args.timeout, semantics=args.semantics, probe_trials=args.probe_trials,
            now=args.now or EvaluationSettings.now, ex_time_limit=args.ex_time_limit,
            dialect=args.dialect)
        store, run_id = run_evaluation(
            benchmark=args.benchmark, dev=args.dev, tables=args.tables, predictions=preds,
            results=args.results, db_dir=args.db_dir, ex_labels=labels,
            questions=args.questions, limit=args.limit, settings=settings, workers=args.jobs,
            executor=args.executor, scheduler=args.scheduler, progress=_progress_bar())
    except SpotItError as e:
        raise SystemExit(f"spotit: error: {e}") from None
    summary = write_report(args.results, args.report or Path(args.results).with_suffix(""),
                           run_id=run_id)
    store.close()
    print(summary_table(summary))
    print(f"\nresults: {args.results}; report: "
          f"{args.report or Path(args.results).with_suffix('')}/index.html")
    return 0


def _check_benchmark_args(args) -> None:
    """BIRD and Spider need a tables file and predictions; a VeriEQL file holds both
    queries and the schema of every pair, and has no databases."""
    if args.benchmark == "verieql":
        given = [flag for flag, value in (("--tables", args.tables), ("--pred", args.pred),
                                          ("--db-dir", args.db_dir),
                                          ("--ex-labels", args.ex_labels)) if value]
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


def cmd_report(args) -> int:
    from spotit.experiments.report import summary_table, write_report

    if not Path(args.results).exists():
        raise SystemExit(f"spotit: error: no results file {args.results}")
    summary = write_report(args.results, args.out, run_id=args.run)
    print(summary_table(summary))
    print(f"\nreport: {Path(args.out) / 'index.html'}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="spotit",
        description="Bounded equivalence checking of SQL queries with SQLite-confirmed "
                    "counterexamples.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("check", help="check one (gold, predicted) pair")
    _add_check_args(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--save-cex", metavar="PATH",
                   help="write the counterexample as a SQLite file (and PATH.sql)")
    p.add_argument("--no-minimize", action="store_true",
                   help="report the first counterexample found, without shrinking it")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("smtlib", help="write the SMT-LIB 2.6 script of each bound k")
    _add_check_args(p)
    p.add_argument("--out", required=True, help="directory for k1.smt2 ... kK.smt2")
    p.set_defaults(func=cmd_smtlib)

    p = sub.add_parser("example", help="run a bundled example check")
    p.add_argument("--solver", default="z3", choices=["z3", "cvc5"])
    p.set_defaults(func=cmd_example)

    p = sub.add_parser("fuzz", help="check the encodings against SQLite on generated cases")
    budget = p.add_mutually_exclusive_group()
    budget.add_argument("--minutes", type=float, help="wall-clock budget (fractions allowed)")
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
                        "(an IR class like LIKE, CAST, COMPARE, or a function like SUBSTR)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--out", default="spotit-fuzz",
                   help="directory for reproducers (default ./spotit-fuzz)")
    p.set_defaults(func=cmd_fuzz)

    p = sub.add_parser("evaluate", help="check every prediction of one or more systems on a "
                                        "benchmark (BIRD, Spider, VeriEQL's pairs): EX-TEST, "
                                        "EX-SpotIt, EX-SpotIt+")
    p.add_argument("--benchmark", required=True, choices=["bird", "spider", "verieql"])
    p.add_argument("--dev", required=True,
                   help="dev.json (gold queries); for verieql the .jsonlines file of pairs")
    p.add_argument("--tables", help="dev_tables.json / tables.json (bird, spider)")
    p.add_argument("--pred", action="append", metavar="NAME=FILE",
                   help="a system's predictions (repeat for several systems; bird, spider)")
    p.add_argument("--db-dir", help="the benchmark's SQLite databases, for EX-TEST")
    p.add_argument("--ex-labels", action="append", metavar="NAME=FILE",
                   help="EX-TEST results of a system, when there are no databases")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--questions", help="question ids, comma-separated")
    which.add_argument("--limit", type=int, help="the first N questions")
    p.add_argument("--bound", "-k", type=int, default=5, help="max rows per table (default 5)")
    p.add_argument("--solver", default="z3", choices=["z3", "cvc5"])
    p.add_argument("--semantics", choices=["set", "bag", "list"],
                   help="result comparison (default: BIRD set; Spider bag, list with ORDER BY; "
                        "VeriEQL bag)")
    _add_dialect_arg(p)
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
    p.set_defaults(func=cmd_evaluate)

    p = sub.add_parser("report", help="write the report of an evaluation's results file")
    p.add_argument("results", help="the results file of spotit evaluate")
    p.add_argument("--out", required=True, help="report directory")
    p.add_argument("--run", type=int, help="a run id (default: the latest)")
    p.set_defaults(func=cmd_report)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except OSError as e:
        print(f"spotit: error: {e.strerror}: {e.filename}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
