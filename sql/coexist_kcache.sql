--
-- memprobe next to pg_stat_statements and pg_stat_kcache (Debian's postgresql-15-pg-stat-kcache),
-- all three preloaded; scripts/test runs this with memprobe first and with memprobe last.
-- pg_stat_kcache keys its counters as pg_stat_statements does, so all three join on queryid.
--
CREATE EXTENSION pg_stat_statements;
CREATE EXTENSION pg_stat_kcache;
CREATE EXTENSION memprobe;
CREATE TABLE ck_t AS SELECT g AS a, md5(g::text) AS b FROM generate_series(1, 20000) g;
ANALYZE ck_t;
SELECT pg_stat_statements_reset() IS NOT NULL AS pgss_reset;
SELECT pg_stat_kcache_reset();
SELECT memprobe_statements_reset() IS NOT NULL AS t;

SELECT count(*) FROM ck_t WHERE a < 100;
SELECT count(*) FROM ck_t WHERE a < 200;
SET work_mem = '64MB';
SELECT b FROM ck_t ORDER BY b OFFSET 19999;
SELECT b FROM ck_t ORDER BY b OFFSET 19999;
RESET work_mem;

-- one row per statement in all three, the same calls in pg_stat_statements and memprobe, and
-- pg_stat_kcache's CPU time beside memprobe's memory
SELECT s.query, s.calls AS pgss_calls, m.calls AS memprobe_calls,
       k.exec_user_time IS NOT NULL AS kcache_counted,
       m.max_exec_mem_bytes > 0 AS memprobe_has_memory
  FROM pg_stat_statements s
  JOIN memprobe_statements m USING (userid, dbid, queryid, toplevel)
  JOIN pg_stat_kcache() k ON k.queryid = s.queryid AND k.userid = s.userid
                         AND k.dbid = s.dbid AND k.top = s.toplevel
 WHERE s.query ~ 'ck_t' AND s.query !~* '^\s*(CREATE|ANALYZE)'
 ORDER BY s.query;

DROP TABLE ck_t;
DROP EXTENSION memprobe;
DROP EXTENSION pg_stat_kcache;
DROP EXTENSION pg_stat_statements;
