"""What schema text says that SQLite's PRAGMAs do not report.

``PRAGMA table_xinfo`` lists columns, types, keys and which columns are
generated; it does not give CHECK expressions, generated-column expressions,
a view's query, or a partial or expression index's terms. Those are read here
from the CREATE statements SQLite keeps in ``sqlite_master``, with sqlglot's
SQLite tokenizer (so quotes, comments and nested parentheses are handled),
and returned as the *original text* of each expression: SpotIt's own parser
and binder give it meaning, exactly as for queries.

Every function raises ``DdlError`` when the text does not have the expected
shape; callers turn that into ``unsupported`` for the table concerned, never
into a silently dropped constraint.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlglot.dialects.sqlite import SQLite
from sqlglot.errors import TokenError
from sqlglot.tokens import Token, TokenType


class DdlError(ValueError):
    pass


@dataclass(frozen=True)
class TableText:
    """The expressions of one CREATE TABLE statement."""

    checks: tuple[str, ...] = ()
    generated: dict[str, str] = field(default_factory=dict)  # column (lower case) -> expr


@dataclass(frozen=True)
class IndexText:
    terms: tuple[str, ...]  # each indexed term, without COLLATE / ASC / DESC
    where: str | None = None


def _tokens(sql: str) -> list[Token]:
    try:
        return SQLite().tokenize(sql)
    except TokenError as e:
        raise DdlError(f"cannot read {sql[:60]!r}: {e}") from None


def _word(t: Token) -> str:
    return t.text.upper() if t.token_type is not TokenType.IDENTIFIER else ""


def _close(tokens: list[Token], i: int) -> int:
    """Index of the parenthesis closing the one at ``i``."""
    depth = 0
    for j in range(i, len(tokens)):
        if tokens[j].token_type is TokenType.L_PAREN:
            depth += 1
        elif tokens[j].token_type is TokenType.R_PAREN:
            depth -= 1
            if depth == 0:
                return j
    raise DdlError("unbalanced parentheses")


def _inside(sql: str, tokens: list[Token], i: int) -> tuple[str, int]:
    """The text between the parenthesis at ``i`` and its match, and the match's index."""
    j = _close(tokens, i)
    return sql[tokens[i].end + 1:tokens[j].start].strip(), j


def _split(tokens: list[Token], start: int, stop: int) -> list[list[int]]:
    """Token indexes of the comma-separated items between ``start`` and ``stop``."""
    items: list[list[int]] = [[]]
    depth = 0
    for k in range(start, stop):
        t = tokens[k].token_type
        if t is TokenType.L_PAREN:
            depth += 1
        elif t is TokenType.R_PAREN:
            depth -= 1
        if t is TokenType.COMMA and depth == 0:
            items.append([])
        else:
            items[-1].append(k)
    return [it for it in items if it]


def read_table(sql: str) -> TableText:
    """CHECK expressions and generated-column expressions of a CREATE TABLE."""
    tokens = _tokens(sql)
    open_at = next((k for k, t in enumerate(tokens) if t.token_type is TokenType.L_PAREN), None)
    if open_at is None:
        raise DdlError("CREATE TABLE without a column list")
    close_at = _close(tokens, open_at)
    checks: list[str] = []
    generated: dict[str, str] = {}
    for item in _split(tokens, open_at + 1, close_at):
        first = _word(tokens[item[0]])
        if first == "CONSTRAINT" and len(item) > 2:
            first = _word(tokens[item[2]])
        column = None
        if first not in ("PRIMARY", "UNIQUE", "CHECK", "FOREIGN"):
            column = tokens[item[0]].text.lower()
        k = 0 if column is None else 1
        while k < len(item):
            t = tokens[item[k]]
            nxt = item[k + 1] if k + 1 < len(item) else None
            opens = nxt is not None and tokens[nxt].token_type is TokenType.L_PAREN
            word = _word(t)
            if word == "CHECK" and opens:
                text, end = _inside(sql, tokens, nxt)
                checks.append(text)
                k = item.index(end) + 1
                continue
            if word == "AS" and opens and column is not None:
                text, end = _inside(sql, tokens, nxt)
                generated[column] = text
                k = item.index(end) + 1
                continue
            if opens:  # DEFAULT (...), REFERENCES t (...), a type's (10): skip it
                k = item.index(_close(tokens, nxt)) + 1
                continue
            k += 1
    return TableText(tuple(checks), generated)


def view_query(sql: str) -> str:
    """The query of a CREATE VIEW statement (the text after its AS)."""
    tokens = _tokens(sql)
    depth = 0
    for t in tokens:
        if t.token_type is TokenType.L_PAREN:
            depth += 1
        elif t.token_type is TokenType.R_PAREN:
            depth -= 1
        elif depth == 0 and _word(t) == "AS":
            return sql[t.end + 1:].strip().rstrip(";").strip()
    raise DdlError("CREATE VIEW without AS")


def read_index(sql: str) -> IndexText:
    """The indexed terms and the WHERE condition of a CREATE INDEX statement."""
    tokens = _tokens(sql)
    on = next((k for k, t in enumerate(tokens) if _word(t) == "ON"), None)
    if on is None:
        raise DdlError("CREATE INDEX without ON")
    open_at = next((k for k in range(on, len(tokens))
                    if tokens[k].token_type is TokenType.L_PAREN), None)
    if open_at is None:
        raise DdlError("CREATE INDEX without terms")
    close_at = _close(tokens, open_at)
    terms = []
    for item in _split(tokens, open_at + 1, close_at):
        while item and _word(tokens[item[-1]]) in ("ASC", "DESC"):
            item = item[:-1]
        cut = next((j for j, k in enumerate(item) if _word(tokens[k]) == "COLLATE"), len(item))
        item = item[:cut]
        if not item:
            raise DdlError("empty index term")
        terms.append(sql[tokens[item[0]].start:tokens[item[-1]].end + 1])
    where = None
    rest = tokens[close_at + 1:]
    if rest and _word(rest[0]) == "WHERE":
        where = sql[rest[0].end + 1:].strip().rstrip(";").strip()
    return IndexText(tuple(terms), where)


def amend_table(sql: str, not_null: set[str], extra: list[str]) -> str:
    """A CREATE TABLE with NOT NULL added to the columns named in ``not_null`` (lower
    case) and table constraints ``extra`` (SQL text) appended to its definitions."""
    tokens = _tokens(sql)
    open_at = next((k for k, t in enumerate(tokens) if t.token_type is TokenType.L_PAREN), None)
    if open_at is None:
        raise DdlError("CREATE TABLE without a column list")
    close_at = _close(tokens, open_at)
    inserts: list[tuple[int, str]] = []  # (offset in sql, text), applied from the end
    for item in _split(tokens, open_at + 1, close_at):
        first = tokens[item[0]]
        if _word(first) in ("CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN"):
            continue
        if first.text.lower() in not_null:
            inserts.append((tokens[item[-1]].end + 1, " NOT NULL"))
    if extra:
        inserts.append((tokens[close_at].start, "".join(f",\n  {e}" for e in extra) + "\n"))
    for at, text in sorted(inserts, reverse=True):
        sql = sql[:at] + text + sql[at:]
    return sql
