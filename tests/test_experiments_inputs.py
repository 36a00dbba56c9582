"""Benchmark, prediction and label readers on small files written here.

Every expectation is read off the file contents in each test; errors must be
``InputError`` with a one-line message naming the file.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from spotit.errors import SchemaError
from spotit.experiments.inputs import (
    Benchmark,
    InputError,
    Prediction,
    load_benchmark,
    load_ex_labels,
    load_predictions,
    parse_named_path,
    select_questions,
)

TABLES = [
    {"db_id": "shop", "table_names_original": ["item"],
     "column_names_original": [[-1, "*"], [0, "id"], [0, "name"]],
     "column_types": ["text", "number", "text"], "primary_keys": [1], "foreign_keys": []},
    {"db_id": "school", "table_names_original": ["pupil"],
     "column_names_original": [[-1, "*"], [0, "pid"], [0, "age"]],
     "column_types": ["text", "number", "number"], "primary_keys": [1], "foreign_keys": []},
]
BIRD_DEV = [
    {"question_id": 0, "db_id": "shop", "question": "Names?", "evidence": "",
     "SQL": "SELECT name FROM item", "difficulty": "simple"},
    {"question_id": 1, "db_id": "school", "question": "Ages?", "evidence": "age is years",
     "SQL": " SELECT age FROM pupil \n", "difficulty": "moderate"},
    {"question_id": 2, "db_id": "shop", "question": "Count?", "evidence": "",
     "SQL": "SELECT COUNT(*) FROM item", "difficulty": "challenging"},
]
SPIDER_DEV = [
    {"db_id": "shop", "query": "SELECT name FROM item ORDER BY id", "question": "q0"},
    # ORDER BY only inside a subquery: the outermost query is unordered
    {"db_id": "shop", "query": "SELECT name FROM item WHERE id = "
                               "(SELECT id FROM item ORDER BY id LIMIT 1)", "question": "q1"},
    # the words in a string literal are not an ORDER BY
    {"db_id": "shop", "query": "SELECT name FROM item WHERE name = 'order by'", "question": "q2"},
    # ORDER BY of a compound query applies to the outermost query
    {"db_id": "school", "query": "SELECT age FROM pupil UNION SELECT pid FROM pupil ORDER BY 1",
     "question": "q3"},
]


def write(path: Path, content) -> Path:
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


@pytest.fixture
def bird(tmp_path) -> Benchmark:
    return load_benchmark("bird", write(tmp_path / "dev.json", BIRD_DEV),
                          write(tmp_path / "dev_tables.json", TABLES))


@pytest.fixture
def spider(tmp_path) -> Benchmark:
    return load_benchmark("spider", write(tmp_path / "spider_dev.json", SPIDER_DEV),
                          write(tmp_path / "tables.json", TABLES))


def raises_naming(path: Path, fn, *args, match: str = "") -> str:
    """Call ``fn``; it must raise InputError with a one-line message naming ``path``."""
    with pytest.raises(InputError) as info:
        fn(*args)
    message = str(info.value)
    assert "\n" not in message
    assert str(path) in message
    assert match in message
    return message


# --------------------------------------------------------------------------- benchmarks


def test_bird_questions(bird):
    assert [q.question_id for q in bird.questions] == ["0", "1", "2"]
    q1 = bird.question("1")
    assert (q1.db_id, q1.gold, q1.evidence, q1.difficulty) == (
        "school", "SELECT age FROM pupil", "age is years", "moderate")
    assert {q.semantics for q in bird.questions} == {"set"}
    assert bird.question("3") is None and bird.name == "bird"


def test_schema_cached_and_fingerprinted(bird):
    shop = bird.schema("shop")
    assert shop is bird.schema("shop")
    assert [t.name for t in shop.tables] == ["item"]
    assert bird.schema_fingerprint("shop") == hashlib.sha256(shop.ddl.encode()).hexdigest()
    assert bird.schema_fingerprint("shop") != bird.schema_fingerprint("school")


def test_schema_error_propagates(tmp_path):
    broken = [dict(TABLES[0], column_types=["text"])]  # shorter than the column list
    bench = load_benchmark("bird", write(tmp_path / "dev.json", BIRD_DEV[:1]),
                           write(tmp_path / "t.json", broken))
    with pytest.raises(SchemaError) as info:
        bench.schema("shop")
    assert not isinstance(info.value, InputError)


def test_spider_ids_by_index_and_semantics_by_parse(spider):
    assert [q.question_id for q in spider.questions] == ["0", "1", "2", "3"]
    assert [q.semantics for q in spider.questions] == ["list", "bag", "bag", "list"]
    assert {q.difficulty for q in spider.questions} == {""}
    assert spider.question("3").db_id == "school"


@pytest.mark.parametrize("dev, match", [
    ([dict(BIRD_DEV[0]), {k: v for k, v in BIRD_DEV[1].items() if k != "SQL"}],
     "entry 1: missing key 'SQL'"),
    ([dict(BIRD_DEV[0], db_id="zoo")], "entry 0: db_id 'zoo' is not in"),
    ([BIRD_DEV[0], BIRD_DEV[0]], "entry 1: question_id 0 repeats entry 0"),
    ([dict(BIRD_DEV[0], question_id=True)], "entry 0: 'question_id' must be"),
    ({"questions": BIRD_DEV}, "expected a non-empty JSON list"),
    ([], "expected a non-empty JSON list"),
    ("[{]", "not valid JSON"),
])
def test_bad_dev_file(tmp_path, dev, match):
    dev_path = write(tmp_path / "dev.json", dev)
    raises_naming(dev_path, load_benchmark, "bird", dev_path,
                  write(tmp_path / "tables.json", TABLES), match=match)


def test_spider_entry_without_query(tmp_path):
    dev = write(tmp_path / "dev.json", [SPIDER_DEV[0], {"db_id": "shop", "question": "?"}])
    raises_naming(dev, load_benchmark, "spider", dev, write(tmp_path / "t.json", TABLES),
                  match="entry 1: missing key 'query'")


def test_bad_tables_and_unreadable_files(tmp_path):
    dev = write(tmp_path / "dev.json", BIRD_DEV)
    tables = write(tmp_path / "tables.json", {"db_id": "shop"})
    raises_naming(tables, load_benchmark, "bird", dev, tables, match="JSON list")
    missing = tmp_path / "nope.json"
    raises_naming(missing, load_benchmark, "bird", dev, missing, match="cannot read")
    good = write(tmp_path / "good_tables.json", TABLES)
    raises_naming(tmp_path, load_benchmark, "bird", tmp_path, good, match="cannot read")
    with pytest.raises(InputError, match="unknown benchmark"):
        load_benchmark("wikisql", dev, tables)


# --------------------------------------------------------------------------- predictions


def test_bird_official_json(tmp_path, bird):
    path = write(tmp_path / "p.json", {
        "0": "SELECT name FROM item\t----- bird -----\tshop",
        "1": "SELECT age\nFROM pupil\t----- bird -----\tschool",  # newline kept
        "2": "SELECT 1\t----- bird -----\tschool",  # names the wrong database
    })
    preds = load_predictions(path, bird)
    assert preds["0"] == Prediction("0", "SELECT name FROM item", None, "shop")
    assert preds["1"].sql == "SELECT age\nFROM pupil"
    assert preds["2"] == Prediction(
        "2", None, "prediction names database school but the question is on shop", "school")


def test_plain_json_object_with_problems(tmp_path, bird):
    path = write(tmp_path / "p.json", {"0": "  SELECT name FROM item;  ", "1": "   "})
    preds = load_predictions(path, bird)
    assert preds["0"] == Prediction("0", "SELECT name FROM item;")  # only whitespace stripped
    assert preds["1"] == Prediction("1", None, "empty prediction")
    assert preds["2"] == Prediction("2", None, "no prediction for this question")


@pytest.mark.parametrize("text", ["SELECT", "select ;", "ERROR", "<none>", "None", "null",
                                  "N/A", "-", "42", "(*)"])
def test_placeholders(tmp_path, bird, text):
    preds = load_predictions(write(tmp_path / "p.json", {"0": text}), bird)
    assert preds["0"].sql is None
    assert preds["0"].problem == f"placeholder prediction ({text!r})"


def test_unknown_key(tmp_path, bird):
    path = write(tmp_path / "p.json", {"0": "SELECT 1", "7": "SELECT 2"})
    raises_naming(path, load_predictions, path, bird, match="key '7'")


def test_list_of_strings_in_question_order(tmp_path, bird):
    path = write(tmp_path / "preds", ["SELECT name FROM item", None, 3])
    preds = load_predictions(path, bird)  # no suffix: JSON by content
    assert preds["0"].sql == "SELECT name FROM item"
    assert preds["1"].problem == "empty prediction"
    assert preds["2"] == Prediction("2", None, "malformed entry: a number, not SQL text")


def test_list_of_objects_with_ids(tmp_path, bird):
    path = write(tmp_path / "p.json", [
        {"question_id": 2, "predicted_sql": "SELECT COUNT(*) FROM item", "db_id": "shop"},
        {"question_id": "0", "pred": "SELECT name FROM item"},
        {"question_id": 1, "answer": "SELECT age FROM pupil"},
    ])
    preds = load_predictions(path, bird)
    assert preds["2"] == Prediction("2", "SELECT COUNT(*) FROM item", None, "shop")
    assert preds["0"].sql == "SELECT name FROM item"
    assert preds["1"].sql is None and preds["1"].problem.startswith("malformed entry: no SQL/")
    short = write(tmp_path / "short.json", [{"question_id": 1, "sql": "SELECT age FROM pupil"}])
    assert load_predictions(short, bird)["0"].problem == "no prediction for this question"
    twice = write(tmp_path / "twice.json", [{"question_id": 1, "SQL": "SELECT 1"}] * 2)
    raises_naming(twice, load_predictions, twice, bird, match="appears twice")
    mixed = write(tmp_path / "mixed.json", [{"question_id": 1, "SQL": "SELECT 1"}, "SELECT 2"])
    raises_naming(mixed, load_predictions, mixed, bird, match="entry 1 has no 'question_id'")


def test_lines_with_and_without_db_ids(tmp_path, bird):
    plain = write(tmp_path / "p.sql", "SELECT name FROM item\n\nSELECT COUNT(*) FROM item\n")
    preds = load_predictions(plain, bird)
    assert [preds[q].sql for q in "012"] == ["SELECT name FROM item", None,
                                             "SELECT COUNT(*) FROM item"]
    assert preds["1"].problem == "empty prediction"
    tabbed = write(tmp_path / "p.txt", "SELECT name FROM item\tshop\n"
                                       "SELECT age FROM pupil\tschool\n"
                                       "SELECT 1\tschool\n\n\n")  # trailing blank lines
    preds = load_predictions(tabbed, bird)
    assert preds["0"] == Prediction("0", "SELECT name FROM item", None, "shop")
    assert preds["1"] == Prediction("1", "SELECT age FROM pupil", None, "school")
    assert preds["2"].sql is None and "names database school" in preds["2"].problem


def test_tab_inside_sql_is_not_a_db_id(tmp_path, bird):
    # as in a real C3-SQL line: tabs inside the query, and the last piece is no database
    lines = "SELECT name FROM item WHERE id IN ( \tSELECT id \tFROM item )\nSELECT 1\nSELECT 2\n"
    preds = load_predictions(write(tmp_path / "p.sql", lines), bird)
    assert preds["0"] == Prediction("0", "SELECT name FROM item WHERE id IN ( \tSELECT id "
                                         "\tFROM item )")


def test_text_starting_with_bracket_is_lines(tmp_path, bird):
    preds = load_predictions(write(tmp_path / "p.txt", "[ERROR]\nSELECT 1\nSELECT 2"), bird)
    assert preds["0"].problem == "placeholder prediction ('[ERROR]')"
    assert preds["2"].sql == "SELECT 2"


@pytest.mark.parametrize("name, content, count", [
    ("p.sql", "SELECT 1\nSELECT 2\n", 2),
    ("p.sql", "SELECT 1\nSELECT 2\nSELECT 3\nSELECT 4\n", 4),
    ("p.sql", "SELECT 1\n\nSELECT 2\nSELECT 3\n", 4),  # a blank line inside counts
    ("p.json", '["SELECT 1", "SELECT 2"]', 2),
])
def test_wrong_length(tmp_path, bird, name, content, count):
    path = write(tmp_path / name, content)
    raises_naming(path, load_predictions, path, bird, match=f"{count} predictions for 3 questions")


def test_unreadable_prediction_files(tmp_path, bird):
    missing = tmp_path / "missing.sql"
    raises_naming(missing, load_predictions, missing, bird, match="cannot read")
    binary = tmp_path / "p.sql"
    binary.write_bytes(b"SELECT 1\nSELECT '\xff'\nSELECT 3\n")
    raises_naming(binary, load_predictions, binary, bird, match="not UTF-8")
    broken = write(tmp_path / "p.json", '{"0": "SELECT 1",')
    raises_naming(broken, load_predictions, broken, bird, match="not valid JSON")
    scalar = write(tmp_path / "s.json", '"SELECT 1"')
    raises_naming(scalar, load_predictions, scalar, bird, match="expected a JSON object or list")


def test_spider_predictions_by_position(tmp_path, spider):
    preds = load_predictions(write(tmp_path / "p.txt", "SELECT 0\nSELECT 1\nSELECT 2\nSELECT 3"),
                             spider)
    assert [(k, p.sql) for k, p in preds.items()] == [(str(i), f"SELECT {i}") for i in range(4)]


# --------------------------------------------------------------------------- labels


def test_ex_labels_object(tmp_path, bird):
    labels = load_ex_labels(write(tmp_path / "l.json", {"0": True, "1": 0, "2": 1}), bird)
    assert labels == {"0": True, "1": False, "2": True}


def test_ex_labels_list(tmp_path, bird):
    data = [{"sql_idx": 2, "res": 0}, {"question_id": 0, "res": 1}]
    assert load_ex_labels(write(tmp_path / "l.json", data), bird) == {"2": False, "0": True}


@pytest.mark.parametrize("data, match", [
    ({"0": 2}, "must be true, false, 0 or 1"),
    ({"0": "1"}, "must be true, false, 0 or 1"),
    ({"9": True}, "key '9' is not a question"),
    ([{"sql_idx": 3, "res": 1}], "sql_idx 3"),
    ([{"sql_idx": 0, "res": 1}, {"question_id": "0", "res": 0}], "labelled twice"),
    ([{"idx": 0, "res": 1}], "entry 0"),
    ([[0, 1]], "entry 0"),
    ('"yes"', "expected a JSON object"),
])
def test_bad_ex_labels(tmp_path, bird, data, match):
    path = write(tmp_path / "l.json", data)
    raises_naming(path, load_ex_labels, path, bird, match=match)


# --------------------------------------------------------------------------- arguments


def test_parse_named_path(tmp_path):
    f = write(tmp_path / "dail.sql", "SELECT 1\n")
    assert parse_named_path(f"dail-gpt4={f}", "--pred") == ("dail-gpt4", f)
    assert parse_named_path(str(f), "--pred") == ("dail", f)
    odd_dir = tmp_path / "k=v"
    odd_dir.mkdir()
    odd = write(odd_dir / "x.sql", "")
    assert parse_named_path(str(odd), "--pred") == ("x", odd)  # '=' inside a directory name
    for bad, match in [(f"={f}", "empty name"), ("name=", "no file given"),
                       (f"n={tmp_path / 'none.sql'}", "no such file")]:
        with pytest.raises(InputError, match=match) as info:
            parse_named_path(bad, "--pred")
        assert str(info.value).startswith("--pred: ")
    # a folder is Spider 2.0's predictions (one <instance_id>.sql each)
    assert parse_named_path(f"n={tmp_path}", "--pred") == ("n", tmp_path)


def test_select_questions(bird):
    assert [q.question_id for q in select_questions(bird)] == ["0", "1", "2"]
    assert [q.question_id for q in select_questions(bird, "2, 0")] == ["2", "0"]
    assert [q.question_id for q in select_questions(bird, limit=2)] == ["0", "1"]
    assert [q.question_id for q in select_questions(bird, "2,1,0", limit=1)] == ["2"]
    for questions, limit, match in [("0,5", None, "'5' is not a question"),
                                    ("1,1", None, "given twice"), (",", None, "no question ids"),
                                    (None, 0, "at least 1")]:
        with pytest.raises(InputError, match=match):
            select_questions(bird, questions, limit)


# --------------------------------------------------------------------------- real data

DATA_DIR = Path(os.environ.get("SPOTIT_BIRD_DIR", "/work/shared/data/bird")).parent


@pytest.mark.bird
@pytest.mark.skipif(not (DATA_DIR / "bird" / "dev.json").is_file()
                    or not (DATA_DIR / "spider" / "dev.json").is_file(),
                    reason=f"no BIRD/Spider data in {DATA_DIR}")
def test_real_benchmarks_and_predictions():
    bird = load_benchmark("bird", DATA_DIR / "bird" / "dev.json",
                          DATA_DIR / "bird" / "dev_tables.json")
    assert len(bird.questions) == 1534
    assert len({q.db_id for q in bird.questions}) == 11
    files = sorted((DATA_DIR / "bird" / "predictions").iterdir())
    assert len(files) == 4
    for path in files:
        preds = load_predictions(path, bird)
        assert len(preds) == 1534
        usable = sum(p.sql is not None for p in preds.values())
        assert usable > 1400, (path.name, usable)
    # the C3-SQL line with tabs inside its SQL stays one prediction
    c3 = load_predictions(DATA_DIR / "bird" / "predictions" / "c3-sql.sql", bird)
    assert "\tFROM laboratory" in c3["1294"].sql
    spider = load_benchmark("spider", DATA_DIR / "spider" / "dev.json",
                            DATA_DIR / "spider" / "tables.json")
    assert len(spider.questions) == 1034
    preds = load_predictions(DATA_DIR / "spider" / "predictions" / "dail-sql-gpt4.txt", spider)
    assert len(preds) == 1034 and all(p.sql for p in preds.values())
    # the gold has 'order by' only in a subquery here: bag, although test-suite says ordered
    assert spider.question("43").semantics == "bag"
    assert spider.schema("concert_singer").table("singer") is not None
