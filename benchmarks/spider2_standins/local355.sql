WITH appearances AS (
    SELECT
        r.year, r.round, res.driver_id, res.constructor_id,
        LAG(r.round) OVER (PARTITION BY res.driver_id, r.year ORDER BY r.round) AS prev_round,
        LAG(res.constructor_id) OVER (PARTITION BY res.driver_id, r.year ORDER BY r.round) AS prev_constructor
    FROM results res
    JOIN races r ON r.race_id = res.race_id
),
gaps AS (
    SELECT
        year,
        driver_id,
        prev_round + 1 AS first_missed,
        round - 1 AS last_missed,
        round - prev_round - 1 AS missed,
        prev_constructor,
        constructor_id AS next_constructor
    FROM appearances
    WHERE prev_round IS NOT NULL AND round - prev_round > 1
),
yearly_missed AS (
    SELECT year, driver_id, SUM(missed) AS total_missed
    FROM gaps
    GROUP BY year, driver_id
)
SELECT
    ROUND(AVG(g.first_missed), 2) AS avg_first_round_missed,
    ROUND(AVG(g.last_missed), 2) AS avg_last_round_missed
FROM gaps g
JOIN yearly_missed y ON y.year = g.year AND y.driver_id = g.driver_id
WHERE y.total_missed < 3
  AND g.prev_constructor <> g.next_constructor;
