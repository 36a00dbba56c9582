"""A definition marked ``functional`` (``spotit.encodings.encoder.Definition``) claims
its constraint leaves the symbols one value once the inputs are known: the Thm 1
harness then substitutes what ``solve`` computes as if it were pinned
(``spotit.proofs.determined.propagated``). Here the solver is asked, for each such
definition on telling texts, for a second value: there must be none."""

from __future__ import annotations

import pytest
from pysmt.typing import STRING

from spotit.encodings.builder import Builder
from spotit.encodings.database import SymbolicDatabase
from spotit.encodings.encoder import Encoder
from spotit.encodings.numtext import decompose
from spotit.encodings.strings import _case_map, _trim
from spotit.encodings.textorder import constant_order
from spotit.encodings.values import text_value
from spotit.schema import schema_from_ddl
from spotit.smt.printer import SmtLibWriter
from spotit.solvers import get_solver
from spotit.solvers.base import Status
from tests.solver_limits import HANG_SECONDS, RLIMIT

TEXTS = ["", " ", "12", " -3.5e2x", "+.5", "1.", "..1", "abC D ", "  a  ", "\t7 ", "-",
         "0012.3400", "1e", "x1", "ÀbC", "abcdefgh", "ABCDEFGHIJ"]


def _encoder() -> tuple[Builder, Encoder]:
    b = Builder()
    schema = schema_from_ddl("CREATE TABLE t (a INTEGER);")
    return b, Encoder(SymbolicDatabase(schema, 1, b))


def _numtext(enc, s):
    decompose(enc, s)


def _lower(enc, s):
    _case_map(enc, s, False)


def _upper(enc, s):
    _case_map(enc, s, True)


def _text_order(enc, s):
    # constants at, between and around the texts: a prefix ('1'), equal ('12'), the
    # empty text, and a character past ASCII
    for c in ("", "1", "12", "abC", "ÀbC", "+.5"):
        constant_order(enc, s, c)


def test_trim_is_not_functional():
    """TRIM's parts of a text of spaces alone split anyhow (pre ' ' or suf ' '): the
    test above finds that second solution, so the definition must not claim one."""
    b, enc = _encoder()
    s = b.m.Symbol("input!s", STRING)
    _trim(enc, [text_value(b, s, b.FALSE)], True, True)
    (d,) = enc.definitions
    assert not d.functional
    pre, suf = (sym for sym in d.symbols if "mid" not in sym.symbol_name())
    split = [b.eq(s, b.str(" ")), d.constraint]
    for spaces in (pre, suf):
        res = get_solver("z3").check(SmtLibWriter().script([*split, b.eq(spaces, b.str(" "))]),
                                     timeout=10)
        assert res.status is Status.SAT


@pytest.mark.parametrize("make", [_numtext, _lower, _upper, _text_order])
def test_a_functional_definition_has_one_solution(make):
    b, enc = _encoder()
    s = b.m.Symbol("input!s", STRING)
    make(enc, s)
    functional = [d for d in enc.definitions if d.functional]
    assert functional, "the encoding marks its definition functional"
    # _numtext's uniqueness takes z3 over a second: a resource limit per call, not the
    # wall clock, decides when it gives up (tests/solver_limits.py)
    solver = get_solver("z3", rlimit=RLIMIT["z3"])
    for text in TEXTS:
        for d in functional:
            exact = [] if d.exact_when is None else [d.exact_when]
            pinned = [b.eq(s, b.str(text)), d.constraint, *exact]
            if exact and solver.check(SmtLibWriter().script(pinned),
                                      timeout=HANG_SECONDS).status is Status.UNSAT:
                continue  # outside the exact range (a case map of more than 8 characters)
            got = d.solve(lambda t, text=text: b.str(text) if t is s else t)
            assert got and set(got) == set(d.symbols), (make.__name__, text)
            same = [b.eq(sym, v) for sym, v in got.items()]
            # solve's values satisfy the constraint ...
            res = solver.check(SmtLibWriter().script([*pinned, *same]), timeout=HANG_SECONDS)
            assert res.status is Status.SAT, (make.__name__, text, got)
            # ... and no other values do
            res = solver.check(SmtLibWriter().script([*pinned, b.not_(b.and_(same))]),
                               timeout=HANG_SECONDS)
            assert res.status is Status.UNSAT, (make.__name__, text, res.model)
