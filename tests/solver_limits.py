"""Deterministic solver limits for tests whose expected verdict needs the solver for
more than a moment.

A wall-clock limit turns such a pass into a ``timeout`` on a loaded machine. These
tests bound each solver call by the solver's own resource counter instead (``check(...,
rlimit=RLIMIT[solver])``, ``get_solver(solver, rlimit=...)``): z3's ``rlimit`` and
cvc5's ``rlimit-per``, both per call, in each solver's own units. The outcome is then
the same on every machine and under any load; the time limit stays only as a safety
net against a hang (``HANG_SECONDS``: no such test comes near it).

The limits are over 5 times the largest use of one call measured with
``python benchmarks/fixture_rlimits.py`` (z3 5.4.1, cvc5 1.4.2):

- the pairs of tests/fixtures/equiv without ``solver_limit`` (the script's default):
  z3 8,930,484 ("dates_strings: JULIANDAY difference versus STRFTIME year
  difference"), cvc5 115,313 ("aggregates: scalar subquery with an aggregate versus
  multiplying out");
- ``--tests tests/test_rounding.py::test_pairs_doubles_make_differ_are_never_equivalent``:
  z3 about 4.6 million (the RANGE frame pair; it varies from run to run with the
  pipeline's own time shares, which choose the path);
- ``--tests tests/test_definitions.py``: z3 2,391,182 (``_numtext``).

A test that reaches a limit fails with a ``timeout``: when a change makes the solver
need more, measure again and keep the margin.
"""

from __future__ import annotations

from functools import cache

from spotit.solvers import Solver, get_solver

RLIMIT = {"z3": 50_000_000, "cvc5": 600_000}
# a fixture pair marked with its known solver limit (``-- solver_limit:``) gets a fifth,
# as it had 10 s where the others had 60: reaching it skips the test, so a documented
# gap costs seconds, not a minute (z3 needs 65-385 million on most of them, cvc5 up to
# 2 million, and some of them take a minute to get there)
GAP_RLIMIT = {solver: limit // 5 for solver, limit in RLIMIT.items()}
HANG_SECONDS = 1800.0


@cache
def limited(solver: str = "z3") -> Solver:
    """The backend with its deterministic limit, for code that takes a solver by name (the
    Thm 1 checks of ``spotit.proofs``): one per process, as its sessions are kept."""
    return get_solver(solver, rlimit=RLIMIT[solver])
