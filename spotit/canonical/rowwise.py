"""Queries whose every difference shows on one row per table.

A select-project-join query (inner joins, filters, projections: no grouping,
DISTINCT, ORDER BY ... LIMIT, outer join, set operation, window or subquery) maps
each combination of one row per table to at most one output row, and its result
is the bag of those outputs. Two such queries over the *same list of tables* give
equal bags on every database if they give equal outputs on every combination --
and a combination is a database of one row per table (each table read once: a
self-join combines two rows of one table). So proving the pair on every database of
at most one row per table proves it on every database, of any size.

The argument lifts through any context (congruence): where two plans are the same
operators around select-project-join parts that are equal as bags on every
database, with the same output columns, the plans are equivalent -- every operator
above sees the same bag of rows (and, where it leaves SQLite a choice, has the same
choices). ``obligations`` finds those parts.

One caveat makes the argument need care: a combination of rows taken from a valid
database need not be a valid database on its own when a foreign key refers to a
row outside it. The one-row proof is therefore run with foreign keys dropped (more
databases, so a stronger claim); every other constraint SQLite enforces (NOT NULL,
CHECK, UNIQUE, a primary key) holds for any single row of a valid table.
"""

from __future__ import annotations

from dataclasses import fields, replace

from spotit.canonical.trees import SUBQUERIES
from spotit.ir import relational as R
from spotit.ir.walk import iter_exprs, iter_rels, max_outer_depth, without_names
from spotit.schema import Schema

_ROWWISE = (R.Scan, R.Filter, R.Project, R.Join)


def rowwise_tables(plan: R.Rel) -> tuple[str, ...] | None:
    """The tables of a select-project-join plan that reads each table once (``None`` if
    it is not one)."""
    tables = []
    for rel in iter_rels(plan):
        if not isinstance(rel, _ROWWISE) or (isinstance(rel, R.Join) and rel.kind != "INNER"):
            return None
        if isinstance(rel, R.Scan):
            tables.append(rel.table.lower())
    if any(isinstance(e, SUBQUERIES) for e, _ in iter_exprs(plan)):
        return None
    if len(set(tables)) != len(tables):
        return None
    return tuple(sorted(tables))


def one_row_suffices(gold_form: R.Rel, pred_form: R.Rel, semantics: str) -> bool:
    """Whether a proof on every database of one row per table (without foreign keys)
    proves the pair on every database: both select-project-join over the same tables,
    compared as bags or sets."""
    if semantics not in ("set", "bag"):
        return False
    tables = rowwise_tables(gold_form)
    return tables is not None and tables == rowwise_tables(pred_form)


def obligations(gold_form: R.Rel, pred_form: R.Rel, semantics: str
                ) -> list[tuple[R.Rel, R.Rel, str]] | None:
    """The (gold part, pred part, semantics) pairs whose one-row proofs prove the
    whole pair on every database, or ``None`` if the plans differ elsewhere: in an
    expression of the context, in its shape, or in a part that is not
    select-project-join over the same tables."""
    if one_row_suffices(gold_form, pred_form, semantics):
        return [(gold_form, pred_form, semantics)]
    parts = _differing(gold_form, pred_form)
    if not parts:
        return None
    for g, p in parts:
        if not one_row_suffices(g, p, "bag") or without_names(g.columns) != without_names(
                p.columns) or max_outer_depth(g) or max_outer_depth(p):
            return None
    return [(g, p, "bag") for g, p in parts]


def _differing(g: R.Rel, p: R.Rel) -> list[tuple[R.Rel, R.Rel]]:
    """The outermost operators where ``g`` and ``p`` differ, reached through operators
    equal in everything but their inputs."""
    if g == p:
        return []
    if type(g) is not type(p):
        return [(g, p)]
    children = []
    for f in fields(g):
        a, b = getattr(g, f.name), getattr(p, f.name)
        if isinstance(a, R.Rel) and isinstance(b, R.Rel):
            children.append((a, b))
        elif a != b:
            return [(g, p)]  # the operator itself differs
    out = []
    for a, b in children:
        out += _differing(a, b)
    return out


def without_foreign_keys(schema: Schema) -> Schema:
    return replace(schema, tables=tuple(replace(t, foreign_keys=()) for t in schema.tables),
                   cache={})
