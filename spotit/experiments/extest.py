"""EX-TEST: run the gold and the predicted query on the benchmark's real database and compare.

This is the baseline SpotIt is measured against, so it follows the official scripts'
comparisons exactly, quirks included:

- **BIRD**: ``set(pred_rows) == set(gold_rows)`` (duplicates and order ignored).
- **Spider**: test-suite-sql-eval's ``result_eq``: results are compared as bags, up to
  a permutation of the prediction's columns, and as lists only when the gold's text
  contains ``order by`` anywhere (a subquery's ORDER BY, or the words in a string,
  count too -- ``spider_order_matters`` keeps that quirk; ``inputs.Question.semantics``
  is the parsed alternative SpotIt itself uses). Its quick reject on sorted cells is
  kept as well, including its sort key ``str(x) + str(type(x))``.

What differs from the official scripts, on purpose:

- test-suite's rewrites are *not* applied: no ``remove_distinct`` (which would judge
  ``COUNT(DISTINCT a)`` equal to ``COUNT(a)``), no ``plug_value``, no ``'> ='`` repair,
  no ``YEAR(CURDATE())`` substitution. The SQL is run as written, the same text the
  bounded checker reads. Only the one database ``<db_id>.sqlite`` is used, not a
  directory of distilled test databases.
- Text that is not valid UTF-8 is decoded with U+FFFD replacement characters, so one
  bad cell neither aborts the query nor (as test-suite's ``errors="ignore"`` does)
  silently merges different byte strings.
- A gold query that fails or runs out of time makes the pair unknown (``None``), never
  an assertion and never a vacuous pass; a failing prediction is simply wrong.
- Databases are opened read-only (``mode=ro``, ``query_only``, ATTACH refused), and time
  limits are real: a progress handler interrupts SQLite once the deadline passes
  (test-suite's asyncio timeout cannot fire around a blocking call). The deadline is
  checked every ``validate.PROGRESS_OPCODES`` virtual-machine instructions, so one very long
  instruction (a huge sort) can overrun it; the batch runner's hard limit covers that.
"""

from __future__ import annotations

import sqlite3
import time
import urllib.parse
from collections import Counter, defaultdict
from collections.abc import Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from spotit.experiments.inputs import BENCHMARKS, InputError
from spotit.validate import Deadline

PRED_TIME_FACTOR = 3.0  # the prediction gets time_limit + 3 x the gold's time (test-suite)
_LAYOUTS = {"bird": "dev_databases", "spider": "database", "spider2": "spider2-localdb"}

Rows = Sequence[Sequence]


def database_path(db_dir: str | Path, db_id: str, benchmark: str) -> Path:
    """``<db_id>/<db_id>.sqlite`` under DIR, or under DIR/dev_databases (BIRD) or DIR/database."""
    kind = _kind(benchmark)
    base = Path(db_dir)
    tried = [base / db_id / f"{db_id}.sqlite", base / _LAYOUTS[kind] / db_id / f"{db_id}.sqlite"]
    if kind == "spider2":  # spider2-localdb/<db>.sqlite
        tried = [base / f"{db_id}.sqlite", base / _LAYOUTS[kind] / f"{db_id}.sqlite"]
    for path in tried:
        if path.is_file():
            return path
    raise InputError(f"no database for {db_id}: neither {tried[0]} nor {tried[1]} exists")


def open_readonly(path: str | Path) -> sqlite3.Connection:
    """Open a database so that nothing run on it can change it or create files.

    ``mode=ro`` protects the file itself; ``query_only`` also refuses temporary tables;
    the authorizer refuses ATTACH (and so ``VACUUM INTO``), which would create files,
    and switching ``query_only`` off. A file that is not a database fails here.
    """
    uri = "file:" + urllib.parse.quote(str(Path(path).resolve())) + "?mode=ro"
    conn = sqlite3.connect(uri, uri=True)
    try:
        conn.execute("PRAGMA query_only = ON")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.Error:
        conn.close()
        raise
    conn.set_authorizer(_authorize)
    conn.text_factory = _decode
    return conn


def _authorize(action: int, arg1: str | None, *_: object) -> int:
    if action in (sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH):
        return sqlite3.SQLITE_DENY
    if action == sqlite3.SQLITE_PRAGMA and (arg1 or "").lower() == "query_only":
        return sqlite3.SQLITE_DENY
    return sqlite3.SQLITE_OK


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


@dataclass(frozen=True)
class Execution:
    rows: list[tuple] | None  # None when the query failed or timed out
    error: str | None
    seconds: float
    timed_out: bool = False


def execute(conn: sqlite3.Connection, sql: str, time_limit: float) -> Execution:
    """Run one query with a real wall-clock limit; never raises for a bad query."""
    start = time.perf_counter()
    old_factory = conn.text_factory
    conn.text_factory = _decode
    deadline = Deadline(conn, time.monotonic() + time_limit)
    try:
        with deadline, closing(conn.cursor()) as cur:
            cur.execute(sql)
            if cur.description is None:
                return Execution(None, "not a query: it returns no columns",
                                 time.perf_counter() - start)
            rows = cur.fetchall()
    except (sqlite3.Error, sqlite3.Warning, ValueError, OverflowError, MemoryError) as e:
        seconds = time.perf_counter() - start
        if deadline.fired:
            return Execution(None, f"timed out after {time_limit:g} s", seconds, True)
        return Execution(None, str(e) or type(e).__name__, seconds)
    finally:
        conn.text_factory = old_factory
    return Execution(rows, None, time.perf_counter() - start)


# --------------------------------------------------------------------------- comparisons


def bird_equal(gold_rows: Rows, pred_rows: Rows) -> bool:
    """BIRD's official check: ``set(pred) == set(gold)``."""
    return {tuple(r) for r in pred_rows} == {tuple(r) for r in gold_rows}


def spider_order_matters(gold_sql: str) -> bool:
    """test-suite-sql-eval's rule, quirk included: ``'order by' in gold.lower()``.

    It is true for an ORDER BY in a subquery or inside a string literal too; that is
    deliberate here, to reproduce the official numbers.
    """
    return "order by" in gold_sql.lower()


def _unorder_row(row: tuple) -> tuple:
    # test-suite's sort key: 1 and 1.0 sort apart, so mixed types can fail the quick reject
    return tuple(sorted(row, key=lambda x: str(x) + str(type(x))))


def spider_equal(gold_rows: Rows, pred_rows: Rows, order_matters: bool) -> bool:
    """test-suite-sql-eval's ``result_eq``: equal up to a permutation of columns.

    Rows are compared as lists when ``order_matters`` and as bags otherwise; cells with
    Python's ``==`` (so ``1 == 1.0`` but ``1 != '1'``; NULL equals NULL).
    """
    gold = [tuple(r) for r in gold_rows]
    pred = [tuple(r) for r in pred_rows]
    if not gold and not pred:
        return True
    if len(gold) != len(pred) or len(gold[0]) != len(pred[0]):
        return False
    unordered_gold = [_unorder_row(r) for r in gold]
    unordered_pred = [_unorder_row(r) for r in pred]
    if order_matters and unordered_gold != unordered_pred:
        return False
    if not order_matters and set(unordered_gold) != set(unordered_pred):
        return False
    return _column_permutation_exists(gold, pred, order_matters)


def _column_permutation_exists(gold: list[tuple], pred: list[tuple], ordered: bool) -> bool:
    """Is there a permutation p with gold == [row[p] for row in pred] (as lists or as bags)?

    test-suite enumerates permutations, pruned beyond 3 columns by 20 random rows; a
    pruned permutation can never be a solution, so its answer is this exact search's.
    Here gold column c may take pred column j only if the two columns are equal (as
    lists, or as bags), identical pred columns are interchangeable (only the first
    unused one is tried), and each partial assignment must already match on the
    columns assigned so far.
    """
    n = len(gold[0])
    if n == 1:
        return gold == pred if ordered else Counter(gold) == Counter(pred)
    gold_cols = [tuple(r[c] for r in gold) for c in range(n)]
    pred_cols = [tuple(r[j] for r in pred) for j in range(n)]

    def same_column(a: tuple, b: tuple) -> bool:
        return a == b if ordered else Counter(a) == Counter(b)

    # pred columns with identical contents form one class: which one is used cannot matter
    classes: dict[int, list[int]] = defaultdict(list)
    for j in range(n):
        first = next(k for k in range(j + 1) if pred_cols[k] == pred_cols[j])
        classes[first].append(j)
    options = [[k for k in classes if same_column(gold_cols[c], pred_cols[k])] for c in range(n)]
    if any(not o for o in options):
        return False
    order = sorted(range(n), key=lambda c: len(options[c]))
    used: Counter[int] = Counter()
    chosen: dict[int, int] = {}

    def projections_match(cols: list[int]) -> bool:
        g = [tuple(r[c] for c in cols) for r in gold]
        p = [tuple(r[chosen[c]] for c in cols) for r in pred]
        return g == p if ordered else Counter(g) == Counter(p)

    def search(depth: int) -> bool:
        if depth == n:
            return True
        c = order[depth]
        for k in options[c]:
            if used[k] == len(classes[k]):
                continue
            chosen[c] = classes[k][used[k]]
            used[k] += 1
            if projections_match(order[:depth + 1]) and search(depth + 1):
                return True
            used[k] -= 1
            del chosen[c]
        return False

    return search(0)


# --------------------------------------------------------------------------- one pair


@dataclass(frozen=True)
class ExTest:
    correct: bool | None  # None: unknown (the gold failed, or the database did not open)
    reason: str
    gold_seconds: float
    pred_seconds: float


def ex_test(db_path: str | Path, gold: str, pred: str | None, benchmark: str,
            time_limit: float = 30.0, semantics: str | None = None) -> ExTest:
    """EX-TEST of one pair as the benchmark's official script judges it; never raises for a
    bad query or database (an unknown benchmark name is a programming error and does)."""
    kind = _kind(benchmark)
    try:
        conn = open_readonly(db_path)
    except (sqlite3.Error, OSError, ValueError) as e:
        return ExTest(None, f"cannot open database {db_path}: {e}", 0.0, 0.0)
    with closing(conn):
        g = execute(conn, gold, time_limit) if gold.strip() else Execution(
            None, "the gold query is empty", 0.0)
        if g.rows is None:
            return ExTest(None, f"gold failed on the database: {g.error}", g.seconds, 0.0)
        if pred is None or not pred.strip():
            return ExTest(False, "no prediction", g.seconds, 0.0)
        p = execute(conn, pred, time_limit + PRED_TIME_FACTOR * g.seconds)
    if p.rows is None:
        what = "prediction timed out" if p.timed_out else "prediction failed"
        return ExTest(False, f"{what}: {p.error}", g.seconds, p.seconds)
    if kind == "bird":
        equal = bird_equal(g.rows, p.rows)
    elif kind == "spider2":  # the question's comparison (condition columns, order)
        from spotit.encodings.equivalence import Spider2, comparison
        from spotit.spider2 import results_match

        how = comparison(semantics or "spider2")
        equal = results_match(list(g.rows), list(p.rows),
                              how if isinstance(how, Spider2) else Spider2())
    else:
        equal = spider_equal(g.rows, p.rows, spider_order_matters(gold))
    reason = "results equal" if equal else (
        f"results differ ({len(g.rows)} gold rows, {len(p.rows)} predicted rows)")
    return ExTest(equal, reason, g.seconds, p.seconds)


def _kind(benchmark: str) -> str:
    kind = str(benchmark).strip().lower()
    if kind not in BENCHMARKS:
        raise InputError(f"unknown benchmark {benchmark!r}: use bird or spider")
    return kind
