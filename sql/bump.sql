--
-- The Bump allocator (PostgreSQL 17 and later).  On older servers the type is
-- refused with a clear error: see bump_1.out.
--

-- the hint lists the context types this server has
SELECT * FROM memprobe_alloc_bench('jemalloc', 100, 10);

SELECT alloc_ns > 0 AS timed, free_ns > 0 AS reset_timed,
       peak_bytes >= 1040 * 8192 AS holds_requested
FROM memprobe_alloc_bench('bump', 1040, 8192, 'reset', 3);

-- Bump has no chunk headers: it needs less than Generation for the same chunks
WITH b AS (SELECT * FROM memprobe_alloc_bench('bump', 64, 100000, 'reset')),
     g AS (SELECT * FROM memprobe_alloc_bench('generation', 64, 100000, 'reset'))
SELECT b.peak_bytes < g.peak_bytes AS bump_smaller FROM b, g;

BEGIN;
SELECT free_ns IS NULL AS held FROM memprobe_alloc_bench('bump', 100, 100, 'hold');
SELECT name, type FROM memprobe_contexts WHERE name = 'memprobe_alloc_bench';
COMMIT;

-- Bump cannot free single chunks
SELECT * FROM memprobe_alloc_bench('bump', 100, 10, 'fifo');
