WITH RECURSIVE months(m) AS (
    SELECT 1
    UNION ALL
    SELECT m + 1 FROM months WHERE m < 12
),
delivered AS (
    SELECT
        CAST(strftime('%m', order_delivered_customer_date) AS INTEGER) AS m,
        strftime('%Y', order_delivered_customer_date) AS y
    FROM olist_orders
    WHERE order_status = 'delivered'
      AND order_delivered_customer_date IS NOT NULL
)
SELECT
    printf('%02d', months.m) AS month,
    SUM(CASE WHEN d.y = '2016' THEN 1 ELSE 0 END) AS "2016",
    SUM(CASE WHEN d.y = '2017' THEN 1 ELSE 0 END) AS "2017",
    SUM(CASE WHEN d.y = '2018' THEN 1 ELSE 0 END) AS "2018"
FROM months
LEFT JOIN delivered d ON d.m = months.m
GROUP BY months.m
ORDER BY months.m;
