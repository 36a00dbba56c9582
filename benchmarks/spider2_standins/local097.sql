WITH years AS (
    SELECT DISTINCT CAST(SUBSTR(TRIM(year), -4) AS INTEGER) AS yr
    FROM Movie
    WHERE year IS NOT NULL
),
movie_years AS (
    SELECT MID, CAST(SUBSTR(TRIM(year), -4) AS INTEGER) AS yr
    FROM Movie
),
windows AS (
    SELECT y.yr AS start_year, COUNT(m.MID) AS total
    FROM years y
    JOIN movie_years m
      ON m.yr >= y.yr AND m.yr < y.yr + 10
    GROUP BY y.yr
)
SELECT start_year, total
FROM windows
ORDER BY total DESC, start_year
LIMIT 1;
