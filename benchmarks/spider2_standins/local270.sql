WITH RECURSIVE tops AS (
    SELECT p.id, p.name
    FROM packaging p
    WHERE NOT EXISTS (SELECT 1 FROM packaging_relations r WHERE r.contains_id = p.id)
),
tree(top_id, item_id, qty) AS (
    SELECT t.id, r.contains_id, r.qty
    FROM tops t JOIN packaging_relations r ON r.packaging_id = t.id
    UNION ALL
    SELECT tr.top_id, r.contains_id, tr.qty * r.qty
    FROM tree tr JOIN packaging_relations r ON r.packaging_id = tr.item_id
),
totals AS (
    SELECT top_id, item_id, SUM(qty) AS total_qty
    FROM tree
    GROUP BY top_id, item_id
    HAVING SUM(qty) > 500
)
SELECT tp.name AS container_name, it.name AS item_name, tt.total_qty
FROM totals tt
JOIN packaging tp ON tp.id = tt.top_id
JOIN packaging it ON it.id = tt.item_id
ORDER BY tp.name, it.name;
