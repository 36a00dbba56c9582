"""Constraints the real data satisfies, used as assumptions of a check.

``model`` (the kinds), ``formats`` and ``published`` (reading and writing),
``augment`` (the schema that declares them), ``violations`` (what a concrete
database breaks), ``assume`` (a check under constraints) and ``mine`` (observed
constraints of a real database). See docs/constraints.md.
"""
