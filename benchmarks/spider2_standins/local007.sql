WITH spans AS (
    SELECT
        player_id,
        CAST(strftime('%Y', final_game) AS INTEGER) - CAST(strftime('%Y', debut) AS INTEGER) AS years_diff,
        CAST(strftime('%m', final_game) AS INTEGER) - CAST(strftime('%m', debut) AS INTEGER) AS months_diff,
        CAST(strftime('%d', final_game) AS INTEGER) - CAST(strftime('%d', debut) AS INTEGER) AS days_diff
    FROM player
    WHERE debut IS NOT NULL
      AND final_game IS NOT NULL
      AND debut <> ''
      AND final_game <> ''
),
career AS (
    SELECT
        player_id,
        ROUND(ABS(years_diff), 2)
          + ROUND(ABS(months_diff) / 12.0, 2)
          + ROUND(ABS(days_diff) / 365.0, 2) AS career_span
    FROM spans
)
SELECT CAST(ROUND(AVG(career_span), 2) AS REAL) AS avg_career_span
FROM career;
