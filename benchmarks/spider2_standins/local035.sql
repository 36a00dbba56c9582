WITH ordered AS (
    SELECT
        geolocation_state, geolocation_city, geolocation_zip_code_prefix,
        geolocation_lat, geolocation_lng,
        LAG(geolocation_city) OVER w AS prev_city,
        LAG(geolocation_lat) OVER w AS prev_lat,
        LAG(geolocation_lng) OVER w AS prev_lng
    FROM olist_geolocation
    WINDOW w AS (ORDER BY geolocation_state, geolocation_city, geolocation_zip_code_prefix,
                          geolocation_lat, geolocation_lng)
),
dist AS (
    SELECT
        prev_city, geolocation_city AS city,
        6371 * 2 * asin(sqrt(
            power(sin(radians(geolocation_lat - prev_lat) / 2), 2)
            + cos(radians(prev_lat)) * cos(radians(geolocation_lat))
              * power(sin(radians(geolocation_lng - prev_lng) / 2), 2)
        )) AS km
    FROM ordered
    WHERE prev_lat IS NOT NULL
)
SELECT prev_city AS city_1, city AS city_2, ROUND(km, 2) AS distance_km
FROM dist
ORDER BY km DESC
LIMIT 1;
