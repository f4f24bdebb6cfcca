--
-- Privileges follow core's model: memory contexts are for superusers and
-- pg_read_all_stats (as pg_backend_memory_contexts), and the benchmark, which
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
