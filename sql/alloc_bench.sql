--
-- memprobe_alloc_bench: allocator micro-benchmarks.  Timings vary by machine,
-- so only properties of them are shown.
--

-- AllocSet rounds a 1040-byte request up to a 2kB chunk; Generation does not.
-- For 8192 such chunks AllocSet's blocks must hold at least 1.8x Generation's
-- (the seed measured 16577kB against 8577kB for tuples of this size).
WITH a AS (SELECT * FROM memprobe_alloc_bench('aset', 1040, 8192, 'fifo', 3)),
     g AS (SELECT * FROM memprobe_alloc_bench('generation', 1040, 8192, 'fifo', 3))
SELECT a.peak_bytes >= 1.8 * g.peak_bytes AS aset_at_least_1_8x_generation,
       g.peak_bytes >= 8192 * 1040 AS generation_holds_the_chunks,
       a.peak_bytes >= 8192 * 2048 AS aset_rounds_to_2kb
FROM a, g;

-- every type and pattern runs, and reports sane figures: times are positive,
-- the peak holds at least the requested bytes, and the pattern does not
-- change what the allocation phase holds
CREATE TEMP TABLE runs AS
SELECT t AS context_type, p AS pattern, r.*
FROM unnest(ARRAY['aset', 'generation', 'slab', 'malloc']) AS t,
     unnest(ARRAY['fifo', 'lifo', 'random', 'reset']) AS p,
     LATERAL memprobe_alloc_bench(t, 200, 5000, p, 2) AS r;
SELECT context_type, count(*) AS patterns,
       bool_and(alloc_ns > 0 AND free_ns > 0) AS timed,
       bool_and(peak_bytes >= 200 * 5000) AS holds_requested
FROM runs GROUP BY context_type ORDER BY context_type;
-- a memory context's blocks depend only on the allocations (malloc's usable
-- sizes depend on its free lists, so it is left out)
SELECT context_type, count(DISTINCT peak_bytes) AS distinct_peaks,
       count(DISTINCT blocks) AS distinct_block_counts
FROM runs WHERE context_type <> 'malloc'
GROUP BY context_type ORDER BY context_type;

-- malloc's blocks are its chunks: one malloc per chunk
SELECT DISTINCT blocks FROM runs WHERE context_type = 'malloc';
-- a slab of 200-byte chunks carves them from few blocks
SELECT bool_and(blocks < 5000 / 10) AS slab_uses_blocks FROM runs WHERE context_type = 'slab';

-- chunks larger than AllocSet's chunk limit get a block of their own
SELECT blocks >= 100 AS dedicated_blocks
FROM memprobe_alloc_bench('aset', 100000, 100, 'lifo');

-- nothing is left behind by finished runs
SELECT count(*) AS leftover_contexts
FROM memprobe_contexts WHERE name LIKE 'memprobe_alloc_bench%';

-- 'hold' reports no free time
SELECT free_ns IS NULL AS no_free_time, peak_bytes > 0 AS held
FROM memprobe_alloc_bench('aset', 100, 10, 'hold');

-- bad input: clear errors that say what is valid
SELECT * FROM memprobe_alloc_bench('aset', 100, 10, 'sideways');
SELECT * FROM memprobe_alloc_bench('aset', 0, 10);
SELECT * FROM memprobe_alloc_bench('aset', -5, 10);
SELECT * FROM memprobe_alloc_bench('slab', 300000, 10);
SELECT * FROM memprobe_alloc_bench('aset', 100, 0);
SELECT * FROM memprobe_alloc_bench('aset', 100, 10, 'fifo', 0);
SELECT * FROM memprobe_alloc_bench('aset', 100, 10, 'hold', 2);
SELECT * FROM memprobe_alloc_bench('aset', 1000000, 2000);
SELECT memprobe_alloc_bench(NULL, 100, 10) IS NULL AS strict;

-- memprobe.alloc_bench_max_memory bounds a run
SHOW memprobe.alloc_bench_max_memory;
SET memprobe.alloc_bench_max_memory = '10MB';
SELECT * FROM memprobe_alloc_bench('generation', 1040, 8192);
RESET memprobe.alloc_bench_max_memory;
SELECT peak_bytes > 0 AS runs_again FROM memprobe_alloc_bench('generation', 1040, 8192);

-- the memprobe prefix is reserved: a misspelt setting is an error
SET memprobe.alloc_bench_max_memry = '1GB';
