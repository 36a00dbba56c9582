"""An exception inside a fuzz case is a finding, not the end of the run.

Each claim's check (``check_pinned``, ``check_tables``, ``check_query_pair``) runs
behind ``crash_proof``: an exception anywhere in it -- encoder, solver, SQLite, the
harness -- becomes an outcome of kind ``"crash"``, which the fuzz shrinks, records
with a reproducer and counts apart from wrong answers.
"""

from __future__ import annotations

import functools
import traceback
from collections.abc import Callable
from typing import Any

CRASH = "crash"
INTERNAL_ERROR = "internal error"  # how spotit.check words an unexpected exception


def crash_detail(e: BaseException) -> str:
    """``Type: message (at file:line in function)`` of the innermost frame."""
    frames = traceback.extract_tb(e.__traceback__)
    where = ""
    if frames:
        f = frames[-1]
        where = f" (at {f.filename.rsplit('/', 1)[-1]}:{f.lineno} in {f.name})"
    return f"{type(e).__name__}: {e}{where}"


def crash_proof(make_outcome: Callable[[str], Any]):
    """Decorate a claim's check: an exception becomes ``make_outcome(detail)``."""

    def wrap(check):
        @functools.wraps(check)
        def guarded(*args, **kwargs):
            try:
                return check(*args, **kwargs)
            except Exception as e:
                return make_outcome(crash_detail(e))

        return guarded

    return wrap
