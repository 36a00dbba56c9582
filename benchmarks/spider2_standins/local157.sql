WITH cleaned AS (
    SELECT
        ticker,
        date(substr(market_date, 7, 4) || '-' || substr(market_date, 1, 2) || '-' || substr(market_date, 4, 2)) AS mdate,
        CASE
            WHEN TRIM(volume) = '-' THEN 0.0
            WHEN UPPER(SUBSTR(TRIM(volume), -1)) = 'K'
                THEN CAST(REPLACE(SUBSTR(TRIM(volume), 1, LENGTH(TRIM(volume)) - 1), ',', '') AS REAL) * 1000
            WHEN UPPER(SUBSTR(TRIM(volume), -1)) = 'M'
                THEN CAST(REPLACE(SUBSTR(TRIM(volume), 1, LENGTH(TRIM(volume)) - 1), ',', '') AS REAL) * 1000000
            ELSE CAST(REPLACE(TRIM(volume), ',', '') AS REAL)
        END AS vol
    FROM bitcoin_prices
),
in_range AS (
    SELECT ticker, mdate, vol
    FROM cleaned
    WHERE mdate BETWEEN '2021-07-25' AND '2021-08-10'
),
with_prev AS (
    SELECT
        a.ticker,
        a.mdate,
        a.vol,
        (SELECT b.vol FROM in_range b
          WHERE b.ticker = a.ticker AND b.mdate < a.mdate AND b.vol <> 0
          ORDER BY b.mdate DESC LIMIT 1) AS prev_vol
    FROM in_range a
)
SELECT
    ticker,
    mdate AS market_date,
    vol AS volume,
    prev_vol AS previous_volume,
    ROUND((vol - prev_vol) * 100.0 / NULLIF(prev_vol, 0), 2) AS pct_change
FROM with_prev
WHERE mdate BETWEEN '2021-08-01' AND '2021-08-10'
ORDER BY ticker, mdate;
