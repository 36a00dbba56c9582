WITH player_match_runs AS (
    SELECT pm.player_id, pm.match_id, COALESCE(SUM(s.runs_scored), 0) AS runs
    FROM player_match pm
    LEFT JOIN ball_by_ball b
      ON b.match_id = pm.match_id AND b.striker = pm.player_id
    LEFT JOIN batsman_scored s
      ON s.match_id = b.match_id AND s.over_id = b.over_id
     AND s.ball_id = b.ball_id AND s.innings_no = b.innings_no
    GROUP BY pm.player_id, pm.match_id
),
player_avg AS (
    SELECT player_id, AVG(runs) AS avg_runs
    FROM player_match_runs
    GROUP BY player_id
)
SELECT
    p.country_name,
    ROUND(AVG(pa.avg_runs), 2) AS country_batting_avg
FROM player_avg pa
JOIN player p ON p.player_id = pa.player_id
WHERE p.country_name IS NOT NULL
GROUP BY p.country_name
ORDER BY country_batting_avg DESC
LIMIT 5;
