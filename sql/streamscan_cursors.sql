--
-- StreamScan under cursors and rescans: backward scans and changes of
-- direction (mid-page, across page boundaries and empty pages, past either
-- end), rewinds, nested-loop and subplan rescans, early stops, CTEs.  Each
-- check runs with memprobe's node (memprobe.enable_streamscan = on) and with
-- core's Seq Scan (off), checks that the plans use the node, resp. core's
-- scan, and compares what comes back.
--
CREATE SCHEMA streamscan_cursors;
SET search_path = streamscan_cursors, public;

-- plan(), scans(), rows_of(), same_rows(), compare(): see the file
\getenv abs_srcdir PG_ABS_SRCDIR
\set helpers :abs_srcdir '/sql/streamscan_helpers.psql'
\i :helpers

-- trace(q, script): open a SCROLL cursor for q (which returns a column i)
-- and run the comma-separated steps, one output line per step:
--   next N / prior N     FETCH NEXT / PRIOR, N times (the rows' i, "-" for none)
--   abs N / rel N        FETCH ABSOLUTE N / RELATIVE N
--   first / last         FETCH FIRST / LAST
--   fwd N / back N       MOVE FORWARD N / BACKWARD N (the rows moved over)
--   fwdall / backall     MOVE FORWARD ALL / BACKWARD ALL
--   update               UPDATE cur_t (every other row, all pages) while the
--                        cursor is open: new row versions the cursor must
--                        not see (compare_trace rolls it back)
CREATE FUNCTION trace(q text, script text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  c refcursor;
  step text;
  op text;
  n int;
  r record;
  got text;
  moved bigint;
BEGIN
  OPEN c SCROLL FOR EXECUTE q;
  FOREACH step IN ARRAY string_to_array(script, ',') LOOP
    step := btrim(step, E' \n');
    op := split_part(step, ' ', 1);
    n := coalesce(nullif(split_part(step, ' ', 2), '')::int, 1);
    got := '';
    IF op IN ('next', 'prior') THEN
      FOR k IN 1..n LOOP
        IF op = 'next' THEN
          FETCH NEXT FROM c INTO r;
        ELSE
          FETCH PRIOR FROM c INTO r;
        END IF;
        got := got || ' ' || CASE WHEN FOUND THEN r.i::text ELSE '-' END;
      END LOOP;
    ELSIF op IN ('abs', 'rel', 'first', 'last') THEN
      CASE op
        WHEN 'abs' THEN FETCH ABSOLUTE n FROM c INTO r;
        WHEN 'rel' THEN FETCH RELATIVE n FROM c INTO r;
        WHEN 'first' THEN FETCH FIRST FROM c INTO r;
        ELSE FETCH LAST FROM c INTO r;
      END CASE;
      got := ' ' || CASE WHEN FOUND THEN r.i::text ELSE '-' END;
    ELSIF op = 'update' THEN
      UPDATE cur_t SET pad = upper(pad) WHERE i % 2 = 1;
      GET DIAGNOSTICS moved = ROW_COUNT;
      got := ' ' || moved || ' rows';
    ELSE
      CASE op
        WHEN 'fwd' THEN MOVE FORWARD n FROM c;
        WHEN 'back' THEN MOVE BACKWARD n FROM c;
        WHEN 'fwdall' THEN MOVE FORWARD ALL FROM c;
        WHEN 'backall' THEN MOVE BACKWARD ALL FROM c;
      END CASE;
      GET DIAGNOSTICS moved = ROW_COUNT;
      got := ' moved ' || moved;
    END IF;
    RETURN NEXT step || ':' || got;
  END LOOP;
  CLOSE c;
END $$;

-- compare_trace(q, script): trace() with the node and with core's scan, each
-- in a subtransaction rolled back afterwards; the node's trace, then whether
-- it is core's
CREATE FUNCTION compare_trace(q text, script text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  saved text := current_setting('memprobe.enable_streamscan');
  lines_on text[];
  lines_off text[];
  plan_on text;
  plan_off text;
BEGIN
  PERFORM set_config('memprobe.enable_streamscan', 'on', false);
  plan_on := scans(q);
  BEGIN
    lines_on := array(SELECT trace(q, script));
    RAISE EXCEPTION 'roll back';
  EXCEPTION WHEN raise_exception THEN
  END;
  PERFORM set_config('memprobe.enable_streamscan', 'off', false);
  plan_off := scans(q);
  BEGIN
    lines_off := array(SELECT trace(q, script));
    RAISE EXCEPTION 'roll back';
  EXCEPTION WHEN raise_exception THEN
  END;
  PERFORM set_config('memprobe.enable_streamscan', saved, false);
  RETURN QUERY SELECT unnest(lines_on);
  RETURN NEXT format('on: %s | off: %s | %s', plan_on, plan_off,
                     CASE WHEN lines_on = lines_off THEN 'same as core' ELSE 'DIFFERENT FROM CORE' END);
END $$;

--
-- A table of 19 pages, 107 rows each but the last; rows deleted here and
-- there, all of page 2, and most of the first and last pages
--
CREATE TABLE cur_t (i int, pad text) WITH (autovacuum_enabled = off);
INSERT INTO cur_t SELECT g, repeat('p', 40) FROM generate_series(1, 2000) g;
DELETE FROM cur_t WHERE i % 10 = 0 OR i BETWEEN 215 AND 321 OR i IN (536, 642)
                     OR i < 100 AND i % 3 <> 0 OR i > 1935;
SELECT (ctid::text::point)[0] AS page, count(*) AS rows, min(i), max(i)
FROM cur_t GROUP BY 1 ORDER BY 1;
SELECT (SELECT count(*) FROM cur_t) AS rows, pg_relation_size('cur_t') / 8192 AS pages;

-- a SCROLL cursor over the node gets no Materialize (the node scans
-- backward itself)
EXPLAIN (COSTS OFF) DECLARE c SCROLL CURSOR FOR SELECT i FROM cur_t;
EXPLAIN (COSTS OFF) DECLARE c SCROLL CURSOR FOR SELECT i, length(pad) FROM cur_t WHERE i % 3 = 0;
SELECT plan('DECLARE c SCROLL CURSOR FOR SELECT i FROM cur_t WHERE i < 10 UNION ALL SELECT i FROM cur_t WHERE i > 1900');
SET memprobe.enable_streamscan = off;
EXPLAIN (COSTS OFF) DECLARE c SCROLL CURSOR FOR SELECT i FROM cur_t;
RESET memprobe.enable_streamscan;

--
-- SCROLL cursors, step by step
--
-- within the first page, then across the page boundary 0 | 1 and back
SELECT compare_trace('SELECT i FROM cur_t',
  'next 3, prior 1, next 2, prior 2, next 1, fwd 24, next 3, prior 4, next 6, prior 1, rel 1,
   next 5, next 1, prior 1, next 1, prior 2, next 2, prior 1, prior 1');
-- across the empty page 2 (pages 1 | 3) both ways, by single steps and jumps
SELECT compare_trace('SELECT i FROM cur_t',
  'abs 132, next 2, prior 2, next 3, prior 1, prior 1, next 1, next 1, prior 3,
   abs 120, next 4, prior 6, next 1, rel 3, rel -3, rel 2, prior 2, fwd 100, prior 1, back 200, next 1');
-- to the end and past it, then backward; to the start and past it, then forward
SELECT compare_trace('SELECT i FROM cur_t',
  'last, next 2, prior 3, next 1, next 1, prior 1, first, prior 2, next 2, prior 1, prior 1, next 1,
   fwdall, prior 2, backall, next 2, fwdall, fwdall, prior 1, backall, backall, next 1');
-- absolute positions: forward, backward (a rewind, i.e. a rescan), from the end
SELECT compare_trace('SELECT i FROM cur_t',
  'abs 500, abs 499, abs 501, abs 10, abs -1, abs -2, abs -1500, abs 1700, abs 0, next 1,
   abs 1591, abs 1592, next 1, abs -1, next 1, rel -1591, rel 0, abs 2, rel -1, rel -1, rel 1');
-- first, middle and last pages without a visible row; a table with no
-- visible row at all; an empty table
CREATE TABLE cur_e (i int, pad text) WITH (autovacuum_enabled = off);
INSERT INTO cur_e SELECT g, repeat('e', 40) FROM generate_series(1, 107 * 5) g;
DELETE FROM cur_e WHERE i <= 107 OR i BETWEEN 215 AND 321 OR i > 428 OR i % 7 <> 0;
SELECT (ctid::text::point)[0] AS page, count(*) AS rows, min(i), max(i)
FROM cur_e GROUP BY 1 ORDER BY 1;
SELECT pg_relation_size('cur_e') / 8192 AS pages;
SELECT compare_trace('SELECT i FROM cur_e',
  'next 1, prior 1, next 2, fwdall, prior 1, prior 14, prior 2, next 1, last, next 1, prior 1,
   first, rel 15, rel -15, abs -16, abs 16, abs 17, prior 1, backall, next 1');
CREATE TABLE cur_dead (i int) WITH (autovacuum_enabled = off);
INSERT INTO cur_dead SELECT generate_series(1, 1000);
DELETE FROM cur_dead;
SELECT compare_trace('SELECT i FROM cur_dead', 'next 1, prior 1, last, first, fwdall, backall, abs 3, abs -3, next 1');
CREATE TABLE cur_empty (i int);
SELECT compare_trace('SELECT i FROM cur_empty', 'next 1, prior 1, last, first, fwdall, backall, abs 3, abs -3, next 1');
-- a qual, so most rows are filtered out, pages with no qualifying row
SELECT compare_trace('SELECT i FROM cur_t WHERE i % 97 = 1 OR i BETWEEN 1500 AND 1503',
  'next 4, prior 2, fwdall, prior 7, next 3, first, last, prior 1, abs 5, rel -3, next 2');
-- the table updated while the cursor is open, in the middle of a page
-- (i is negated for a row whose update the cursor would wrongly see)
SELECT compare_trace('SELECT CASE WHEN pad = lower(pad) THEN i ELSE -i END AS i FROM cur_t',
  'fwd 50, next 2, update, next 2, prior 3, fwd 300, prior 2, update, next 2, last, prior 1, first, next 1');
-- a LIMIT / OFFSET above the node, and a subplan evaluated per row
SELECT compare_trace('SELECT i FROM cur_t OFFSET 30 LIMIT 20',
  'next 3, prior 2, fwdall, prior 3, next 5, first, prior 1, next 1');
SELECT compare_trace('SELECT i, (SELECT count(*) FROM cur_t s WHERE s.i < t.i AND s.i > t.i - 50) AS n
                      FROM cur_t t WHERE i % 211 = 0',
  'next 2, prior 1, last, prior 2, next 1');
-- a projection, and a whole-row value
SELECT compare_trace('SELECT i * 2 AS i, cur_t FROM cur_t WHERE i > 1800',
  'next 2, prior 1, last, prior 2, next 5');
-- UNION ALL of two scans of the table: Append scans them backward too
SELECT compare_trace('SELECT i FROM cur_t WHERE i < 110 UNION ALL SELECT i FROM cur_t WHERE i > 1900',
  'fwd 18, next 3, prior 3, next 2, last, prior 12, next 12, first, next 1');
-- no look-ahead, the shortest one, and the default
SET memprobe.streamscan_distance = 0;
SELECT compare_trace('SELECT i FROM cur_t',
  'fwd 95, next 3, prior 4, abs 500, prior 2, next 3, last, next 1, prior 2, first, prior 1, next 1');
SET memprobe.streamscan_distance = 1;
SELECT compare_trace('SELECT i FROM cur_t',
  'fwd 95, next 3, prior 4, abs 500, prior 2, next 3, last, next 1, prior 2, first, prior 1, next 1');
RESET memprobe.streamscan_distance;
SELECT compare_trace('SELECT i FROM cur_t',
  'fwd 95, next 3, prior 4, abs 500, prior 2, next 3, last, next 1, prior 2, first, prior 1, next 1');
-- all pages all-visible
VACUUM (FREEZE) cur_t;
SELECT compare_trace('SELECT i FROM cur_t',
  'next 2, prior 1, abs 97, next 2, prior 3, last, prior 2, next 3, first, prior 1, next 1');

--
-- SQL-level FETCH and MOVE, in a transaction, with the node and with core's
-- scan (the two halves print the same)
--
BEGIN;
SET LOCAL memprobe.enable_streamscan = on;
DECLARE c SCROLL CURSOR FOR SELECT i FROM cur_t WHERE i % 41 = 0;
FETCH FORWARD 3 FROM c;
FETCH BACKWARD 2 FROM c;
FETCH PRIOR FROM c;
FETCH PRIOR FROM c;
FETCH NEXT FROM c;
MOVE FORWARD 20 FROM c;
FETCH RELATIVE -3 FROM c;
FETCH ABSOLUTE 7 FROM c;
FETCH ABSOLUTE -2 FROM c;
FETCH ALL FROM c;
FETCH BACKWARD 3 FROM c;
MOVE BACKWARD ALL FROM c;
FETCH FORWARD 2 FROM c;
FETCH LAST FROM c;
FETCH FIRST FROM c;
MOVE ABSOLUTE 30 FROM c;
FETCH BACKWARD ALL FROM c;
FETCH FORWARD 1 FROM c;
MOVE LAST IN c;
FETCH RELATIVE 0 FROM c;
COMMIT;
BEGIN;
SET LOCAL memprobe.enable_streamscan = off;
DECLARE c SCROLL CURSOR FOR SELECT i FROM cur_t WHERE i % 41 = 0;
FETCH FORWARD 3 FROM c;
FETCH BACKWARD 2 FROM c;
FETCH PRIOR FROM c;
FETCH PRIOR FROM c;
FETCH NEXT FROM c;
MOVE FORWARD 20 FROM c;
FETCH RELATIVE -3 FROM c;
FETCH ABSOLUTE 7 FROM c;
FETCH ABSOLUTE -2 FROM c;
FETCH ALL FROM c;
FETCH BACKWARD 3 FROM c;
MOVE BACKWARD ALL FROM c;
FETCH FORWARD 2 FROM c;
FETCH LAST FROM c;
FETCH FIRST FROM c;
MOVE ABSOLUTE 30 FROM c;
FETCH BACKWARD ALL FROM c;
FETCH FORWARD 1 FROM c;
MOVE LAST IN c;
FETCH RELATIVE 0 FROM c;
COMMIT;

-- WITH HOLD: at commit the portal is rewound (a rescan) and run to the end
-- into a tuplestore; it then goes on from the same position
BEGIN;
SET LOCAL memprobe.enable_streamscan = on;
DECLARE h_on SCROLL CURSOR WITH HOLD FOR SELECT i FROM cur_t WHERE i % 53 = 0;
FETCH 3 FROM h_on;
FETCH BACKWARD 1 FROM h_on;
COMMIT;
BEGIN;
SET LOCAL memprobe.enable_streamscan = off;
DECLARE h_off SCROLL CURSOR WITH HOLD FOR SELECT i FROM cur_t WHERE i % 53 = 0;
FETCH 3 FROM h_off;
FETCH BACKWARD 1 FROM h_off;
COMMIT;
FETCH 2 FROM h_on;
FETCH 2 FROM h_off;
FETCH LAST FROM h_on;
FETCH LAST FROM h_off;
FETCH BACKWARD 2 FROM h_on;
FETCH BACKWARD 2 FROM h_off;
CLOSE h_on;
CLOSE h_off;

--
-- Cursors declared without SCROLL: a plan that can scan backward (the node
-- can) allows FETCH BACKWARD, as with core's scan; NO SCROLL refuses it
--
BEGIN;
SET LOCAL memprobe.enable_streamscan = on;
DECLARE c CURSOR FOR SELECT i FROM cur_t WHERE i % 101 = 0;
FETCH 4 FROM c;
FETCH BACKWARD 2 FROM c;
FETCH ABSOLUTE 1 FROM c;
FETCH LAST FROM c;
COMMIT;
BEGIN;
SET LOCAL memprobe.enable_streamscan = off;
DECLARE c CURSOR FOR SELECT i FROM cur_t WHERE i % 101 = 0;
FETCH 4 FROM c;
FETCH BACKWARD 2 FROM c;
FETCH ABSOLUTE 1 FROM c;
FETCH LAST FROM c;
COMMIT;
BEGIN;
SET LOCAL memprobe.enable_streamscan = on;
DECLARE c NO SCROLL CURSOR FOR SELECT i FROM cur_t WHERE i % 101 = 0;
FETCH 2 FROM c;
FETCH BACKWARD 1 FROM c;
ROLLBACK;
BEGIN;
SET LOCAL memprobe.enable_streamscan = off;
DECLARE c NO SCROLL CURSOR FOR SELECT i FROM cur_t WHERE i % 101 = 0;
FETCH 2 FROM c;
FETCH BACKWARD 1 FROM c;
ROLLBACK;
-- a plan that cannot scan backward (FOR UPDATE) makes a cursor NO SCROLL
BEGIN;
SET LOCAL memprobe.enable_streamscan = on;
DECLARE c CURSOR FOR SELECT i FROM cur_t WHERE i % 101 = 0 FOR UPDATE;
FETCH 2 FROM c;
FETCH BACKWARD 1 FROM c;
ROLLBACK;
BEGIN;
SET LOCAL memprobe.enable_streamscan = off;
DECLARE c CURSOR FOR SELECT i FROM cur_t WHERE i % 101 = 0 FOR UPDATE;
FETCH 2 FROM c;
FETCH BACKWARD 1 FROM c;
ROLLBACK;

--
-- Rescans
--
CREATE TABLE cur_outer (k int);
INSERT INTO cur_outer VALUES (5), (1), (99), (42), (7), (0), (64), (33);
ANALYZE cur_t, cur_outer;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SET memprobe.enable_material = off;
SET enable_memoize = off;
-- a nested loop's inner side, rescanned for each outer row
SELECT plan('SELECT o.k, t.i FROM cur_outer o JOIN cur_t t ON t.i % 100 = o.k');
SELECT compare('SELECT o.k, t.i FROM cur_outer o JOIN cur_t t ON t.i % 100 = o.k');
SELECT compare('SELECT o.k, count(t.i) FROM cur_outer o LEFT JOIN cur_t t ON t.i % 100 = o.k + 1000 GROUP BY o.k');
SELECT compare('SELECT o.k FROM cur_outer o WHERE EXISTS (SELECT 1 FROM cur_t t WHERE t.i = o.k * 37)');
SELECT compare('SELECT o.k FROM cur_outer o WHERE NOT EXISTS (SELECT 1 FROM cur_t t WHERE t.i = o.k * 37)');
-- one loop per outer row, every page read in each
SELECT (s->>'Actual Loops')::int AS loops,
       (s->>'Pages')::int = (s->>'Actual Loops')::int * (pg_relation_size('cur_t') / 8192) AS all_pages_each_loop
FROM scan_stats('SELECT o.k, t.i FROM cur_outer o JOIN cur_t t ON t.i % 100 = o.k', relname => 'cur_t') s;
-- the node is rescanned with a changed parameter: a correlated subplan
SELECT plan('SELECT o.k FROM cur_outer o WHERE o.k > (SELECT count(*) FROM cur_t t WHERE t.i % 100 = o.k)');
SELECT compare('SELECT o.k FROM cur_outer o WHERE o.k > (SELECT count(*) FROM cur_t t WHERE t.i % 100 = o.k)');
SELECT compare('SELECT o.k, (SELECT count(*) FROM cur_t t WHERE t.i % 100 = o.k) FROM cur_outer o');
SELECT compare('SELECT o.k, (SELECT array_agg(i) FROM cur_t t WHERE t.i BETWEEN o.k * 20 AND o.k * 20 + 10) FROM cur_outer o');
-- a LIMIT stops the scan mid-page; the next rescan starts over
SELECT compare('SELECT o.k, (SELECT max(i) FROM (SELECT i FROM cur_t t WHERE t.i > o.k * 19 LIMIT 5) s) FROM cur_outer o');
SELECT compare('SELECT o.k, s.i FROM cur_outer o, LATERAL (SELECT i FROM cur_t t WHERE t.i > o.k * 19 LIMIT 3) s');
SELECT compare('SELECT o.k, s.i FROM cur_outer o, LATERAL (SELECT i FROM cur_t t WHERE t.i % 100 = o.k LIMIT 2 OFFSET 1) s');
SELECT (s->>'Actual Loops')::int AS loops, (s->>'Pages')::int < (pg_relation_size('cur_t') / 8192) AS stopped_early
FROM scan_stats('SELECT o.k, s.i FROM cur_outer o, LATERAL (SELECT i FROM cur_t t LIMIT 3) s', relname => 'cur_t') s;
-- pgstat counts a scan per rescan, with the node as with core (inside one
-- function call nothing is flushed: the transaction's counts grow by what
-- the query counted)
CREATE FUNCTION stat_delta(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  s0 bigint := pg_stat_get_xact_numscans('cur_t'::regclass);
  t0 bigint := pg_stat_get_xact_tuples_returned('cur_t'::regclass);
BEGIN
  EXECUTE q;
  RETURN format('scans +%s, tuples +%s', pg_stat_get_xact_numscans('cur_t'::regclass) - s0,
                pg_stat_get_xact_tuples_returned('cur_t'::regclass) - t0);
END $$;
SET memprobe.enable_streamscan = on;
SELECT stat_delta('SELECT count(*) FROM cur_outer o JOIN cur_t t ON t.i % 100 = o.k') AS "on";
SELECT stat_delta('SELECT o.k, s.i FROM cur_outer o, LATERAL (SELECT i FROM cur_t t WHERE t.i > o.k * 19 LIMIT 3) s') AS "on";
SET memprobe.enable_streamscan = off;
SELECT stat_delta('SELECT count(*) FROM cur_outer o JOIN cur_t t ON t.i % 100 = o.k') AS "off";
SELECT stat_delta('SELECT o.k, s.i FROM cur_outer o, LATERAL (SELECT i FROM cur_t t WHERE t.i > o.k * 19 LIMIT 3) s') AS "off";
RESET memprobe.enable_streamscan;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;
RESET memprobe.enable_material;
RESET enable_memoize;

--
-- CTEs and UNION ALL
--
SELECT compare('WITH c AS MATERIALIZED (SELECT i FROM cur_t WHERE i % 7 = 0)
                SELECT count(*), sum(a.i), max(b.i) FROM c a JOIN c b ON a.i = b.i + 7');
SELECT compare('WITH c AS (SELECT i, pad FROM cur_t WHERE i > 1900) SELECT i, length(pad) FROM c WHERE i % 2 = 1');
SELECT compare('WITH c AS MATERIALIZED (SELECT i FROM cur_t) SELECT i FROM c LIMIT 5');
-- the recursive term (the only scan here) rescans the node on every iteration
SELECT scans('WITH RECURSIVE r(n, depth) AS (SELECT 1001, 0 UNION ALL
               SELECT t.i, r.depth + 1 FROM r JOIN cur_t t ON t.i = r.n + 11 WHERE r.depth < 8)
             SELECT * FROM r');
SELECT compare('WITH RECURSIVE r(n, depth) AS (SELECT 1001, 0 UNION ALL
                  SELECT t.i, r.depth + 1 FROM r JOIN cur_t t ON t.i = r.n + 11 WHERE r.depth < 8)
                SELECT * FROM r');
SELECT compare('SELECT i FROM cur_t WHERE i < 120 UNION ALL SELECT i FROM cur_t WHERE i > 1900');
SELECT compare('SELECT i FROM cur_t WHERE i < 120 UNION SELECT i + 1 FROM cur_t WHERE i < 130 ORDER BY 1');
SELECT compare('(SELECT i FROM cur_t LIMIT 3) UNION ALL (SELECT i FROM cur_t OFFSET 1490)');

RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA streamscan_cursors CASCADE;
