"""The parser on real Text-to-SQL output: BIRD's dev gold queries and four systems' predictions.

Every query that SQLite's own parser accepts must parse, render back to SQL that means the
same (``parse(render(tree)) == tree``), and the rendering must be accepted by SQLite too. Each
query is checked against its database's schema (``schemas_ddl/<db_id>.sql``), so that only
syntax errors count as rejections; errors about the schema, such as an unknown column in a
wrong prediction, do not. Run with ``pytest -m bird -s`` to see the tallies.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import time
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import pytest

from spotit.errors import SpotItError
from spotit.frontend.parser import parse
from spotit.frontend.render import render

BIRD_DIR = Path(os.environ.get("SPOTIT_BIRD_DIR", "/work/shared/data/bird"))

pytestmark = [
    pytest.mark.bird,
    pytest.mark.skipif(not (BIRD_DIR / "dev.sql").is_file(), reason=f"no BIRD data in {BIRD_DIR}"),
]

# Errors SQLite raises while parsing (not while resolving names), and so count as syntax.
_SYNTAX = re.compile(
    r"syntax error|unrecognized token|incomplete input|one statement at a time|"
    r"should come after|hex literal too big|parser stack overflow"
)


def _gold() -> list[tuple[str, str]]:
    lines = (BIRD_DIR / "dev.sql").read_text().splitlines()
    return [tuple(line.rsplit("\t", 1)) for line in lines if line.strip()]  # type: ignore[misc]


def _sources() -> dict[str, list[tuple[str, str | None]]]:
    """Each source's queries with the database each one is asked against."""
    if not (BIRD_DIR / "dev.sql").is_file():
        return {}
    gold = _gold()
    sources: dict[str, list[tuple[str, str | None]]] = {"gold dev.sql": list(gold)}
    for path in sorted((BIRD_DIR / "predictions").glob("*.sql")):
        lines = path.read_text().splitlines()
        # Line i predicts gold question i, when the file has one line per question.
        db_ids = [db for _, db in gold] if len(lines) == len(gold) else [None] * len(lines)
        sources[path.name] = list(zip(lines, db_ids, strict=True))
    for path in sorted((BIRD_DIR / "predictions").glob("*.json")):
        entries = json.loads(path.read_text()).values()  # {"qid": "SQL\t----- bird -----\tdb"}
        pairs = (entry.split("\t----- bird -----\t") for entry in entries)
        sources[path.name] = [(sql, db) for sql, db in pairs]
    return sources


@cache
def _database(db_id: str | None) -> sqlite3.Connection:
    """An empty database with the schema of ``db_id`` (no schema if it is unknown)."""
    db = sqlite3.connect(":memory:")
    ddl = BIRD_DIR / "schemas_ddl" / f"{db_id}.sql"
    if db_id is not None and ddl.is_file():
        db.executescript(ddl.read_text())
    return db


def _sqlite_accepts(sql: str, db_id: str | None) -> bool:
    """Whether SQLite's parser accepts ``sql`` (as a single statement)."""
    try:
        _database(db_id).execute("EXPLAIN " + sql)
    except sqlite3.Warning:  # more than one statement
        return False
    except sqlite3.Error as exc:
        return _SYNTAX.search(str(exc)) is None
    return True


@dataclass
class _Tally:
    total: int = 0
    valid: int = 0  # accepted by SQLite's parser
    parsed_valid: int = 0
    parsed_invalid: int = 0  # our grammar accepts more than SQLite does
    seconds: float = 0.0
    unparsed: list[str] = field(default_factory=list)
    reasons: Counter[str] = field(default_factory=Counter)
    round_trip: list[str] = field(default_factory=list)

    def summary(self, source: str) -> str:
        rate = self.parsed_valid / self.valid if self.valid else 1.0
        return (
            f"{source}: {self.total} queries, {self.valid} accepted by SQLite, "
            f"{self.parsed_valid} of those parsed ({rate:.2%}); "
            f"{self.parsed_invalid} of the {self.total - self.valid} that SQLite rejects parsed; "
            f"{1000 * self.seconds / max(self.total, 1):.3f} ms per query"
        )


def _measure(queries: list[tuple[str, str | None]]) -> _Tally:
    tally = _Tally()
    for sql, db_id in queries:
        tally.total += 1
        valid = _sqlite_accepts(sql, db_id)
        tally.valid += valid
        start = time.perf_counter()
        try:
            tree = parse(sql)
        except SpotItError as exc:
            if valid:
                tally.unparsed.append(sql)
                tally.reasons[re.sub(r" \(line .*\)$", "", str(exc))] += 1
            continue
        finally:
            tally.seconds += time.perf_counter() - start
        if not valid:
            tally.parsed_invalid += 1
            continue
        tally.parsed_valid += 1
        rendered = render(tree)
        if parse(rendered) != tree or not _sqlite_accepts(rendered, db_id):
            tally.round_trip.append(f"{sql}\n  rendered: {rendered}")
    return tally


@pytest.mark.parametrize("source", sorted(_sources()))
def test_bird_queries_parse_and_round_trip(source: str) -> None:
    tally = _measure(_sources()[source])
    print("\n" + tally.summary(source))
    for reason, count in tally.reasons.most_common():
        print(f"  {count:4d} x {reason}")
    assert not tally.unparsed, (
        f"{len(tally.unparsed)} valid queries do not parse: {tally.unparsed[:3]}"
    )
    assert not tally.round_trip, "\n".join(tally.round_trip[:3])
    # A generous bound that only catches a pathological slowdown (typically ~0.3 ms).
    assert tally.seconds / tally.total < 0.005
