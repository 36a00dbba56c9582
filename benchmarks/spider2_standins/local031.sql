WITH delivered AS (
    SELECT
        strftime('%Y', order_delivered_customer_date) AS yr,
        strftime('%m', order_delivered_customer_date) AS mo
    FROM olist_orders
    WHERE order_status = 'delivered'
      AND strftime('%Y', order_delivered_customer_date) IN ('2016', '2017', '2018')
),
annual AS (
    SELECT yr, COUNT(*) AS n FROM delivered GROUP BY yr
),
lowest_year AS (
    SELECT yr FROM annual ORDER BY n ASC, yr LIMIT 1
),
monthly AS (
    SELECT mo, COUNT(*) AS n
    FROM delivered
    WHERE yr = (SELECT yr FROM lowest_year)
    GROUP BY mo
)
SELECT MAX(n) AS highest_monthly_volume
FROM monthly;
