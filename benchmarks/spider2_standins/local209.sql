WITH store_orders AS (
    SELECT s.store_id, s.store_name, COUNT(o.order_id) AS total_orders
    FROM orders o
    JOIN stores s ON o.store_id = s.store_id
    GROUP BY s.store_id, s.store_name
),
top_store AS (
    SELECT store_id, store_name, total_orders
    FROM store_orders
    ORDER BY total_orders DESC
    LIMIT 1
),
delivered AS (
    SELECT COUNT(DISTINCT o.order_id) AS delivered_orders
    FROM orders o
    JOIN deliveries d ON d.delivery_order_id = o.delivery_order_id
    WHERE o.store_id = (SELECT store_id FROM top_store)
      AND UPPER(d.delivery_status) = 'DELIVERED'
)
SELECT
    t.store_name,
    t.total_orders,
    d.delivered_orders,
    ROUND(1.0 * d.delivered_orders / NULLIF(t.total_orders, 0), 4) AS delivered_ratio
FROM top_store t
CROSS JOIN delivered d;
