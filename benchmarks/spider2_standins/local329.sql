SELECT COUNT(DISTINCT a.session) AS num_sessions
FROM activity_log a
JOIN activity_log b
  ON a.session = b.session
 AND b.stamp > a.stamp
WHERE a.path = '/regist/input'
  AND b.path = '/regist/confirm';
