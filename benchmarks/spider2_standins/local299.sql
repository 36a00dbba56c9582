WITH daily AS (
    SELECT
        customer_id,
        txn_date,
        SUM(CASE WHEN txn_type = 'deposit' THEN txn_amount ELSE -txn_amount END) AS daily_net
    FROM customer_transactions
    GROUP BY customer_id, txn_date
),
running AS (
    SELECT
        customer_id,
        txn_date,
        SUM(daily_net) OVER (PARTITION BY customer_id ORDER BY txn_date
                             ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS balance,
        ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY txn_date) AS day_index
    FROM daily
),
rolling AS (
    SELECT
        customer_id,
        txn_date,
        day_index,
        AVG(balance) OVER (PARTITION BY customer_id ORDER BY txn_date
                           ROWS BETWEEN 29 PRECEDING AND CURRENT ROW) AS avg_30
    FROM running
),
clipped AS (
    SELECT
        customer_id,
        strftime('%Y-%m', txn_date) AS month,
        CASE WHEN avg_30 < 0 THEN 0 ELSE avg_30 END AS avg_30_pos
    FROM rolling
    WHERE day_index >= 30
),
first_month AS (
    SELECT customer_id, MIN(strftime('%Y-%m', txn_date)) AS base_month
    FROM customer_transactions
    GROUP BY customer_id
),
monthly_max AS (
    SELECT c.customer_id, c.month, MAX(c.avg_30_pos) AS max_avg
    FROM clipped c
    JOIN first_month f ON f.customer_id = c.customer_id
    WHERE c.month > f.base_month
    GROUP BY c.customer_id, c.month
)
SELECT month, ROUND(SUM(max_avg), 2) AS total_max_30d_avg
FROM monthly_max
GROUP BY month
ORDER BY month;
