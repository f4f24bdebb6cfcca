--
-- GenMaterial under merge joins: a merge join gives its inner Material extra
-- marks, so that it drops the inner rows the join has passed (core's
-- ExecInitMergeJoin does so only for core's Material; memprobe's
-- ExecutorStart_hook does the same for its node).  Memory and temp files
-- must match core's: memprobe.enable_material on and off write the same temp
-- blocks and return the same rows.  On PostgreSQL 18 both are core's
-- Material, and the suite gives the same output.
--
CREATE SCHEMA material_mergejoin;
SET search_path = material_mergejoin, public;
SET memprobe.enable_streamscan = off;
SET max_parallel_workers_per_gather = 0;
SET jit = off;

-- The outer side has 10 keys, 2000 rows each; the inner has every key from 1
-- to 20000, so between two matches the join passes 1999 inner rows.  Both are
-- read through a sorted subquery, which cannot mark and restore: the planner
-- must put a Material on the inner.
CREATE TABLE mj_outer AS
  SELECT (g % 10 + 1) * 2000 AS a, repeat('o', 200) AS pad FROM generate_series(1, 20000) g;
CREATE TABLE mj_inner AS SELECT g AS a, g % 7 AS c FROM generate_series(1, 20000) g;
CREATE INDEX ON mj_outer (a);
CREATE INDEX ON mj_inner (a);
ANALYZE mj_outer, mj_inner;

-- Runs q under EXPLAIN (ANALYZE, BUFFERS) with memprobe.enable_material on
-- and off: whether the inner of the plan's merge join is the node expected
-- (memprobe's where it substitutes Material, PostgreSQL 15 to 17; core's when
-- off and on 18), where the node kept its tuples with the setting on
-- (PostgreSQL 15 and 17 print no such line for core's Material), and the
-- temp blocks the whole query wrote (the top node's count covers the plan);
-- then whether both return the same rows.
CREATE FUNCTION mj_compare(q text)
RETURNS TABLE (inner_as_expected bool, storage_on text,
               temp_written_on bigint, temp_written_off bigint, same_rows bool)
LANGUAGE plpgsql AS $$
DECLARE
  substitutes bool := current_setting('server_version_num')::int < 180000;
  plan jsonb;
  inners jsonb[];
  temps bigint[];
  digests text[];
  digest text;
  setting text;
BEGIN
  FOREACH setting IN ARRAY ARRAY['on', 'off'] LOOP
    PERFORM set_config('memprobe.enable_material', setting, true);
    EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q
      INTO plan;
    temps := temps || (plan->0->'Plan'->>'Temp Written Blocks')::bigint;
    inners := inners || (SELECT c FROM jsonb_path_query(plan, 'strict $.**') n,
                           jsonb_array_elements(n->'Plans') c
                         WHERE n->>'Node Type' = 'Merge Join'
                           AND c->>'Parent Relationship' = 'Inner');
    EXECUTE format('SELECT md5(string_agg(r::text, %L ORDER BY r::text)) FROM (%s) r', ';', q)
      INTO digest;
    digests := digests || digest;
  END LOOP;
  PERFORM set_config('memprobe.enable_material', 'on', true);
  inner_as_expected := inners[2]->>'Node Type' = 'Materialize' AND
    CASE WHEN substitutes THEN inners[1]->>'Custom Plan Provider' = 'MemprobeMaterial'
         ELSE inners[1]->>'Node Type' = 'Materialize' END;
  storage_on := inners[1]->>'Storage';
  temp_written_on := temps[1];
  temp_written_off := temps[2];
  same_rows := digests[1] IS NOT NULL AND digests[1] = digests[2];
  RETURN NEXT;
END $$;

SET enable_hashjoin = off; SET enable_nestloop = off; SET enable_sort = off;
-- 20000 inner rows take ~350kB: kept whole, they spill at 64kB
SET work_mem = '64kB';

-- inner join: core's Material keeps a few rows and writes nothing
SELECT * FROM mj_compare($$SELECT count(*), sum(i.c), sum(length(o.pad))
  FROM (SELECT a, pad FROM mj_outer ORDER BY a OFFSET 0) o
  JOIN (SELECT a, c FROM mj_inner ORDER BY a OFFSET 0) i ON i.a = o.a$$);

-- full join: the inner rows passed are also returned, null-extended, before
-- the join moves past them
SELECT * FROM mj_compare($$SELECT o.a, i.a, i.c
  FROM (SELECT a FROM mj_outer ORDER BY a OFFSET 0) o
  FULL JOIN (SELECT a, c FROM mj_inner ORDER BY a OFFSET 0) i ON i.a = o.a$$);

-- in a parallel worker, which starts the plan through ExecutorStart too
SELECT set_config(CASE WHEN current_setting('server_version_num')::int >= 160000
                       THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END,
                  'regress', false) IS NOT NULL AS forced_parallel;
SELECT * FROM mj_compare($$SELECT count(*), sum(i.c), sum(length(o.pad))
  FROM (SELECT a, pad FROM mj_outer ORDER BY a OFFSET 0) o
  JOIN (SELECT a, c FROM mj_inner ORDER BY a OFFSET 0) i ON i.a = o.a$$);
SELECT set_config(CASE WHEN current_setting('server_version_num')::int >= 160000
                       THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END,
                  'off', false) IS NOT NULL AS back_to_serial;

-- temp_file_limit: what core runs within its limit, memprobe runs too
SET temp_file_limit = '100kB';
SET memprobe.enable_material = off;
SELECT count(*), sum(i.c)
  FROM (SELECT a, pad FROM mj_outer ORDER BY a OFFSET 0) o
  JOIN (SELECT a, c FROM mj_inner ORDER BY a OFFSET 0) i ON i.a = o.a;
SET memprobe.enable_material = on;
SELECT count(*), sum(i.c)
  FROM (SELECT a, pad FROM mj_outer ORDER BY a OFFSET 0) o
  JOIN (SELECT a, c FROM mj_inner ORDER BY a OFFSET 0) i ON i.a = o.a;
RESET temp_file_limit;

RESET work_mem;
RESET enable_hashjoin; RESET enable_nestloop; RESET enable_sort;
RESET memprobe.enable_material;
RESET memprobe.enable_streamscan;
RESET max_parallel_workers_per_gather;
RESET jit;
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA material_mergejoin CASCADE;
