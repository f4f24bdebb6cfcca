--
-- EXPLAIN ANALYZE's Storage line for WindowAgg, CTE Scan and Recursive Union
-- (Table Function Scan: stores_tablefunc).  PostgreSQL 18 prints it itself;
-- memprobe adds it on 15 and 17 at the same place with the same names.
-- What differs between versions and runs (row counts' format, kB, 18's
-- Window line, buffer counts) is masked, and memprobe's own Tuple Context
-- line is left out here, so that this file's output is the same on 15, 17
-- and 18: on 18 it is core's own output.
--
SET memprobe.enable_streamscan = off;
SET max_parallel_workers_per_gather = 0;
SET jit = off;

CREATE TABLE es (id int, grp int, b text);
INSERT INTO es SELECT g, g % 7, repeat('b', 1000) FROM generate_series(1, 2000) g;
ANALYZE es;

-- EXPLAIN ANALYZE of q in format fmt, masked (text: the lines; others: as they are)
CREATE FUNCTION es_explain(q text, fmt text DEFAULT 'text', buffers bool DEFAULT false)
RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  line text;
  planning bool := false;
BEGIN
  FOR line IN EXECUTE format('EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS %s, FORMAT %s) %s',
                             CASE WHEN buffers THEN 'on' ELSE 'off' END, fmt, q) LOOP
    planning := planning OR line = 'Planning:';
    CONTINUE WHEN planning OR line ~ '^\s*(Window: |Tuple Context: )';
    line := regexp_replace(line, ' \(actual [^)]*\)', '');
    line := regexp_replace(line, 'Maximum Storage: \d+kB', 'Maximum Storage: NkB');
    line := regexp_replace(line, '=\d+', '=N', 'g');
    line := regexp_replace(line, '(InitPlan \d+).*', '\1');
    line := regexp_replace(line, '(Workers Launched|Rows Removed by Filter|Buckets): \d+', '\1: N', 'g');
    line := regexp_replace(line, '(Memory|Memory Usage|Disk): \d+kB', '\1: NkB', 'g');
    RETURN NEXT line;
  END LOOP;
END $$;

-- WindowAgg: one partition in memory, many partitions, spilling (work_mem 64kB)
SELECT * FROM es_explain($$SELECT id, lag(id, 3) OVER (ORDER BY id) FROM es WHERE id <= 500$$);
SELECT * FROM es_explain($$SELECT id, sum(id) OVER (PARTITION BY grp ORDER BY id) FROM es$$);
SET work_mem = '64kB';
SELECT * FROM es_explain($$SELECT id, count(*) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING), length(b) FROM es$$);
RESET work_mem;
-- a filter on the window's output: the line comes after the filter's lines, as on 18
SELECT * FROM es_explain($$SELECT * FROM (SELECT id, rank() OVER (ORDER BY id) r FROM es) s WHERE r % 2 = 0$$);

-- a CTE read twice: each CTE Scan shows the CTE's store; spilling
SELECT * FROM es_explain($$WITH c AS MATERIALIZED (SELECT id, b FROM es WHERE id <= 100)
                          SELECT count(*) FROM c x JOIN c y ON x.id = y.id$$);
SET work_mem = '64kB';
SET enable_mergejoin = off;
SELECT * FROM es_explain($$WITH c AS MATERIALIZED (SELECT id, b FROM es)
                          SELECT count(*) FROM c x JOIN c y ON x.id = y.id$$);
RESET enable_mergejoin;
RESET work_mem;

-- recursive CTEs: UNION ALL, UNION
SELECT * FROM es_explain($$WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 100) SELECT count(*) FROM r$$);
SELECT * FROM es_explain($$WITH RECURSIVE r(n, b) AS (SELECT 1, repeat('x', 500) UNION SELECT n % 50 + 1, b FROM r) SELECT count(*) FROM r$$);

-- nodes in sub plans, init plans, Append members, under a Subquery Scan
SELECT * FROM es_explain($$SELECT g, (SELECT max(l) FROM (SELECT lag(id) OVER (ORDER BY id) l FROM es WHERE grp = g) s)
                           FROM generate_series(1, 3) g$$);
SELECT * FROM es_explain($$SELECT id, sum(id) OVER () FROM es WHERE id < 5
                          UNION ALL SELECT id, sum(id) OVER (ORDER BY id) FROM es WHERE id > 1995$$);
SELECT * FROM es_explain($$SELECT (SELECT max(s) FROM (SELECT sum(id) OVER () s FROM es) q), count(*) FROM es$$);

-- with BUFFERS: before the node's Buffers line, as on 18
SELECT * FROM es_explain($$SELECT id, lag(id) OVER (ORDER BY id) FROM es WHERE id <= 10$$, 'text', true);

-- a parallel plan: the WindowAgg above the Gather
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT * FROM es_explain($$SELECT id, sum(id) OVER () FROM es WHERE id % 10 = 0$$);
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;

-- the structured formats: the same properties on the same nodes (JSON and XML parsed, so also
-- well formed; YAML's lines)
CREATE FUNCTION es_json(q text) RETURNS TABLE (node text, storage text, has_maximum bool)
LANGUAGE plpgsql AS $$
DECLARE
  doc json;
BEGIN
  EXECUTE format('EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF, FORMAT JSON) %s', q) INTO doc;
  RETURN QUERY SELECT n->>'Node Type', n->>'Storage', n ? 'Maximum Storage'
                 FROM jsonb_path_query(doc::jsonb, 'strict $.**') n
                WHERE jsonb_typeof(n) = 'object' AND n ? 'Node Type';
END $$;
SELECT * FROM es_json($$WITH c AS MATERIALIZED (SELECT id FROM es WHERE id <= 10)
                        SELECT id, sum(id) OVER () FROM c$$);
SELECT * FROM es_json($$WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT * FROM r$$);
SELECT regexp_replace(line, '\d+', 'N', 'g')
  FROM es_explain($$SELECT id, lag(id) OVER (ORDER BY id) FROM es WHERE id <= 10$$, 'yaml') l,
                 regexp_split_to_table(l, '\n') line
 WHERE line ~ 'Node Type|Storage';
SELECT regexp_replace(line, '\d+', 'N', 'g')
  FROM es_explain($$WITH c AS MATERIALIZED (SELECT id FROM es WHERE id <= 10) SELECT count(*) FROM c$$, 'xml') l,
       regexp_split_to_table(l, '\n') line
 WHERE line ~ 'Node-Type|Storage';

-- EXPLAIN ANALYZE of a prepared statement and of CREATE TABLE AS; a rule's second plan
PREPARE es_prep AS SELECT id, lag(id) OVER (ORDER BY id) FROM es WHERE id <= 20;
SELECT * FROM es_explain('EXECUTE es_prep');
DEALLOCATE es_prep;
SELECT * FROM es_explain($$CREATE TABLE es_ctas AS SELECT id, lag(id) OVER (ORDER BY id) FROM es WHERE id <= 20$$);
DROP TABLE es_ctas;
CREATE TABLE es_t (id int);
CREATE TABLE es_log (id int, total bigint);
CREATE RULE es_rule AS ON INSERT TO es_t DO ALSO
  INSERT INTO es_log SELECT id, sum(id) OVER () FROM es WHERE id <= 3;
SELECT * FROM es_explain($$INSERT INTO es_t VALUES (1)$$);
DROP TABLE es_t, es_log;

-- an EXPLAIN ANALYZE run by a function the explained query calls: each gets its own lines
CREATE FUNCTION es_inner() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  n bigint;
BEGIN
  SELECT count(*) INTO n FROM es_explain('SELECT id, sum(id) OVER () FROM es WHERE id <= 5') l WHERE l ~ 'Storage: Memory';
  RAISE NOTICE 'inner EXPLAIN: % Storage line(s)', n;
  RETURN n;
END $$;
SELECT * FROM es_explain($$SELECT es_inner(), sum(id) OVER () FROM es WHERE id <= 2$$);
SELECT es_inner();

-- no line without ANALYZE; none from memprobe with memprobe.explain_storage off (18 prints its own);
-- with memprobe.enable_stores off the stores are core's, and still reported (no Tuple Context line)
CREATE FUNCTION es_count(q text, do_analyze bool, pattern text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  line text;
  n bigint := 0;
BEGIN
  FOR line IN EXECUTE format('EXPLAIN (ANALYZE %s, COSTS OFF) %s', CASE WHEN do_analyze THEN 'on' ELSE 'off' END, q) LOOP
    IF line ~ pattern THEN n := n + 1; END IF;
  END LOOP;
  RETURN n;
END $$;
CREATE VIEW es_version AS SELECT current_setting('server_version_num')::int >= 180000 AS pg18;
SELECT es_count('SELECT id, sum(id) OVER () FROM es', false, 'Storage') AS lines_without_analyze;
SET memprobe.explain_storage = off;
SELECT es_count('SELECT id, sum(id) OVER () FROM es', true, 'Storage:') = (CASE WHEN pg18 THEN 1 ELSE 0 END)
       AS only_core_lines
  FROM es_version;
RESET memprobe.explain_storage;
SELECT es_count('SELECT id, sum(id) OVER () FROM es', true, 'Tuple Context: Generation') = (CASE WHEN pg18 THEN 0 ELSE 1 END)
       AS tuple_context_line_when_claimed
  FROM es_version;
SET memprobe.enable_stores = off;
SELECT * FROM es_explain($$SELECT id, sum(id) OVER () FROM es WHERE id <= 5$$);
SELECT es_count('SELECT id, sum(id) OVER () FROM es', true, 'Tuple Context') AS tuple_context_lines_off;
RESET memprobe.enable_stores;

-- the figures are the node's: 2000 ~1kB rows, in memory at 4MB and spilled at 64kB; on 15 and
-- 17 the tuple context's peak is at least what the store charged
CREATE FUNCTION es_figures(q text, wm text) RETURNS TABLE (storage text, max_kb int, held_kb int)
LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  PERFORM set_config('work_mem', wm, true);
  storage := NULL; max_kb := NULL; held_kb := NULL;
  FOR line IN EXECUTE format('EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) %s', q) LOOP
    IF line ~ 'Storage: ' THEN
      storage := substring(line from 'Storage: (\w+)');
      max_kb := substring(line from 'Maximum Storage: (\d+)kB')::int;
    ELSIF line ~ 'Peak Memory Held' THEN
      held_kb := substring(line from 'Peak Memory Held: (\d+)kB')::int;
    END IF;
  END LOOP;
  RETURN NEXT;
END $$;
SELECT storage, max_kb > 2000, held_kb IS NULL OR held_kb >= max_kb AS held_covers
  FROM es_figures($$SELECT length(b), count(*) OVER () FROM es$$, '4MB');
SELECT storage, max_kb > 2000
  FROM es_figures($$SELECT length(b), count(*) OVER () FROM es$$, '64kB');

DROP VIEW es_version;
DROP FUNCTION es_count(text, bool, text);
DROP FUNCTION es_figures(text, text);
DROP FUNCTION es_inner();
DROP FUNCTION es_json(text);
DROP FUNCTION es_explain(text, text, bool);
DROP TABLE es;
