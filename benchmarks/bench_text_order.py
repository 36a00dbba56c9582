"""Text compared with constants (dates kept as TEXT, long names), decided by the solver
alone: whole checks with the random search off, on z3 and cvc5.

Plain script, not a test::

    python benchmarks/bench_text_order.py [--reps 3] [--timeout 20] [--bound 2]
        [--solver z3 --solver cvc5] [--only SUBSTRING]

Two kinds of pairs, because an encoding of text order can favour one and ruin the other:

- *ranges*: a text between two constants, refuted or proved (``BETWEEN '2017-01-01'
  AND '2017-12-31'`` against ``>= '2017-01-01' AND < '2018'``), which SMT-LIB's
  ``str.<`` searches slowly;
- *same constant*: comparisons of one text with one constant that must be related
  (``a < c OR a = c`` against ``a <= c``), which regular-language memberships alone
  prove slowly as the constant grows (19 and 43 characters here).

Each expected verdict is derived by hand in the comment beside the pair. Printed per
pair and solver: the median and largest time of the repetitions (an answer other than
the expected one counts as the time limit) and the verdicts seen; then per solver the
median, p95 and number of pairs not decided as expected. To compare encodings, run it
on each (a worktree of the older commit on ``PYTHONPATH``): it uses only
``spotit.pipeline.check``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from spotit.pipeline import check
from spotit.solvers import available_solvers

SCHEMA = ("CREATE TABLE orders(id TEXT, bought TEXT, approved TEXT);"
          " CREATE TABLE t(a TEXT, b INTEGER);")
DATE = "2017-12-31 23:59:59"
NAME = "International Business Machines Corporation"
EQ, NEQ = "equivalent", "not_equivalent"


def _same_constant(c: str) -> list[tuple[str, str, str]]:
    """Five proofs relating comparisons of ``a`` with the one constant ``c`` (the order
    is total: below, equal or above, exactly one)."""
    w = "SELECT a FROM t WHERE "
    return [(w + f"a < '{c}' OR a = '{c}'", w + f"a <= '{c}'", EQ),
            (w + f"a >= '{c}' AND a <= '{c}'", w + f"a = '{c}'", EQ),
            (w + f"NOT a < '{c}'", w + f"a >= '{c}'", EQ),
            (w + f"a > '{c}' OR a < '{c}'", w + f"a <> '{c}'", EQ),
            (w + f"a = '{c}' AND b > 0", w + f"a <= '{c}' AND a >= '{c}' AND b > 0", EQ)]


RANGES = [
    # a row with `bought` in 2017 and `approved` NULL
    ("SELECT id FROM orders WHERE bought BETWEEN '2017-01-01' AND '2017-12-31 23:59:59'",
     "SELECT id FROM orders WHERE approved BETWEEN '2017-01-01' AND '2017-12-31 23:59:59'", NEQ),
    # '2017-12-31 10:00' is after '2017-12-31' and before '2018'
    ("SELECT id FROM orders WHERE bought BETWEEN '2017-01-01' AND '2017-12-31'",
     "SELECT id FROM orders WHERE bought >= '2017-01-01' AND bought < '2018'", NEQ),
    # '2017-06' itself
    ("SELECT id FROM orders WHERE bought > '2017-06'",
     "SELECT id FROM orders WHERE bought >= '2017-06'", NEQ),
    # at least '2017' and below '2018' is starting with '2017' (the fourth character
    # must be '7': an '8' makes it at least '2018'; nothing shorter fits)
    ("SELECT id FROM orders WHERE bought >= '2017' AND bought < '2018'",
     "SELECT id FROM orders WHERE SUBSTR(bought, 1, 4) = '2017'", EQ),
    ("SELECT id FROM orders WHERE bought >= '2017' AND bought < '2018'",
     "SELECT id FROM orders WHERE bought GLOB '2017*'", EQ),
    # BETWEEN is its two comparisons
    (f"SELECT id FROM orders WHERE bought BETWEEN '2017-01-01' AND '{DATE}'",
     f"SELECT id FROM orders WHERE bought >= '2017-01-01' AND bought <= '{DATE}'", EQ),
    # below '2017' implies below '2018'
    ("SELECT a FROM t WHERE a < '2017' AND a < '2018'", "SELECT a FROM t WHERE a < '2017'", EQ),
    # '2017-12-31 12:00' is in the first range, not in the second
    (f"SELECT a FROM t WHERE a >= '2017-01-01' AND a <= '{DATE}'",
     "SELECT a FROM t WHERE a >= '2017-01-01' AND a <= '2017-12-31'", NEQ),
]

PAIRS = RANGES + _same_constant(DATE) + _same_constant(NAME)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=20.0)
    ap.add_argument("--bound", type=int, default=2)
    ap.add_argument("--solver", action="append", choices=("z3", "cvc5"))
    ap.add_argument("--only", help="run only the pairs whose text contains this")
    args = ap.parse_args(argv)
    solvers = [s for s in (args.solver or ["z3", "cvc5"]) if s in available_solvers()]
    pairs = [p for p in PAIRS if not args.only or args.only in p[0] + p[1]]
    per_solver: dict[str, list[float]] = {s: [] for s in solvers}
    wrong: dict[str, int] = {s: 0 for s in solvers}
    print(f"{'pair':74} {'solver':6} {'median s':>9} {'max s':>7}  verdicts")
    for gold, pred, expected in pairs:
        label = f"{gold[gold.index('WHERE') + 6:]} | {pred[pred.index('WHERE') + 6:]}"
        for solver in solvers:
            times, seen = [], set()
            for _ in range(args.reps):
                start = time.perf_counter()
                r = check(SCHEMA, gold, pred, bound=args.bound, timeout=args.timeout,
                          solver=solver, probe_trials=0)
                took = time.perf_counter() - start
                seen.add(r.verdict.value)
                times.append(took if r.verdict.value == expected else args.timeout)
            if seen != {expected}:
                wrong[solver] += 1
            per_solver[solver].append(statistics.median(times))
            print(f"{label[:74]:74} {solver:6} {statistics.median(times):9.2f} "
                  f"{max(times):7.2f}  {','.join(sorted(seen))}", flush=True)
    for solver, times in per_solver.items():
        times.sort()
        p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
        print(f"{solver}: {len(times)} pairs, median {statistics.median(times):.2f} s, "
              f"p95 {p95:.2f} s, not decided as expected: {wrong[solver]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
