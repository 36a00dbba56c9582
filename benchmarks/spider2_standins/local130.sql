WITH english AS (
    SELECT s.StudentID, s.StudLastName, ss.Grade
    FROM Student_Schedules ss
    JOIN Classes c ON ss.ClassID = c.ClassID
    JOIN Subjects sub ON c.SubjectID = sub.SubjectID
    JOIN Students s ON s.StudentID = ss.StudentID
    WHERE ss.ClassStatus = 2
      AND sub.CategoryID = 'ENG'
),
ranked AS (
    SELECT
        e1.StudLastName,
        e1.Grade,
        (SELECT COUNT(*) FROM english e2 WHERE e2.Grade >= e1.Grade) AS rank_ge,
        (SELECT COUNT(*) FROM english) AS total
    FROM english e1
)
SELECT
    StudLastName,
    CASE
        WHEN 1.0 * rank_ge / total <= 0.2 THEN 'First'
        WHEN 1.0 * rank_ge / total <= 0.4 THEN 'Second'
        WHEN 1.0 * rank_ge / total <= 0.6 THEN 'Third'
        WHEN 1.0 * rank_ge / total <= 0.8 THEN 'Fourth'
        ELSE 'Fifth'
    END AS quintile
FROM ranked
ORDER BY 1.0 * rank_ge / total, StudLastName;
