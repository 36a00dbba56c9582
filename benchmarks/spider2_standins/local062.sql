WITH cust_profit AS (
    SELECT
        s.cust_id,
        SUM(s.quantity_sold * (c.unit_price - c.unit_cost)) AS profit
    FROM sales s
    JOIN customers cu ON cu.cust_id = s.cust_id
    JOIN countries co ON co.country_id = cu.country_id
    JOIN costs c
      ON c.prod_id = s.prod_id AND c.time_id = s.time_id
     AND c.promo_id = s.promo_id AND c.channel_id = s.channel_id
    WHERE co.country_iso_code = 'IT'
      AND s.time_id >= '2021-12-01' AND s.time_id < '2022-01-01'
    GROUP BY s.cust_id
),
range_ AS (
    SELECT MIN(profit) AS lo, MAX(profit) AS hi FROM cust_profit
),
bucketed AS (
    SELECT
        cp.cust_id,
        cp.profit,
        CASE
            WHEN r.hi = r.lo THEN 1
            ELSE MIN(10, CAST((cp.profit - r.lo) * 10 / (r.hi - r.lo) AS INTEGER) + 1)
        END AS bucket
    FROM cust_profit cp CROSS JOIN range_ r
)
SELECT
    bucket,
    COUNT(*) AS num_customers,
    ROUND(MIN(profit), 2) AS min_profit,
    ROUND(MAX(profit), 2) AS max_profit
FROM bucketed
GROUP BY bucket
ORDER BY bucket;
