WITH ranked_payments AS (
    SELECT
        p.customer_id,
        p.rental_id,
        p.payment_date,
        ROW_NUMBER() OVER (PARTITION BY p.customer_id ORDER BY p.payment_date, p.payment_id) AS rn
    FROM payment p
),
first_movie AS (
    SELECT rp.customer_id, f.rating
    FROM ranked_payments rp
    JOIN rental r ON rp.rental_id = r.rental_id
    JOIN inventory i ON r.inventory_id = i.inventory_id
    JOIN film f ON i.film_id = f.film_id
    WHERE rp.rn = 1
),
customer_totals AS (
    SELECT customer_id, SUM(amount) AS total_amount
    FROM payment
    GROUP BY customer_id
),
customer_rentals AS (
    SELECT customer_id, COUNT(*) AS n_rentals
    FROM rental
    GROUP BY customer_id
)
SELECT
    fm.rating,
    ROUND(AVG(ct.total_amount), 2) AS avg_total_amount,
    ROUND(AVG(COALESCE(cr.n_rentals, 0) - 1), 2) AS avg_subsequent_rentals
FROM first_movie fm
JOIN customer_totals ct ON ct.customer_id = fm.customer_id
LEFT JOIN customer_rentals cr ON cr.customer_id = fm.customer_id
GROUP BY fm.rating
ORDER BY fm.rating;
