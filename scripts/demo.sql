-- memprobe demo: run by scripts/demo against a scratch cluster with memprobe preloaded.
-- Copyright (c) 2026, The memprobe Developers; the PostgreSQL License (LICENSE)
\pset footer off
\echo
\echo '== memprobe is preloaded'
SHOW shared_preload_libraries;
CREATE EXTENSION memprobe;

\echo
\echo '== The largest memory contexts of this backend (memprobe_contexts: PostgreSQL 18''s columns, on any version)'
SELECT name, type, level, path, total_bytes, used_bytes
FROM memprobe_contexts
ORDER BY total_bytes DESC
LIMIT 8;

\echo
\echo '== Summing a subtree the PostgreSQL 18 way: everything under CacheMemoryContext'
SELECT c2.name, count(*) AS contexts, sum(c1.total_bytes) AS subtree_bytes
FROM memprobe_contexts c1, memprobe_contexts c2
WHERE c2.name = 'CacheMemoryContext' AND c1.path[c2.level] = c2.path[c2.level]
GROUP BY c2.name;

\echo
\echo '== 8192 chunks of 1040 bytes (a ~1KB tuple), allocated then freed oldest-first, 20 rounds'
\echo '   AllocSet rounds each chunk up to 2kB; Generation, Slab and malloc do not.'
SELECT t AS context_type,
       round(b.alloc_ns::numeric, 1) AS alloc_ns,
       round(b.free_ns::numeric, 1) AS free_ns,
       round(b.peak_bytes / 1024.0) AS peak_kb,
       b.blocks,
       round(b.peak_bytes / (8192 * 1040.0), 2) AS held_per_requested_byte
FROM unnest(ARRAY['aset', 'generation', 'slab', 'malloc']) WITH ORDINALITY AS u(t, ord),
     LATERAL memprobe_alloc_bench(t, 1040, 8192, 'fifo', 20) AS b
ORDER BY ord;

\echo
\echo '== AllocSet holds this much more than Generation for the same chunks'
SELECT round(a.peak_bytes::numeric / g.peak_bytes, 2) AS aset_over_generation
FROM memprobe_alloc_bench('aset', 1040, 8192) a,
     memprobe_alloc_bench('generation', 1040, 8192) g;

\echo
\echo '== GenMaterial (PostgreSQL 15 and 17): a nested loop rescans a Material node over 8192 ~1KB rows'
SET max_parallel_workers_per_gather = 0;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_memoize = off;
SET work_mem = '64MB';
CREATE TEMP TABLE demo_inner AS SELECT g AS a, repeat('a', 1024) AS b FROM generate_series(1, 8192) g;
ANALYZE demo_inner;
\echo '-- memprobe''s node, tuples in a Generation context:'
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT sum(length(b)) FROM generate_series(1, 2) g CROSS JOIN demo_inner;
\echo '-- the same node with an AllocSet tuple context (what core PostgreSQL 15 and 17 use):'
SET memprobe.material_context = aset;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT sum(length(b)) FROM generate_series(1, 2) g CROSS JOIN demo_inner;
RESET memprobe.material_context;
RESET enable_hashjoin;
RESET enable_mergejoin;

\echo
\echo '== StreamScan: a filter that keeps nothing, over 1M rows of 8 ints (57MB)'
CREATE TABLE demo_ints8 AS SELECT g AS id, g AS c2, g AS c3, g AS c4, g AS c5, g AS c6,
  g AS c7, g AS c8 FROM generate_series(1, 1000000) g;
VACUUM (FREEZE, ANALYZE) demo_ints8;
SELECT count(*) FROM demo_ints8;
\echo '-- memprobe''s scan (look-ahead, page-at-a-time visibility, the qual checked in the page loop):'
EXPLAIN (ANALYZE, COSTS OFF, SUMMARY OFF) SELECT * FROM demo_ints8 WHERE id = 0;
\echo '-- core''s Seq Scan (memprobe.enable_streamscan = off):'
SET memprobe.enable_streamscan = off;
EXPLAIN (ANALYZE, COSTS OFF, SUMMARY OFF) SELECT * FROM demo_ints8 WHERE id = 0;
RESET memprobe.enable_streamscan;
\echo '-- best of 5 runs each, milliseconds:'
DO $$
DECLARE
  t timestamptz;
  best_on float8 := 1e9;
  best_off float8 := 1e9;
BEGIN
  FOR i IN 1..5 LOOP
    PERFORM set_config('memprobe.enable_streamscan', 'on', true);
    t := clock_timestamp();
    PERFORM * FROM demo_ints8 WHERE id = 0;
    best_on := least(best_on, extract(epoch FROM clock_timestamp() - t) * 1000);
    PERFORM set_config('memprobe.enable_streamscan', 'off', true);
    t := clock_timestamp();
    PERFORM * FROM demo_ints8 WHERE id = 0;
    best_off := least(best_off, extract(epoch FROM clock_timestamp() - t) * 1000);
  END LOOP;
  RAISE NOTICE 'StreamScan % ms, core Seq Scan % ms (bench/run gives the real A/B)',
    round(best_on::numeric, 1), round(best_off::numeric, 1);
END $$;
DROP TABLE demo_ints8;

\echo
\echo '== Which statement uses the memory: memprobe_statements, ranked by the most each held'
SELECT memprobe_statements_reset() IS NOT NULL AS reset \gset
CREATE TABLE demo_orders AS
  SELECT g AS id, g % 1000 AS customer, md5(g::text) AS note FROM generate_series(1, 300000) g;
SET work_mem = '256MB';
SELECT count(*) FROM (SELECT note FROM demo_orders ORDER BY note) s;
SELECT count(*) FROM (SELECT customer, array_agg(note) FROM demo_orders GROUP BY customer) s;
SELECT count(*) FROM demo_orders WHERE customer = 7;
RESET work_mem;
SELECT left(query, 60) AS query, calls,
       pg_size_pretty(max_exec_mem_bytes) AS executor_memory,
       node_peak_type, pg_size_pretty(node_peak_bytes) AS node_peak,
       pg_size_pretty(max_private_bytes) AS sampled_private
  FROM memprobe_statements
 WHERE query LIKE '%demo_orders%' AND query NOT LIKE 'CREATE%'
 ORDER BY max_exec_mem_bytes DESC LIMIT 3;
DROP TABLE demo_orders;
