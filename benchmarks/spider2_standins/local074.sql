WITH RECURSIVE monthly_net AS (
    SELECT
        customer_id,
        strftime('%Y-%m-01', txn_date) AS month_start,
        SUM(CASE WHEN txn_type = 'deposit' THEN txn_amount ELSE -txn_amount END) AS net_change
    FROM customer_transactions
    GROUP BY customer_id, strftime('%Y-%m-01', txn_date)
),
bounds AS (
    SELECT MIN(month_start) AS first_month, MAX(month_start) AS last_month
    FROM monthly_net
),
all_months(month_start) AS (
    SELECT first_month FROM bounds
    UNION ALL
    SELECT date(month_start, '+1 month')
    FROM all_months, bounds
    WHERE month_start < bounds.last_month
),
customers AS (
    SELECT DISTINCT customer_id FROM customer_transactions
),
grid AS (
    SELECT c.customer_id, m.month_start
    FROM customers c CROSS JOIN all_months m
)
SELECT
    g.customer_id,
    g.month_start AS month,
    COALESCE(n.net_change, 0) AS monthly_change,
    SUM(COALESCE(n.net_change, 0)) OVER (
        PARTITION BY g.customer_id
        ORDER BY g.month_start
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) AS closing_balance
FROM grid g
LEFT JOIN monthly_net n
    ON n.customer_id = g.customer_id
   AND n.month_start = g.month_start
ORDER BY g.customer_id, g.month_start;
