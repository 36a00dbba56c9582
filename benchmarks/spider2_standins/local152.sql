WITH director_movies AS (
    SELECT
        dm.name_id AS director_id,
        n.name AS director_name,
        m.id AS movie_id,
        m.date_published,
        m.duration,
        r.avg_rating,
        r.total_votes
    FROM director_mapping dm
    JOIN names n ON n.id = dm.name_id
    JOIN movies m ON m.id = dm.movie_id
    LEFT JOIN ratings r ON r.movie_id = m.id
),
with_next AS (
    SELECT
        *,
        LEAD(date_published) OVER (PARTITION BY director_id ORDER BY date_published, movie_id) AS next_date
    FROM director_movies
),
stats AS (
    SELECT
        director_id,
        director_name,
        COUNT(movie_id) AS number_of_movies,
        ROUND(AVG(julianday(next_date) - julianday(date_published))) AS avg_inter_movie_days,
        ROUND(AVG(avg_rating), 2) AS avg_rating,
        SUM(total_votes) AS total_votes,
        MIN(avg_rating) AS min_rating,
        MAX(avg_rating) AS max_rating,
        SUM(duration) AS total_duration
    FROM with_next
    GROUP BY director_id, director_name
)
SELECT *
FROM stats
ORDER BY number_of_movies DESC, total_duration DESC
LIMIT 9;
