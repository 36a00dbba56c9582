WITH ball_runs AS (
    SELECT
        b.match_id, b.innings_no, b.striker, b.non_striker,
        COALESCE(s.runs_scored, 0) AS runs
    FROM ball_by_ball b
    LEFT JOIN batsman_scored s
      ON s.match_id = b.match_id AND s.over_id = b.over_id
     AND s.ball_id = b.ball_id AND s.innings_no = b.innings_no
),
pair_runs AS (
    SELECT
        match_id,
        MIN(striker, non_striker) AS p_low,
        MAX(striker, non_striker) AS p_high,
        SUM(CASE WHEN striker = MIN(striker, non_striker) THEN runs ELSE 0 END) AS low_runs,
        SUM(CASE WHEN striker = MAX(striker, non_striker) THEN runs ELSE 0 END) AS high_runs,
        SUM(runs) AS partnership
    FROM ball_runs
    GROUP BY match_id, MIN(striker, non_striker), MAX(striker, non_striker)
),
ranked AS (
    SELECT *,
           DENSE_RANK() OVER (PARTITION BY match_id ORDER BY partnership DESC) AS dr
    FROM pair_runs
)
SELECT
    match_id,
    CASE WHEN high_runs >= low_runs THEN p_high ELSE p_low END AS player1_id,
    CASE WHEN high_runs >= low_runs THEN high_runs ELSE low_runs END AS player1_runs,
    CASE WHEN high_runs >= low_runs THEN p_low ELSE p_high END AS player2_id,
    CASE WHEN high_runs >= low_runs THEN low_runs ELSE high_runs END AS player2_runs,
    partnership AS partnership_runs
FROM ranked
WHERE dr = 1
ORDER BY match_id, player1_id;
