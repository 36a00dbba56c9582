WITH yearly AS (
    SELECT
        CAST(strftime('%Y', collision_date) AS INTEGER) AS yr,
        pcf_violation_category,
        COUNT(*) AS n
    FROM collisions
    WHERE pcf_violation_category IS NOT NULL
      AND strftime('%Y', collision_date) IN ('2011', '2021')
    GROUP BY 1, 2
),
totals AS (
    SELECT CAST(strftime('%Y', collision_date) AS INTEGER) AS yr, COUNT(*) AS total
    FROM collisions
    WHERE strftime('%Y', collision_date) IN ('2011', '2021')
    GROUP BY 1
),
top2021 AS (
    SELECT pcf_violation_category
    FROM yearly
    WHERE yr = 2021
    ORDER BY n DESC
    LIMIT 1
),
shares AS (
    SELECT y.yr, 100.0 * y.n / t.total AS share_pct
    FROM yearly y
    JOIN totals t ON t.yr = y.yr
    WHERE y.pcf_violation_category = (SELECT pcf_violation_category FROM top2021)
)
SELECT
    ROUND(
        COALESCE((SELECT share_pct FROM shares WHERE yr = 2011), 0)
      - COALESCE((SELECT share_pct FROM shares WHERE yr = 2021), 0), 4) AS pct_point_decrease;
