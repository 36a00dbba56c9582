"""Random small databases: a fast, sound search for counterexamples before the solver.

A database on which SQLite confirms that the two queries differ is a
counterexample however it was found, so trying a few hundred random small
databases first costs little and settles most inequivalent pairs in
milliseconds. The databases respect the schema's keys and the domains the
symbolic search uses (``spotit.ir.types.Domain``), and draw their values
from the literals of the two queries (and values next to them), so every
counterexample found here is one the solver could have found too.

The probe reads the queries only as SQLite tokens, not through SpotIt's own
front end, so it also refutes queries outside the supported fragment. It can
never prove anything: proofs come from the solver.
"""

from __future__ import annotations

import json
import random
import re
import sqlite3
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta

from sqlglot.dialects.sqlite import SQLite
from sqlglot.tokens import TokenType

from spotit.encodings.calendar import date_text_parts
from spotit.encodings.equivalence import Semantics
from spotit.ir.types import INT64_MAX, INT64_MIN, Domain
from spotit.nontermination import never_stops
from spotit.schema import Column, Schema, Table
from spotit.validate import (
    Deadline,
    Rows,
    Validation,
    _broken_assumed_key,
    build_database,
    insert_rows,
    results_differ,
    validate,
)

DEFAULT_TRIALS = 300
DEFAULT_PROBE_SECONDS = 0.5
DEFAULT_MAX_ROWS = 3
LARGE_MAX_ROWS = 5  # the longer search (run when the solver is slow) goes up to this


@dataclass
class Pool:
    """Candidate cell values per kind, seeded from the queries' literals."""

    ints: list[int] = field(default_factory=lambda: [0, 1, 2, -1])
    reals: list[float] = field(default_factory=lambda: [0.0, 0.5, 1.0, -1.5])
    texts: list[str] = field(default_factory=lambda: ["", "a", "A", " a", "1", "a b"])
    dates: list[str] = field(default_factory=lambda: ["2000-01-01", "1999-12-31",
                                                      "2000-02-29"])
    times: list[str] = field(default_factory=lambda: ["00:00:00", "12:30:00", "23:59:59"])
    # fractions of a second a DATETIME cell may end in (BIRD's datetimes end in '.0')
    fractions: list[str] = field(default_factory=lambda: [".0", ".123"])
    # the queries' datetime literals that a DATETIME cell can hold as they are
    datetimes: list[str] = field(default_factory=list)
    # the literals exactly as the queries spell them: drawn first, since a difference
    # usually needs a cell equal to one of them
    raw_texts: list[str] = field(default_factory=list)
    raw_numbers: list[int | float] = field(default_factory=list)
    # columns the queries read as time values (an argument of a date function): a
    # TEXT cell there is mostly date text, or no date function will see a date
    date_columns: set[str] = field(default_factory=set)
    # columns the queries equate with another column (``a.x = b.y``, ``USING (x)``): the
    # larger databases draw only these from a few values, so that their joins match
    join_columns: set[str] = field(default_factory=set)
    # the TEXT columns among them equated with a numeric column (an id kept as text,
    # ``m.title_id = b.id``): SQLite compares them as numbers, so only text spelling a
    # number joins
    numeric_text_joins: set[str] = field(default_factory=set)
    # per joined column, the columns the queries equate it with (itself for ``USING``
    # and ``a.x = b.x``): a row may take them all from one row of a table already
    # drawn, so that a join on several columns (IPL's match, over, ball and innings)
    # matches, where independent draws make four columns agree about once in 80 rows
    join_partners: dict[str, set[str]] = field(default_factory=dict)
    # dates spelled in the queries (the pinned 'now' too), to step from by whole years
    raw_dates: list[date] = field(default_factory=list)
    # per column (lower-case name) the queries read as JSON, the member names they read
    # ('$.en', ->> 'en'): a cell there is mostly a JSON object of those members
    json_members: dict[str, set[str]] = field(default_factory=dict)
    # per column (lower-case name) the queries search with INSTR, the texts they search
    # for (``INSTR(toppings || ',', ',')``): a cell there is often a list of pool values
    # with that separator, which a recursive CTE splits ('4, 6, 9'; 'Edge vs Christian')
    separators: dict[str, list[str]] = field(default_factory=dict)
    # per column (lower-case name), the literals the queries compare it with: drawn
    # often, since a difference usually needs the cell the condition asks for
    hints: dict[str, list[str]] = field(default_factory=dict)

    def hubs(self) -> frozenset[str]:
        """The columns equated with at least two other columns: keys in all but name."""
        return frozenset(c for c, others in self.join_partners.items()
                         if len(others - {c}) >= 2)

    def add_year_offsets(self) -> None:
        """Dates a whole number of years (a small integer of the queries) before or
        after a date of the queries, and days around them: where "age >= 35" turns."""
        years = [v for v in self.raw_numbers if isinstance(v, int) and 0 < v <= 150]
        for day in self.raw_dates:
            for n in years:
                for sign in (-1, 1):
                    shifted = moved(day, years=sign * n)
                    if shifted is None:
                        continue
                    # the anniversary, days and months around it, and its year's ends
                    # (where a difference of years turns over)
                    self._add_days([moved(shifted, days=step) for step in STEPS] + [
                        shifted.replace(month=1, day=1), shifted.replace(month=12, day=31)])

    def add_day_offsets(self) -> None:
        """Dates a small integer of the queries apart as days, from a date of the
        queries (else the pool's first), and a day either side: where a difference of
        days compared with that number turns (``julianday(last) - julianday(first) <
        7``); a time of day drawn with them makes the fractional differences between."""
        if not self.date_columns:
            return
        counts = sorted({int(v) for v in self.raw_numbers
                         if float(v).is_integer() and 0 < v <= MAX_DAY_OFFSET})
        anchors = self.raw_dates[:2] or [date.fromisoformat(self.dates[0])]
        self._add_days([moved(anchor, days=step) for anchor in anchors for n in counts
                        for step in (n - 1, n, n + 1)])

    def _add_days(self, days: Iterable[date | None]) -> None:
        """The dates not in the pool yet, in order (None: past the calendar's ends)."""
        for d in days:
            if d is not None and d.isoformat() not in self.dates:
                self.dates.append(d.isoformat())

    def add_literal(self, text: str, *, number: bool) -> None:
        if number:
            self._add_number(text)
            self._add_text(text)
            try:
                v = int(text) if text.isdigit() else float(text)
            except ValueError:
                return
            if v not in self.raw_numbers and abs(v) < 2**63:
                self.raw_numbers.append(v)
            return
        if "\x00" not in text and text not in self.raw_texts:
            self.raw_texts.append(text)
        self._add_text(text)
        for variant in (text.upper(), text.lower(), text.strip(), " " + text, text + " "):
            self._add_text(variant)
        if "%" in text or "_" in text:  # a LIKE pattern: strings it does and does not match
            for fill in ("", "x"):
                self._add_text(text.replace("%", fill).replace("_", "a"))
        self._add_number(text)
        self._add_dates(text)

    def _add_text(self, s: str) -> None:
        if "\x00" not in s and s not in self.texts:
            self.texts.append(s)

    def _add_number(self, text: str) -> None:
        m = _NUMERIC_PREFIX.match(text.strip())
        if not m or not m.group(0):
            return
        try:
            v = float(m.group(0))
        except ValueError:
            return
        if v != v or abs(v) > 1e300:
            return
        if v.is_integer() and INT64_MIN < v < INT64_MAX:
            for i in (int(v), int(v) - 1, int(v) + 1):
                if i not in self.ints:
                    self.ints.append(i)
        for r in (v, v + 0.5, v - 0.5):
            if r not in self.reals:
                self.reals.append(r)

    def _add_dates(self, text: str) -> None:
        m = _DATE_PREFIX.match(text.strip())
        days = dates_near(text)
        if not m or not days:
            return
        if m.group(3):
            self.raw_dates.append(days[0])
        for day in days:
            s = day.isoformat()
            if s not in self.dates:
                self.dates.append(s)
        if m.group(4) and m.group(4) not in self.times:
            self.times.append(m.group(4))
        frac = m.group(5)
        if frac and len(frac) <= 4 and frac not in self.fractions:  # '.d' to '.ddd'
            self.fractions.append(frac)
        if date_text_parts(text, Domain.DATETIME) is not None and text not in self.datetimes:
            self.datetimes.append(text)


STEPS = (0, -1, 1, -15, 15, -30, 30, -182, 182)  # days around a date a year offset gives
NEAR_DAYS = 40  # days a query's date may move by (``DatabaseSampler._day``)
MAX_DAY_OFFSET = 400  # the largest number of the queries read as days (Pool.add_day_offsets)
HUB_REDRAWS = 4  # draws of a row that repeats a keyed column's value, at most
FULL_SHARE = 0.3  # of the larger databases, those at the bound whose rows all join and pass
TRIAL_SECONDS = 0.1  # for SQLite to run both queries on one random database
_INTEGER = re.compile(r"[+-]?\d+")
_NUMERIC_PREFIX = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_DATE_PREFIX = re.compile(
    r"(\d{4})(?:-(\d{2})(?:-(\d{2})(?:[ T](\d{2}:\d{2}:\d{2})(\.\d+)?)?)?)?")


def moved(day: date, *, years: int = 0, days: int = 0) -> date | None:
    """``day`` moved by whole years (29 February to the 28th in a year without one),
    then by days; None past the calendar's ends (years 1 to 9999), where a query's
    date near them ('9999-12-25') would move."""
    year = day.year + years
    if not 1 <= year <= 9999:
        return None
    try:
        day = day.replace(year=year)
    except ValueError:  # 29 February in a year without one
        day = day.replace(year=year, day=28)
    try:
        return day + timedelta(days)
    except OverflowError:
        return None


def dates_near(text: str) -> list[date]:
    """The dates a literal that starts like a date names: a year's first, last and
    middle day, a month's first and last, a day and its neighbours (none if it is not
    date-like)."""
    m = _DATE_PREFIX.match(text.strip())
    if not m:
        return []
    y = int(m.group(1))
    mo = int(m.group(2)) if m.group(2) else None
    d = int(m.group(3)) if m.group(3) else None
    try:
        if mo is None:
            return [date(y, 1, 1), date(y, 12, 31), date(y, 6, 15)]
        if d is None:
            first = date(y, mo, 1)
            return [first, (first.replace(day=28) + timedelta(days=4)).replace(day=1)
                    - timedelta(1)]
        day = date(y, mo, d)
        return [day, day - timedelta(1), day + timedelta(1)]
    except (ValueError, OverflowError):
        return []


def query_tokens(sql: str) -> Iterable[tuple[TokenType, str]]:
    """SQLite tokens of ``sql`` (empty if the tokenizer gives up)."""
    try:
        return [(t.token_type, t.text) for t in SQLite().tokenize(sql)]
    except Exception:  # the tokenizer's errors are not part of its API
        return []


def literal_pool(schema: Schema, queries: Iterable[str]) -> tuple[Pool, list[Table]]:
    """The value pool of the queries' literals, and the tables they mention
    (closed over foreign keys, in schema order)."""
    pool = Pool()
    names = {t.name.lower() for t in schema.tables}
    columns = {c.name.lower() for t in schema.tables for c in t.columns}
    mentioned: set[str] = set()
    for sql in queries:
        tokens = list(query_tokens(sql))
        pool.date_columns |= _date_function_arguments(tokens) & columns
        pairs = _joined_pairs(tokens)
        pool.join_columns |= _joined_columns(tokens, pairs) & columns
        for a, b in _partner_pairs(tokens, pairs):
            if a in columns and b in columns:
                pool.join_partners.setdefault(a, set()).add(b)
                pool.join_partners.setdefault(b, set()).add(a)
        pool.numeric_text_joins |= _text_joined_to_numbers(schema, pairs)
        for column, separator in _instr_reads(tokens):
            if column in columns and separator not in pool.separators.get(column, []):
                pool.separators.setdefault(column, []).append(separator)
        for column, member in _json_reads(tokens):
            if column in columns:
                pool.json_members.setdefault(column, set()).add(member)
        for column, literal in _compared_literals(tokens, columns):
            hints = pool.hints.setdefault(column, [])
            if literal not in hints:
                hints.append(literal)
        for kind, text in tokens:
            if kind is TokenType.NUMBER:
                pool.add_literal(text, number=True)
            elif kind is TokenType.STRING:
                pool.add_literal(text, number=False)
            elif kind in (TokenType.VAR, TokenType.IDENTIFIER) or text.isidentifier():
                low = text.lower()
                if low in names:
                    mentioned.add(low)
                elif kind is TokenType.IDENTIFIER and low not in columns:
                    # SQLite reads a double-quoted word that names nothing as a string
                    pool.add_literal(text, number=False)
    pool.add_year_offsets()
    pool.add_day_offsets()
    closed = _close_over_foreign_keys(schema, mentioned)
    return pool, [t for t in schema.tables if t.name.lower() in closed]


# tokens that end the condition a literal belongs to, looking back from it
_CONDITION_BREAKS = {TokenType.AND, TokenType.OR, TokenType.WHERE, TokenType.ON,
                     TokenType.SELECT, TokenType.HAVING, TokenType.COMMA, TokenType.CASE,
                     TokenType.WHEN, TokenType.THEN, TokenType.ELSE}
HINT_WINDOW = 8  # tokens looked back from a literal for the columns it is compared with


def _compared_literals(tokens: list[tuple[TokenType, str]], columns: set[str]
                       ) -> list[tuple[str, str]]:
    """(column, literal text) for each string or number literal and the columns named
    shortly before it in the same condition (``name = 'x'``, ``STRFTIME('%Y', d) =
    '2011'``, ``x BETWEEN 1 AND 5``): a heuristic, it only steers the random search."""
    out = []
    for i, (kind, text) in enumerate(tokens):
        if kind not in (TokenType.STRING, TokenType.NUMBER):
            continue
        j, depth = i - 1, 0
        while j >= 0 and i - j <= HINT_WINDOW:
            k, t = tokens[j]
            if k is TokenType.R_PAREN:
                depth += 1
            elif k is TokenType.L_PAREN and depth:
                depth -= 1
            elif depth:
                pass  # inside a call or list the literal is not in: no condition ends
            elif k is TokenType.COMMA and (opening := _in_list(tokens, j)) is not None:
                j = opening - 1  # a literal of an IN list: look before the list
                continue
            elif k in _CONDITION_BREAKS and not (
                    k is TokenType.AND and _in_between(tokens, j)):
                break
            if (k in (TokenType.VAR, TokenType.IDENTIFIER) or t.isidentifier()) \
                    and t.lower() in columns:
                out.append((t.lower(), text))
            j -= 1
    return out


def _in_list(tokens: list[tuple[TokenType, str]], at: int) -> int | None:
    """The opening parenthesis of the ``IN (...)`` list the comma at ``at`` is in."""
    depth = 0
    for j in range(at - 1, -1, -1):
        k = tokens[j][0]
        if k is TokenType.R_PAREN:
            depth += 1
        elif k is TokenType.L_PAREN:
            if depth == 0:
                return j if j and tokens[j - 1][0] is TokenType.IN else None
            depth -= 1
    return None


def _in_between(tokens: list[tuple[TokenType, str]], at: int) -> bool:
    """Is the AND at ``at`` the one of a BETWEEN (``x BETWEEN 1 AND 5``)?"""
    return any(k is TokenType.BETWEEN for k, _ in tokens[max(0, at - 3):at])


def _date_function_arguments(tokens: list[tuple[TokenType, str]]) -> set[str]:
    """Lower-cased names read inside the parentheses of a date function call."""
    from spotit.frontend.now import DATE_FUNCTIONS

    out: set[str] = set()
    stack: list[bool] = []  # per open parenthesis: inside a date function's
    for i, (kind, text) in enumerate(tokens):
        if kind is TokenType.L_PAREN:
            before = tokens[i - 1][1].upper() if i else ""
            stack.append(before in DATE_FUNCTIONS or (bool(stack) and stack[-1]))
        elif kind is TokenType.R_PAREN:
            if stack:
                stack.pop()
        elif stack and stack[-1] and (kind in (TokenType.VAR, TokenType.IDENTIFIER)
                                      or text.isidentifier()):
            out.add(text.lower())
    return out


_NAMES = (TokenType.VAR, TokenType.IDENTIFIER)  # the tokens a column's name may be


def _joined_pairs(tokens: list[tuple[TokenType, str]]) -> list[tuple[str, str]]:
    """Lower-case names of the two columns of each ``x = y`` where both are column
    references (``t.a = u.b``): a heuristic, it only steers the random search."""
    out = []
    for i, (kind, _) in enumerate(tokens):
        if kind is TokenType.EQ:
            left = _reference_before(tokens, i)
            right = _reference_after(tokens, i)
            if left and right:
                out.append((left, right))
    return out


def _joined_columns(tokens: list[tuple[TokenType, str]], pairs: list[tuple[str, str]]
                    ) -> set[str]:
    """The columns of the ``pairs`` and those in ``USING (...)``."""
    return {name for pair in pairs for name in pair} | _using_columns(tokens)


def _using_columns(tokens: list[tuple[TokenType, str]]) -> set[str]:
    """The lower-case names in every ``USING (...)``."""
    out = set()
    for i, (kind, _) in enumerate(tokens):
        if kind is TokenType.USING:
            j = i + 2
            while j < len(tokens) and tokens[j][0] in (*_NAMES, TokenType.COMMA):
                if tokens[j][0] in _NAMES:
                    out.add(tokens[j][1].lower())
                j += 1
    return out


def _partner_pairs(tokens: list[tuple[TokenType, str]], pairs: list[tuple[str, str]]
                   ) -> list[tuple[str, str]]:
    """The ``pairs``, and each ``USING`` column paired with itself."""
    return [*pairs, *((name, name) for name in _using_columns(tokens))]


def _text_joined_to_numbers(schema: Schema, pairs: list[tuple[str, str]]) -> set[str]:
    """The side of each pair that only TEXT columns are named, where every column the
    other side names is numeric (INTEGER, REAL, NUMERIC)."""
    domains: dict[str, set[Domain]] = {}
    for t in schema.tables:
        for c in t.columns:
            domains.setdefault(c.name.lower(), set()).add(c.domain)
    numeric = {Domain.INTEGER, Domain.REAL, Domain.NUMERIC}
    out = set()
    for a, b in pairs:
        for text, number in ((a, b), (b, a)):
            if domains.get(text) == {Domain.TEXT} and domains.get(number) and \
                    domains[number] <= numeric:
                out.add(text)
    return out


SEPARATOR_LENGTH = 5  # the longest text INSTR searches for that is read as a separator


def _instr_reads(tokens: list[tuple[TokenType, str]]) -> Iterable[tuple[str, str]]:
    """(column, text) for ``INSTR(col ..., 'text')`` where the text is short and not a
    word (a separator: ',', ' vs '): a heuristic, it only steers the random search."""
    for i in range(len(tokens)):
        j = _first_argument(tokens, i, "INSTR")
        if j is None:
            continue
        column, depth, k = tokens[j][1].lower(), 1, j + 1
        while k < len(tokens) and depth:
            kind_k, text_k = tokens[k]
            depth += (kind_k is TokenType.L_PAREN) - (kind_k is TokenType.R_PAREN)
            if depth == 1 and kind_k is TokenType.STRING and \
                    0 < len(text_k) <= SEPARATOR_LENGTH and not text_k.isalnum():
                yield column, text_k
            k += 1


def _first_argument(tokens: list[tuple[TokenType, str]], i: int, function: str
                    ) -> int | None:
    """Where ``tokens[i]`` opens a call of ``function`` whose first argument starts with
    a column (``t.col`` too), the index of that column's name; None otherwise."""
    kind, text = tokens[i]
    if kind not in _NAMES or text.upper() != function or i + 2 >= len(tokens) or \
            tokens[i + 1][0] is not TokenType.L_PAREN:
        return None
    j = i + 2
    if j + 2 < len(tokens) and tokens[j + 1][0] is TokenType.DOT:
        j += 2  # t.col
    return j if tokens[j][0] in _NAMES else None


def _json_reads(tokens: list[tuple[TokenType, str]]) -> Iterable[tuple[str, str]]:
    """(column, member name) for ``col ->> 'name'``, ``col -> '$.name'`` and
    ``json_extract(col, '$.name')``: a heuristic, it only steers the random search."""
    for i, (kind, _) in enumerate(tokens):
        column = path = None
        if kind in (TokenType.ARROW, TokenType.DARROW) and i + 1 < len(tokens) \
                and tokens[i + 1][0] is TokenType.STRING:
            column, path = _reference_before(tokens, i), tokens[i + 1][1]
        elif (j := _first_argument(tokens, i, "JSON_EXTRACT")) is not None and \
                j + 2 < len(tokens) and tokens[j + 1][0] is TokenType.COMMA and \
                tokens[j + 2][0] is TokenType.STRING:
            column, path = tokens[j][1].lower(), tokens[j + 2][1]
        name = path[2:] if path is not None and path.startswith("$.") else path
        if column is not None and name is not None and name.isidentifier():
            yield column, name


def _reference_before(tokens: list[tuple[TokenType, str]], at: int) -> str | None:
    if at >= 1 and tokens[at - 1][0] in _NAMES:
        return tokens[at - 1][1].lower()
    return None


def _reference_after(tokens: list[tuple[TokenType, str]], at: int) -> str | None:
    j = at + 1
    if j + 2 < len(tokens) and tokens[j + 1][0] is TokenType.DOT:
        j += 2
    if j < len(tokens) and tokens[j][0] in _NAMES and (
            j + 1 >= len(tokens) or tokens[j + 1][0] not in (TokenType.DOT, TokenType.L_PAREN)):
        return tokens[j][1].lower()
    return None


def _close_over_foreign_keys(schema: Schema, names: set[str]) -> set[str]:
    out = set(names)
    todo = list(names)
    while todo:
        t = schema.table(todo.pop())
        if t is None:
            continue
        for fk in t.foreign_keys:
            parent = fk.ref_table.lower()
            if parent not in out and schema.table(parent) is not None:
                out.add(parent)
                todo.append(parent)
    return out


# --------------------------------------------------------------------------- databases


class DatabaseSampler:
    """Random databases of at most ``max_rows`` rows per table within the domains."""

    def __init__(self, schema: Schema, tables: list[Table], pool: Pool, rng: random.Random,
                 max_rows: int = DEFAULT_MAX_ROWS):
        self.schema = schema
        self.tables = _parents_first(schema, tables)
        self.pool = pool
        self.rng = rng
        self.max_rows = max_rows
        self.narrow: tuple[list[int], list[str]] | None = None  # see ``database``
        self.coupled = False  # see ``database``
        self.full = False  # see ``database``
        self._turns: dict[tuple[str, str], list[int]] = {}
        self._joined: dict[tuple[str, str], list[tuple[int, int]]] = {}
        self.keyed: frozenset[str] = frozenset()  # see ``database``
        self._hubs = pool.hubs()
        self.narrowed: set[str] | None = None  # the columns it is for (None: all)
        # what a two-value database draws from: the pool's integers and texts
        self._narrow_ints = sorted({*pool.ints,
                                    *(v for v in pool.raw_numbers if isinstance(v, int))})
        self._narrow_texts = sorted({*pool.texts, *pool.raw_texts})

    def database(self) -> Rows:
        # every other database draws its numbers and texts from two values each: equal
        # values in joined columns (and in GROUP BY keys) are then likely, where the whole
        # pool makes a three-way join match about once in a hundred databases
        self.narrow = self._narrow_pool() if self.rng.random() < 0.5 else None
        self.narrowed = None  # every column draws from the narrow pool
        counts = _ROW_COUNTS
        larger = self.max_rows > max(_ROW_COUNTS) and self.rng.random() < 0.5
        # of the larger databases, some are full: every table at the bound, rows that
        # pass the queries' filters and joined columns taken from the rows of the
        # tables they join, each in turn. That is the database a person writes to
        # exercise a query; five customers with a delivered order each are what an
        # NTILE(5) over customers needs to reach its fifth bucket, and drawn freely,
        # about two databases in 3,000 have them
        full = larger and self.rng.random() < FULL_SHARE
        if full:
            counts, self.narrow = (self.max_rows,), None
        elif larger:
            # with room for more than three rows, every other database is a larger one:
            # a difference past a LIMIT, between an NTILE's buckets or in which of
            # several groups comes first needs four or five rows. Its joined columns
            # draw from as many values as a table has rows (a key then takes them all,
            # so each reference to it matches), the rest from the whole pool (so that
            # there are as many groups as rows)
            counts = _LARGE_ROW_COUNTS
            if self.pool.join_columns and self.rng.random() < 0.5:
                self.narrow = self._narrow_pool(self.max_rows)
                self.narrowed = self.pool.join_columns
        # every other database (of queries that join) draws a row's joined columns from
        # one row of a table drawn before it, as a foreign key's columns are
        self.coupled = bool(self.pool.join_partners) and (full or self.rng.random() < 0.5)
        self.full = full
        # most databases keep a column that several others are equated with (Spider
        # 2.0's player_api_id, joined by 22 player columns of a match) free of repeats,
        # as the key it is: repeated, 22 LEFT JOINs multiply a match into 3^22 rows
        self.keyed = self._hubs if self._hubs and self.rng.random() < 0.75 else frozenset()
        self._turns = {}
        rows: Rows = {}
        for t in self.tables:
            n = self.rng.choice([n for n in counts if n <= self.max_rows])
            trows: list[tuple] = []
            for _ in range(n):
                row = self._row(t, rows)
                for _ in range(HUB_REDRAWS):
                    if not self._repeats_a_hub(t, trows, row):
                        break
                    row = self._row(t, rows)
                if not _collides(t, trows, row):
                    trows.append(row)
            rows[t.name] = trows
        return repair_foreign_keys(self.schema, rows)

    def _narrow_pool(self, width: int = 0) -> tuple[list[int], list[str]]:
        rng, ints, texts = self.rng, self._narrow_ints, self._narrow_texts
        # one integer: every join on integers matches
        int_width, text_width = (width, width) if width else (rng.choice((1, 2)), 2)
        return (rng.sample(ints, min(int_width, len(ints))),
                rng.sample(texts, min(text_width, len(texts))))

    def _row(self, t: Table, rows: Rows) -> tuple:
        cells = [self.value(c, nullable=_nullable(t, c)) for c in t.columns]
        if self.coupled:
            self._couple(t, rows, cells)
        for fk in t.foreign_keys:
            parent_rows = rows.get(_spelling(self.schema, fk.ref_table), [])
            idx = [t.column_index(c) for c in fk.columns]
            nullable = any(_nullable(t, t.columns[i]) for i in idx)
            if parent_rows and (self.rng.random() < 0.9 or not nullable):
                parent = self.schema.require_table(fk.ref_table)
                source = self._source((t.name, parent.name), parent_rows)
                for i, pc in zip(idx, fk.ref_columns, strict=True):
                    cells[i] = source[parent.column_index(pc)]
            elif nullable:
                # a value matching no parent row would only get the row dropped
                for i in idx:
                    if _nullable(t, t.columns[i]):
                        cells[i] = None
                        break
        return tuple(cells)

    def _couple(self, t: Table, rows: Rows, cells: list) -> None:
        """Per table drawn before ``t`` (most of the time), the cells of ``t``'s columns
        that the queries equate with its columns taken from one of its rows."""
        for u in self.tables:
            drawn = rows.get(u.name)
            if not drawn or u is t or (not self.full and self.rng.random() < 0.3):
                continue
            pairs = self._joined_cells(t, u)
            if not pairs:
                continue
            source = self._source((t.name, u.name), drawn)
            for i, j in pairs:
                carried = _carried(source[j], u.columns[j], t.columns[i])
                if carried is not None:
                    cells[i] = carried

    def _source(self, key: tuple[str, str], drawn: list[tuple]) -> tuple:
        """A row of ``drawn`` for a row of another table to take its joined cells
        from. In a full database, each in turn (a shuffled order, then again): five
        orders of five customers then reach them all, as real data's references do,
        where a free choice reaches five distinct customers once in 26 databases."""
        if not self.full:
            return self.rng.choice(drawn)
        turns = self._turns.get(key)
        if not turns:
            turns = self._turns[key] = self.rng.sample(range(len(drawn)), len(drawn))
        return drawn[turns.pop()]

    def _repeats_a_hub(self, t: Table, trows: list[tuple], row: tuple) -> bool:
        """Whether ``row`` repeats a value of one of ``t``'s keyed columns in ``trows``."""
        if not self.keyed:
            return False
        for i, c in enumerate(t.columns):
            if c.name.lower() in self.keyed and row[i] is not None and \
                    any(r[i] == row[i] for r in trows):
                return True
        return False

    def _joined_cells(self, t: Table, u: Table) -> list[tuple[int, int]]:
        """(column of ``t``, column of ``u``) the queries equate, by position; cached."""
        key = (t.name, u.name)
        if key not in self._joined:
            partners = self.pool.join_partners
            self._joined[key] = [(i, j) for i, c in enumerate(t.columns)
                                 for j, uc in enumerate(u.columns)
                                 if uc.name.lower() in partners.get(c.name.lower(), ())]
        return self._joined[key]

    def value(self, column: Column, *, nullable: bool):
        rng, pool = self.rng, self.pool
        if nullable and rng.random() < (0.03 if self.full else 0.15):
            return None
        d = column.domain
        members = pool.json_members.get(column.name.lower())
        if members and d in (Domain.ANY, Domain.TEXT):
            # JSON: malformed text would only stop the queries (SQLite's error)
            if d is Domain.ANY and rng.random() < 0.1:
                return rng.choice(pool.ints)  # a bare number is JSON too
            return self._json_object(column, sorted(members))
        separators = pool.separators.get(column.name.lower())
        if separators and d in (Domain.ANY, Domain.TEXT) and rng.random() < 0.5:
            return self._listed(rng.choice(separators))
        hints = pool.hints.get(column.name.lower())
        if hints and rng.random() < (0.9 if self.full else 0.4):
            hinted = self._hinted(column, d, rng.choice(hints))
            if hinted is not None:
                return hinted
        if d is Domain.ANY:
            d = rng.choice((Domain.INTEGER, Domain.REAL, Domain.TEXT))
        elif d is Domain.NUMERIC:
            d = rng.choice((Domain.INTEGER, Domain.INTEGER, Domain.REAL))
        raw = pool.raw_numbers
        narrow = self.narrow
        if self.narrowed is not None and column.name.lower() not in self.narrowed:
            narrow = None
        if narrow is not None and d is Domain.INTEGER:
            return rng.choice(narrow[0])
        if d is Domain.TEXT and column.name.lower() in pool.numeric_text_joins \
                and rng.random() < (0.7 if narrow is not None else 0.3):
            # an id kept as text ('3'), joined with an INTEGER column: SQLite compares
            # them as numbers (WWE's Matches.title_id = Belts.id)
            return str(rng.choice(narrow[0] if narrow is not None else pool.ints))
        if narrow is not None and d is Domain.TEXT and \
                column.collation == "BINARY" and column.name.lower() not in pool.date_columns:
            return rng.choice(narrow[1])
        if d is Domain.INTEGER:
            ints = [v for v in raw if isinstance(v, int)]
            if ints and rng.random() < 0.4:
                return rng.choice(ints)
            return rng.choice(pool.ints) if rng.random() < 0.85 else rng.randint(-3, 9)
        if d is Domain.REAL:
            if raw and rng.random() < 0.4:
                return float(rng.choice(raw))
            return rng.choice(pool.reals) if rng.random() < 0.85 else rng.randint(-6, 18) / 2
        if d is Domain.DATE:
            return self._day()
        if d is Domain.DATETIME:
            if pool.datetimes and rng.random() < 0.3:
                return rng.choice(pool.datetimes)
            frac = rng.choice(pool.fractions) if rng.random() < 0.3 else ""
            return self._day() + " " + rng.choice(pool.times) + frac
        if column.collation != "BINARY" and rng.random() < 0.4:
            # text that the column's collation equates with another drawn value
            base = rng.choice(pool.raw_texts or pool.texts)
            if column.collation == "NOCASE":
                return "".join(c.swapcase() if rng.random() < 0.5 else c for c in base)
            return base + " " * rng.randint(1, 2)
        if column.name.lower() in pool.date_columns and rng.random() < 0.6:
            day = self._day()
            return day if rng.random() < 0.5 else day + " " + rng.choice(pool.times)
        r = rng.random()
        if pool.raw_texts and r < 0.4:
            return rng.choice(pool.raw_texts)
        if r < 0.75:
            return rng.choice(pool.texts)
        if r < 0.85:
            return rng.choice(pool.dates)
        if r < 0.95:
            return rng.choice(pool.texts) + rng.choice(pool.texts)
        return "".join(rng.choice("aAbB 1-%_z") for _ in range(rng.randint(1, 4)))

    def _listed(self, separator: str) -> str:
        """One to three pool values (integers mostly: ids to split and join on) with
        ``separator`` between them, now and then a space after it."""
        rng, pool = self.rng, self.pool
        ints = self.narrow[0] if self.narrow is not None else pool.ints
        parts = [str(rng.choice(ints)) if rng.random() < 0.7 else
                 rng.choice(pool.raw_texts or pool.texts) for _ in range(rng.randint(1, 3))]
        spaced = separator + " " if not separator.endswith(" ") and rng.random() < 0.3 \
            else separator
        return spaced.join(parts)

    def _day(self) -> str:
        """A date of the pool, or now and then one of the queries' dates moved by up to
        NEAR_DAYS days: a date difference cut into weeks or months turns over at days
        the pool's steps miss (ROUND(days / 7.0) + 1 BETWEEN 1 AND 4 turns at -4/-3
        and 24/25 days from the date)."""
        rng, pool = self.rng, self.pool
        if pool.raw_dates and rng.random() < 0.25:
            near = moved(rng.choice(pool.raw_dates), days=rng.randint(-NEAR_DAYS, NEAR_DAYS))
            if near is not None:
                return near.isoformat()
        return rng.choice(pool.dates)

    def _json_object(self, column: Column, members: list[str]) -> str:
        """A JSON object of the members the queries read: each a literal the queries
        compare the column with, another text, an integer or a REAL, or null (or
        absent)."""
        rng, pool = self.rng, self.pool
        hints = [_unquoted(h) for h in pool.hints.get(column.name.lower(), [])]
        obj: dict[str, object] = {}
        for name in members:
            r = rng.random()
            if r < 0.1:
                continue
            if r < 0.55 and (hints or pool.raw_texts):
                obj[name] = rng.choice(hints or pool.raw_texts)
            elif r < 0.75:
                obj[name] = rng.choice(pool.texts)
            elif r < 0.9:
                obj[name] = rng.choice(pool.raw_numbers or pool.ints) if rng.random() < 0.7 \
                    else rng.choice(pool.reals)
            else:
                obj[name] = None
        spaced = rng.random() < 0.5  # as PostgreSQL prints jsonb: '{"en": "Abakan"}'
        # now and then non-ASCII letters escaped ('\u0410'), which SQLite's -> keeps
        return json.dumps(obj, ensure_ascii=rng.random() < 0.2,
                          separators=(", ", ": ") if spaced else (",", ":"))

    def _hinted(self, column: Column, d: Domain, literal: str):
        """A value of the column's domain that the literal it is compared with names:
        the number, the text, or a date the literal starts like (None if none)."""
        rng = self.rng
        text = _unquoted(literal)
        days = dates_near(text)
        if d in (Domain.DATE, Domain.DATETIME) or (
                column.name.lower() in self.pool.date_columns and days):
            if not days:
                return None
            day = rng.choice(days).isoformat()
            timed = d is Domain.DATETIME or (d is not Domain.DATE and rng.random() < 0.5)
            return day + " " + rng.choice(self.pool.times) if timed else day
        m = _NUMERIC_PREFIX.match(text.strip())
        number = m.group(0) if m and m.group(0) == text.strip() else None
        if d in (Domain.INTEGER, Domain.NUMERIC) and number is not None and \
                _INTEGER.fullmatch(number) and INT64_MIN <= int(number) <= INT64_MAX:
            return int(number)
        if d in (Domain.REAL, Domain.NUMERIC) and number is not None:
            return float(number)
        if d in (Domain.TEXT, Domain.ANY):
            if "%" in text or "_" in text:  # a LIKE pattern: a text it matches
                return text.replace("%", "").replace("_", "a")
            return text
        return None


_ROW_COUNTS = (0, 1, 2, 3, 3, 2, 1, 2, 3)
_LARGE_ROW_COUNTS = (2, 3, 4, 5, 4, 5)


def _carried(v, source: Column, column: Column):
    """``v`` of the column ``source`` as a value of ``column``'s domain that SQLite
    compares equal to it (None: there is none, or ``v`` is NULL)."""
    d = column.domain
    if v is None or d is source.domain or d is Domain.ANY:
        return v
    if isinstance(v, str):
        if d is Domain.TEXT and source.domain in (Domain.DATE, Domain.DATETIME):
            return v
        if d in (Domain.INTEGER, Domain.NUMERIC) and _INTEGER.fullmatch(v) and \
                INT64_MIN <= int(v) <= INT64_MAX:
            return int(v)  # an id kept as text, in an INTEGER column
        return None
    if d is Domain.TEXT and isinstance(v, int):
        return str(v)  # SQLite compares '3' with 3 as numbers where a side is numeric
    if d is Domain.REAL:
        return float(v)
    if d in (Domain.INTEGER, Domain.NUMERIC):
        return int(v) if float(v).is_integer() and abs(v) < 2 ** 53 else (
            v if d is Domain.NUMERIC else None)
    return None


def _unquoted(literal: str) -> str:
    """The value a literal spells: a string's text, a number's digits."""
    return literal[1:-1].replace("''", "'") if literal[:1] == "'" else literal


def _nullable(t: Table, c: Column) -> bool:
    return not c.not_null and c.name not in t.primary_key


def _spelling(schema: Schema, name: str) -> str:
    t = schema.table(name)
    return t.name if t is not None else name


def _parents_first(schema: Schema, tables: list[Table]) -> list[Table]:
    """Referenced tables before the tables that reference them (cycles: any order)."""
    order: list[Table] = []
    state: dict[str, int] = {}

    def visit(t: Table) -> None:
        if state.get(t.name):
            return
        state[t.name] = 1
        for fk in t.foreign_keys:
            parent = schema.table(fk.ref_table)
            if parent is not None and parent in tables:
                visit(parent)
        order.append(t)

    for t in tables:
        visit(t)
    return order


def _key_of(row: tuple, idx: list[int]) -> tuple | None:
    """The key's values (None if a cell is NULL: NULLs never collide)."""
    vals = tuple(row[i] for i in idx)
    if any(v is None for v in vals):
        return None
    # SQLite compares 1 and 1.0 equal and text apart from numbers, as Python does
    return tuple((isinstance(v, str), v) for v in vals)


def _collides(t: Table, rows: list[tuple], row: tuple) -> bool:
    for key in t.keys:
        idx = [t.column_index(c) for c in key]
        mine = _key_of(row, idx)
        if mine is not None and any(_key_of(r, idx) == mine for r in rows):
            return True
    return False


def repair_foreign_keys(schema: Schema, rows: Rows) -> Rows:
    """Drop rows whose foreign key points nowhere until none is left (cascading)."""
    out = {t: list(r) for t, r in rows.items()}
    changed = True
    while changed:
        changed = False
        for name, trows in out.items():
            t = schema.require_table(name)
            for fk in t.foreign_keys:
                parent = schema.table(fk.ref_table)
                if parent is None or parent.name not in out:
                    continue
                ci = [t.column_index(c) for c in fk.columns]
                pi = [parent.column_index(c) for c in fk.ref_columns]
                targets = {_key_of(p, pi) for p in out[parent.name]}
                kept = [r for r in trows if _key_of(r, ci) is None or _key_of(r, ci) in targets]
                if len(kept) != len(trows):
                    trows[:] = kept
                    changed = True
    return out


# --------------------------------------------------------------------------- search


@dataclass
class ProbeResult:
    rows: Rows
    validation: Validation
    trials: int


def probe(schema: Schema, gold: str, pred: str, semantics: Semantics, *,
          trials: int = DEFAULT_TRIALS, seconds: float = DEFAULT_PROBE_SECONDS,
          max_rows: int = DEFAULT_MAX_ROWS, seed: int | None = None,
          shrink: bool = True, nonempty: set[str] | None = None) -> ProbeResult | None:
    """A SQLite-confirmed counterexample among random small databases, or None.

    Deterministic for given queries (the seed defaults to a hash of them).
    ``nonempty`` collects ``"gold"`` / ``"pred"`` for a query that returned a row
    on some database tried (so it is not vacuous).
    """
    return next(confirmed_databases(schema, gold, pred, semantics, trials=trials,
                                    seconds=seconds, max_rows=max_rows, seed=seed,
                                    shrink=shrink, nonempty=nonempty), None)


def confirmed_databases(schema: Schema, gold: str, pred: str, semantics: Semantics, *,
                        trials: int = DEFAULT_TRIALS, seconds: float = DEFAULT_PROBE_SECONDS,
                        max_rows: int = DEFAULT_MAX_ROWS, seed: int | None = None,
                        shrink: bool = True, nonempty: set[str] | None = None
                        ) -> Iterator[ProbeResult]:
    """Every SQLite-confirmed counterexample among ``trials`` random small databases
    (within ``seconds``), as found: ``probe`` takes the first, the explanations
    (``spotit.explain``) several, to see which features a difference can do without."""
    pool, tables = literal_pool(schema, (gold, pred))
    if not tables:
        return
    if seed is None:
        seed = zlib.crc32((gold + "\x00" + pred).encode())
    sampler = DatabaseSampler(schema, tables, pool, random.Random(seed), max_rows)
    stop = time.monotonic() + seconds
    conn = schema.create_database()
    try:
        hung: list[list[tuple]] = []  # the gold's rows where the prediction did not stop
        for i in range(trials):
            if time.monotonic() > stop:
                break
            rows = sampler.database()
            # one database gets TRIAL_SECONDS at most: on a few rows a query that runs
            # longer has blown up (keyless joins multiplying), and would take the rest
            trial = min(stop, time.monotonic() + TRIAL_SECONDS)
            if not _differs_once(conn, schema, rows, gold, pred, semantics, nonempty, trial,
                                 hung):
                if hung and (endless := _endless(schema, rows, pred, hung.pop())):
                    yield ProbeResult(rows, endless, i + 1)
                continue
            # a query may run for ever on some database (a recursion around a cycle):
            # each run gets what is left of the search's time, and a second at least
            limit = max(1.0, stop - time.monotonic())
            v = validate(schema, rows, gold, pred, semantics, time_limit=limit)
            if not v.confirmed:
                continue
            if shrink and not _assumes_dependencies(schema):
                rows, v = shrink_database(
                    schema, rows, v,
                    lambda r, limit=limit: validate(schema, r, gold, pred, semantics,
                                                    time_limit=limit))
            yield ProbeResult(rows, v, i + 1)
    finally:
        conn.close()


def returns_a_row(schema: Schema, sql: str, *, trials: int = 200, seconds: float = 1.0,
                  max_rows: int = DEFAULT_MAX_ROWS, seed: int | None = None) -> bool:
    """Does ``sql`` return a row on one of ``trials`` random small databases? (A query
    that does is not vacuous: no solver needed to say so.)"""
    pool, tables = literal_pool(schema, (sql,))
    if not tables:
        return False
    sampler = DatabaseSampler(schema, tables, pool, random.Random(
        zlib.crc32(sql.encode()) if seed is None else seed), max_rows)
    stop = time.monotonic() + seconds
    seen: set[str] = set()
    conn = schema.create_database()
    try:
        for _ in range(trials):
            if time.monotonic() > stop:
                break
            _differs_once(conn, schema, sampler.database(), sql, sql, Semantics.BAG, seen,
                          stop)
            if seen:
                return True
    finally:
        conn.close()
    return False


def _differs_once(conn: sqlite3.Connection, schema: Schema, rows: Rows, gold: str,
                  pred: str, semantics: Semantics, nonempty: set[str] | None = None,
                  stop: float | None = None, hung: list | None = None) -> bool:
    """One cheap run in a transaction that is rolled back afterwards.

    SQLite is interrupted at ``stop`` (a query may run for ever even on a tiny
    database: a recursive CTE that counts to a billion); where the gold stopped and
    the prediction was interrupted, the gold's rows are put in ``hung``."""
    try:
        conn.execute("SAVEPOINT probe")
        insert_rows(conn, schema, rows)
        if _breaks_dependencies(conn, schema):
            return False
        with Deadline(conn, stop) as deadline:
            g = conn.execute(gold).fetchall()
            try:
                p = conn.execute(pred).fetchall()
            except sqlite3.OperationalError:
                if deadline.fired and hung is not None:
                    hung.append(g)
                raise
        if nonempty is not None:
            nonempty.update(side for side, r in (("gold", g), ("pred", p)) if r)
        return results_differ(g, p, semantics)
    except (sqlite3.Error, OverflowError):
        return False
    finally:
        conn.execute("ROLLBACK TO probe")
        conn.execute("RELEASE probe")


ENDLESS_SECONDS = 1.0  # for SQLite to show that a prediction it interrupted never stops


def _endless(schema: Schema, rows: Rows, pred: str, gold_rows: list[tuple]
             ) -> Validation | None:
    """A confirmed difference where the gold returned ``gold_rows`` and the prediction,
    interrupted, is shown never to stop (``spotit.nontermination``); None if not shown."""
    try:
        conn = build_database(schema, rows)
    except (sqlite3.Error, UnicodeEncodeError):
        return None
    try:
        if _broken_assumed_key(conn, schema) is not None:
            return None  # as validation: such a database is no counterexample
        why = never_stops(conn, pred, time.monotonic() + ENDLESS_SECONDS)
    finally:
        conn.close()
    if why is None:
        return None
    return Validation(True, gold_rows, None, f"the prediction never stops on this "
                      f"database: {why}")


def _assumes_dependencies(schema: Schema) -> bool:
    return any(t.functional_dependencies for t in schema.tables)


def _breaks_dependencies(conn: sqlite3.Connection, schema: Schema) -> bool:
    """Whether the database breaks an assumed functional dependency (SQLite cannot
    declare one, so it would accept the rows; see spotit.constraints)."""
    from spotit.constraints.model import FunctionalDependency
    from spotit.constraints.sql import violation_query

    return any(conn.execute(violation_query(FunctionalDependency(t.name, x, y))).fetchone()[0]
               for t in schema.tables for x, y in t.functional_dependencies)


def shrink_database(schema: Schema, rows: Rows, v: Validation,
                    confirm: Callable[[Rows], Validation]) -> tuple[Rows, Validation]:
    """Fewer rows, then NULL in every cell that does not matter; each step confirmed."""
    best, best_v = {t: list(r) for t, r in rows.items()}, v

    def accept(candidate: Rows) -> bool:
        nonlocal best, best_v
        nv = confirm(candidate)
        if nv.confirmed:
            best, best_v = candidate, nv
            return True
        return False

    changed = True
    while changed:
        changed = False
        for name in list(best):
            for i in reversed(range(len(best[name]))):
                if i >= len(best[name]):
                    continue
                candidate = {t: list(r) for t, r in best.items()}
                del candidate[name][i]
                changed |= accept(repair_foreign_keys(schema, candidate))
        for name in list(best):
            t = schema.require_table(name)
            for i in range(len(best[name])):
                for j, col in enumerate(t.columns):
                    if best[name][i][j] is None or not _nullable(t, col):
                        continue  # a NULL never collides, and a NULL child key never dangles
                    candidate = {tn: list(r) for tn, r in best.items()}
                    row = list(candidate[name][i])
                    row[j] = None
                    candidate[name][i] = tuple(row)
                    # but a parent's key set to NULL leaves its children dangling: they go
                    changed |= accept(repair_foreign_keys(schema, candidate))
    return {t: r for t, r in best.items() if r}, best_v
