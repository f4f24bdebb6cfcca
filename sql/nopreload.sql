--
-- memprobe loaded on demand, without shared_preload_libraries: the
-- reporting functions work (CREATE EXTENSION loads the library), but no
-- planner or executor hook is installed, so plans stay core's in this
-- backend as in every other.  Run by scripts/test on a server of its own
-- (pg_regress --temp-config=test-servers/no-preload.conf).
--
SHOW shared_preload_libraries;
-- before the library is loaded, a memprobe.* name is only a placeholder
SET memprobe.no_such_setting = 1;
SET memprobe.enable_streamscan = off;
CREATE EXTENSION memprobe;
SELECT name, level, path FROM memprobe_contexts WHERE level = 1;
SELECT peak_bytes >= 100 * 1000 AS bench_runs FROM memprobe_alloc_bench('generation', 100, 1000);
-- the library's settings exist once it is loaded, the placeholder's value
-- carried over; a misspelt one is an error from then on
SHOW memprobe.alloc_bench_max_memory;
SHOW memprobe.enable_streamscan;
SET memprobe.no_such_setting = 1;
RESET memprobe.enable_streamscan;
-- plans are core's although both substitutions are on: Seq Scans, and a Materialize under a nested loop
CREATE TABLE np (a int, b text);
INSERT INTO np SELECT g, 'x' FROM generate_series(1, 100) g;
ANALYZE np;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM np x JOIN np y ON x.a < y.a;
SELECT count(*) FROM np x JOIN np y ON x.a < y.a;
-- also after LOAD, which loads it again in this backend
LOAD 'memprobe';
EXPLAIN (COSTS OFF) SELECT count(*) FROM np x JOIN np y ON x.a < y.a;
RESET enable_hashjoin;
RESET enable_mergejoin;
DROP TABLE np;
-- per-statement tracking needs the preloaded library's shared memory
SELECT * FROM memprobe_statements;
SELECT memprobe_statements_reset() IS NOT NULL AS t;
SELECT * FROM memprobe_statements_info;
SELECT * FROM memprobe_samples();
SELECT * FROM memprobe_history;
SELECT * FROM memprobe_before_restart;
SELECT * FROM memprobe_guard;
SELECT * FROM memprobe_guard();
-- and so does every backend's memory
SELECT * FROM memprobe_backends;
SELECT * FROM memprobe_backend_contexts(pg_backend_pid());
-- the library loaded on demand names its build as a preloaded one does (module_version)
SELECT memprobe_version() LIKE (SELECT extversion FROM pg_extension WHERE extname = 'memprobe') || '.%'
  AS names_its_build;
DROP EXTENSION memprobe;
-- ALTER EXTENSION ... UPDATE from 0.2 in a session that has not loaded the library yet: the
-- update script loads it (0.3's, from disk) before it checks the running library's version
CREATE EXTENSION memprobe VERSION '0.2';
\c
ALTER EXTENSION memprobe UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'memprobe';
DROP EXTENSION memprobe;
