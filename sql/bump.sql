--
-- The Bump allocator (PostgreSQL 17 and later).  On older servers the type is
-- refused with a clear error: see bump_1.out.
--

-- bench_error(), check_bound(): see the file
\getenv abs_srcdir PG_ABS_SRCDIR
\set helpers :abs_srcdir '/sql/alloc_bench_helpers.psql'
\i :helpers

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

-- memprobe.alloc_bench_max_memory's bound holds for Bump (see alloc_bench.sql):
-- admitted under its bound, held within it and close to it, rejected 1 to
-- 1024 bytes below it
SELECT s AS chunk_size, c.admitted,
       c.held <= c.bound AND c.bound <= c.limit_bytes AS within_bound,
       c.bound - c.held < 64 * 1024 AS close,
       c.rejected_just_below
FROM unnest(ARRAY[1, 8, 100, 1040, 8136, 8192, 65536, 65537, 100000]) AS s,
     LATERAL check_bound('bump', s, greatest(1, 3 * 1024 * 1024 / (s + 16))) AS c;

-- chunk sizes at and past the limit: over memprobe.alloc_bench_max_memory
-- (54000), then invalid (22023); too many chunks: invalid
SET memprobe.alloc_bench_max_memory = '1MB';
SELECT e.state, c.call
FROM unnest(ARRAY[
  $$SELECT memprobe_alloc_bench('bump', 1073741823, 1, 'reset')$$,
  $$SELECT memprobe_alloc_bench('bump', 1073741824, 1, 'reset')$$,
  $$SELECT memprobe_alloc_bench('bump', 1, 134217728, 'hold')$$
]) WITH ORDINALITY AS c(call, n),
LATERAL bench_error(c.call) AS e
ORDER BY c.n;
RESET memprobe.alloc_bench_max_memory;

DROP FUNCTION bench_error(text), bench_bound(text, int, int, text),
  check_bound(text, int, int);
