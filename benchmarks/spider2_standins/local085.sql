WITH emp_orders AS (
    SELECT
        employeeid,
        COUNT(*) AS total_orders,
        SUM(CASE WHEN shippeddate IS NOT NULL AND shippeddate >= requireddate THEN 1 ELSE 0 END) AS late_orders
    FROM orders
    GROUP BY employeeid
    HAVING COUNT(*) > 50
)
SELECT
    employeeid,
    late_orders,
    ROUND(100.0 * late_orders / total_orders, 2) AS late_pct
FROM emp_orders
ORDER BY late_pct DESC, employeeid
LIMIT 3;
