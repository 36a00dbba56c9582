WITH italian_profit AS (
    SELECT
        s.cust_id,
        SUM(s.quantity_sold * (c.unit_price - c.unit_cost)) AS profit
    FROM sales s
    JOIN customers cu ON cu.cust_id = s.cust_id
    JOIN countries co ON co.country_id = cu.country_id
    JOIN times t ON t.time_id = s.time_id
    JOIN costs c
      ON c.prod_id = s.prod_id AND c.time_id = s.time_id
     AND c.promo_id = s.promo_id AND c.channel_id = s.channel_id
    WHERE co.country_name = 'Italy'
      AND t.calendar_year = 2021 AND t.calendar_month_number = 12
    GROUP BY s.cust_id
),
tiers AS (
    SELECT cust_id, profit, NTILE(10) OVER (ORDER BY profit) AS tier
    FROM italian_profit
)
SELECT tier, ROUND(MAX(profit), 2) AS highest_profit, ROUND(MIN(profit), 2) AS lowest_profit
FROM tiers
GROUP BY tier
ORDER BY tier;
