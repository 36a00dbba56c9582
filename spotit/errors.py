"""Errors that become verdicts or one-line messages, never tracebacks.

Every error a user can cause (bad SQL, a schema that does not load, a construct
outside the supported fragment) is a ``SpotItError`` whose ``str()`` is a
complete one-line message naming the problem and, where known, its position.
"""

from __future__ import annotations


class SpotItError(Exception):
    """Base class: ``str(err)`` is a complete, user-facing one-line message."""

    kind = "error"

    def __init__(self, message: str, *, pos: tuple[int, int] | None = None, source: str = ""):
        self.message = message
        self.pos = pos
        self.source = source  # which input: "gold", "pred", "schema", ...
        super().__init__(message)

    def __str__(self) -> str:
        where = []
        if self.source:
            where.append(self.source)
        if self.pos is not None:
            where.append(f"line {self.pos[0]}, column {self.pos[1]}")
        suffix = f" ({', '.join(where)})" if where else ""
        return f"{self.message}{suffix}"

    def located(self, source: str) -> SpotItError:
        """Return self, tagged with which input it came from (if not tagged yet)."""
        if not self.source:
            self.source = source
        return self


class ParseError(SpotItError):
    """The SQL text is not in the grammar (or SQLite itself rejects it)."""

    kind = "parse"


class SchemaError(SpotItError):
    """A schema file could not be loaded or is inconsistent."""

    kind = "schema"


class BindError(SpotItError):
    """A name does not resolve: unknown table, column or alias, or an ambiguous column."""

    kind = "bind"


class Unsupported(SpotItError):
    """A construct the grammar accepts but the encoder does not model (yet).

    ``construct`` is a short name such as ``"window function RANK"``; the verdict
    reads ``unsupported: <construct>``.
    """

    kind = "unsupported"

    def __init__(self, construct: str, *, pos: tuple[int, int] | None = None, source: str = ""):
        self.construct = construct
        super().__init__(construct, pos=pos, source=source)


class SolverError(SpotItError):
    """A solver crashed, rejected the script, or is not installed."""

    kind = "solver"


class BudgetExceeded(SpotItError):
    """The formula grew past the configured size budget (reported as ``timeout``)."""

    kind = "budget"


class ConstraintError(SchemaError):
    """A constraint file does not load, or a constraint names no such table or column."""

    kind = "constraints"
