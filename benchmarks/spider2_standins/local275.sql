WITH sales AS (
    SELECT
        product_id,
        mth,
        qty,
        ROW_NUMBER() OVER (PARTITION BY product_id ORDER BY mth) AS t
    FROM monthly_sales
    WHERE mth >= '2016-01-01'
),
cma AS (
    SELECT
        product_id,
        mth,
        qty,
        t,
        (AVG(qty) OVER (PARTITION BY product_id ORDER BY mth ROWS BETWEEN 5 PRECEDING AND 6 FOLLOWING)
         + AVG(qty) OVER (PARTITION BY product_id ORDER BY mth ROWS BETWEEN 6 PRECEDING AND 5 FOLLOWING)) / 2.0
            AS centered_avg
    FROM sales
),
ratios AS (
    SELECT
        product_id,
        mth,
        CAST(qty AS REAL) / NULLIF(centered_avg, 0) AS ratio
    FROM cma
    WHERE t BETWEEN 7 AND 30
)
SELECT p.id, p.name
FROM products p
JOIN ratios r ON r.product_id = p.id
WHERE strftime('%Y', r.mth) = '2017'
GROUP BY p.id, p.name
HAVING COUNT(*) = 12 AND MIN(r.ratio) > 2
ORDER BY p.id;
