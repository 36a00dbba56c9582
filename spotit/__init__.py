"""SpotIt: bounded equivalence checking of SQL queries, with SQLite-confirmed counterexamples."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from spotit.pipeline import check
    from spotit.verdict import CheckResult, Verdict

__all__ = ["CheckResult", "Verdict", "check"]


def __getattr__(name: str) -> Any:
    """The public names, imported on first use: a solver worker process that only needs
    ``spotit.solvers`` does not pay for the whole pipeline (PEP 562)."""
    if name == "check":
        from spotit.pipeline import check

        return check
    if name in ("CheckResult", "Verdict"):
        from spotit import verdict

        return getattr(verdict, name)
    raise AttributeError(f"module 'spotit' has no attribute {name!r}")
