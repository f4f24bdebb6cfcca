--
-- StreamScan deforming by need (memprobe.streamscan_deform_by_need): only the
-- columns the quals and projection read are filled, each from the end of the
-- variable-width column before it.  Every query runs by need, column by
-- column (the setting off), and with core's Seq Scan, and the three results
-- must be the same multiset.  The cassert builds fill the columns no one may
-- read with a poison value, so a reader of an unfilled column shows here.
--
SET max_parallel_workers_per_gather = 0;
SET memprobe.enable_streamscan = on;

-- every alignment and length, short and long varlena headers, NULLs in some rows, a dropped
-- column, columns added later with and without a default (missing in the older rows)
CREATE TABLE bn (t text, c1 int, c2 int2, c3 int8, c4 "char", c5 float8, v1 text, c6 int4,
                 c7 name, c8 bool, v2 bytea, c9 int8, gone int, c10 int2, v3 numeric, c11 int4);
INSERT INTO bn
  SELECT repeat('t', g % 140), g, (g % 300)::int2, g * 7, chr(65 + g % 26)::"char", g / 3.0,
         CASE WHEN g % 5 = 0 THEN repeat('v', 200 + g % 50) ELSE 'v' || g END,
         g + 6, ('n' || g)::name, g % 2 = 0, decode(repeat('ab', g % 90), 'hex'), g * 9, g,
         (g % 77)::int2, g / 11.0, g + 11
    FROM generate_series(1, 3000) g;
-- rows with NULLs before, between and after the columns read
INSERT INTO bn (t, c1, c2, c3, v1, c6, c9, c11)
  SELECT NULL, g, NULL, g, NULL, g, NULL, g FROM generate_series(1, 200) g;
UPDATE bn SET v1 = NULL WHERE c1 % 97 = 0;
ALTER TABLE bn DROP COLUMN gone;
ALTER TABLE bn ADD COLUMN a1 int DEFAULT 42;
ALTER TABLE bn ADD COLUMN a2 text;
INSERT INTO bn (t, c1, c6, c11, a1, a2) SELECT 'new', g, g, g, g, 'a' || g FROM generate_series(1, 50) g;
VACUUM ANALYZE bn;

-- Run q by need, column by column, by need with the plain-column projection's copy off
-- (memprobe.streamscan_simple_projection), by need with the copy but not deforming into the
-- projection's row (memprobe.streamscan_direct_projection), and with core's Seq Scan: rows, and
-- whether the five agree.
CREATE FUNCTION bn_same(q text, OUT nrows bigint, OUT same bool) LANGUAGE plpgsql AS $$
DECLARE
  n_diff bigint;
BEGIN
  PERFORM set_config('memprobe.streamscan_deform_by_need', 'on', true);
  EXECUTE 'CREATE TEMP TABLE bn_a AS ' || q;
  PERFORM set_config('memprobe.streamscan_deform_by_need', 'off', true);
  EXECUTE 'CREATE TEMP TABLE bn_b AS ' || q;
  PERFORM set_config('memprobe.streamscan_deform_by_need', 'on', true);
  PERFORM set_config('memprobe.streamscan_simple_projection', 'off', true);
  EXECUTE 'CREATE TEMP TABLE bn_d AS ' || q;
  PERFORM set_config('memprobe.streamscan_simple_projection', 'on', true);
  PERFORM set_config('memprobe.streamscan_direct_projection', 'off', true);
  EXECUTE 'CREATE TEMP TABLE bn_e AS ' || q;
  PERFORM set_config('memprobe.streamscan_direct_projection', 'on', true);
  PERFORM set_config('memprobe.enable_streamscan', 'off', true);
  EXECUTE 'CREATE TEMP TABLE bn_c AS ' || q;
  PERFORM set_config('memprobe.enable_streamscan', 'on', true);
  EXECUTE 'SELECT count(*) FROM bn_a' INTO nrows;
  EXECUTE '(SELECT count(*) FROM ((TABLE bn_a EXCEPT ALL TABLE bn_b) UNION ALL (TABLE bn_b EXCEPT ALL TABLE bn_a)
                                  UNION ALL (TABLE bn_a EXCEPT ALL TABLE bn_c) UNION ALL (TABLE bn_c EXCEPT ALL TABLE bn_a)
                                  UNION ALL (TABLE bn_a EXCEPT ALL TABLE bn_d) UNION ALL (TABLE bn_d EXCEPT ALL TABLE bn_a)
                                  UNION ALL (TABLE bn_a EXCEPT ALL TABLE bn_e) UNION ALL (TABLE bn_e EXCEPT ALL TABLE bn_a)) d)'
    INTO n_diff;
  same := n_diff = 0 AND nrows = (SELECT count(*) FROM bn_b) AND nrows = (SELECT count(*) FROM bn_c)
          AND nrows = (SELECT count(*) FROM bn_d) AND nrows = (SELECT count(*) FROM bn_e);
  DROP TABLE bn_a, bn_b, bn_c, bn_d, bn_e;
END $$;

-- one column after a varlena (the seed's shape), several, every one; quals on later columns
SELECT * FROM bn_same($$SELECT c11 FROM bn$$);
SELECT * FROM bn_same($$SELECT sum(c11) s11, sum(c9) s9, sum(c6) s6 FROM bn$$);
SELECT * FROM bn_same($$SELECT c1, c3, c5, c10, c11 FROM bn WHERE c9 % 3 = 0$$);
SELECT * FROM bn_same($$SELECT v2, c9, v3, c4 FROM bn WHERE c8$$);
SELECT * FROM bn_same($$SELECT length(t) lt, c2, v1, c7, length(v2) lv2, v3, a1, a2 FROM bn$$);
SELECT * FROM bn_same($$SELECT c11, a1 FROM bn WHERE c10 > 30 OR c10 IS NULL$$);
SELECT * FROM bn_same($$SELECT a2, c6 FROM bn WHERE a1 <> 42$$);
SELECT * FROM bn_same($$SELECT c5 * 2, upper(v1) FROM bn WHERE v1 LIKE 'v1%'$$);
-- plain columns in another order, one twice, by-reference ones beside NULLs, and columns the tuples
-- of before an ADD COLUMN lack (the copy of memprobe.streamscan_simple_projection)
SELECT * FROM bn_same($$SELECT c11, t, c11 AS again, v2, c1, a2, a1, v1 FROM bn$$);
SELECT * FROM bn_same($$SELECT v3, c7, c4, c5 FROM bn WHERE c1 % 3 = 1$$);
-- count(*), and a qual alone
SELECT * FROM bn_same($$SELECT count(*) FROM bn WHERE c11 > 1000$$);
-- system columns beside user columns, a whole-row reference (every column), no projection
SELECT * FROM bn_same($$SELECT ctid::text AS tid, tableoid::regclass::text AS rel, xmin::text::bigint > 0 AS has_xmin, c11 FROM bn WHERE c1 < 100$$);
SELECT * FROM bn_same($$SELECT bn::text FROM bn WHERE c1 % 50 = 0$$);
SELECT * FROM bn_same($$SELECT c11, length(bn::text) FROM bn WHERE c1 % 50 = 0$$);
SELECT * FROM bn_same($$SELECT * FROM bn WHERE c1 % 10 = 0$$);
-- parents that copy or keep the scan's rows: sort, hash, materialize, a subplan
SELECT * FROM bn_same($$SELECT c11, v3 FROM bn ORDER BY c9 DESC NULLS FIRST, c1 LIMIT 500$$);
SELECT * FROM bn_same($$SELECT a.c11, b.v1 FROM bn a JOIN bn b ON a.c1 = b.c6 WHERE a.c1 < 300$$);
SELECT * FROM bn_same($$SELECT c1, (SELECT max(c11) FROM bn i WHERE i.c2 = o.c2) FROM bn o WHERE c1 < 50$$);

-- a scroll cursor, read backward and again
BEGIN;
DECLARE bn_cur SCROLL CURSOR FOR SELECT c1, c11, v3 FROM bn WHERE c1 BETWEEN 10 AND 20 AND c2 IS NOT NULL;
FETCH 3 FROM bn_cur;
FETCH BACKWARD 2 FROM bn_cur;
FETCH ABSOLUTE 5 FROM bn_cur;
COMMIT;

-- No qual, and a projection of plain columns each named once: a tuple is deformed straight into
-- the projection's slot (streamscan_exec_columns), one with a NULL before the last column read
-- or lacking a column through the scan slot and the copy.  Every kind of column, in another
-- order (most rows straight; the columns added later: every row through the slot); one column
-- twice (the copy again); no column skipped; a parent that keeps the rows.
SELECT * FROM bn_same($$SELECT v2, c9, c7, c4, c3, c5, c8, v1, c1, c10, c2 FROM bn$$);
SELECT * FROM bn_same($$SELECT v2, c1, a2, c7, a1, v1, c11, c3, c4 FROM bn$$);
SELECT * FROM bn_same($$SELECT c2, c1, t FROM bn$$);
SELECT * FROM bn_same($$SELECT c11, c11 AS again, c9 FROM bn$$);
SELECT * FROM bn_same($$SELECT v3, c10 FROM bn ORDER BY c10, v3 LIMIT 700$$);
-- Rescanned: a correlated subplan's scan, once per outer row.
EXPLAIN (COSTS OFF)
  SELECT v.x, (SELECT max(b.c11) + v.x FROM bn b) FROM (VALUES (12), (500), (-1)) v(x);
SELECT * FROM bn_same($$SELECT v.x, (SELECT max(b.c11) + sum(length(b.v2)) + v.x FROM bn b) m
                          FROM (VALUES (12), (500), (-1)) v(x)$$);
-- Which scans take it (a line at their first row): not one with a qual, nor one naming a column
-- twice, nor with any of the three settings off.
SET client_min_messages = debug1;
SELECT sum(c11) FROM bn;
SELECT sum(c11) FROM bn WHERE c1 > 0;
EXPLAIN (VERBOSE, COSTS OFF) SELECT sum(c11 + again) FROM (SELECT c11, c11 AS again FROM bn OFFSET 0) s;
SELECT sum(c11 + again) FROM (SELECT c11, c11 AS again FROM bn OFFSET 0) s;
SET memprobe.streamscan_deform_by_need = off;
SELECT sum(c11) FROM bn;
RESET memprobe.streamscan_deform_by_need;
SET memprobe.streamscan_simple_projection = off;
SELECT sum(c11) FROM bn;
RESET memprobe.streamscan_simple_projection;
SET memprobe.streamscan_direct_projection = off;
SELECT sum(c11) FROM bn;
RESET memprobe.streamscan_direct_projection;
RESET client_min_messages;
-- A table without NULLs (the same rows, in the order written): cursors read forward, backward and
-- by position, and WHERE CURRENT OF finds the row from the scan slot, which still holds the tuple.
CREATE TABLE bn_plain (t text, k int, skipped int, v int);
INSERT INTO bn_plain SELECT repeat('x', g % 30), g, 0, g * 10 FROM generate_series(1, 2000) g;
BEGIN;
DECLARE bn_all SCROLL CURSOR FOR SELECT v, k FROM bn_plain;
FETCH 3 FROM bn_all;
FETCH BACKWARD 2 FROM bn_all;
FETCH ABSOLUTE 1500 FROM bn_all;
FETCH RELATIVE -700 FROM bn_all;
FETCH LAST FROM bn_all;
FETCH NEXT FROM bn_all;
FETCH PRIOR FROM bn_all;
COMMIT;
BEGIN;
DECLARE bn_upd CURSOR FOR SELECT v, k FROM bn_plain;
FETCH 2 FROM bn_upd;
UPDATE bn_plain SET v = -v WHERE CURRENT OF bn_upd RETURNING k, v;
MOVE 997 IN bn_upd;
DELETE FROM bn_plain WHERE CURRENT OF bn_upd RETURNING k, v;
FETCH 1 FROM bn_upd;
SELECT k, v FROM bn_plain WHERE k IN (1, 2, 3, 999, 1000, 1001) ORDER BY k;
ROLLBACK;
DROP TABLE bn_plain;

-- JIT-compiled quals and projection (where the server has JIT: they call memprobe's
-- deformation, as for any slot type JIT does not know)
SET jit = on;
SET jit_above_cost = 0;
SET jit_inline_above_cost = 0;
SET jit_optimize_above_cost = 0;
SELECT * FROM bn_same($$SELECT c11 + c6, v3 FROM bn WHERE c9 > 100$$);
RESET jit;
RESET jit_above_cost;
RESET jit_inline_above_cost;
RESET jit_optimize_above_cost;

DROP FUNCTION bn_same(text);
DROP TABLE bn;
