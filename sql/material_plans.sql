--
-- GenMaterial in plans: the substituted node, its EXPLAIN output, its
-- switches, and cached plans.  PostgreSQL 18 keeps core's Material (it
-- already stores tuples in a Generation context): see material_plans_1.out.
--
-- Core's Seq Scan below the Material nodes keeps these plans the same on every
-- version (StreamScan's own EXPLAIN lines differ between 15 and 17+).
SET memprobe.enable_streamscan = off;
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_memoize = off;

CREATE TABLE mp_outer AS SELECT g AS a FROM generate_series(1, 2) g;
CREATE TABLE mp_inner AS SELECT g AS a, g % 7 AS c, repeat('p', 100) AS b FROM generate_series(1, 500) g;
ANALYZE mp_outer, mp_inner;

-- EXPLAIN ANALYZE without the figures that vary by build (assert-enabled
-- servers add bytes to every chunk); the figures are checked in
-- material_memory.
CREATE FUNCTION mp_explain(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    RETURN NEXT regexp_replace(line, '\d+kB', 'NkB', 'g');
  END LOOP;
END $$;

-- the node replaces Materialize, and EXPLAIN VERBOSE deparses its columns
EXPLAIN (COSTS OFF, VERBOSE)
SELECT o.a, i.a, i.c + 1 FROM mp_outer o JOIN mp_inner i ON i.a > o.a * 100;

-- the switch is honoured at planning time
SET memprobe.enable_material = off;
EXPLAIN (COSTS OFF)
SELECT o.a, i.a FROM mp_outer o JOIN mp_inner i ON i.a > o.a * 100;
RESET memprobe.enable_material;

-- EXPLAIN ANALYZE shows the storage lines (text format)
SELECT mp_explain('SELECT sum(length(b)) FROM generate_series(1, 2) g CROSS JOIN mp_inner');
SET memprobe.material_context = aset;
SELECT mp_explain('SELECT sum(length(b)) FROM generate_series(1, 2) g CROSS JOIN mp_inner');
RESET memprobe.material_context;

-- cached plans keep the node they were planned with; the tuple context type
-- is read when the plan runs
SET plan_cache_mode = force_generic_plan;
PREPARE mp_q(int) AS SELECT count(*), sum(i.c) FROM mp_outer o JOIN mp_inner i ON i.a > o.a * $1;
EXECUTE mp_q(100);
SET memprobe.enable_material = off;
EXPLAIN (COSTS OFF) EXECUTE mp_q(100);
EXECUTE mp_q(100);
SET memprobe.material_context = aset;
SELECT mp_explain('EXECUTE mp_q(100)');
RESET memprobe.material_context;
RESET memprobe.enable_material;
DEALLOCATE mp_q;
RESET plan_cache_mode;

-- a setting that does not exist is refused
SET memprobe.material_context = bump;
