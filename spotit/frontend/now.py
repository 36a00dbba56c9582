"""Pin ``'now'`` to one evaluation instant, so SQLite agrees with the encoding.

SQLite reads the clock for ``'now'`` and CURRENT_DATE/TIME/TIMESTAMP, so the
same query gives different answers on different days. SpotIt evaluates both
queries at one fixed instant (``--now``); before a counterexample is run on
SQLite, those spellings are replaced by that instant's text.

Example:
    >>> from datetime import datetime
    >>> pin_now("SELECT DATE('now')", datetime(2024, 2, 29, 8, 0, 0))
    "SELECT DATE('2024-02-29 08:00:00')"
"""

from __future__ import annotations

import dataclasses
import re
from datetime import datetime
from typing import Any

from spotit.errors import SpotItError
from spotit.frontend import ast as A
from spotit.frontend.parser import parse
from spotit.frontend.render import render

DATE_FUNCTIONS = {"DATE", "TIME", "DATETIME", "JULIANDAY", "STRFTIME", "UNIXEPOCH", "TIMEDIFF"}


TIME_ZONE_MODIFIERS = ("localtime", "utc")
UTC_SPELLING = "+0 seconds"
"""What 'localtime' and 'utc' become on SQLite: SpotIt's time zone is UTC, where both only
normalise the time value (as ``+0 seconds`` does), whatever this machine's zone is."""


# calls that read the clock without saying 'now': SQLite takes the current instant when a
# date function has no time value (DATE(), STRFTIME('%Y'))
_NO_TIME_VALUE = re.compile(
    r"\b(?:" + "|".join(sorted(DATE_FUNCTIONS - {"STRFTIME", "TIMEDIFF"})) + r")\s*\(\s*\)"
    r"|\bstrftime\s*\(\s*'(?:[^']|'')*'\s*\)", re.IGNORECASE)


def time_value_missing(name: str, args: int) -> bool:
    """Whether a call of date function ``name`` with ``args`` arguments has no time value,
    so that SQLite reads it as 'now'."""
    if name == "STRFTIME":
        return args == 1
    return name in DATE_FUNCTIONS and name != "TIMEDIFF" and args == 0


def mentions_now(sql: str) -> bool:
    low = sql.lower()
    return "now" in low or "current_" in low or _NO_TIME_VALUE.search(sql) is not None


def pin_now(sql: str, now: datetime) -> str:
    """``sql`` with every ``'now'`` time value and CURRENT_* replaced by ``now``, and the
    date modifiers 'localtime' and 'utc' by their meaning in UTC (``'+0 seconds'``)."""
    low = sql.lower()
    if not mentions_now(sql) and not any(z in low for z in TIME_ZONE_MODIFIERS):
        return sql
    stamp = now.strftime("%Y-%m-%d %H:%M:%S")
    changed = False

    def fix(node: Any) -> Any:
        nonlocal changed
        if isinstance(node, A.Function):
            name = node.name.upper()
            if name == "CURRENT_DATE" and not node.args:
                changed = True
                return A.Literal(stamp[:10], pos=node.pos)
            if name == "CURRENT_TIME" and not node.args:
                changed = True
                return A.Literal(stamp[11:], pos=node.pos)
            if name == "CURRENT_TIMESTAMP" and not node.args:
                changed = True
                return A.Literal(stamp, pos=node.pos)
            if time_value_missing(name, len(node.args)):
                changed = True
                node = dataclasses.replace(node, args=(*node.args, A.Literal(stamp,
                                                                            pos=node.pos)))
            if name in DATE_FUNCTIONS:
                args = []
                for i, a in enumerate(node.args):
                    if isinstance(a, A.Literal) and isinstance(a.value, str) and \
                            a.value.strip().lower() == "now":
                        changed = True
                        a = A.Literal(stamp, pos=a.pos)
                    elif i and isinstance(a, A.Literal) and isinstance(a.value, str) and \
                            a.value.lower() in TIME_ZONE_MODIFIERS:
                        changed = True
                        a = A.Literal(UTC_SPELLING, pos=a.pos)
                    args.append(a)
                node = dataclasses.replace(node, args=tuple(args))
        return node

    try:
        parsed = parse(sql)
    except SpotItError:
        return sql  # not SQL SpotIt reads: SQLite will refuse it, and say why
    tree = _rewrite(parsed, fix)
    return render(tree) if changed else sql


def _rewrite(node: Any, fn) -> Any:
    if isinstance(node, tuple):
        return tuple(_rewrite(x, fn) for x in node)
    if not isinstance(node, A.Node):
        return node
    changes = {}
    for f in dataclasses.fields(node):
        if f.name == "pos":
            continue
        old = getattr(node, f.name)
        new = _rewrite(old, fn)
        if new is not old:
            changes[f.name] = new
    if changes:
        node = dataclasses.replace(node, **changes)
    return fn(node)
