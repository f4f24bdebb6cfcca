--
-- memprobe next to pg_stat_statements, preloaded in either order (scripts/test runs this file
-- twice: make installcheck-coexist COEXIST_PRELOAD='pg_stat_statements, memprobe' and
-- 'memprobe, pg_stat_statements').  Both hook the executor and ProcessUtility and chain; the
-- same queryid keys both, so the views join and their call counts agree.
--
CREATE EXTENSION pg_stat_statements;
CREATE EXTENSION memprobe;
CREATE TABLE co_t AS SELECT g AS a, md5(g::text) AS b FROM generate_series(1, 20000) g;
ANALYZE co_t;
CREATE FUNCTION co_inner(n int) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
  RETURN (SELECT count(*) FROM co_t WHERE a <= n);
END $$;
SELECT pg_stat_statements_reset() IS NOT NULL AS pgss_reset;
SELECT memprobe_statements_reset() IS NOT NULL AS t;

-- known statements, known numbers of times
SELECT a FROM co_t WHERE a = 1;
SELECT a FROM co_t WHERE a = 2;
SELECT a FROM co_t WHERE a = 3;
SELECT count(*) FROM co_t;
SELECT count(*) FROM co_t;
SET work_mem = '64MB';
SELECT b FROM co_t ORDER BY b OFFSET 19999;
RESET work_mem;
PREPARE co_p(int) AS SELECT b FROM co_t WHERE a = $1;
EXECUTE co_p(1);
EXECUTE co_p(2);
EXECUTE co_p(3);
EXECUTE co_p(4);
DEALLOCATE co_p;
SELECT co_inner(10);
SELECT co_inner(20);

-- every executor statement pg_stat_statements saw is in memprobe_statements, with the same
-- calls (utility statements are pg_stat_statements' alone: memprobe measures executors)
SELECT s.query, s.calls AS pgss_calls, m.calls AS memprobe_calls, m.toplevel
  FROM pg_stat_statements s
  LEFT JOIN memprobe_statements m USING (userid, dbid, queryid, toplevel)
 WHERE s.query ~ '(co_t|co_inner)' AND s.query !~* '^\s*(CREATE|ANALYZE)'
 ORDER BY s.query;
-- and nothing the other way round
SELECT count(*) AS memprobe_only
  FROM memprobe_statements m
  LEFT JOIN pg_stat_statements s USING (userid, dbid, queryid, toplevel)
 WHERE s.queryid IS NULL AND m.query !~ 'memprobe_statements_reset';
-- the same text for the same key: memprobe normalises a statement's constants to $n as
-- pg_stat_statements does (literals, a negative number, a prepared statement's numbering after
-- its parameters)
SELECT a FROM co_t WHERE a = -5 AND b <> 'secret';
SELECT a FROM co_t WHERE a = -6 AND b <> 'other';
SELECT count(*) FROM co_t WHERE a IN (1, 2, 3, 4);
-- a statement prepared under settings its execution does not share: its text is made when it
-- is parsed, with the settings it was parsed with (standard_conforming_strings here)
SET standard_conforming_strings = on;
PREPARE co_scs AS SELECT 'a\' AS s1, 3::smallint AS s2 FROM co_t WHERE a = 1;
SET standard_conforming_strings = off;
EXECUTE co_scs;
RESET standard_conforming_strings;
DEALLOCATE co_scs;
-- two statements of one query id prepared before either runs: each keeps its own text's
-- constants, and the entry has the first one run, normalised
PREPARE co_pa AS SELECT a FROM co_t WHERE a = 100 AND b <> 'secret_a';
PREPARE co_pb AS SELECT a FROM co_t WHERE a = 200 AND b <> 'secret_b';
EXECUTE co_pb;
EXECUTE co_pa;
DEALLOCATE co_pa;
DEALLOCATE co_pb;
SELECT m.query, m.calls, m.query = s.query AS same_text
  FROM pg_stat_statements s JOIN memprobe_statements m USING (userid, dbid, queryid, toplevel)
 WHERE s.query ~ '(co_t|co_inner)' AND s.query !~ ' IN \(' ORDER BY m.query;
-- a list of constants: 18 squashes it into one $1 and a comment, 15 and 17 number each
SELECT m.query = s.query AS in_list_same_text, m.query ~ 'IN \(\$1' AS normalised
  FROM pg_stat_statements s JOIN memprobe_statements m USING (userid, dbid, queryid, toplevel)
 WHERE s.query ~ 'co_t WHERE a IN';
SELECT count(*) AS texts_with_literals FROM memprobe_statements
 WHERE query ~ '(secret|other|19999|= -?[0-9]|''a)';
-- the sort's memory, beside pg_stat_statements' figures for it
SELECT m.node_peak_type, m.max_exec_mem_bytes > 1024 * 1024 AS big, s.rows
  FROM pg_stat_statements s JOIN memprobe_statements m USING (userid, dbid, queryid, toplevel)
 WHERE s.query LIKE 'SELECT b FROM co_t ORDER BY b%';

-- with track = all on both, the function's inner statement is counted by both, nested
SET pg_stat_statements.track = 'all';
SET memprobe.track = 'all';
SELECT co_inner(30);
SELECT s.calls AS pgss_calls, m.calls AS memprobe_calls
  FROM pg_stat_statements s JOIN memprobe_statements m USING (userid, dbid, queryid, toplevel)
 WHERE NOT s.toplevel AND s.query LIKE '%count(*) FROM co_t WHERE a <= n%';
RESET memprobe.track;
RESET pg_stat_statements.track;

-- toplevel is decided when an execution ends, as pg_stat_statements decides it: of two cursors
-- opened inside a function, the one closed there is nested and the one left open and closed by
-- COMMIT is top-level; a WITH HOLD cursor declared in a transaction block runs to its end at
-- COMMIT, top-level (PostgreSQL 18 gives a DECLARE's query its own query id, so both count it
-- there; 15 and 17 neither).  Every key agrees, calls included (the DECLARE statement itself is
-- pg_stat_statements' alone: memprobe does not track utility statements).  pg_stat_statements
-- keeps the text of an entry first made at ExecutorEnd unnormalized.
CREATE FUNCTION co_open(close_it bool) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  c refcursor := 'co_cursor';
  r int;
BEGIN
  OPEN c FOR SELECT a FROM co_t WHERE a < 100 ORDER BY a;
  FETCH c INTO r;
  IF close_it THEN
    CLOSE c;
  END IF;
  RETURN r;
END $$;
SET pg_stat_statements.track = 'all';
SET memprobe.track = 'all';
SELECT pg_stat_statements_reset() IS NOT NULL AS pgss_reset;
SELECT memprobe_statements_reset() IS NOT NULL AS t;
BEGIN;
SELECT co_open(true);
SELECT co_open(false);
COMMIT;
BEGIN;
DECLARE co_hold CURSOR WITH HOLD FOR SELECT b FROM co_t WHERE a < 50 ORDER BY a;
FETCH 2 FROM co_hold;
COMMIT;
CLOSE co_hold;
RESET memprobe.track;
RESET pg_stat_statements.track;
SELECT s.toplevel, s.calls AS pgss_calls, m.calls AS memprobe_calls
  FROM pg_stat_statements s
  LEFT JOIN memprobe_statements m USING (userid, dbid, queryid, toplevel)
 WHERE s.query ~ '^SELECT a FROM co_t WHERE a < (\$1|100)'
 ORDER BY s.toplevel;
SELECT count(*) AS disagreements
  FROM pg_stat_statements s
  FULL JOIN memprobe_statements m USING (userid, dbid, queryid, toplevel)
 WHERE coalesce(s.query, m.query) ~ 'co_t WHERE a < '
   AND coalesce(s.query, m.query) !~* '^\s*DECLARE'
   AND s.calls IS DISTINCT FROM m.calls;

DROP FUNCTION co_open(bool);
DROP FUNCTION co_inner(int);
DROP TABLE co_t;
DROP EXTENSION memprobe;
DROP EXTENSION pg_stat_statements;
