WITH combined AS (
    SELECT
        t.tree_id,
        t.boroname,
        COALESCE(t.zipcode, i.zipcode) AS zipcode,
        i.Estimate_Median_income,
        i.Estimate_Mean_income
    FROM trees t
    LEFT JOIN income_trees i ON t.zipcode = i.zipcode
    UNION ALL
    SELECT
        NULL AS tree_id,
        NULL AS boroname,
        i.zipcode,
        i.Estimate_Median_income,
        i.Estimate_Mean_income
    FROM income_trees i
    WHERE NOT EXISTS (SELECT 1 FROM trees t2 WHERE t2.zipcode = i.zipcode)
),
filtered AS (
    SELECT *
    FROM combined
    WHERE Estimate_Median_income > 0
      AND Estimate_Mean_income > 0
      AND boroname IS NOT NULL
      AND TRIM(boroname) <> ''
),
by_borough AS (
    SELECT
        boroname,
        COUNT(tree_id) AS tree_count,
        AVG(Estimate_Mean_income) AS avg_mean_income
    FROM filtered
    GROUP BY boroname
)
SELECT boroname, tree_count, ROUND(avg_mean_income, 2) AS avg_mean_income
FROM by_borough
ORDER BY tree_count DESC
LIMIT 3;
