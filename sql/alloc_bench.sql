--
-- memprobe_alloc_bench: allocator micro-benchmarks.  Timings vary by machine,
-- so only properties of them are shown.
--

-- bench_error(), bench_bound(), check_bound(): see the file
\getenv abs_srcdir PG_ABS_SRCDIR
\set helpers :abs_srcdir '/sql/alloc_bench_helpers.psql'
\i :helpers

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

-- Slab keeps its free-list link in a free chunk, so it serves chunks smaller
-- than that link (4 bytes on PostgreSQL 15, 8 from 16) at the link's size and
-- accepts nothing else: memprobe asks for the rounded size.  Every size from
-- 1 byte runs with every pattern, and sizes up to 8 bytes (one MAXALIGN
-- unit) hold the same.
SELECT count(*) AS runs, count(DISTINCT r.peak_bytes) AS distinct_peaks,
       bool_and(r.free_ns > 0) AS freed
FROM generate_series(1, 8) AS s,
     unnest(ARRAY['fifo', 'lifo', 'random', 'reset']) AS p,
     LATERAL memprobe_alloc_bench('slab', s, 1000, p) AS r;
SELECT peak_bytes > 0 AS held FROM memprobe_alloc_bench('slab', 1, 1, 'hold');

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
SELECT * FROM memprobe_alloc_bench('generation', 1073741824, 1);
SELECT * FROM memprobe_alloc_bench('aset', 100, 0);
SELECT * FROM memprobe_alloc_bench('aset', 1, 134217728);
SELECT * FROM memprobe_alloc_bench('aset', 100, 10, 'fifo', 0);
SELECT * FROM memprobe_alloc_bench('aset', 100, 10, 'hold', 2);
SELECT memprobe_alloc_bench(NULL, 100, 10) IS NULL AS strict;

-- every bad argument is SQLSTATE 22023 (invalid_parameter_value) with a
-- hint, never an internal error: chunk sizes at and past each allocator's
-- limit, and more chunks than one array of pointers can hold whatever
-- memprobe.alloc_bench_max_memory allows
SET memprobe.alloc_bench_max_memory = '2147483647kB';
SELECT e.state, e.hint IS NOT NULL AS hint, c.call
FROM unnest(ARRAY[
  $$SELECT memprobe_alloc_bench('aset', 100, 10, 'sideways')$$,
  $$SELECT memprobe_alloc_bench('arena', 100, 10)$$,
  $$SELECT memprobe_alloc_bench('aset', 0, 10)$$,
  $$SELECT memprobe_alloc_bench('generation', -1, 10)$$,
  $$SELECT memprobe_alloc_bench('aset', 1073741824, 1)$$,
  $$SELECT memprobe_alloc_bench('generation', 2147483647, 1)$$,
  $$SELECT memprobe_alloc_bench('malloc', 1073741824, 1)$$,
  $$SELECT memprobe_alloc_bench('slab', 262145, 1)$$,
  $$SELECT memprobe_alloc_bench('slab', 0, 1)$$,
  $$SELECT memprobe_alloc_bench('aset', 100, 0)$$,
  $$SELECT memprobe_alloc_bench('aset', 100, -1)$$,
  $$SELECT memprobe_alloc_bench('aset', 1, 134217728)$$,
  $$SELECT memprobe_alloc_bench('malloc', 1, 2147483647, 'random')$$,
  $$SELECT memprobe_alloc_bench('aset', 100, 10, 'fifo', 0)$$,
  $$SELECT memprobe_alloc_bench('aset', 100, 10, 'hold', 2)$$
]) WITH ORDINALITY AS c(call, n),
LATERAL bench_error(c.call) AS e
ORDER BY c.n;
RESET memprobe.alloc_bench_max_memory;

--
-- memprobe.alloc_bench_max_memory bounds what this backend's runs hold at
-- any moment: a run is rejected before it allocates when an upper bound of
-- what it will hold (its context's blocks by the allocator's rules, or
-- malloc's chunk sizes, plus its arrays of chunk pointers and release order)
-- and what earlier "hold" runs still hold exceed the limit.
--
SHOW memprobe.alloc_bench_max_memory;

-- The bound is an upper bound, and a close one: for chunk sizes on both
-- sides of each allocator's rounding and block-size steps, a "hold" run
-- under a limit of its bound (rounded up to a kB) is admitted and then holds
-- no more than the bound, and less than 64kB below it; a limit 1 to 1024
-- bytes below the bound rejects the run.  Each run holds about 3MB or more.
-- (malloc may hand out a free chunk up to 16 bytes larger than the request,
-- which the bound allows for every chunk: for malloc, close means more than
-- half the bound.)
SELECT t AS context_type, s AS chunk_size, c.admitted,
       c.held <= c.bound AND c.bound <= c.limit_bytes AS within_bound,
       CASE WHEN t = 'malloc' THEN c.held > c.bound / 2
            ELSE c.bound - c.held < 64 * 1024 END AS close,
       c.rejected_just_below
FROM (VALUES ('aset', 1), ('aset', 8), ('aset', 9), ('aset', 100),
             ('aset', 1040), ('aset', 4096), ('aset', 8192), ('aset', 8193),
             ('aset', 100000),
             ('generation', 1), ('generation', 100), ('generation', 1040),
             ('generation', 8120), ('generation', 8136), ('generation', 65536),
             ('generation', 65537), ('generation', 100000),
             ('slab', 1), ('slab', 3), ('slab', 7), ('slab', 8),
             ('slab', 100), ('slab', 1040), ('slab', 262144),
             ('malloc', 1), ('malloc', 100), ('malloc', 1040),
             ('malloc', 200000)) AS v(t, s),
     LATERAL check_bound(t, s, greatest(1, 3 * 1024 * 1024 / (s + 16))) AS c;

-- a single 256kB Slab chunk takes a 16MB block (blocks hold 32 chunks or
-- more): more than 1MB
SET memprobe.alloc_bench_max_memory = '1MB';
SELECT * FROM bench_error($$SELECT memprobe_alloc_bench('slab', 262144, 1)$$);
-- 400000 malloc'd 1-byte chunks take 32 bytes each, and their pointers 8:
-- 16MB
SET memprobe.alloc_bench_max_memory = '12MB';
SELECT state FROM bench_error($$SELECT memprobe_alloc_bench('malloc', 1, 400000)$$);
SET memprobe.alloc_bench_max_memory = '10MB';
SELECT state FROM bench_error($$SELECT memprobe_alloc_bench('aset', 1040, 8192)$$);
RESET memprobe.alloc_bench_max_memory;
SELECT state FROM bench_error($$SELECT memprobe_alloc_bench('aset', 1000000, 2000)$$);
SELECT peak_bytes > 0 AS runs_again FROM memprobe_alloc_bench('aset', 1040, 8192);

-- Runs with pattern "hold" add up until their transaction ends.  Each of
-- these holds about 17MB: under a 40MB limit, the third of five in one
-- statement is rejected before it allocates
SET memprobe.alloc_bench_max_memory = '40MB';
SELECT state, detail, hint FROM bench_error($$
  SELECT (memprobe_alloc_bench('aset', 1040, 8192, 'hold')).peak_bytes
  FROM generate_series(1, 5)$$);
BEGIN;
SELECT (memprobe_alloc_bench('aset', 1040, 8192, 'hold')).peak_bytes > 0 AS held
FROM generate_series(1, 2);
SELECT state FROM bench_error($$SELECT memprobe_alloc_bench('aset', 1040, 8192, 'hold')$$);
-- what they hold, arrays included, is within the limit
SELECT sum(total_bytes) <= 40 * 1024 * 1024 AS within_limit
FROM memprobe_contexts WHERE name LIKE 'memprobe_alloc_bench%';
COMMIT;
-- the transaction's end released them, and so does a rolled-back
-- subtransaction
BEGIN;
SAVEPOINT s;
SELECT (memprobe_alloc_bench('aset', 1040, 8192, 'hold')).peak_bytes > 0 AS held
FROM generate_series(1, 2);
ROLLBACK TO SAVEPOINT s;
SELECT (memprobe_alloc_bench('aset', 1040, 8192, 'hold')).peak_bytes > 0 AS held_again
FROM generate_series(1, 2);
COMMIT;
-- runs that free their chunks give their memory back when they end: five in
-- one statement all run
SELECT count(*) AS runs
FROM generate_series(1, 5) AS i,
     LATERAL memprobe_alloc_bench('aset', 1040, 8192 + 0 * i, 'fifo') AS r;
RESET memprobe.alloc_bench_max_memory;

-- the memprobe prefix is reserved: a misspelt setting is an error
SET memprobe.alloc_bench_max_memry = '1GB';

DROP FUNCTION bench_error(text), bench_bound(text, int, int, text),
  check_bound(text, int, int);
