"""Test helpers for code that needs a solver backend."""

from __future__ import annotations

import pytest

from spotit.solvers import available_solvers


def requires_solver(name: str) -> pytest.MarkDecorator:
    """Skip the test (or class) unless the backend ``name`` is installed.

    Example: ``@requires_solver("cvc5")``.
    """
    return pytest.mark.skipif(
        name not in available_solvers(), reason=f"solver {name!r} is not installed"
    )


# ``@pytest.mark.parametrize("solver", BOTH_SOLVERS)``: z3 and cvc5, each skipped when
# not installed (soundness checks run on both: a wrong answer of either is a finding)
BOTH_SOLVERS = [pytest.param("z3", marks=requires_solver("z3")),
                pytest.param("cvc5", marks=requires_solver("cvc5"))]
