WITH RECURSIVE expanded(root_id, item_id, qty, depth) AS (
    SELECT pr.packaging_id, pr.contains_id, pr.qty, 1
    FROM packaging_relations pr
    WHERE pr.packaging_id NOT IN (SELECT contains_id FROM packaging_relations)
    UNION ALL
    SELECT e.root_id, pr.contains_id, e.qty * pr.qty, e.depth + 1
    FROM expanded e
    JOIN packaging_relations pr ON pr.packaging_id = e.item_id
    WHERE e.depth < 10
),
leaves AS (
    SELECT root_id, item_id, SUM(qty) AS total_qty
    FROM expanded
    WHERE item_id NOT IN (SELECT packaging_id FROM packaging_relations)
    GROUP BY root_id, item_id
),
per_root AS (
    SELECT root_id, SUM(total_qty) AS combo_qty
    FROM leaves
    GROUP BY root_id
)
SELECT ROUND(AVG(combo_qty), 2) AS avg_total_quantity
FROM per_root;
