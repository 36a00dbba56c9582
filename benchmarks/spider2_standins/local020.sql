WITH runs_conceded AS (
    SELECT
        b.bowler,
        SUM(COALESCE(s.runs_scored, 0)) + SUM(COALESCE(e.extra_runs, 0)) AS runs
    FROM ball_by_ball b
    LEFT JOIN batsman_scored s
      ON s.match_id = b.match_id AND s.over_id = b.over_id
     AND s.ball_id = b.ball_id AND s.innings_no = b.innings_no
    LEFT JOIN extra_runs e
      ON e.match_id = b.match_id AND e.over_id = b.over_id
     AND e.ball_id = b.ball_id AND e.innings_no = b.innings_no
    GROUP BY b.bowler
),
wickets AS (
    SELECT b.bowler, COUNT(*) AS wkts
    FROM wicket_taken w
    JOIN ball_by_ball b
      ON b.match_id = w.match_id AND b.over_id = w.over_id
     AND b.ball_id = w.ball_id AND b.innings_no = w.innings_no
    WHERE LOWER(w.kind_out) NOT IN ('run out', 'retired hurt', 'obstructing the field')
    GROUP BY b.bowler
)
SELECT p.player_name, ROUND(CAST(r.runs AS REAL) / w.wkts, 2) AS bowling_average
FROM runs_conceded r
JOIN wickets w ON w.bowler = r.bowler
JOIN player p ON p.player_id = r.bowler
WHERE w.wkts > 0
ORDER BY bowling_average ASC
LIMIT 1;
