--
-- StreamScan on a table larger than shared_buffers (16MB, test-servers/preload-small-buffers.conf):
-- read through a BAS_BULKREAD ring, with synchronized scans.  memprobe's scan
-- must return what core's Seq Scan returns, read every block once, report
-- its position to the synchronized-scan hints and start from theirs exactly
-- as core does (the two share them), look ahead any distance with the same
-- results, and leave nothing behind when a query fails or is cancelled
-- mid-scan.  Block numbers depend on look-ahead and the server version, so
-- only facts about them are printed.
--
CREATE SCHEMA streamscan_large;
SET search_path = streamscan_large, public;
-- scan_stats() and the others: see the file
\getenv abs_srcdir PG_ABS_SRCDIR
\set helpers :abs_srcdir '/sql/streamscan_helpers.psql'
\i :helpers

SET max_parallel_workers_per_gather = 0;
SET jit = off;
SET synchronize_seqscans = on;

-- one ~930-byte row per page: 3000 pages, about 23MB
CREATE TABLE big (id int, pad text) WITH (fillfactor = 10);
INSERT INTO big SELECT g, repeat(chr(97 + g % 26), 900) FROM generate_series(1, 3000) g;
ANALYZE big;

SELECT pg_relation_size('big') / current_setting('block_size')::int AS nblocks \gset
SELECT :nblocks = 3000 AS one_row_per_page,
       :nblocks > pg_size_bytes(current_setting('shared_buffers')) / current_setting('block_size')::int
         AS larger_than_shared_buffers;

-- distance between two blocks of the table, going round either way
CREATE FUNCTION blocks_apart(a int, b int) RETURNS int LANGUAGE sql AS $$
  SELECT least((a - b + n) % n, (b - a + n) % n)
  FROM (SELECT (pg_relation_size('big') / current_setting('block_size')::int)::int AS n) s
$$;

EXPLAIN (COSTS OFF) SELECT count(*) FROM big;

-- the same rows with the node and without: the first scan of the new rows
-- (hint bits unset, pages not all-visible), then after VACUUM
SET memprobe.enable_streamscan = on;
SELECT count(*), sum(id), count(DISTINCT pad) FROM big;
SELECT count(*), sum(id) FROM big WHERE id % 7 = 3;
SELECT count(*), sum(id) FROM big WHERE id < 1000;
SET memprobe.enable_streamscan = off;
SELECT count(*), sum(id), count(DISTINCT pad) FROM big;
SELECT count(*), sum(id) FROM big WHERE id % 7 = 3;
SELECT count(*), sum(id) FROM big WHERE id < 1000;
VACUUM big;
SET memprobe.enable_streamscan = on;
SELECT count(*), sum(id), count(DISTINCT pad) FROM big;
SET memprobe.enable_streamscan = off;
SELECT count(*), sum(id), count(DISTINCT pad) FROM big;

-- EXPLAIN ANALYZE: every block is read once, whatever the look-ahead
SET memprobe.enable_streamscan = on;
SET synchronize_seqscans = off;
SET memprobe.streamscan_distance = 0;
SELECT s->>'Look-ahead' AS look_ahead, (s->>'Pages')::int = :nblocks AS all_pages
FROM scan_stats('SELECT count(*) FROM big') s;
SET memprobe.streamscan_distance = 1;
SELECT s->>'Look-ahead' <> 'off' AS looks_ahead, (s->>'Pages')::int = :nblocks AS all_pages
FROM scan_stats('SELECT count(*) FROM big') s;
SET memprobe.streamscan_distance = 64;
SELECT s->>'Look-ahead' <> 'off' AS looks_ahead, (s->>'Pages')::int = :nblocks AS all_pages
FROM scan_stats('SELECT count(*) FROM big WHERE id % 2 = 0') s;
-- a forward scan reading from the kernel gets no read-ahead advice from
-- memprobe (15): the kernel reads ahead of it by itself, as core's
-- read_stream (17+) assumes when it advises only non-sequential blocks
RESET memprobe.streamscan_distance;
SELECT (s->>'Pages Read')::int > 0 AS read_from_kernel,
       coalesce((s->>'Look-ahead Peak')::int, 0) = 0 AS looked_no_further,
       coalesce((s->>'Prefetches Issued')::int, 0) = 0 AS no_advice
FROM scan_stats('SELECT count(*) FROM big') s;

-- the rows in scan order (synchronized scans off: from block 0), at each
-- look-ahead distance and in core's scan
SET memprobe.streamscan_distance = 0;
SELECT md5(string_agg(id::text, ',')) AS d0 FROM big \gset
SET memprobe.streamscan_distance = 1;
SELECT md5(string_agg(id::text, ',')) AS d1 FROM big \gset
SET memprobe.streamscan_distance = 64;
SELECT md5(string_agg(id::text, ',')) AS d64 FROM big \gset
SET memprobe.enable_streamscan = off;
SELECT md5(string_agg(id::text, ',')) AS core FROM big \gset
SELECT :'d0' = :'core' AS distance_0, :'d1' = :'core' AS distance_1, :'d64' = :'core' AS distance_64;
SET memprobe.streamscan_distance = 1;
SET memprobe.enable_streamscan = on;
SELECT count(*), sum(id), count(DISTINCT pad) FROM big;
SET memprobe.streamscan_distance = 0;
SELECT count(*), sum(id), count(DISTINCT pad) FROM big;
RESET memprobe.streamscan_distance;

-- rescans (a subplan run per outer row, by the node): each one reads the
-- whole table
SET synchronize_seqscans = on;
SET memprobe.enable_streamscan = on;
SELECT x, (SELECT count(*) FROM big WHERE id % 1000 = x) FROM generate_series(0, 2) x;
SELECT (s->>'Pages')::int = 3 * :nblocks AS all_pages_each_time
FROM scan_stats('SELECT x, (SELECT count(*) FROM big WHERE id % 1000 = x) FROM generate_series(0, 2) x') s;

--
-- Synchronized scans.  Cursor c1 reads 300 rows (300 blocks), reporting its
-- position; a scan started then (cursor c2) starts near c1, not at c1's
-- start, and still returns every row, wrapping round.  c1 finishes last,
-- so the next test starts where this one did.
--
SET synchronize_seqscans = on;
\set blk '(ctid::text::point)[0]::int'

-- node, then node
SET memprobe.enable_streamscan = on;
EXPLAIN (COSTS OFF) SELECT :blk AS blk, id FROM big;
BEGIN;
DECLARE c1 CURSOR FOR SELECT :blk AS blk, id FROM big;
FETCH 1 FROM c1 \gset c1s_
MOVE 299 IN c1;
FETCH 1 FROM c1 \gset c1n_
DECLARE c2 CURSOR FOR SELECT :blk AS blk, id FROM big;
FETCH 1 FROM c2 \gset c2s_
MOVE ALL IN c2;
\set c2_rest :ROW_COUNT
MOVE ALL IN c1;
\set c1_rest :ROW_COUNT
COMMIT;
SELECT :c2s_blk > 0 AS c2_mid_table,
       blocks_apart(:c2s_blk, :c1s_blk) >= 200 AS c2_not_at_c1_start,
       blocks_apart(:c2s_blk, :c1n_blk) <= 64 AS c2_near_c1,
       1 + :c2_rest AS c2_rows, 301 + :c1_rest AS c1_rows;

-- node, then core
BEGIN;
SET LOCAL memprobe.enable_streamscan = on;
DECLARE c1 CURSOR FOR SELECT :blk AS blk, id FROM big;
FETCH 1 FROM c1 \gset c1s_
MOVE 299 IN c1;
FETCH 1 FROM c1 \gset c1n_
SET LOCAL memprobe.enable_streamscan = off;
EXPLAIN (COSTS OFF) SELECT :blk AS blk, id FROM big;
DECLARE c2 CURSOR FOR SELECT :blk AS blk, id FROM big;
FETCH 1 FROM c2 \gset c2s_
MOVE ALL IN c2;
\set c2_rest :ROW_COUNT
MOVE ALL IN c1;
\set c1_rest :ROW_COUNT
COMMIT;
SELECT :c2s_blk > 0 AS c2_mid_table,
       blocks_apart(:c2s_blk, :c1s_blk) >= 200 AS c2_not_at_c1_start,
       blocks_apart(:c2s_blk, :c1n_blk) <= 64 AS c2_near_c1,
       1 + :c2_rest AS c2_rows, 301 + :c1_rest AS c1_rows;

-- core, then node
BEGIN;
SET LOCAL memprobe.enable_streamscan = off;
DECLARE c1 CURSOR FOR SELECT :blk AS blk, id FROM big;
FETCH 1 FROM c1 \gset c1s_
MOVE 299 IN c1;
FETCH 1 FROM c1 \gset c1n_
SET LOCAL memprobe.enable_streamscan = on;
DECLARE c2 CURSOR FOR SELECT :blk AS blk, id FROM big;
FETCH 1 FROM c2 \gset c2s_
MOVE ALL IN c2;
\set c2_rest :ROW_COUNT
MOVE ALL IN c1;
\set c1_rest :ROW_COUNT
COMMIT;
SELECT :c2s_blk > 0 AS c2_mid_table,
       blocks_apart(:c2s_blk, :c1s_blk) >= 200 AS c2_not_at_c1_start,
       blocks_apart(:c2s_blk, :c1n_blk) <= 64 AS c2_near_c1,
       1 + :c2_rest AS c2_rows, 301 + :c1_rest AS c1_rows;

-- a plain query started while c1 is part-way: its first block, then all rows
SET memprobe.enable_streamscan = on;
BEGIN;
DECLARE c1 CURSOR FOR SELECT :blk AS blk, id FROM big;
FETCH 1 FROM c1 \gset c1s_
MOVE 299 IN c1;
FETCH 1 FROM c1 \gset c1n_
-- (no DISTINCT aggregate here: from 16 the planner may sort its input for it)
SELECT (array_agg(:blk))[1] AS q_first, count(*) AS q_rows, sum(id) AS q_ids FROM big \gset
MOVE ALL IN c1;
\set c1_rest :ROW_COUNT
COMMIT;
SELECT :q_first > 0 AS query_mid_table,
       blocks_apart(:q_first, :c1n_blk) <= 64 AS query_near_c1,
       :q_rows AS query_rows, :q_ids AS query_ids, 301 + :c1_rest AS c1_rows;

-- synchronize_seqscans off: c2 starts at block 0 (so does c1)
SET synchronize_seqscans = off;
BEGIN;
DECLARE c1 CURSOR FOR SELECT :blk AS blk, id FROM big;
FETCH 1 FROM c1 \gset c1s_
MOVE 299 IN c1;
DECLARE c2 CURSOR FOR SELECT :blk AS blk, id FROM big;
FETCH 1 FROM c2 \gset c2s_
MOVE ALL IN c2;
\set c2_rest :ROW_COUNT
MOVE ALL IN c1;
\set c1_rest :ROW_COUNT
COMMIT;
SELECT :c1s_blk AS c1_start, :c2s_blk AS c2_start, 1 + :c2_rest AS c2_rows, 300 + :c1_rest AS c1_rows;
SET synchronize_seqscans = on;

-- A scan that has started a backward pass afresh (here: after its forward
-- pass ended) no longer reports its position, in that pass or any later
-- one, rescans (MOVE BACKWARD ALL rewinds) included: c2 starts where c1 did,
-- not where c1 is.
BEGIN;
DECLARE c1 SCROLL CURSOR FOR SELECT :blk AS blk, id FROM big;
FETCH 1 FROM c1 \gset c1s_
MOVE ALL IN c1;
MOVE BACKWARD 100 IN c1;
MOVE BACKWARD ALL IN c1;
MOVE 1000 IN c1;
FETCH 1 FROM c1 \gset c1n_
DECLARE c2 CURSOR FOR SELECT :blk AS blk, id FROM big;
FETCH 1 FROM c2 \gset c2s_
MOVE ALL IN c2;
\set c2_rest :ROW_COUNT
COMMIT;
SELECT blocks_apart(:c2s_blk, :c1s_blk) <= 64 AS c2_near_c1_start,
       blocks_apart(:c2s_blk, :c1n_blk) <= 64 AS c2_near_c1,
       1 + :c2_rest AS c2_rows;

-- Nor does a scan that started with synchronize_seqscans off (at block 0),
-- even after a rescan with it on: c2 starts where the position was before
-- (c0 reads it), not where c1 is.
BEGIN;
DECLARE c0 CURSOR FOR SELECT :blk AS blk FROM big;
FETCH 1 FROM c0 \gset c0s_
CLOSE c0;
SET LOCAL synchronize_seqscans = off;
DECLARE c1 SCROLL CURSOR FOR SELECT :blk AS blk, id FROM big;
FETCH 1 FROM c1 \gset c1s_
SET LOCAL synchronize_seqscans = on;
MOVE BACKWARD ALL IN c1;
MOVE 2000 IN c1;
FETCH 1 FROM c1 \gset c1n_
DECLARE c2 CURSOR FOR SELECT :blk AS blk, id FROM big;
FETCH 1 FROM c2 \gset c2s_
COMMIT;
SELECT :c1s_blk AS c1_start,
       blocks_apart(:c2s_blk, :c0s_blk) <= 64 AS c2_near_earlier_position,
       blocks_apart(:c2s_blk, :c1n_blk) <= 64 AS c2_near_c1;

--
-- A query that fails or is cancelled mid-scan leaves no pinned buffer, no
-- open stream and no broken state (an assert-enabled server would warn of
-- leaked buffers or resources): the next scans work and are right.
--
CREATE FUNCTION big_fail(i int) RETURNS bool LANGUAGE plpgsql AS $$
BEGIN
  IF i = 1500 THEN
    RAISE EXCEPTION 'failing at row %', i;
  END IF;
  RETURN true;
END $$;
CREATE FUNCTION big_slow(i int) RETURNS bool LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_sleep(0.001);
  RETURN true;
END $$;

SET memprobe.enable_streamscan = on;
EXPLAIN (COSTS OFF) SELECT count(*) FROM big WHERE big_fail(id);
SELECT count(*) FROM big WHERE big_fail(id);
SELECT count(*), sum(id) FROM big;
-- (where the cancel is noticed, and so the error's context, may vary)
\set VERBOSITY terse
SET statement_timeout = '200ms';
SELECT count(*) FROM big WHERE big_slow(id);
RESET statement_timeout;
\set VERBOSITY default
SELECT count(*), sum(id) FROM big;
SET memprobe.streamscan_distance = 0;
SELECT count(*) FROM big WHERE big_fail(id);
RESET memprobe.streamscan_distance;
SELECT count(*), sum(id) FROM big;

-- cursors (synchronized scans off, so that the rows they reach are known):
-- a cursor that fails in a subtransaction cannot be run again, a cursor
-- opened before it goes on, as do later scans
SET synchronize_seqscans = off;
BEGIN;
DECLARE c1 CURSOR FOR SELECT id FROM big;
DECLARE c2 CURSOR FOR SELECT id FROM big WHERE big_fail(id);
MOVE 500 IN c1;
MOVE 1000 IN c2;
SAVEPOINT a;
MOVE ALL IN c2;
ROLLBACK TO a;
FETCH 1 FROM c2;
ROLLBACK TO a;
SELECT count(*) FROM big WHERE big_fail(id);
ROLLBACK TO a;
SELECT count(*), sum(id) FROM big;
FETCH 1 FROM c1;
MOVE ALL IN c1;
SELECT :ROW_COUNT AS c1_rest;
COMMIT;
-- the failure ends the transaction with the cursors' scans open
BEGIN;
DECLARE c1 CURSOR FOR SELECT id FROM big;
DECLARE c2 CURSOR FOR SELECT id FROM big WHERE big_fail(id);
MOVE 500 IN c1;
MOVE 1000 IN c2;
MOVE ALL IN c2;
COMMIT;
SELECT count(*), sum(id) FROM big;

RESET memprobe.enable_streamscan;
RESET synchronize_seqscans;
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA streamscan_large CASCADE;
RESET client_min_messages;
