"""Text against a constant, two ways: SMT-LIB's ``str.<`` and the regular-language
membership SpotIt writes (``spotit.smt.ops.re_below`` / ``re_above``), timed on z3 and
cvc5 on the same formulas.

Plain script, not a test::

    python benchmarks/bench_text_order.py [--reps 3] [--timeout 20]

Each formula is a date range over one text symbol ``x``, as BIRD and Spider 2.0 filter
dates kept as TEXT: satisfiable (some x in the range) and unsatisfiable (no x in it that
does not start with the year). Printed per formula, form and solver: the median and the
largest time of the repetitions (a timeout counts as the limit) and the answers.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from pysmt.shortcuts import And, Not, String, Symbol
from pysmt.typing import STRING

from spotit.smt import ops
from spotit.smt.printer import SmtLibWriter
from spotit.solvers import available_solvers, get_solver

RANGES = [("2017-01-01", "2017-12-31 23:59:59", "2017"), ("2012-06", "2012-06-30", "2012-06")]


FORMS = ("str.<=", "not str.<", "membership")


def formulas(lo: str, hi: str, prefix: str) -> dict[str, tuple]:
    """name -> the formula in each of FORMS: lo <= x <= hi, and the same without the
    prefix. ``not str.<`` is how the encoder wrote BETWEEN before the memberships."""
    x = Symbol("x", STRING)
    outside = Not(ops.str_in_re(x, ops.re_concat(ops.str_to_re(String(prefix)), ops.re_all())))
    order = And(ops.str_le(String(lo), x), ops.str_le(x, String(hi)))
    negated = And(Not(ops.str_lt(x, String(lo))), Not(ops.str_lt(String(hi), x)))
    member = And(ops.str_in_re(x, ops.re_above(lo, strict=False)),
                 ops.str_in_re(x, ops.re_below(hi, strict=False)))
    return {f"{lo} <= x <= {hi} (sat)": (order, negated, member),
            f"... and x not starting with {prefix} (unsat)": (
                And(order, outside), And(negated, outside), And(member, outside))}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=20.0)
    args = ap.parse_args(argv)
    solvers = [s for s in ("z3", "cvc5") if s in available_solvers()]
    print(f"{'formula':52} {'form':10} {'solver':6} {'median s':>9} {'max s':>7}  answers")
    for lo, hi, prefix in RANGES:
        for name, forms in formulas(lo, hi, prefix).items():
            for form, formula in zip(FORMS, forms, strict=True):
                script = SmtLibWriter().script([formula], check_sat=True)
                for solver in solvers:
                    times, answers = [], []
                    for _ in range(args.reps):
                        start = time.perf_counter()
                        result = get_solver(solver).check(script, timeout=args.timeout)
                        times.append(min(time.perf_counter() - start, args.timeout))
                        answers.append(result.status.value)
                    print(f"{name:52} {form:10} {solver:6} {statistics.median(times):9.2f} "
                          f"{max(times):7.2f}  {','.join(sorted(set(answers)))}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
