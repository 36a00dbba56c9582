"""``spotit.check`` never raises for bad input, and the CLI never prints a traceback:
arbitrary text, truncated and mangled real queries (Hypothesis)."""

from __future__ import annotations

import subprocess
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import spotit
from spotit.verdict import CheckResult

DDL = "CREATE TABLE t (a INTEGER, b TEXT, d DATE); CREATE TABLE u (a INTEGER, c TEXT);"
REAL = [
    "SELECT a, b FROM t WHERE d > date('now', '-1 day') ORDER BY a LIMIT 3",
    "SELECT COUNT(*) FROM t JOIN u ON t.a = u.a WHERE u.c LIKE 'x%' GROUP BY t.b",
    "SELECT b FROM t WHERE a IN (SELECT a FROM u WHERE c = 'now') AND CURRENT_DATE > d",
    "WITH x AS (SELECT a FROM t) SELECT SUM(a) OVER (ORDER BY a) FROM x",
]


def mangled() -> st.SearchStrategy[str]:
    def cut(q: str, i: int, j: int) -> str:
        return q[:i] + q[j:]

    return st.one_of(
        st.text(max_size=60),
        st.sampled_from(["we know now", "SELECT date('now') FROM t WHERE", "now()",
                         "SELECT", "'", "\"now", "SELECT * FROM t WHERE d = 'now' AND"]),
        st.builds(lambda q, n: q[:n], st.sampled_from(REAL), st.integers(0, 90)),
        st.builds(cut, st.sampled_from(REAL), st.integers(0, 40), st.integers(0, 90)),
        st.builds(lambda q, s: q.replace(" ", s, 1), st.sampled_from(REAL),
                  st.sampled_from(["", "(", ")", "'", ",", " now ", ";"])))


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(gold=st.sampled_from(REAL), pred=mangled())
def test_check_always_returns_a_verdict(gold, pred):
    r = spotit.check(DDL, gold, pred, bound=1, timeout=5, probe_trials=10)
    assert isinstance(r, CheckResult)
    assert r.verdict.value in ("equivalent", "not_equivalent", "spurious", "unsupported",
                               "timeout", "error")
    r = spotit.check(DDL, pred, gold, bound=1, timeout=5, probe_trials=10)
    assert isinstance(r, CheckResult)


def test_the_cli_prints_a_verdict_not_a_traceback(tmp_path):
    (tmp_path / "s.sql").write_text(DDL)
    for pred in ("we know now", "SELECT date('now') FROM t WHERE", "", "SELECT * FROM nowhere"):
        done = subprocess.run([sys.executable, "-m", "spotit.cli", "check", "--schema",
                               str(tmp_path / "s.sql"), "--gold", REAL[0], "--pred", pred,
                               "--bound", "1", "--timeout", "10"],
                              capture_output=True, text=True, timeout=120)
        assert "Traceback" not in done.stderr + done.stdout, (pred, done.stderr)
        assert done.returncode in (0, 2)
        assert "verdict:" in done.stdout or "error" in done.stderr


def test_a_long_one_line_schema_is_ddl_not_a_file_name():
    """One line of DDL longer than a file name may be (255 bytes here) was passed to the
    OS as a path, which refuses it with an OSError instead of saying no."""
    ddl = "CREATE TABLE t (" + ", ".join(f"column_{i} INTEGER" for i in range(30)) + ");"
    assert len(ddl) > 255 and "\n" not in ddl
    r = spotit.check(ddl, "SELECT column_1 FROM t", "SELECT column_2 FROM t", bound=1)
    assert r.verdict.value == "not_equivalent", r.reason
    r = spotit.check("x" * 300, "SELECT 1", "SELECT 1", bound=1)  # neither DDL nor a file
    assert r.verdict.value == "error" and r.reason
