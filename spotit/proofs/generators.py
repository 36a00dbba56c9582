"""Hypothesis strategies for the soundness harness, driven by the encoder's registry.

Expressions are built from ``OPERATORS`` (one SQL template per IR operator
class) and from every function in ``spotit.encodings.registry.FUNCTIONS``
(arguments drawn by the ``arg_kinds`` the function registered), so a newly
registered function is fuzzed without editing this file, and
``missing_generators()`` names every registered operator nothing here can
produce (a test fails on it).

All expressions range over one fuzz table ``t`` with a column of every
domain; rows hold the edge values where encodings tend to go wrong.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime

from hypothesis import reject
from hypothesis import strategies as st

from spotit.encodings import registry
from spotit.ir import relational as R
from spotit.ir import scalar as S
from spotit.ir.render import call_sql

# --------------------------------------------------------------------------- the fuzz table

FUZZ_COLUMNS: tuple[tuple[str, str], ...] = (
    ("i", "INTEGER"),
    ("r", "REAL"),
    ("s", "TEXT"),
    ("d", "DATE"),
    ("dt", "DATETIME"),
    ("n", "NUMERIC"),
    ("a", ""),
    ("sn", "TEXT COLLATE NOCASE"),
    ("sr", "TEXT COLLATE RTRIM"),
)
# generated columns: each stores its expression with its declared type's affinity
FUZZ_GENERATED: tuple[tuple[str, str], ...] = (
    ("gi", "INTEGER AS (r * 2)"),  # integral reals become integers
    ("gt", "TEXT AS (i + n)"),  # numbers become text
    ("gn", "NUMERIC AS (s || '')"),  # numeric text becomes a number
    ("gs", "TEXT COLLATE NOCASE AS (UPPER(sr))"),
)
# CHECK constraints: a row SQLite stores must be one the encoding allows
FUZZ_CHECKS: tuple[str, ...] = ("i IS NULL OR i <> 13", "sn IS NOT 'zz'", "gi IS NOT 6")
COLUMN_KINDS = {"i": "num", "r": "num", "n": "num", "s": "text", "d": "date", "dt": "date",
                "a": "any", "sn": "text", "sr": "text", "gi": "num", "gt": "text", "gn": "any",
                "gs": "text"}
COLLATIONS = ("NOCASE", "RTRIM", "BINARY")

EDGE_TEXTS = ("", " ", "a", "A", "abc", "aBc", "ABC", "a b", " a ", "%", "_", "a%b", "a_c",
              "12abc", "+-", "-3", "1.5", "  7", "0x10", "1e3", ".5", "2020-02-29",
              "2019-13-01", "2021-06-30 23:59:59", "2020-2-3", "é", "\t1", "a ", "ABC  ",
              "Abc", "É", "2010-07-19 19:37:33.0", "2021-06-30 23:59:59.5  ",
              # JSON objects, read by the JSON functions exactly (the first two) or not
              '{"k":"a"}', '{"k":-3}', '{"j":null,"k":"b"}')
# where SQLite's reading of numeric text turns on digits past what the encoding spells
# out: 64 bits, the 2**51 within which CAST AS NUMERIC makes a whole double an INTEGER,
# a fraction the double rounds away, a point with nothing after it
NUMERIC_EDGE_TEXTS = ("9223372036854775807", "9223372036854775808", "-9223372036854775808",
                      "2251799813685248.0", "2251799813685247.0", "123456789012345678.0",
                      "1.00000000000000001", "12.", "1.0abc", "-0.0", "0.1", "2.675")
# the last ones: products and sums of them leave 64 bits (SQLite's result is then REAL)
EDGE_INTS = (0, 1, -1, 2, 3, 7, 10, 100, 2020, -5, 2**31, 2**62, -(2**63), 2**63 - 1)
# halves with an even whole part (0.5, 2.5, and 0.25 at one digit) tell rounding away
# from zero from rounding to even; decimals no double holds exactly (0.1, and 0.285, 2.675,
# 1.005 just below a half at two digits, which SQLite's printf nudge rounds up) tell the
# double's exact value from the decimal it is printed as; 0.1 + 0.2 is not 0.3
EDGE_REALS = (0.0, 0.5, -0.5, 1.0, 1.5, 2.5, -2.5, 0.25, -2.25, 100.0, 2.5e-3, 1e10,
              0.1, -0.1, 0.2, 0.3, 0.285, 2.675, -1.005, 1e-7, 123.456, 4503599627370495.5)

# texts that collations tell apart or not: the same letters in other cases, trailing spaces
CASE_TEXTS = ("a", "A", "a ", "A  ", "aB", "Ab")
case_texts = st.sampled_from(CASE_TEXTS)


def choice(*options: st.SearchStrategy) -> st.SearchStrategy:
    """One of ``options``, each as likely as the others. ``st.one_of`` flattens an
    option that is itself a ``one_of`` (or a map of one) into its branches and draws
    among those: ``one_of(columns, literals)`` drew a column one time in eleven."""
    return st.sampled_from(options).flatmap(lambda option: option)


edge_texts = st.sampled_from(EDGE_TEXTS)
short_texts = st.text(alphabet="aAbZ 1-%_.:+", max_size=6)
# one in six texts is '', two edge texts, one numeric edge, two short random texts. ''
# is to text what NULL is to any value, the absent one a system may confuse with NULL
# (COALESCE, NULLIF, IFNULL, LENGTH, || take it as a value): as one edge text in
# thirty-three it was three text cells in a hundred of the Thm 1 cases (now fifteen)
text_values = st.one_of(st.just(""), edge_texts, edge_texts,
                        st.sampled_from(NUMERIC_EDGE_TEXTS), short_texts, short_texts)
int_values = st.one_of(st.sampled_from(EDGE_INTS), st.integers(-1000, 1000))
# eighths are exact in binary, hundredths mostly not
real_values = st.one_of(st.sampled_from(EDGE_REALS),
                        st.integers(-400, 400).map(lambda x: x / 8),
                        st.integers(-40000, 40000).map(lambda x: x / 100))
# leap days and month ends: where adding months, years or days overflows a month
dates = st.one_of(st.sampled_from([date(2000, 2, 29), date(2020, 2, 29), date(1999, 12, 31),
                                   date(2021, 1, 1), date(1900, 3, 1), date(2021, 1, 31),
                                   date(2020, 3, 31), date(2021, 5, 31), date(2019, 8, 30),
                                   date(2020, 10, 31), date(2021, 3, 31), date(2020, 1, 30),
                                   date(2021, 8, 31), date(2020, 12, 31)]),
                  st.dates(min_value=date(1, 1, 1), max_value=date(9999, 12, 31)))
datetimes = st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31)).map(
    lambda d: d.replace(microsecond=0))
# DATETIME text as SQLite stores it: whole seconds, or a fraction of 1 to 3 digits
FRACTIONS = ("", "", ".0", ".5", ".05", ".000", ".123", ".999")
EDGE_DATETIMES = ("2010-07-19 19:37:33.0", "2010-07-19 19:37:33.000", "2010-07-19 19:37:33.123",
                  "2020-02-29 23:59:59.999", "2000-02-29 00:00:00.5", "1969-12-31 23:59:59.05",
                  "2021-06-30 23:59:59.00")
datetime_texts = st.one_of(
    st.sampled_from(EDGE_DATETIMES),
    st.tuples(datetimes, st.sampled_from(FRACTIONS)).map(
        lambda p: p[0].isoformat(sep=" ") + p[1]))  # zero-padded year

_DOMAIN_VALUES = {
    "INTEGER": int_values,
    "REAL": real_values,
    "TEXT": text_values,
    "DATE": dates.map(lambda d: d.isoformat()),
    "DATETIME": datetime_texts,
    "NUMERIC": choice(int_values, real_values),
    "": choice(int_values, real_values, text_values),
    "TEXT COLLATE NOCASE": choice(case_texts, case_texts, text_values),
    "TEXT COLLATE RTRIM": choice(case_texts, case_texts, text_values),
}


def cell(declared: str) -> st.SearchStrategy:
    """A value of a column with this declared type, NULL one time in four: an
    operator's edge cases (a half to round, a negative start) are values, and a row
    of NULLs hides them all."""
    values = _DOMAIN_VALUES[declared]
    return choice(st.none(), values, values, values)


def fuzz_rows(data: str = "declared") -> st.SearchStrategy[tuple]:
    """A row of the fuzz table; with ``data="sqlite"`` any value in any column (SQLite
    stores it under the column's affinity), as ``--data sqlite`` assumes."""
    if data == "sqlite":
        anything = choice(st.none(), int_values, real_values, text_values)
        return st.tuples(*(choice(anything, cell(t)) for _, t in FUZZ_COLUMNS))
    return st.tuples(*(cell(t) for _, t in FUZZ_COLUMNS))


DATA_LEVELS = ("declared", "declared", "sqlite")  # a third of the rows: --data sqlite


# --------------------------------------------------------------------------- literals

def sql_literal(v) -> str:
    if v is None:
        return "NULL"
    if isinstance(v, str):
        return "'" + v.replace("'", "''") + "'"
    if isinstance(v, float):
        return repr(v)
    return str(v)


_MONTH_STEPS = st.sampled_from(["'+1 month'", "'-1 month'", "'+2 months'", "'-3 months'",
                                "'+13 months'", "'+1 year'", "'-1 year'"])
_OTHER_STEPS = st.sampled_from(["'+1 day'", "'-1 day'", "'start of month'", "'start of year'",
                                "'start of day'", "'+3 hours'", "'-90 minutes'",
                                "'+30 seconds'", "'localtime'", "'utc'", "'-5373485 days'",
                                "'unixepoch'", "'UnixEpoch'"])
_LITERALS: dict[str, st.SearchStrategy[str]] = {
    "num": st.one_of(int_values, real_values).map(sql_literal),
    # SUBSTR's positions: negative ones (counted from the end), 0 (one character
    # less) and past the end of a short text, as likely as ordinary ones. Listed, the
    # telling ones first: Hypothesis draws st.integers near 0 and favours a list's
    # first elements (from -4..12, SUBSTR's start was 0 in most draws)
    "int": st.sampled_from(["-1", "2", "-2", "0", "1", "-3", "3", "8", "-6", "5", "4",
                            "-4"]),
    "text": text_values.map(sql_literal),
    "any": st.one_of(st.none(), int_values, real_values, text_values).map(sql_literal),
    "date": st.one_of(
        dates.map(lambda d: sql_literal(d.isoformat())),
        datetime_texts.map(sql_literal),
        st.sampled_from(["'now'", "'2020-02-30'", "'2020-01-01T10:00'", "'12:30'",
                         "2459000.5", "'x'", "'2010-07-19 19:37:33.1234'",
                         "'2010-07-19T19:37:33.5'",
                         # seconds since 1970, for 'unixepoch': a day's end, before 1970,
                         # the first and last seconds SQLite takes, and one past
                         "1700000000", "86399", "-1", "-210866760000", "253402300799",
                         "253402300800", "'1700000000'"]),
    ),
    "fmt": st.sampled_from(["'%Y'", "'%m'", "'%d'", "'%Y-%m'", "'%H'", "'%M'", "'%S'",
                            "'%Y-%m-%d'", "'%H:%M:%S'", "'%j'", "'%w'", "'%s'", "'%J'",
                            "'%%'", "'%Y%m'", "'year %Y'", "'%f'", "'%S.%f'"]),
    # month and year steps (half the modifiers) from the month ends above land past a
    # shorter month's end, where SQLite normalizes (2021-01-31 +1 month is 2021-03-03);
    # a third other steps (the last past SQLite's limit: NULL); a sixth modifiers
    # outside the fragment (unsupported) and spellings SQLite refuses (NULL), which the
    # encoding must refuse by name
    "modifier": choice(*[_MONTH_STEPS] * 3, *[_OTHER_STEPS] * 2, st.sampled_from(
        ["'+0.5 days'", "'weekday 0'", "'+ 1 day'", "'start  of month'"])),
    "chars": st.sampled_from(["' '", "'a'", "'ab'", "' a'", "'%'", "''"]),
    # LIKELIHOOD's constant (SQLite refuses anything else when it prepares the query)
    "probability": st.sampled_from(["0.5", "0.0", "1", "0.9375", "1.0"]),
    # CHAR's code points: ASCII, beyond, the ends of the ranges SQLite and SMT-LIB take,
    # a surrogate, and values SQLite replaces by U+FFFD
    "codepoint": st.sampled_from(["65", "97", "233", "0", "-1", "1114111", "1114112",
                                  "55296", "196607", "196608", "8364", "'66'", "66.9"]),
    "digits": st.sampled_from(["0", "1", "2", "-1"]),
    # JSON texts: flat objects the encoding reads exactly (a string, an integer, null,
    # -0, a repeated name), and others it leaves free (a REAL, an array, a nested
    # object, escapes, spaces, a bare number, malformed JSON: SQLite's error)
    "json": st.sampled_from([
        '{"k":"a"}', '{"k":12}', '{"k":null}', '{"j":"b","k":-3}', '{"k":"","j":null}',
        '{"k":-0}', '{"k":1,"k":2}', '{}', '{"k":"A b"}', '{"k":1.5}', '{"k":[1,2]}',
        '{"k":{"j":3}}', '{"k":"a\\"b"}', '{ "k" : "a" }', '[1,2]', '5', '{"k":true}',
        '{"k":9223372036854775808}', 'abc']).map(sql_literal),
    # (mostly the members of EDGE_TEXTS' JSON objects: there the encoding is exact)
    "jsonpath": st.sampled_from(["'$.k'", "'$.k'", "'$.k'", "'$.j'", "'k'", "'k'", "'j'",
                                 "'$'", "'$[0]'", "0", "1", "'$.k.j'", "'$.\"k\"'", "NULL",
                                 "'$.K'"]),
    "pattern": st.one_of(
        st.sampled_from(["'a%'", "'%a'", "'%b%'", "'A_c'", "'%'", "'_'", "''", "'2020%'",
                         "'%-02-%'", "'1%'", "'a\\%%'", "'%\\%%'", "'%\\_%'", "'\\_%'"]),
        st.text(alphabet="aB%_1 -", max_size=5).map(sql_literal),
    ),
}

KINDS = (*_LITERALS, "bool")


# --------------------------------------------------------------------------- operators

Draw = Callable[[st.SearchStrategy], object]
Expr = Callable[[str], st.SearchStrategy[str]]  # kind -> strategy of SQL expressions

ARITH_OPS = ("+", "-", "*", "/", "%")
COMPARE_OPS = ("=", "<>", "<", "<=", ">", ">=", "==", "!=")
CAST_TYPES = ("INTEGER", "REAL", "TEXT", "NUMERIC", "INT", "VARCHAR(10)")


# an INTEGER column or literal: INTEGER op INTEGER is where SQLite's integer arithmetic
# shows (7 / 2 is 3, -7 % 2 is -1, 2**62 * 4 leaves 64 bits), and a ratio of two counts
# without CAST AS REAL is the classic wrong text-to-SQL answer
INTEGER_COLUMNS = ("i", "gi")
INTEGER_OPERANDS = choice(st.sampled_from(INTEGER_COLUMNS), int_values.map(sql_literal))


# between integers, / and % (truncation, the sign of a remainder) are where SQLite's
# answers differ from a real's; + - * only at 64 bits' edge: half of those draws
INTEGER_ARITH_OPS = ("/", "%", "/", "%", "+", "-", "*")


def _arith(draw: Draw, sub: Expr, kind: str) -> str:
    if draw(st.booleans()):  # half: both INTEGER, a column among them
        op = draw(st.sampled_from(INTEGER_ARITH_OPS))
        x, y = draw(st.sampled_from(INTEGER_COLUMNS)), draw(INTEGER_OPERANDS)
        return f"({x} {op} {y})" if draw(st.booleans()) else f"({y} {op} {x})"
    op = draw(st.sampled_from(ARITH_OPS))
    return f"({draw(sub('num'))} {op} {draw(sub('num'))})"


def _negate(draw: Draw, sub: Expr, kind: str) -> str:
    return f"(-{draw(sub('num'))})"


def _concat(draw: Draw, sub: Expr, kind: str) -> str:
    return f"({draw(sub('any'))} || {draw(sub('any'))})"


COLLATED_OPERANDS = ("sn", "sr", "gs", "s COLLATE NOCASE", "s COLLATE RTRIM",
                     "sn COLLATE BINARY", "+sn", "CAST(sr AS TEXT)", "(sn)")


# columns whose numbers a comparison with text may convert (affinity) or not
NUMERIC_COLUMNS = ("i", "r", "n", "gi", "gn", "a")


def _compare(draw: Draw, sub: Expr, kind: str) -> str:
    form = draw(st.integers(0, 3))
    if form <= 1:
        return collated_comparison(draw, sub, kind)
    op = draw(st.sampled_from(COMPARE_OPS))
    if form == 2:  # a number against a spelling of itself: affinity decides
        column = draw(st.sampled_from(NUMERIC_COLUMNS))
        x, y = column, draw(sub(f"variant:{column}"))
        return f"({x} {op} {y})" if draw(st.booleans()) else f"({y} {op} {x})"
    left_kind = draw(st.sampled_from(("num", "text", "any", "date")))
    return f"({draw(sub(left_kind))} {op} {draw(sub(left_kind))})"


def collated_comparison(draw: Draw, sub: Expr, kind: str) -> str:
    """A comparison whose answer depends on the collation: a collated operand against
    a variant of the row's own text (other case, trailing spaces) or another one."""
    x = draw(st.sampled_from(COLLATED_OPERANDS))
    column = next(c for c in ("sn", "sr", "gs", "s") if c in x.split()[0].strip("+("))
    y = draw(st.one_of(sub(f"variant:{column}"), sub(f"variant:{column}"),
                       st.sampled_from([o for o in COLLATED_OPERANDS if o != x])))
    form = draw(st.integers(0, 6))
    if form >= 5 and y.startswith("'"):  # LIKE folds ASCII case, whatever the collation
        return f"({x} {'NOT ' if draw(st.booleans()) else ''}LIKE {y})"
    if form == 4:
        return f"({x} {'NOT ' if draw(st.booleans()) else ''}IN ({y}, {draw(sub('text'))}))"
    if form == 3:
        return f"({x} IS {'NOT ' if draw(st.booleans()) else ''}{y})"
    op = draw(st.sampled_from(COMPARE_OPS))
    return f"({x} {op} {y})" if form < 2 else f"({y} {op} {x})"


def _is(draw: Draw, sub: Expr, kind: str) -> str:
    neg = draw(st.sampled_from(("", "NOT ")))
    if draw(st.booleans()):  # two columns: both NULL now and then (NULL IS NULL is TRUE)
        x, y = draw(st.lists(st.sampled_from(tuple(COLUMN_KINDS)), min_size=2, max_size=2))
        return f"({x} IS {neg}{y})"
    return f"({draw(sub('any'))} IS {neg}{draw(sub('any'))})"


def _is_null(draw: Draw, sub: Expr, kind: str) -> str:
    form = draw(st.sampled_from(("IS NULL", "IS NOT NULL", "ISNULL", "NOTNULL")))
    return f"({draw(sub('any'))} {form})"


def _and(draw: Draw, sub: Expr, kind: str) -> str:
    return f"({draw(sub('bool'))} AND {draw(sub('bool'))})"


def _or(draw: Draw, sub: Expr, kind: str) -> str:
    return f"({draw(sub('bool'))} OR {draw(sub('bool'))})"


def _not(draw: Draw, sub: Expr, kind: str) -> str:
    return f"(NOT {draw(sub('bool'))})"


# the text columns an ESCAPE pattern is matched against half the time: its escape
# matters only on text that holds the wildcard or the escape character itself, and
# an operand drawn freely is often a constant (SQLite folds it: nothing is checked)
_LIKE_COLUMNS = ("s", "sn", "sr", "a", "gt", "gs")


def _like(draw: Draw, sub: Expr, kind: str) -> str:
    # forms: 0 GLOB, 1 a listed pattern, 2-3 an ESCAPE pattern (its own encoding path,
    # drawn as often as the rest of LIKE's), 4 a pattern expression, 5-6 a column
    # against its own value in another case or with spaces
    neg = draw(st.sampled_from(("", "NOT ")))
    form = draw(st.integers(0, 6))
    if form in (2, 3):
        x = draw(choice(st.sampled_from(_LIKE_COLUMNS), sub("text")))
        return f"({x} {neg}LIKE {draw(_escaped_patterns())})"
    if form >= 5:  # a column against its own value in another case or with spaces
        column = draw(st.sampled_from(("s", "sn", "sr", "a")))
        pattern = draw(sub(f"variant:{column}"))
        if "%" in pattern or "_" in pattern:
            # the value as a pattern, its wildcards escaped: ESCAPE on real text
            escaped = pattern.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            return f"({column} {neg}LIKE {escaped} ESCAPE '\\')"
        return f"({column} {neg}{draw(st.sampled_from(('LIKE', 'GLOB')))} {pattern})"
    x = draw(sub(draw(st.sampled_from(("text", "date", "any")))))
    if form == 0:
        return f"({x} {neg}GLOB {draw(st.sampled_from(['a*', '*b*', '?B*', '[a-c]*', '2020*']))!r})"
    pattern = draw(_LITERALS["pattern"]) if form == 1 else draw(sub("text"))
    return f"({x} {neg}LIKE {pattern})"


# LIKE patterns that use their ESCAPE character (E): before a wildcard, before itself,
# at the end (SQLite: the pattern then matches nothing)
_ESCAPE_SHAPES = ("E%", "%E%%", "E_%", "aE%%", "%E_%", "%EE%", "E%E_", "%E", "a%bE_c")


@st.composite
def _escaped_patterns(draw: Draw) -> str:
    """``'pattern' ESCAPE 'c'`` where the pattern uses ``c`` (a backslash, another
    sign, a letter, which then matches only as an escape), or ``ESCAPE NULL`` (NULL
    whatever the text)."""
    sign = st.sampled_from(("\\", "!", "a"))
    esc = draw(choice(sign, sign, sign, st.just(None)))
    if esc is None:
        return f"{draw(_LITERALS['pattern'])} ESCAPE NULL"
    pattern = draw(choice(st.sampled_from(_ESCAPE_SHAPES).map(lambda t: t.replace("E", esc)),
                          st.text(alphabet=f"aB%_1 -{esc}", max_size=6)))
    return f"{sql_literal(pattern)} ESCAPE {sql_literal(esc)}"


def _case(draw: Draw, sub: Expr, kind: str) -> str:
    result = kind if kind != "bool" else "any"
    if draw(st.booleans()):
        return f"IIF({draw(sub('bool'))}, {draw(sub(result))}, {draw(sub(result))})"
    whens = draw(st.lists(st.tuples(sub("bool"), sub(result)), min_size=1, max_size=2))
    body = " ".join(f"WHEN {w} THEN {t}" for w, t in whens)
    else_ = f" ELSE {draw(sub(result))}" if draw(st.booleans()) else ""
    return f"CASE {body}{else_} END"


def _collate(draw: Draw, sub: Expr, kind: str) -> str:
    return f"({draw(sub(kind))} COLLATE {draw(st.sampled_from(COLLATIONS))})"


def _cast(draw: Draw, sub: Expr, kind: str) -> str:
    return f"CAST({draw(sub('any'))} AS {draw(st.sampled_from(CAST_TYPES))})"


def _in(draw: Draw, sub: Expr, kind: str) -> str:
    neg = draw(st.sampled_from(("", "NOT ")))
    x = draw(sub("any"))
    if draw(st.booleans()):
        items = draw(st.lists(sub("any"), min_size=1, max_size=3))
        return f"({x} {neg}IN ({', '.join(items)}))"
    col = draw(st.sampled_from([c for c, _ in FUZZ_COLUMNS]))
    return f"({x} {neg}IN (SELECT {col} FROM t AS t2 WHERE {draw(sub('bool'))}))"


def _exists(draw: Draw, sub: Expr, kind: str) -> str:
    neg = draw(st.sampled_from(("", "NOT ")))
    return f"({neg}EXISTS (SELECT 1 FROM t AS t2 WHERE {draw(sub('bool'))}))"


def _scalar_subquery(draw: Draw, sub: Expr, kind: str) -> str:
    inner = draw(sub(kind if kind != "bool" else "any"))
    agg = draw(st.sampled_from(("", "MAX", "COUNT", "SUM", "MIN", "AVG", "GROUP_CONCAT",
                                "GROUP_CONCAT(DISTINCT")))
    if agg.startswith("GROUP_CONCAT"):
        sep = draw(st.sampled_from(("", ", ';'", ", NULL", ", 1")))
        head = f"{agg}({inner}{sep})" if "(" not in agg else f"{agg} {inner})"
    else:
        head = f"{agg}({inner})" if agg else inner
    return f"(SELECT {head} FROM t AS t2 WHERE {draw(sub('bool'))})"


def _call(draw: Draw, sub: Expr, kind: str) -> str:
    name = draw(st.sampled_from(sorted(registry.FUNCTIONS)))
    return function_call(draw, sub, name)


def function_call(draw: Draw, sub: Expr, name: str) -> str:
    """A call of registered function ``name`` with arguments of its registered kinds."""
    spec = registry.FUNCTIONS[name]
    if spec.max_args == 0:
        return name if name.startswith("CURRENT_") else f"{name}()"
    top = spec.max_args if spec.max_args is not None else spec.min_args + 2
    n = draw(st.integers(spec.min_args, top))
    kinds = list(spec.arg_kinds) or ["any"]
    args = [draw(argument(sub, kinds[min(j, len(kinds) - 1)])) for j in range(n)]
    return call_sql(name, args)


# Constants of every storage class, for any argument: an encoding must take (or refuse
# by name) what SQLite takes -- ROUND(x, '') is ROUND(x, 0), not a crash.
ODD_CONSTANTS = st.sampled_from(["''", "'1abc'", "' 2'", "'x'", "'1e1'", "1.5", "-1.5",
                                 "NULL", "-1", "'2'", "0.0"])


def argument(sub: Expr, kind: str) -> st.SearchStrategy[str]:
    """An argument of a registered kind: a literal of it, an expression of its type, or
    now and then a constant of any storage class."""
    if kind == "modifier":  # a step the encoding computes, most often: date arithmetic
        # (one modifier outside the fragment makes the whole call unsupported, a check
        # of nothing: two in three date calls of a minute's run were, at 4 in 6 here)
        # and a move by a computed number ('-' || n || ' days', spotit.encodings.dates)
        # (a number of either sign: '+' || -3 || ' days' is no modifier)
        computed = st.tuples(st.sampled_from(["'-' || ", "'+' || ", ""]),
                             choice(sub("num"), sub("any"),
                                    st.sampled_from(["-3", "2", "-1", "0", "40", "-13"])),
                             st.sampled_from(["' days'", "' day'", "' hours'",
                                              "'  minutes'", "' SECONDS'", "' months'",
                                              "' year'"])
                             ).map(lambda t: f"{t[0]}({t[1]}) || {t[2]}")
        return choice(*[_LITERALS[kind]] * 10, sub("any"), ODD_CONSTANTS, *[computed] * 3)
    if kind in ("fmt", "chars", "digits", "pattern"):
        return choice(_LITERALS[kind], _LITERALS[kind], sub("any"), ODD_CONSTANTS)
    if kind in ("probability", "jsonpath"):  # constants only (else: unsupported)
        return _LITERALS[kind]
    if kind == "json":  # a text column most often (a literal is folded by SQLite)
        return choice(st.sampled_from(["s", "a", "sn"]), st.sampled_from(["s", "a"]),
                      sub("text"), _LITERALS[kind], ODD_CONSTANTS)
    if kind in ("int", "codepoint"):
        return choice(_LITERALS[kind], sub("num"), ODD_CONSTANTS)
    typed = sub(kind if kind in KINDS else "any")
    return choice(typed, typed, typed, typed, ODD_CONSTANTS)


# Each IR operator class: how to write it in SQL, and the kinds of value it yields.
OPERATORS: dict[type, tuple[Callable[[Draw, Expr, str], str], tuple[str, ...]]] = {
    S.Arith: (_arith, ("num", "any")),
    S.Negate: (_negate, ("num", "any")),
    S.Concat: (_concat, ("text", "any")),
    S.Compare: (_compare, ("bool",)),
    S.Is: (_is, ("bool",)),
    S.IsNull: (_is_null, ("bool",)),
    S.And: (_and, ("bool",)),
    S.Or: (_or, ("bool",)),
    S.Not: (_not, ("bool",)),
    S.Like: (_like, ("bool",)),
    S.Case: (_case, ("num", "text", "any", "date")),
    S.Cast: (_cast, ("num", "text", "any")),
    S.Collate: (_collate, ("text", "any")),
    S.Call: (_call, ("num", "text", "any", "date")),
    S.InSubquery: (_in, ("bool",)),
    S.Exists: (_exists, ("bool",)),
    S.ScalarSubquery: (_scalar_subquery, ("num", "text", "any")),
}
LEAVES = (S.Const, S.ColumnRef)  # produced by ``leaf``
READ_FROM_GENERATED = (S.StoredAs,)  # produced by reading a FUZZ_GENERATED column


def missing_generators() -> list[str]:
    """Registered operators and functions this module cannot generate."""
    out = [c.__name__ for c in registry.SCALAR
           if c not in OPERATORS and c not in LEAVES and c not in READ_FROM_GENERATED]
    for name, spec in registry.FUNCTIONS.items():
        if spec.min_args and not spec.arg_kinds:
            out.append(f"{name} (no arg_kinds)")
    return sorted(out + missing_window_generators())


def operator_names() -> dict[str, tuple[type, str | None]]:
    """``--only`` names: IR classes (``Like``) and function names (``SUBSTR``)."""
    out: dict[str, tuple[type, str | None]] = {c.__name__.upper(): (c, None) for c in OPERATORS}
    out.update({n.upper(): (S.Call, n) for n in registry.FUNCTIONS})
    out.update({window_function_key(n): (R.Window, n) for n in registry.WINDOW_FUNCTIONS})
    return out


def scalar_operator_names() -> tuple[str, ...]:
    """The ``operator_names`` an expression can have outermost (not window functions)."""
    return tuple(sorted(n for n, (cls, _) in operator_names().items() if cls is not R.Window))


def focusable_operator_names() -> tuple[str, ...]:
    """The ``scalar_operator_names`` an expression that reads a column can have
    outermost: not the functions without arguments (CURRENT_DATE), which free
    expressions reach inside others."""
    return tuple(n for n in scalar_operator_names()
                 if n not in registry.FUNCTIONS or registry.FUNCTIONS[n].max_args != 0)


# draws of a focused expression until one reads a column; single-argument functions
# over a literal miss about half the time, and a filter on the strategy would throw away
# the whole case (twelve expressions, thirty-two rows) after three misses in a row: four
# generated cases in five were lost so, a fifth of the expression part's clock
FOCUS_TRIES = 12


@st.composite
def focused_expressions(draw: Draw, related: Related | None = None, depth: int = 2) -> str:
    """An expression whose outermost operator or function is drawn uniformly over all of
    them: each gets its share, where a free draw of operators reaches a given function
    (SUBSTR, ROUND) in a handful of expressions a minute. Two in three apply it to
    columns and literals directly (a row's edge value reaches it as it is). It reads a
    column: a closed expression is folded by SQLite itself (Encoder.fold) and checks
    no encoding. The operator is kept while its arguments are drawn again, so an
    operator whose arguments are often all literals keeps its share."""
    name = draw(st.sampled_from(focusable_operator_names()))
    shallow = expressions("any", 1, name, related)
    shapes = st.one_of(shallow, shallow, expressions("any", depth, name, related))
    for _ in range(FOCUS_TRIES):
        expr = draw(shapes)
        if reads_a_column(expr):
            return expr
    reject()  # rare: half the leaves are columns, so most tries read one


_STRING_LITERAL = re.compile(r"'(?:[^']|'')*'")
_COLUMN_NAME = re.compile(r"\b(?:" + "|".join(sorted(COLUMN_KINDS, key=len, reverse=True))
                          + r")\b")


def reads_a_column(expr: str) -> bool:
    """Whether the expression text names a column of the fuzz table (outside literals)."""
    return _COLUMN_NAME.search(_STRING_LITERAL.sub("''", expr)) is not None


Related = dict[str, tuple[str, ...]]  # column -> variants of the row's value in it


def variants(texts) -> tuple[str, ...]:
    """Each text as given, in other cases and with trailing spaces: the literals a
    collation (or LIKE, or UPPER) may equate with a value of the row."""
    out: dict[str, None] = {}
    for t in texts:  # the telling variants first: Hypothesis favours early elements
        for v in (t.swapcase(), t + " ", t.upper(), t.lower(), t.rstrip(" "), t + "  ", t):
            out.setdefault(v, None)
    return tuple(out)


def rows_related(rows: list[tuple], columns: tuple[tuple[str, str], ...] = FUZZ_COLUMNS,
                 among: int = 3) -> Related:
    """``related_texts`` of the first ``among`` rows together: a case's expressions run
    on all its rows, and a literal near one row's value is an edge case there."""
    out: dict = {}
    for row in rows[:among]:
        for name, texts in related_texts(columns, row).items():
            out[name] = tuple(dict.fromkeys([*out.get(name, ()), *texts]))
    return out


def related_texts(columns: tuple[tuple[str, str], ...], row: tuple) -> Related:
    """Per text value of the row, its variants (see ``variants``); per number, texts
    that spell it (``numeric_texts``), which affinity may or may not equate with it."""
    return {name: variants([v]) if isinstance(v, str) else numeric_texts(v)
            for (name, _), v in zip(columns, row, strict=True)
            if isinstance(v, (str, int, float)) and not isinstance(v, bool)}


def numeric_texts(v: int | float) -> tuple[str, ...]:
    """Texts spelling the number ``v`` as SQLite would, with a leading space, with a
    fraction or a trailing rest: ``i = '5'`` is TRUE in an INTEGER column (numeric
    affinity), ``'5.0'`` too, ``' 5'`` also, ``'5x'`` not."""
    text = repr(v) if isinstance(v, float) else str(v)
    whole = f"{v}.0" if isinstance(v, int) else text
    return tuple(dict.fromkeys((text, whole, f" {text}", f"{text}x")))


def leaf(kind: str, related: Related | None = None) -> st.SearchStrategy[str]:
    """A column or a literal of ``kind``. Variants of the row's own texts are literals
    too; the pseudo-kind ``variant:<column>`` is only those of that column's value."""
    related = related or {}
    if kind.startswith("variant"):
        column = kind.partition(":")[2]
        pool = related.get(column) or tuple(v for vs in related.values() for v in vs)
        return st.sampled_from(pool or CASE_TEXTS).map(sql_literal)
    every = tuple(v for vs in related.values() for v in vs)
    related_literals = st.sampled_from(every or CASE_TEXTS).map(sql_literal)
    cols = [c for c, k in COLUMN_KINDS.items()
            if kind in ("any", "bool") or k == kind or (kind == "date" and k == "text")]
    if kind == "bool":
        return st.sampled_from(cols)  # a value in a boolean context
    literals = _LITERALS[kind if kind in _LITERALS else "any"]
    if every and kind in ("text", "any"):  # a third of them
        literals = choice(literals, literals, related_literals)
    if kind == "date":  # the date columns hold the row's month ends and leap days
        dated = st.sampled_from([c for c in cols if COLUMN_KINDS[c] == "date"])
        return choice(dated, dated, st.sampled_from(cols), literals)
    return choice(st.sampled_from(cols), literals)  # half the leaves read the row


def expressions(kind: str = "any", depth: int = 3, only: str | None = None,
                related: Related | None = None) -> st.SearchStrategy[str]:
    """SQL expressions of ``kind`` over table ``t``, at most ``depth`` operators deep.

    With ``only`` (an ``operator_names()`` key) the outermost operator is that one.
    ``related``: texts to draw literals from besides the usual ones (see ``leaf``).
    """

    def sub_at(d: int) -> Expr:
        def sub(k: str) -> st.SearchStrategy[str]:
            return node(k, d)
        return sub

    def operator(k: str, d: int) -> st.SearchStrategy[str]:
        ops = [c for c, (_, kinds) in OPERATORS.items() if k in kinds]
        return st.sampled_from(ops).flatmap(
            lambda c: st.composite(lambda draw: OPERATORS[c][0](draw, sub_at(d - 1), k))())

    def node(k: str, d: int) -> st.SearchStrategy[str]:
        if d <= 0 or k.startswith("variant"):
            return leaf(k, related)
        # inner nodes: an operator two times in three
        return st.integers(0, 2).flatmap(
            lambda x: leaf(k, related) if x == 0 else operator(k, d))

    if kind == "collation" and only is None:  # the comparisons schema collations decide
        return st.composite(lambda draw: collated_comparison(draw, sub_at(depth - 1), "bool"))()
    if only is None:
        return operator(kind, depth)  # the outermost node is always an operator
    cls, fname = operator_names()[only.upper()]
    if fname is not None:
        return st.composite(lambda draw: function_call(draw, sub_at(depth - 1), fname))()
    make, kinds = OPERATORS[cls]
    return st.composite(lambda draw: make(draw, sub_at(depth - 1), kinds[0]))()


# --------------------------------------------------------------------------- tables (Thm 2)

TABLE_VALUES = st.sampled_from([None, 0, 1, 1.0, 2, 0.5, "1", "a", "A", "", "1.0"])


@st.composite
def table_pairs(draw: Draw) -> tuple[int, list, list, list, list]:
    """(width, rows1, absent1, rows2, absent2): present rows and ignored absent rows.

    The second table is often the first one rearranged (permuted, a row
    duplicated or dropped, one value changed) so that equal pairs are common.
    """
    width = draw(st.integers(1, 3))
    row = st.tuples(*([TABLE_VALUES] * width))
    rows1 = draw(st.lists(row, max_size=4))
    how = draw(st.sampled_from(("same", "permute", "duplicate", "drop", "change", "fresh")))
    rows2 = list(rows1)
    if how == "permute":
        rows2 = draw(st.permutations(rows1))
    elif how == "duplicate" and rows1:
        rows2 = [*rows1, draw(st.sampled_from(rows1))]
    elif how == "drop" and rows1:
        del rows2[draw(st.integers(0, len(rows1) - 1))]
    elif how == "change" and rows1:
        j = draw(st.integers(0, len(rows1) - 1))
        c = draw(st.integers(0, width - 1))
        changed = list(rows2[j])
        changed[c] = draw(TABLE_VALUES)
        rows2[j] = tuple(changed)
    elif how == "fresh":
        rows2 = draw(st.lists(row, max_size=4))
    absent1 = draw(st.lists(row, max_size=2))
    absent2 = draw(st.lists(row, max_size=2))
    return width, rows1, absent1, rows2, absent2


# --------------------------------------------------------------------------- window functions

# What each registered window function's argument kinds are drawn from (columns of the
# window fuzz table ``w`` in spotit.proofs.windows, or small constants).
WINDOW_ARGS: dict[str, st.SearchStrategy[str]] = {
    "any": st.sampled_from(["x", "o", "r", "s", "p", "o + r", "s || ''", "-o", "NULL", "2"]),
    "num": st.sampled_from(["o", "r", "x", "p", "o * 2", "r - o", "s"]),
    "offset": st.sampled_from(["0", "1", "2", "3", "-1", "o", "p - 1", "r", "NULL", "x"]),
    "nth": st.sampled_from(["1", "2", "3"]),
    "bucket": st.sampled_from(["1", "2", "3", "4"]),
    "separator": st.sampled_from(["','", "'-'", "''", "NULL", "1"]),
}
WINDOW_CELLS: dict[str, list] = {
    "p": [1, 2],
    "o": [1, 2, 3],
    # 0.1 and 0.2 are no doubles: their sums depend on SQLite's order of additions
    "r": [0.5, 1.0, 2.0, -1.5, 0.1, 0.2],
    "s": ["a", "A", "b", "B "],
    "x": [1, 2, 1.5, "a", "1", ""],
}
WINDOW_VALUES = {c: st.sampled_from([None, *values]) for c, values in WINDOW_CELLS.items()}
# a query on pinned rows (spotit.proofs.relations) shows how NULLs group, sort, join,
# count and compare only where a column holds NULLs beside values: about two cells in
# five are NULL (the window calls' one in three to seven gave MIN over a group that
# holds both in 7 queries of 2,000)
QUERY_VALUES = {c: st.sampled_from([*[None] * max(1, round(len(values) * 2 / 3)), *values])
                for c, values in WINDOW_CELLS.items()}
_PARTITIONS = ("", "PARTITION BY p", "PARTITION BY s", "PARTITION BY p, s", "PARTITION BY o % 2")
_ORDER_TERMS = ("o", "o DESC", "r", "s", "o NULLS LAST", "o DESC NULLS FIRST", "x", "s DESC",
                "id", "p", "s COLLATE BINARY")
_FRAME_BOUNDS = ("UNBOUNDED PRECEDING", "1 PRECEDING", "2 PRECEDING", "CURRENT ROW",
                 "1 FOLLOWING", "UNBOUNDED FOLLOWING")


def window_function_key(name: str) -> str:
    """The ``--only`` name of a window function (``_OVER`` where a scalar function has
    the same name: MIN_OVER, MAX_OVER)."""
    return f"{name}_OVER" if name in registry.FUNCTIONS else name


@st.composite
def window_frames(draw: Draw, order_terms: int = 1) -> str:
    unit = draw(st.sampled_from(("ROWS", "GROUPS", "RANGE")))
    i = draw(st.integers(0, len(_FRAME_BOUNDS) - 2))
    j = draw(st.integers(max(i, 1), len(_FRAME_BOUNDS) - 1))
    start, end = _FRAME_BOUNDS[i], _FRAME_BOUNDS[j]
    if unit == "RANGE" and order_terms != 1:  # an offset needs exactly one ORDER BY term
        start = start if "1" not in start and "2" not in start else "UNBOUNDED PRECEDING"
        end = end if "1" not in end else "CURRENT ROW"
    elif unit == "RANGE" and draw(st.booleans()):  # RANGE offsets need not be integers
        start, end = start.replace("1 ", "0.5 "), end.replace("2 ", "1.5 ")
    exclude = draw(st.sampled_from(("", "", " EXCLUDE CURRENT ROW", " EXCLUDE GROUP",
                                    " EXCLUDE TIES", " EXCLUDE NO OTHERS")))
    return f"{unit} BETWEEN {start} AND {end}{exclude}"


@st.composite
def window_calls(draw: Draw, only: str | None = None) -> str:
    """``f(args) OVER (PARTITION BY ... ORDER BY ... frame)`` of a registered window
    function (``only``: that one), over the columns of ``w``."""
    names = sorted(registry.WINDOW_FUNCTIONS)
    name = only if only is not None else draw(st.sampled_from(names))
    spec = registry.WINDOW_FUNCTIONS[name]
    if spec.star and draw(st.booleans()):
        args = "*"
    else:
        n = draw(st.integers(max(spec.min_args, 1 if spec.arg_kinds else 0),
                             spec.max_args)) if spec.max_args else 0
        kinds = list(spec.arg_kinds) or ["any"]
        args = ", ".join(draw(WINDOW_ARGS[kinds[min(j, len(kinds) - 1)]]) for j in range(n))
    partition = draw(st.sampled_from(_PARTITIONS))
    order = draw(st.lists(st.sampled_from(_ORDER_TERMS), max_size=2, unique=True))
    parts = [partition] if partition else []
    if order:
        parts.append("ORDER BY " + ", ".join(order))
    if spec.frame and draw(st.booleans()):
        parts.append(draw(window_frames(len(order))))
    return f"{name}({args}) OVER ({' '.join(parts)})"


def window_rows() -> st.SearchStrategy[list[tuple]]:
    row = st.tuples(*(WINDOW_VALUES[c] for c in ("p", "o", "r", "s", "x")))
    return st.lists(row, min_size=1, max_size=4)


def query_rows() -> st.SearchStrategy[list[tuple]]:
    """Rows of ``w`` for a query: at least two (one row has no group of two, no
    duplicate, no tie, no join partner but itself), NULL-heavy (``QUERY_VALUES``)."""
    row = st.tuples(*(QUERY_VALUES[c] for c in ("p", "o", "r", "s", "x")))
    return st.lists(row, min_size=2, max_size=4)


def missing_window_generators() -> list[str]:
    """Registered window functions whose argument kinds nothing here can draw."""
    return sorted(f"{name} (argument kind {k})" for name, spec in
                  registry.WINDOW_FUNCTIONS.items() for k in spec.arg_kinds
                  if k not in WINDOW_ARGS)
