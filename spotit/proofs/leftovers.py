"""Whether the assertions left over after pinning are satisfiable, asked once per shape.

After the pins are substituted (:mod:`spotit.proofs.determined`), what is left of
a Thm 1 formula concerns symbols the encoded value does not depend on: the
payload of a NULL cell (an INTEGER in range, a date's parts a valid date), the
pieces a text-to-number conversion splits an unpinned text into. They must still
be satisfiable, or the encoding admits no database at all (a bug the solver path
would report). Their shapes repeat from case to case — the fuzz table is fixed —
so each group of linked assertions is asked of the solver once per process, keyed
by its SMT-LIB text with the symbols renamed in order of appearance, in one
session per solver that each question enters and leaves with push/pop (starting a
z3 context costs ~10 ms, more than most of these questions).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pysmt.fnode import FNode

from spotit.smt.ops import BUILTIN_NAMES
from spotit.smt.printer import SmtLibWriter
from spotit.solvers import get_solver
from spotit.solvers.base import Session, Status

CACHE_LIMIT = 20_000  # shapes remembered per process
_known: dict[tuple[str, str], bool] = {}
_sessions: dict[str, Session] = {}


def satisfiable(assertions: Sequence[FNode], solver: str, timeout: float) -> bool | None:
    """True if the solver finds the assertions satisfiable, False if unsatisfiable,
    None if it did not answer in time (not cached: a busy machine is no verdict)."""
    unanswered = False
    for group in linked(assertions):
        script = SmtLibWriter().script(group)
        key = (solver, _canonical(script, group))
        answer = _known.get(key)
        if answer is None:
            if len(_known) >= CACHE_LIMIT:
                _known.clear()
            answer = _ask(solver, group, timeout)
            if answer is not None:
                _known[key] = answer
        if answer is False:
            return False
        unanswered = unanswered or answer is None
    return None if unanswered else True


def _ask(solver: str, group: Sequence[FNode], timeout: float) -> bool | None:
    """SAT in the process's session for ``solver`` (a new one if the last one failed);
    None if the solver did not decide."""
    session = _sessions.get(solver)
    if session is None or session.error is not None:
        session = _sessions[solver] = get_solver(solver).open("")
    session.push()
    session.add(SmtLibWriter().commands(group))
    res = session.check(timeout=timeout)
    session.pop()
    if res.status is Status.SAT:
        return True
    return False if res.status is Status.UNSAT else None


def _variables(f: FNode) -> list[FNode]:
    return [s for s in f.get_free_variables() if s.symbol_name() not in BUILTIN_NAMES
            and not s.symbol_name().startswith("re.")]


def linked(assertions: Sequence[FNode]) -> list[list[FNode]]:
    """The assertions in groups that share no symbol, functions included (union-find):
    a model of each group, put together, is a model of all."""
    parent: dict[FNode, FNode] = {}

    def root(x: FNode) -> FNode:
        while parent[x] is not x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    alone: list[list[FNode]] = []
    firsts = []
    for f in assertions:
        free = _variables(f)
        if not free:
            alone.append([f])
            continue
        for s in free:
            parent.setdefault(s, s)
        for s in free[1:]:
            parent[root(s)] = root(free[0])
        firsts.append((f, free[0]))
    groups: dict[FNode, list[FNode]] = {}
    for f, s in firsts:
        groups.setdefault(root(s), []).append(f)
    return [*alone, *groups.values()]


def _canonical(script: str, group: Sequence[FNode]) -> str:
    """``script`` with its variables renamed ``v0, v1, ...`` by first appearance."""
    names = {s.symbol_name() for f in group for s in _variables(f)}
    if not names:
        return script
    pattern = re.compile("|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
                         + r"(?![\w!.~@$%^&*+=<>?/-])")
    renamed: dict[str, str] = {}
    return pattern.sub(lambda m: renamed.setdefault(m.group(0), f"v{len(renamed)}"), script)
