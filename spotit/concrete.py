"""Ask SQLite itself for the value of closed expressions and conversions.

Constant subexpressions are folded by running them on SQLite, so their value
is SQLite's by construction (numeric prefixes of text, REAL formatting,
affinity conversions, date functions). One in-memory connection per thread.
"""

from __future__ import annotations

import sqlite3
import threading
from functools import lru_cache

from spotit.ir.types import Affinity, value_key

_local = threading.local()

_AFFINITY_COLUMN = {
    Affinity.NUMERIC: "n",
    Affinity.INTEGER: "i",
    Affinity.REAL: "r",
    Affinity.TEXT: "t",
    Affinity.BLOB: "b",
}


def _conn() -> sqlite3.Connection:
    c = getattr(_local, "conn", None)
    if c is None:
        c = sqlite3.connect(":memory:")
        c.execute("CREATE TABLE aff(n NUMERIC, i INTEGER, r REAL, t TEXT, b BLOB)")
        _local.conn = c
    return c


class SqliteEvalError(Exception):
    pass


def _typed(params: tuple) -> tuple:
    """A cache key that tells 0, 0.0, -0.0 and False apart (Python's == does not)."""
    return tuple(value_key(p) for p in params)


def evaluate(sql: str, params: tuple = ()):
    """The single value of ``SELECT <sql>`` on SQLite (raises SqliteEvalError on error)."""
    return _evaluate(sql, params, _typed(params))


@lru_cache(maxsize=65536)
def _evaluate(sql: str, params: tuple, _key: tuple):
    try:
        row = _conn().execute(f"SELECT {sql}", params).fetchone()
    except (sqlite3.Error, OverflowError) as e:
        raise SqliteEvalError(str(e)) from None
    return row[0]


def apply_affinity(value: int | float | str | None, affinity: Affinity):
    """The value SQLite stores when ``value`` is put in a column of ``affinity``."""
    return _apply_affinity(value, affinity, _typed((value,)))


@lru_cache(maxsize=65536)
def _apply_affinity(value: int | float | str | None, affinity: Affinity, _key: tuple):
    if not affinity.converts or value is None:
        return value
    col = _AFFINITY_COLUMN[affinity]
    c = _conn()
    c.execute("DELETE FROM aff")
    c.execute(f"INSERT INTO aff({col}) VALUES (?)", (value,))
    return c.execute(f"SELECT {col} FROM aff").fetchone()[0]
