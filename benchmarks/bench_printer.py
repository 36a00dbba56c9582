"""Time the SMT-LIB printer on a ~100k-node formula, and z3/cvc5 parse time of its text.

Plain script, not a test: ``python benchmarks/bench_printer.py [--runs 5] [--size 100000]``.
Prints the median of several runs for each step. The formula imitates an encoding:
a running count over rows (a deep chain of shared ITEs), string conditions, and
per-row predicates over a pool of symbols.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from pysmt.fnode import FNode
from pysmt.shortcuts import (
    GT,
    And,
    Equals,
    Int,
    Ite,
    Or,
    Plus,
    StrConcat,
    StrContains,
    String,
    StrLength,
    Symbol,
)
from pysmt.typing import BOOL, INT, STRING

from spotit.smt import ops
from spotit.smt.printer import SmtLibWriter, formula_size
from spotit.solvers import Solver, available_solvers, get_solver


def build(target_nodes: int) -> list[FNode]:
    """About ``target_nodes`` distinct DAG nodes (checked by the caller)."""
    ints = [Symbol(f"a{i}", INT) for i in range(200)]
    strs = [Symbol(f"s{i}", STRING) for i in range(50)]
    flags = [Symbol(f"del{i}", BOOL) for i in range(200)]
    count: FNode = Int(0)
    text: FNode = String("")
    steps = round(target_nodes / 3.6)  # ~3.6 new nodes per step: the rest is hash-consed
    for i in range(steps):
        row = i % 200
        present = Or(flags[row], GT(ints[row], Int(i % 23)))
        like = ops.str_in_re(strs[i % 50], ops.re_concat_all(
            [ops.re_all(), ops.str_to_re(String(f"x{i % 7}")), ops.re_all()]))  # fmt: skip
        count = Ite(And(present, like), Plus(count, Int(1)), count)
        if i % 10 == 0:
            text = Ite(StrContains(strs[i % 50], String("é")), StrConcat(text, strs[i % 50]), text)
    return [GT(count, Int(5)), Equals(StrLength(text), Int(7))]


def median_seconds(action: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--size", type=int, default=100_000)
    args = parser.parse_args()

    start = time.perf_counter()
    formula = build(args.size)
    print(f"build (pysmt, once)      {time.perf_counter() - start:8.3f} s")
    nodes = formula_size(formula)
    print(f"DAG nodes                {nodes:8d}")
    size_s = median_seconds(lambda: formula_size(formula), args.runs)
    print(f"formula_size (DagWalker) {size_s:8.3f} s")
    text = SmtLibWriter().script(formula)
    print_s = median_seconds(lambda: SmtLibWriter().script(formula), args.runs)
    defs = text.count("(define-fun")
    print(
        f"print (SmtLibWriter)     {print_s:8.3f} s  ({len(text) / 1e6:.1f} MB, {defs} define-funs)"
    )
    for name in available_solvers():
        solver = get_solver(name)

        def parse(solver: Solver = solver) -> None:
            with solver.open(text) as session:
                assert session.error is None, session.error

        print(f"{name + ' parse (open)':24} {median_seconds(parse, args.runs):8.3f} s")
    print(f"median of {args.runs} runs")


if __name__ == "__main__":
    main()
