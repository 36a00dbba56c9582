WITH driver_totals AS (
    SELECT r.year, res.driver_id, SUM(res.points) AS pts
    FROM results res
    JOIN races r ON r.race_id = res.race_id
    GROUP BY r.year, res.driver_id
),
constructor_totals AS (
    SELECT r.year, res.constructor_id, SUM(res.points) AS pts
    FROM results res
    JOIN races r ON r.race_id = res.race_id
    GROUP BY r.year, res.constructor_id
),
best_driver AS (
    SELECT year, MAX(pts) AS max_driver_pts FROM driver_totals GROUP BY year
),
best_constructor AS (
    SELECT year, MAX(pts) AS max_constructor_pts FROM constructor_totals GROUP BY year
)
SELECT d.year, d.max_driver_pts + c.max_constructor_pts AS combined_total
FROM best_driver d
JOIN best_constructor c ON c.year = d.year
ORDER BY combined_total ASC, d.year
LIMIT 3;
