WITH first_purchase AS (
    SELECT customer_id, MIN(payment_date) AS first_date
    FROM payment
    GROUP BY customer_id
),
per_customer AS (
    SELECT
        p.customer_id,
        SUM(p.amount) AS ltv,
        SUM(CASE WHEN (julianday(p.payment_date) - julianday(f.first_date)) * 24 * 60 * 60 < 7 * 24 * 60 * 60
                 THEN p.amount ELSE 0 END) AS sales_7d,
        SUM(CASE WHEN (julianday(p.payment_date) - julianday(f.first_date)) * 86400 < 30 * 86400
                 THEN p.amount ELSE 0 END) AS sales_30d
    FROM payment p
    JOIN first_purchase f ON p.customer_id = f.customer_id
    GROUP BY p.customer_id
    HAVING SUM(p.amount) > 0
)
SELECT
    ROUND(AVG(100.0 * sales_7d / ltv), 2) AS avg_pct_first_7_days,
    ROUND(AVG(100.0 * sales_30d / ltv), 2) AS avg_pct_first_30_days,
    ROUND(AVG(ltv), 2) AS avg_ltv
FROM per_customer;
