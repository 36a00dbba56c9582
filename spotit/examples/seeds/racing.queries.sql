-- BIRD-style seed queries over racing.sql (one query per line; written for SpotIt's fuzzer)
SELECT forename, surname FROM drivers WHERE nationality = 'German' ORDER BY dob DESC LIMIT 1
SELECT T2.name FROM races AS T1 INNER JOIN circuits AS T2 ON T1."circuitId" = T2."circuitId" WHERE T1.year = 2009 AND T1.round = 3
SELECT COUNT(*) FROM races WHERE year = 2010
SELECT T3.forename, T3.surname FROM races AS T1 INNER JOIN results AS T2 ON T1."raceId" = T2."raceId" INNER JOIN drivers AS T3 ON T2."driverId" = T3."driverId" WHERE T1.name = 'Monaco Grand Prix' AND T1.year = 2008 AND T2.position = 1
SELECT name, location FROM circuits WHERE country = 'italy'
SELECT T2.forename, T2.surname, SUM(T1.points) FROM results AS T1 INNER JOIN drivers AS T2 ON T1."driverId" = T2."driverId" GROUP BY T1."driverId" ORDER BY SUM(T1.points) DESC LIMIT 5
SELECT MIN(milliseconds) FROM "lapTimes" WHERE "raceId" = 841
SELECT T1.surname FROM drivers AS T1 INNER JOIN "lapTimes" AS T2 ON T1."driverId" = T2."driverId" WHERE T2.milliseconds = (SELECT MIN(milliseconds) FROM "lapTimes")
SELECT CAST(SUM(CASE WHEN T2.status = 'Finished' THEN 1 ELSE 0 END) AS REAL) * 100 / COUNT(T2."resultId") FROM races AS T1 INNER JOIN results AS T2 ON T1."raceId" = T2."raceId" WHERE T1.year = 2012
SELECT COUNT(DISTINCT "driverId") FROM results WHERE grid = 1
SELECT name FROM races WHERE date BETWEEN '2015-03-01' AND '2015-06-30' ORDER BY date
SELECT country, COUNT(*) FROM circuits GROUP BY country HAVING COUNT(*) >= 2 ORDER BY COUNT(*) DESC
SELECT forename || ' ' || surname FROM drivers WHERE code IS NULL
SELECT AVG(T2.milliseconds) FROM drivers AS T1 INNER JOIN "lapTimes" AS T2 ON T1."driverId" = T2."driverId" WHERE T1.surname = 'Hamilton' AND T2."raceId" = 900
SELECT T1.name, T1.year FROM races AS T1 INNER JOIN circuits AS T2 ON T1."circuitId" = T2."circuitId" WHERE T2.country IN ('UK', 'France', 'Spain') AND T1.year >= 2000
SELECT STRFTIME('%Y', dob), COUNT(*) FROM drivers WHERE dob IS NOT NULL GROUP BY STRFTIME('%Y', dob) ORDER BY COUNT(*) DESC LIMIT 1
SELECT T2.name FROM results AS T1 INNER JOIN races AS T2 ON T1."raceId" = T2."raceId" WHERE T1."fastest lap speed" = (SELECT MAX("fastest lap speed") FROM results)
SELECT surname FROM drivers WHERE nationality = 'British' AND dob > '1985-01-01'
SELECT T1."driverId", T1.grid - T1.position FROM results AS T1 WHERE T1."raceId" = 1010 AND T1.position IS NOT NULL ORDER BY T1.grid - T1.position DESC LIMIT 1
SELECT T3.name, COUNT(T1."raceId") FROM races AS T1 INNER JOIN circuits AS T3 ON T1."circuitId" = T3."circuitId" GROUP BY T3."circuitId", T3.name HAVING COUNT(T1."raceId") > 10
SELECT DISTINCT T2.nationality FROM results AS T1 INNER JOIN drivers AS T2 ON T1."driverId" = T2."driverId" WHERE T1.position = 1
SELECT "driverId" FROM results WHERE "raceId" = 18 AND status LIKE '%Accident%'
SELECT T1.forename, T1.surname FROM drivers AS T1 WHERE NOT EXISTS (SELECT 1 FROM results AS T2 WHERE T2."driverId" = T1."driverId" AND T2.points > 0)
SELECT alt FROM circuits WHERE name = 'Circuit de Spa-Francorchamps'
SELECT T1.year, SUM(T2.points) FROM races AS T1 INNER JOIN results AS T2 ON T1."raceId" = T2."raceId" WHERE T2."driverId" = 1 GROUP BY T1.year ORDER BY T1.year
SELECT COUNT(*) FROM drivers WHERE number BETWEEN 1 AND 20 AND nationality <> 'Italian'
SELECT T2.surname, T1."fastestLapTime" FROM results AS T1 INNER JOIN drivers AS T2 ON T1."driverId" = T2."driverId" WHERE T1."raceId" = 348 AND T1."fastestLapTime" IS NOT NULL ORDER BY T1."fastestLapTime" ASC LIMIT 1
SELECT lat, lng FROM circuits WHERE lat > 40 OR lng < -70
SELECT name FROM races WHERE "raceId" IN (SELECT "raceId" FROM results GROUP BY "raceId" HAVING COUNT(*) > 22)
SELECT T1.surname, COUNT(*) FROM drivers AS T1 INNER JOIN results AS T2 ON T1."driverId" = T2."driverId" WHERE T2.position = 1 GROUP BY T1."driverId", T1.surname ORDER BY COUNT(*) DESC LIMIT 3
SELECT AVG(laps) FROM results WHERE status = 'Finished' AND "raceId" IN (SELECT "raceId" FROM races WHERE year = 2016)
SELECT MAX(year) - MIN(year) FROM races WHERE "circuitId" = 6
SELECT T1.name FROM circuits AS T1 LEFT JOIN races AS T2 ON T1."circuitId" = T2."circuitId" WHERE T2."raceId" IS NULL
SELECT CAST(COUNT(CASE WHEN nationality = 'French' THEN 1 END) AS REAL) * 100 / COUNT(*) FROM drivers
SELECT T2.forename FROM "lapTimes" AS T1 INNER JOIN drivers AS T2 ON T1."driverId" = T2."driverId" WHERE T1."raceId" = 72 AND T1.lap = 1 AND T1.position = 1
SELECT date, time FROM races WHERE name LIKE 'Australian%' AND year IN (2005, 2006, 2007)
SELECT T1."raceId", MAX(T1.lap) FROM "lapTimes" AS T1 GROUP BY T1."raceId" HAVING MAX(T1.lap) >= 70
SELECT T3.country, AVG(T2.points) FROM races AS T1 INNER JOIN results AS T2 ON T1."raceId" = T2."raceId" INNER JOIN circuits AS T3 ON T1."circuitId" = T3."circuitId" WHERE T1.year = 2019 GROUP BY T3.country
SELECT IIF(position <= 3, 'podium', 'no podium'), COUNT(*) FROM results WHERE "driverId" = 20 GROUP BY IIF(position <= 3, 'podium', 'no podium')
SELECT forename, surname FROM drivers WHERE "driverId" IN (SELECT "driverId" FROM results WHERE "raceId" = 1 INTERSECT SELECT "driverId" FROM results WHERE "raceId" = 2)
SELECT T1.surname FROM drivers AS T1 INNER JOIN results AS T2 ON T1."driverId" = T2."driverId" INNER JOIN races AS T3 ON T2."raceId" = T3."raceId" WHERE T3.date >= '2020-01-01' AND T2.grid = 1 AND T2.position > 5
SELECT COUNT(*) FROM results WHERE points IS NULL OR points = 0
SELECT T1.name, T1.date FROM races AS T1 WHERE T1.year = (SELECT MAX(year) FROM races) ORDER BY T1.round DESC LIMIT 1
SELECT nationality, MIN(dob) FROM drivers GROUP BY nationality HAVING COUNT("driverId") > 5
SELECT SUM(milliseconds) / 1000 FROM "lapTimes" WHERE "raceId" = 500 AND "driverId" = 30
SELECT T2.surname, CAST(SUM(T1.milliseconds) AS REAL) / 60000 FROM "lapTimes" AS T1 INNER JOIN drivers AS T2 ON T1."driverId" = T2."driverId" WHERE T1."raceId" = 950 GROUP BY T2."driverId", T2.surname
SELECT code FROM drivers WHERE surname LIKE 'M%' AND code IS NOT NULL ORDER BY code
SELECT T1."raceId", T2.surname, T1.points, RANK() OVER (PARTITION BY T1."raceId" ORDER BY T1.points DESC) FROM results AS T1 INNER JOIN drivers AS T2 ON T1."driverId" = T2."driverId"
SELECT "driverId", lap, milliseconds, AVG(milliseconds) OVER (PARTITION BY "driverId") FROM "lapTimes" WHERE "raceId" = 1030
SELECT T1.location FROM circuits AS T1 INNER JOIN races AS T2 ON T1."circuitId" = T2."circuitId" WHERE T2.name = 'Belgian Grand Prix' GROUP BY T1.location
SELECT COUNT(DISTINCT T2.nationality) FROM results AS T1 INNER JOIN drivers AS T2 ON T1."driverId" = T2."driverId" INNER JOIN races AS T3 ON T1."raceId" = T3."raceId" WHERE T3.year = 2005
SELECT surname FROM drivers WHERE nationality = 'Brazilian' UNION SELECT surname FROM drivers WHERE nationality = 'Argentine'
SELECT "driverId" FROM results WHERE position = 1 EXCEPT SELECT "driverId" FROM results WHERE grid = 1
SELECT T1.forename, T1.surname, (STRFTIME('%Y', T3.date) - STRFTIME('%Y', T1.dob)) FROM drivers AS T1 INNER JOIN results AS T2 ON T1."driverId" = T2."driverId" INNER JOIN races AS T3 ON T2."raceId" = T3."raceId" WHERE T2.position = 1 ORDER BY T1.dob DESC LIMIT 1
SELECT name FROM circuits WHERE alt > (SELECT AVG(alt) FROM circuits)
SELECT T1.year, COUNT(DISTINCT T1."circuitId") FROM races AS T1 GROUP BY T1.year HAVING COUNT(DISTINCT T1."circuitId") < COUNT(T1."raceId")
SELECT status, COUNT(*) AS n FROM results WHERE "raceId" = 1020 GROUP BY status ORDER BY n DESC
SELECT COALESCE(code, SUBSTR(UPPER(surname), 1, 3)) FROM drivers WHERE nationality = 'Finnish'
SELECT T2.name, T1."fastest lap speed" FROM results AS T1 INNER JOIN races AS T2 ON T1."raceId" = T2."raceId" WHERE T1."driverId" = 4 AND T1."fastest lap speed" > 210.5
SELECT T1.recorded_at FROM "lapTimes" AS T1 WHERE T1."raceId" = 1000 AND T1.recorded_at LIKE '2018-07-%' ORDER BY T1.recorded_at DESC LIMIT 1
SELECT CAST(SUM(IIF(T1.position = 1, 1, 0)) AS REAL) / COUNT(DISTINCT T1."raceId") FROM results AS T1 INNER JOIN drivers AS T2 ON T1."driverId" = T2."driverId" WHERE T2.surname = 'Vettel'
SELECT T1.surname FROM drivers AS T1 WHERE EXISTS (SELECT 1 FROM "lapTimes" AS T2 WHERE T2."driverId" = T1."driverId" AND T2.milliseconds < 70000)
SELECT name, round FROM races WHERE year = 2011 AND round BETWEEN 5 AND 10 AND name NOT LIKE '%Grand Prix%'
SELECT T1."raceId", COUNT(T2."driverId") FROM races AS T1 LEFT JOIN results AS T2 ON T1."raceId" = T2."raceId" AND T2.status = 'Finished' GROUP BY T1."raceId"
SELECT MAX(points), MIN(points), AVG(points) FROM results WHERE position BETWEEN 1 AND 10
SELECT T2.forename, T2.surname FROM results AS T1 INNER JOIN drivers AS T2 ON T1."driverId" = T2."driverId" GROUP BY T1."driverId" HAVING SUM(T1.laps) > 5000
SELECT T3.name FROM results AS T1 INNER JOIN races AS T2 ON T1."raceId" = T2."raceId" INNER JOIN circuits AS T3 ON T2."circuitId" = T3."circuitId" WHERE T1."driverId" = 8 AND T1.position = 1 ORDER BY T2.date LIMIT 1
WITH wins AS (SELECT "driverId", COUNT(*) AS w FROM results WHERE position = 1 GROUP BY "driverId") SELECT T1.surname, T2.w FROM drivers AS T1 INNER JOIN wins AS T2 ON T1."driverId" = T2."driverId" WHERE T2.w >= 10
WITH fastest AS (SELECT "raceId", MIN(milliseconds) AS best FROM "lapTimes" GROUP BY "raceId") SELECT T1."raceId", T1."driverId" FROM "lapTimes" AS T1 INNER JOIN fastest AS T2 ON T1."raceId" = T2."raceId" AND T1.milliseconds = T2.best
SELECT year, name, ROW_NUMBER() OVER (PARTITION BY year ORDER BY date) FROM races WHERE year > 2015
SELECT CASE WHEN alt IS NULL THEN 'unknown' WHEN alt > 500 THEN 'high' ELSE 'low' END, COUNT(*) FROM circuits GROUP BY 1
SELECT T1.forename FROM drivers AS T1 WHERE T1.dob = (SELECT MIN(dob) FROM drivers WHERE nationality = 'Spanish') AND T1.nationality = 'Spanish'
SELECT COUNT(*) FROM races AS T1 INNER JOIN circuits AS T2 ON T1."circuitId" = T2."circuitId" WHERE T2.country = 'USA' AND STRFTIME('%m', T1.date) = '10'
SELECT T1."resultId" FROM results AS T1 WHERE T1.position IS NULL AND T1.laps > 0 AND T1.grid > 0
SELECT "driverId", SUM(points) FROM results WHERE "raceId" IN (SELECT "raceId" FROM races WHERE year = 2021) GROUP BY "driverId" ORDER BY SUM(points) DESC LIMIT 1 OFFSET 1
SELECT T1.name, T2.surname FROM races AS T1 INNER JOIN results AS T2a ON T1."raceId" = T2a."raceId" INNER JOIN drivers AS T2 ON T2a."driverId" = T2."driverId" WHERE T2a.grid = T2a.position AND T1.year = 2013
SELECT DISTINCT location FROM circuits WHERE location LIKE '%a_a%'
SELECT SUM(IIF(nationality = 'German', 1, 0)) - SUM(IIF(nationality = 'British', 1, 0)) FROM drivers
SELECT T1.lap, T1.milliseconds - (SELECT MIN(milliseconds) FROM "lapTimes" WHERE "raceId" = 1040) FROM "lapTimes" AS T1 WHERE T1."raceId" = 1040 AND T1."driverId" = 1
SELECT T1.surname, T2.number FROM drivers AS T1 INNER JOIN drivers AS T2 ON T1.number = T2.number AND T1."driverId" < T2."driverId"
SELECT AVG(T2."fastest lap speed") FROM circuits AS T1 INNER JOIN races AS T3 ON T1."circuitId" = T3."circuitId" INNER JOIN results AS T2 ON T3."raceId" = T2."raceId" WHERE T1.name = 'Autodromo Nazionale di Monza' AND T3.year BETWEEN 2010 AND 2014
SELECT T1.nationality, COUNT(DISTINCT T1."driverId") FROM drivers AS T1 INNER JOIN results AS T2 ON T1."driverId" = T2."driverId" WHERE T2.points > 0 GROUP BY T1.nationality ORDER BY 2 DESC
SELECT ROUND(CAST(SUM(laps) AS REAL) / COUNT(*), 1) FROM results WHERE "driverId" = 3
SELECT name FROM races WHERE time IS NULL AND year < 2005 ORDER BY year DESC, round
SELECT T2.surname, T1.position FROM "lapTimes" AS T1 INNER JOIN drivers AS T2 ON T1."driverId" = T2."driverId" WHERE T1."raceId" = 1001 AND T1.lap = (SELECT MAX(lap) FROM "lapTimes" WHERE "raceId" = 1001)
SELECT COUNT(*) FROM (SELECT DISTINCT "driverId", "raceId" FROM "lapTimes" WHERE milliseconds > 120000)
SELECT LOWER(country), MAX(lat) FROM circuits GROUP BY LOWER(country)
SELECT T1."driverId" FROM results AS T1 INNER JOIN races AS T2 ON T1."raceId" = T2."raceId" GROUP BY T1."driverId" HAVING MIN(T2.year) >= 2010 AND MAX(T2.year) <= 2015
