"""Solver backends behind one interface, found by name.

Each backend module imports its binding at the top; the factory imports a module
only when asked for it, so a missing binding is a clear :class:`SolverError`
instead of an ImportError at ``import spotit.solvers``.

Example:
    >>> solver = get_solver("z3")
    >>> solver.check("(declare-fun x () Int) (assert (> x 41))").status
    <Status.SAT: 'sat'>
"""

from __future__ import annotations

import importlib
import shutil
from functools import cache

from spotit.errors import SolverError
from spotit.solvers.base import Model, Session, Solver, SolveResult, Status, Value

DEFAULT_SOLVER = "z3"

# name -> (module, class, binding, pip package); a binding "exe:NAME" is an executable on PATH
_BACKENDS: dict[str, tuple[str, str, str, str]] = {
    "z3": ("spotit.solvers.z3", "Z3Solver", "z3", "z3-solver"),
    "cvc5": ("spotit.solvers.cvc5", "Cvc5Solver", "cvc5", "cvc5"),
    # z3 and cvc5 at once, each in a process of its own: the first definite answer
    "portfolio": ("spotit.solvers.portfolio", "PortfolioSolver", "cvc5", "cvc5"),
    # yices-smt2 in a child process; strings are handed over to z3 (spotit.solvers.yices)
    "yices": ("spotit.solvers.yices", "YicesSolver", "exe:yices-smt2", "'spotit[yices]'"),
}


@cache
def _solver_class(name: str) -> type[Solver]:
    module_name, class_name, binding, package = _BACKENDS[name]
    missing = f"solver {name!r} is not installed: pip install {package}"
    if binding.startswith("exe:"):
        if shutil.which(binding[4:]) is None:
            raise SolverError(f"{missing} ({binding[4:]} is not on PATH)")
    else:
        try:
            importlib.import_module(binding)
        except ImportError as exc:
            raise SolverError(missing) from exc
    cls: type[Solver] = getattr(importlib.import_module(module_name), class_name)
    return cls


def get_solver(name: str | Solver = DEFAULT_SOLVER, **options: object) -> Solver:
    """A backend by name ("z3", "cvc5", "portfolio" or "yices"), or ``name`` itself when
    it is already a backend (one built with options, say an ``rlimit``, passed down
    through code that asks for backends by name).

    ``options`` go to its constructor (``rlimit``, ``seed``; yices: ``logic``, ``fallback``).

    Raises:
        SolverError: the name is unknown or its Python binding is not installed.
    """
    if isinstance(name, Solver):
        if options:
            raise SolverError(f"{name!r} is built already: options {sorted(options)} "
                              "cannot be added")
        return name
    if name not in _BACKENDS:
        known = ", ".join(_BACKENDS)
        raise SolverError(f"unknown solver {name!r} (known: {known})")
    return _solver_class(name)(**options)  # type: ignore[arg-type]


def available_solvers() -> list[str]:
    """Names of the single-solver backends whose bindings import, in preference order."""
    names = []
    for name in _BACKENDS:
        if name == "portfolio":
            continue
        try:
            _solver_class(name)
        except SolverError:
            continue
        names.append(name)
    return names


__all__ = [
    "DEFAULT_SOLVER",
    "Model",
    "Session",
    "SolveResult",
    "Solver",
    "Status",
    "Value",
    "available_solvers",
    "get_solver",
]
