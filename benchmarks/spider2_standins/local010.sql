WITH airports AS (
    SELECT
        airport_code,
        json_extract(city, '$.en') AS city_name,
        CAST(TRIM(SUBSTR(coordinates, 2, INSTR(coordinates, ',') - 2)) AS REAL) AS lon,
        CAST(TRIM(SUBSTR(coordinates, INSTR(coordinates, ',') + 1,
                         LENGTH(coordinates) - INSTR(coordinates, ',') - 1)) AS REAL) AS lat
    FROM airports_data
),
route_dist AS (
    SELECT
        f.flight_id,
        a1.city_name AS dep_city,
        a2.city_name AS arr_city,
        2 * 6371 * ASIN(SQRT(
            POWER(SIN(RADIANS(a2.lat - a1.lat) / 2), 2)
            + COS(RADIANS(a1.lat)) * COS(RADIANS(a2.lat))
              * POWER(SIN(RADIANS(a2.lon - a1.lon) / 2), 2)
        )) AS distance_km
    FROM flights f
    JOIN airports a1 ON f.departure_airport = a1.airport_code
    JOIN airports a2 ON f.arrival_airport = a2.airport_code
),
pairs AS (
    SELECT
        CASE WHEN dep_city < arr_city THEN dep_city ELSE arr_city END AS city1,
        CASE WHEN dep_city < arr_city THEN arr_city ELSE dep_city END AS city2,
        AVG(distance_km) AS avg_distance
    FROM route_dist
    GROUP BY 1, 2
),
binned AS (
    SELECT
        city1, city2,
        CASE
            WHEN avg_distance < 1000 THEN 0
            WHEN avg_distance < 2000 THEN 1000
            WHEN avg_distance < 3000 THEN 2000
            WHEN avg_distance < 4000 THEN 3000
            WHEN avg_distance < 5000 THEN 4000
            WHEN avg_distance < 6000 THEN 5000
            ELSE 6000
        END AS distance_range
    FROM pairs
)
SELECT COUNT(*) AS pair_count
FROM binned
GROUP BY distance_range
ORDER BY pair_count ASC
LIMIT 1;
