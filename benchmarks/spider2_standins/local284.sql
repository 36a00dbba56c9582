WITH item_loss AS (
    SELECT
        w.item_code,
        MAX(l."loss_rate_%") AS loss_rate
    FROM veg_whsle_df w
    JOIN veg_loss_rate_df l ON l.item_code = w.item_code
    GROUP BY w.item_code
),
stats AS (
    SELECT
        AVG(loss_rate) AS avg_loss,
        AVG(loss_rate * loss_rate) - AVG(loss_rate) * AVG(loss_rate) AS var_loss
    FROM item_loss
),
sd AS (
    SELECT avg_loss,
           CASE WHEN var_loss > 0 THEN var_loss ELSE 0 END AS var_loss
    FROM stats
),
classified AS (
    SELECT
        i.item_code,
        CASE
            WHEN i.loss_rate < s.avg_loss - sqrt(s.var_loss) THEN 'below'
            WHEN i.loss_rate > s.avg_loss + sqrt(s.var_loss) THEN 'above'
            ELSE 'within'
        END AS band
    FROM item_loss i CROSS JOIN sd s
)
SELECT
    ROUND((SELECT avg_loss FROM sd), 2) AS average_loss_rate,
    SUM(CASE WHEN band = 'below' THEN 1 ELSE 0 END) AS items_below_one_sd,
    SUM(CASE WHEN band = 'within' THEN 1 ELSE 0 END) AS items_within_one_sd,
    SUM(CASE WHEN band = 'above' THEN 1 ELSE 0 END) AS items_above_one_sd
FROM classified;
