WITH sales_2021 AS (
    SELECT
        p.division,
        p.product_code,
        p.product,
        SUM(s.sold_quantity) AS total_qty
    FROM hardware_fact_sales_monthly s
    JOIN hardware_dim_product p ON s.product_code = p.product_code
    WHERE strftime('%Y', s.date) = '2021'
    GROUP BY p.division, p.product_code, p.product
),
ranked AS (
    SELECT
        division,
        product_code,
        product,
        total_qty,
        DENSE_RANK() OVER (PARTITION BY division ORDER BY total_qty DESC) AS rnk
    FROM sales_2021
)
SELECT division, ROUND(AVG(total_qty), 2) AS avg_top3_quantity
FROM ranked
WHERE rnk <= 3
GROUP BY division
ORDER BY division;
