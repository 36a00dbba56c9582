"""Load equivalence fixtures: pairs of queries with hand-derived expected verdicts.

A fixture file holds blocks like::

    -- title: what the pair shows
    -- schema: shop            (tests/fixtures/schemas/shop.sql)
    -- expect: not_equivalent  (or equivalent; or spurious: the queries differ only
                               through SQLite's arbitrary choices, e.g. ties, which
                               row a bare column is read from)
    -- k: 1                    (the smallest bound with a counterexample)
    -- semantics: set          (optional, default set)
    -- bound: 3                (optional, default: k for not_equivalent, 3 otherwise)
    -- why: the hand derivation of the expectation
    -- holds: SELECT ...       (optional: true on every counterexample, by the derivation)
    -- solver_limit: why       (optional: a known gap, the solver alone may time out)
    -- vacuous: gold           (optional, equivalent pairs: the queries that return no rows
                               on any database within the bound; default none)
    -- gold:
    SELECT ...
    -- pred:
    SELECT ...

Expectations are never copied from SpotIt's output: ``why`` says how they were
derived, and every counterexample is re-run on SQLite by the tests.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures"


@dataclass(frozen=True)
class Pair:
    title: str
    schema: str
    expect: str
    gold: str
    pred: str
    k: int | None
    semantics: str
    bound: int
    why: str
    source: str
    holds: str = ""  # SQL that must be true on the counterexample (hand-derived)
    solver_limit: str = ""  # a documented gap: the solver alone may time out on this pair
    vacuous: tuple[str, ...] = ()  # queries that return no rows within the bound

    @property
    def schema_ddl(self) -> str:
        return (FIXTURES / "schemas" / f"{self.schema}.sql").read_text()

    def __str__(self) -> str:
        return f"{Path(self.source).stem}: {self.title}"


def load_pairs(name: str) -> list[Pair]:
    path = FIXTURES / "equiv" / name
    pairs = []
    for block in path.read_text().split("-- title:")[1:]:
        meta: dict[str, str] = {}
        section = None
        sql: dict[str, list[str]] = {"gold": [], "pred": []}
        lines = ("-- title:" + block).splitlines()
        last_key = None
        for line in lines:
            stripped = line.strip()
            if stripped in ("-- gold:", "-- pred:"):
                section = stripped[3:-1]
                continue
            if section is None and stripped.startswith("--"):
                body = stripped[2:].strip()
                if ":" in body and body.split(":", 1)[0].isidentifier():
                    key, value = body.split(":", 1)
                    meta[key] = value.strip()
                    last_key = key
                elif last_key:
                    meta[last_key] += " " + body
                continue
            if section is not None and stripped and not stripped.startswith("--"):
                sql[section].append(line)
        expect = meta["expect"]
        k = int(meta["k"]) if "k" in meta else None
        default_bound = k if expect == "not_equivalent" and k else 3
        pairs.append(
            Pair(
                title=meta["title"],
                schema=meta["schema"],
                expect=expect,
                gold="\n".join(sql["gold"]).strip(),
                pred="\n".join(sql["pred"]).strip(),
                k=k,
                semantics=meta.get("semantics", "set"),
                bound=int(meta.get("bound", default_bound)),
                why=meta.get("why", ""),
                source=str(path),
                holds=meta.get("holds", ""),
                solver_limit=meta.get("solver_limit", ""),
                vacuous=tuple(meta.get("vacuous", "").split()),
            )
        )
    return pairs
