"""The function registry is the one place a function's facts live, and each is stated:
its mutants exist and are planted in its own encoding, its dialect status names real
dialects and is what ``--dialect`` enforces, and the fuzz can generate its calls."""

from __future__ import annotations

import inspect

import pytest

import spotit.encodings  # noqa: F401  (every registration has run)
from spotit import mutants
from spotit.encodings.registry import FUNCTIONS, differing_functions, function
from spotit.frontend.dialects import SQLITE, dialect_names
from spotit.pipeline import check
from spotit.proofs.generators import missing_generators

SPECS = sorted({spec.name: spec for spec in FUNCTIONS.values()}.items())


@pytest.mark.parametrize(("name", "spec"), SPECS, ids=[n for n, _ in SPECS])
def test_every_function_names_a_mutant_planted_in_its_own_encoding(name, spec):
    assert spec.mutants, name
    source = inspect.getsource(inspect.getmodule(spec.encode))
    for m in spec.mutants:
        assert m in mutants.MUTANTS, f"{name}: mutant {m!r} is not in spotit/mutants.py"
        assert f'planted("{m}")' in source, f"{name}: {m!r} is not planted in its module"


def test_a_registration_without_a_mutant_or_dialect_status_is_refused():
    with pytest.raises(ValueError, match="no mutant"):
        function("NOPE", arity=(1, 1), differs_in=(), mutants=())
    with pytest.raises(TypeError, match="differs_in"):
        function("NOPE", arity=(1, 1), mutants=("count-null",))  # type: ignore[call-arg]
    assert "NOPE" not in FUNCTIONS


@pytest.mark.parametrize(("name", "spec"), SPECS, ids=[n for n, _ in SPECS])
def test_dialect_status_names_real_dialects(name, spec):
    others = set(dialect_names()) - {SQLITE}
    assert set(spec.differs_in) <= others | {"*"}, (name, spec.differs_in)


def test_every_function_can_be_generated_by_the_fuzz():
    assert missing_generators() == []


SCHEMA = "CREATE TABLE t (x INTEGER, s TEXT);"
CALLS = {"CHAR": "CHAR(77)", "LIKELIHOOD": "LIKELIHOOD(x, 0.5)", "PRINTF": "PRINTF('%d', x)",
         "FORMAT": "FORMAT('%d', x)", "->": "s -> 'k'", "->>": "s ->> 'k'",
         "JSON_EXTRACT": "JSON_EXTRACT(s, '$.k')"}


@pytest.mark.parametrize("name", sorted(differing_functions()))
def test_a_call_where_the_meaning_differs_is_refused(name):
    where = differing_functions()[name]
    dialect = "postgres" if "*" in where else where[0]
    call = CALLS.get(name, f"{name}(s)")
    res = check(SCHEMA, f"SELECT {call} FROM t", f"SELECT {call} FROM t", bound=1,
                dialect=dialect)
    assert res.verdict.value == "unsupported", (name, dialect, res.verdict, res.reason)
    assert "meaning there is not SQLite's" in res.reason or name in res.reason, res.reason


@pytest.mark.parametrize("name", ["ABS", "INSTR", "REPLACE", "NULLIF"])
def test_a_call_whose_meaning_is_shared_is_checked(name):
    assert name not in differing_functions()
    call = {"ABS": "ABS(x)", "INSTR": "INSTR(s, 'a')", "REPLACE": "REPLACE(s, 'a', 'b')",
            "NULLIF": "NULLIF(x, 1)"}[name]
    res = check(SCHEMA, f"SELECT {call} FROM t", f"SELECT {call} FROM t", bound=1,
                dialect="postgres")
    assert res.verdict.value == "equivalent", res.reason
