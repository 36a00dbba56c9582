"""What a fuzz run exercised: operators and functions, and classes of edge values.

A soundness harness is only as strong as what it reaches. For every Thm 1
expression checked, ``count`` records the IR operators and registered functions
its bound plan uses, and the edge-value classes present in its row and its
literals; ``spotit fuzz`` reports the totals and warns about an operator or a
class no case exercised (after a run long enough to expect one).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from datetime import date
from fractions import Fraction

from spotit.ir import relational as R
from spotit.ir import scalar as S
from spotit.ir.walk import iter_exprs, iter_rels

# edge-value classes, in the order they are reported
EDGE_CLASSES = ("null", "empty_text", "numeric_prefix_text", "long_numeric_text",
                "like_wildcards", "mixed_case", "leap_day", "invalid_date_text",
                "int_overflow_edge", "real", "inexact_decimal")
# a number spelled with more digits than a double holds (15): SQLite's reading of it
# (INTEGER or REAL, which double) is what the encoding approximates
LONG_NUMBER_DIGITS = 15
WARN_AFTER_SECONDS = 60.0  # a class or operator still at zero after this is a warning

_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_DATE_SHAPED = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})")
_TEXT_LITERAL = re.compile(r"'((?:[^']|'')*)'")
_NUMBER_LITERAL = re.compile(r"(?<![\w.'])(\d+\.\d*|\.\d+|\d+[eE][+-]?\d+)(?![\w'])")
_CALLED = re.compile(r"\b([A-Za-z_][A-Za-z_0-9]*)\s*\(")
OVERFLOW_EDGE = 2**31  # integers this large, multiplied, leave 64 bits


def _inexact(number: str) -> bool:
    """Whether the decimal ``number`` is no double (0.1: its double is 0.1000...0555),
    where SQLite's doubles and exact arithmetic part."""
    try:
        value = Fraction(number)
        return math.isfinite(float(value)) and Fraction(float(value)) != value
    except (ValueError, ZeroDivisionError, OverflowError):
        return False


def operators_of(plan, expr: str = "") -> set[str]:
    """The ``--only`` names of the IR operators ``plan`` uses and of the registered
    functions ``expr`` calls (read from the text: the binder rewrites some calls,
    IIF into a CASE, and the generator chose the function written)."""
    from spotit.encodings import registry

    if plan is not None:
        used = Counter(_names(iter_exprs(plan)))
        used.subtract(_names(e for g in _unread_generated(plan, expr) for e in iter_exprs(g)))
        out = {name for name, n in used.items() if n > 0}
    else:
        out = set()
    out |= {m.upper() for m in _CALLED.findall(expr) if m.upper() in registry.FUNCTIONS}
    if "(+" in expr.replace(" ", ""):
        out.add("+")
    bare = _TEXT_LITERAL.sub("''", expr)  # an arrow inside a text literal is no call
    out |= set(re.findall(r"->>?", bare))
    out |= {w for w in re.findall(r"\bCURRENT_[A-Z]+\b", expr.upper()) if w in registry.FUNCTIONS}
    return out


def _names(exprs: Iterable[tuple[S.Expr, int]]) -> Iterator[str]:
    return (type(e).__name__.upper() for e, _ in exprs if not isinstance(e, S.Const | S.ColumnRef))


def _unread_generated(plan, expr: str) -> Iterator[S.Expr]:
    """The generated columns' definitions (``StoredAs`` projected under the column's
    name) that ``expr`` does not name: the binder computes every generated column of a
    table it scans, and their operators are not the expression's."""
    words = set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", _TEXT_LITERAL.sub("''", expr).lower()))
    for rel in iter_rels(plan):
        if isinstance(rel, R.Project):
            yield from (e for e, c in zip(rel.exprs, rel.out, strict=True)
                        if isinstance(e, S.StoredAs) and c.name.lower() not in words)


def edge_classes(values: Iterable[object], expr: str = "") -> set[str]:
    """The edge-value classes among ``values`` (a row) and the literals of ``expr``."""
    texts = [v for v in values if isinstance(v, str)]
    found = set()
    if any(v is None for v in values) or re.search(r"\bNULL\b", expr, re.I):
        found.add("null")
    literals = [t.replace("''", "'") for t in _TEXT_LITERAL.findall(expr)]
    texts += literals
    numbers = _NUMBER_LITERAL.findall(_TEXT_LITERAL.sub("''", expr))
    if any(isinstance(v, float) for v in values) or numbers:
        found.add("real")
    if any(_inexact(repr(v)) for v in values if isinstance(v, float)) or \
            any(_inexact(n) for n in numbers):
        found.add("inexact_decimal")
    if any(isinstance(v, int | float) and not isinstance(v, bool) and abs(v) >= OVERFLOW_EDGE
           for v in values) or any(len(n) >= 10 for n in re.findall(r"\d+", expr)):
        found.add("int_overflow_edge")
    for t in texts:
        if t == "":
            found.add("empty_text")
        if _numeric_prefix_only(t):
            found.add("numeric_prefix_text")
        if (m := _NUMBER.match(t.strip())) and sum(c.isdigit() for c in m.group(1)) > \
                LONG_NUMBER_DIGITS:
            found.add("long_numeric_text")
        if "%" in t or "_" in t:
            found.add("like_wildcards")
        if any(c.isupper() for c in t) and any(c.islower() for c in t):
            found.add("mixed_case")
        m = _DATE_SHAPED.match(t)
        if m:
            y, mo, d = (int(x) for x in m.groups())
            if (mo, d) == (2, 29):
                found.add("leap_day")
            try:
                date(y, mo, d)
            except ValueError:
                found.add("invalid_date_text")
    return found


def _numeric_prefix_only(text: str) -> bool:
    """A number followed by something else (``'12abc'``): what numeric contexts cut."""
    body = text.strip()
    m = _NUMBER.match(body)
    return m is not None and m.end() < len(body)


def count(coverage: dict[str, Counter], operators: Iterable[str], row: Iterable[object],
          expr: str) -> None:
    """Add one checked expression (``operators``: ``operators_of`` its plan) to
    ``coverage`` (``{"operators", "edge_values"}``)."""
    coverage.setdefault("operators", Counter()).update(operators)
    coverage.setdefault("edge_values", Counter()).update(edge_classes(tuple(row), expr))


def warnings(coverage: dict[str, Counter], expected_operators: Iterable[str]) -> list[str]:
    """An operator or edge class no checked expression exercised."""
    ops, edges = coverage.get("operators", Counter()), coverage.get("edge_values", Counter())
    out = [f"operator {name} was exercised by no expression"
           for name in sorted(expected_operators) if not ops.get(name)]
    out += [f"edge values {name!r} appeared in no case" for name in EDGE_CLASSES
            if not edges.get(name)]
    return out


def expected_operators() -> set[str]:
    """Every scalar ``--only`` name the generators can produce (IR classes, functions)."""
    from spotit.ir import relational as R
    from spotit.proofs.generators import operator_names

    return {name for name, (cls, _) in operator_names().items() if cls is not R.Window}
