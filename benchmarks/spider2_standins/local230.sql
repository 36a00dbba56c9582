WITH high_rated AS (
    SELECT m.id AS movie_id
    FROM movies m
    JOIN ratings r ON r.movie_id = m.id
    WHERE r.avg_rating > 8
),
top_genres AS (
    SELECT g.genre, COUNT(DISTINCT g.movie_id) AS movie_count
    FROM genre g
    JOIN high_rated h ON h.movie_id = g.movie_id
    GROUP BY g.genre
    ORDER BY movie_count DESC
    LIMIT 3
),
director_counts AS (
    SELECT n.name AS director_name, COUNT(DISTINCT d.movie_id) AS movie_count
    FROM director_mapping d
    JOIN high_rated h ON h.movie_id = d.movie_id
    JOIN genre g ON g.movie_id = d.movie_id
    JOIN names n ON n.id = d.name_id
    WHERE g.genre IN (SELECT genre FROM top_genres)
    GROUP BY n.name
)
SELECT director_name, movie_count
FROM director_counts
ORDER BY movie_count DESC, director_name
LIMIT 4;
