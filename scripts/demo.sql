-- memprobe demo: run by scripts/demo against a scratch cluster with memprobe preloaded.
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
