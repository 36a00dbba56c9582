"""Recursive CTEs, unrolled: SQLite's queue one round at a time.

SQLite runs the initial SELECT, then runs the recursive SELECT on each row it added,
adding what that gives, until nothing is added (UNION adds only rows not seen before,
compared as DISTINCT compares; UNION ALL adds every row). The recursive SELECT reads
the CTE once, in its FROM, never in a subquery, so running it on a whole round of rows
gives the union of running it on each: round i+1 is the step over round i.

The encoding unrolls ``EncoderOptions.recursion_depth`` rounds (fewer when their
symbolic rows pass ``MAX_ROWS``). A round whose rows
are all absent by construction (``n + 1 WHERE n < 10`` from a constant) ends the
recursion exactly. Otherwise the rows one more round would add are recorded in
``Encoder.recursion_open``: the pipeline proves, at each bound, that no database
within it makes any of them present before it accepts a proof -- else the verdict is
``unsupported: recursion deeper than D rounds`` (``--recursion-depth`` raises D). A
counterexample found on the unrolled rounds is confirmed on SQLite like any other.
"""

from __future__ import annotations

from spotit.encodings.encoder import Encoder, Env, SymRel, SymRow
from spotit.encodings.registry import encodes
from spotit.encodings.relational import distinct_rows
from spotit.errors import BindError
from spotit.ir import relational as R

# symbolic rows one recursive CTE may unroll to: a round that would pass it is the one
# "past the unrolled ones" (a walk of a hierarchy doubles its rows each round, and no
# database within a small bound needs many rounds of it: the termination check says so)
MAX_ROWS = 128
# rows a recursion that is the same on every database may run to: its rounds are
# constants (a count to 200, a calendar of a year's days), computed to the end exactly
SETTLED_MAX_ROWS = 4096


def _settled(row: SymRow) -> bool:
    """Whether ``row`` is present, with the same values, on every database."""
    return row.present.is_true() and all(v.is_constant() for v in row.values)


@encodes(R.RecursiveRef)
def encode_recursive_ref(enc: Encoder, r: R.RecursiveRef, env: Env) -> SymRel:
    found = enc.recursion_rounds.get(r)
    if found is None:
        raise BindError(f"{r.name} read outside its recursive CTE")
    return found


@encodes(R.Recursive)
def encode_recursive(enc: Encoder, r: R.Recursive, env: Env) -> SymRel:
    collations = R.collation_names(r.columns)
    first = [row for row in enc.rel(r.init, env).rows if not row.present.is_false()]
    if not r.all:
        first = [row for row in distinct_rows(enc, first, collations)
                 if not row.present.is_false()]
    rows = list(first)
    last = first
    depth = enc.options.recursion_depth
    # while every row is settled (present and constant on every database), the rounds
    # are SQLite's own, run to their end whatever the depth: no database can make them
    # differ, so nothing is left open
    settled = all(_settled(row) for row in rows)
    round_ = 0
    while last:  # until a round adds nothing: SQLite stops there, on every database
        round_ += 1
        step = enc.with_recursion(r.ref, SymRel(tuple(last), width=len(r.columns)),
                                  lambda: enc.rel(r.step, env))
        new = [row for row in step.rows if not row.present.is_false()]
        if not r.all and new:
            kept = distinct_rows(enc, [*rows, *new], collations, merge=False)[len(rows):]
            new = [row for row in kept if not row.present.is_false()]
        settled = settled and all(_settled(row) for row in new)
        past = round_ == depth + 1 or len(rows) + len(new) > MAX_ROWS
        if past and not (settled and len(rows) + len(new) <= SETTLED_MAX_ROWS):
            if new:  # rows a round past the unrolled ones would add
                enc.recursion_open.append(enc.b.or_(row.present for row in new))
            break
        rows.extend(new)
        last = new
    return SymRel(tuple(SymRow(row.present, row.values) for row in rows),
                  width=len(r.columns))
