WITH step_scores AS (
    SELECT
        name, version, step,
        MAX(CASE WHEN model = 'Stack' THEN test_score END) AS stack_score,
        MAX(CASE WHEN model <> 'Stack' THEN test_score END) AS max_other_score
    FROM model_score
    GROUP BY name, version, step
),
step_status AS (
    SELECT
        name, version, step,
        CASE
            WHEN max_other_score < stack_score THEN 'strong'
            WHEN max_other_score = stack_score THEN 'soft'
        END AS status
    FROM step_scores
),
model_status AS (
    SELECT DISTINCT s.name, s.version, s.status, m.L1_model
    FROM step_status s
    JOIN model m ON m.name = s.name AND m.version = s.version AND m.step = s.step
    WHERE s.status IS NOT NULL
),
counts AS (
    SELECT status, L1_model, COUNT(*) AS occurrences
    FROM model_status
    GROUP BY status, L1_model
),
ranked AS (
    SELECT status, L1_model, occurrences,
           ROW_NUMBER() OVER (PARTITION BY status ORDER BY occurrences DESC, L1_model) AS rn
    FROM counts
)
SELECT status, L1_model, occurrences
FROM ranked
WHERE rn = 1
ORDER BY status;
