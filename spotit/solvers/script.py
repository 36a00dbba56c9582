"""A light, linear scan of SMT-LIB text for the few facts a backend needs.

z3's ``Solver.from_string`` neither reports what a script declares nor runs
``check-sat``/``get-model`` (it skips them silently) nor applies ``push``/``pop``
written in the text to the solver (only to its parser). So before loading text
the z3 backend scans it: the declared constants (for the model and for
assumptions), the commands to drop, and scope commands to refuse.

One regular expression does the scan in C: string literals, quoted symbols and
comments are matched whole so their contents are never mistaken for commands,
and only the command heads we care about stop the scan.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

QUERY_COMMANDS = ("check-sat-assuming", "check-sat", "get-model", "get-value", "get-info",
            "get-option", "get-assignment", "get-assertions", "get-unsat-assumptions",
            "get-unsat-core", "get-proof", "echo", "exit")  # fmt: skip
"""Commands that query or talk: the session's ``check`` does the solving instead."""

SCOPE_COMMANDS = ("push", "pop", "reset-assertions", "reset")
"""Commands that would desynchronise the session's own scope bookkeeping."""

_DECLARES = ("declare-fun", "declare-const")

_HEADS = sorted(QUERY_COMMANDS + SCOPE_COMMANDS + _DECLARES, key=len, reverse=True)
_SCAN = re.compile(
    r'"[^"]*(?:""[^"]*)*"|\|[^|]*\||;[^\n\r]*|\(\s*('
    + "|".join(re.escape(h) for h in _HEADS)
    + r')(?=[\s()";|]|\Z)'
)
_TOKEN = re.compile(r'(?:\s|;[^\n\r]*)*(\(|\)|"[^"]*(?:""[^"]*)*"|\|[^|]*\||[^\s()|";]+)')


@dataclass
class ScriptFacts:
    """What :func:`scan` found, in text order."""

    constants: list[tuple[str, str]] = field(default_factory=list)
    """Declared nullary constants: (unquoted name, sort text normalised to single spaces)."""
    skipped: list[tuple[int, int]] = field(default_factory=list)
    """Spans ``[start, end)`` of the commands in ``QUERY_COMMANDS``."""
    scope_commands: list[str] = field(default_factory=list)
    """Heads of scope commands found (push, pop, reset, reset-assertions)."""


def unquote(symbol: str) -> str:
    """``|a b|`` -> ``a b``; a simple symbol is returned as is (they denote the same)."""
    if len(symbol) >= 2 and symbol[0] == "|" and symbol[-1] == "|":
        return symbol[1:-1]
    return symbol


def _tokens_from(text: str, pos: int) -> Iterator[tuple[str, int]]:
    """Yield (token, end) pairs starting at ``pos``."""
    while True:
        match = _TOKEN.match(text, pos)
        if match is None:
            return
        pos = match.end()
        yield match.group(1), pos


def _read_expr(tokens: Iterator[tuple[str, int]]) -> tuple[str, int]:
    """One atom or balanced s-expression from ``tokens``, normalised; and its end."""
    parts: list[str] = []
    depth = 0
    for token, end in tokens:
        parts.append(token)
        if token == "(":
            depth += 1
        elif token == ")":
            depth -= 1
        if depth <= 0:
            return " ".join(parts).replace("( ", "(").replace(" )", ")"), end
    raise ValueError("unterminated command")


def _command_end(text: str, start: int) -> int:
    """End of the command whose ``(`` is at ``start``."""
    return _read_expr(_tokens_from(text, start))[1]


def scan(text: str) -> ScriptFacts:
    """Scan SMT-LIB text (linear time). Raises ValueError on an unterminated command."""
    facts = ScriptFacts()
    for match in _SCAN.finditer(text):
        head = match.group(1)
        if head is None:
            continue  # a string literal, quoted symbol or comment
        if head in _DECLARES:
            tokens = _tokens_from(text, match.end())
            name, _ = next(tokens, ("", 0))
            if head == "declare-const":
                sort, _ = _read_expr(tokens)
                facts.constants.append((unquote(name), sort))
            else:
                params, _ = _read_expr(tokens)
                sort, _ = _read_expr(tokens)
                if params == "()":
                    facts.constants.append((unquote(name), sort))
        elif head in SCOPE_COMMANDS:
            facts.scope_commands.append(head)
        else:
            facts.skipped.append((match.start(), _command_end(text, match.start())))
    return facts


def without_spans(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with the given (sorted, disjoint) spans removed."""
    if not spans:
        return text
    pieces: list[str] = []
    pos = 0
    for start, end in spans:
        pieces.append(text[pos:start])
        pos = end
    pieces.append(text[pos:])
    return "".join(pieces)


def loadable(text: str) -> tuple[str, ScriptFacts]:
    """``text`` without its query commands, and what it declares, for a session that
    loads it: scope commands in the text are refused (the session keeps the scopes).

    Raises:
        ValueError: the text has a scope command, or an unterminated command.
    """
    facts = scan(text)
    if facts.scope_commands:
        raise ValueError(f"({facts.scope_commands[0]}) in added text is not supported: "
                         "use Session.push()/pop()")
    return without_spans(text, facts.skipped), facts
