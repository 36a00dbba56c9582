WITH actor_years AS (
    SELECT DISTINCT TRIM(c.PID) AS pid, CAST(SUBSTR(m.year, -4) AS INTEGER) AS yr
    FROM M_Cast c
    JOIN Movie m ON TRIM(c.MID) = TRIM(m.MID)
),
gaps AS (
    SELECT
        pid,
        yr,
        LEAD(yr) OVER (PARTITION BY pid ORDER BY yr) AS next_yr
    FROM actor_years
),
max_gap AS (
    SELECT pid, MAX(COALESCE(next_yr - yr, 0)) AS biggest_gap
    FROM gaps
    GROUP BY pid
)
SELECT COUNT(*) AS num_actors
FROM max_gap
WHERE biggest_gap <= 4;
