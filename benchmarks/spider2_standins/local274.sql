WITH order_lines AS (
    SELECT product_id, SUM(qty) AS qty_needed
    FROM orderlines
    WHERE order_id = 421
    GROUP BY product_id
),
stock AS (
    SELECT
        i.product_id,
        i.location_id,
        i.qty AS loc_qty,
        p.purchased,
        SUM(i.qty) OVER (PARTITION BY i.product_id ORDER BY p.purchased, i.qty, i.id
                         ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS cum_qty
    FROM inventory i
    JOIN purchases p ON p.id = i.purchase_id
    WHERE i.product_id IN (SELECT product_id FROM order_lines)
),
picks AS (
    SELECT
        s.product_id,
        s.location_id,
        CASE
            WHEN s.cum_qty <= o.qty_needed THEN s.loc_qty
            ELSE o.qty_needed - (s.cum_qty - s.loc_qty)
        END AS picked
    FROM stock s
    JOIN order_lines o ON o.product_id = s.product_id
    WHERE s.cum_qty - s.loc_qty < o.qty_needed
)
SELECT pr.name AS product_name, ROUND(AVG(pk.picked), 2) AS avg_units_picked
FROM picks pk
JOIN products pr ON pr.id = pk.product_id
GROUP BY pr.name
ORDER BY pr.name;
