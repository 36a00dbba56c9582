"""Planted encoding bugs ("mutants"): a measure of what the fuzz can find.

Each mutant is a named switch read at the exact spot of ``spotit/encodings`` where
the real semantics is written: ``if planted("like-case-sensitive"): ...``. Off by
default, a switch costs one string comparison. ``spotit fuzz --mutants``
(:mod:`spotit.proofs.mutation`) turns them on one at a time and times how long
the fuzz takes to notice; ``tests/test_mutants.py`` shows each one changes a
verdict SQLite disagrees with.

The active mutant is process state mirrored in the environment variable
``SPOTIT_MUTANT``, read when this module is imported: a worker process the fuzz
starts (forked or spawned) runs with the same mutant as its parent. At most one
mutant is active at a time: they measure one bug each.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

ENV = "SPOTIT_MUTANT"


@dataclass(frozen=True)
class Mutant:
    name: str
    family: str  # the operator family the bug is in
    bug: str  # what the planted code gets wrong (SQLite's behaviour is the opposite)


MUTANTS: dict[str, Mutant] = {m.name: m for m in (
    Mutant("compare-null-false", "comparison with NULL",
           "x = NULL (and every comparison with a NULL side) is FALSE instead of NULL"),
    Mutant("is-null-unknown", "IS / IS NOT",
           "NULL IS NULL is NULL (IS behaves like =) instead of TRUE"),
    Mutant("compare-no-affinity", "comparison affinity",
           "a numeric column compared with text does not apply numeric affinity "
           "(i = '5' is FALSE for i = 5)"),
    Mutant("like-case-sensitive", "LIKE",
           "LIKE matches ASCII letters case-sensitively ('A' LIKE 'a' is FALSE)"),
    Mutant("like-escape-ignored", "LIKE ESCAPE",
           "the ESCAPE character is ignored: 'a\\%' keeps % a wildcard and '\\' a literal"),
    Mutant("substr-negative-start", "SUBSTR",
           "a negative start counts from the start (SUBSTR('abc', -1) is 'abc', not 'c')"),
    Mutant("date-month-clamp", "date modifiers",
           "'+N months' clamps the day to the month's end (2021-01-31 +1 month is "
           "2021-02-28, not 2021-03-03)"),
    Mutant("unix-epoch-day-off", "STRFTIME('%s') and UNIXEPOCH",
           "seconds since 1970 count from Julian day 2440587, a day early (1970-01-01 is "
           "86400, not 0)"),
    Mutant("computed-move-signed-twice", "date modifiers computed as sign || n || unit",
           "'+' || n || ' days' with a negative n moves back n days ('+-3 days'), instead "
           "of being no modifier (NULL)"),
    Mutant("text-arith-whole", "affinity of text in arithmetic",
           "text in arithmetic counts only if it is a number as a whole ('12abc' + 0 is "
           "0, not 12)"),
    Mutant("int-division-real", "integer division",
           "INTEGER / INTEGER is the exact REAL quotient (7 / 2 is 3.5, not 3)"),
    Mutant("modulo-floor", "integer division",
           "% takes the divisor's sign (-7 % 2 is 1, not -1)"),
    Mutant("round-half-even", "ROUND",
           "ROUND rounds halves to even (ROUND(2.5) is 2.0, not 3.0)"),
    Mutant("abs-int-as-real", "ABS",
           "ABS of an INTEGER is REAL (ABS(-3) is 3.0, not 3)"),
    Mutant("coalesce-empty-as-null", "COALESCE",
           "COALESCE skips '' as if it were NULL"),
    Mutant("case-null-taken", "CASE",
           "a WHEN whose condition is NULL is taken (NULL treated as TRUE)"),
    Mutant("minmax-skips-null", "MIN/MAX (scalar)",
           "multi-argument MIN/MAX ignore NULL arguments instead of returning NULL"),
    Mutant("in-subquery-null-false", "IN with NULL",
           "x IN (SELECT ...) is FALSE, not NULL, when nothing matches and a row is NULL"),
    Mutant("nocase-ignores-spaces", "NOCASE",
           "NOCASE also ignores trailing spaces ('a ' = 'A' under NOCASE)"),
    Mutant("count-null", "COUNT of NULL",
           "COUNT(x) counts the rows where x is NULL"),
    Mutant("sum-empty-zero", "SUM of empty",
           "SUM over no (non-NULL) rows is 0, not NULL"),
    Mutant("min-agg-null-smallest", "MIN/MAX (aggregate)",
           "aggregate MIN takes a NULL as the smallest value instead of skipping it"),
    Mutant("group-by-null-apart", "GROUP BY of NULL",
           "rows whose GROUP BY key is NULL each form a group of their own"),
    Mutant("distinct-nulls-apart", "DISTINCT",
           "DISTINCT (and UNION, INTERSECT, EXCEPT) keep every row holding a NULL: NULLs "
           "are not duplicates of each other"),
    Mutant("limit-with-ties", "LIMIT with ties",
           "ORDER BY ... LIMIT n also keeps the rows tied with the n-th (FETCH WITH TIES)"),
    Mutant("order-nulls-last", "ORDER BY NULL order",
           "NULLs sort last in ascending order (and first in descending)"),
    Mutant("left-join-no-padding", "LEFT JOIN padding",
           "LEFT JOIN drops the left rows without a match instead of padding them "
           "with NULLs"),
    Mutant("lookup-inner-as-left", "key lookup joins",
           "an inner join on a key of its right side keeps a left row no right row "
           "matches (with NULLs), as a LEFT JOIN would"),
    Mutant("ceil-as-trunc", "CEIL",
           "CEIL truncates toward zero (CEIL(1.5) is 1.0, not 2.0)"),
    Mutant("mod-sign-of-divisor", "MOD",
           "MOD floors the quotient (MOD(-7, 2) is 1.0, not -1.0)"),
    Mutant("typeof-real-as-integer", "TYPEOF",
           "TYPEOF of a REAL is 'integer' (TYPEOF(1.5) is 'integer', not 'real')"),
    Mutant("unicode-last-char", "UNICODE",
           "UNICODE reads the last character (UNICODE('ab') is 98, not 97)"),
    Mutant("char-out-of-range-dropped", "CHAR",
           "CHAR drops a code point outside 0..0x10FFFF (CHAR(-1) is '', not U+FFFD)"),
    Mutant("nullif-null-second", "NULLIF",
           "NULLIF(x, NULL) is NULL (a NULL second argument counts as equal), not x"),
    Mutant("unary-plus-numeric", "unary plus",
           "+x reads text as a number (+'5x' is 5, not '5x')"),
    Mutant("floor-as-trunc", "FLOOR",
           "FLOOR truncates toward zero (FLOOR(-1.5) is -1.0, not -2.0)"),
    Mutant("trunc-as-floor", "TRUNC",
           "TRUNC rounds down (TRUNC(-1.5) is -2.0, not -1.0)"),
    Mutant("pi-single-precision", "PI",
           "PI() is the single-precision 3.1415927410125732, not the double nearest pi "
           "(the encoding SQLite's constant folding stands in for: found with folding off)"),
    Mutant("math-domain-error-number", "math functions",
           "a domain error is a number (SQRT(-1), LN(0), ACOS(2) are some REAL, not NULL)"),
    Mutant("sign-text-prefix", "SIGN",
           "SIGN reads the number prefix of a text (SIGN('12abc') is 1, not NULL)"),
    Mutant("length-null-zero", "LENGTH",
           "LENGTH(NULL) is 0, not NULL"),
    Mutant("instr-zero-based", "INSTR",
           "INSTR counts from 0 (INSTR('abc', 'b') is 1, not 2)"),
    Mutant("replace-first-only", "REPLACE",
           "REPLACE replaces the first occurrence only (REPLACE('aa', 'a', 'b') is 'ba', "
           "not 'bb')"),
    Mutant("case-map-skips-z", "UPPER/LOWER",
           "UPPER and LOWER leave the last letter alone (UPPER('z') is 'z', not 'Z')"),
    Mutant("trim-whitespace", "TRIM",
           "TRIM, LTRIM and RTRIM also remove tabs and line breaks by default "
           "(TRIM(char(9) || 'a') is 'a', not a tab and 'a')"),
    Mutant("likely-as-truth", "LIKELY/LIKELIHOOD",
           "LIKELY(x), UNLIKELY(x) and LIKELIHOOD(x, p) give x's truth value (0 or 1), "
           "not x"),
    Mutant("quote-not-doubled", "QUOTE",
           "QUOTE does not double the quotes inside a text (QUOTE('it''s') is "
           "'it's' in quotes)"),
    Mutant("text-function-null-is-null", "HEX/SOUNDEX",
           "HEX(NULL) and SOUNDEX(NULL) are NULL, not '' and '?000'"),
    Mutant("json-extract-quoted", "JSON_EXTRACT and ->>",
           "a JSON string keeps its quotes (json_extract('{\"k\":\"a\"}', '$.k') is "
           "'\"a\"', not 'a')"),
    Mutant("json-arrow-unquoted", "->",
           "-> gives a JSON string without its quotes ('{\"k\":\"a\"}' -> 'k' is 'a', "
           "not '\"a\"')"),
    Mutant("printf-never-null", "PRINTF",
           "PRINTF is never NULL (PRINTF(NULL) is some text, not NULL)"),
    Mutant("now-in-local-time", "'now' and CURRENT_*",
           "'now' is read 14 hours ahead of UTC (CURRENT_DATE at 13:45 UTC on "
           "2024-02-29 is '2024-03-01')"),
    Mutant("set-as-bag", "set vs bag comparison",
           "results compared as sets differ when a row's multiplicity differs"),
    Mutant("bag-as-set", "set vs bag comparison",
           "results compared as bags are equal when they hold the same distinct rows"),
)}

_active: str | None = os.environ.get(ENV) or None


def planted(name: str) -> bool:
    """Whether mutant ``name`` is on (always False outside a mutation run)."""
    return _active is not None and _active == name


def active() -> str | None:
    """The mutant on in this process, if any."""
    return _active


@contextmanager
def planting(name: str) -> Iterator[Mutant]:
    """Turn mutant ``name`` on in this process and in processes it starts."""
    global _active
    if name not in MUTANTS:
        raise KeyError(f"no mutant {name!r}; one of: {', '.join(MUTANTS)}")
    before, env_before = _active, os.environ.get(ENV)
    _active = name
    os.environ[ENV] = name
    try:
        yield MUTANTS[name]
    finally:
        _active = before
        if env_before is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = env_before
