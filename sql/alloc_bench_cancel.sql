--
-- An error or cancel in the middle of memprobe_alloc_bench leaks nothing:
-- its memory contexts go with the transaction, and the chunks it got from
-- malloc are freed by a callback on its holder context.
--

-- The backend's resident set, read from its own /proc entry.
CREATE FUNCTION rss_kb() RETURNS bigint LANGUAGE sql AS $$
  SELECT substring(pg_read_file('/proc/self/status') FROM 'VmRSS:\s+(\d+) kB')::bigint
$$;

-- statement_timeout cancels long runs, whatever the context type.  Each run
-- has up to ~100MB in its contexts when it is cancelled.
SELECT sum(total_bytes) AS bytes_before FROM memprobe_contexts \gset
SET statement_timeout = '300ms';
SELECT * FROM memprobe_alloc_bench('aset', 1040, 50000, 'random', 1000000);
SELECT * FROM memprobe_alloc_bench('generation', 1040, 50000, 'fifo', 1000000);
SELECT * FROM memprobe_alloc_bench('slab', 1040, 50000, 'lifo', 1000000);
SELECT * FROM memprobe_alloc_bench('malloc', 1040, 50000, 'fifo', 1000000);
RESET statement_timeout;

-- no context of the runs is left, and the tree holds about what it held
-- before (caches may have grown a little, not by hundreds of MB)
SELECT count(*) AS leftover_contexts
FROM memprobe_contexts WHERE name LIKE 'memprobe_alloc_bench%';
SELECT sum(total_bytes) - :bytes_before < 10 * 1024 * 1024 AS tree_not_grown
FROM memprobe_contexts;
-- and what the cancelled runs had reserved under
-- memprobe.alloc_bench_max_memory is free again: one of them fits in 150MB
SET memprobe.alloc_bench_max_memory = '150MB';
SELECT peak_bytes > 0 AS runs FROM memprobe_alloc_bench('aset', 1040, 50000, 'random');
RESET memprobe.alloc_bench_max_memory;

-- malloc'd chunks come back too: five cancelled 200MB malloc runs and five
-- transactions that held 200MB of malloc'd chunks until they ended must not
-- grow the backend by anything like 1GB
SELECT rss_kb() AS rss_before \gset
SET statement_timeout = '400ms';
SELECT * FROM memprobe_alloc_bench('malloc', 4096, 50000, 'fifo', 1000000);
SELECT * FROM memprobe_alloc_bench('malloc', 4096, 50000, 'lifo', 1000000);
SELECT * FROM memprobe_alloc_bench('malloc', 4096, 50000, 'random', 1000000);
SELECT * FROM memprobe_alloc_bench('malloc', 4096, 50000, 'reset', 1000000);
SELECT * FROM memprobe_alloc_bench('malloc', 4096, 50000, 'fifo', 1000000);
RESET statement_timeout;
SELECT peak_bytes >= 4096 * 50000 AS held FROM memprobe_alloc_bench('malloc', 4096, 50000, 'hold');
SELECT peak_bytes >= 4096 * 50000 AS held FROM memprobe_alloc_bench('malloc', 4096, 50000, 'hold');
SELECT peak_bytes >= 4096 * 50000 AS held FROM memprobe_alloc_bench('malloc', 4096, 50000, 'hold');
SELECT peak_bytes >= 4096 * 50000 AS held FROM memprobe_alloc_bench('malloc', 4096, 50000, 'hold');
SELECT peak_bytes >= 4096 * 50000 AS held FROM memprobe_alloc_bench('malloc', 4096, 50000, 'hold');
SELECT rss_kb() - :rss_before < 300 * 1024 AS no_malloc_leak;

-- an error raised inside a transaction that holds a run's memory releases it
BEGIN;
SELECT peak_bytes > 0 AS held FROM memprobe_alloc_bench('malloc', 4096, 50000, 'hold');
SELECT count(*) AS holder_present FROM memprobe_contexts WHERE name = 'memprobe_alloc_bench chunks';
SELECT 1 / 0;
ROLLBACK;
SELECT count(*) AS holder_gone FROM memprobe_contexts WHERE name = 'memprobe_alloc_bench chunks';
SELECT rss_kb() - :rss_before < 300 * 1024 AS no_malloc_leak_after_error;
-- the aborted transaction's run is no longer counted against the limit
SET memprobe.alloc_bench_max_memory = '300MB';
SELECT peak_bytes > 0 AS held FROM memprobe_alloc_bench('malloc', 4096, 50000, 'hold');
RESET memprobe.alloc_bench_max_memory;

DROP FUNCTION rss_kb();
