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
-- memprobe_guard's counters before (they count from the server's start)
SELECT cancels_backend_memory_limit AS bml_before, cancels_min_available_memory AS mam_before,
       clock_timestamp() AS gd_started
  FROM memprobe_guard \gset
-- the setting is the server's: reload, and give the sampler time to read it
-- (min_available_memory at 1kB, far below anything real, so that memprobe_guard shows a value)
ALTER SYSTEM SET memprobe.backend_memory_limit = '150MB';
ALTER SYSTEM SET memprobe.min_available_memory = '1kB';
-- gd_hold's array_fill checks for no interrupt while it builds 300MB, so a sample can find it
-- grown past the cancel and cap it (its allocation then fails with "out of memory", and the
-- pending cancel later); this suite is about the cancel: the cap's own tests are in t/007
ALTER SYSTEM SET memprobe.cap_after_cancel = off;
SELECT pg_reload_conf();
SELECT pg_sleep(0.5);
SHOW memprobe.backend_memory_limit;
-- memprobe_guard: the settings in bytes
SELECT backend_memory_limit_bytes, min_available_memory_bytes,
       backend_memory_limit_bytes = pg_size_bytes(current_setting('memprobe.backend_memory_limit')) AND
       min_available_memory_bytes = pg_size_bytes(current_setting('memprobe.min_available_memory')) AS as_set
  FROM memprobe_guard;
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
DECLARE
  detail text;
BEGIN
  PERFORM gd_hold(300, 5.0);
  RAISE NOTICE 'not cancelled';
EXCEPTION WHEN out_of_memory THEN
  GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
  RAISE NOTICE 'caught %: %', SQLSTATE, SQLERRM;
  RAISE NOTICE 'detail: %', regexp_replace(detail, 'memory, [0-9.]+ MB', 'memory, N MB');
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

-- memprobe_guard counted the three statements cancelled (the parallel query's once, its
-- worker's), none for min_available_memory, and when the last was
SELECT cancels_backend_memory_limit - :bml_before AS backend_memory_limit_cancels,
       cancels_min_available_memory - :mam_before AS min_available_memory_cancels,
       last_cancel_at > :'gd_started' AS last_cancel_since_start,
       last_cancel_at <= clock_timestamp() AS last_cancel_past
  FROM memprobe_guard;
-- and what the guard saw at the last sample: the memory available to the server, and from where
SELECT sampled_at IS NOT NULL AS sampled, available_bytes > 0 AS available,
       available_source IN ('cgroup v1', 'cgroup v2', 'MemAvailable') AS known_source
  FROM memprobe_guard;
-- the largest process, the one memprobe_samples shows at the same sample (read one after the
-- other, the two can straddle a sample: read again then)
DO $$
DECLARE
  same bool;
BEGIN
  FOR i IN 1..100 LOOP
    CREATE TEMP TABLE gd_samples AS SELECT * FROM memprobe_samples();
    SELECT g.largest_private_bytes = (SELECT max(private_bytes) FROM gd_samples) AND
           g.largest_private_bytes = (SELECT private_bytes FROM gd_samples WHERE pid = g.largest_pid)
      INTO same
      FROM memprobe_guard g
     WHERE g.sampled_at = (SELECT max(sampled_at) FROM gd_samples);
    DROP TABLE gd_samples;
    EXIT WHEN same IS NOT NULL;
    PERFORM pg_sleep(0.01);
  END LOOP;
  RAISE NOTICE 'largest process as in memprobe_samples: %', same;
END $$;

ALTER SYSTEM RESET memprobe.backend_memory_limit;
ALTER SYSTEM RESET memprobe.min_available_memory;
ALTER SYSTEM RESET memprobe.cap_after_cancel;
SELECT pg_reload_conf();
SELECT pg_sleep(0.5);
SHOW memprobe.backend_memory_limit;
SELECT backend_memory_limit_bytes, min_available_memory_bytes FROM memprobe_guard;
-- off again: the same statement runs to its end
SELECT gd_hold(300, 0.5);
DROP FUNCTION gd_hold(int, float8);
