"""docs/adding-an-operator.md followed on a function registered only here: SIGN is
taken out of the registry and registered again as the guide writes it, then the
generated reference lists it, ``fuzz --only SIGN`` exercises it and finds nothing,
and the same encoding with a planted bug (the sign of 0 is 1) is caught."""

from __future__ import annotations

import pytest

from spotit import mutants
from spotit.encodings import conversions as C
from spotit.encodings.registry import FUNCTIONS, function
from spotit.encodings.values import int_value, null_value
from spotit.ir.types import StorageClass
from spotit.proofs.fuzz import fuzz
from spotit.reference import reference_markdown

TOY_MUTANT = mutants.Mutant("guide-sign-of-zero-is-one", "SIGN", "SIGN(0) is 1, not 0")


def _register_sign() -> None:
    @function("SIGN", arity=(1, 1), arg_kinds=("any",), returns="numeric",
              differs_in=(), mutants=(TOY_MUTANT.name,))
    def fn_sign(enc, args):
        b = enc.b
        n = C.as_number(enc, args[0])
        if not n.alts:
            return null_value(b)
        zero_sign = b.int(1) if mutants.planted(TOY_MUTANT.name) else b.int(0)
        signs = []
        for a in n.alts:
            zero = b.int(0) if a.cls is StorageClass.INTEGER else b.real(0)
            signs.append((a.guard, b.ite(b.lt(a.term, zero), b.int(-1),
                                         b.ite(b.eq(a.term, zero), zero_sign, b.int(1)))))
        term = signs[-1][1]
        for guard, sign in reversed(signs[:-1]):
            term = b.ite(guard, sign, term)
        return int_value(b, term, n.null)


@pytest.fixture
def own_sign(monkeypatch):
    monkeypatch.delitem(FUNCTIONS, "SIGN")  # put back when the test ends
    monkeypatch.setitem(mutants.MUTANTS, TOY_MUTANT.name, TOY_MUTANT)
    _register_sign()
    yield


def test_a_function_added_as_the_guide_says(own_sign, tmp_path):
    assert "| `SIGN` | - | 1 | any | numeric | exact |" in reference_markdown()
    report = fuzz(examples=12, seed=0, solvers=("z3",), only="SIGN", out_dir=tmp_path / "a")
    assert report.discrepancies == [], report.summary()
    assert report.coverage["operators"]["SIGN"] > 0
    assert "--only SIGN: exercised" in report.summary()
    with mutants.planting(TOY_MUTANT.name):
        found = fuzz(examples=40, seed=0, solvers=("z3",), only="SIGN",
                     out_dir=tmp_path / "b", first_only=True)
    assert found.discrepancies, "the planted bug (SIGN(0) = 1) was not found"
