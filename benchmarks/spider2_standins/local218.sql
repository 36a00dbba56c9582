WITH team_goals AS (
    SELECT season, home_team_api_id AS team_api_id, home_team_goal AS goals FROM Match
    UNION ALL
    SELECT season, away_team_api_id, away_team_goal FROM Match
),
season_totals AS (
    SELECT team_api_id, season, SUM(goals) AS season_goals
    FROM team_goals
    GROUP BY team_api_id, season
),
best AS (
    SELECT team_api_id, MAX(season_goals) AS max_goals
    FROM season_totals
    GROUP BY team_api_id
),
ordered AS (
    SELECT max_goals,
           ROW_NUMBER() OVER (ORDER BY max_goals) AS rn,
           COUNT(*) OVER () AS n
    FROM best
)
SELECT AVG(max_goals) AS median_max_goals
FROM ordered
WHERE rn BETWEEN n / 2.0 AND n / 2.0 + 1;
