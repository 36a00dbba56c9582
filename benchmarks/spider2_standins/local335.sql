WITH season_points AS (
    SELECT r.year, res.driver_id, res.constructor_id, SUM(res.points) AS pts
    FROM results res
    JOIN races r ON r.race_id = res.race_id
    WHERE r.year >= 2001
    GROUP BY r.year, res.driver_id, res.constructor_id
    HAVING SUM(res.points) > 0
),
season_min AS (
    SELECT year, MIN(pts) AS min_pts
    FROM season_points
    GROUP BY year
),
lowest AS (
    SELECT DISTINCT sp.year, sp.constructor_id
    FROM season_points sp
    JOIN season_min sm ON sm.year = sp.year AND sm.min_pts = sp.pts
)
SELECT c.name AS constructor_name, COUNT(*) AS seasons_with_lowest_scorer
FROM lowest l
JOIN constructors c ON c.constructor_id = l.constructor_id
GROUP BY c.constructor_id, c.name
ORDER BY seasons_with_lowest_scorer DESC, c.name
LIMIT 5;
