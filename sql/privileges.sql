--
-- Privileges follow core's model: memory contexts are for superusers and
-- pg_read_all_stats (as pg_backend_memory_contexts), other roles' processes' figures as
-- pg_stat_activity's, and the benchmark, which
-- can allocate a lot of memory, is not executable by PUBLIC.  memprobe_guard is readable by
-- everyone, as memprobe_samples and memprobe_backends: a role with only pg_monitor (a
-- Prometheus exporter's) reads it.
--
CREATE ROLE memprobe_plain;
CREATE ROLE memprobe_stats IN ROLE pg_read_all_stats;
CREATE ROLE memprobe_monitor IN ROLE pg_monitor;

SET ROLE memprobe_plain;
SELECT count(*) > 0 FROM memprobe_contexts;
SELECT count(*) > 0 FROM memprobe_contexts();
SELECT * FROM memprobe_alloc_bench('aset', 100, 10);
RESET ROLE;

SET ROLE memprobe_stats;
SELECT count(*) > 0 AS can_read FROM memprobe_contexts;
SELECT count(*) > 0 AS can_call FROM memprobe_contexts();
SELECT * FROM memprobe_alloc_bench('aset', 100, 10);
RESET ROLE;

SET ROLE memprobe_monitor;
SELECT count(*) AS guard_rows FROM memprobe_guard;
SELECT count(*) AS guard_rows FROM memprobe_guard();
RESET ROLE;
SET ROLE memprobe_plain;
SELECT count(*) AS guard_rows FROM memprobe_guard;
RESET ROLE;

-- Other roles' processes, as pg_stat_activity: a plain role (which owns no process here) sees
-- every process's row, but neither its type, parallel leader, memory nor its statement's start
-- and figures, and not
-- which process is the largest; pg_read_all_stats sees them.  (This session's process is the
-- superuser's: SET ROLE does not change whose it is.)
SELECT pg_sleep(0.3);  -- the sampler (100ms) has seen this session
SET ROLE memprobe_plain;
SELECT count(*) > 0 AS rows_seen,
       count(*) FILTER (WHERE backend_type IS NOT NULL OR leader_pid IS NOT NULL OR
                              private_bytes IS NOT NULL OR max_private_bytes IS NOT NULL OR
                              statement_started_at IS NOT NULL OR
                              statement_max_private_bytes IS NOT NULL OR
                              statement_queryid IS NOT NULL) AS figures_seen,
       count(*) FILTER (WHERE sampled_at IS NULL) AS without_sample_time
  FROM memprobe_samples();
SELECT private_bytes, statement_started_at, statement_max_private_bytes
  FROM memprobe_backends WHERE pid = pg_backend_pid();
SELECT largest_pid, largest_private_bytes, available_bytes IS NOT NULL AS server_figures
  FROM memprobe_guard;
RESET ROLE;
SET ROLE memprobe_stats;
SELECT count(*) FILTER (WHERE private_bytes IS NOT NULL) > 0 AS figures_seen
  FROM memprobe_samples();
SELECT private_bytes > 0 AS own_memory
  FROM memprobe_backends WHERE pid = pg_backend_pid();
SELECT largest_pid IS NOT NULL AS largest_seen FROM memprobe_guard;
RESET ROLE;

-- a DBA can hand the benchmark out explicitly
GRANT EXECUTE ON FUNCTION memprobe_alloc_bench(text, int4, int4, text, int4) TO memprobe_plain;
SET ROLE memprobe_plain;
SELECT peak_bytes > 0 AS can_bench FROM memprobe_alloc_bench('aset', 100, 10);
-- but the setting that bounds it is for superusers
SET memprobe.alloc_bench_max_memory = '2GB';
RESET ROLE;

REVOKE EXECUTE ON FUNCTION memprobe_alloc_bench(text, int4, int4, text, int4) FROM memprobe_plain;
DROP ROLE memprobe_plain;
DROP ROLE memprobe_stats;
DROP ROLE memprobe_monitor;
