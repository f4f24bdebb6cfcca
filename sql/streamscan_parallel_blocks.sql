--
-- Test builds only: a parallel StreamScan's participants read every block of
-- the table exactly once per scan.  In test builds every block read is marked
-- in a bitmap in the scan's shared memory, and EXPLAIN ANALYZE's "Pages Read
-- Twice" counts the blocks some participant had read already in that scan.
--
CREATE SCHEMA streamscan_parallel_blocks;
SET search_path = streamscan_parallel_blocks, public;

\getenv abs_srcdir PG_ABS_SRCDIR
\set helpers :abs_srcdir '/sql/streamscan_helpers.psql'
\i :helpers

-- blocks(q): how q's parallel StreamScan read the table: every page once
-- (times 'scans') and none twice; with who => true, whether the leader and
-- the workers read any (only where that is certain: how many pages each
-- process gets otherwise depends on how soon the workers start)
CREATE FUNCTION blocks(q text, rel regclass, scans int DEFAULT 1, who bool DEFAULT false)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  s jsonb := scan_stats(q);
  relpages bigint := pg_relation_size(rel) / 8192;
BEGIN
  RETURN format('every page %s: %s | read twice: %s',
                CASE scans WHEN 1 THEN 'once' ELSE scans || ' times' END,
                (s->>'Pages')::bigint = scans * relpages, s->>'Pages Read Twice')
    || CASE WHEN who THEN
         format(' | by the leader: %s | by workers: %s',
                CASE WHEN (s->>'Pages By Leader')::bigint > 0 THEN 'some' ELSE 'none' END,
                CASE WHEN (s->>'Pages By Workers')::bigint > 0 THEN 'some' ELSE 'none' END)
       ELSE '' END;
END $$;

SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;

-- larger than a quarter of shared_buffers (16MB here): read through a
-- BAS_BULKREAD ring, a synchronized scan
CREATE TABLE pb (a int, t text);
INSERT INTO pb SELECT g, repeat('x', 60) FROM generate_series(1, 60000) g;
VACUUM ANALYZE pb;
SELECT pg_relation_size('pb') > pg_size_bytes(current_setting('shared_buffers')) / 4 AS bulk_read;
-- and a small one
CREATE TABLE pb_small AS SELECT g AS a, 'x' AS t FROM generate_series(1, 5000) g;
ANALYZE pb_small;

-- a qual that costs some CPU per row, so that the workers start before the
-- leader is done and the processes share the pages out in practice
\set q 'SELECT count(*) FROM pb WHERE md5(t || a) = ''-'''
SELECT blocks(:'q', 'pb');
SELECT blocks('SELECT count(*) FROM pb_small WHERE md5(t || a) = ''-''', 'pb_small');
-- the workers alone read every page
SET parallel_leader_participation = off;
SELECT blocks(:'q', 'pb', who => true);
RESET parallel_leader_participation;
-- one worker, and none: the leader reads what is left, or all
SET max_parallel_workers = 1;
SELECT blocks(:'q', 'pb');
SET max_parallel_workers = 0;
SELECT blocks(:'q', 'pb', who => true);
RESET max_parallel_workers;
-- rescans: every page once in each of the three
SET enable_material = off;
SELECT blocks('SELECT * FROM (SELECT count(a) FROM pb WHERE md5(t || a) = ''-'') s RIGHT JOIN (VALUES (1), (2), (3)) v(x) ON true',
              'pb', 3);
RESET enable_material;
-- a synchronized scan that starts in the middle of the table, where a serial
-- scan of it stands, and wraps around
BEGIN;
SET LOCAL max_parallel_workers_per_gather = 0;
DECLARE c CURSOR FOR SELECT a FROM pb;
MOVE 30000 IN c;
SET LOCAL max_parallel_workers_per_gather = 2;
SELECT blocks(:'q', 'pb');
COMMIT;

DROP SCHEMA streamscan_parallel_blocks CASCADE;
