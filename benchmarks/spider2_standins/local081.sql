WITH customer_totals AS (
    SELECT
        o.customerid,
        SUM(od.unitprice * od.quantity) AS total_spent
    FROM orders o
    JOIN order_details od ON o.orderid = od.orderid
    WHERE strftime('%Y', o.orderdate) = '1998'
    GROUP BY o.customerid
),
grouped AS (
    SELECT
        ct.customerid,
        ct.total_spent,
        g.groupname
    FROM customer_totals ct
    JOIN customergroupthreshold g
      ON ct.total_spent >= g.rangebottom
     AND ct.total_spent < g.rangetop
)
SELECT
    groupname,
    COUNT(*) AS customer_count,
    ROUND(100.0 * COUNT(*) / (SELECT COUNT(*) FROM customer_totals), 2) AS pct_of_customers
FROM grouped
GROUP BY groupname
ORDER BY customer_count DESC;
