WITH monthly AS (
    SELECT
        CAST(strftime('%Y', insert_date) AS INTEGER) AS yr,
        CAST(strftime('%m', insert_date) AS INTEGER) AS mon,
        COUNT(*) AS cities_added
    FROM cities
    WHERE strftime('%Y', insert_date) BETWEEN '2021' AND '2023'
      AND strftime('%m', insert_date) IN ('04', '05', '06')
    GROUP BY 1, 2
),
running AS (
    SELECT
        yr,
        mon,
        cities_added,
        SUM(cities_added) OVER (PARTITION BY mon ORDER BY yr
                                ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running_total
    FROM monthly
),
growth AS (
    SELECT
        yr,
        mon,
        cities_added,
        running_total,
        LAG(cities_added) OVER (PARTITION BY mon ORDER BY yr) AS prev_added,
        LAG(running_total) OVER (PARTITION BY mon ORDER BY yr) AS prev_running
    FROM running
)
SELECT
    yr AS year,
    CASE mon WHEN 4 THEN 'April' WHEN 5 THEN 'May' ELSE 'June' END AS month,
    cities_added AS total_cities_added,
    running_total,
    ROUND((cities_added - prev_added) * 100.0 / NULLIF(prev_added, 0), 2) AS monthly_growth_pct,
    ROUND((running_total - prev_running) * 100.0 / NULLIF(prev_running, 0), 2) AS running_growth_pct
FROM growth
WHERE yr IN (2022, 2023)
ORDER BY yr, mon;
