--
-- memprobe loaded on demand, without shared_preload_libraries: the
-- reporting functions work (CREATE EXTENSION loads the library at first
-- call).  Run by scripts/test on a server of its own (pg_regress
-- --temp-config=nopreload.conf).
--
SHOW shared_preload_libraries;
CREATE EXTENSION memprobe;
SELECT name, level, path FROM memprobe_contexts WHERE level = 1;
SELECT peak_bytes >= 100 * 1000 AS bench_runs FROM memprobe_alloc_bench('generation', 100, 1000);
-- the library's settings exist once it is loaded
SHOW memprobe.alloc_bench_max_memory;
DROP EXTENSION memprobe;
