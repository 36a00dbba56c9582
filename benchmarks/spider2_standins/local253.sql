WITH cleaned AS (
    SELECT
        CompanyName,
        Location,
        CAST(
            REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(TRIM(Salary), '₹', ''), ',', ''), '/yr', ''), '/mo', ''), ' ', '')
            AS REAL) AS salary_num
    FROM SalaryDataset
    WHERE Salary IS NOT NULL
),
city_company AS (
    SELECT Location, CompanyName, AVG(salary_num) AS avg_salary
    FROM cleaned
    WHERE Location IN ('Mumbai', 'Pune', 'New Delhi', 'Hyderabad')
    GROUP BY Location, CompanyName
),
ranked AS (
    SELECT
        Location,
        CompanyName,
        avg_salary,
        ROW_NUMBER() OVER (PARTITION BY Location ORDER BY avg_salary DESC, CompanyName) AS rn
    FROM city_company
),
national AS (
    SELECT AVG(salary_num) AS national_avg FROM cleaned
)
SELECT
    r.Location,
    r.CompanyName,
    ROUND(r.avg_salary, 2) AS avg_salary_in_state,
    ROUND(n.national_avg, 2) AS avg_salary_in_country
FROM ranked r
CROSS JOIN national n
WHERE r.rn <= 5
ORDER BY r.Location, r.rn;
