WITH RECURSIVE first_terms AS (
    SELECT id_bioguide, MIN(term_start) AS first_start
    FROM legislators_terms
    GROUP BY id_bioguide
),
cohort AS (
    SELECT id_bioguide, first_start
    FROM first_terms
    WHERE first_start BETWEEN '1917-01-01' AND '1999-12-31'
),
periods(period) AS (
    SELECT 1
    UNION ALL
    SELECT period + 1 FROM periods WHERE period < 20
),
retained AS (
    SELECT
        p.period,
        COUNT(DISTINCT c.id_bioguide) AS still_in_office
    FROM periods p
    JOIN cohort c
    JOIN legislators_terms t
      ON t.id_bioguide = c.id_bioguide
    WHERE (CAST(strftime('%Y', c.first_start) AS INTEGER) + p.period - 1) || '-12-31'
              BETWEEN t.term_start AND t.term_end
    GROUP BY p.period
)
SELECT
    p.period,
    (SELECT COUNT(*) FROM cohort) AS cohort_size,
    COALESCE(r.still_in_office, 0) AS retained,
    ROUND(COALESCE(r.still_in_office, 0) * 1.0 / NULLIF((SELECT COUNT(*) FROM cohort), 0), 4)
        AS retention_rate
FROM periods p
LEFT JOIN retained r ON r.period = p.period
ORDER BY p.period;
