WITH us_sales AS (
    SELECT
        s.prod_id,
        cu.cust_city,
        t.calendar_quarter_id AS q,
        s.amount_sold
    FROM sales s
    JOIN customers cu ON cu.cust_id = s.cust_id
    JOIN countries co ON co.country_id = cu.country_id
    JOIN times t ON t.time_id = s.time_id
    WHERE co.country_name = 'United States of America'
      AND s.promo_id = 999
      AND t.calendar_quarter_id IN (1772, 1776)
),
city_growth AS (
    SELECT cust_city
    FROM us_sales
    GROUP BY cust_city
    HAVING SUM(CASE WHEN q = 1776 THEN amount_sold ELSE 0 END)
           >= 1.2 * SUM(CASE WHEN q = 1772 THEN amount_sold ELSE 0 END)
       AND SUM(CASE WHEN q = 1772 THEN amount_sold ELSE 0 END) > 0
),
prod_sales AS (
    SELECT
        u.prod_id,
        SUM(u.amount_sold) AS total_sales,
        SUM(CASE WHEN u.q = 1772 THEN u.amount_sold ELSE 0 END) AS sales_2019,
        SUM(CASE WHEN u.q = 1776 THEN u.amount_sold ELSE 0 END) AS sales_2020
    FROM us_sales u
    WHERE u.cust_city IN (SELECT cust_city FROM city_growth)
    GROUP BY u.prod_id
),
ranked AS (
    SELECT p.*, PERCENT_RANK() OVER (ORDER BY total_sales DESC) AS pr
    FROM prod_sales p
),
top_products AS (
    SELECT * FROM ranked WHERE pr <= 0.2
)
SELECT
    tp.prod_id,
    ROUND(100.0 * tp.sales_2019 / (SELECT SUM(sales_2019) FROM prod_sales), 2) AS share_2019,
    ROUND(100.0 * tp.sales_2020 / (SELECT SUM(sales_2020) FROM prod_sales), 2) AS share_2020,
    ROUND(100.0 * tp.sales_2020 / (SELECT SUM(sales_2020) FROM prod_sales)
          - 100.0 * tp.sales_2019 / (SELECT SUM(sales_2019) FROM prod_sales), 2) AS share_change
FROM top_products tp
ORDER BY share_change DESC;
