WITH delivered_items AS (
    SELECT oi.seller_id, oi.order_id, oi.price, oi.freight_value, c.customer_unique_id
    FROM olist_order_items oi
    JOIN olist_orders o ON o.order_id = oi.order_id
    JOIN olist_customers c ON c.customer_id = o.customer_id
    WHERE o.order_status = 'delivered'
),
by_customers AS (
    SELECT seller_id, COUNT(DISTINCT customer_unique_id) AS val
    FROM delivered_items GROUP BY seller_id ORDER BY val DESC LIMIT 1
),
by_profit AS (
    SELECT seller_id, ROUND(SUM(price - freight_value), 2) AS val
    FROM delivered_items GROUP BY seller_id ORDER BY SUM(price - freight_value) DESC LIMIT 1
),
by_orders AS (
    SELECT seller_id, COUNT(DISTINCT order_id) AS val
    FROM delivered_items GROUP BY seller_id ORDER BY val DESC LIMIT 1
),
by_five_star AS (
    SELECT d.seller_id, COUNT(DISTINCT r.review_id) AS val
    FROM delivered_items d
    JOIN olist_order_reviews r ON r.order_id = d.order_id
    WHERE r.review_score = 5
    GROUP BY d.seller_id ORDER BY val DESC LIMIT 1
)
SELECT 'Highest number of distinct customers' AS achievement, seller_id, val FROM by_customers
UNION ALL
SELECT 'Highest profit', seller_id, val FROM by_profit
UNION ALL
SELECT 'Highest number of distinct orders', seller_id, val FROM by_orders
UNION ALL
SELECT 'Most 5-star ratings', seller_id, val FROM by_five_star;
