WITH monthly AS (
    SELECT
        customer_id,
        CAST(strftime('%m', txn_date) AS INTEGER) AS month_num,
        SUM(CASE
                WHEN txn_type = 'deposit' THEN txn_amount
                WHEN txn_type = 'withdrawal' THEN -txn_amount
                ELSE 0
            END) AS month_end_balance
    FROM customer_transactions
    WHERE strftime('%Y', txn_date) = '2020'
    GROUP BY customer_id, CAST(strftime('%m', txn_date) AS INTEGER)
),
positive_counts AS (
    SELECT
        month_num,
        SUM(CASE WHEN month_end_balance > 0 THEN 1 ELSE 0 END) AS positive_customers,
        AVG(month_end_balance) AS avg_balance
    FROM monthly
    GROUP BY month_num
),
ranked AS (
    SELECT
        month_num,
        positive_customers,
        avg_balance,
        ROW_NUMBER() OVER (ORDER BY positive_customers DESC, month_num) AS rn_high,
        ROW_NUMBER() OVER (ORDER BY positive_customers ASC, month_num) AS rn_low
    FROM positive_counts
)
SELECT
    MAX(CASE WHEN rn_high = 1 THEN month_num END) AS highest_month,
    MAX(CASE WHEN rn_low = 1 THEN month_num END) AS lowest_month,
    ROUND(MAX(CASE WHEN rn_high = 1 THEN avg_balance END), 2) AS highest_month_avg,
    ROUND(MAX(CASE WHEN rn_low = 1 THEN avg_balance END), 2) AS lowest_month_avg,
    ROUND(MAX(CASE WHEN rn_high = 1 THEN avg_balance END)
          - MAX(CASE WHEN rn_low = 1 THEN avg_balance END), 2) AS avg_difference
FROM ranked
WHERE rn_high = 1 OR rn_low = 1;
