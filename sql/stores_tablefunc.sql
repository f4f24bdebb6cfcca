--
-- Table Function Scan (XMLTABLE): its store in a Generation context
-- (memprobe.enable_stores) when it has no parameter, so is made once; a
-- lateral one is made per outer row and stays core's.  EXPLAIN ANALYZE's
-- Storage line on both.  Needs a server built with libxml; without it every
-- XML statement fails (expected/stores_tablefunc_1.out).
--
SET memprobe.enable_streamscan = off;
SET max_parallel_workers_per_gather = 0;
SET jit = off;

CREATE FUNCTION tf_doc(n int) RETURNS xml STABLE LANGUAGE plpgsql AS $$
BEGIN
  RETURN (SELECT xmlelement(name r, xmlagg(xmlelement(name x, xmlattributes(g AS n), repeat(chr(65 + g % 26), 1100))))
            FROM generate_series(1, n) g);
END $$;
CREATE TABLE tf_docs (id int, doc xml);
INSERT INTO tf_docs SELECT d, tf_doc(d * 100) FROM generate_series(1, 3) d;

-- the same rows with the setting on and off
CREATE FUNCTION tf_same(q text, wm text, OUT nrows bigint, OUT same bool) LANGUAGE plpgsql AS $$
DECLARE
  n_diff bigint;
BEGIN
  PERFORM set_config('work_mem', wm, true);
  PERFORM set_config('memprobe.enable_stores', 'on', true);
  EXECUTE 'CREATE TEMP TABLE tf_on AS ' || q;
  PERFORM set_config('memprobe.enable_stores', 'off', true);
  EXECUTE 'CREATE TEMP TABLE tf_off AS ' || q;
  PERFORM set_config('memprobe.enable_stores', 'on', true);
  EXECUTE 'SELECT count(*) FROM tf_on' INTO nrows;
  EXECUTE '(SELECT count(*) FROM ((TABLE tf_on EXCEPT ALL TABLE tf_off) UNION ALL
                                   (TABLE tf_off EXCEPT ALL TABLE tf_on)) d)' INTO n_diff;
  same := n_diff = 0 AND nrows = (SELECT count(*) FROM tf_off);
  DROP TABLE tf_on, tf_off;
END $$;
SELECT * FROM tf_same($$SELECT * FROM XMLTABLE('/r/x' PASSING tf_doc(700) COLUMNS n int PATH '@n', v text PATH '.')$$, '64kB');
SELECT * FROM tf_same($$SELECT d.id, x.* FROM tf_docs d,
                          XMLTABLE('/r/x' PASSING d.doc COLUMNS n int PATH '@n', v text PATH '.') x$$, '64kB');

-- 700 rows of ~1.1kB at work_mem 1MB: in memprobe's context and in memory with the setting on
-- (read from inside the query); core's take 2kB each and spill
CREATE VIEW tf_spills AS
  SELECT temp_bytes_written > 0 AS wrote_temp FROM memprobe_statements
   WHERE query LIKE 'SELECT count(*), sum(length(v))%' AND calls > 0;
SET work_mem = '1MB';
SELECT memprobe_statements_reset() IS NOT NULL AS t;
SELECT count(*), sum(length(v)),
       (SELECT sum(total_bytes) FROM memprobe_contexts
         WHERE name = 'memprobe Table Function Scan tuples') > 700 * 1100 AS in_table_function_scan_context
  FROM XMLTABLE('/r/x' PASSING tf_doc(700) COLUMNS v text PATH '.');
SELECT * FROM tf_spills;
SET memprobe.enable_stores = off;
SELECT memprobe_statements_reset() IS NOT NULL AS t;
SELECT count(*), sum(length(v)),
       (SELECT sum(total_bytes) FROM memprobe_contexts
         WHERE name = 'memprobe Table Function Scan tuples') > 700 * 1100 AS in_table_function_scan_context
  FROM XMLTABLE('/r/x' PASSING tf_doc(700) COLUMNS v text PATH '.');
SELECT * FROM tf_spills;
RESET memprobe.enable_stores;
RESET work_mem;
DROP VIEW tf_spills;

-- EXPLAIN ANALYZE: the Storage line, made once and per outer row
CREATE FUNCTION tf_explain(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  FOR line IN EXECUTE format('EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) %s', q) LOOP
    line := regexp_replace(line, ' \(actual [^)]*\)', '');
    line := regexp_replace(line, '\d+kB', 'NkB', 'g');
    RETURN NEXT line;
  END LOOP;
END $$;
SET work_mem = '1MB';
SELECT * FROM tf_explain($$SELECT count(*) FROM XMLTABLE('/r/x' PASSING tf_doc(700) COLUMNS v text PATH '.')$$);
SELECT * FROM tf_explain($$SELECT d.id, count(*) FROM tf_docs d, XMLTABLE('/r/x' PASSING d.doc COLUMNS n int PATH '@n') x
                           GROUP BY d.id$$);
RESET work_mem;

-- an error mid-way leaves no context behind
SELECT count(*) FROM XMLTABLE('/r/x' PASSING tf_doc(300) COLUMNS n int PATH 'concat(@n, substring("x", 1, number(@n > 250)))');
SELECT count(*) AS table_function_scan_contexts FROM memprobe_contexts WHERE name = 'memprobe Table Function Scan tuples';

DROP FUNCTION tf_explain(text);
DROP FUNCTION tf_same(text, text);
DROP TABLE tf_docs;
DROP FUNCTION tf_doc(int);
