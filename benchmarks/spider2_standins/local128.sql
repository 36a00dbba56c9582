WITH wins AS (
    SELECT
        bs.BowlerID,
        bs.MatchID,
        bs.GameNumber,
        bs.HandiCapScore,
        t.TourneyDate,
        t.TourneyLocation
    FROM Bowler_Scores bs
    JOIN Tourney_Matches tm ON bs.MatchID = tm.MatchID
    JOIN Tournaments t ON tm.TourneyID = t.TourneyID
    WHERE bs.WonGame = 1
      AND bs.HandiCapScore <= 190
      AND t.TourneyLocation IN ('Thunderbird Lanes', 'Totem Lanes', 'Bolero Lanes')
),
qualified AS (
    SELECT BowlerID
    FROM wins
    GROUP BY BowlerID
    HAVING COUNT(DISTINCT TourneyLocation) = 3
)
SELECT
    b.BowlerID,
    b.BowlerFirstName,
    b.BowlerLastName,
    w.MatchID,
    w.GameNumber,
    w.HandiCapScore,
    w.TourneyDate,
    w.TourneyLocation
FROM wins w
JOIN qualified q ON w.BowlerID = q.BowlerID
JOIN Bowlers b ON b.BowlerID = w.BowlerID
ORDER BY b.BowlerID, w.TourneyDate, w.MatchID, w.GameNumber;
