WITH artist_sales AS (
    SELECT ar.ArtistId, ar.Name, SUM(ii.UnitPrice * ii.Quantity) AS total_sales
    FROM invoice_items ii
    JOIN tracks t ON ii.TrackId = t.TrackId
    JOIN albums al ON t.AlbumId = al.AlbumId
    JOIN artists ar ON al.ArtistId = ar.ArtistId
    GROUP BY ar.ArtistId, ar.Name
),
best_artist AS (
    SELECT ArtistId
    FROM artist_sales
    ORDER BY total_sales DESC, Name ASC
    LIMIT 1
),
customer_spend AS (
    SELECT c.CustomerId, c.FirstName, SUM(ii.UnitPrice * ii.Quantity) AS amount_spent
    FROM customers c
    JOIN invoices i ON c.CustomerId = i.CustomerId
    JOIN invoice_items ii ON i.InvoiceId = ii.InvoiceId
    JOIN tracks t ON ii.TrackId = t.TrackId
    JOIN albums al ON t.AlbumId = al.AlbumId
    WHERE al.ArtistId = (SELECT ArtistId FROM best_artist)
    GROUP BY c.CustomerId, c.FirstName
)
SELECT FirstName, ROUND(amount_spent, 2) AS amount_spent
FROM customer_spend
WHERE amount_spent < 1
ORDER BY amount_spent, FirstName;
