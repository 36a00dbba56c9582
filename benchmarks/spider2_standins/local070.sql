WITH cn_dates AS (
    SELECT DISTINCT date(insert_date) AS d
    FROM cities
    WHERE country_code_2 = 'cn'
      AND insert_date >= '2021-07-01' AND insert_date < '2021-08-01'
),
grouped AS (
    SELECT
        d,
        julianday(d) - ROW_NUMBER() OVER (ORDER BY d) AS grp
    FROM cn_dates
),
streaks AS (
    SELECT grp, MIN(d) AS start_d, MAX(d) AS end_d, COUNT(*) AS len
    FROM grouped
    GROUP BY grp
),
chosen AS (
    SELECT grp FROM streaks WHERE len = (SELECT MIN(len) FROM streaks)
    UNION
    SELECT grp FROM streaks WHERE len = (SELECT MAX(len) FROM streaks)
),
per_date AS (
    SELECT
        date(c.insert_date) AS d,
        c.city_name,
        ROW_NUMBER() OVER (PARTITION BY date(c.insert_date) ORDER BY c.city_id) AS rn
    FROM cities c
    WHERE c.country_code_2 = 'cn'
      AND c.insert_date >= '2021-07-01' AND c.insert_date < '2021-08-01'
)
SELECT
    p.d AS insert_date,
    UPPER(SUBSTR(p.city_name, 1, 1)) || LOWER(SUBSTR(p.city_name, 2)) AS city_name
FROM per_date p
JOIN grouped g ON g.d = p.d
WHERE p.rn = 1
  AND g.grp IN (SELECT grp FROM chosen)
ORDER BY p.d;
