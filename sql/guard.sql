--
-- The memory guard: memprobe.backend_memory_limit cancels the statement of a process whose
-- private memory passes it, at the sampler's next sample (100ms here), with SQLSTATE 53200
-- (out_of_memory); a statement below it is never cancelled; a parallel query whose worker holds
-- the memory is cancelled too; the session goes on, and memprobe_statements counts the failed
-- execution with its memory.  (The real out-of-memory
-- with memprobe.min_available_memory, in a memory cgroup: t/005_out_of_memory.pl.)
--
CREATE EXTENSION IF NOT EXISTS memprobe;
-- holds mb megabytes of private memory for secs seconds
CREATE FUNCTION gd_hold(mb int, secs float8) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  a text[];
BEGIN
  a := array_fill(repeat('x', 1000), ARRAY[mb * 1000]);
  PERFORM pg_sleep(secs);
  RETURN array_length(a, 1);
END $$;
-- the setting is the server's: reload, and give the sampler time to read it
ALTER SYSTEM SET memprobe.backend_memory_limit = '150MB';
SELECT pg_reload_conf();
SELECT pg_sleep(0.5);
SHOW memprobe.backend_memory_limit;
SELECT memprobe_statements_reset() IS NOT NULL AS t;

-- below the limit: never cancelled
SELECT gd_hold(50, 1.0);

-- above it: cancelled with 53200 while it runs, the session usable after
\set VERBOSITY sqlstate
SELECT gd_hold(300, 5.0);
\set VERBOSITY default
SELECT 1 AS session_goes_on;

-- PL/pgSQL sees out_of_memory, with the guard's message
DO $$
BEGIN
  PERFORM gd_hold(300, 5.0);
  RAISE NOTICE 'not cancelled';
EXCEPTION WHEN out_of_memory THEN
  RAISE NOTICE 'caught %: %', SQLSTATE,
    regexp_replace(SQLERRM, 'memory \d+ MB', 'memory N MB');
END $$;

-- a parallel query whose worker holds the memory: the worker's statement is cancelled, and with
-- it the query (the leader rethrows the worker's 53200)
CREATE TABLE gd_rows AS SELECT g AS a FROM generate_series(1, 10000) g;
ANALYZE gd_rows;
ALTER FUNCTION gd_hold(int, float8) PARALLEL SAFE;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET parallel_leader_participation = off;
DO $$
DECLARE
  ctx text;
BEGIN
  PERFORM gd_hold(300, 5.0) FROM gd_rows WHERE a = 1;
  RAISE NOTICE 'not cancelled';
EXCEPTION WHEN out_of_memory THEN
  GET STACKED DIAGNOSTICS ctx = PG_EXCEPTION_CONTEXT;
  RAISE NOTICE 'caught %, in a parallel worker: %', SQLSTATE, ctx LIKE '%parallel worker%';
END $$;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET parallel_leader_participation;
DROP TABLE gd_rows;

-- memprobe_statements: the failed execution counted apart, with the memory the sampler saw
SELECT query, calls, failed_calls, failed_max_private_bytes > 150 * 1024 * 1024 AS over_limit
  FROM memprobe_statements WHERE query LIKE 'SELECT gd_hold%' ORDER BY query;

ALTER SYSTEM RESET memprobe.backend_memory_limit;
SELECT pg_reload_conf();
SELECT pg_sleep(0.5);
SHOW memprobe.backend_memory_limit;
-- off again: the same statement runs to its end
SELECT gd_hold(300, 0.5);
DROP FUNCTION gd_hold(int, float8);
