--
-- StreamScan: memprobe's heap sequential scan (Custom Scan
-- "MemprobeStreamScan") is planned exactly where core plans a Seq Scan and
-- returns what core's scan returns.  Each check runs a query with the node
-- (memprobe.enable_streamscan = on) and with core's Seq Scan (off) in the
-- same session, checks that the plans use the node, resp. core's scan, and
-- compares the rows, in order.
--
-- This file: the settings, plan choice, EXPLAIN, pgstat, serializable,
-- partitions, inheritance, temp / unlogged tables, a materialized view,
-- catalogs, prepared statements, parameterized scans, parallel query and
-- row-level security.  streamscan_types: column types, TOAST, dropped and
-- added columns, system columns, dead tuples, UPDATE / DELETE / locking.
-- streamscan_cursors: cursors, backward scans, rescans.
--
CREATE SCHEMA streamscan;
SET search_path = streamscan, public;

-- plan(), scans(), rows_of(), same_rows(), compare(), scan_stats(): see the file
\getenv abs_srcdir PG_ABS_SRCDIR
\set helpers :abs_srcdir '/sql/streamscan_helpers.psql'
\i :helpers

-- small temp buffers (set before the first temp table): the temp table below
-- is larger than them
SET temp_buffers = '1MB';

--
-- The settings and their defaults
--
SHOW memprobe.enable_streamscan;
SHOW memprobe.streamscan_distance;
SELECT name, setting, boot_val, min_val, max_val, vartype, context
FROM pg_settings WHERE name IN ('memprobe.enable_streamscan', 'memprobe.streamscan_distance')
ORDER BY name;
SET memprobe.streamscan_distance = 4097;
SET memprobe.streamscan_distance = -1;

CREATE TABLE ss_t (a int, b int, c text);
INSERT INTO ss_t SELECT g, g % 10, 'row ' || g FROM generate_series(1, 3000) g;
ANALYZE ss_t;
SELECT pg_relation_size('ss_t') / 8192 AS pages;

--
-- Plan choice: the node where core has a Seq Scan, and nowhere else
--
SELECT plan('SELECT * FROM ss_t');
SET memprobe.enable_streamscan = off;
SELECT plan('SELECT * FROM ss_t');
RESET memprobe.enable_streamscan;

SELECT compare('SELECT * FROM ss_t');
SELECT compare('SELECT a, c FROM ss_t WHERE b = 3');
SELECT compare('SELECT count(*), sum(a), max(c), min(b) FROM ss_t');
SELECT compare('SELECT b, count(*), sum(a) FROM ss_t GROUP BY b ORDER BY b');
SELECT compare('SELECT a * 2, upper(c), b IS NULL FROM ss_t WHERE a % 7 = 0 AND c LIKE ''%5''');
SELECT compare('SELECT ss_t FROM ss_t WHERE a > 2990');            -- whole-row Var
SELECT compare('SELECT * FROM ss_t LIMIT 5');
SELECT compare('SELECT * FROM ss_t OFFSET 2995');
SELECT compare('SELECT * FROM ss_t WHERE a < 0');                 -- nothing qualifies
-- a pseudoconstant qual: a gating Result above the scan
SELECT plan('SELECT a FROM ss_t WHERE current_user IS NOT NULL AND a < 4');
SELECT compare('SELECT a FROM ss_t WHERE current_user IS NOT NULL AND a < 4');
-- an empty table
CREATE TABLE ss_empty (a int);
SELECT compare('SELECT * FROM ss_empty');
-- in a join, both sides
SELECT compare('SELECT x.a, y.a FROM ss_t x JOIN ss_t y ON x.a = y.a + 1 WHERE y.b = 0 ORDER BY 1');
-- a qual with a (hashed) subplan
SELECT compare('SELECT a FROM ss_t WHERE a NOT IN (SELECT a * 2 FROM ss_t WHERE b < 5) AND a < 30');
-- a TID scan stays core's
SELECT plan('SELECT * FROM ss_t WHERE ctid = ''(1,1)''');
SELECT compare('SELECT * FROM ss_t WHERE ctid = ''(1,1)''');
-- COPY from a query
COPY (SELECT a, c FROM ss_t WHERE a % 750 = 0) TO STDOUT;
SET memprobe.enable_streamscan = off;
COPY (SELECT a, c FROM ss_t WHERE a % 750 = 0) TO STDOUT;
RESET memprobe.enable_streamscan;
-- an error in the middle of the scan, the same as core's;
-- the next scans are not affected
SELECT count(*) FROM ss_t WHERE CASE WHEN a = 1600 THEN 1 / (a - 1600) ELSE 1 END = 1;
SET memprobe.enable_streamscan = off;
SELECT count(*) FROM ss_t WHERE CASE WHEN a = 1600 THEN 1 / (a - 1600) ELSE 1 END = 1;
RESET memprobe.enable_streamscan;
SELECT compare('SELECT * FROM ss_t');

-- enable_seqscan = off: without an index the (disabled) Seq Scan is still
-- core's only path, and the node takes its place; with an index, core's
-- index scan wins either way
SET enable_seqscan = off;
SELECT compare('SELECT count(*) FROM ss_t');
CREATE INDEX ss_t_a ON ss_t (a);
SELECT compare('SELECT * FROM ss_t WHERE a < 20');
SELECT compare('SELECT count(*) FROM ss_t');
RESET enable_seqscan;

-- index scans are not affected
SELECT plan('SELECT * FROM ss_t WHERE a = 42');
SELECT compare('SELECT * FROM ss_t WHERE a = 42');
SET enable_indexscan = off;
SELECT plan('SELECT * FROM ss_t WHERE a = 42');
SELECT compare('SELECT * FROM ss_t WHERE a = 42');
RESET enable_indexscan;
DROP INDEX ss_t_a;

-- TABLESAMPLE is core's Sample Scan
SELECT plan('SELECT * FROM ss_t TABLESAMPLE SYSTEM (50) REPEATABLE (1)');
SELECT compare('SELECT * FROM ss_t TABLESAMPLE BERNOULLI (10) REPEATABLE (7)', false);

-- a table access method other than heap (heap's handler under another
-- name: not heap's OID) is scanned by core
CREATE ACCESS METHOD ss_heap2 TYPE TABLE HANDLER heap_tableam_handler;
CREATE TABLE ss_am (a int, b text) USING ss_heap2;
INSERT INTO ss_am SELECT g, 'am ' || g FROM generate_series(1, 500) g;
SELECT plan('SELECT * FROM ss_am');
SELECT compare('SELECT * FROM ss_am');
SELECT compare('SELECT * FROM ss_am JOIN ss_t USING (a) WHERE ss_t.b = 1');

--
-- EXPLAIN VERBOSE: the same as core's but for the node's name
--
CREATE FUNCTION verbose_same(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  on_lines text[] := '{}';
  off_lines text[] := '{}';
  line text;
BEGIN
  SET LOCAL memprobe.enable_streamscan = on;
  FOR line IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || q LOOP
    on_lines := on_lines || line;
  END LOOP;
  SET LOCAL memprobe.enable_streamscan = off;
  FOR line IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || q LOOP
    off_lines := off_lines || line;
  END LOOP;
  RETURN format('node on: %s, off: %s; same apart from the name: %s',
    array_to_string(on_lines, E'\n') LIKE '%Custom Scan (MemprobeStreamScan) on %',
    array_to_string(off_lines, E'\n') LIKE '%Custom Scan (MemprobeStreamScan) on %',
    (SELECT array_agg(replace(l, 'Custom Scan (MemprobeStreamScan) on ', 'Seq Scan on '))
     FROM unnest(on_lines) l) = off_lines);
END $$;
SELECT verbose_same('SELECT a, b + 1, c FROM ss_t WHERE b = 3 AND c <> ''x''');
SELECT verbose_same('SELECT * FROM ss_t');
SELECT verbose_same('SELECT ss_t, ctid FROM ss_t');
-- below a join or an aggregate, core's Seq Scan returns the table's rows as
-- they are (a physical target list: "Output: a, b, c", no projection); the
-- planner never does that for a custom scan (createplan.c, use_physical_tlist),
-- so memprobe's node lists, and projects, only the columns used: EXPLAIN
-- VERBOSE differs ("f"), the rows do not (compare() above and below)
SELECT verbose_same('SELECT x.a, y.c FROM ss_t x JOIN ss_t y ON x.a = y.b WHERE x.b = 2');
SELECT verbose_same('SELECT b, count(*) FROM ss_t GROUP BY b');

--
-- EXPLAIN ANALYZE (FORMAT JSON): the node's keys
--
-- a full scan reads every page once
SELECT (s->>'Actual Rows')::numeric::int AS rows,
       (s->>'Pages')::int AS pages,
       (s->>'Pages')::int = pg_relation_size('ss_t') / 8192 AS all_pages,
       (s->>'Pages Hit')::int + (s->>'Pages Read')::int = (s->>'Pages')::int AS hit_plus_read,
       s ? 'Look-ahead' AS look_ahead_key
FROM scan_stats('SELECT * FROM ss_t') s;
SELECT (s->>'Actual Rows')::numeric::int AS rows,
       (s->>'Rows Removed by Filter')::numeric::int AS removed,
       (s->>'Pages')::int = pg_relation_size('ss_t') / 8192 AS all_pages,
       (s->>'Pages Hit')::int + (s->>'Pages Read')::int = (s->>'Pages')::int AS hit_plus_read
FROM scan_stats('SELECT count(*) FROM ss_t WHERE b = 5') s;
-- the node's row counts in EXPLAIN ANALYZE are core's: rows, rows removed by
-- the filter, loops (summed over the query's scans of the table)
CREATE FUNCTION explain_counts(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  saved text := current_setting('memprobe.enable_streamscan');
  j jsonb;
  counts_on text;
  counts_off text;
  counts_sql text := 'SELECT format(''scans=%s rows=%s removed=%s loops=%s'', count(*),
      sum((n->>''Actual Rows'')::numeric * (n->>''Actual Loops'')::int)::int,
      coalesce(sum((n->>''Rows Removed by Filter'')::numeric), 0)::int,
      sum((n->>''Actual Loops'')::int))
    FROM jsonb_path_query($1, ''strict $.** ? (@."Node Type" == $t)'', jsonb_build_object(''t'', $2)) n';
BEGIN
  PERFORM set_config('memprobe.enable_streamscan', 'on', false);
  EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q INTO j;
  EXECUTE counts_sql INTO counts_on USING j, 'Custom Scan';
  PERFORM set_config('memprobe.enable_streamscan', 'off', false);
  EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q INTO j;
  EXECUTE counts_sql INTO counts_off USING j, 'Seq Scan';
  PERFORM set_config('memprobe.enable_streamscan', saved, false);
  RETURN format('on: %s | %s', counts_on,
                CASE WHEN counts_on = counts_off THEN 'same as core' ELSE 'core: ' || counts_off END);
END $$;
SELECT explain_counts('SELECT * FROM ss_t WHERE b = 5');
SELECT explain_counts('SELECT * FROM ss_t WHERE a > 100 AND a <= 2900 AND b <> 3 AND c LIKE ''%7%''');
SELECT explain_counts('SELECT * FROM ss_t WHERE a::int8 < 50 OR b::int2 = 9');
SELECT explain_counts('SELECT * FROM ss_t WHERE b = 5 LIMIT 7');
SELECT explain_counts('SELECT x.a FROM ss_t x JOIN ss_t y ON x.a = y.a * 3 WHERE y.b = 1 AND x.b < 5');
-- a LIMIT stops on the first page
SELECT (s->>'Actual Rows')::numeric::int AS rows, (s->>'Pages')::int AS pages
FROM scan_stats('SELECT * FROM ss_t LIMIT 5') s;
-- EXPLAIN without ANALYZE adds nothing, nor does a node never run
SELECT s ? 'Pages' AS pages_key, s ? 'Look-ahead' AS look_ahead_key
FROM scan_stats('SELECT * FROM ss_t', false) s;
SELECT (s->>'Actual Loops')::int AS loops, s ? 'Pages' AS pages_key, s ? 'Look-ahead' AS look_ahead_key
FROM scan_stats('SELECT * FROM ss_t WHERE current_user IS NULL') s;
-- the other formats: the node's lines / keys, with the full scan's page count
CREATE FUNCTION explain_matches(q text, fmt text, pattern text) RETURNS bool LANGUAGE plpgsql AS $$
DECLARE
  line text;
  found bool := false;
BEGIN
  FOR line IN EXECUTE format('EXPLAIN (ANALYZE, FORMAT %s, COSTS OFF, TIMING OFF, SUMMARY OFF) %s', fmt, q) LOOP
    found := found OR line ~ pattern;
  END LOOP;
  RETURN found;
END $$;
SELECT explain_matches('SELECT * FROM ss_t', 'TEXT', '^\s+Look-ahead: (prefetch|read_stream)') AS text_look_ahead,
       explain_matches('SELECT * FROM ss_t', 'TEXT', '^\s+Pages: 19  hit=\d+  read=\d+$') AS text_pages,
       explain_matches('SELECT * FROM ss_t', 'XML', '<Pages>19</Pages>') AS xml_pages,
       explain_matches('SELECT * FROM ss_t', 'YAML', '\n\s+Pages: 19\n') AS yaml_pages;

-- A scan that stops early: Pages counts what it consumed (1 page for a LIMIT 1, 19 for the
-- whole table), and hit + read - unused adds up to it (17 and 18's read_stream pins blocks
-- ahead, counted in hit or read and shown apart as unused; on 15 unused is 0).
CREATE FUNCTION pages_figures(q text, OUT pages int8, OUT adds_up bool) LANGUAGE plpgsql AS $$
DECLARE
  plan jsonb;
  node jsonb;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q INTO plan;
  SELECT v INTO node FROM jsonb_path_query(plan, 'strict $.** ? (exists (@."Pages Hit"))') v LIMIT 1;
  pages := (node->>'Pages')::int8;
  adds_up := (node->>'Pages Hit')::int8 + (node->>'Pages Read')::int8
             - (node->>'Pages Read Ahead Unused')::int8 = pages;
END $$;
-- and hit + read are the buffers core's own Seq Scan pins for the same query (its Buffers line),
-- read-ahead included
CREATE FUNCTION core_buffers(q text) RETURNS int8 LANGUAGE plpgsql AS $$
DECLARE
  plan jsonb;
BEGIN
  PERFORM set_config('memprobe.enable_streamscan', 'off', true);
  EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q INTO plan;
  PERFORM set_config('memprobe.enable_streamscan', 'on', true);
  RETURN (SELECT (v->>'Shared Hit Blocks')::int8 + (v->>'Shared Read Blocks')::int8
            FROM jsonb_path_query(plan, 'strict $.** ? (@."Node Type" == "Seq Scan")') v LIMIT 1);
END $$;
CREATE FUNCTION memprobe_buffers(q text) RETURNS int8 LANGUAGE plpgsql AS $$
DECLARE
  plan jsonb;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q INTO plan;
  RETURN (SELECT (v->>'Pages Hit')::int8 + (v->>'Pages Read')::int8
            FROM jsonb_path_query(plan, 'strict $.** ? (exists (@."Pages Hit"))') v LIMIT 1);
END $$;
SELECT q, p.pages, p.adds_up, memprobe_buffers(q) = core_buffers(q) AS buffers_as_core
  FROM (VALUES ('SELECT * FROM ss_t LIMIT 1'), ('SELECT * FROM ss_t'),
               ('SELECT 1 WHERE EXISTS (SELECT FROM ss_t)')) v(q),
       LATERAL pages_figures(q) p;
DROP FUNCTION pages_figures(text), core_buffers(text), memprobe_buffers(text);

--
-- memprobe.streamscan_distance: 0 (no look-ahead) and 1 give the same rows
--
SET memprobe.streamscan_distance = 0;
SELECT s->>'Look-ahead' AS look_ahead,
       (s->>'Pages')::int = pg_relation_size('ss_t') / 8192 AS all_pages,
       (s->>'Pages Hit')::int + (s->>'Pages Read')::int = (s->>'Pages')::int AS hit_plus_read
FROM scan_stats('SELECT * FROM ss_t') s;
SELECT compare('SELECT * FROM ss_t');
SELECT compare('SELECT * FROM ss_t WHERE b = 9 LIMIT 20');
SET memprobe.streamscan_distance = 1;
SELECT s->>'Look-ahead' <> 'off' AS looks_ahead,
       (s->>'Pages')::int = pg_relation_size('ss_t') / 8192 AS all_pages,
       (s->>'Pages Hit')::int + (s->>'Pages Read')::int = (s->>'Pages')::int AS hit_plus_read
FROM scan_stats('SELECT * FROM ss_t') s;
SELECT compare('SELECT * FROM ss_t');
SELECT compare('SELECT * FROM ss_t WHERE b = 9 LIMIT 20');
SET memprobe.streamscan_distance = 4096;
SELECT compare('SELECT * FROM ss_t');
-- read when the plan starts, not when it is made
RESET memprobe.streamscan_distance;
PREPARE ss_dist AS SELECT count(*) FROM ss_t;
SET memprobe.streamscan_distance = 0;
SELECT s->>'Look-ahead' AS look_ahead FROM scan_stats('EXECUTE ss_dist') s;
DEALLOCATE ss_dist;
RESET memprobe.streamscan_distance;

--
-- pgstat: the node counts a sequential scan per scan and rescan, and each
-- tuple it reads, as core does (EXPLAIN alone counts nothing)
--
CREATE TABLE ss_stat (a int, b int);
INSERT INTO ss_stat SELECT g, g % 3 FROM generate_series(1, 2000) g;
CREATE TABLE ss_outer (k int);
INSERT INTO ss_outer VALUES (1), (2), (3), (4);
ANALYZE ss_stat, ss_outer;
-- stat_compare(rel, q): what EXPLAIN q and then q add to rel's scan and
-- tuple counts, with the node and with core's scan.  Inside one function
-- call, nothing is flushed, so the transaction's counts
-- (pg_stat_get_xact_*) grow by exactly what q counted.
CREATE FUNCTION stat_delta(rel regclass, q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  s0 bigint := pg_stat_get_xact_numscans(rel);
  t0 bigint := pg_stat_get_xact_tuples_returned(rel);
  kinds text;
  after_explain text;
BEGIN
  kinds := scans(q);
  after_explain := format('+%s/+%s', pg_stat_get_xact_numscans(rel) - s0,
                          pg_stat_get_xact_tuples_returned(rel) - t0);
  EXECUTE q;
  RETURN format('%s: explain %s, scans +%s, tuples +%s', kinds, after_explain,
                pg_stat_get_xact_numscans(rel) - s0, pg_stat_get_xact_tuples_returned(rel) - t0);
END $$;
CREATE FUNCTION stat_compare(rel regclass, q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  saved text := current_setting('memprobe.enable_streamscan');
BEGIN
  PERFORM set_config('memprobe.enable_streamscan', 'on', false);
  RETURN NEXT 'on:  ' || stat_delta(rel, q);
  PERFORM set_config('memprobe.enable_streamscan', 'off', false);
  RETURN NEXT 'off: ' || stat_delta(rel, q);
  PERFORM set_config('memprobe.enable_streamscan', saved, false);
END $$;
SELECT stat_compare('ss_stat', 'SELECT count(*) FROM ss_stat WHERE b = 1');
SELECT stat_compare('ss_stat', 'SELECT * FROM ss_stat WHERE a > 1995');
SELECT stat_compare('ss_stat', 'SELECT * FROM ss_stat LIMIT 3');
SELECT stat_compare('ss_stat', 'SELECT * FROM ss_stat WHERE a < 0');
-- rescans of a nested loop's inner side
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SET memprobe.enable_material = off;
SET enable_memoize = off;
SELECT plan('SELECT count(*) FROM ss_outer o JOIN ss_stat s ON s.a = o.k * 100');
SELECT stat_compare('ss_stat', 'SELECT count(*) FROM ss_outer o JOIN ss_stat s ON s.a = o.k * 100');
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;
RESET memprobe.enable_material;
RESET enable_memoize;
-- the same counts reach pg_stat_user_tables: the same increase with the node
-- as with core
CREATE TEMP TABLE ss_stat_log (step text, seq_scan bigint, seq_tup_read bigint);
SELECT pg_stat_force_next_flush();
INSERT INTO ss_stat_log SELECT 'start', seq_scan, seq_tup_read FROM pg_stat_user_tables WHERE relid = 'ss_stat'::regclass;
SET memprobe.enable_streamscan = on;
SELECT count(*) FROM ss_stat WHERE b = 2;
SELECT sum(a) FROM ss_stat;
SELECT pg_stat_force_next_flush();
INSERT INTO ss_stat_log SELECT 'on', seq_scan, seq_tup_read FROM pg_stat_user_tables WHERE relid = 'ss_stat'::regclass;
SET memprobe.enable_streamscan = off;
SELECT count(*) FROM ss_stat WHERE b = 2;
SELECT sum(a) FROM ss_stat;
SELECT pg_stat_force_next_flush();
INSERT INTO ss_stat_log SELECT 'off', seq_scan, seq_tup_read FROM pg_stat_user_tables WHERE relid = 'ss_stat'::regclass;
RESET memprobe.enable_streamscan;
SELECT step, seq_scan - lag(seq_scan) OVER w AS seq_scan_delta,
       seq_tup_read - lag(seq_tup_read) OVER w AS seq_tup_read_delta
FROM ss_stat_log WINDOW w AS (ORDER BY CASE step WHEN 'start' THEN 0 WHEN 'on' THEN 1 ELSE 2 END)
ORDER BY CASE step WHEN 'start' THEN 0 WHEN 'on' THEN 1 ELSE 2 END;

--
-- SERIALIZABLE: a predicate lock on the relation, as core's scan takes
--
BEGIN ISOLATION LEVEL SERIALIZABLE;
SET LOCAL memprobe.enable_streamscan = on;
SELECT scans('SELECT count(*) FROM ss_stat WHERE b = 1');
SELECT count(*) FROM ss_stat WHERE b = 1;
SELECT locktype, relation::regclass, page, tuple, mode FROM pg_locks
WHERE pid = pg_backend_pid() AND mode = 'SIReadLock' ORDER BY relation::regclass::text;
COMMIT;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SET LOCAL memprobe.enable_streamscan = off;
SELECT scans('SELECT count(*) FROM ss_stat WHERE b = 1');
SELECT count(*) FROM ss_stat WHERE b = 1;
SELECT locktype, relation::regclass, page, tuple, mode FROM pg_locks
WHERE pid = pg_backend_pid() AND mode = 'SIReadLock' ORDER BY relation::regclass::text;
COMMIT;

--
-- Partitions: each partition is scanned by the node under the Append
--
CREATE TABLE ss_pt (k int, v text) PARTITION BY RANGE (k);
CREATE TABLE ss_pt1 PARTITION OF ss_pt FOR VALUES FROM (0) TO (1000);
CREATE TABLE ss_pt2 PARTITION OF ss_pt FOR VALUES FROM (1000) TO (2000);
CREATE TABLE ss_pt3 PARTITION OF ss_pt FOR VALUES FROM (2000) TO (3000);
CREATE TABLE ss_pt_am PARTITION OF ss_pt FOR VALUES FROM (3000) TO (4000) USING ss_heap2;
CREATE TABLE ss_ptd PARTITION OF ss_pt DEFAULT;
INSERT INTO ss_pt SELECT g, 'p' || g FROM generate_series(0, 4999, 3) g;
ANALYZE ss_pt;
SELECT plan('SELECT * FROM ss_pt');
SELECT compare('SELECT * FROM ss_pt');
SELECT compare('SELECT tableoid::regclass, count(*), min(k), max(k) FROM ss_pt GROUP BY 1 ORDER BY 1');
-- pruned at plan time
SELECT plan('SELECT * FROM ss_pt WHERE k >= 1500 AND k < 2500');
SELECT compare('SELECT * FROM ss_pt WHERE k >= 1500 AND k < 2500');
SELECT plan('SELECT * FROM ss_pt WHERE k = 2001');
SELECT compare('SELECT * FROM ss_pt WHERE k = 2001');
-- pruned when a generic plan starts
SET plan_cache_mode = force_generic_plan;
PREPARE ss_pq_on(int) AS SELECT * FROM ss_pt WHERE k < $1;
SET memprobe.enable_streamscan = off;
PREPARE ss_pq_off(int) AS SELECT * FROM ss_pt WHERE k < $1;
RESET memprobe.enable_streamscan;
SELECT plan('EXECUTE ss_pq_on(800)');
SELECT explain_json('EXECUTE ss_pq_on(800)')->0->'Plan'->>'Subplans Removed' AS subplans_removed;
SELECT plan('EXECUTE ss_pq_on(2700)');
SELECT same_rows(rows_of('EXECUTE ss_pq_on(800)'), rows_of('EXECUTE ss_pq_off(800)')), cardinality(rows_of('EXECUTE ss_pq_on(800)'));
SELECT same_rows(rows_of('EXECUTE ss_pq_on(2700)'), rows_of('EXECUTE ss_pq_off(2700)')), cardinality(rows_of('EXECUTE ss_pq_on(2700)'));
DEALLOCATE ss_pq_on;
DEALLOCATE ss_pq_off;
RESET plan_cache_mode;
-- joins between partitioned tables, partitionwise
SET enable_partitionwise_join = on;
SELECT compare('SELECT a.k, b.v FROM ss_pt a JOIN ss_pt b ON a.k = b.k WHERE a.k % 100 = 1 ORDER BY 1');
RESET enable_partitionwise_join;

--
-- Inheritance: the parent's own rows and each child's, each by the node
--
CREATE TABLE ss_par (a int, b text);
CREATE TABLE ss_ch1 () INHERITS (ss_par);
CREATE TABLE ss_ch2 (extra int DEFAULT 7) INHERITS (ss_par);
CREATE TABLE ss_ch_am () INHERITS (ss_par) USING ss_heap2;
INSERT INTO ss_par SELECT g, 'parent' FROM generate_series(1, 300) g;
INSERT INTO ss_ch1 SELECT g, 'ch1' FROM generate_series(301, 900) g;
INSERT INTO ss_ch2 SELECT g, 'ch2' FROM generate_series(901, 1200) g;
INSERT INTO ss_ch_am SELECT g, 'am' FROM generate_series(1201, 1300) g;
SELECT plan('SELECT * FROM ss_par');
SELECT compare('SELECT * FROM ss_par');
SELECT compare('SELECT tableoid::regclass, count(*), sum(a) FROM ss_par GROUP BY 1 ORDER BY 1');
SELECT compare('SELECT * FROM ONLY ss_par WHERE a % 50 = 0');
SELECT compare('SELECT * FROM ss_ch2 WHERE a % 50 = 0');

--
-- Temporary (local buffers, more pages than temp_buffers), unlogged tables
-- and a materialized view
--
CREATE TEMP TABLE ss_temp AS
  SELECT g AS a, md5(g::text) AS b FROM generate_series(1, 20000) g;
SELECT pg_relation_size('ss_temp') / 8192 > 128 AS larger_than_temp_buffers;
SELECT plan('SELECT * FROM ss_temp');
SELECT compare('SELECT count(*), sum(a), md5(string_agg(b, '','')) FROM ss_temp');
SELECT compare('SELECT * FROM ss_temp WHERE a % 1000 = 0');
SELECT (s->>'Pages')::int = pg_relation_size('ss_temp') / 8192 AS all_pages,
       (s->>'Pages Hit')::int + (s->>'Pages Read')::int = (s->>'Pages')::int AS hit_plus_read
FROM scan_stats('SELECT count(*) FROM ss_temp') s;
-- several temp-table scans open at once (nested loop: the outer scan is
-- suspended while the inner ones run, each larger than temp_buffers)
CREATE TEMP TABLE ss_temp2 AS SELECT a, b FROM ss_temp;
CREATE TEMP TABLE ss_temp3 AS SELECT a, b FROM ss_temp;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SET memprobe.enable_material = off;
SELECT compare('SELECT t1.a, t2.a, t3.b FROM ss_temp t1 JOIN ss_temp2 t2 ON t2.a = t1.a * 7
                JOIN ss_temp3 t3 ON t3.a = t2.a + 1 WHERE t1.a < 4');
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;
RESET memprobe.enable_material;
CREATE UNLOGGED TABLE ss_unlogged AS SELECT g AS a, g % 5 AS b FROM generate_series(1, 2000) g;
SELECT plan('SELECT * FROM ss_unlogged');
SELECT compare('SELECT * FROM ss_unlogged WHERE b = 4');
CREATE MATERIALIZED VIEW ss_mv AS SELECT b, count(*) AS n, sum(a) AS s FROM ss_t GROUP BY b;
SELECT plan('SELECT * FROM ss_mv');
SELECT compare('SELECT * FROM ss_mv');
REFRESH MATERIALIZED VIEW ss_mv;
SELECT compare('SELECT * FROM ss_mv ORDER BY b');
-- CONCURRENTLY compares the old and new contents with a query
CREATE UNIQUE INDEX ss_mv_b ON ss_mv (b);
UPDATE ss_t SET b = 10 WHERE a = 3000;
REFRESH MATERIALIZED VIEW CONCURRENTLY ss_mv;
SET memprobe.enable_streamscan = off;
REFRESH MATERIALIZED VIEW CONCURRENTLY ss_mv;
RESET memprobe.enable_streamscan;
SELECT compare('SELECT * FROM ss_mv WHERE b >= 9');
SELECT * FROM ss_mv WHERE b >= 9 ORDER BY b;
UPDATE ss_t SET b = 0 WHERE a = 3000;

--
-- System catalogs
--
SELECT compare('SELECT count(*), sum(relnatts) FROM pg_class', false);
SELECT compare('SELECT oid, relname, relkind FROM pg_class', false);
SELECT compare('SELECT attrelid, attname, atttypid FROM pg_attribute', false);
SELECT compare('SELECT oid, proname, prosrc FROM pg_proc', false);
SELECT compare('SELECT relname, relkind FROM pg_class WHERE lower(relname) LIKE ''ss\_pt%'' ORDER BY 1');

--
-- Prepared statements: a generic plan with a parameter
--
SET plan_cache_mode = force_generic_plan;
PREPARE ss_q(int) AS SELECT a, c FROM ss_t WHERE b = $1 AND a < 100;
SELECT plan('EXECUTE ss_q(3)');
EXECUTE ss_q(3);
SET memprobe.enable_streamscan = off;
PREPARE ss_q_off(int) AS SELECT a, c FROM ss_t WHERE b = $1 AND a < 100;
SELECT plan('EXECUTE ss_q_off(3)');
-- a cached plan keeps the scan it was planned with
SELECT plan('EXECUTE ss_q(3)');
RESET memprobe.enable_streamscan;
SELECT same_rows(rows_of('EXECUTE ss_q(3)'), rows_of('EXECUTE ss_q_off(3)'));
SELECT same_rows(rows_of('EXECUTE ss_q(7)'), rows_of('EXECUTE ss_q_off(7)'));
SELECT same_rows(rows_of('EXECUTE ss_q(11)'), rows_of('EXECUTE ss_q_off(11)')), cardinality(rows_of('EXECUTE ss_q(11)'));
DEALLOCATE ss_q;
DEALLOCATE ss_q_off;
RESET plan_cache_mode;

--
-- Parameterized scans: a lateral reference, and a correlated subquery
--
CREATE TABLE ss_small (k int);
INSERT INTO ss_small VALUES (1), (4), (9), (12);
ANALYZE ss_small;
SET enable_memoize = off;
-- the lateral reference (a PlaceHolderVar computed by the inner scan) makes
-- the inner scan parameterized by s: t.b = s.k is its filter
SELECT plan('SELECT s.k, y.* FROM ss_small s LEFT JOIN LATERAL (SELECT s.k AS sk, t.a FROM ss_t t WHERE t.b = s.k AND t.a < 50) y ON true');
SELECT compare('SELECT s.k, y.* FROM ss_small s LEFT JOIN LATERAL (SELECT s.k AS sk, t.a FROM ss_t t WHERE t.b = s.k AND t.a < 50) y ON true');
SELECT plan('SELECT s.k, (SELECT count(*) FROM ss_t t WHERE t.b = s.k) FROM ss_small s');
SELECT compare('SELECT s.k, (SELECT count(*) FROM ss_t t WHERE t.b = s.k) FROM ss_small s');
SELECT compare('SELECT s.k, y.* FROM ss_small s, LATERAL (SELECT a, c FROM ss_t t WHERE t.a > s.k * 200 LIMIT 3) y');
RESET enable_memoize;

--
-- Parallel query
--
-- debug_parallel_query (force_parallel_mode before 16): the node runs in a
-- worker, under a Gather.  The rows are compared at top level (queries run
-- by PL/pgSQL loops are not parallel).
SELECT set_config(CASE WHEN current_setting('server_version_num')::int >= 160000
                       THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END, 'on', false);
SELECT plan('SELECT a, c FROM ss_t WHERE b = 3');
SELECT plan('SELECT md5(string_agg(ss_t::text, '','')) FROM ss_t WHERE b <> 3');
SET memprobe.enable_streamscan = off;
SELECT plan('SELECT a, c FROM ss_t WHERE b = 3');
SELECT count(*), md5(string_agg(ss_t::text, ',')) FROM ss_t WHERE b <> 3;
SELECT count(*), md5(string_agg(ss_pt::text, ',')) FROM ss_pt;
RESET memprobe.enable_streamscan;
SELECT count(*), md5(string_agg(ss_t::text, ',')) FROM ss_t WHERE b <> 3;
SELECT count(*), md5(string_agg(ss_pt::text, ',')) FROM ss_pt;
SELECT a, c FROM ss_t WHERE a % 500 = 0;
SELECT set_config(CASE WHEN current_setting('server_version_num')::int >= 160000
                       THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END, 'off', false);
-- a parallel plan: memprobe's parallel-aware scan (streamscan_parallel has
-- the rest), core's Parallel Seq Scan with memprobe.enable_parallel_streamscan off
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT plan('SELECT count(*), sum(a) FROM ss_t WHERE b < 5');
SELECT count(*), sum(a) FROM ss_t WHERE b < 5;
SET memprobe.enable_parallel_streamscan = off;
SELECT plan('SELECT count(*), sum(a) FROM ss_t WHERE b < 5');
SELECT count(*), sum(a) FROM ss_t WHERE b < 5;
RESET memprobe.enable_parallel_streamscan;
-- a non-partial StreamScan under Gather: each worker, and the leader, scan
-- the whole inner relation.  EXPLAIN ANALYZE's page counts are the leader's
-- alone (core gives custom scans no way to gather their workers' own
-- figures) and say so; with the leader out of it, they say none were counted.
CREATE TABLE ss_gather_outer AS SELECT g % 3000 AS a FROM generate_series(1, 200000) g;
ANALYZE ss_gather_outer;
SET enable_parallel_hash = off;
SELECT plan('SELECT count(*) FROM ss_gather_outer o JOIN ss_t t USING (a)');
SELECT count(*) FROM ss_gather_outer o JOIN ss_t t USING (a);
-- the leader and (as a rule: the outer side is large enough for every
-- process to get pages) the workers ran it: the counts say whose they are
SELECT CASE WHEN (s->>'Actual Loops')::int > 1
            THEN s->>'Pages Counted By' = 'leader' AND
                 (s->>'Workers Not Counted')::int = (s->>'Actual Loops')::int - 1
            ELSE NOT s ? 'Pages Counted By' END AS labelled,
       (s->>'Pages')::int = pg_relation_size('ss_t') / 8192 AS leader_pages
FROM scan_stats('SELECT count(*) FROM ss_gather_outer o JOIN ss_t t USING (a)', relname => 'ss_t') s;
-- only the workers ran it: no pages shown, and the workers named
SET parallel_leader_participation = off;
SELECT (s->>'Actual Loops')::int > 0 AS workers_ran, s->>'Pages Counted By' AS counted_by,
       (s->>'Workers Not Counted')::int = (s->>'Actual Loops')::int AS all_named,
       s ? 'Pages' AS has_pages
FROM scan_stats('SELECT count(*) FROM ss_gather_outer o JOIN ss_t t USING (a)', relname => 'ss_t') s;
RESET parallel_leader_participation;
RESET enable_parallel_hash;
DROP TABLE ss_gather_outer;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

--
-- Row-level security and a leaky function: the policy's qual runs first, so
-- the function only sees the rows the policy lets through (the NOTICEs),
-- with the node as with core
--
CREATE ROLE regress_memprobe_streamscan;
CREATE TABLE ss_rls (id int, owner text, secret text);
INSERT INTO ss_rls SELECT g, CASE WHEN g % 3 = 0 THEN 'regress_memprobe_streamscan' ELSE 'someone else' END,
                          'secret ' || g
FROM generate_series(1, 12) g;
ALTER TABLE ss_rls ENABLE ROW LEVEL SECURITY;
CREATE POLICY ss_rls_own ON ss_rls USING (owner = current_user);
GRANT USAGE ON SCHEMA streamscan TO regress_memprobe_streamscan;
GRANT SELECT ON ss_rls TO regress_memprobe_streamscan;
-- not LEAKPROOF, and cheap: only the security level keeps it after the policy
CREATE FUNCTION ss_leak(text) RETURNS bool LANGUAGE plpgsql COST 0.0000001 AS $$
BEGIN
  RAISE NOTICE 'ss_leak saw: %', $1;
  RETURN true;
END $$;
SET ROLE regress_memprobe_streamscan;
SELECT plan('SELECT id, secret FROM ss_rls WHERE ss_leak(secret)');
SELECT id, secret FROM ss_rls WHERE ss_leak(secret);
SET memprobe.enable_streamscan = off;
SELECT plan('SELECT id, secret FROM ss_rls WHERE ss_leak(secret)');
SELECT id, secret FROM ss_rls WHERE ss_leak(secret);
RESET memprobe.enable_streamscan;
RESET ROLE;
-- a security_barrier view, likewise
CREATE VIEW ss_rls_view WITH (security_barrier) AS
  SELECT id, secret FROM ss_rls WHERE id % 4 = 0;
SELECT id, secret FROM ss_rls_view WHERE ss_leak(secret);
SET memprobe.enable_streamscan = off;
SELECT id, secret FROM ss_rls_view WHERE ss_leak(secret);
RESET memprobe.enable_streamscan;
SELECT plan('SELECT id, secret FROM ss_rls_view WHERE ss_leak(secret)');

RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA streamscan CASCADE;
DROP ACCESS METHOD ss_heap2;
DROP ROLE regress_memprobe_streamscan;
