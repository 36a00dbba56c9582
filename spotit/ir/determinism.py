"""Whether a plan's result (as a bag of rows) is a function of the database.

SQLite leaves some results to its plan: which rows LIMIT keeps among ties, a bare
column's row, GROUP_CONCAT's order, which spelling a NOCASE group or DISTINCT keeps,
a window over tied rows, the first of several rows of a scalar subquery. Comparing
such a query with a rewrite of it on a database may show a difference that is no
bug, so the renderer check and the rules fuzz skip them. The check is static and
conservative: it may call a deterministic plan nondeterministic, never the reverse.
"""

from __future__ import annotations

from spotit.ir import relational as R
from spotit.ir import scalar as S
from spotit.ir.types import BINARY
from spotit.ir.walk import iter_exprs, iter_rels

# functions whose value differs from one run of the query to the next
RANDOMIZED = frozenset({"RANDOM", "RANDOMBLOB"})
# functions whose value is the connection's history, not the database's
CONNECTION_STATE = frozenset({"CHANGES", "LAST_INSERT_ROWID", "TOTAL_CHANGES"})
# functions whose value is not one of their arguments' (or depends on the clock): never
# folded to a constant, never assumed equal between two calls
VOLATILE = RANDOMIZED | CONNECTION_STATE | {"CURRENT_DATE", "CURRENT_TIME",
                                            "CURRENT_TIMESTAMP"}
# window functions whose value is the same for rows that tie on the ORDER BY
_PEER_BLIND = frozenset({"RANK", "DENSE_RANK", "PERCENT_RANK", "CUME_DIST"})
_FRAMED = frozenset({"COUNT", "SUM", "TOTAL", "AVG"})


def not_of_the_database(plan: R.Rel) -> tuple[str, str] | None:
    """(function, why) for the first function of ``plan`` whose value is not the
    database's (None if none is): drawn afresh on every run, or the connection's
    history. Two runs of such a query differ on the same database, or differ between the
    connection SQLite validates on and the user's, so neither a database nor a proof
    says anything about it."""
    for e, _ in iter_exprs(plan):
        if isinstance(e, S.Call) and e.name in RANDOMIZED:
            return (f"{e.name}()", "a new random value on every run, so two runs of the "
                    "query differ on the same database")
        if isinstance(e, S.Call) and e.name in CONNECTION_STATE:
            return (f"{e.name}()", "a fact of the connection's history (rows it changed "
                    "or inserted), not a value of the database")
    return None


def deterministic(plan: R.Rel) -> bool:
    return nondeterminism(plan) is None


def nondeterminism(plan: R.Rel) -> str | None:
    """Why the result of ``plan`` may depend on SQLite's choices (None: it does not)."""
    for r in iter_rels(plan):
        why = _operator(r)
        if why is not None:
            return why
    for e, _ in iter_exprs(plan):
        if isinstance(e, S.Call) and e.name in VOLATILE:
            return f"{e.name}()"
        if isinstance(e, S.Call) and any(isinstance(a, S.Const) and a.value == "now"
                                         for a in e.args):
            return "'now'"
        if isinstance(e, S.ScalarSubquery) and not _one_row(e.query):
            return "a scalar subquery that may return several rows"
    return None


def _operator(r: R.Rel) -> str | None:
    if isinstance(r, R.Sort) and (r.limit is not None or r.offset):
        return "LIMIT/OFFSET"
    if isinstance(r, R.Aggregate):
        if any(S.collation_name(k) != BINARY for k in r.keys):
            return "GROUP BY under a folding collation"
        for c in r.aggs:
            if c.func in ("BARE", "GROUP_CONCAT"):
                return "a bare column" if c.func == "BARE" else "GROUP_CONCAT"
            folding = c.arg is not None and S.collation_name(c.arg) != BINARY
            if folding and (c.distinct or c.func in ("MIN", "MAX")):
                return f"{c.func} under a folding collation"
    if isinstance(r, R.Distinct) and any(n != BINARY for n in R.collation_names(r.columns)):
        return "DISTINCT under a folding collation"
    if isinstance(r, R.SetOp) and not r.all and any(
            n != BINARY for n in R.compound_collations(r)):
        return f"{r.op} under a folding collation"
    if isinstance(r, R.Recursive) and not r.all and any(
            n != BINARY for n in R.collation_names(r.columns)):
        return "a recursive UNION under a folding collation"
    if isinstance(r, R.Window):
        for c in r.calls:
            why = _window(c)
            if why is not None:
                return why
    return None


def _window(c: R.WindowCall) -> str | None:
    if any(k.collation != BINARY for k in c.order) or any(
            S.collation_name(p) != BINARY for p in c.partition):
        return "a window under a folding collation"
    if c.func in _PEER_BLIND:
        return None
    if c.func in _FRAMED or c.func in ("MIN", "MAX"):
        if any(S.collation_name(a) != BINARY for a in c.args) and c.func in ("MIN", "MAX"):
            return "a window MIN/MAX under a folding collation"
        f = c.frame
        whole = {"UNBOUNDED PRECEDING", "UNBOUNDED FOLLOWING", "CURRENT ROW"}
        if not c.order or (f.unit in ("RANGE", "GROUPS") and f.exclude == "NO OTHERS"
                           and f.start.kind in whole and f.end.kind in whole):
            return None
    return f"window {c.func} over rows that may tie"


def _one_row(q: R.Rel) -> bool:
    """Whether ``q`` returns at most one row on every database."""
    while isinstance(q, R.Project | R.Filter | R.Distinct | R.Window):
        q = q.input
    if isinstance(q, R.Sort):
        return q.limit is not None and q.limit <= 1
    if isinstance(q, R.Aggregate):
        return not q.keys
    return isinstance(q, R.Values) and len(q.rows) <= 1
