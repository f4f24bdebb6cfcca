--
-- Table Function Scan (JSON_TABLE, PostgreSQL 17 and later): its store in a
-- Generation context (memprobe.enable_stores; a no-op on 18) when it has no
-- parameter, and EXPLAIN ANALYZE's Storage line (memprobe's on 17, core's on
-- 18: the same masked output).
--
SET memprobe.enable_streamscan = off;
SET max_parallel_workers_per_gather = 0;
SET jit = off;

CREATE FUNCTION jt_doc(n int) RETURNS jsonb STABLE LANGUAGE plpgsql AS $$
BEGIN
  RETURN (SELECT jsonb_agg(jsonb_build_object('n', g, 'v', repeat(chr(65 + g % 26), 1100))) FROM generate_series(1, n) g);
END $$;
CREATE TABLE jt_docs (id int, doc jsonb);
INSERT INTO jt_docs SELECT d, jt_doc(d * 100) FROM generate_series(1, 3) d;

CREATE FUNCTION jt_same(q text, wm text, OUT nrows bigint, OUT same bool) LANGUAGE plpgsql AS $$
DECLARE
  n_diff bigint;
BEGIN
  PERFORM set_config('work_mem', wm, true);
  PERFORM set_config('memprobe.enable_stores', 'on', true);
  EXECUTE 'CREATE TEMP TABLE jt_on AS ' || q;
  PERFORM set_config('memprobe.enable_stores', 'off', true);
  EXECUTE 'CREATE TEMP TABLE jt_off AS ' || q;
  PERFORM set_config('memprobe.enable_stores', 'on', true);
  EXECUTE 'SELECT count(*) FROM jt_on' INTO nrows;
  EXECUTE '(SELECT count(*) FROM ((TABLE jt_on EXCEPT ALL TABLE jt_off) UNION ALL
                                   (TABLE jt_off EXCEPT ALL TABLE jt_on)) d)' INTO n_diff;
  same := n_diff = 0 AND nrows = (SELECT count(*) FROM jt_off);
  DROP TABLE jt_on, jt_off;
END $$;
SELECT * FROM jt_same($$SELECT * FROM JSON_TABLE(jt_doc(700), '$[*]' COLUMNS (n int PATH '$.n', v text PATH '$.v'))$$, '64kB');
SELECT * FROM jt_same($$SELECT d.id, j.* FROM jt_docs d,
                          JSON_TABLE(d.doc, '$[*]' COLUMNS (n int PATH '$.n', v text PATH '$.v')) j$$, '64kB');

-- 700 rows of ~1.1kB at work_mem 1MB: in memory with the setting on (on 18, always)
CREATE VIEW jt_spills AS
  SELECT temp_bytes_written > 0 AS wrote_temp FROM memprobe_statements WHERE query LIKE 'SELECT count(*), sum(length(v))%';
CREATE VIEW jt_version AS SELECT current_setting('server_version_num')::int >= 180000 AS pg18;
SET work_mem = '1MB';
SELECT memprobe_statements_reset() IS NOT NULL AS t;
SELECT count(*), sum(length(v)) FROM JSON_TABLE(jt_doc(700), '$[*]' COLUMNS (v text PATH '$.v'));
SELECT wrote_temp FROM jt_spills;
SET memprobe.enable_stores = off;
SELECT memprobe_statements_reset() IS NOT NULL AS t;
SELECT count(*), sum(length(v)) FROM JSON_TABLE(jt_doc(700), '$[*]' COLUMNS (v text PATH '$.v'));
SELECT wrote_temp = NOT pg18 AS core_spills_before_18 FROM jt_spills, jt_version;
RESET memprobe.enable_stores;
RESET work_mem;
DROP VIEW jt_spills;
DROP VIEW jt_version;

-- EXPLAIN ANALYZE: the Storage line, made once and per outer row
CREATE FUNCTION jt_explain(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  FOR line IN EXECUTE format('EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) %s', q) LOOP
    CONTINUE WHEN line ~ '^\s*Tuple Context: ';
    line := regexp_replace(line, ' \(actual [^)]*\)', '');
    line := regexp_replace(line, '\d+kB', 'NkB', 'g');
    RETURN NEXT line;
  END LOOP;
END $$;
SET work_mem = '1MB';
SELECT * FROM jt_explain($$SELECT count(*) FROM JSON_TABLE(jt_doc(700), '$[*]' COLUMNS (v text PATH '$.v'))$$);
SELECT * FROM jt_explain($$SELECT d.id, count(*) FROM jt_docs d, JSON_TABLE(d.doc, '$[*]' COLUMNS (n int PATH '$.n')) j
                           GROUP BY d.id$$);
RESET work_mem;

-- an error mid-way leaves no context behind
SELECT count(*) FROM JSON_TABLE(jt_doc(300), '$[*]' COLUMNS (n int PATH '$.n ? (@ < 250)' ERROR ON EMPTY));
SELECT count(*) AS table_function_scan_contexts FROM memprobe_contexts WHERE name = 'memprobe Table Function Scan tuples';

DROP FUNCTION jt_explain(text);
DROP FUNCTION jt_same(text, text);
DROP TABLE jt_docs;
DROP FUNCTION jt_doc(int);
