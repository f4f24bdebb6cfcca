--
-- GenMaterial's memory: what EXPLAIN ANALYZE reports, and that errors and
-- cancels leave nothing behind.
--
-- Core's Seq Scan below the Material nodes keeps these plans the same on every
-- version (StreamScan's own EXPLAIN lines differ between 15 and 17+).
SET memprobe.enable_streamscan = off;
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_memoize = off;

CREATE TABLE mm_outer AS SELECT g AS a FROM generate_series(1, 2) g;
CREATE TABLE mm_inner AS SELECT g AS a, repeat('a', 1024) AS b FROM generate_series(1, 8192) g;
ANALYZE mm_outer, mm_inner;

-- The node's EXPLAIN (ANALYZE) properties, as JSON.  q is planned with
-- work_mem at 64MB (so that the plan has the Material node) and run with
-- work_mem at run_wm, as a cached plan would be after work_mem changed.
CREATE FUNCTION mm_storage(q text, run_wm text DEFAULT '64MB') RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  plan jsonb;
  node jsonb;
  old_wm text := current_setting('work_mem');
BEGIN
  PERFORM set_config('work_mem', '64MB', false);
  EXECUTE 'PREPARE mm_p AS ' || q;
  EXECUTE 'EXPLAIN (COSTS OFF) EXECUTE mm_p';
  PERFORM set_config('work_mem', run_wm, false);
  EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, COSTS OFF, TIMING OFF, SUMMARY OFF) EXECUTE mm_p' INTO plan;
  DEALLOCATE mm_p;
  PERFORM set_config('work_mem', old_wm, false);
  SELECT n INTO node FROM jsonb_path_query(plan, 'strict $.**') n
  WHERE n ? 'Maximum Storage' LIMIT 1;
  RETURN node;
END $$;

-- the seed's case: 8192 tuples of (int, 1024 x 'a'), scanned twice, work_mem 64MB
SET work_mem = '64MB';
CREATE TEMP TABLE mm AS
SELECT 'generation' AS cxt,
       mm_storage('SELECT sum(length(b)) FROM generate_series(1, 2) g CROSS JOIN mm_inner') AS p;
SET memprobe.material_context = aset;
INSERT INTO mm SELECT 'aset',
       mm_storage('SELECT sum(length(b)) FROM generate_series(1, 2) g CROSS JOIN mm_inner');
RESET memprobe.material_context;
SELECT cxt, p->>'Node Type' AS node, p->>'Custom Plan Provider' AS provider,
       p->>'Storage' AS storage, p->>'Tuple Context' AS tuple_context
FROM mm ORDER BY cxt;
-- Generation stores each ~1KB tuple at its size, AllocSet in a 2kB chunk:
-- the same tuples are charged about half the work_mem ...
SELECT (a.p->>'Maximum Storage')::int >= 1.8 * (g.p->>'Maximum Storage')::int AS aset_at_least_1_8x,
       (g.p->>'Maximum Storage')::int BETWEEN 8192 AND 8800 AS generation_near_the_tuples,
-- ... and the context holds little more than it is charged (blocks up to 1MB)
       (g.p->>'Peak Memory Held')::int <= 1.15 * (g.p->>'Maximum Storage')::int AS held_within_1_15x
FROM mm a, mm g WHERE a.cxt = 'aset' AND g.cxt = 'generation';

-- the same work_mem holds the tuples with Generation and spills with
-- AllocSet (whose Maximum Storage, as PostgreSQL 18's, is the memory peak
-- just before spilling, the tuple that tipped it over included)
SELECT p->>'Storage' AS generation_storage
FROM mm_storage('SELECT sum(length(b)) FROM generate_series(1, 2) g CROSS JOIN mm_inner', '12MB') p;
SET memprobe.material_context = aset;
SELECT p->>'Storage' AS aset_storage,
       (p->>'Maximum Storage')::int BETWEEN 11 * 1024 AND 13 * 1024 AS max_storage_near_work_mem
FROM mm_storage('SELECT sum(length(b)) FROM generate_series(1, 2) g CROSS JOIN mm_inner', '12MB') p;
RESET memprobe.material_context;

-- spilled at 1MB: "Disk", and the maximum covers the temp file (the tuples
-- take about 8.4MB on disk)
SELECT p->>'Storage' AS storage,
       (p->>'Maximum Storage')::int BETWEEN 8000 AND 9000 AS max_is_the_file
FROM mm_storage('SELECT sum(length(b)) FROM generate_series(1, 2) g CROSS JOIN mm_inner', '1MB') p;

-- Peak Memory Held counts what the context held just before a spill, which
-- the spill frees before the put returns.  Three rows of 10MB: in memory
-- (64MB) the context holds all three; at 64kB the first row alone exceeds
-- work_mem, so the store goes to disk as that row arrives, holding the row
-- (and the temp file's buffer) until it is written out.  (How much more it
-- holds after that depends on the release: some Generation contexts keep the
-- freed row's block for reuse while the next row is held and written.)
CREATE TEMP TABLE mm_big AS
SELECT wm, held_rows,
       mm_storage($$SELECT sum(length(r)) FROM generate_series(1, 2) g CROSS JOIN
         (SELECT repeat('z', 10 * 1024 * 1024) || s AS r FROM generate_series(1, 3) s OFFSET 0) big$$,
         wm) AS p
FROM (VALUES ('64MB', 3), ('64kB', 1)) v(wm, held_rows);
SELECT wm, p->>'Storage' AS storage,
       (p->>'Maximum Storage')::int >= 3 * 10240 AS max_storage_three_rows,
       (p->>'Peak Memory Held')::int >= held_rows * 10240 AS held_at_least_rows
FROM mm_big ORDER BY held_rows DESC;

-- no context of the node survives its query
SELECT count(*) AS leftover FROM memprobe_contexts WHERE name = 'memprobe material tuples';

-- an error in the middle of a run (after the inner is materialized and
-- spilled: planned at 64MB, run at 1MB) leaks no memory and no temp file
SET work_mem = '64MB';
PREPARE mm_err AS SELECT count(*) FROM generate_series(1, 3) g CROSS JOIN mm_inner i
WHERE CASE WHEN g = 2 AND i.a = 4000 THEN 1 / 0 ELSE 1 END = 1;
EXPLAIN (COSTS OFF) EXECUTE mm_err;
SET work_mem = '1MB';
EXECUTE mm_err;
SELECT count(*) AS leftover FROM memprobe_contexts WHERE name = 'memprobe material tuples';
SELECT count(*) AS temp_files FROM pg_ls_tmpdir();

-- a cancel likewise
SET work_mem = '64MB';
PREPARE mm_slow AS SELECT count(*) FROM generate_series(1, 100000) g CROSS JOIN mm_inner i
WHERE i.a = g;
EXPLAIN (COSTS OFF) EXECUTE mm_slow;
SET work_mem = '1MB';
SET statement_timeout = '300ms';
EXECUTE mm_slow;
RESET statement_timeout;
SELECT count(*) AS leftover FROM memprobe_contexts WHERE name = 'memprobe material tuples';
SELECT count(*) AS temp_files FROM pg_ls_tmpdir();
RESET work_mem;

-- while a query runs, the node's context is visible with its type
BEGIN;
DECLARE cur CURSOR FOR SELECT g, i.a FROM generate_series(1, 2) g CROSS JOIN mm_inner i;
FETCH 9000 FROM cur \g /dev/null
SELECT name, type FROM memprobe_contexts WHERE name = 'memprobe material tuples';
COMMIT;
