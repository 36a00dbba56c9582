WITH firsts AS (
    SELECT t.id_bioguide, MIN(t.term_start) AS first_start
    FROM legislators_terms t
    GROUP BY t.id_bioguide
),
la_men AS (
    SELECT DISTINCT l.id_bioguide, f.first_start
    FROM legislators l
    JOIN firsts f ON f.id_bioguide = l.id_bioguide
    JOIN legislators_terms t ON t.id_bioguide = l.id_bioguide
    WHERE l.gender = 'M' AND t.state = 'LA'
),
year_ends AS (
    SELECT
        m.id_bioguide,
        m.first_start,
        t.term_start,
        t.term_end,
        CAST(strftime('%Y', t.term_start) AS INTEGER) AS y_from,
        CAST(strftime('%Y', t.term_end) AS INTEGER) AS y_to
    FROM la_men m
    JOIN legislators_terms t ON t.id_bioguide = m.id_bioguide
),
serving AS (
    SELECT
        y.id_bioguide,
        y.y_from + o.n AS yr,
        y.first_start
    FROM year_ends y
    JOIN (SELECT 0 AS n UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3
          UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6) o
      ON y.y_from + o.n <= y.y_to
    WHERE printf('%04d-12-31', y.y_from + o.n) BETWEEN y.term_start AND y.term_end
)
SELECT
    yr - CAST(strftime('%Y', first_start) AS INTEGER) AS years_since_first,
    COUNT(DISTINCT id_bioguide) AS legislators_serving
FROM serving
WHERE yr - CAST(strftime('%Y', first_start) AS INTEGER) > 30
  AND yr - CAST(strftime('%Y', first_start) AS INTEGER) < 50
GROUP BY years_since_first
HAVING COUNT(DISTINCT id_bioguide) > 0
ORDER BY years_since_first;
