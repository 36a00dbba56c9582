"""VeriEQL's jsonlines pairs as an evaluate benchmark, and other dialects' SQL as SQLite's.

Expected verdicts and results are derived by hand (in the comments), never taken
from SpotIt's own output; every dialect rule is checked by running the
translation on SQLite against the meaning the source dialect gives the query.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from spotit.errors import SchemaError, SpotItError, Unsupported
from spotit.experiments.inputs import InputError
from spotit.experiments.verieql import load_verieql, schema_ddl
from spotit.frontend.dialects import to_sqlite
from spotit.schema import schema_from_ddl

DATA = Path("/work/shared/data/verieql")

SCHEMA = {"EMP": {"EMPNO": "INT", "DEPTNO": "INT", "ENAME": "VARCHAR", "SLACKER": "BOOLEAN",
                  "NOTE": None},
          "DEPT": {"DEPTNO": "INT", "NAME": "VARCHAR"}}
CONSTRAINTS = [{"not_null": {"value": "EMP__ENAME"}},
               {"primary": [{"value": "EMP__EMPNO"}]},
               {"primary": [{"value": "DEPT__DEPTNO"}]},
               {"foreign": [{"value": "EMP__DEPTNO"}, {"value": "DEPT__DEPTNO"}]}]


def _write(path: Path, entries: list) -> Path:
    path.write_text("\n".join(e if isinstance(e, str) else json.dumps(e) for e in entries)
                    + "\n", encoding="utf-8")
    return path


def _entry(index: int, q1: str, q2: str, constraint=CONSTRAINTS, schema=SCHEMA) -> dict:
    return {"benchmark": "test", "index": index, "schema": schema, "constraint": constraint,
            "pair": [q1, q2]}


# ---------------------------------------------------------------------- the reader


def test_each_constraint_kind_becomes_ddl():
    schema = schema_from_ddl(schema_ddl(SCHEMA, CONSTRAINTS))
    emp, dept = schema.require_table("EMP"), schema.require_table("DEPT")
    assert emp.primary_key == ("EMPNO",) and dept.primary_key == ("DEPTNO",)
    # a primary key is NOT NULL (the standard), as is the declared column
    assert emp.column("EMPNO").not_null and emp.column("ENAME").not_null
    assert not emp.column("DEPTNO").not_null
    assert [(fk.columns, fk.ref_table, fk.ref_columns) for fk in emp.foreign_keys] == [
        (("DEPTNO",), "DEPT", ("DEPTNO",))]
    assert emp.checks == ('"SLACKER" IN (0, 1)',)  # BOOLEAN: TRUE/FALSE as 1/0 only
    assert emp.column("NOTE").declared_type == ""  # no type given: any value


def test_reader_builds_questions_and_predictions(tmp_path):
    path = _write(tmp_path / "pairs.jsonlines",
                  [_entry(7, "SELECT 1", "SELECT 2"), "", _entry(8, "SELECT 3", "  ")])
    bench, system, preds = load_verieql(path)
    assert system == "pairs" and bench.name == "verieql"
    assert [(q.question_id, q.db_id, q.gold, q.semantics) for q in bench.questions] == [
        ("7", "pairs-7", "SELECT 1", "bag"), ("8", "pairs-8", "SELECT 3", "bag")]
    assert preds["7"].sql == "SELECT 2"
    assert preds["8"].sql is None and preds["8"].problem == "empty prediction"
    assert bench.schema("pairs-7").require_table("EMP").primary_key == ("EMPNO",)


@pytest.mark.parametrize("line, why", [
    ("{not json", "not valid JSON"),
    ('["a list"]', "expected a JSON object"),
    ('{"index": 1, "schema": {"T": {"A": "INT"}}}', "missing key 'pair'"),
    ('{"index": 1, "schema": {"T": {"A": "INT"}}, "pair": ["SELECT 1"]}', "two SQL strings"),
])
def test_malformed_line_names_file_and_line(tmp_path, line, why):
    path = _write(tmp_path / "bad.jsonlines", [_entry(0, "SELECT 1", "SELECT 1"), line])
    with pytest.raises(InputError) as err:
        load_verieql(path)
    assert f"{path}: line 2" in str(err.value) and why in str(err.value)


def test_repeated_index_is_an_input_error(tmp_path):
    path = _write(tmp_path / "twice.jsonlines", [_entry(0, "SELECT 1", "SELECT 1")] * 2)
    with pytest.raises(InputError, match="line 2: index 0 repeats line 1"):
        load_verieql(path)


def test_unknown_constraint_kind_is_that_pairs_schema_error(tmp_path):
    odd = [*CONSTRAINTS, {"unique": [{"value": "EMP__ENAME"}]}]
    path = _write(tmp_path / "odd.jsonlines", [_entry(0, "SELECT 1", "SELECT 1"),
                                               _entry(1, "SELECT 1", "SELECT 1", odd)])
    bench, _, _ = load_verieql(path)
    bench.schema("odd-0")  # the other pair is unaffected
    with pytest.raises(SchemaError, match="constraint kind 'unique' is not supported"):
        bench.schema("odd-1")


def test_constraint_on_unknown_column_is_a_schema_error():
    with pytest.raises(SchemaError, match="'EMP__NOPE'"):
        schema_ddl(SCHEMA, [{"not_null": {"value": "EMP__NOPE"}}])


# ---------------------------------------------------------------------- evaluate end to end


def test_evaluate_three_pairs(tmp_path):
    from spotit.experiments.runners import EvaluationSettings, run_evaluation

    path = _write(tmp_path / "three.jsonlines", [
        # EMPNO is the key: unique, so DISTINCT removes nothing (bags equal) ...
        _entry(0, "SELECT DISTINCT EMPNO FROM EMP", "SELECT EMPNO FROM EMP"),
        # ... and never NULL, so the filter keeps every row
        _entry(1, "SELECT EMPNO FROM EMP WHERE EMPNO IS NOT NULL", "SELECT EMPNO FROM EMP"),
        # an employee with DEPTNO = 1 is in the second result only
        _entry(2, "SELECT EMPNO FROM EMP WHERE DEPTNO > 1",
               "SELECT EMPNO FROM EMP WHERE DEPTNO >= 1"),
    ])
    settings = EvaluationSettings("verieql", bound=2, timeout=30, dialect="generic")
    store, run_id = run_evaluation(benchmark="verieql", dev=path, tables=None, predictions={},
                                   results=tmp_path / "r.sqlite", settings=settings, workers=1)
    records = {r.question_id: r for r, _ in store.run_records(run_id)}
    store.close()
    assert {q: r.verdict for q, r in records.items()} == {
        "0": "equivalent", "1": "equivalent", "2": "not_equivalent"}
    assert {r.system for r in records.values()} == {"three"}
    assert all(r.semantics == "bag" for r in records.values())
    # the counterexample really separates the two queries on SQLite
    cex = records["2"].counterexample
    conn = schema_from_ddl(schema_ddl(SCHEMA, CONSTRAINTS)).create_database()
    for table, rows in cex.items():
        for row in rows:
            cols = ", ".join(f'"{c}"' for c in row)
            conn.execute(f'INSERT INTO "{table}" ({cols}) VALUES '
                         f'({", ".join("?" for _ in row)})', list(row.values()))
    strict = sorted(conn.execute("SELECT EMPNO FROM EMP WHERE DEPTNO > 1").fetchall())
    loose = sorted(conn.execute("SELECT EMPNO FROM EMP WHERE DEPTNO >= 1").fetchall())
    assert strict != loose


def test_cli_needs_tables_and_pred_for_bird_only(tmp_path, capsys):
    from spotit.cli import main

    with pytest.raises(SystemExit, match="needs --tables and --pred"):
        main(["evaluate", "--benchmark", "bird", "--dev", "dev.json"])
    path = _write(tmp_path / "p.jsonlines", [_entry(0, "SELECT 1", "SELECT 1")])
    with pytest.raises(SystemExit, match="--pred not used with --benchmark verieql"):
        main(["evaluate", "--benchmark", "verieql", "--dev", str(path), "--pred", "x"])


# ---------------------------------------------------------------------- dialect rules


@pytest.fixture
def db():
    conn = sqlite3.connect(":memory:")
    conn.executescript("""
        CREATE TABLE EMP (EMPNO INT, ENAME VARCHAR, SAL INT, HIREDATE DATE);
        INSERT INTO EMP VALUES (1, 'Abc', 7, '2020-12-11'), (2, 'abc', NULL, '2021-01-02'),
                               (3, 'a_c', 3, NULL), (4, NULL, 5, '2020-01-01');
    """)
    return conn


EMP = schema_from_ddl("CREATE TABLE EMP (EMPNO INT NOT NULL, ENAME VARCHAR, SAL INT, "
                      "HIREDATE DATE);")


def _run(db, sql: str, dialect: str, ordered: bool = False) -> list:
    return db.execute(to_sqlite(sql, dialect, schema=EMP, ordered=ordered)).fetchall()


@pytest.mark.parametrize("sql, dialect, expected", [
    # Calcite's $-names, once quoted, are plain names
    ("SELECT t.$f1 FROM (SELECT SAL AS $f1 FROM EMP WHERE EMPNO = 1) AS t", "generic", [(7,)]),
    # FETCH FIRST / OFFSET ROWS are LIMIT / OFFSET (explicit NULL order: no ambiguity)
    ("SELECT EMPNO FROM EMP ORDER BY EMPNO NULLS LAST OFFSET 1 ROWS FETCH FIRST 2 ROWS ONLY",
     "generic", [(2,), (3,)]),
    # NULL IS NOT DISTINCT FROM NULL holds: rows 2 (SAL NULL = NULL) and 1 (7 = 7)
    ("SELECT EMPNO FROM EMP WHERE SAL IS NOT DISTINCT FROM CASE WHEN EMPNO = 1 THEN 7 END "
     "ORDER BY EMPNO", "generic", [(1,), (2,)]),
    # the standard's integer division truncates (sqlglot alone would make it 3.5)
    ("SELECT SAL / 2 FROM EMP WHERE EMPNO = 1", "generic", [(3,)]),
    ("SELECT SAL / 2 FROM EMP WHERE EMPNO = 1", "postgres", [(3,)]),
    # LIKE is case-sensitive outside SQLite: 'Abc' does not match 'a%'; _ is one character
    ("SELECT EMPNO FROM EMP WHERE ENAME LIKE 'a%' ORDER BY EMPNO", "generic", [(2,), (3,)]),
    ("SELECT EMPNO FROM EMP WHERE ENAME NOT LIKE 'a_c'", "generic", [(1,)]),
    # Postgres: backslash escapes in LIKE patterns ('a\\_c' is the text a_c only)
    ("SELECT EMPNO FROM EMP WHERE ENAME LIKE 'a\\_c'", "postgres", [(3,)]),
    # Postgres CONCAT skips NULLs; MySQL's is NULL when any argument is
    ("SELECT CONCAT(ENAME, SAL) FROM EMP WHERE EMPNO = 2", "postgres", [("abc",)]),
    ("SELECT CONCAT(ENAME, SAL) FROM EMP WHERE EMPNO = 2", "mysql", [(None,)]),
    # Postgres puts NULLs last in ascending order: SAL NULL (row 2) is not the smallest
    ("SELECT EMPNO FROM EMP ORDER BY SAL LIMIT 1", "postgres", [(3,)]),
    ("SELECT EMPNO FROM EMP ORDER BY SAL DESC LIMIT 1", "postgres", [(2,)]),
    # TRUE / FALSE are 1 / 0 wherever they are compared with booleans
    ("SELECT EMPNO FROM EMP WHERE (SAL > 4) = TRUE ORDER BY EMPNO", "generic", [(1,), (4,)]),
    # derived column lists: VALUES columns renamed, a SELECT's outputs renamed
    ("SELECT X + Y FROM (VALUES (10, 1), (30, 3)) AS t (X, Y) WHERE X > 10", "generic",
     [(33,)]),
    ("SELECT B FROM (SELECT EMPNO, SAL FROM EMP) AS t (A, B) WHERE A = 3", "generic", [(3,)]),
    # dates are their text: a DATE literal compares with stored dates, EXTRACT reads it
    ("SELECT EMPNO FROM EMP WHERE HIREDATE > DATE '2020-06-01' ORDER BY EMPNO", "generic",
     [(1,), (2,)]),
    ("SELECT EXTRACT(YEAR FROM HIREDATE) FROM EMP WHERE EMPNO = 1", "generic", [(2020,)]),
    # casts that convert the same way: integer to text, integer to real
    ("SELECT CAST(SAL AS VARCHAR), CAST(SAL AS DOUBLE) FROM EMP WHERE EMPNO = 1", "generic",
     [("7", 7.0)]),
    ("SELECT `SAL` FROM EMP WHERE EMPNO = 3", "mysql", [(3,)]),
    # IS TRUE binds looser than = (the standard's boolean test, Calcite's expansion of
    # IS NOT DISTINCT FROM): (7 = NULL) IS NOT TRUE is 1; sqlglot's generic reading,
    # 7 = (NULL IS NOT TRUE), would be 0
    ("SELECT SAL = NULL IS NOT TRUE FROM EMP WHERE EMPNO = 1", "generic", [(1,)]),
    ("SELECT SAL = NULL IS NOT TRUE FROM EMP WHERE EMPNO = 1", "postgres", [(1,)]),
    ("SELECT MOD(SAL, 4), ROUND(SAL) FROM EMP WHERE EMPNO = 1", "postgres", [(3, 7.0)]),
])
def test_transpiled_query_keeps_its_meaning(db, sql, dialect, expected):
    assert _run(db, sql, dialect) == expected


@pytest.mark.parametrize("sql, dialect, construct", [
    ("SELECT ENAME, SUM(SAL) FROM EMP GROUP BY ROLLUP(ENAME)", "generic", "ROLLUP"),
    ("SELECT ENAME, SUM(SAL) FROM EMP GROUP BY GROUPING SETS ((ENAME), ())", "generic",
     "GROUPING SETS"),
    ("SELECT * FROM EMP AS e, LATERAL (SELECT 1 AS X) AS t", "generic", "LATERAL"),
    ("SELECT SAL FROM EMP EXCEPT ALL SELECT SAL FROM EMP", "generic", "EXCEPT ALL"),
    ("SELECT SAL FROM EMP INTERSECT ALL SELECT SAL FROM EMP", "postgres", "INTERSECT ALL"),
    ("SELECT SAL / 2 FROM EMP", "mysql", "MySQL division"),  # 3.5000, not 3 or 3.5
    ("SELECT AVG(SAL) FROM EMP", "generic", "AVG"),  # Calcite: INTEGER
    ("SELECT CAST(SAL * 1.5 AS INTEGER) FROM EMP", "postgres", "CAST"),  # Postgres rounds
    ("SELECT CAST(ENAME AS VARCHAR(2)) FROM EMP", "generic", "VARCHAR(2)"),  # truncates
    ("SELECT CAST(ENAME AS INTEGER) FROM EMP", "generic", "CAST"),  # an error, not a prefix
    ("SELECT EMPNO FROM EMP WHERE ENAME ILIKE 'a%'", "postgres", "ILIKE"),
    ("SELECT EMPNO FROM EMP WHERE ENAME LIKE ENAME", "generic", "non-constant pattern"),
    ("SELECT EMPNO FROM EMP ORDER BY SAL LIMIT 1", "generic", "NULLS FIRST/LAST"),
    ("SELECT COUNT(ENAME, SAL) FROM EMP", "generic", "COUNT of several arguments"),
    ("SELECT STDDEV_POP(SAL) FROM EMP", "generic", "STDDEV_POP"),
    ("SELECT EXTRACT(HOUR FROM HIREDATE) FROM EMP", "generic", "EXTRACT(HOUR"),
    ("SELECT ANY_VALUE(SAL) FROM EMP", "generic", "ANY_VALUE"),  # sqlglot: MAX
    ("SELECT GREATEST(SAL, EMPNO) FROM EMP", "mysql", "GREATEST"),
    ("SELECT MOD(SAL * 1.5, 2) FROM EMP", "postgres", "MOD"),
    ("SELECT ROUND(SAL * 1.5) FROM EMP", "postgres", "ROUND"),  # half to even there
    # MySQL's LENGTH counts bytes (LENGTH('é') is 2), SQLite's characters
    ("SELECT LENGTH(ENAME) FROM EMP", "mysql", "LENGTH in mysql"),
    # SQLite's LOWER/UPPER map ASCII letters only: LOWER('É') is 'É' there
    ("SELECT LOWER(ENAME) FROM EMP", "postgres", "function LOWER"),
    ("SELECT UPPER(ENAME) FROM EMP", "generic", "function UPPER"),
    # 'ab' is CHAR(2) in ANSI SQL: beside 'abc' it becomes 'ab '
    ("SELECT 'ab' FROM EMP UNION SELECT 'abc' FROM EMP", "generic", "different lengths"),
    ("SELECT CASE WHEN SAL > 1 THEN 'ab' ELSE 'abc' END FROM EMP", "generic",
     "different lengths"),
    # sqlglot wrote each of these for SQLite with another meaning (a helper's hunt):
    # WITH TIES as a plain LIMIT, CONCAT_WS's separator as its first value, a single
    # precision REAL/FLOAT as SQLite's double, MySQL's SUBSTRING at 0 ('') and Postgres's
    # at -1 (the whole text) as SQLite's, a boolean's text t/f as 1/0, a DATETIME's
    # DATE_ADD as DATE() (the time dropped), a window's NULL order left to Calcite
    ("SELECT SAL FROM EMP ORDER BY SAL NULLS FIRST FETCH FIRST 1 ROWS WITH TIES",
     "postgres", "WITH TIES"),
    ("SELECT CONCAT_WS('-', ENAME, ENAME) FROM EMP", "postgres", "CONCAT_WS"),
    ("SELECT CAST(SAL AS REAL) FROM EMP", "postgres", "single precision"),
    ("SELECT CAST(SAL AS FLOAT) FROM EMP", "mysql", "single precision"),
    ("SELECT SUBSTRING(ENAME, 0, 2) FROM EMP", "mysql", "SUBSTRING from a position"),
    ("SELECT SUBSTRING(ENAME, -1) FROM EMP", "postgres", "SUBSTRING from a position"),
    ("SELECT (SAL > 0) || '' FROM EMP", "postgres", "|| of a boolean"),
    ("SELECT DATE_ADD(ENAME, INTERVAL 1 DAY) FROM EMP", "mysql",
     "DATE_ADD of a value that is not a DATE"),
    ("SELECT ROW_NUMBER() OVER (ORDER BY SAL) FROM EMP", "generic", "in a window"),
])
def test_refused_construct_is_named(sql, dialect, construct):
    with pytest.raises(Unsupported) as err:
        to_sqlite(sql, dialect, schema=EMP)
    assert construct in str(err.value)


def test_outermost_order_counts_only_when_ordered(db):
    sql = "SELECT EMPNO FROM EMP ORDER BY SAL"
    assert sorted(_run(db, sql, "generic", ordered=False)) == [(1,), (2,), (3,), (4,)]
    with pytest.raises(Unsupported, match="NULLS FIRST/LAST"):
        to_sqlite(sql, "generic", schema=EMP, ordered=True)


def test_without_schema_type_dependent_constructs_are_refused():
    assert to_sqlite("SELECT CAST(NULL AS INTEGER)", "generic") == "SELECT CAST(NULL AS INTEGER)"
    with pytest.raises(Unsupported, match="CAST of a unknown value"):
        to_sqlite("SELECT CAST(SAL AS INTEGER) FROM EMP", "generic")


def test_sqlite_is_untouched_and_unknown_dialects_are_refused():
    odd = "SELECT a FROM t WHERE b LIKE 'X%'"
    assert to_sqlite(odd, "sqlite") is odd
    with pytest.raises(SpotItError, match="unknown or unvetted dialect 'bigquery'"):
        to_sqlite(odd, "bigquery")


def test_check_reports_the_refused_construct_and_the_translation():
    from spotit.pipeline import check

    ddl = "CREATE TABLE EMP (EMPNO INT NOT NULL, SAL INT);"
    r = check(ddl, "SELECT SAL FROM EMP GROUP BY ROLLUP(SAL)", "SELECT SAL FROM EMP",
              dialect="generic", bound=1)
    assert r.verdict.value == "unsupported" and "ROLLUP" in r.reason and "gold" in r.reason
    r = check(ddl, "SELECT SAL / 2 AS $f0 FROM EMP", "SELECT SAL / 2 FROM EMP",
              dialect="generic", bound=2, semantics="bag")
    assert r.verdict.value == "equivalent"
    assert r.transpiled == {"dialect": "generic", "gold": "SELECT SAL / 2 AS `$f0` FROM EMP",
                            "pred": "SELECT SAL / 2 FROM EMP"}


# ---------------------------------------------------------------------- the published data


def test_published_files_read():
    if not DATA.is_dir():
        pytest.skip(f"{DATA} is absent")
    for name, count in (("calcite2", 397), ("literature", 64), ("literature-rewrite", 64)):
        bench, system, preds = load_verieql(DATA / f"{name}.jsonlines")
        assert system == name and len(bench.questions) == count == len(preds)
        for q in bench.questions:
            bench.schema(q.db_id)  # every pair's constraints are expressible
