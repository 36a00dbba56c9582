"""A child process that runs one in-process backend on one file and prints the answer.

``python -m spotit.solverbench.worker SOLVER FILE TIMEOUT`` speaks like an
SMT-LIB solver on stdout, so the harness treats the z3 and cvc5 bindings
exactly as it treats any command line: the first line is ``sat``, ``unsat``,
``unknown``, ``timeout`` or ``(error "...")``. Two comment lines follow:
``;; seconds S`` (parse + solve, measured here, so the interpreter's start-up
is not charged to the solver) and, when there is one, ``;; reason R``.

Being a process of its own is the point: the harness enforces the time limit
by killing it and measures its memory, neither of which works inside one
process (a binding's own limit is soft; cvc5 overruns it in preprocessing).
"""

from __future__ import annotations

import sys
import time

SECONDS_PREFIX = ";; seconds "
REASON_PREFIX = ";; reason "


def main(argv: list[str]) -> int:
    """Run ``argv = [solver, file, timeout]``; the exit status is 0 unless usage is wrong."""
    if len(argv) != 3:
        print("usage: python -m spotit.solverbench.worker SOLVER FILE TIMEOUT", file=sys.stderr)
        return 2
    name, path, timeout = argv[0], argv[1], float(argv[2])
    from spotit.solvers import Status, get_solver

    start = time.perf_counter()
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        result = get_solver(name).check(text, timeout=timeout)
        status, reason = result.status, result.reason
    except Exception as exc:  # the answer is "error", whatever went wrong
        status, reason = Status.ERROR, f"{type(exc).__name__}: {exc}"
    seconds = time.perf_counter() - start
    reason = " ".join(reason.split())
    answer = f'(error "{reason}")' if status is Status.ERROR else status.value
    print(answer)
    print(f"{SECONDS_PREFIX}{seconds:.6f}")
    if reason:
        print(f"{REASON_PREFIX}{reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
