WITH durations AS (
    SELECT
        TrackId,
        Milliseconds / 60000.0 AS minutes,
        AVG(Milliseconds) OVER () AS avg_ms,
        MIN(Milliseconds) OVER () AS min_ms,
        MAX(Milliseconds) OVER () AS max_ms,
        Milliseconds
    FROM Track
),
classified AS (
    SELECT
        TrackId,
        minutes,
        CASE
            WHEN Milliseconds < (min_ms + avg_ms) / 2.0 THEN 'Short'
            WHEN Milliseconds < (avg_ms + max_ms) / 2.0 THEN 'Medium'
            ELSE 'Long'
        END AS category
    FROM durations
),
revenue AS (
    SELECT TrackId, SUM(UnitPrice * Quantity) AS track_revenue
    FROM InvoiceLine
    GROUP BY TrackId
)
SELECT
    c.category,
    ROUND(MIN(c.minutes), 2) AS min_minutes,
    ROUND(MAX(c.minutes), 2) AS max_minutes,
    ROUND(SUM(COALESCE(r.track_revenue, 0)), 2) AS total_revenue
FROM classified c
LEFT JOIN revenue r ON r.TrackId = c.TrackId
GROUP BY c.category
ORDER BY c.category;
