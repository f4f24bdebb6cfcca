--
-- GenMaterial: memprobe's Material node must return exactly what core's
-- Material returns, in every mode: nested-loop rescans, merge-join
-- mark/restore, backward scans, subplans, changed parameters, spilling,
-- parallel workers.  Each query runs with memprobe.enable_material on and
-- off; the checker also confirms the plan really had the node (on servers
-- where memprobe substitutes it: PostgreSQL 18 keeps core's, which already
-- stores tuples in a Generation context).
--
SET max_parallel_workers_per_gather = 0;
SET jit = off;

CREATE TABLE mat_outer AS SELECT g % 50 AS a, g AS b FROM generate_series(1, 1000) g;
CREATE TABLE mat_inner AS SELECT g % 40 AS a, repeat('x', g % 100) AS b
  FROM generate_series(1, 800) g;
CREATE TABLE mat_small AS SELECT g AS a FROM generate_series(1, 30) g;
CREATE TABLE mat_wide AS SELECT g AS a, repeat('a', 1024) AS b FROM generate_series(1, 600) g;
CREATE TABLE mat_big AS SELECT g AS a, repeat('y', 50 + g % 50) AS b
  FROM generate_series(1, 20000) g;
ANALYZE mat_outer, mat_inner, mat_small, mat_wide, mat_big;

-- How many of memprobe's Material nodes, and of core's, a plan has.
CREATE FUNCTION mat_nodes(q text, OUT memprobe int, OUT core int)
LANGUAGE plpgsql AS $$
DECLARE
  plan text;
BEGIN
  FOR plan IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    memprobe := coalesce(memprobe, 0) + (plan LIKE '%Custom Scan (MemprobeMaterial)%')::int;
    core := coalesce(core, 0) + (plan LIKE '%->  Materialize%' OR plan LIKE 'Materialize%')::int;
  END LOOP;
END $$;

-- Run q with the node on and off; compare the rows, in order.
CREATE FUNCTION mat_check(q text)
RETURNS TABLE (node_as_expected bool, same_rows bool, nrows int)
LANGUAGE plpgsql AS $$
DECLARE
  on_rows text[];
  off_rows text[];
  n_on record;
  n_off record;
  substitutes bool := current_setting('server_version_num')::int < 180000;
BEGIN
  PERFORM set_config('memprobe.enable_material', 'on', true);
  n_on := mat_nodes(q);
  EXECUTE format('SELECT array_agg(r::text) FROM (%s) r', q) INTO on_rows;
  PERFORM set_config('memprobe.enable_material', 'off', true);
  n_off := mat_nodes(q);
  EXECUTE format('SELECT array_agg(r::text) FROM (%s) r', q) INTO off_rows;
  PERFORM set_config('memprobe.enable_material', 'on', true);
  node_as_expected := n_off.memprobe = 0 AND n_off.core > 0 AND
    CASE WHEN substitutes THEN n_on.memprobe = n_off.core AND n_on.core = 0
         ELSE n_on.memprobe = 0 AND n_on.core = n_off.core END;
  same_rows := on_rows IS NOT DISTINCT FROM off_rows;
  nrows := coalesce(array_length(on_rows, 1), 0);
  RETURN NEXT;
END $$;

-- nested loop: the inner Material is rescanned for every outer row
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_memoize = off;
SELECT * FROM mat_check($$SELECT g, w.a, length(w.b) FROM generate_series(1, 3) g CROSS JOIN mat_wide w$$);
SELECT * FROM mat_check($$SELECT t3.a, (SELECT count(*) FROM mat_inner t2 JOIN mat_outer t1 ON t1.b < t2.a + t3.a) FROM mat_small t3$$);
RESET enable_hashjoin; RESET enable_mergejoin; RESET enable_memoize;

-- rescans with changed parameters: the Material's child depends on the
-- outer query's row, so every rescan must re-read it
SELECT * FROM mat_check($$SELECT t1.b, (SELECT count(*) FROM mat_inner t2 CROSS JOIN (SELECT t3.a FROM mat_small t3 WHERE t3.a < t1.b % 37 OFFSET 0) ss) FROM mat_outer t1 WHERE t1.b < 120$$);

-- merge join: mark/restore over an inner with duplicate keys
SET enable_hashjoin = off; SET enable_nestloop = off;
SELECT * FROM mat_check($$SELECT x.a, x.b, s.b FROM (SELECT a, b FROM mat_outer ORDER BY a OFFSET 0) s JOIN (SELECT a, b FROM mat_inner ORDER BY a OFFSET 0) x ON x.a = s.a ORDER BY 1, 2, 3$$);
SELECT * FROM mat_check($$SELECT count(*), sum(x.b), sum(s.b) FROM (SELECT a, b FROM mat_outer ORDER BY a OFFSET 0) s JOIN (SELECT a, length(b) AS b FROM mat_inner ORDER BY a OFFSET 0) x ON x.a = s.a$$);
-- ... and again while the inner tuplestore has spilled to disk
SET work_mem = '64kB';
SELECT * FROM mat_check($$SELECT x.a, x.b, s.b FROM (SELECT a, b FROM mat_outer ORDER BY a OFFSET 0) s JOIN (SELECT a, b FROM mat_inner ORDER BY a OFFSET 0) x ON x.a = s.a ORDER BY 1, 2, 3$$);
RESET work_mem;
RESET enable_hashjoin; RESET enable_nestloop;

-- NOT IN with a subplan too large to hash: rescanned once per outer row
SET work_mem = '64kB';
SELECT * FROM mat_check($$SELECT count(*) FROM mat_outer WHERE (b::text) NOT IN (SELECT b FROM mat_big)$$);
SELECT * FROM mat_check($$SELECT count(*) FROM mat_outer WHERE (repeat('y', 50 + b % 50)) NOT IN (SELECT b FROM mat_big WHERE a > 10)$$);
RESET work_mem;

-- spilling: a nested loop's inner over work_mem, read back from disk on
-- every rescan (both plans are made with work_mem at 4MB, then the cached
-- plans run with 64kB)
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_memoize = off;
SET work_mem = '4MB';
PREPARE mat_spill AS SELECT md5(string_agg(r::text, ';')) AS digest, count(*) FROM
  (SELECT g, w.a, md5(w.b) FROM generate_series(1, 3) g CROSS JOIN mat_wide w) r;
SELECT (memprobe > 0) = (current_setting('server_version_num')::int < 180000) AS node_as_expected
FROM mat_nodes('EXECUTE mat_spill');
SET memprobe.enable_material = off;
PREPARE mat_spill_core AS SELECT md5(string_agg(r::text, ';')) AS digest, count(*) FROM
  (SELECT g, w.a, md5(w.b) FROM generate_series(1, 3) g CROSS JOIN mat_wide w) r;
SELECT memprobe = 0 AND core > 0 AS core_node FROM mat_nodes('EXECUTE mat_spill_core');
RESET memprobe.enable_material;
SET work_mem = '64kB';
EXECUTE mat_spill \gset spill_
EXECUTE mat_spill_core \gset core_
SELECT :'spill_digest' = :'core_digest' AS same_rows, :spill_count AS nrows;
RESET work_mem;
RESET enable_hashjoin; RESET enable_mergejoin; RESET enable_memoize;

-- parallel workers run the node from the serialized plan
SELECT set_config(CASE WHEN current_setting('server_version_num')::int >= 160000
                       THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END,
                  'regress', false) IS NOT NULL AS forced_parallel;
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_memoize = off;
SELECT * FROM mat_check($$SELECT g, w.a FROM generate_series(1, 2) g CROSS JOIN mat_wide w$$);
RESET enable_hashjoin; RESET enable_mergejoin; RESET enable_memoize;
SELECT set_config(CASE WHEN current_setting('server_version_num')::int >= 160000
                       THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END,
                  'off', false) IS NOT NULL AS back_to_serial;

-- SCROLL cursors over a plan that cannot go backward get a Material on top:
-- fetch forward, backward, absolute and relative, with the node on and off
CREATE FUNCTION mat_cursor_walk(q text, wm text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  c refcursor := 'mat_walk';
  r record;
  out text := '';
BEGIN
  PERFORM set_config('work_mem', wm, true);
  OPEN c SCROLL FOR EXECUTE q;
  FETCH ABSOLUTE 5 FROM c INTO r;   out := out || r::text;
  FETCH NEXT FROM c INTO r;         out := out || r::text;
  FETCH PRIOR FROM c INTO r;        out := out || r::text;
  FETCH PRIOR FROM c INTO r;        out := out || r::text;
  FETCH LAST FROM c INTO r;         out := out || r::text;
  FETCH PRIOR FROM c INTO r;        out := out || r::text;
  FETCH FIRST FROM c INTO r;        out := out || r::text;
  FETCH PRIOR FROM c INTO r;        out := out || coalesce(r::text, '<none>');
  FETCH RELATIVE 300 FROM c INTO r; out := out || r::text;
  FETCH ABSOLUTE -2 FROM c INTO r;  out := out || r::text;
  MOVE BACKWARD ALL FROM c;
  FETCH NEXT FROM c INTO r;         out := out || r::text;
  CLOSE c;
  RETURN md5(out);
END $$;
SET enable_mergejoin = off; SET enable_nestloop = off;
SELECT memprobe + core AS material_on_top FROM mat_nodes('DECLARE c SCROLL CURSOR FOR SELECT t1.b, t2.a, t2.b FROM mat_outer t1 JOIN mat_inner t2 ON t1.a = t2.a');
BEGIN;
SET LOCAL memprobe.enable_material = on;
SELECT mat_cursor_walk('SELECT t1.b, t2.a, t2.b FROM mat_outer t1 JOIN mat_inner t2 ON t1.a = t2.a', '4MB') AS on_in_memory \gset
SELECT mat_cursor_walk('SELECT t1.b, t2.a, t2.b FROM mat_outer t1 JOIN mat_inner t2 ON t1.a = t2.a', '64kB') AS on_spilled \gset
SET LOCAL memprobe.enable_material = off;
SELECT mat_cursor_walk('SELECT t1.b, t2.a, t2.b FROM mat_outer t1 JOIN mat_inner t2 ON t1.a = t2.a', '4MB') AS off_in_memory \gset
COMMIT;
SELECT :'on_in_memory' = :'off_in_memory' AS cursor_same_in_memory,
       :'on_spilled' = :'off_in_memory' AS cursor_same_spilled;
RESET enable_mergejoin; RESET enable_nestloop;

-- a SQL-level SCROLL cursor, fetched backward
SET enable_mergejoin = off; SET enable_nestloop = off;
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT t1.b, t2.a FROM mat_outer t1 JOIN mat_small t2 ON t1.a = t2.a ORDER BY t1.b DESC LIMIT 20;
FETCH 3 FROM c;
FETCH BACKWARD 2 FROM c;
FETCH ABSOLUTE 20 FROM c;
FETCH RELATIVE -19 FROM c;
COMMIT;
RESET enable_mergejoin; RESET enable_nestloop;

-- EvalPlanQual-capable plans: UPDATE ... FROM with a materialized inner
SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_memoize = off;
CREATE TABLE mat_upd AS SELECT g AS a, 0 AS hits FROM generate_series(1, 30) g;
SELECT (memprobe > 0) = (current_setting('server_version_num')::int < 180000) AS node_as_expected
FROM mat_nodes('UPDATE mat_upd u SET hits = hits + 1 FROM mat_small s WHERE u.a < s.a AND s.a <= 3');
UPDATE mat_upd u SET hits = hits + 1 FROM mat_small s WHERE u.a < s.a AND s.a <= 3;
SELECT a, hits FROM mat_upd WHERE hits > 0 ORDER BY a;
RESET enable_hashjoin; RESET enable_mergejoin; RESET enable_memoize;
