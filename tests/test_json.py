"""SQLite's JSON extraction (json_extract, ->>, ->): proofs over any JSON text,
counterexamples SQLite confirms, refusals by name (spotit.encodings.jsonfns)."""

from __future__ import annotations

import sqlite3

import pytest

import spotit
from spotit.ir.types import Domain, domain_of_declared_type

# Spider 2.0's Airlines keeps city names as JSON ({"en": "Abakan", "ru": "Абакан"}) in
# columns declared jsonb
SCHEMA = """
CREATE TABLE airports_data (airport_code character(3), city jsonb, airport_name jsonb,
                            coordinates point);
CREATE TABLE flights (flight_id INTEGER, flight_no character(6), departure_airport
                      character(3), arrival_airport character(3));
"""
ABAKAN = ("SELECT DISTINCT f.flight_no FROM flights f JOIN airports_data a "
          "ON f.departure_airport = a.airport_code WHERE json_extract(a.city, '$.en') = 'Abakan'")


def _check(gold: str, pred: str, **kw):
    return spotit.check(SCHEMA, gold, pred, timeout=60, **kw)


def _sqlite(sql: str, *rows: tuple | str) -> list[tuple]:
    """``sql`` on the schema with these airports (a text: the query's one parameter)."""
    conn = sqlite3.connect(":memory:")
    conn.executescript(SCHEMA)
    conn.executemany("INSERT INTO airports_data VALUES (?, ?, ?, NULL)",
                     [r for r in rows if isinstance(r, tuple)])
    return conn.execute(sql, [r for r in rows if isinstance(r, str)]).fetchall()


def test_a_json_column_may_hold_text_under_the_declared_data():
    """jsonb has NUMERIC affinity, but its documents are text: a column limited to
    numbers would make every proof say nothing of real data."""
    assert domain_of_declared_type("jsonb") is Domain.ANY
    assert domain_of_declared_type("JSON") is Domain.ANY
    # Airlines' coordinates: '(129.77,62.09)', a PostgreSQL point kept as text
    assert domain_of_declared_type("point") is Domain.ANY


def test_json_extract_and_the_arrow_read_one_path_alike():
    # the arrow's label 'en' is the path '$.en' (SQLite's json1 documentation, and:)
    doc = '{"en":"Abakan","ru":"x"}'
    assert _sqlite("SELECT json_extract(city, '$.en'), city ->> 'en' FROM airports_data",
                   ("A", doc, None)) == [("Abakan", "Abakan")]
    pred = ABAKAN.replace("json_extract(a.city, '$.en')", "a.city ->> 'en'")
    r = _check(ABAKAN, pred)
    assert r.verdict.value == "equivalent", r.reason


def test_a_subquery_rewrite_of_a_json_filter_is_proved():
    pred = ("SELECT DISTINCT flight_no FROM flights WHERE departure_airport IN "
            "(SELECT airport_code FROM airports_data WHERE city ->> 'en' = 'Abakan')")
    r = _check(ABAKAN, pred)
    assert r.verdict.value == "equivalent", r.reason


@pytest.mark.parametrize("pred", [
    ABAKAN.replace("'$.en'", "'$.ru'"),  # another member
    ABAKAN.replace("f.departure_airport", "f.arrival_airport"),  # another join
    ABAKAN.replace("json_extract(a.city, '$.en')", "a.city -> 'en'"),  # '"Abakan"'
])
def test_a_changed_json_query_is_refuted_with_json_sqlite_reads(pred):
    r = _check(ABAKAN, pred)
    assert r.verdict.value == "not_equivalent", r.reason
    cities = [row["city"] for row in r.counterexample["airports_data"]
              if row["city"] is not None]
    # the database holds JSON SQLite parses (a malformed text would stop the query)
    assert cities and all(_sqlite("SELECT json_valid(?)", city) == [(1,)] for city in cities)


def test_arrow_gives_json_text_and_double_arrow_the_value():
    # SQLite: '{"en":"a"}' -> 'en' is '"a"', ->> 'en' is 'a'
    assert _sqlite("SELECT city -> 'en', city ->> 'en' FROM airports_data",
                   ("A", '{"en":"a"}', None)) == [('"a"', "a")]
    gold = "SELECT city -> 'en' FROM airports_data"
    pred = "SELECT '\"' || (city ->> 'en') || '\"' FROM airports_data"
    r = _check(gold, pred)
    # they differ where the member is no string ('{"en":0}': '0' against '"0"')
    assert r.verdict.value == "not_equivalent", r.reason


def test_integer_members_are_compared_as_numbers():
    gold = "SELECT airport_code FROM airports_data WHERE city ->> 'n' > 3"
    pred = "SELECT airport_code FROM airports_data WHERE city ->> 'n' >= 3"
    r = _check(gold, pred)
    assert r.verdict.value == "not_equivalent", r.reason


@pytest.mark.parametrize("pred, what", [
    ("SELECT json_extract(city, airport_code) FROM airports_data", "not a constant"),
    ("SELECT city ->> 'a b' FROM airports_data", "JSON path"),
    ("SELECT json_extract(city, 'en') FROM airports_data", "JSON path"),
])
def test_paths_outside_the_fragment_are_refused_by_name(pred, what):
    # (against a rewrite of itself: a query that differs is refuted by random search
    # first, which is right too)
    r = _check(pred, pred + " WHERE 1 = 1")
    assert r.verdict.value == "unsupported" and what in r.reason, r.reason


def test_several_paths_with_a_null_one_are_an_array_not_null():
    # SQLite: json_extract('{}', NULL, '$.k') is '[null,null]'; with one NULL path, NULL
    assert _sqlite("SELECT json_extract('{}', NULL, '$.k'), json_extract('{}', NULL)") \
        == [("[null,null]", None)]
    gold = "SELECT json_extract(city, NULL, '$.en') FROM airports_data"
    pred = "SELECT NULL FROM airports_data"
    r = _check(gold, pred)
    assert r.verdict.value == "not_equivalent", r.reason


# Spider 2.0's local009 asks for the longest route from or to Abakan: a query of its
# shape (coordinates parsed from the point's text, the haversine distance)
LONGEST = """
WITH ap AS (
  SELECT airport_code, json_extract(city, '$.en') AS city,
         CAST(SUBSTR(coordinates, 2, INSTR(coordinates, ',') - 2) AS REAL) AS lon,
         CAST(SUBSTR(coordinates, INSTR(coordinates, ',') + 1,
                     LENGTH(coordinates) - INSTR(coordinates, ',') - 1) AS REAL) AS lat
  FROM airports_data)
SELECT MAX(2 * 6371 * ASIN(SQRT(POWER(SIN(RADIANS(b.lat - a.lat) / 2), 2)
       + COS(RADIANS(a.lat)) * COS(RADIANS(b.lat)) * POWER(SIN(RADIANS(b.lon - a.lon) / 2), 2))))
FROM flights f JOIN ap a ON f.departure_airport = a.airport_code
     JOIN ap b ON f.arrival_airport = b.airport_code
WHERE a.city = 'Abakan' OR b.city = 'Abakan'
"""


def test_a_long_json_query_against_a_rewrite_and_a_mutation():
    rewrite = LONGEST.replace("a.city = 'Abakan' OR b.city = 'Abakan'",
                              "b.city = 'Abakan' OR a.city = 'Abakan'").replace(
        "json_extract(city, '$.en')", "city ->> 'en'")
    assert _check(LONGEST, rewrite).verdict.value == "equivalent"
    # departures from Abakan only: a flight into Abakan from elsewhere tells them apart
    r = _check(LONGEST, LONGEST.replace(" OR b.city = 'Abakan'", ""))
    assert r.verdict.value == "not_equivalent", r.reason


def test_random_search_draws_real_members():
    # SQLite: '{"a":1.5}' ->> 'a' + 0 is 1.5, CAST(... AS INTEGER) is 1
    assert _sqlite("SELECT (? ->> 'a') + 0, CAST(? ->> 'a' AS INTEGER)", '{"a":1.5}',
                   '{"a":1.5}') == [(1.5, 1)]
    r = _check("SELECT airport_code, (city ->> 'a') + 0 FROM airports_data",
               "SELECT airport_code, CAST(city ->> 'a' AS INTEGER) FROM airports_data")
    assert r.verdict.value == "not_equivalent" and r.cex_found_by == "random search", r.reason
