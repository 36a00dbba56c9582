"""DATETIME cells with a fraction of a second ('2010-07-19 19:37:33.0', BIRD's spelling).

A DATETIME cell holds 'YYYY-MM-DD HH:MM:SS' optionally followed by '.d', '.dd' or
'.ddd'. The references here are Python's string comparison (SQLite's BINARY
collation on ASCII text) and SQLite itself, never SpotIt's own output.
"""

from __future__ import annotations

import random
import sqlite3
from datetime import datetime, timedelta
from fractions import Fraction

import pytest
from pysmt.environment import reset_env
from pysmt.typing import BOOL, INT, REAL, STRING

from spotit import encodings  # noqa: F401  (registers every encoding)
from spotit.encodings import textorder
from spotit.encodings.builder import Builder
from spotit.encodings.calendar import (
    date_text_parts,
    decode_date_text,
    pin_date_text,
    symbolic_date_text,
)
from spotit.encodings.database import SymbolicDatabase
from spotit.encodings.encoder import Encoder, EncoderOptions
from spotit.encodings.values import DateParts
from spotit.frontend.binder import bind
from spotit.frontend.parser import parse
from spotit.ir.types import Domain, StorageClass
from spotit.probe import DatabaseSampler, literal_pool
from spotit.schema import schema_from_ddl
from spotit.smt.printer import SmtLibWriter
from spotit.solvers import available_solvers, get_solver
from spotit.solvers.base import Status
from spotit.solvers.testing import requires_solver

SOLVERS = [pytest.param(s, marks=requires_solver(s)) for s in ("z3", "cvc5")]

# ---------------------------------------------------------------------- random texts

FRACTIONS = ["", ".0", ".00", ".000", ".5", ".50", ".500", ".05", ".005", ".1", ".10",
             ".100", ".123", ".999", ".99", ".9", ".001", ".01"]


def _fraction(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return rng.choice(FRACTIONS)
    n = rng.randint(0, 3)
    return "" if n == 0 else "." + "".join(rng.choice("0123456789") for _ in range(n))


def _second(rng: random.Random) -> str:
    """A whole second, often near 2010-07-19 19:37:33 so that texts share prefixes."""
    if rng.random() < 0.7:
        t = datetime(2010, 7, 19, 19, 37, 33) + timedelta(seconds=rng.randint(-90, 90))
    elif rng.random() < 0.5:
        t = datetime(2000, 2, 29) + timedelta(seconds=rng.randint(-86400, 86400))
    else:
        t = datetime(1, 1, 1) + timedelta(seconds=rng.randint(0, 315_000_000_000))
    return t.strftime("%Y-%m-%d %H:%M:%S").zfill(19)


def domain_text(rng: random.Random) -> str:
    return _second(rng) + _fraction(rng)


def constant_text(rng: random.Random) -> str:
    """Constants near domain texts: equal, cut short, extended, one character changed."""
    t = domain_text(rng)
    r = rng.random()
    if r < 0.25:
        return t
    if r < 0.5:
        return t[:rng.randint(0, len(t))]
    if r < 0.7:
        return t + rng.choice(["0", "5", "9", ".", " ", "x", "00", "0000", ".5", ":", "\x7f"])
    if r < 0.9:
        i = rng.randrange(len(t))
        return t[:i] + rng.choice("0123456789.: -/x") + t[i + 1:]
    return rng.choice(["", "0", "2", "9999-12-31 23:59:59.999", "9999-12-31 23:59:59.9990",
                       "9999-12-31 23:59:59.999x", "0000-01-01 00:00:00", "0000", ":", "."])


def const_parts(b: Builder, text: str, fractional: bool = True) -> DateParts:
    p = date_text_parts(text, Domain.DATETIME)
    assert p is not None, text
    ints = [b.int(p[k]) for k in "ymdHMS"]
    if not fractional:
        assert p["flen"] == 0
        return DateParts(*ints, True)
    return DateParts(*ints, True, True, b.int(p["ms"]), b.int(p["flen"]))


def folded(f) -> bool:
    """The value of a formula over constants (the builder folds them)."""
    f = f.simplify()
    assert f.is_bool_constant(), f
    return f.is_true()


# ---------------------------------------------------------------------- text order


def test_suffixes_in_text_order_are_in_key_order():
    assert len(textorder.SUFFIXES) == 1111
    assert list(textorder.SUFFIXES) == sorted(textorder.SUFFIXES)
    keys = list(textorder.SUFFIX_KEYS)
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    for suffix, (ms, flen) in zip(textorder.SUFFIXES, keys, strict=True):
        assert len(suffix) == (flen + 1 if flen else 0)
        assert ms % 10 ** (3 - flen) == 0
        assert suffix == ("" if flen == 0 else "." + f"{ms:03d}"[:flen])


def _key(text: str) -> tuple[int, ...]:
    p = date_text_parts(text, Domain.DATETIME)
    assert p is not None
    return tuple(p[k] for k in ("y", "m", "d", "H", "M", "S", "ms", "flen"))


@pytest.mark.parametrize("seed", range(4))
def test_date_bound_against_string_order(seed):
    """key(t) < bound(c) iff t < c, and t == c iff bound(c) is exact and equals key(t)."""
    rng = random.Random(seed)
    for _ in range(400):
        c = constant_text(rng)
        bound, exact = textorder.date_bound(c, True, True)
        for _ in range(25):
            t = domain_text(rng)
            if bound is None:
                assert t < c, (t, c)
                continue
            assert (_key(t) < bound) == (t < c), (t, c, bound)
            assert (exact and _key(t) == bound) == (t == c), (t, c, bound, exact)


def test_date_bound_examples():
    # by hand: '' < '.0' < '.00' < ... and a second's texts lie between it and the next
    assert textorder.date_bound("2010-07-19 19:37:33.0", True, True) == (
        (2010, 7, 19, 19, 37, 33, 0, 1), True)
    assert textorder.date_bound("2010-07-19 19:37:33", True, True) == (
        (2010, 7, 19, 19, 37, 33, 0, 0), True)
    assert textorder.date_bound("2010-07-19 19:37:33.", True, True) == (
        (2010, 7, 19, 19, 37, 33, 0, 1), False)
    assert textorder.date_bound("2010-07-19 19:37:33.0000", True, True) == (
        (2010, 7, 19, 19, 37, 33, 1, 3), False)
    assert textorder.date_bound("2010-07-19 19:37:33.9999", True, True) == (
        (2010, 7, 19, 19, 37, 34, 0, 0), False)
    assert textorder.date_bound("9999-12-31 23:59:59.9990", True, True) == (None, False)


@pytest.mark.parametrize("seed", range(3))
def test_encoded_comparisons_with_constants(seed):
    """=, <, <=, >, LIKE 'prefix%' of a fractional view against a constant, folded over
    constant parts, agree with Python's string comparison."""
    rng = random.Random(100 + seed)
    b = Builder()
    for _ in range(600):
        t, c = domain_text(rng), constant_text(rng)
        view, term, const = const_parts(b, t), b.str(t), b.str(c)
        assert folded(textorder.shaped_eq(b, view, term, None, const)) == (t == c), (t, c)
        assert folded(textorder.shaped_eq(b, None, const, view, term)) == (t == c), (t, c)
        assert folded(textorder.shaped_lt(b, view, term, None, const)) == (t < c), (t, c)
        assert folded(textorder.shaped_lt(b, None, const, view, term)) == (c < t), (t, c)
        match = textorder.prefix_match(b, view, c)
        assert folded(match) == t.startswith(c), (t, c)


@pytest.mark.parametrize("seed", range(2))
def test_encoded_comparisons_of_two_texts(seed):
    """Two date views, either with or without a fraction: key order is text order."""
    rng = random.Random(200 + seed)
    b = Builder()
    for _ in range(600):
        s, t = domain_text(rng), domain_text(rng)
        if rng.random() < 0.3:
            t = s[:19] + rng.choice(FRACTIONS)
        x = const_parts(b, s)
        whole = "." not in t
        y = const_parts(b, t, fractional=not whole or rng.random() < 0.5)
        assert folded(textorder.shaped_eq(b, x, b.str(s), y, b.str(t))) == (s == t), (s, t)
        assert folded(textorder.shaped_lt(b, x, b.str(s), y, b.str(t))) == (s < t), (s, t)
        assert folded(textorder.shaped_lt(b, y, b.str(t), x, b.str(s))) == (t < s), (s, t)


# ---------------------------------------------------------------------- the cell domain


def test_date_text_parts():
    assert date_text_parts("2010-07-19 19:37:33.0", Domain.DATETIME) == dict(
        y=2010, m=7, d=19, H=19, M=37, S=33, ms=0, flen=1)
    assert date_text_parts("2000-02-29 00:00:00.05", Domain.DATETIME)["ms"] == 50
    assert date_text_parts("2010-07-19 19:37:33", Domain.DATETIME)["flen"] == 0
    for bad in ("2010-07-19 19:37:33.", "2010-07-19 19:37:33.1234", "2010-07-19T19:37:33",
                "2010-07-19 19:37:33 ", "2010-07-19 24:00:00", "2001-02-29 00:00:00",
                "2010-07-19", "2010-07-19 19:37:33.5 ", "2010-07-19 19:37:33,5"):
        assert date_text_parts(bad, Domain.DATETIME) is None, bad
    assert date_text_parts("2010-07-19", Domain.DATE) == dict(y=2010, m=7, d=19)
    assert date_text_parts("2010-07-19 19:37:33", Domain.DATE) is None


def _cell(text: str | None = None):
    reset_env()
    b = Builder()
    symbols: dict = {}
    term, ok, _ = symbolic_date_text(b, "cell", Domain.DATETIME, symbols)
    return b, symbols, term, ok


@requires_solver("cvc5")  # z3 times out on text = constant over str.from_int (old cells too)
def test_cell_holds_exactly_the_domain():
    good = ["2010-07-19 19:37:33", "2010-07-19 19:37:33.0", "2010-07-19 19:37:33.00",
            "2010-07-19 19:37:33.000", "2010-07-19 19:37:33.123", "2000-02-29 23:59:59.9"]
    bad = ["2010-07-19 19:37:33.", "2010-07-19 19:37:33.1234", "2010-07-19 19:37:33 ",
           "2010-07-19 19:37:33.5 ", "2010-07-19 19:37:33.a", "2010-07-19 19:37:60.0"]
    for text in good + bad:
        b, symbols, term, ok = _cell()
        res = get_solver("cvc5").check(SmtLibWriter().script([ok, b.eq(term, b.str(text))]),
                                       timeout=60)
        assert res.status is (Status.SAT if text in good else Status.UNSAT), text
        if res.status is Status.SAT and res.model:
            assert decode_date_text(symbols, Domain.DATETIME, res.model) == text


@pytest.mark.parametrize("solver", SOLVERS)
def test_cell_text_of_its_parts(solver):
    for text in ("2010-07-19 19:37:33", "2010-07-19 19:37:33.0", "2010-07-19 19:37:33.00",
                 "2010-07-19 19:37:33.050", "2000-02-29 23:59:59.9", "0000-01-01 00:00:00.05"):
        b, symbols, term, ok = _cell()
        pins = pin_date_text(b, symbols, text, Domain.DATETIME)
        backend = get_solver(solver)
        res = backend.check(SmtLibWriter().script([ok, *pins]), timeout=30)
        assert res.status is Status.SAT, text
        res = backend.check(SmtLibWriter().script([ok, *pins, b.not_(b.eq(term, b.str(text)))]),
                            timeout=30)
        assert res.status is Status.UNSAT, text
    b, symbols, term, ok = _cell()
    parts = date_text_parts("2010-07-19 19:37:33.5", Domain.DATETIME)
    wrong = [b.eq(symbols[f"date_{k}"], b.int(v)) for k, v in parts.items() if k != "flen"]
    for flen in (0, 2):  # 500 ms cannot be written without digits; '.50' is fine
        res = get_solver(solver).check(SmtLibWriter().script(
            [ok, *wrong, b.eq(symbols["date_flen"], b.int(flen))]), timeout=30)
        assert res.status is (Status.UNSAT if flen == 0 else Status.SAT)


def test_pinned_parts_decode_to_the_text():
    b = Builder()
    symbols: dict = {}
    symbolic_date_text(b, "pin", Domain.DATETIME, symbols)
    for text in ("2010-07-19 19:37:33.0", "2010-07-19 19:37:33.120", "1999-12-31 23:59:59"):
        pins = pin_date_text(b, symbols, text, Domain.DATETIME)
        model = {p.arg(0).symbol_name(): p.arg(1).constant_value() for p in pins}
        assert decode_date_text(symbols, Domain.DATETIME, model) == text
    assert pin_date_text(b, symbols, "2010-07-19 19:37:33.", Domain.DATETIME) is None


# ---------------------------------------------------------------------- functions on cells

PINNED_DDL = "CREATE TABLE t (x DATETIME, y DATETIME);"
ROWS = [("2010-07-19 19:37:33.5", "2010-07-19 19:37:33"),
        ("2010-07-19 19:37:33.0", "2010-07-19 19:37:33.000"),
        ("2000-02-29 23:59:59.999", "2000-03-01 00:00:00.05"),
        ("1960-01-31 12:00:00.25", "1969-12-31 23:59:59.9")]
EXPRESSIONS = [
    "x", "JULIANDAY(x)", "(JULIANDAY(x) - JULIANDAY(y)) * 86400 > 0.25", "STRFTIME('%f', x)",
    "STRFTIME('%s', x)", "STRFTIME('%S', x)", "DATETIME(x)", "DATE(x)", "TIME(x)",
    "DATETIME(x, '+1 day')", "STRFTIME('%f', x, '+1 month')",
    "STRFTIME('%f', x, '-1 hour')", "STRFTIME('%f', x, 'start of day')",
    "STRFTIME('%f', x, 'start of month')", "JULIANDAY(x, '+1 year')",
    "STRFTIME('%J', x) = STRFTIME('%J', y)", "x = y", "x < y", "x > '2010-07-19 19:37:33'",
    "x LIKE '2010-07-19 19:37:33%'", "LENGTH(x)", "SUBSTR(x, 18)", "SUBSTR(x, -3)",
    "SUBSTR(x, 1, 10)", "SUBSTR(x, 12, 8)", "SUBSTR(x, 20, 2)", "x || '|'",
    "MAX(x, y)", "COALESCE(NULL, x) = y", "CASE WHEN x < y THEN x ELSE y END",
    # the text itself, read as a time value (no date view any more)
    "JULIANDAY(x || '')", "STRFTIME('%f', x || '  ')", "DATETIME(COALESCE(x, 'a'))",
    "STRFTIME('%s', y || '')",
]


def _encoded_values(solver: str, expr: str, row: tuple):
    """Whether SQLite's value of ``expr`` on ``row`` is possible in the encoding, and
    whether another value is."""
    conn = sqlite3.connect(":memory:")
    conn.execute(PINNED_DDL)
    conn.execute("INSERT INTO t VALUES (?, ?)", row)
    expected = conn.execute(f"SELECT {expr} FROM t").fetchone()[0]
    schema = schema_from_ddl(PINNED_DDL)
    plan = bind(parse(f"SELECT {expr} FROM t"), schema)
    reset_env()
    b = Builder()
    db = SymbolicDatabase(schema, 1, b)
    enc = Encoder(db, EncoderOptions())
    out = enc.rel(plan).rows[0].values[0]
    pins = [db.present("t", 0)]
    for i, v in enumerate(row):
        db.cell("t", 0, i)
        pins += [b.not_(db.cell("t", 0, i).null),
                 *pin_date_text(b, db._cells[("t", 0, i)].symbols, v, Domain.DATETIME)]
    o_null, o_cls = b.sym("o!null", BOOL), b.sym("o!cls", INT)
    slots = {StorageClass.INTEGER: (1, b.sym("o!i", INT)),
             StorageClass.REAL: (2, b.sym("o!r", REAL)),
             StorageClass.TEXT: (3, b.sym("o!s", STRING))}
    defs = [b.iff(o_null, out.null)]
    for a in out.alts:
        code, slot = slots[a.cls]
        defs.append(b.implies(b.and_(b.not_(out.null), a.guard),
                              b.and_(b.eq(o_cls, b.int(code)), b.eq(slot, a.term))))
    if out.alts:
        defs.append(b.implies(b.not_(out.null), b.or_(a.guard for a in out.alts)))
    # one row of a table without keys: the cells' domains are all its constraints
    core = [*db.domain_constraints, *enc.side, *pins, *defs]
    base = [*core, *enc.used_definitions(core)]
    if expected is None:
        is_expected = o_null
    elif isinstance(expected, int):
        is_expected = b.and_(b.not_(o_null), b.eq(o_cls, b.int(1)),
                             b.eq(slots[StorageClass.INTEGER][1], b.int(expected)))
    elif isinstance(expected, float):
        f, r = Fraction(expected), slots[StorageClass.REAL][1]
        tol = abs(f) / 10**9 + Fraction(1, 10**12)
        is_expected = b.and_(b.not_(o_null), b.eq(o_cls, b.int(2)),
                             b.le(b.real(f - tol), r), b.le(r, b.real(f + tol)))
    else:
        is_expected = b.and_(b.not_(o_null), b.eq(o_cls, b.int(3)),
                             b.eq(slots[StorageClass.TEXT][1], b.str(expected)))
    backend = get_solver(solver)
    admissible = backend.check(SmtLibWriter().script([*base, is_expected]), timeout=30)
    if enc.always_approximate:
        return expected, admissible.status, None
    # exact where the encoding says it is (as the soundness harness checks)
    exact_range = b.and_(enc.exactness)
    other = backend.check(SmtLibWriter().script([*base, exact_range, b.not_(is_expected)]),
                          timeout=30)
    if not exact_range.is_true():
        inside = backend.check(SmtLibWriter().script([*base, exact_range]), timeout=30)
        assert inside.status is Status.SAT, "the pinned row is outside the exact range"
    return expected, admissible.status, other.status


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_functions_on_fractional_cells_match_sqlite(solver, expr):
    for row in ROWS:
        expected, admissible, other = _encoded_values(solver, expr, row)
        assert admissible is Status.SAT, (row, expected, "SQLite's value is impossible")
        assert other in (None, Status.UNSAT), (row, expected, "another value is possible")


def test_strftime_j_keeps_instants_a_fraction_apart_apart():
    # by SQLite: the two instants differ by half a second, so %J differs
    solver = "z3" if "z3" in available_solvers() else "cvc5"
    expected, admissible, _ = _encoded_values(
        solver, "STRFTIME('%J', x) = STRFTIME('%J', y)",
        ("2010-07-19 19:37:33.5", "2010-07-19 19:37:33"))
    assert expected == 0 and admissible is Status.SAT


# ---------------------------------------------------------------------- the random search

PROBE_SCHEMA = schema_from_ddl(
    "CREATE TABLE comments (Id INTEGER PRIMARY KEY, CreationDate DATETIME);")


def test_probe_draws_the_queries_datetimes_and_fractions():
    literal = "2010-07-19 19:37:33.0"
    pool, tables = literal_pool(PROBE_SCHEMA, [
        f"SELECT Id FROM comments WHERE CreationDate = '{literal}'",
        "SELECT Id FROM comments WHERE CreationDate > '2011-01-01 10:00:00.25'"])
    assert literal in pool.datetimes and ".25" in pool.fractions
    sampler = DatabaseSampler(PROBE_SCHEMA, tables, pool, random.Random(0))
    drawn = [r[1] for _ in range(300) for r in sampler.database()["comments"]]
    values = [v for v in drawn if v is not None]
    assert all(date_text_parts(v, Domain.DATETIME) is not None for v in values), values
    assert literal in values
    assert any(v.endswith(".123") for v in values)  # a three-digit fraction
    assert any(len(v) == 19 for v in values)  # and whole seconds
