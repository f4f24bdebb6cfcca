--
-- memprobe_statements: executor memory per statement.  Run by
-- `make installcheck-statements` on a server of its own (test-servers/preload-max-100-statements.conf:
-- memprobe.max = 100, no parallel workers, no JIT).
--
CREATE EXTENSION memprobe;
SHOW memprobe.track;
SHOW memprobe.max;
SHOW memprobe.query_text_bytes;

CREATE TABLE st_big AS SELECT g AS a, md5(g::text) AS b FROM generate_series(1, 100000) g;
CREATE TABLE st_small AS SELECT g AS a FROM generate_series(1, 1000) g;
ANALYZE st_big, st_small;

-- the Sort node's Sort Space Used (kB) and type, as EXPLAIN ANALYZE reports them
CREATE FUNCTION st_sort_space(q text, OUT kb int8, OUT type text) LANGUAGE plpgsql AS $$
DECLARE
  plan json;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, FORMAT JSON) ' || q INTO plan;
  -- Limit -> Sort
  kb := (plan -> 0 -> 'Plan' -> 'Plans' -> 0 ->> 'Sort Space Used')::int8;
  type := plan -> 0 -> 'Plan' -> 'Plans' -> 0 ->> 'Sort Space Type';
END $$;

-- the entries, without the statements of this file that read them
CREATE VIEW st_view AS SELECT * FROM memprobe_statements
 WHERE query !~ '(memprobe_statements|st_view)';

SELECT memprobe_statements_reset() IS NOT NULL AS t;

-- A big in-memory sort ranks first; its executor memory is at least what EXPLAIN ANALYZE reports
-- for the Sort, whose figure is the entry's node peak exactly.
SET work_mem = '64MB';
SELECT b FROM st_big ORDER BY b OFFSET 99999;
SELECT avg(a) FROM st_small;
SELECT * INTO TEMP st_explain FROM st_sort_space('SELECT b FROM st_big ORDER BY b OFFSET 99999');
SELECT type, kb > 1000 AS big FROM st_explain;
SELECT query, calls, toplevel, node_peak_type,
       node_peak_bytes = (SELECT kb * 1024 FROM st_explain) AS node_peak_is_explains,
       max_exec_mem_bytes >= (SELECT kb * 1024 FROM st_explain) AS at_least_explains,
       max_exec_mem_bytes - node_peak_bytes < 16 * 1024 * 1024 AS within_16mb,
       mean_exec_mem_bytes = max_exec_mem_bytes AND last_exec_mem_bytes = max_exec_mem_bytes AS one_run,
       spilled_calls, temp_bytes_written
  FROM st_view ORDER BY max_exec_mem_bytes DESC LIMIT 1;
-- the join with pg_stat_statements' key: queryid is the core query id
SELECT count(DISTINCT queryid) = count(*) AS distinct_ids, bool_and(queryid <> 0) AS nonzero,
       bool_and(dbid = (SELECT oid FROM pg_database WHERE datname = current_database())) AS this_db
  FROM st_view;

-- A spilling sort: temp bytes written and one spilled execution (the node peak stays the in-memory
-- run's: a sort on disk reports no memory figure).
SET work_mem = '64kB';
SELECT b FROM st_big ORDER BY b OFFSET 99999;
RESET work_mem;
SELECT calls, spilled_calls, temp_bytes_written > 1000000 AS wrote_temp, node_peak_type
  FROM st_view WHERE query = 'SELECT b FROM st_big ORDER BY b OFFSET $1';

-- A hash join's Hash node and a hash aggregate report their peaks.
SET work_mem = '64MB';
SELECT count(*) FROM st_big x JOIN st_small y ON x.a = y.a;
SELECT count(*) FROM (SELECT a, count(*) FROM st_big GROUP BY a) s;
RESET work_mem;
SELECT query, node_peak_type, node_peak_bytes > 0 AS has_peak, spilled_calls
  FROM st_view
 WHERE query LIKE '%JOIN st_small%' OR query LIKE '%GROUP BY a%' ORDER BY query;

-- Nodes rebuilt on rescan: a correlated sub plan runs first for 100,000 rows, then for 10.  The
-- node peak is what EXPLAIN ANALYZE prints for the same statement: a Hash rebuilt on rescan keeps
-- the peak of every table it built (its Memory Usage), a hashed Agg its peak, a Sort (whose
-- tuplesort is ended and begun again) the last sort's Sort Space Used, as EXPLAIN shows it.
CREATE TABLE st_outer (lim int);
INSERT INTO st_outer VALUES (100000), (10);
ANALYZE st_outer;
-- the largest in-memory figure EXPLAIN ANALYZE prints for q (kB)
CREATE FUNCTION st_explain_peak_kb(q text) RETURNS int8 LANGUAGE plpgsql AS $$
DECLARE
  plan jsonb;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, FORMAT JSON) ' || q INTO plan;
  RETURN greatest(
    (SELECT max(v::text::int8) FROM jsonb_path_query(plan,
       'strict $.** ? (@."Sort Space Type" == "Memory")."Sort Space Used"') v),
    (SELECT max(v::text::int8) FROM jsonb_path_query(plan, 'strict $.**."Peak Memory Usage"') v));
END $$;
SET work_mem = '64MB';
SET enable_mergejoin = off;
SET enable_nestloop = off;
CREATE TEMP TABLE st_rescan (kind text, q text);
INSERT INTO st_rescan VALUES
  ('hash join', 'SELECT o.lim, (SELECT count(*) FROM st_big p JOIN st_big b ON b.a = p.a WHERE b.a <= o.lim) FROM (SELECT lim FROM st_outer ORDER BY lim DESC) o'),
  ('hashed agg', 'SELECT o.lim, (SELECT count(*) FROM (SELECT b FROM st_big WHERE a <= o.lim GROUP BY b) g) FROM (SELECT lim FROM st_outer ORDER BY lim DESC) o'),
  ('sort', 'SELECT o.lim, (SELECT b FROM st_big WHERE a <= o.lim ORDER BY b DESC LIMIT 1) FROM (SELECT lim FROM st_outer ORDER BY lim DESC) o');
SELECT q FROM st_rescan ORDER BY kind
\gexec
SELECT r.kind, m.node_peak_type, m.calls,
       (m.node_peak_bytes + 1023) / 1024 = st_explain_peak_kb(r.q) AS node_peak_is_explains,
       m.node_peak_bytes > 1024 * 1024 AS over_1mb
  FROM st_rescan r JOIN st_view m ON m.query = replace(r.q, 'LIMIT 1', 'LIMIT $1') -- as normalised
 ORDER BY r.kind;
RESET enable_mergejoin;
RESET enable_nestloop;
RESET work_mem;

-- PL/pgSQL: the nested statement appears with track = all, and not with top.
CREATE FUNCTION st_nested() RETURNS int8 LANGUAGE plpgsql AS $$
DECLARE n int8;
BEGIN
  SELECT sum(a) INTO n FROM st_small WHERE a > 500;
  RETURN n;
END $$;
SELECT st_nested();
SELECT count(*) AS nested_with_top FROM st_view WHERE query LIKE '%st_small WHERE a > %';
-- (the nested statement keeps its text as written: it was analysed, and its plan cached, while
-- track was top, as pg_stat_statements keeps it in that case)
SET memprobe.track = 'all';
SELECT st_nested();
SELECT st_nested();
RESET memprobe.track;
SELECT query, calls, toplevel FROM st_view
 WHERE query LIKE '%st_small WHERE a > %' OR query LIKE 'SELECT st_nested()%' ORDER BY query, toplevel;
-- track = none: nothing new counted
SET memprobe.track = 'none';
SELECT st_nested();
RESET memprobe.track;
SELECT calls FROM st_view WHERE query = 'SELECT st_nested()' AND toplevel;

-- Prepared statements count once per execution, as top-level statements.
PREPARE st_prep(int) AS SELECT count(*) FROM st_small WHERE a > $1;
EXECUTE st_prep(1);
EXECUTE st_prep(2);
EXECUTE st_prep(3);
SELECT query, calls, toplevel FROM st_view WHERE query LIKE 'PREPARE st_prep%';
DEALLOCATE st_prep;

-- Errors and cancels leave the table consistent: other statements' calls unchanged, and the
-- nesting level reset, so a later top-level statement is still counted as top-level.  A
-- top-level execution that fails is counted apart (failed_calls), not in calls; a nested one
-- (track = all) is not counted.
CREATE FUNCTION st_fail() RETURNS int8 LANGUAGE plpgsql AS $$
DECLARE n int8;
BEGIN
  SELECT count(*) INTO n FROM st_small WHERE 1 / (a - 7) > 0;
  RETURN n;
END $$;
SELECT calls AS sort_calls_before FROM st_view
 WHERE query = 'SELECT b FROM st_big ORDER BY b OFFSET $1' \gset
SELECT st_fail();
SELECT 1 / (a - 7) FROM st_small;
SET statement_timeout = '50ms';
SELECT pg_sleep(5);
RESET statement_timeout;
SET memprobe.track = 'all';
SELECT st_fail();
RESET memprobe.track;
-- an EXECUTE that fails: the abort releases its cached plan before its executor context goes,
-- so what a failure records is taken from the execution's start
PREPARE st_fail_prep(int) AS SELECT count(*) FROM st_small WHERE 1 / (a - $1) > 0;
EXECUTE st_fail_prep(7);
EXECUTE st_fail_prep(8);
DEALLOCATE st_fail_prep;
SELECT max(a) FROM st_small;
SELECT calls = :sort_calls_before AS sort_calls_unchanged FROM st_view
 WHERE query = 'SELECT b FROM st_big ORDER BY b OFFSET $1';
SELECT query, calls, failed_calls, toplevel FROM st_view
 WHERE query LIKE '%st_fail%' OR query LIKE '%pg_sleep%' OR query LIKE '%(a - $2)%'
    OR query LIKE '%(a - $1)%'
    OR query LIKE '%max(a)%'
 ORDER BY query;
-- a failed top-level execution's executor memory is its last sample, taken as the error is
-- raised: a client's own statement runs without an error handler of memprobe's, and an error
-- context callback takes it (inside a function, the nested statements' handlers do)
SELECT query, failed_max_exec_mem_bytes > 0 AS failed_memory_sampled FROM st_view
 WHERE query IN ('SELECT $1 / (a - $2) FROM st_small', 'SELECT pg_sleep($1)', 'SELECT st_fail()')
 ORDER BY query;

-- Privileges as pg_stat_statements: everyone reads every row, but other roles' query texts and
-- queryids only with pg_read_all_stats; reset is not for PUBLIC.
CREATE ROLE memprobe_st_plain;
CREATE ROLE memprobe_st_stats IN ROLE pg_read_all_stats;
GRANT SELECT ON st_small TO memprobe_st_plain, memprobe_st_stats;
SET ROLE memprobe_st_plain;
SELECT min(a) FROM st_small;
SELECT query, queryid IS NOT NULL AS has_queryid, count(*) > 0 AS some
  FROM memprobe_statements
 WHERE query LIKE '%min(a)%' OR query = '<insufficient privilege>'
 GROUP BY 1, 2 ORDER BY 1;
SELECT memprobe_statements_reset() IS NOT NULL AS t;
RESET ROLE;
SET ROLE memprobe_st_stats;
SELECT count(*) AS hidden FROM memprobe_statements WHERE query = '<insufficient privilege>';
RESET ROLE;
SELECT count(*) AS hidden FROM memprobe_statements WHERE query = '<insufficient privilege>';

-- Reset: only the reset call itself is left.
SELECT memprobe_statements_reset() IS NOT NULL AS t;
SELECT query, calls FROM memprobe_statements;

-- After a reset, a statement run again from its cached plan, with nothing parsed in between that
-- has a constant, is stored with its normalised text, not its literals: what the backend knew
-- of the entries is stale once entries are removed.
PREPARE st_after_reset AS SELECT count(*) FROM st_small WHERE a > 900;
EXECUTE st_after_reset;
SELECT memprobe_statements_reset() IS NOT NULL AS t;
EXECUTE st_after_reset;
SELECT query, calls FROM memprobe_statements WHERE query LIKE 'PREPARE st_after_reset%';
DEALLOCATE st_after_reset;

-- memprobe_statements_info, as pg_stat_statements_info: the reset returns its time, which the
-- view shows with no eviction counted since.
SELECT memprobe_statements_reset() AS reset_at \gset
SELECT dealloc, stats_reset = :'reset_at' AS stats_reset_is_resets,
       stats_reset <= now() + interval '1 minute' AS plausible
  FROM memprobe_statements_info;

-- Eviction: with memprobe.max = 100, 150 distinct statements leave at most 100 entries, and a
-- much-used one survives; memprobe_statements_info counts the evictions.
SELECT memprobe_statements_reset() AS reset_at \gset
SELECT 7 * 6 AS gone;
\set ECHO none
\o /dev/null
SELECT 'keep' AS keep;
SELECT 'keep' AS keep;
SELECT 'keep' AS keep;
SELECT 'keep' AS keep;
SELECT 'keep' AS keep;
SELECT 'keep' AS keep;
SELECT 'keep' AS keep;
SELECT 'keep' AS keep;
SELECT 'keep' AS keep;
SELECT 'keep' AS keep;
SELECT format('SELECT %s', string_agg(i::text, ', ')) FROM generate_series(1, 150) n,
       LATERAL generate_series(1, n) i GROUP BY n ORDER BY n
\gexec
\o
\set ECHO all
SELECT count(*) <= 100 AS bounded, count(*) >= 50 AS kept_many FROM memprobe_statements;
SELECT query, calls FROM memprobe_statements WHERE query LIKE 'SELECT $1 AS keep%';
SELECT count(*) AS widest_kept FROM memprobe_statements WHERE query LIKE 'SELECT $1, $2, %, $150';
-- The statement run before them is among the least used: evicted or not (ties among the
-- oldest entries are broken by hash order, which differs between servers), run again it is
-- counted once more under its own text, not into an element another statement took since.
SELECT coalesce(max(calls), 0) AS gone_calls FROM memprobe_statements
 WHERE query LIKE 'SELECT $1 * $2 AS gone%' \gset
SELECT 7 * 6 AS gone;
SELECT query, calls = :gone_calls + 1 AS counted_once FROM memprobe_statements
 WHERE query LIKE 'SELECT $1 * $2 AS gone%';
SELECT dealloc > 0 AS evicted, stats_reset = :'reset_at' AS stats_reset_kept
  FROM memprobe_statements_info;
SELECT memprobe_statements_reset() IS NOT NULL AS t;
SELECT dealloc AS dealloc_after_reset FROM memprobe_statements_info;

DROP VIEW st_view;
DROP FUNCTION st_nested(), st_fail(), st_sort_space(text), st_explain_peak_kb(text);
DROP TABLE st_big, st_small, st_outer;
DROP ROLE memprobe_st_plain;
DROP ROLE memprobe_st_stats;
