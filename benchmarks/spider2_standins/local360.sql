WITH first_hit AS (
    SELECT session, MIN(stamp) AS first_stamp
    FROM activity_log
    WHERE path IN ('/detail', '/complete')
    GROUP BY session
),
pre_counts AS (
    SELECT a.session, COUNT(*) AS n_events
    FROM activity_log a
    JOIN first_hit f ON f.session = a.session
    WHERE a.stamp < f.first_stamp
      AND a.search_type IS NOT NULL
      AND TRIM(a.search_type) <> ''
    GROUP BY a.session
),
min_count AS (
    SELECT MIN(n_events) AS m FROM pre_counts
)
SELECT DISTINCT p.session, a.path, a.search_type
FROM pre_counts p
JOIN activity_log a ON a.session = p.session
WHERE p.n_events = (SELECT m FROM min_count)
  AND a.search_type IS NOT NULL AND a.search_type <> ''
ORDER BY p.session, a.path;
