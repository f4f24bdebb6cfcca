--
-- Parallel StreamScan: where core plans a Parallel Seq Scan of a heap table,
-- memprobe plans its parallel-aware StreamScan ("Parallel Custom Scan
-- (MemprobeStreamScan)") with the same workers, and the participants share
-- the table's blocks as core's do.  Each check runs a query three ways at top
-- level (streamscan_parallel_compare.psql): memprobe's parallel scan, core's
-- Parallel Seq Scan and core's serial Seq Scan, and compares the rows as
-- multisets.  Parallel plans are forced on small tables.
--
CREATE SCHEMA streamscan_parallel;
SET search_path = streamscan_parallel, public;

\getenv abs_srcdir PG_ABS_SRCDIR
\set helpers :abs_srcdir '/sql/streamscan_helpers.psql'
\i :helpers
\set pcompare :abs_srcdir '/sql/streamscan_parallel_compare.psql'

-- pscans(q): the scans of q's plan: "pstream" memprobe's parallel-aware
-- StreamScan, "stream" its serial one, "pseq" core's Parallel Seq Scan, "seq"
-- core's Seq Scan; "gather" when a Gather or Gather Merge is in the plan
CREATE FUNCTION pscans(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  line text;
  n int[] := '{0,0,0,0,0}';
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF line ~ 'Parallel Custom Scan \(MemprobeStreamScan\)' THEN n[1] := n[1] + 1;
    ELSIF line ~ 'Custom Scan \(MemprobeStreamScan\)' THEN n[2] := n[2] + 1;
    ELSIF line ~ 'Parallel Seq Scan' THEN n[3] := n[3] + 1;
    ELSIF line ~ 'Seq Scan' THEN n[4] := n[4] + 1;
    ELSIF line ~ 'Gather' THEN n[5] := n[5] + 1;
    END IF;
  END LOOP;
  RETURN concat_ws(' ', CASE WHEN n[5] > 0 THEN 'gather' END,
                   CASE WHEN n[1] > 0 THEN 'pstream=' || n[1] END,
                   CASE WHEN n[2] > 0 THEN 'stream=' || n[2] END,
                   CASE WHEN n[3] > 0 THEN 'pseq=' || n[3] END,
                   CASE WHEN n[4] > 0 THEN 'seq=' || n[4] END);
END $$;

-- workers(q): EXPLAIN ANALYZE's "Workers Launched" of q's first Gather
CREATE FUNCTION workers(q text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  j jsonb;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q INTO j;
  RETURN (jsonb_path_query_first(j, 'strict $.** ? (exists(@."Workers Launched"))')->>'Workers Launched')::int;
END $$;

-- pages_line(q): EXPLAIN ANALYZE's Pages line of q's StreamScan, figures masked
CREATE FUNCTION pages_line(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF line ~ 'Pages:' THEN
      RETURN NEXT regexp_replace(regexp_replace(trim(line), '[0-9]+', 'N', 'g'), '  read twice=N$', '');
    END IF;
  END LOOP;
END $$;

-- declare_plan(q): the plan of a cursor for q
CREATE FUNCTION declare_plan(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  line text;
  res text := '';
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) DECLARE c CURSOR FOR ' || q LOOP
    IF line !~ '^ *(Filter|Sort Key)' THEN
      res := res || CASE WHEN res = '' THEN '' ELSE ' / ' END || trim(line);
    END IF;
  END LOOP;
  RETURN res;
END $$;

SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;

-- the setting, its default
SELECT name, setting, boot_val, vartype, context FROM pg_settings
WHERE name = 'memprobe.enable_parallel_streamscan';

-- int2/int4/int8 columns (page-loop quals), NULLs, a text column and columns
-- after it, about 40 pages
CREATE TABLE pq (a int, b int2, c int8, t text, d int, e int8);
INSERT INTO pq
SELECT g,
       CASE WHEN g % 11 = 0 THEN NULL ELSE (g % 300)::int2 END,
       g * 1000000000::int8,
       CASE WHEN g % 7 = 0 THEN NULL ELSE repeat('t', g % 23) END,
       CASE WHEN g % 13 = 0 THEN NULL ELSE g % 1000 END,
       g % 5
FROM generate_series(1, 6000) g;
ANALYZE pq;
SELECT pg_relation_size('pq') / 8192 > 30 AS several_pages;

--
-- Plans: memprobe's parallel scan where core has its Parallel Seq Scan
--
SELECT plan('SELECT count(*) FROM pq WHERE a < 100');
SET memprobe.enable_parallel_streamscan = off;
SELECT plan('SELECT count(*) FROM pq WHERE a < 100');
RESET memprobe.enable_parallel_streamscan;
-- memprobe.enable_streamscan = off turns both off
SET memprobe.enable_streamscan = off;
SELECT plan('SELECT count(*) FROM pq WHERE a < 100');
RESET memprobe.enable_streamscan;
-- the workers really run it
SELECT workers('SELECT count(*) FROM pq WHERE a < 100') AS workers_launched;

--
-- Rows: every qual shape the page loop takes, by need, NULLs
--
\set q 'SELECT * FROM pq'
\i :pcompare
-- no qual, plain columns: deformed straight into the projection's row (streamscan_exec_columns)
\set q 'SELECT c, a FROM pq'
\i :pcompare
\set q 'SELECT a, t FROM pq WHERE a = 4321'
\i :pcompare
\set q 'SELECT a FROM pq WHERE a <> 5 AND a < 50'
\i :pcompare
\set q 'SELECT a, b FROM pq WHERE b < 10'
\i :pcompare
\set q 'SELECT a, b FROM pq WHERE b >= 295::int8'
\i :pcompare
\set q 'SELECT a, c FROM pq WHERE c > 5990000000000::int8'
\i :pcompare
\set q 'SELECT a, c FROM pq WHERE c <= 3000000000 AND c >= 1000000000'
\i :pcompare
\set q 'SELECT a, d FROM pq WHERE d = 7'
\i :pcompare
\set q 'SELECT a, e FROM pq WHERE e > 3 AND a < 100'
\i :pcompare
\set q 'SELECT a, d FROM pq WHERE d IS NULL'
\i :pcompare
\set q 'SELECT a FROM pq WHERE b IS NULL AND t IS NULL'
\i :pcompare
\set q 'SELECT a, t FROM pq WHERE a < 30 AND t LIKE ''t%'''
\i :pcompare
-- by need: the last column after a text column, aggregated in the workers
\set q 'SELECT sum(e), sum(d), count(t) FROM pq'
\i :pcompare
\set q 'SELECT e, count(*), sum(d) FROM pq GROUP BY e'
\i :pcompare
-- a whole-row reference and system columns
\set q 'SELECT pq FROM pq WHERE a % 500 = 0'
\i :pcompare
\set q 'SELECT ctid, a FROM pq WHERE a % 700 = 0'
\i :pcompare
-- nothing qualifies; an empty table
\set q 'SELECT * FROM pq WHERE a < 0'
\i :pcompare
CREATE TABLE pq_empty (a int);
ANALYZE pq_empty;
\set q 'SELECT * FROM pq_empty'
\i :pcompare

--
-- Dead tuples, HOT chains, rows updated after the table was written
--
UPDATE pq SET d = d + 1 WHERE a % 3 = 0;
DELETE FROM pq WHERE a % 17 = 0;
\set q 'SELECT a, d FROM pq WHERE d > 990'
\i :pcompare
\set q 'SELECT count(*), sum(a), sum(d) FROM pq'
\i :pcompare

--
-- TOAST: compressed and out-of-line values
--
CREATE TABLE pq_toast (id int, big text, small text);
INSERT INTO pq_toast
SELECT g, CASE WHEN g % 3 = 0 THEN repeat(md5(g::text), 400)               -- compressed inline
               WHEN g % 3 = 1 THEN (SELECT string_agg(md5((g * 100 + i)::text), '')
                                    FROM generate_series(1, 200) i)        -- out of line
               END,
       'row ' || g
FROM generate_series(1, 600) g;
ANALYZE pq_toast;
\set q 'SELECT id, md5(big), length(big), small FROM pq_toast'
\i :pcompare
\set q 'SELECT id FROM pq_toast WHERE big LIKE ''%abc%'' AND id > 10'
\i :pcompare

--
-- Dropped and added columns (with and without a default: rows older than a
-- column have it missing)
--
CREATE TABLE pq_alter (a int, dropme text, b int, c text);
INSERT INTO pq_alter SELECT g, 'x' || g, g % 100, 'c' || g FROM generate_series(1, 3000) g;
ALTER TABLE pq_alter DROP COLUMN dropme;
ALTER TABLE pq_alter ADD COLUMN d int DEFAULT 42;
ALTER TABLE pq_alter ADD COLUMN e text;
INSERT INTO pq_alter SELECT g, g % 100, 'c' || g, g, 'e' || g FROM generate_series(3001, 4000) g;
ANALYZE pq_alter;
\set q 'SELECT * FROM pq_alter'
\i :pcompare
\set q 'SELECT a, d FROM pq_alter WHERE d = 42'
\i :pcompare
\set q 'SELECT a, e FROM pq_alter WHERE b < 3 AND a > 2900'
\i :pcompare

--
-- Partitioned tables: a Parallel Append over every partition's parallel scan
--
CREATE TABLE pq_parts (id int, v int, t text) PARTITION BY RANGE (id);
CREATE TABLE pq_parts_1 PARTITION OF pq_parts FOR VALUES FROM (0) TO (2000);
CREATE TABLE pq_parts_2 PARTITION OF pq_parts FOR VALUES FROM (2000) TO (4000);
CREATE TABLE pq_parts_3 PARTITION OF pq_parts FOR VALUES FROM (4000) TO (6000);
INSERT INTO pq_parts SELECT g, g % 50, 'p' || g FROM generate_series(0, 5999) g;
ANALYZE pq_parts;
SELECT plan('SELECT count(*), sum(v) FROM pq_parts WHERE v < 10');
\set q 'SELECT * FROM pq_parts WHERE v = 7'
\i :pcompare
\set q 'SELECT count(*), sum(v) FROM pq_parts WHERE v < 10'
\i :pcompare

--
-- Rescans: a Gather under a nested loop is rescanned for every outer row;
-- each rescan shares the blocks out afresh
--
SET enable_material = off;
SELECT plan('SELECT * FROM (SELECT count(a), sum(d) FROM pq WHERE b > 1) s RIGHT JOIN (VALUES (1), (2), (3)) v(x) ON true');
\set q 'SELECT * FROM (SELECT count(a), sum(d) FROM pq WHERE b > 1) s RIGHT JOIN (VALUES (1), (2), (3)) v(x) ON true'
\i :pcompare
-- the workers alone, rescanned
SET parallel_leader_participation = off;
\set q 'SELECT * FROM (SELECT count(a), sum(d) FROM pq WHERE b > 1) s RIGHT JOIN (VALUES (1), (2), (3)) v(x) ON true'
\i :pcompare
RESET parallel_leader_participation;
RESET enable_material;

--
-- Parallel plans in a CTE and in sub plans
--
\set q 'WITH w AS MATERIALIZED (SELECT a, d FROM pq WHERE d < 20) SELECT count(*), sum(a) FROM w'
\i :pcompare
\set q 'SELECT (SELECT count(*) FROM pq WHERE b = 1), (SELECT max(a) FROM pq_alter WHERE d = 42)'
\i :pcompare
\set q 'SELECT a FROM pq_alter WHERE a > (SELECT max(a) - 5 FROM pq)'
\i :pcompare

--
-- Gather Merge (a sort below the Gather), and a LIMIT that stops the workers
--
\set q 'SELECT a, d FROM pq WHERE d < 5 ORDER BY a'
\i :pcompare
\set q 'SELECT a FROM pq WHERE d < 500 ORDER BY a LIMIT 7'
\i :pcompare
SELECT count(*) FROM (SELECT a FROM pq LIMIT 3) s;

--
-- Leader participation off, fewer workers than planned, none at all: the
-- rows are the same, however the blocks are shared out
--
SET parallel_leader_participation = off;
\set q 'SELECT a, t FROM pq WHERE b < 20'
\i :pcompare
RESET parallel_leader_participation;
SET max_parallel_workers = 1;
\set q 'SELECT a, t FROM pq WHERE b < 20'
\i :pcompare
SET max_parallel_workers = 0;
SELECT workers('SELECT count(*) FROM pq WHERE b < 20') AS workers_launched;
\set q 'SELECT a, t FROM pq WHERE b < 20'
\i :pcompare
SET parallel_leader_participation = off;
\set q 'SELECT a, t FROM pq WHERE b < 20'
\i :pcompare
RESET parallel_leader_participation;
RESET max_parallel_workers;

-- debug_parallel_query (force_parallel_mode before 16) on a plan that is
-- parallel already
SELECT set_config(CASE WHEN current_setting('server_version_num')::int >= 160000
                       THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END, 'on', false);
\set q 'SELECT a, d FROM pq WHERE d = 3'
\i :pcompare
SELECT set_config(CASE WHEN current_setting('server_version_num')::int >= 160000
                       THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END, 'off', false);

--
-- EXPLAIN ANALYZE counts every participant's pages: together they read
-- every page once per scan (in test builds streamscan_parallel_blocks checks
-- that no page was read twice)
--
SELECT (s->>'Pages')::int = pg_relation_size('pq') / 8192 AS all_pages,
       (s->>'Pages By Leader')::int + (s->>'Pages By Workers')::int = (s->>'Pages')::int AS shared_out,
       s ? 'Workers Not Counted' AS leader_only_note
FROM scan_stats('SELECT count(*) FROM pq WHERE b < 20') s;
SET parallel_leader_participation = off;
SELECT (s->>'Pages')::int = pg_relation_size('pq') / 8192 AS all_pages,
       (s->>'Pages By Leader')::int AS leader_pages
FROM scan_stats('SELECT count(*) FROM pq WHERE b < 20') s;
RESET parallel_leader_participation;
-- three rescans, three times the pages
SET enable_material = off;
SELECT (s->>'Pages')::int = 3 * (pg_relation_size('pq') / 8192) AS all_pages_thrice
FROM scan_stats('SELECT * FROM (SELECT count(a) FROM pq WHERE b > 1) s RIGHT JOIN (VALUES (1), (2), (3)) v(x) ON true') s;
RESET enable_material;
-- the text format
SELECT pages_line('SELECT count(*) FROM pq WHERE b < 20');

--
-- An error in a worker or in the leader: core's error, and the session goes
-- on (VERBOSITY terse: which process raised it is not fixed)
--
\set VERBOSITY terse
SELECT count(*) FROM pq WHERE 1 / (a - 3000) > 0;
SET memprobe.enable_parallel_streamscan = off;
SELECT count(*) FROM pq WHERE 1 / (a - 3000) > 0;
RESET memprobe.enable_parallel_streamscan;
\set VERBOSITY default
SELECT count(*) FROM pq WHERE b < 20;

--
-- Cursors never get a parallel plan: the serial StreamScan, backward too
--
SELECT declare_plan('SELECT a FROM pq WHERE b < 3');
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT a FROM pq WHERE b = 2 ORDER BY a;
FETCH 2 FROM c;
FETCH BACKWARD 1 FROM c;
COMMIT;

--
-- SERIALIZABLE: a parallel scan takes the relation's predicate lock, as
-- core's does
--
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT count(*) FROM pq WHERE b < 20;
SELECT mode, relation::regclass FROM pg_locks
WHERE locktype = 'relation' AND mode = 'SIReadLock' AND relation = 'pq'::regclass;
COMMIT;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SET LOCAL memprobe.enable_parallel_streamscan = off;
SELECT count(*) FROM pq WHERE b < 20;
SELECT mode, relation::regclass FROM pg_locks
WHERE locktype = 'relation' AND mode = 'SIReadLock' AND relation = 'pq'::regclass;
COMMIT;

--
-- pgstat: one sequential scan counted per participant, as core counts them
--
SET parallel_leader_participation = off;
SELECT pg_stat_force_next_flush();
SELECT seq_scan AS before FROM pg_stat_user_tables WHERE relid = 'pq'::regclass \gset
SELECT count(*) FROM pq WHERE b < 20;
SELECT pg_stat_force_next_flush();
SELECT seq_scan - :before AS on_scans FROM pg_stat_user_tables WHERE relid = 'pq'::regclass \gset
SET memprobe.enable_parallel_streamscan = off;
SELECT pg_stat_force_next_flush();
SELECT seq_scan AS before FROM pg_stat_user_tables WHERE relid = 'pq'::regclass \gset
SELECT count(*) FROM pq WHERE b < 20;
SELECT pg_stat_force_next_flush();
SELECT seq_scan - :before AS off_scans FROM pg_stat_user_tables WHERE relid = 'pq'::regclass \gset
SELECT :on_scans AS on_scans, :off_scans AS off_scans;
RESET memprobe.enable_parallel_streamscan;
RESET parallel_leader_participation;

DROP SCHEMA streamscan_parallel CASCADE;
