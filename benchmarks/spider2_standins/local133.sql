WITH scores AS (
    SELECT
        StyleID,
        SUM(CASE PreferenceSeq WHEN 1 THEN 3 WHEN 2 THEN 2 WHEN 3 THEN 1 ELSE 0 END) AS total_score
    FROM Musical_Preferences
    GROUP BY StyleID
    HAVING COUNT(*) >= 1
),
avg_score AS (
    SELECT AVG(total_score) AS mean_score FROM scores
)
SELECT
    ms.StyleName,
    s.total_score,
    ROUND(ABS(s.total_score - a.mean_score), 2) AS abs_diff_from_avg
FROM scores s
JOIN Musical_Styles ms ON ms.StyleID = s.StyleID
CROSS JOIN avg_score a
ORDER BY s.total_score DESC, ms.StyleName;
