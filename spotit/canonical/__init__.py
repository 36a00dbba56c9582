"""Canonical forms of bound plans: equal forms prove equivalence on every database.

Each rule is a plain function from plan to plan that keeps, under SQLite's
semantics and the comparison in force, the set of results the query can give on
*every* database (not only small ones). Two plans with the same canonical form are
therefore equivalent without any bound -- the pipeline reports that as
``equivalent`` with ``proof: canonical form`` before it starts the bounded search.
Where SQLite's result depends on its arbitrary choices (ties under ORDER BY ...
LIMIT, a bare column), the rules keep the *set* of results it may give.

Rules are registered in ``RULES`` like operators are, one module per family:
``shapes`` (names, projections, the outermost ORDER BY and DISTINCT), ``joins``
(inner joins as a set of relations and a set of conjuncts) and ``operands``
(commutative operands, constants under comparison affinity, NULL order). ``spotit
fuzz`` checks every rule against SQLite.
"""

from __future__ import annotations

from spotit.canonical.registry import RULES, Rule, canonical, rule

__all__ = ["FOREIGN_KEY_RULES", "RULES", "Rule", "canonical", "rule"]


# importing the rule modules registers their rules (the fixpoint makes the order moot)
from spotit.canonical import (  # noqa: F401
    aggregates,
    constants,
    equalities,
    joins,
    operands,
    required,
    semijoins,
    shapes,
)

# the rules that rely on a declared foreign key holding (``Scan.references``): where
# none is assumed (``--data sqlite``, or the database's data break it) they cannot fire.
# (The IN rule only steps aside for this one where a foreign key exists: it holds
# without one.)
FOREIGN_KEY_RULES = frozenset({"join to a referenced row that only checks it exists"})
