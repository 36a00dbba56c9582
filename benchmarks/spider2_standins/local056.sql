WITH monthly AS (
    SELECT
        customer_id,
        strftime('%Y-%m', payment_date) AS ym,
        SUM(amount) AS month_amount
    FROM payment
    GROUP BY customer_id, strftime('%Y-%m', payment_date)
),
changes AS (
    SELECT
        customer_id,
        ym,
        month_amount - LAG(month_amount) OVER (PARTITION BY customer_id ORDER BY ym) AS delta
    FROM monthly
),
avg_change AS (
    SELECT customer_id, AVG(delta) AS avg_delta
    FROM changes
    WHERE delta IS NOT NULL
    GROUP BY customer_id
)
SELECT c.first_name || ' ' || c.last_name AS full_name
FROM avg_change a
JOIN customer c ON c.customer_id = a.customer_id
ORDER BY a.avg_delta DESC
LIMIT 1;
