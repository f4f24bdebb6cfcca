--
-- The sampler: every PostgreSQL process's private (resident anonymous) memory, read from /proc
-- by a background worker every memprobe.sample_interval (100ms in test-servers/preload-small-buffers.conf), published
-- without anyone waiting on anyone.
--
CREATE EXTENSION IF NOT EXISTS memprobe;
SHOW memprobe.sample_interval;

-- wait (at most 10 s) until the sampler has taken a sample with this backend in it
CREATE FUNCTION sp_wait_for_me() RETURNS bool LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1..200 LOOP
    IF EXISTS (SELECT FROM memprobe_samples() WHERE pid = pg_backend_pid()) THEN
      RETURN true;
    END IF;
    PERFORM pg_sleep(0.05);
  END LOOP;
  RETURN false;
END $$;
SELECT sp_wait_for_me();

-- auxiliary processes and this client backend, each with its memory, at one sample
SELECT backend_type, count(*) AS processes FROM memprobe_samples()
 WHERE backend_type IN ('checkpointer', 'background writer', 'walwriter', 'client backend')
   AND pid IN (SELECT pid FROM pg_stat_activity)
 GROUP BY 1 ORDER BY 1;
SELECT count(DISTINCT sampled_at) AS samples, bool_and(private_bytes > 0) AS all_hold_memory,
       bool_and(max_private_bytes >= private_bytes) AS max_at_least_now,
       bool_and(sampled_at > now() - interval '1 minute') AS recent
  FROM memprobe_samples();
-- this backend, in memprobe_backends: its live columns; its statement is this one (running)
SELECT private_bytes > 1024 * 1024 AS over_1mb, max_private_bytes >= private_bytes AS max_ok,
       sampled_at IS NOT NULL AS sampled
  FROM memprobe_backends WHERE pid = pg_backend_pid();

-- A statement that holds ~100MB for a second: the sampler sees it grow while it runs, and
-- memprobe_statements keeps the most it saw (the executor figure does not: the function's
-- memory is not the executor's); memprobe_history has its samples, with its query id.
CREATE FUNCTION sp_hold(mb int, secs float8) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  a text[];
BEGIN
  a := array_fill(repeat('x', 1000), ARRAY[mb * 1000]);
  PERFORM pg_sleep(secs);
  RETURN array_length(a, 1);
END $$;
SELECT memprobe_statements_reset() IS NOT NULL AS t;
SELECT sp_hold(100, 1.0);
SELECT query, calls, max_private_bytes > 100 * 1000 * 1000 AS saw_100mb,
       max_exec_mem_bytes < 10 * 1000 * 1000 AS executor_small
  FROM memprobe_statements WHERE query LIKE 'SELECT sp_hold%';
SELECT count(*) > 0 AS in_history,
       bool_and(h.queryid = s.queryid) AS with_its_queryid,
       max(h.private_bytes) > 100 * 1000 * 1000 AS saw_100mb
  FROM memprobe_history h, memprobe_statements s
 WHERE h.pid = pg_backend_pid() AND s.query LIKE 'SELECT sp_hold%'
   AND h.sampled_at > now() - interval '1 minute';
-- the most since the process started stays; the current figure is back down
SELECT max_private_bytes > 100 * 1000 * 1000 AS max_kept FROM memprobe_samples()
 WHERE pid = pg_backend_pid();

-- memprobe_history shows query ids: like memprobe_contexts, not for PUBLIC
SELECT has_table_privilege('public', 'memprobe_history', 'SELECT') AS public_history,
       has_table_privilege('pg_read_all_stats', 'memprobe_history', 'SELECT') AS stats_history,
       has_table_privilege('public', 'memprobe_backends', 'SELECT') AS public_backends;

-- Every process's type as pg_stat_activity names it, background workers' own types included
-- (the logical replication launcher, not "background worker")
SELECT count(*) AS types_differing
  FROM memprobe_samples() s JOIN pg_stat_activity a USING (pid)
 WHERE s.backend_type IS DISTINCT FROM a.backend_type;
SELECT backend_type FROM memprobe_samples() WHERE backend_type = 'logical replication launcher';

-- An interval below 1ms is refused, not rounded to 0 (which would turn sampling, and with it the
-- guard, off without a word); a fraction of a millisecond above it is kept.
ALTER SYSTEM SET memprobe.sample_interval = '500us';
ALTER SYSTEM SET memprobe.sample_interval = '0.5ms';
ALTER SYSTEM SET memprobe.sample_interval = '1500us';
SELECT pg_reload_conf();
SELECT pg_sleep(0.2);
SHOW memprobe.sample_interval;
SELECT vartype, unit, min_val FROM pg_settings WHERE name = 'memprobe.sample_interval';
ALTER SYSTEM RESET memprobe.sample_interval;
SELECT pg_reload_conf();
SELECT pg_sleep(0.2);
SHOW memprobe.sample_interval;

-- Sampling turned off (memprobe.sample_interval = 0, a reload): memprobe_guard shows no current
-- sample (its sample columns NULL, as before the first), and its settings and counters still;
-- turned on again, samples come back.
SELECT sampled_at IS NOT NULL AS sampling FROM memprobe_guard;
ALTER SYSTEM SET memprobe.sample_interval = 0;
SELECT pg_reload_conf();
SELECT pg_sleep(0.2);
SHOW memprobe.sample_interval;
SELECT sampled_at IS NULL AS no_sample, available_bytes IS NULL AS no_available,
       largest_pid IS NULL AS no_largest, cancels_backend_memory_limit IS NOT NULL AS counters
  FROM memprobe_guard;
ALTER SYSTEM RESET memprobe.sample_interval;
SELECT pg_reload_conf();
SELECT pg_sleep(0.2);
DO $$
BEGIN
  FOR i IN 1 .. 50 LOOP
    EXIT WHEN (SELECT sampled_at > now() - interval '1 second' FROM memprobe_guard);
    PERFORM pg_sleep(0.1);
  END LOOP;
END $$;
SELECT sampled_at > now() - interval '1 second' AS sampling_again FROM memprobe_guard;

DROP FUNCTION sp_wait_for_me(), sp_hold(int, float8);
