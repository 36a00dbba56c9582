-- BIRD-style seed queries over school.sql (one query per line; written for SpotIt's fuzzer)
SELECT "School Name" FROM schools WHERE city = 'Fresno' AND charter = 1
SELECT COUNT(*) FROM schools WHERE "OpenDate" > '2000-12-31' AND "ClosedDate" IS NULL
SELECT T1."School Name", T2."AvgScrMath" FROM schools AS T1 INNER JOIN scores AS T2 ON T1.school_id = T2.school_id WHERE T2.year = 2019 ORDER BY T2."AvgScrMath" DESC LIMIT 1
SELECT T2.name FROM schools AS T1 INNER JOIN districts AS T2 ON T1.district_id = T2.district_id WHERE T1."School Name" = 'Lincoln High'
SELECT CAST(SUM(CASE WHEN charter = 1 THEN 1 ELSE 0 END) AS REAL) * 100 / COUNT(*) FROM schools WHERE city = 'Oakland'
SELECT T1.zip FROM schools AS T1 INNER JOIN districts AS T2 ON T1.district_id = T2.district_id WHERE T2.county = 'Alameda' AND T1.charter = 0
SELECT city, COUNT(school_id) FROM schools GROUP BY city HAVING COUNT(school_id) > 3 ORDER BY COUNT(school_id) DESC
SELECT AVG("AvgScrRead") FROM scores WHERE year BETWEEN 2015 AND 2018 AND subject = 'SAT'
SELECT "School Name" FROM schools WHERE school_id = (SELECT school_id FROM scores ORDER BY "NumGE1500" DESC LIMIT 1)
SELECT T1."School Name" FROM schools AS T1 INNER JOIN enrollment AS T2 ON T1.school_id = T2.school_id WHERE T2."Academic Year" = '2014-2015' ORDER BY CAST(T2."FRPM Count" AS REAL) / T2."Enrollment (K-12)" DESC LIMIT 3
SELECT MAX(amount) FROM funding WHERE source = 'State' AND "Fiscal Year" = '2018'
SELECT DISTINCT T1.city FROM schools AS T1 INNER JOIN funding AS T2 ON T1.school_id = T2.school_id WHERE T2.amount > 1000000
SELECT COUNT(DISTINCT district_id) FROM schools WHERE "Grade Span" = 'K-12'
SELECT "School Name", latitude, longitude FROM schools WHERE latitude IS NOT NULL ORDER BY latitude DESC LIMIT 5
SELECT T2.name, SUM(T3.amount) FROM schools AS T1 INNER JOIN districts AS T2 ON T1.district_id = T2.district_id INNER JOIN funding AS T3 ON T1.school_id = T3.school_id GROUP BY T2.district_id ORDER BY SUM(T3.amount) DESC LIMIT 1
SELECT "School Name" FROM schools WHERE "School Name" LIKE '%Elementary%' AND city IN ('San Jose', 'Sacramento', 'Fresno')
SELECT COUNT(*) FROM schools WHERE STRFTIME('%Y', "OpenDate") = '1995'
SELECT school_id FROM scores WHERE "AvgScrMath" > 560 INTERSECT SELECT school_id FROM scores WHERE "AvgScrRead" > 560
SELECT T1."School Name", T1.city FROM schools AS T1 WHERE EXISTS (SELECT 1 FROM funding AS T2 WHERE T2.school_id = T1.school_id AND T2.source = 'Federal')
SELECT "School Name" FROM schools WHERE school_id NOT IN (SELECT school_id FROM scores WHERE school_id IS NOT NULL)
SELECT T1.name, COUNT(T2.school_id) FROM districts AS T1 LEFT JOIN schools AS T2 ON T1.district_id = T2.district_id GROUP BY T1.district_id, T1.name
SELECT SUM("NumTstTakr") FROM scores AS T1 INNER JOIN schools AS T2 ON T1.school_id = T2.school_id WHERE T2.city = 'Los Angeles' AND T1.year = 2017
SELECT CAST("NumGE1500" AS REAL) / "NumTstTakr" FROM scores WHERE "NumTstTakr" > 0 AND year = 2016
SELECT "School Name" FROM schools WHERE "ClosedDate" BETWEEN '2010-01-01' AND '2015-12-31' ORDER BY "ClosedDate"
SELECT T1."School Name", IIF(T1.charter = 1, 'Charter', 'Traditional') FROM schools AS T1 WHERE T1.district_id = 12
SELECT county, AVG(T2."AvgScrMath") FROM districts AS T1 INNER JOIN schools AS T3 ON T1.district_id = T3.district_id INNER JOIN scores AS T2 ON T3.school_id = T2.school_id GROUP BY county HAVING AVG(T2."AvgScrMath") >= 500
SELECT T2."School Name" FROM enrollment AS T1 INNER JOIN schools AS T2 ON T1.school_id = T2.school_id WHERE T1."Free Meal Count" > 800 AND T1."Enrollment (K-12)" < 2000
SELECT COUNT(T1.school_id) FROM schools AS T1 INNER JOIN districts AS T2 ON T1.district_id = T2.district_id WHERE T2.name = 'riverside unified'
SELECT "Superintendent Name" FROM districts WHERE founded < '1950-01-01' AND county LIKE 'San%'
SELECT T1."School Name" FROM schools AS T1 INNER JOIN scores AS T2 ON T1.school_id = T2.school_id WHERE T2."AvgScrRead" = (SELECT MAX("AvgScrRead") FROM scores)
SELECT year, COUNT(*) FROM scores GROUP BY year ORDER BY year
SELECT source, SUM(amount) AS total FROM funding GROUP BY source ORDER BY total DESC
SELECT T1.city FROM schools AS T1 INNER JOIN enrollment AS T2 ON T1.school_id = T2.school_id GROUP BY T1.city ORDER BY SUM(T2."Enrollment (K-12)") DESC LIMIT 1
SELECT AVG(amount) FROM funding WHERE approved_on >= '2019-07-01 00:00:00' AND approved_on < '2020-07-01 00:00:00'
SELECT "School Name" FROM schools WHERE charter = 1 AND ("Grade Span" = 'K-5' OR "Grade Span" = 'K-8')
SELECT T1."School Name", T2."AvgScrMath" - T2."AvgScrRead" FROM schools AS T1 INNER JOIN scores AS T2 ON T1.school_id = T2.school_id WHERE T2.year = 2018 AND T2."AvgScrMath" > T2."AvgScrRead"
SELECT SUBSTR("OpenDate", 1, 4), COUNT(*) FROM schools GROUP BY SUBSTR("OpenDate", 1, 4)
SELECT COALESCE("Grade Span", 'Unknown'), COUNT(*) FROM schools GROUP BY COALESCE("Grade Span", 'Unknown')
SELECT T2.name FROM schools AS T1 INNER JOIN districts AS T2 ON T1.district_id = T2.district_id GROUP BY T2.name HAVING SUM(T1.charter) >= 2
SELECT T1."School Name" FROM schools AS T1 LEFT JOIN funding AS T2 ON T1.school_id = T2.school_id WHERE T2.funding_id IS NULL
SELECT MIN("OpenDate"), MAX("OpenDate") FROM schools WHERE district_id = 7
SELECT CAST(SUM(IIF(T2."AvgScrMath" >= 500, 1, 0)) AS REAL) * 100 / COUNT(T2.score_id) FROM schools AS T1 INNER JOIN scores AS T2 ON T1.school_id = T2.school_id WHERE T1.city = 'Berkeley'
SELECT "School Name" FROM schools WHERE school_id IN (SELECT school_id FROM funding GROUP BY school_id HAVING COUNT(DISTINCT source) > 1)
SELECT T1."School Name", T2."Fiscal Year", T2.amount FROM schools AS T1 INNER JOIN funding AS T2 ON T1.school_id = T2.school_id WHERE T2.amount BETWEEN 50000 AND 250000 ORDER BY T2.amount
SELECT COUNT(*) FROM enrollment WHERE "FRPM Count" > "Enrollment (K-12)" * 0.5
SELECT "School Name", CASE WHEN latitude > 37 THEN 'North' WHEN latitude > 34 THEN 'Central' ELSE 'South' END FROM schools WHERE latitude IS NOT NULL
SELECT T1.district_id, T1.name FROM districts AS T1 WHERE NOT EXISTS (SELECT 1 FROM schools AS T2 WHERE T2.district_id = T1.district_id AND T2.charter = 1)
SELECT T2."School Name", T1.year, T1."AvgScrMath", RANK() OVER (PARTITION BY T1.year ORDER BY T1."AvgScrMath" DESC) FROM scores AS T1 INNER JOIN schools AS T2 ON T1.school_id = T2.school_id
SELECT city FROM schools WHERE charter = 1 EXCEPT SELECT city FROM schools WHERE charter = 0
SELECT T1.zip, T1."School Name" FROM schools AS T1 WHERE T1.zip LIKE '945__' ORDER BY T1.zip LIMIT 10
SELECT AVG(T2."Enrollment (K-12)") FROM districts AS T1 INNER JOIN schools AS T3 ON T1.district_id = T3.district_id INNER JOIN enrollment AS T2 ON T3.school_id = T2.school_id WHERE T1.county = 'Kern'
SELECT "School Name" FROM schools WHERE "OpenDate" = (SELECT MIN("OpenDate") FROM schools WHERE city = 'Stockton') AND city = 'Stockton'
SELECT T1."School Name", SUM(T2.amount) / COUNT(DISTINCT T2."Fiscal Year") FROM schools AS T1 INNER JOIN funding AS T2 ON T1.school_id = T2.school_id GROUP BY T1.school_id
SELECT COUNT(DISTINCT T1.city) FROM schools AS T1 INNER JOIN scores AS T2 ON T1.school_id = T2.school_id WHERE T2."NumTstTakr" < 50
SELECT subject, MAX("AvgScrMath"), MIN("AvgScrMath") FROM scores WHERE subject IS NOT NULL GROUP BY subject
SELECT "School Name" FROM schools WHERE city = 'Fresno' UNION SELECT "School Name" FROM schools WHERE zip = '93701'
SELECT T2.county FROM schools AS T1 INNER JOIN districts AS T2 ON T1.district_id = T2.district_id WHERE T1.school_id = 405
SELECT "Academic Year", SUM("Free Meal Count") * 100 / SUM("Enrollment (K-12)") FROM enrollment GROUP BY "Academic Year"
SELECT T1."School Name" FROM schools AS T1 INNER JOIN scores AS T2 ON T1.school_id = T2.school_id WHERE T2.year = 2019 AND T2."AvgScrMath" > (SELECT AVG("AvgScrMath") FROM scores WHERE year = 2019)
SELECT IFNULL(SUM(amount), 0) FROM funding WHERE source = 'Local' AND school_id = 88
SELECT name FROM districts WHERE name LIKE '%elementary%' ORDER BY founded DESC LIMIT 2
SELECT T1."School Name", T1."OpenDate" FROM schools AS T1 WHERE STRFTIME('%Y', T1."OpenDate") BETWEEN '1980' AND '1989' AND T1."ClosedDate" IS NOT NULL
SELECT COUNT(*) FROM schools AS T1 INNER JOIN enrollment AS T2 ON T1.school_id = T2.school_id WHERE T2."Academic Year" = '2016-2017' AND T2."Enrollment (K-12)" >= 500 AND T1.charter = 1
SELECT T3."School Name" FROM funding AS T1 INNER JOIN schools AS T3 ON T1.school_id = T3.school_id WHERE T1.approved_on LIKE '2021-%' GROUP BY T3."School Name" HAVING COUNT(*) > 2
SELECT DISTINCT "Fiscal Year" FROM funding ORDER BY "Fiscal Year" DESC
SELECT T1.county, COUNT(DISTINCT T2.city) FROM districts AS T1 INNER JOIN schools AS T2 ON T1.district_id = T2.district_id GROUP BY T1.county ORDER BY 2 DESC LIMIT 5
SELECT "School Name", longitude FROM schools WHERE longitude < -121.5 AND latitude > 38
SELECT T1."School Name" FROM schools AS T1 INNER JOIN enrollment AS T2 ON T1.school_id = T2.school_id WHERE T2."FRPM Count" IS NULL OR T2."Free Meal Count" IS NULL
SELECT T2.year, AVG(T2."AvgScrRead") FROM schools AS T1 INNER JOIN scores AS T2 ON T1.school_id = T2.school_id WHERE T1.charter = 1 GROUP BY T2.year HAVING COUNT(*) >= 3
WITH totals AS (SELECT school_id, SUM(amount) AS total FROM funding GROUP BY school_id) SELECT T1."School Name", T2.total FROM schools AS T1 INNER JOIN totals AS T2 ON T1.school_id = T2.school_id ORDER BY T2.total DESC LIMIT 3
WITH ranked AS (SELECT school_id, year, "AvgScrMath", ROW_NUMBER() OVER (PARTITION BY school_id ORDER BY year DESC) AS rn FROM scores) SELECT school_id, year, "AvgScrMath" FROM ranked WHERE rn = 1
SELECT T1.name, DENSE_RANK() OVER (ORDER BY COUNT(T2.school_id) DESC) FROM districts AS T1 INNER JOIN schools AS T2 ON T1.district_id = T2.district_id GROUP BY T1.district_id, T1.name
SELECT school_id, amount, SUM(amount) OVER (PARTITION BY school_id ORDER BY approved_on) FROM funding WHERE source = 'State'
SELECT CAST(COUNT(CASE WHEN "ClosedDate" IS NOT NULL THEN 1 END) AS REAL) / COUNT(*) FROM schools WHERE district_id IN (SELECT district_id FROM districts WHERE county = 'Fresno')
SELECT T1."School Name" FROM schools AS T1 INNER JOIN scores AS T2 ON T1.school_id = T2.school_id WHERE T2."NumGE1500" * 100 / T2."NumTstTakr" > 30
SELECT "School Name" FROM schools WHERE "School Name" NOT LIKE '%School%' AND charter IS NULL
SELECT T2."Superintendent Name", T1."School Name" FROM schools AS T1 LEFT JOIN districts AS T2 ON T1.district_id = T2.district_id WHERE T1.city = 'Modesto'
SELECT MAX(T2."Enrollment (K-12)") - MIN(T2."Enrollment (K-12)") FROM schools AS T1 INNER JOIN enrollment AS T2 ON T1.school_id = T2.school_id WHERE T1.district_id = 3
SELECT COUNT(*) FROM funding WHERE amount IS NULL
SELECT T1."School Name", T2."Academic Year" FROM schools AS T1 INNER JOIN enrollment AS T2 ON T1.school_id = T2.school_id WHERE T2."Enrollment (K-12)" = (SELECT MAX("Enrollment (K-12)") FROM enrollment)
SELECT UPPER(city), COUNT(*) FROM schools WHERE city IS NOT NULL GROUP BY UPPER(city) HAVING COUNT(*) = 1
SELECT T1."School Name" FROM schools AS T1 WHERE T1.school_id IN (SELECT T2.school_id FROM scores AS T2 WHERE T2.year = 2015 AND T2."AvgScrMath" < 400) AND T1.charter = 0
SELECT LENGTH(zip), COUNT(*) FROM schools GROUP BY LENGTH(zip)
SELECT T1.source, ROUND(AVG(T1.amount), 2) FROM funding AS T1 INNER JOIN schools AS T2 ON T1.school_id = T2.school_id WHERE T2.charter = 1 GROUP BY T1.source
SELECT "School Name" FROM schools ORDER BY "OpenDate" ASC, "School Name" DESC LIMIT 5 OFFSET 5
SELECT T2.name, T1."School Name" FROM schools AS T1 INNER JOIN districts AS T2 ON T1.district_id = T2.district_id WHERE T2.founded IS NULL AND T1."OpenDate" >= '2010-01-01'
SELECT SUM(CASE WHEN subject = 'SAT' THEN "NumTstTakr" ELSE 0 END) - SUM(CASE WHEN subject = 'ACT' THEN "NumTstTakr" ELSE 0 END) FROM scores WHERE year = 2018
SELECT city, AVG(latitude), AVG(longitude) FROM schools GROUP BY city HAVING MIN(latitude) > 36
SELECT T1."School Name", T2.amount FROM schools AS T1 INNER JOIN funding AS T2 ON T1.school_id = T2.school_id WHERE T2.source IN ('Federal', 'Grant') AND T2."Fiscal Year" IN ('2019', '2020')
SELECT COUNT(*) FROM (SELECT school_id FROM scores GROUP BY school_id HAVING MAX("AvgScrMath") - MIN("AvgScrMath") > 50)
SELECT T1."School Name" FROM schools AS T1 INNER JOIN scores AS T2 ON T1.school_id = T2.school_id INNER JOIN funding AS T3 ON T1.school_id = T3.school_id WHERE T2.year = 2020 AND T3."Fiscal Year" = '2020' AND T3.amount > 500000 AND T2."AvgScrRead" < 450
SELECT DISTINCT T1.county FROM districts AS T1 INNER JOIN schools AS T2 ON T1.district_id = T2.district_id WHERE T2."Grade Span" LIKE '9-%'
SELECT "School Name", JULIANDAY("ClosedDate") - JULIANDAY("OpenDate") FROM schools WHERE "ClosedDate" IS NOT NULL ORDER BY 2 DESC LIMIT 1
