WITH ball_runs AS (
    SELECT
        b.match_id, b.innings_no, b.over_id, b.ball_id, b.bowler,
        COALESCE(s.runs_scored, 0) + COALESCE(e.extra_runs, 0) AS runs
    FROM ball_by_ball b
    LEFT JOIN batsman_scored s
      ON s.match_id = b.match_id AND s.over_id = b.over_id
     AND s.ball_id = b.ball_id AND s.innings_no = b.innings_no
    LEFT JOIN extra_runs e
      ON e.match_id = b.match_id AND e.over_id = b.over_id
     AND e.ball_id = b.ball_id AND e.innings_no = b.innings_no
),
over_runs AS (
    SELECT match_id, innings_no, over_id, bowler, SUM(runs) AS over_total
    FROM ball_runs
    GROUP BY match_id, innings_no, over_id, bowler
),
match_max AS (
    SELECT
        o.*,
        RANK() OVER (PARTITION BY match_id ORDER BY over_total DESC) AS rnk
    FROM over_runs o
),
top_overs AS (
    SELECT match_id, bowler, over_total
    FROM match_max
    WHERE rnk = 1
),
bowler_best AS (
    SELECT
        bowler, match_id, over_total,
        ROW_NUMBER() OVER (PARTITION BY bowler ORDER BY over_total DESC, match_id) AS rn
    FROM top_overs
)
SELECT p.player_name AS bowler_name, bb.match_id, bb.over_total AS max_runs_in_over
FROM bowler_best bb
JOIN player p ON p.player_id = bb.bowler
WHERE bb.rn = 1
ORDER BY bb.over_total DESC, p.player_name
LIMIT 3;
