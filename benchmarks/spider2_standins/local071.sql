WITH june AS (
    SELECT DISTINCT country_code_2, date(insert_date) AS d
    FROM cities
    WHERE strftime('%Y-%m', insert_date) = '2022-06'
),
numbered AS (
    SELECT
        country_code_2,
        d,
        CAST(julianday(d) AS INTEGER)
          - ROW_NUMBER() OVER (PARTITION BY country_code_2 ORDER BY d) AS island
    FROM june
),
streaks AS (
    SELECT country_code_2, island, COUNT(*) AS streak_len
    FROM numbered
    GROUP BY country_code_2, island
),
best AS (
    SELECT country_code_2, MAX(streak_len) AS longest
    FROM streaks
    GROUP BY country_code_2
)
SELECT country_code_2
FROM best
WHERE longest = (SELECT MAX(longest) FROM best)
ORDER BY country_code_2;
