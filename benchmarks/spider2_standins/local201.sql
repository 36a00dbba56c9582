WITH RECURSIVE candidates AS (
    SELECT DISTINCT words AS word
    FROM word_list
    WHERE LENGTH(words) BETWEEN 4 AND 5
      AND words IS NOT NULL
),
chars(word, pos, ch) AS (
    SELECT word, 1, SUBSTR(word, 1, 1) FROM candidates
    UNION ALL
    SELECT word, pos + 1, SUBSTR(word, pos + 1, 1)
    FROM chars
    WHERE pos < LENGTH(word)
),
signatures AS (
    SELECT word, GROUP_CONCAT(ch, '') AS sig
    FROM (SELECT word, ch FROM chars ORDER BY word, ch)
    GROUP BY word
),
anagram_counts AS (
    SELECT s1.word, COUNT(s2.word) AS anagram_count
    FROM signatures s1
    JOIN signatures s2
      ON s1.sig = s2.sig
     AND s1.word <> s2.word
     AND LENGTH(s1.word) = LENGTH(s2.word)
    WHERE SUBSTR(s1.word, 1, 1) = 'r'
    GROUP BY s1.word
)
SELECT word, anagram_count
FROM anagram_counts
WHERE anagram_count >= 1
ORDER BY word
LIMIT 10;
