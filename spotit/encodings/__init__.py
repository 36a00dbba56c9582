"""Encodings of the IR into SMT formulas, one module per family.

Importing this package registers every encoding (the modules are listed here,
explicitly) and checks that each IR operator has exactly one.
"""

from spotit.encodings import (  # noqa: F401  (each module registers its encodings)
    aggregates,
    calls,
    dates,
    jsonfns,
    logic,
    mathfns,
    numeric,
    recursive,
    relational,
    strings,
    subqueries,
    textfns,
    windows,
)
from spotit.encodings.registry import check_complete

check_complete()
