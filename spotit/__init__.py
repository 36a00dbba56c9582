"""SpotIt: bounded equivalence checking of SQL queries, with SQLite-confirmed counterexamples."""

__version__ = "0.1.0"

from spotit.pipeline import check
from spotit.verdict import CheckResult, Verdict

__all__ = ["CheckResult", "Verdict", "check"]
