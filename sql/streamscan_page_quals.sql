--
-- StreamScan's page-loop quals: "column op constant" integer comparisons
-- checked on the raw tuple before it reaches a slot.  Each qual below is run
-- three ways (page-loop quals on, off, and core's Seq Scan); the rows must be
-- the same, and EXPLAIN ANALYZE says how many quals ran in the page loop.
--
SET max_parallel_workers_per_gather = 0;

-- a dropped fixed-width column keeps its place: b's offset counts it
CREATE TABLE pq (a int2, x int4, b int4, c int8, t text, d int4);
ALTER TABLE pq DROP COLUMN x;
INSERT INTO pq (a, b, c, t, d)
  SELECT (g % 7)::int2, g % 11, g::int8 * 1000000, 't' || g, g % 5
  FROM generate_series(-300, 300) g;
-- boundaries, and NULLs before, at and after the compared columns
INSERT INTO pq (a, b, c, t, d) VALUES
  (-32768, -2147483648, -9223372036854775808, 'min', 0),
  (32767, 2147483647, 9223372036854775807, 'max', 0),
  (NULL, 5, 5, 'a null', 1),
  (1, NULL, 5, 'b null', 1),
  (1, 5, NULL, 'c null', 1),
  (1, 5, 5, NULL, NULL),
  (NULL, NULL, NULL, NULL, NULL);
-- rows from before a column existed get its default (atthasmissing)
ALTER TABLE pq ADD COLUMN e int4 DEFAULT 7;
INSERT INTO pq (a, b, c, t, d, e) SELECT 2, g, g, 'new', 1, g % 3 FROM generate_series(1, 30) g;
-- after one varlena (t) and after a second one (u): t's values short and long-headed
ALTER TABLE pq ADD COLUMN u text;
ALTER TABLE pq ADD COLUMN f int8;
INSERT INTO pq (a, b, c, t, d, e, u, f)
  SELECT 3, g, g, repeat('v', g * 7), g % 4, g % 5, repeat('w', g), g % 6 FROM generate_series(1, 60) g;
VACUUM ANALYZE pq;

-- One scan of pq under the settings in force, with an optional LIMIT: its plan's scan node, the
-- Page Quals figure, its rows (as text), "Rows Removed by Filter", and the tuples it fetched
-- (pg_stat's seq_tup_read, this transaction's count).
CREATE TYPE pq_result AS (node text, page_quals int, nrows int, rows text, removed bigint,
                          fetched bigint);

CREATE FUNCTION pq_run(qual text, lim int) RETURNS pq_result
LANGUAGE plpgsql AS $$
DECLARE
  r pq_result;
  plan json;
  scan json;
  before bigint;
  limit_clause text := CASE WHEN lim IS NULL THEN '' ELSE format(' LIMIT %s', lim) END;
BEGIN
  before := pg_stat_get_xact_tuples_returned('pq'::regclass);
  EXECUTE format('EXPLAIN (ANALYZE, FORMAT JSON, COSTS OFF, TIMING OFF, SUMMARY OFF) '
                 'SELECT ctid FROM pq WHERE %s%s', qual, limit_clause) INTO plan;
  r.fetched := pg_stat_get_xact_tuples_returned('pq'::regclass) - before;
  scan := plan->0->'Plan';
  IF lim IS NOT NULL THEN
    scan := scan->'Plans'->0;
  END IF;
  r.node := coalesce(scan->>'Custom Plan Provider', scan->>'Node Type');
  r.page_quals := (scan->>'Page Quals')::int;
  r.nrows := (scan->>'Actual Rows')::numeric::int;
  r.removed := coalesce((scan->>'Rows Removed by Filter')::bigint, 0);
  EXECUTE format('SELECT string_agg(ctid::text, '','' ORDER BY ctid) '
                 'FROM (SELECT ctid FROM pq WHERE %s%s) s', qual, limit_clause) INTO r.rows;
  RETURN r;
END $$;

-- The same scan three ways: with memprobe's SETTING on, off, and as core's Seq Scan.
CREATE FUNCTION pq_three_ways(setting text, qual text, lim int,
                              OUT r_on pq_result, OUT r_off pq_result, OUT r_core pq_result)
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('SET %s = on', setting);
  r_on := pq_run(qual, lim);
  EXECUTE format('SET %s = off', setting);
  r_off := pq_run(qual, lim);
  EXECUTE format('RESET %s', setting);
  SET memprobe.enable_streamscan = off;
  r_core := pq_run(qual, lim);
  RESET memprobe.enable_streamscan;
  IF r_on.node <> 'MemprobeStreamScan' OR r_off.node <> 'MemprobeStreamScan'
     OR r_core.node <> 'Seq Scan' THEN
    RAISE EXCEPTION 'unexpected plans for %: % % %', qual, r_on.node, r_off.node, r_core.node;
  END IF;
END $$;

-- the same rows, rows removed and tuples fetched
CREATE FUNCTION pq_same(a pq_result, b pq_result) RETURNS bool
LANGUAGE sql IMMUTABLE AS $$
  SELECT a.rows IS NOT DISTINCT FROM b.rows AND a.removed = b.removed AND a.fetched = b.fetched
$$;

-- memprobe.streamscan_page_quals on, off and core; with it off, no qual runs in the page loop
CREATE FUNCTION pq_check(qual text)
RETURNS TABLE (qual_ text, nrows int, page_quals int, same_without bool, same_as_core bool)
LANGUAGE plpgsql AS $$
DECLARE
  w record;
BEGIN
  w := pq_three_ways('memprobe.streamscan_page_quals', qual, NULL);
  IF (w.r_off).page_quals <> 0 THEN
    RAISE EXCEPTION 'page-loop quals with memprobe.streamscan_page_quals off for %', qual;
  END IF;
  RETURN QUERY SELECT qual, (w.r_on).nrows, (w.r_on).page_quals,
    pq_same(w.r_on, w.r_off), pq_same(w.r_on, w.r_core);
END $$;

SELECT (pq_check(q)).* FROM unnest(ARRAY[
  -- int4 column, every operator, both ways round
  'b = 5', 'b <> 5', 'b < 0', 'b <= -3', 'b > 8', 'b >= 10',
  '5 = b', '0 > b', '10 <= b',
  'b = -2147483648', 'b = 2147483647', 'b < -2147483647',
  -- int2 column: int2 and int4 constants (beyond int2's range too), int8 constant
  'a = 1::int2', 'a = 1', 'a < 40000', 'a > -40000', 'a = -32768', 'a = 2::int8',
  -- int8 column: int8, int4 and int2 constants
  'c = 5', 'c > 4294967296', 'c <= -9223372036854775807', 'c = 5::int2', 'c >= 9223372036854775807',
  -- int4 column against an int8 constant outside int4's range
  'b < 4294967296', 'b > -4294967296::int8',
  -- several page-loop quals, then one that is not
  'a = 1 AND b = 5', 'a = 1 AND b = 5 AND c = 5', 'a = 1 AND f = 1',
  -- after one varlena: its end plus a constant (rows without the column: the full qual)
  'd = 3', 'd > 1 AND e < 3', 'e = 7', 'e <> 7', 'b = 5 AND d = 0',
  -- not page-loop quals: after a second varlena, non-Var, non-Const
  'f = 2', 'b + 0 = 5', 'b = (SELECT 5)', 'b IS NULL',
  'b = 5 OR b = 6',
  -- a SubPlan in the qual: the rest would be compiled twice, so no page-loop quals
  'b > 0 AND b NOT IN (SELECT g FROM generate_series(1, 3) g)'
]) q;

-- core puts the LIKE first: the page loop takes nothing, so quals keep core's order
SELECT (pq_check('b = 5 AND t LIKE ''t%''')).*;

-- memprobe.streamscan_batch_quals: going forward on a page, the tuples that fail the page-loop
-- quals are passed over in one loop and counted at once.  With it on and off, and with core's
-- Seq Scan: the same rows, the same "Rows Removed by Filter" and the same tuples fetched
-- (pg_stat's seq_tup_read, this transaction's count), for whole scans and for scans a LIMIT stops
-- after a few rows.
CREATE FUNCTION pq_batch_check(qual text, lim int)
RETURNS TABLE (qual_ text, lim_ int, removed bigint, fetched bigint, same_without bool, same_as_core bool)
LANGUAGE plpgsql AS $$
DECLARE
  w record;
BEGIN
  w := pq_three_ways('memprobe.streamscan_batch_quals', qual, lim);
  RETURN QUERY SELECT qual, lim, (w.r_on).removed, (w.r_on).fetched,
    pq_same(w.r_on, w.r_off), pq_same(w.r_on, w.r_core);
END $$;

SELECT (pq_batch_check(q, l)).*
FROM unnest(ARRAY['b = 5', 'b > 8', 'a = 1 AND b = 5', 'c = 5', 'd = 3', 'e <> 7', 'b < -2147483647'])
       WITH ORDINALITY AS q(q, n),
     unnest(ARRAY[1, 3, 1000]) AS l
ORDER BY n, l;

-- a cursor turning back mid-page: batching only ever goes forward
BEGIN;
DECLARE pqc SCROLL CURSOR FOR SELECT ctid, b FROM pq WHERE b = 5;
FETCH 3 FROM pqc;
FETCH BACKWARD 2 FROM pqc;
FETCH 4 FROM pqc;
COMMIT;

DROP TABLE pq;
DROP FUNCTION pq_batch_check(text, int);
DROP FUNCTION pq_check(text);
DROP FUNCTION pq_same(pq_result, pq_result);
DROP FUNCTION pq_three_ways(text, text, int);
DROP FUNCTION pq_run(text, int);
DROP TYPE pq_result;
