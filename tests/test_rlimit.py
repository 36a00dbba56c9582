"""``check(..., rlimit=N)`` and ``spotit check --rlimit N``: a deterministic limit on
each solver call (z3 ``rlimit``, cvc5 ``rlimit-per``). Where it stops the solver the
verdict is ``timeout``, and the reason says the resource limit was reached."""

from __future__ import annotations

import json

import pytest

import spotit.pipeline
from spotit.cli import main
from spotit.pipeline import check
from spotit.solvers.testing import BOTH_SOLVERS, requires_solver
from tests.solver_limits import HANG_SECONDS, RLIMIT

DDL = "CREATE TABLE t (a INTEGER, b TEXT);"
# differ on a = 1; with no random search first, only the solver can tell
GOLD, PRED = "SELECT a FROM t WHERE a > 1", "SELECT a FROM t WHERE a >= 1"


@pytest.mark.parametrize("solver", BOTH_SOLVERS)
def test_a_tiny_rlimit_stops_the_solver_the_same_way_every_time(solver):
    runs = [check(DDL, GOLD, PRED, bound=2, solver=solver, probe_trials=0, rlimit=1,
                  timeout=HANG_SECONDS) for _ in range(2)]
    for res in runs:
        assert res.verdict.value == "timeout", res.reason
        assert res.reason == "resource limit (rlimit 1 per solver call) reached at k=1"
        assert res.proven_bound == 0 and res.counterexample is None


@pytest.mark.parametrize("solver", BOTH_SOLVERS)
def test_a_large_enough_rlimit_gives_the_verdict(solver):
    res = check(DDL, GOLD, PRED, bound=2, solver=solver, probe_trials=0,
                rlimit=RLIMIT[solver], timeout=HANG_SECONDS)
    assert res.verdict.value == "not_equivalent", res.reason
    assert res.cex_bound == 1 and res.counterexample["t"][0]["a"] == 1, res.counterexample


def test_every_solver_of_a_check_gets_the_rlimit(monkeypatch):
    # equivalent through the foreign key: the check runs again without it (its own
    # solver) to say whether the proof needs it
    ddl = ("CREATE TABLE p (id INTEGER PRIMARY KEY);"
           "CREATE TABLE c (id INTEGER PRIMARY KEY, pid INTEGER NOT NULL REFERENCES p (id));")
    made = []
    real = spotit.pipeline.get_solver

    def spy(name, **options):
        made.append(options.get("rlimit"))
        return real(name, **options)

    monkeypatch.setattr(spotit.pipeline, "get_solver", spy)
    res = check(ddl, "SELECT c.id FROM c JOIN p ON c.pid = p.id", "SELECT id FROM c",
                bound=2, probe_trials=0, rlimit=RLIMIT["z3"], timeout=HANG_SECONDS)
    assert res.verdict.value == "equivalent", res.reason
    assert res.assumed and res.assumed[0]["needed"] is True, res.assumed
    assert len(made) >= 2 and set(made) == {RLIMIT["z3"]}


def test_without_rlimit_nothing_changes():
    res = check(DDL, GOLD, PRED, bound=2, probe_trials=0)
    assert res.verdict.value == "not_equivalent" and res.cex_bound == 1, res.reason


@pytest.mark.parametrize("rlimit", [0, -5, 2.5, True])
def test_an_rlimit_that_is_not_a_positive_integer_is_an_error(rlimit):
    res = check(DDL, GOLD, PRED, rlimit=rlimit)
    assert res.verdict.value == "error" and "rlimit must be a positive integer" in res.reason


@requires_solver("yices")
def test_yices_has_no_rlimit():
    res = check(DDL, GOLD, PRED, solver="yices", probe_trials=0, rlimit=1000)
    assert res.verdict.value == "error" and "no resource limit" in res.reason, res.reason


def test_the_cli_takes_rlimit(tmp_path, capsys):
    schema = tmp_path / "s.sql"
    schema.write_text(DDL)
    args = ["check", "--schema", str(schema), "--gold", GOLD, "--pred", PRED,
            "--probe-trials", "0", "--bound", "2", "--json"]
    assert main([*args, "--rlimit", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == "timeout" and "resource limit" in out["reason"], out
    assert main([*args, "--rlimit", str(RLIMIT["z3"])]) == 0
    assert json.loads(capsys.readouterr().out)["verdict"] == "not_equivalent"
    with pytest.raises(SystemExit):
        main([*args, "--rlimit", "0"])
    assert "--rlimit: expected a positive whole number" in capsys.readouterr().err


def test_a_limited_backend_passes_through_code_that_asks_by_name():
    """The Thm 1 checks take a solver by name; a backend built with a limit goes through
    ``get_solver`` as it is, and the limit then stops their calls."""
    from spotit.errors import SolverError
    from spotit.proofs.relations import QueryCase, check_query
    from spotit.solvers import get_solver

    tiny = get_solver("z3", rlimit=1)
    assert get_solver(tiny) is tiny
    with pytest.raises(SolverError, match="built already"):
        get_solver(tiny, rlimit=2)
    sql = "SELECT a.id, b.s FROM w AS a LEFT JOIN w AS b ON a.p = b.o"
    rows = ((1, 1, 1.0, "a", 1), (2, 1, 2.0, "b", None))
    out = check_query(QueryCase(rows, sql), tiny, HANG_SECONDS, solver_free=False)
    assert out.kind == "error" and "resource limit" in out.detail, out
