--
-- StreamScan cursors that turn around: after a change of direction the
-- block stream restarts from the current block only when the next page is
-- needed, as heapam's (heap_fetch_next_buffer, 17+), not as soon as the
-- cursor turns.  On 17 and later the stream has reads in flight ahead of the
-- cursor (on 18 with asynchronous I/O, really in flight); restarting it at
-- once waits for them.  Two effects are checked:
-- a damaged block the cursor never reaches raises no error when the cursor
-- turns around within a page, and a cursor that keeps turning around keeps
-- its look-ahead (its reads stay as large as core's).  Each runs with
-- memprobe's node and with core's Seq Scan.
--
CREATE SCHEMA streamscan_turnaround;
SET search_path = streamscan_turnaround, public;
-- every scan starts at block 0 (a scan that failed at the damaged block
-- would otherwise leave the synchronized-scan position there)
SET synchronize_seqscans = off;

-- 3000 pages of four rows each, written through CREATE TABLE AS's ring, so
-- that all but its last pages have left shared buffers (16MB here); no
-- autovacuum, which could read the page damaged below into shared buffers.
CREATE TABLE turn WITH (autovacuum_enabled = off) AS
  SELECT g AS id, repeat('x', 1900) AS pad FROM generate_series(1, 12000) g;
SELECT pg_relation_size('turn') / 8192 >= 3000 AS pages_3000,
       (SELECT count(*) FROM turn WHERE ctid >= '(1990,0)' AND ctid < '(1991,0)') AS rows_on_1990;
CHECKPOINT;

-- Overwrite block 2000 on disk with bytes that are no valid page.  It is not
-- in shared buffers: reading it raises "invalid page in block 2000".
DO $$
BEGIN
  EXECUTE format('COPY (SELECT 1) TO PROGRAM %L',
    format('yes | head -c 8192 | dd of=%s bs=8192 seek=2000 conv=notrunc status=none',
           pg_relation_filepath('turn')));
END $$;

-- fetch_prior_at(streamscan): open a SCROLL cursor on turn, move it to the
-- second row of block 1990 (ten pages before the damaged one, which the
-- stream may be reading ahead by then), and fetch the row before it, on the
-- same page.  The cursor is then rolled back with a subtransaction rather
-- than closed: closing it ends the scan, and ending a read stream waits for
-- its reads in flight, the damaged block's among them, with core's scan too.
-- Whether the damaged block's read has started by then depends on timing
-- and on how far the stream looks ahead: memprobe 0.1 failed here only now
-- and then (on 18, with the cursor on the block before the damaged one);
-- the turnaround check below is the deterministic one.
CREATE FUNCTION fetch_prior_at(streamscan bool) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  c refcursor;
  target int;
  r record;
  plan text;
  result text;
BEGIN
  PERFORM set_config('memprobe.enable_streamscan', streamscan::text, true);
  EXECUTE 'EXPLAIN (COSTS OFF) SELECT id, ctid FROM turn' INTO plan;
  SELECT id INTO target FROM turn WHERE ctid = '(1990,2)';
  BEGIN
    OPEN c SCROLL FOR SELECT id, ctid FROM turn;
    MOVE ABSOLUTE target FROM c;
    FETCH PRIOR FROM c INTO r;
    result := format('%s: row %s at %s', plan, r.id, r.ctid);
    RAISE EXCEPTION 'roll the cursor back';
  EXCEPTION WHEN OTHERS THEN
    result := coalesce(result, format('%s: %s', plan, regexp_replace(SQLERRM, 'relation .*', 'relation ...')));
  END;
  RETURN result;
END $$;
-- the damage is real: a scan that reaches the block fails, with either node
CREATE FUNCTION count_turn(streamscan bool) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  n bigint;
BEGIN
  PERFORM set_config('memprobe.enable_streamscan', streamscan::text, true);
  SELECT count(*) INTO n FROM turn;
  RETURN n::text;
EXCEPTION WHEN OTHERS THEN
  RETURN regexp_replace(SQLERRM, 'relation .*', 'relation ...');
END $$;
SELECT count_turn(true), count_turn(false);
SELECT fetch_prior_at(true);
SELECT fetch_prior_at(false);
DROP TABLE turn;

-- A cursor that moves forward and turns around, again and again, over a
-- table whose pages are not in shared buffers: (MOVE 100, FETCH PRIOR,
-- FETCH NEXT) x 500, 50000 of its 60000 rows (about 1160 of its 1400
-- pages).  On 18, pg_stat_io counts read operations and their bytes, so the
-- number of reads and their mean size show whether the look-ahead kept
-- growing as core's does; restarting the stream at every turn keeps it
-- short (measured with memprobe 0.1: 749 reads of 1.56 blocks against
-- core's 412 of 2.84).  17 counts blocks, not operations, and 15 has no read
-- stream: there the check is skipped.  Each run reads a table of its own,
-- just written (a cursor that turns around leaves many of its pages in
-- shared buffers).
CREATE FUNCTION make_turn_table(name text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('CREATE TABLE %I WITH (autovacuum_enabled = off) AS
                  SELECT g AS id, repeat(''y'', 150) AS pad FROM generate_series(1, 60000) g', name);
END $$;
SELECT make_turn_table('turn_on'), make_turn_table('turn_off');
SELECT pg_relation_size('turn_on') / 8192 BETWEEN 1390 AND 1410 AS about_1400_pages;
CHECKPOINT;
CREATE FUNCTION turnarounds(streamscan bool) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  c refcursor;
  r record;
BEGIN
  PERFORM set_config('memprobe.enable_streamscan', streamscan::text, true);
  OPEN c SCROLL FOR EXECUTE format('SELECT id FROM %I',
                                   CASE WHEN streamscan THEN 'turn_on' ELSE 'turn_off' END);
  FOR i IN 1 .. 500 LOOP
    MOVE FORWARD 100 FROM c;
    FETCH PRIOR FROM c INTO r;
    FETCH NEXT FROM c INTO r;
  END LOOP;
  CLOSE c;
  PERFORM pg_stat_force_next_flush();
END $$;
-- bulk reads (through a scan's ring) since the last reset: operations, and
-- blocks per operation
CREATE FUNCTION bulk_reads() RETURNS TABLE (ops bigint, blocks_per_op numeric) LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('server_version_num')::int < 180000 THEN
    RETURN;
  END IF;
  RETURN QUERY EXECUTE $q$
    SELECT sum(reads)::bigint, round(sum(read_bytes) / 8192.0 / nullif(sum(reads), 0), 1)
    FROM pg_stat_io
    WHERE object = 'relation' AND context = 'bulkread' $q$;
END $$;
-- reset_io(): pg_stat_io's counters back to zero (16+; 15 has no pg_stat_io).
-- A backend sends its counters at most once a second unless told to: the
-- statement before each reset makes it send what earlier ones counted.
CREATE FUNCTION reset_io() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('server_version_num')::int >= 160000 THEN
    PERFORM pg_stat_reset_shared('io');
  END IF;
END $$;
SET stats_fetch_consistency = none;
SELECT pg_stat_force_next_flush();
SELECT reset_io();
SELECT turnarounds(true);
CREATE TEMP TABLE io_on AS SELECT * FROM bulk_reads();
SELECT pg_stat_force_next_flush();
SELECT reset_io();
SELECT turnarounds(false);
CREATE TEMP TABLE io_off AS SELECT * FROM bulk_reads();
-- the same number of reads and the same mean read size as core's, within a
-- quarter
SELECT CASE WHEN current_setting('server_version_num')::int < 180000 THEN 'skipped before 18'
            WHEN io_off.ops > 0 AND io_on.ops <= io_off.ops * 1.25 AND
                 io_on.blocks_per_op >= io_off.blocks_per_op * 0.8
              THEN 'as core''s'
            ELSE format('memprobe: %s reads of %s blocks, core: %s of %s',
                        io_on.ops, io_on.blocks_per_op, io_off.ops, io_off.blocks_per_op) END AS reads
FROM (SELECT 1) one LEFT JOIN io_on ON true LEFT JOIN io_off ON true;

DROP SCHEMA streamscan_turnaround CASCADE;
