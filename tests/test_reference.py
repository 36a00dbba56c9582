"""The generated SQL reference (``spotit.reference``) and the result kinds it reads.

- docs/sql-reference.md is exactly what ``reference_markdown()`` gives (regenerate it
  with ``python -m spotit.reference --write docs/sql-reference.md``).
- each registered function's ``returns`` is what SQLite's ``typeof()`` says of its
  non-NULL results on sample arguments of its ``arg_kinds``.
- every function name is in the reference; explain's numeric functions are the
  registry's.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import spotit.encodings  # noqa: F401  (runs every registration)
from spotit.encodings.registry import FUNCTIONS, RESULT_KINDS, FunctionSpec
from spotit.reference import DOC_PATH, REGENERATE, main, reference_markdown, reference_text

ROOT = Path(__file__).resolve().parent.parent

# per argument kind, SQL literals to call a function with (variant v takes the v-th at
# the first position, the next one at the second ...: NULLIF's arguments differ)
SAMPLES = {
    "num": ("3", "-2.5", "'4.5'", "0.5"),
    "int": ("1", "2", "-1", "3"),
    "digits": ("0", "2", "1", "3"),
    "text": ("'abc'", "'b'", "'xbz'", "12"),
    "chars": ("'a'", "'xy'", "' '", "'c'"),
    "any": ("7", "'xyz'", "2.5", "''"),
    "codepoint": ("65", "9786", "'66'", "97"),
    "probability": ("0.5", "0.25", "0.9375", "0.5"),
    "date": ("'2024-01-15'", "'2024-01-15 10:20:30'", "2460000.5", "'2000-02-29'"),
    "modifier": ("'+1 day'", "'start of month'", "'-2 hours'", "'weekday 0'"),
    "fmt": ("'%Y-%m'", "'%d'", "'x%%'", "'%s'"),
}
VARIANTS = 4
AGREES = {"numeric": {"integer", "real"}, "text": {"text"},
          "any": {"integer", "real", "text"}}


def _call_sql(name: str, args: list[str]) -> str:
    if not name.isidentifier():  # a prefix operator: unary +
        return f"{name}({args[0]})"
    return f"{name}({', '.join(args)})"


def _typeofs(con: sqlite3.Connection, spec: FunctionSpec, name: str) -> set[str] | None:
    """SQLite's ``typeof()`` of the non-NULL results of ``name`` on sample arguments;
    None when the function cannot be called on samples of its kinds."""
    hi = spec.max_args if spec.max_args is not None else max(len(spec.arg_kinds), 1)
    n = min(max(len(spec.arg_kinds), spec.min_args), hi)
    kinds = [spec.arg_kinds[min(i, len(spec.arg_kinds) - 1)] for i in range(n)]
    if any(k not in SAMPLES for k in kinds):
        return None
    seen = set()
    for v in range(VARIANTS):
        args = [SAMPLES[k][(v + i) % VARIANTS] for i, k in enumerate(kinds)]
        sqls = [_call_sql(name, args)] + ([name] if n == 0 else [])  # CURRENT_DATE
        for sql in sqls:
            try:
                (t,) = con.execute(f"SELECT typeof({sql})").fetchone()
            except sqlite3.OperationalError:
                continue
            if t != "null":
                seen.add(t)
            break
        else:
            return None
    return seen or None


def test_the_doc_is_the_generated_reference():
    doc = ROOT / DOC_PATH
    assert doc.exists(), f"{DOC_PATH} is missing: generate it with `{REGENERATE}`"
    assert doc.read_text(encoding="utf-8") == reference_markdown(), (
        f"{DOC_PATH} is stale: regenerate it with `{REGENERATE}`")


def test_the_reference_is_deterministic_and_check_sees_a_stale_file(tmp_path, capsys):
    assert reference_markdown() == reference_markdown()
    assert reference_text() == reference_text()
    doc = tmp_path / "ref.md"
    assert main(["--write", str(doc)]) == 0
    assert main(["--check", str(doc)]) == 0
    doc.write_text(doc.read_text(encoding="utf-8") + "edited\n", encoding="utf-8")
    assert main(["--check", str(doc)]) == 1
    assert "stale" in capsys.readouterr().err
    assert main(["--check", str(tmp_path / "none.md")]) == 1


def test_result_kinds_agree_with_sqlite_typeof():
    con = sqlite3.connect(":memory:")
    checked, wrong = [], []
    for name, spec in sorted(FUNCTIONS.items()):
        assert spec.returns in RESULT_KINDS, f"{name}: returns={spec.returns!r}"
        found = _typeofs(con, spec, name)
        if found is None:
            continue
        checked.append(name)
        if not found <= AGREES[spec.returns]:
            wrong.append(f"{name}: registered {spec.returns}, SQLite gives {sorted(found)}")
    assert not wrong, "\n".join(wrong)
    assert len(checked) >= 0.8 * len(FUNCTIONS), (
        f"only {len(checked)} of {len(FUNCTIONS)} functions checked on SQLite: "
        f"{sorted(set(FUNCTIONS) - set(checked))} unchecked")


def test_the_kinds_that_surprise():
    """REPLACE keeps x's type when the pattern is empty, so it is no text function."""
    con = sqlite3.connect(":memory:")
    assert con.execute("SELECT typeof(replace(5, '', 'x'))").fetchone() == ("integer",)
    assert FUNCTIONS["REPLACE"].returns == "any"
    # STRFTIME('%s', ...) is a number written as text
    assert con.execute("SELECT typeof(strftime('%s', '2024-01-01'))").fetchone() == ("text",)
    assert FUNCTIONS["STRFTIME"].returns == "text"


def test_every_function_name_is_in_the_reference():
    md, text = reference_markdown(), reference_text()
    for name in FUNCTIONS:
        assert f"`{name}`" in md or f"`{name}/" in md, name
        assert name in text, name


def test_explain_reads_numeric_functions_from_the_registry():
    from spotit import explain
    from spotit.ir import scalar as S

    numeric = {n for n, s in FUNCTIONS.items() if s.returns == "numeric"}
    assert explain.numeric_functions() == numeric
    assert {"LENGTH", "ABS", "ROUND", "INSTR", "SIGN", "UNICODE", "CEILING"} <= numeric
    assert explain._is_numeric(S.Call("SIGN", (S.Const("x"),)))
    assert not explain._is_numeric(S.Call("UPPER", (S.Const("x"),)))
    assert not explain._is_numeric(S.Call("COALESCE", (S.Const(1), S.Const(2))))


def test_spotit_functions_prints_the_reference():
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "spotit.cli", "functions"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "TYPEOF" in out.stdout and "over-approximated" in out.stdout
