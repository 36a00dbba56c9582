WITH seller_items AS (
    SELECT
        oi.seller_id,
        oi.order_id,
        oi.product_id,
        oi.price,
        oi.shipping_limit_date,
        o.order_purchase_timestamp,
        o.order_delivered_carrier_date
    FROM order_items oi
    JOIN orders o ON o.order_id = oi.order_id
),
seller_stats AS (
    SELECT
        seller_id,
        COUNT(*) AS total_quantity,
        ROUND(SUM(price), 2) AS total_sales,
        ROUND(AVG(price), 2) AS avg_item_price,
        ROUND(AVG(julianday(order_delivered_carrier_date) - julianday(order_purchase_timestamp)), 2) AS avg_packing_days
    FROM seller_items
    GROUP BY seller_id
    HAVING COUNT(*) > 100
),
seller_reviews AS (
    SELECT oi.seller_id, ROUND(AVG(r.review_score), 2) AS avg_review
    FROM order_items oi
    JOIN order_reviews r ON r.order_id = oi.order_id
    GROUP BY oi.seller_id
),
category_volume AS (
    SELECT
        oi.seller_id,
        COALESCE(t.product_category_name_english, p.product_category_name, 'unknown') AS category_en,
        COUNT(*) AS qty,
        ROW_NUMBER() OVER (PARTITION BY oi.seller_id ORDER BY COUNT(*) DESC) AS rn
    FROM order_items oi
    LEFT JOIN products p ON p.product_id = oi.product_id
    LEFT JOIN product_category_name_translation t ON t.product_category_name = p.product_category_name
    GROUP BY oi.seller_id, COALESCE(t.product_category_name_english, p.product_category_name, 'unknown')
)
SELECT
    s.seller_id,
    s.total_quantity,
    s.total_sales,
    s.avg_item_price,
    rv.avg_review,
    s.avg_packing_days,
    cv.category_en AS top_category
FROM seller_stats s
LEFT JOIN seller_reviews rv ON rv.seller_id = s.seller_id
LEFT JOIN category_volume cv ON cv.seller_id = s.seller_id AND cv.rn = 1
ORDER BY s.total_sales DESC;
