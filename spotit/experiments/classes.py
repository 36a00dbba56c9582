"""Equivalence classes of one question's queries: the gold and every system's prediction.

Two queries share a class only when SpotIt proved them equivalent under the run's
settings (the same bound, data level, constraints and semantics) -- directly, or
through a chain of such proofs (equivalence within K is transitive: it is equality
on the same set of databases). A SQLite-confirmed counterexample puts two queries
apart. Anything else (timeout, unsupported, error, spurious) leaves them apart and
is recorded as *undecided*: a class is never merged on an undecided pair.

The partition is built without the solver where it can be: every confirmed
counterexample database known for the question is run on SQLite against every
member first (``Separations``), and two members whose results on one of them differ
in every order SQLite may pick are apart. Only members no database tells apart are
checked against each other, one class representative at a time (``partition``
returns those checks as ``needed``; the caller runs them and asks again).

Everything here is a plain function of its inputs, so a re-run over the same stored
checks gives the same classes.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from spotit.encodings.equivalence import Semantics
from spotit.schema import Schema

EQUIVALENT, APART, UNDECIDED = "equivalent", "apart", "undecided"


# ---------------------------------------------------------------------- members


_TOKEN = re.compile(r"""'(?:[^']|'')*'|"(?:[^"]|"")*"|`[^`]*`|\[[^\]]*\]|\s+|[^'"`\[\s]+|.""")


def normalize_sql(sql: str) -> str:
    """The text two identical queries share: whitespace runs outside quotes collapsed
    to one space (none at the ends) and trailing semicolons dropped. Nothing that can
    change the meaning is touched (letter case, quotes, literals)."""
    parts = []
    for m in _TOKEN.finditer(sql.strip()):
        tok = m.group(0)
        parts.append(" " if tok.isspace() else tok)
    text = "".join(parts).strip()
    while text.endswith(";"):
        text = text[:-1].rstrip()
    return text


def sql_sha(sql: str) -> str:
    return hashlib.sha256(normalize_sql(sql).encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class Member:
    """One distinct query of a question: the gold, or a text some systems predicted
    (identical texts, up to ``normalize_sql``, are one member)."""

    sql: str
    is_gold: bool = False
    systems: tuple[str, ...] = ()

    @property
    def sha(self) -> str:
        return sql_sha(self.sql)

    @property
    def label(self) -> str:
        names = ", ".join(self.systems)
        if self.is_gold:
            return "gold" + (f" (= {names})" if names else "")
        return names


def members_of(gold: str, predictions: dict[str, str | None]) -> list[Member]:
    """The gold first, then each distinct predicted text with the systems that wrote it
    (most systems first, then by the first system's name). A prediction identical to
    the gold is the gold's member."""
    gold_norm = normalize_sql(gold)
    by_text: dict[str, list[str]] = {}
    first_text: dict[str, str] = {}
    for system in sorted(predictions):
        sql = predictions[system]
        if sql is None:
            continue
        norm = normalize_sql(sql)
        by_text.setdefault(norm, []).append(system)
        first_text.setdefault(norm, sql)
    out = [Member(gold, True, tuple(by_text.pop(gold_norm, [])))]
    for norm, systems in sorted(by_text.items(), key=lambda kv: (-len(kv[1]), kv[1][0])):
        out.append(Member(first_text[norm], False, tuple(systems)))
    return out


# ---------------------------------------------------------------------- outcomes


@dataclass(frozen=True)
class Outcome:
    """What a check between two members concluded, and where it comes from."""

    status: str  # EQUIVALENT, APART or UNDECIDED
    reason: str = ""
    source: str = ""  # "evaluate:<system>", "audit", "identical text", "database <id>"
    key: str | None = None  # the stored check, if there is one
    counterexample: dict[str, list[dict[str, Any]]] | None = None


def outcome_of_verdict(verdict: str, reason: str, source: str, key: str | None,
                       counterexample: dict | None) -> Outcome:
    """A check's verdict as an outcome: only ``equivalent`` merges, only a confirmed
    counterexample separates."""
    if verdict == "equivalent":
        return Outcome(EQUIVALENT, reason, source, key)
    if verdict == "not_equivalent" and counterexample is not None:
        return Outcome(APART, reason, source, key, counterexample)
    return Outcome(UNDECIDED, f"{verdict}: {reason}" if reason else verdict, source, key)


# ---------------------------------------------------------------------- counterexamples


def cex_id(counterexample: dict[str, list[dict[str, Any]]]) -> str:
    text = json.dumps(counterexample, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def cex_size(counterexample: dict[str, list[dict[str, Any]]]) -> tuple[int, int]:
    """(most rows in one table, rows in all): smaller first."""
    sizes = [len(rows) for rows in counterexample.values()]
    return (max(sizes, default=0), sum(sizes))


def _result_key(rows: list[tuple], semantics: Semantics) -> Any:
    """A result as the semantics compares it (hashable)."""
    norm = [tuple(row) for row in rows]
    if semantics is Semantics.SET:
        return ("set", frozenset(norm))
    if semantics is Semantics.BAG:
        return ("bag", frozenset(Counter(norm).items()))
    return ("list", tuple(norm))


def results_on(schema: Schema, counterexample: dict[str, list[dict[str, Any]]],
               queries: list[str], semantics: Semantics, *, now: datetime | None = None,
               time_limit: float | None = 10.0) -> list[frozenset | None]:
    """Each query's possible results on the database: one per order SQLite may pick
    (rows inserted as given, and reversed with ``reverse_unordered_selects``), as the
    semantics compares them; None where the query fails on it or the database does
    not load. Two queries whose sets are disjoint differ whatever order SQLite picks:
    exactly ``validate``'s confirmation."""
    from spotit.experiments.runners import stored_rows
    from spotit.frontend.now import pin_now
    from spotit.validate import build_database, run_query

    runs: list[list[Any]] = [[] for _ in queries]
    try:
        rows = stored_rows(schema, counterexample)
    except Exception:
        return [None] * len(queries)
    texts = []
    for sql in queries:
        try:
            texts.append(pin_now(sql, now) if now is not None else sql)
        except Exception:  # a text 'now' cannot be pinned in: it fails on SQLite too
            texts.append(sql)
    for reverse in (False, True):
        try:
            conn = build_database(schema, rows, reverse=reverse)
        except (sqlite3.Error, ValueError):
            return [None] * len(queries)
        try:
            for i, sql in enumerate(texts):
                res = run_query(conn, sql, time_limit)
                runs[i].append(None if isinstance(res, str) else _result_key(res, semantics))
        finally:
            conn.close()
    return [None if any(r is None for r in rs) else frozenset(rs) for rs in runs]


@dataclass
class Separations:
    """The known counterexample databases of a question and every member's results on
    them: which members one of them tells apart."""

    schema: Schema
    members: list[Member]
    semantics: Semantics
    now: datetime | None = None
    time_limit: float | None = 10.0
    databases: dict[str, dict[str, list[dict[str, Any]]]] = field(default_factory=dict)
    origins: dict[str, str] = field(default_factory=dict)  # cex id -> where it was found
    results: dict[str, list[frozenset | None]] = field(default_factory=dict)

    def add(self, counterexample: dict[str, list[dict[str, Any]]], origin: str) -> str:
        """Run every member on a new database (once per distinct database)."""
        cid = cex_id(counterexample)
        if cid not in self.databases:
            self.databases[cid] = counterexample
            self.origins[cid] = origin
            self.results[cid] = results_on(
                self.schema, counterexample, [m.sql for m in self.members], self.semantics,
                now=self.now, time_limit=self.time_limit)
        return cid

    def apart(self, i: int, j: int) -> str | None:
        """The smallest database on which members i and j differ in every order, or
        None."""
        found = [cid for cid, res in self.results.items()
                 if res[i] is not None and res[j] is not None and not (res[i] & res[j])]
        if not found:
            return None
        return min(found, key=lambda c: (cex_size(self.databases[c]), c))

    def result(self, cid: str, i: int) -> list | None:
        """Member i's rows on database ``cid`` (the first order), for people to read."""
        res = self.results.get(cid, [None] * len(self.members))[i]
        if res is None:
            return None
        key = sorted(res, key=repr)[0]
        kind, value = key
        if kind == "set":
            return sorted((list(r) for r in value), key=repr)
        if kind == "bag":
            return sorted((list(r) for r, n in value for _ in range(n)), key=repr)
        return [list(r) for r in value]


# ---------------------------------------------------------------------- the partition


@dataclass
class Link:
    """Why two members are where they are: a proof (same class), a database that tells
    them apart, or an undecided check."""

    a: int
    b: int
    status: str
    how: str  # "identical text", "proof (evaluate:<system>)", "database <cex id>", ...
    key: str | None = None
    cex: str | None = None  # the separating database's id


@dataclass
class Partition:
    """The classes of one question (lists of member indices; the first is the
    representative), the links that decided them, and the checks still needed."""

    classes: list[list[int]]
    links: list[Link]
    needed: list[tuple[int, int]]

    def class_of(self, i: int) -> int | None:
        return next((c for c, ms in enumerate(self.classes) if i in ms), None)

    @property
    def complete(self) -> bool:
        return not self.needed


def partition(members: list[Member], apart: Callable[[int, int], str | None],
              outcome: Callable[[int, int], Outcome | None],
              order: Iterable[int] | None = None,
              alone: dict[int, str] | None = None) -> Partition:
    """Place each member (the gold first, then ``order``) in the first class whose
    representative it is proven equivalent to; a class some database separates it
    from is skipped without a check, and so is one whose check was undecided (it
    stays apart, recorded). A pair not yet checked is returned in ``needed`` (one per
    member at a time, in order); members after one still waiting for its check are
    compared with the classes before it but not placed, since they may belong with
    it. A member in ``alone`` (one SQLite rejects, with why) is a class of its own
    without any check: no check could prove it equal to anything."""
    order = list(order) if order is not None else list(range(len(members)))
    alone = alone or {}
    classes: list[list[int]] = []
    links: list[Link] = []
    needed: list[tuple[int, int]] = []
    waiting = False  # a member before this one is not placed yet
    for u in order:
        if u in alone:
            classes.append([u])
            continue
        placed = blocked = False
        for c in classes:
            rep = c[0]
            if rep in alone:
                continue
            cid = apart(rep, u)
            if cid is not None:
                links.append(Link(rep, u, APART, f"database {cid}", cex=cid))
                continue
            o = outcome(rep, u)
            if o is None:
                needed.append((rep, u))
                blocked = True
                break
            if o.status == EQUIVALENT:
                links.append(Link(rep, u, EQUIVALENT, f"proof ({o.source})", o.key))
                c.append(u)
                placed = True
                break
            if o.status == APART:  # its database should separate them; if SQLite could
                # not run a member on it, the check's own confirmation still stands
                links.append(Link(rep, u, APART, f"counterexample ({o.source})", o.key,
                                  cex_id(o.counterexample) if o.counterexample else None))
                continue
            links.append(Link(rep, u, UNDECIDED, f"{o.reason} ({o.source})", o.key))
        if placed:
            continue
        if blocked or waiting:
            waiting = True
            continue
        classes.append([u])
    return Partition(classes, links, needed)
