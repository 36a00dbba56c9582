WITH annual_sales AS (
    SELECT
        salespersonid,
        CAST(strftime('%Y', orderdate) AS INTEGER) AS yr,
        SUM(subtotal) AS total_sales
    FROM salesorderheader
    WHERE salespersonid IS NOT NULL
    GROUP BY salespersonid, CAST(strftime('%Y', orderdate) AS INTEGER)
),
annual_quota AS (
    SELECT
        BusinessEntityID,
        CAST(strftime('%Y', QuotaDate) AS INTEGER) AS yr,
        SUM(SalesQuota) AS quota
    FROM SalesPersonQuotaHistory
    GROUP BY BusinessEntityID, CAST(strftime('%Y', QuotaDate) AS INTEGER)
)
SELECT
    s.salespersonid,
    s.yr,
    ROUND(s.total_sales, 2) AS total_sales,
    q.quota,
    ROUND(s.total_sales - q.quota, 2) AS difference
FROM annual_sales s
JOIN annual_quota q
  ON s.salespersonid = q.BusinessEntityID AND s.yr = q.yr
ORDER BY s.salespersonid, s.yr;
