--
-- memprobe.observe_only: one setting turns every substitution off (StreamScan,
-- GenMaterial, the tuple stores), each enable_* setting left on, while the
-- reporting goes on; set per role and per database as the enable_* settings.
-- Each query's EXPLAIN ANALYZE (figures masked) is compared in three
-- sessions' states: memprobe in full, observe_only, and every substitution
-- off one by one (core's plan).  GenMaterial and the stores do nothing on 18
-- (core does the same): there "memprobe differs" is not asked of them.
--
SET max_parallel_workers_per_gather = 0;
SET jit = off;
CREATE TABLE oo (id int, grp int, b text);
INSERT INTO oo SELECT g, g % 37, repeat(chr(65 + g % 26), 1024) FROM generate_series(1, 3000) g;
ANALYZE oo;

-- q's EXPLAIN ANALYZE as one text, its figures masked
CREATE FUNCTION oo_plan(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  line text;
  plan text := '';
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) ' || q LOOP
    plan := plan || regexp_replace(line, '\d+', 'N', 'g') || E'\n';
  END LOOP;
  RETURN plan;
END $$;

CREATE FUNCTION oo_compare(q text, OUT observe_is_core bool, OUT memprobe_differs bool)
LANGUAGE plpgsql AS $$
DECLARE
  full_plan text;
  observe_plan text;
  core_plan text;
BEGIN
  PERFORM set_config('memprobe.observe_only', 'off', true);
  full_plan := oo_plan(q);
  PERFORM set_config('memprobe.observe_only', 'on', true);
  observe_plan := oo_plan(q);
  PERFORM set_config('memprobe.observe_only', 'off', true);
  PERFORM set_config('memprobe.enable_streamscan', 'off', true);
  PERFORM set_config('memprobe.enable_material', 'off', true);
  PERFORM set_config('memprobe.enable_stores', 'off', true);
  core_plan := oo_plan(q);
  PERFORM set_config('memprobe.enable_streamscan', 'on', true);
  PERFORM set_config('memprobe.enable_material', 'on', true);
  PERFORM set_config('memprobe.enable_stores', 'on', true);
  observe_is_core := observe_plan = core_plan;
  memprobe_differs := full_plan <> core_plan;
END $$;

SHOW memprobe.observe_only;
SHOW memprobe.enable_streamscan;

-- StreamScan (every version)
SELECT * FROM oo_compare('SELECT count(*) FROM oo WHERE id > 10');
-- parallel StreamScan
SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT * FROM oo_compare('SELECT count(*) FROM oo WHERE id > 10');
RESET max_parallel_workers_per_gather; RESET parallel_setup_cost; RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;
-- GenMaterial: a Material under a nested loop
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_memoize = off;
SELECT observe_is_core, memprobe_differs OR current_setting('server_version_num')::int >= 180000 AS differs_before_18
  FROM oo_compare('SELECT count(*) FROM oo a, (SELECT id FROM oo WHERE grp = 1) b WHERE a.id < b.id AND a.grp = 2');
RESET enable_hashjoin; RESET enable_mergejoin; RESET enable_memoize;
-- the tuple stores: the seed's window case at work_mem 1MB stays in memory with them, spills
-- without (the Storage line)
SET work_mem = '1MB';
SELECT observe_is_core, memprobe_differs OR current_setting('server_version_num')::int >= 180000 AS differs_before_18
  FROM oo_compare('SELECT count(l) FROM (SELECT lag(b, 800) OVER () AS l FROM oo LIMIT 1600) s');
RESET work_mem;

-- the reporting goes on: memprobe_statements records a statement run in observe mode
SET memprobe.observe_only = on;
SELECT memprobe_statements_reset() IS NOT NULL AS t;
SELECT count(*) FROM oo WHERE grp = 3;
SELECT calls FROM memprobe_statements WHERE query LIKE 'SELECT count(*) FROM oo WHERE grp%';
SELECT count(*) > 0 AS sees_itself FROM memprobe_contexts;
RESET memprobe.observe_only;

-- per role and per database, as the enable_* settings
SELECT count(*) AS memprobe_nodes FROM oo_plan('SELECT count(*) FROM oo') p
  WHERE p LIKE '%Custom Scan%';
SELECT current_user AS me \gset
CREATE ROLE oo_observer LOGIN;
GRANT SELECT ON oo TO oo_observer;
ALTER ROLE oo_observer SET memprobe.observe_only = on;
\c - oo_observer
SHOW memprobe.observe_only;
SET max_parallel_workers_per_gather = 0;
SELECT count(*) AS memprobe_nodes FROM oo_plan('SELECT count(*) FROM oo') p
  WHERE p LIKE '%Custom Scan%';
\c - :"me"
SELECT current_database() AS db \gset
ALTER DATABASE :"db" SET memprobe.observe_only = on;
\c
SHOW memprobe.observe_only;
ALTER DATABASE :"db" RESET memprobe.observe_only;
\c
SHOW memprobe.observe_only;
DROP OWNED BY oo_observer;
DROP ROLE oo_observer;
DROP TABLE oo;
DROP FUNCTION oo_compare(text), oo_plan(text);
