-- BIRD-style seed queries over retail.sql (one query per line; written for SpotIt's fuzzer)
SELECT "First Name", "Last Name" FROM customers WHERE segment = 'Corporate' AND joined >= '2018-01-01'
SELECT COUNT(*) FROM orders WHERE status = 'Cancelled'
SELECT T1."Store Name" FROM stores AS T1 INNER JOIN orders AS T2 ON T1.store_id = T2.store_id GROUP BY T1.store_id ORDER BY COUNT(T2.order_id) DESC LIMIT 1
SELECT name, "Unit Price" FROM products WHERE category = 'Furniture' ORDER BY "Unit Price" DESC LIMIT 3
SELECT SUM(T2.quantity * T3."Unit Price") FROM orders AS T1 INNER JOIN order_items AS T2 ON T1.order_id = T2.order_id INNER JOIN products AS T3 ON T2.product_id = T3.product_id WHERE T1.order_date LIKE '2021-%'
SELECT CAST(SUM(CASE WHEN channel = 'Online' THEN 1 ELSE 0 END) AS REAL) * 100 / COUNT(order_id) FROM orders WHERE STRFTIME('%Y', order_date) = '2020'
SELECT T1.email FROM customers AS T1 INNER JOIN orders AS T2 ON T1.customer_id = T2.customer_id WHERE T2.order_id = 10452
SELECT region, COUNT(*) FROM stores GROUP BY region HAVING COUNT(*) > 2
SELECT name FROM products WHERE "Unit Price" - cost > 50 AND discontinued = 0
SELECT AVG(quantity) FROM order_items WHERE discount > 0
SELECT T2."Store Name", T2.city FROM customers AS T1 INNER JOIN stores AS T2 ON T1."homeStore" = T2.store_id WHERE T1."Last Name" = 'Nguyen'
SELECT COUNT(DISTINCT customer_id) FROM orders WHERE order_date BETWEEN '2019-01-01' AND '2019-12-31'
SELECT "Store Name" FROM stores WHERE region = 'west' AND opened < '2010-01-01'
SELECT T3.name FROM order_items AS T2 INNER JOIN products AS T3 ON T2.product_id = T3.product_id GROUP BY T3.product_id, T3.name ORDER BY SUM(T2.quantity) DESC LIMIT 5
SELECT category, AVG("Unit Price") FROM products GROUP BY category ORDER BY AVG("Unit Price") DESC
SELECT name FROM products WHERE "Unit Price" = (SELECT MAX("Unit Price") FROM products WHERE category = 'Technology')
SELECT T1."First Name", T1."Last Name" FROM customers AS T1 WHERE NOT EXISTS (SELECT 1 FROM orders AS T2 WHERE T2.customer_id = T1.customer_id)
SELECT T1.customer_id, COUNT(T2.order_id) FROM customers AS T1 LEFT JOIN orders AS T2 ON T1.customer_id = T2.customer_id GROUP BY T1.customer_id
SELECT email FROM customers WHERE email LIKE '%@gmail.com' AND segment IN ('Consumer', 'Home Office')
SELECT SUM(quantity) FROM order_items WHERE product_id IN (SELECT product_id FROM products WHERE category = 'Office Supplies')
SELECT T1.order_id, SUM(T2.quantity * T3."Unit Price" * (1 - T2.discount)) FROM orders AS T1 INNER JOIN order_items AS T2 ON T1.order_id = T2.order_id INNER JOIN products AS T3 ON T2.product_id = T3.product_id GROUP BY T1.order_id HAVING SUM(T2.quantity) > 10
SELECT STRFTIME('%m', order_date), COUNT(*) FROM orders WHERE order_date >= '2022-01-01' GROUP BY STRFTIME('%m', order_date)
SELECT MIN(opened) FROM stores WHERE sq_ft > 20000
SELECT city, SUM(sq_ft) FROM stores GROUP BY city HAVING SUM(sq_ft) >= 50000 ORDER BY SUM(sq_ft) DESC
SELECT T1."Last Name", T3.name FROM customers AS T1 INNER JOIN orders AS T2 ON T1.customer_id = T2.customer_id INNER JOIN order_items AS T4 ON T2.order_id = T4.order_id INNER JOIN products AS T3 ON T4.product_id = T3.product_id WHERE T2.order_date = '2021-11-26 10:15:00'
SELECT COUNT(*) FROM customers WHERE "First Name" IS NULL
SELECT IIF(discontinued = 1, 'retired', 'active'), COUNT(*) FROM products GROUP BY discontinued
SELECT T2.category, SUM(T1.quantity) FROM order_items AS T1 INNER JOIN products AS T2 ON T1.product_id = T2.product_id WHERE T1.discount BETWEEN 0.1 AND 0.3 GROUP BY T2.category
SELECT "Store Name" FROM stores WHERE store_id IN (SELECT store_id FROM orders WHERE channel = 'In-Store' GROUP BY store_id HAVING COUNT(*) > 100)
SELECT AVG(T3."Unit Price") FROM customers AS T1 INNER JOIN orders AS T2 ON T1.customer_id = T2.customer_id INNER JOIN order_items AS T4 ON T2.order_id = T4.order_id INNER JOIN products AS T3 ON T4.product_id = T3.product_id WHERE T1.segment = 'Corporate'
SELECT customer_id FROM orders WHERE channel = 'Online' INTERSECT SELECT customer_id FROM orders WHERE channel = 'In-Store'
SELECT product_id FROM products EXCEPT SELECT product_id FROM order_items
SELECT city FROM stores UNION SELECT "Last Name" FROM customers WHERE segment = 'VIP'
SELECT T1.name, (T1."Unit Price" - T1.cost) * 100 / T1."Unit Price" FROM products AS T1 WHERE T1."Unit Price" > 0 ORDER BY 2 DESC LIMIT 10
SELECT DISTINCT T2.region FROM orders AS T1 INNER JOIN stores AS T2 ON T1.store_id = T2.store_id WHERE T1.status = 'Returned'
SELECT T1."First Name" || ' ' || T1."Last Name" FROM customers AS T1 WHERE T1.joined = (SELECT MIN(joined) FROM customers)
SELECT COUNT(order_id) FROM orders WHERE store_id IS NULL AND channel <> 'Online'
SELECT segment, COUNT(*) * 100 / (SELECT COUNT(*) FROM customers) FROM customers GROUP BY segment
SELECT T1.store_id, T1."Store Name", COUNT(DISTINCT T2.customer_id) FROM stores AS T1 INNER JOIN orders AS T2 ON T1.store_id = T2.store_id GROUP BY T1.store_id, T1."Store Name" HAVING COUNT(DISTINCT T2.customer_id) >= 20
SELECT name FROM products WHERE name LIKE '_%Chair%' OR name LIKE 'Desk%'
SELECT MAX(quantity), MIN(quantity) FROM order_items AS T1 INNER JOIN orders AS T2 ON T1.order_id = T2.order_id WHERE T2.order_date BETWEEN '2020-03-01' AND '2020-05-31 23:59:59'
SELECT T1.order_id FROM orders AS T1 WHERE EXISTS (SELECT 1 FROM order_items AS T2 INNER JOIN products AS T3 ON T2.product_id = T3.product_id WHERE T2.order_id = T1.order_id AND T3.discontinued = 1)
SELECT T2."Store Name", SUM(T3.quantity) FROM orders AS T1 INNER JOIN stores AS T2 ON T1.store_id = T2.store_id INNER JOIN order_items AS T3 ON T1.order_id = T3.order_id WHERE T2.region = 'East' GROUP BY T2."Store Name" ORDER BY SUM(T3.quantity) ASC LIMIT 1
SELECT COALESCE(segment, 'Unassigned'), COUNT(customer_id) FROM customers GROUP BY COALESCE(segment, 'Unassigned')
SELECT name, cost FROM products WHERE cost IS NOT NULL AND "Unit Price" IS NULL
SELECT CAST(COUNT(DISTINCT T2.customer_id) AS REAL) / COUNT(DISTINCT T1.customer_id) FROM customers AS T1 LEFT JOIN orders AS T2 ON T1.customer_id = T2.customer_id
SELECT T1."Last Name" FROM customers AS T1 INNER JOIN stores AS T2 ON T1."homeStore" = T2.store_id WHERE T2.city = 'Denver' AND T1.joined BETWEEN '2015-06-01' AND '2016-06-01'
SELECT SUBSTR(order_date, 1, 7) AS month, COUNT(*) FROM orders GROUP BY month ORDER BY month DESC LIMIT 12
SELECT order_id, SUM(quantity) FROM order_items GROUP BY order_id HAVING COUNT(product_id) = 1
SELECT T1.name FROM products AS T1 INNER JOIN order_items AS T2 ON T1.product_id = T2.product_id WHERE T2.discount = (SELECT MAX(discount) FROM order_items)
SELECT category, name, "Unit Price", RANK() OVER (PARTITION BY category ORDER BY "Unit Price" DESC) FROM products
SELECT customer_id, order_id, order_date, ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY order_date) FROM orders WHERE status = 'Delivered'
WITH spend AS (SELECT T1.customer_id, SUM(T2.quantity * T3."Unit Price") AS total FROM orders AS T1 INNER JOIN order_items AS T2 ON T1.order_id = T2.order_id INNER JOIN products AS T3 ON T2.product_id = T3.product_id GROUP BY T1.customer_id) SELECT customer_id FROM spend WHERE total > 1000
WITH recent AS (SELECT * FROM orders WHERE order_date >= '2023-01-01') SELECT channel, COUNT(*) FROM recent GROUP BY channel
SELECT T1."Store Name", CASE WHEN T1.sq_ft >= 30000 THEN 'Large' WHEN T1.sq_ft >= 10000 THEN 'Medium' ELSE 'Small' END FROM stores AS T1
SELECT COUNT(*) FROM orders AS T1 INNER JOIN customers AS T2 ON T1.customer_id = T2.customer_id WHERE T1.store_id = T2."homeStore"
SELECT COUNT(*) FROM orders AS T1 INNER JOIN customers AS T2 ON T1.customer_id = T2.customer_id WHERE T1.store_id <> T2."homeStore" OR T2."homeStore" IS NULL
SELECT T2.segment, AVG(T1.n) FROM (SELECT customer_id, COUNT(*) AS n FROM orders GROUP BY customer_id) AS T1 INNER JOIN customers AS T2 ON T1.customer_id = T2.customer_id GROUP BY T2.segment
SELECT SUM(IIF(channel = 'Online', 1, 0)) - SUM(IIF(channel = 'Phone', 1, 0)) FROM orders WHERE STRFTIME('%Y', order_date) = '2021'
SELECT T3.name FROM customers AS T1 INNER JOIN orders AS T2 ON T1.customer_id = T2.customer_id INNER JOIN order_items AS T4 ON T2.order_id = T4.order_id INNER JOIN products AS T3 ON T4.product_id = T3.product_id WHERE T1.email = 'ana.lopez@example.com' ORDER BY T2.order_date DESC LIMIT 1
SELECT region, AVG(sq_ft) FROM stores WHERE opened >= '2000-01-01' GROUP BY region
SELECT name FROM products WHERE category IS NULL OR category = ''
SELECT opened, "Store Name" FROM stores ORDER BY opened DESC, sq_ft ASC LIMIT 3 OFFSET 1
SELECT COUNT(DISTINCT T2.product_id) FROM orders AS T1 INNER JOIN order_items AS T2 ON T1.order_id = T2.order_id WHERE T1.store_id = 14
SELECT T1.customer_id FROM orders AS T1 GROUP BY T1.customer_id HAVING MAX(T1.order_date) < '2020-01-01'
SELECT "Last Name", LENGTH("Last Name") FROM customers WHERE LENGTH("Last Name") > 10
SELECT SUM(quantity) / COUNT(DISTINCT order_id) FROM order_items
SELECT ROUND(AVG(discount) * 100, 2) FROM order_items AS T1 INNER JOIN products AS T2 ON T1.product_id = T2.product_id WHERE T2.category = 'Technology'
SELECT T2."First Name", T2."Last Name", COUNT(*) FROM orders AS T1 INNER JOIN customers AS T2 ON T1.customer_id = T2.customer_id WHERE T1.status = 'Returned' GROUP BY T1.customer_id ORDER BY COUNT(*) DESC LIMIT 1
SELECT "Store Name" FROM stores WHERE store_id NOT IN (SELECT "homeStore" FROM customers WHERE "homeStore" IS NOT NULL)
SELECT T1.name FROM products AS T1 WHERE T1.cost > (SELECT AVG(cost) FROM products AS T2 WHERE T2.category = T1.category)
SELECT JULIANDAY(MAX(order_date)) - JULIANDAY(MIN(order_date)) FROM orders WHERE customer_id = 51
SELECT T1.status, COUNT(*) FROM orders AS T1 WHERE T1.order_date LIKE '2022-12-%' GROUP BY T1.status
SELECT DISTINCT T2.category FROM order_items AS T1 INNER JOIN products AS T2 ON T1.product_id = T2.product_id WHERE T1.quantity >= 20
SELECT store_id, order_date, COUNT(*) OVER (PARTITION BY store_id) FROM orders WHERE channel = 'Phone'
SELECT IFNULL(MAX(discount), 0) FROM order_items WHERE product_id = 300
SELECT T1.city, COUNT(T2.customer_id) FROM stores AS T1 LEFT JOIN customers AS T2 ON T1.store_id = T2."homeStore" GROUP BY T1.city ORDER BY 2 DESC
SELECT CAST(SUM(CASE WHEN T2.discontinued = 1 THEN T1.quantity ELSE 0 END) AS REAL) * 100 / SUM(T1.quantity) FROM order_items AS T1 INNER JOIN products AS T2 ON T1.product_id = T2.product_id
SELECT order_id FROM orders WHERE channel IN ('Online', 'Phone') AND status NOT IN ('Cancelled', 'Returned') AND order_date > '2023-06-30'
SELECT T1.region, T2.category, SUM(T3.quantity) FROM stores AS T1 INNER JOIN orders AS T4 ON T1.store_id = T4.store_id INNER JOIN order_items AS T3 ON T4.order_id = T3.order_id INNER JOIN products AS T2 ON T3.product_id = T2.product_id GROUP BY T1.region, T2.category
SELECT UPPER(SUBSTR("First Name", 1, 1)) || LOWER(SUBSTR("First Name", 2)) FROM customers WHERE "First Name" IS NOT NULL AND segment = 'Consumer'
SELECT COUNT(*) FROM (SELECT order_id FROM order_items GROUP BY order_id HAVING SUM(quantity) >= 5)
SELECT T1.name FROM products AS T1 LEFT JOIN order_items AS T2 ON T1.product_id = T2.product_id WHERE T2.item_id IS NULL AND T1.discontinued = 0
SELECT STRFTIME('%Y', joined) AS yr, COUNT(*) FROM customers GROUP BY yr HAVING COUNT(*) > 50 ORDER BY yr
SELECT T1."Store Name", T1.sq_ft / 1000 FROM stores AS T1 WHERE T1.sq_ft IS NOT NULL AND T1.region LIKE 'north%'
SELECT MAX(T2.total) FROM (SELECT order_id, SUM(quantity) AS total FROM order_items GROUP BY order_id) AS T2
SELECT T1.customer_id, T1."Last Name" FROM customers AS T1 INNER JOIN orders AS T2 ON T1.customer_id = T2.customer_id INNER JOIN stores AS T3 ON T2.store_id = T3.store_id WHERE T3.region = 'South' AND T1.segment = 'Small Business' GROUP BY T1.customer_id, T1."Last Name"
SELECT name, "Unit Price" FROM products WHERE "Unit Price" BETWEEN 10 AND 20 AND category <> 'Furniture' ORDER BY name
