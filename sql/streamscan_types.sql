--
-- StreamScan and the tuples it returns: memprobe's scan stores them in its
-- own slot type and deforms them with its own code (tuple_deform.c).  Each
-- check runs a query with the node (memprobe.enable_streamscan = on) and
-- with core's Seq Scan (off), checks that the plans use the node, resp.
-- core's scan, and compares the rows, in order.
--
-- Column types and NULLs, TOAST, dropped and added columns, system columns,
-- HOT chains and dead tuples, all-visible pages, UPDATE / DELETE / MERGE
-- whose target the node scans, row locks, WHERE CURRENT OF.
--
CREATE SCHEMA streamscan_types;
SET search_path = streamscan_types, public;

-- plan(), scans(), rows_of(), same_rows(), compare(): see the file
\getenv abs_srcdir PG_ABS_SRCDIR
\set helpers :abs_srcdir '/sql/streamscan_helpers.psql'
\i :helpers

--
-- Many column types, NULLs in varied positions: some rows all NULL, some
-- without any, short (1-byte header) and long varlenas before fixed-width
-- columns of every alignment
--
CREATE TYPE ty_pair AS (x int, y text);
CREATE TABLE ty (
  id int, i2 int2, tx text, i8 int8, bo bool, f4 float4, vc varchar(300), f8 float8,
  num numeric, ch char(5), i4 int4, by bytea, d date, ts timestamp, tstz timestamptz,
  iv interval, u uuid, js json, jb jsonb, ia int[], ta text[], co ty_pair,
  ine inet, pt point, nm name, c1 "char", i2b int2);
INSERT INTO ty
SELECT g,
  CASE WHEN n[1] THEN NULL ELSE (g % 300 - 150)::int2 END,
  CASE WHEN n[2] THEN NULL ELSE repeat(chr(97 + g % 26), g % 200) END,
  CASE WHEN n[3] THEN NULL ELSE g::int8 * 1000000007 END,
  CASE WHEN n[4] THEN NULL ELSE g % 3 = 0 END,
  CASE WHEN n[5] THEN NULL ELSE g / 7.0 END,
  CASE WHEN n[6] THEN NULL ELSE repeat('v', g % 250) END,
  CASE WHEN n[7] THEN NULL ELSE g * 1.5e10 END,
  CASE WHEN n[8] THEN NULL ELSE round((g * 12345.6789)::numeric / 7, g % 20) END,
  CASE WHEN n[9] THEN NULL ELSE chr(65 + g % 26) END,
  CASE WHEN n[10] THEN NULL ELSE -g END,
  CASE WHEN n[11] THEN NULL ELSE decode(repeat(lpad(to_hex(g % 256), 2, '0'), g % 150), 'hex') END,
  CASE WHEN n[12] THEN NULL ELSE date '2000-01-01' + g END,
  CASE WHEN n[13] THEN NULL ELSE timestamp '2020-02-29 12:34:56.789' + g * interval '1 hour 1 second' END,
  CASE WHEN n[14] THEN NULL ELSE timestamptz '2021-06-30 23:59:59+02' - g * interval '13 minutes' END,
  CASE WHEN n[15] THEN NULL ELSE make_interval(0, g % 13, 0, g % 31, g % 24, 0, g / 10.0) END,
  CASE WHEN n[16] THEN NULL ELSE md5(g::text)::uuid END,
  CASE WHEN n[17] THEN NULL ELSE json_build_object('g', g, 'sq', g * g, 's', repeat('j', g % 40)) END,
  CASE WHEN n[18] THEN NULL ELSE jsonb_build_object('g', g, 'arr', jsonb_build_array(g, g::text, g % 2 = 0)) END,
  CASE WHEN n[19] THEN NULL ELSE ARRAY[g, NULL, -g] END,
  CASE WHEN n[20] THEN NULL ELSE ARRAY['a' || g, repeat('t', g % 140)] END,
  CASE WHEN n[21] THEN NULL ELSE ROW(g, 'pair ' || g)::ty_pair END,
  CASE WHEN n[22] THEN NULL ELSE ('10.' || g % 256 || '.0.' || g % 100 || '/' || (8 + g % 25))::inet END,
  CASE WHEN n[23] THEN NULL ELSE point(g, -g / 3.0) END,
  CASE WHEN n[24] THEN NULL ELSE ('name_' || g)::name END,
  CASE WHEN n[25] THEN NULL ELSE chr(48 + g % 10)::"char" END,
  CASE WHEN n[26] THEN NULL ELSE (g % 1000)::int2 END
FROM generate_series(1, 1200) g,
  LATERAL (SELECT array_agg(CASE
             WHEN g % 10 = 0 THEN true                 -- all NULL
             WHEN g % 10 = 1 THEN false                -- no NULL
             ELSE (g * 7 + k * 13) % (g % 10 + 1) = 0 -- some NULL
           END ORDER BY k) AS n
           FROM generate_series(1, 26) k) nulls;
ANALYZE ty;
SELECT count(*) AS rows,
  count(*) FILTER (WHERE num_nulls(i2, tx, i8, bo, f4, vc, f8, num, ch, i4, by, d, ts, tstz, iv, u,
                                   js, jb, ia, ta, co, ine, pt, nm, c1, i2b) = 26) AS all_null,
  count(*) FILTER (WHERE num_nulls(i2, tx, i8, bo, f4, vc, f8, num, ch, i4, by, d, ts, tstz, iv, u,
                                   js, jb, ia, ta, co, ine, pt, nm, c1, i2b) = 0) AS no_null
FROM ty;
SELECT plan('SELECT * FROM ty');
SELECT compare('SELECT * FROM ty');
SELECT compare('SELECT ty FROM ty');
-- each column alone (deforming up to it), and the last one
SELECT compare('SELECT id, i8, f8, num, ts, tstz FROM ty');
SELECT compare('SELECT i2b FROM ty');
SELECT compare('SELECT nm, c1, pt, ine, co FROM ty');
SELECT compare('SELECT ta[2], ia[3], jb->''arr'', js->>''s'', u, iv FROM ty');
SELECT compare('SELECT length(tx), length(vc), length(by), ch FROM ty');
-- a qual deforms a prefix of the row, the projection resumes from there
SELECT compare('SELECT id, i2b, co FROM ty WHERE i2 > 0');
SELECT compare('SELECT id, pt, ta FROM ty WHERE tx LIKE ''%k%'' AND i4 < -100');
SELECT compare('SELECT id FROM ty WHERE (i2b IS NULL) <> (bo IS NULL)');
SELECT compare('SELECT id, num FROM ty WHERE jb @> ''{"g": 17}''');
-- integer comparisons on columns that are NULL in some rows, after
-- variable-width columns, across integer types
SELECT compare('SELECT id, i2 FROM ty WHERE i2 = 5::int8 OR i2 < -140');
SELECT compare('SELECT id FROM ty WHERE 100 > i8 / 1000000007 AND i4 >= -90');
SELECT compare('SELECT id, i2b FROM ty WHERE i2b <> 3 AND i2b <= 20::int4 AND id >= 2');
SELECT compare('SELECT d, count(*) FROM ty WHERE d IS NOT NULL GROUP BY d ORDER BY d LIMIT 5');
SELECT compare('SELECT co, count(*) FROM ty WHERE (co).x % 100 = 1 GROUP BY co ORDER BY 1');
-- a few rows, shown
SELECT id, i2, length(tx) AS tx, i8, bo, f4, length(vc) AS vc, f8, num, ch, i4, length(by) AS by, d
FROM ty WHERE id BETWEEN 9 AND 13 ORDER BY id;
SELECT id, ts, tstz, iv, u, ia, co, ine, pt, nm, c1, i2b
FROM ty WHERE id BETWEEN 9 AND 13 ORDER BY id;

-- more than 64 columns: a long NULL bitmap
DO $$
BEGIN
  EXECUTE 'CREATE TABLE ty_wide (' ||
    (SELECT string_agg(format('c%s %s', k, CASE k % 4 WHEN 0 THEN 'int8' WHEN 1 THEN 'int4'
                                                   WHEN 2 THEN 'text' ELSE 'int2' END), ', ' ORDER BY k)
     FROM generate_series(1, 100) k) || ')';
  EXECUTE 'INSERT INTO ty_wide SELECT ' ||
    (SELECT string_agg(format('CASE WHEN (g + %s) %% 11 = 0 OR g %% 17 = %s %% 17 THEN NULL ELSE ((g * %s) %% 30000)::%s END',
                              k, k, k, CASE k % 4 WHEN 0 THEN 'int8' WHEN 1 THEN 'int4'
                                                  WHEN 2 THEN 'text' ELSE 'int2' END), ', ' ORDER BY k)
     FROM generate_series(1, 100) k) || ' FROM generate_series(1, 500) g';
END $$;
SELECT compare('SELECT * FROM ty_wide');
SELECT compare('SELECT c100, c1, c99, c50 FROM ty_wide WHERE c98 IS NOT NULL');
SELECT compare('SELECT c1, c4, c97 FROM ty_wide WHERE c1 > 100 AND c4 < 5000 AND c97 <> 0');

-- no columns at all: 291 tuples to a page, the most a heap page holds
CREATE TABLE ty_none ();
INSERT INTO ty_none SELECT FROM generate_series(1, 1000);
SELECT max((ctid::text::point)[1]) AS most_on_a_page FROM ty_none;
SELECT compare('SELECT count(*) FROM ty_none');
SELECT compare('SELECT ctid, ty_none FROM ty_none');

--
-- TOAST: large compressible values (compressed inline), large
-- incompressible ones stored out of line (EXTERNAL, and EXTENDED bytea),
-- compared by md5 and length
--
CREATE TABLE ty_toast (id int, comp text, ext text, bin bytea, small text);
ALTER TABLE ty_toast ALTER COLUMN ext SET STORAGE EXTERNAL;
INSERT INTO ty_toast
SELECT g,
  repeat(chr(120 - g % 3), 100000 + g),
  (SELECT string_agg(md5((g * 1000 + k)::text), '') FROM generate_series(1, 300 + g) k),
  (SELECT decode(string_agg(md5((g * 7 + k)::text), ''), 'hex') FROM generate_series(1, 400) k),
  'small ' || g
FROM generate_series(1, 12) g;
SELECT id, length(comp), pg_column_size(comp) < 10000 AS comp_compressed,
       length(ext), pg_column_size(ext) = length(ext) AS ext_uncompressed,
       length(bin), small
FROM ty_toast ORDER BY id LIMIT 3;
SELECT pg_relation_size(reltoastrelid) > 0 AS has_toast FROM pg_class WHERE oid = 'ty_toast'::regclass;
SELECT compare('SELECT id, md5(comp), length(comp), md5(ext), length(ext), md5(bin), length(bin), small FROM ty_toast');
SELECT compare('SELECT id, small FROM ty_toast WHERE ext LIKE ''%abc%''');
SELECT compare('SELECT md5(string_agg(comp || ext || encode(bin, ''hex''), '','')) FROM ty_toast');
-- the TOAST table itself (relkind t) and a sequence are not offered to the node
SELECT scans(format('SELECT count(*) FROM %s', reltoastrelid::regclass)) AS toast_table
FROM pg_class WHERE oid = 'ty_toast'::regclass;
CREATE SEQUENCE ty_seq;
SELECT scans('SELECT * FROM ty_seq') AS sequence;
-- a toasted value outlives the scan's page (sorted, hashed)
SELECT compare('SELECT md5(ext), id FROM ty_toast ORDER BY md5(ext)');
SELECT compare('SELECT DISTINCT length(comp) > 0, md5(bin) FROM ty_toast ORDER BY 2');

--
-- Dropped columns, in the middle, with rows from before and after the drops
--
CREATE TABLE ty_drop (a int, b text, c int8, d text, e int2, f float8);
INSERT INTO ty_drop SELECT g, 'b' || g, g * 10, repeat('d', g % 20), g, g / 2.0 FROM generate_series(1, 300) g;
ALTER TABLE ty_drop DROP COLUMN b;
INSERT INTO ty_drop SELECT g, g * 10, repeat('d', g % 20), g, g / 2.0 FROM generate_series(301, 600) g;
ALTER TABLE ty_drop DROP COLUMN c;
INSERT INTO ty_drop SELECT g, NULL, g, NULL FROM generate_series(601, 900) g;
ALTER TABLE ty_drop DROP COLUMN e;
INSERT INTO ty_drop SELECT g, repeat('D', g % 30), g FROM generate_series(901, 1200) g;
SELECT attnum, attname, attisdropped FROM pg_attribute
WHERE attrelid = 'ty_drop'::regclass AND attnum > 0 ORDER BY attnum;
SELECT compare('SELECT * FROM ty_drop');
SELECT compare('SELECT f, a FROM ty_drop WHERE d IS NULL OR length(d) > 15');
SELECT compare('SELECT ty_drop FROM ty_drop');
SELECT compare('SELECT a, f FROM ty_drop WHERE a >= 590 AND a < 610');
SELECT * FROM ty_drop WHERE a IN (1, 299, 300, 301, 600, 601, 900, 901, 1200) ORDER BY a;

--
-- Columns added with a default after rows exist: a constant default is kept
-- as the column's missing value (atthasmissing; old rows are not rewritten),
-- a volatile one rewrites the table
--
CREATE TABLE ty_add (a int, b text);
INSERT INTO ty_add SELECT g, 'b' || g FROM generate_series(1, 400) g;
ALTER TABLE ty_add ADD COLUMN c int DEFAULT 42;
INSERT INTO ty_add SELECT g, 'b' || g, g FROM generate_series(401, 500) g;
ALTER TABLE ty_add ADD COLUMN d text DEFAULT 'missing d';
ALTER TABLE ty_add ADD COLUMN e int8 NOT NULL DEFAULT 7;
ALTER TABLE ty_add ADD COLUMN n int;   -- no default: NULL
INSERT INTO ty_add VALUES (501, 'b501', NULL, NULL, 0, 1), (502, NULL, 502, 'd502', 502, NULL);
UPDATE ty_add SET c = -c WHERE a % 100 = 0;
SELECT attname, atthasmissing FROM pg_attribute
WHERE attrelid = 'ty_add'::regclass AND attnum > 0 ORDER BY attnum;
SELECT compare('SELECT * FROM ty_add');
SELECT compare('SELECT e, d FROM ty_add WHERE c = 42');
SELECT compare('SELECT ty_add, n FROM ty_add');
SELECT compare('SELECT a, n FROM ty_add WHERE n IS NOT NULL OR e <> 7');
SELECT compare('SELECT c, d, count(*) FROM ty_add GROUP BY c, d HAVING count(*) > 1 ORDER BY 1, 2');
SELECT * FROM ty_add WHERE a IN (1, 100, 400, 401, 500, 501, 502) ORDER BY a;
SELECT relfilenode AS ty_add_filenode FROM pg_class WHERE oid = 'ty_add'::regclass \gset
ALTER TABLE ty_add ADD COLUMN r float8 DEFAULT random();
SELECT relfilenode <> :ty_add_filenode AS rewritten FROM pg_class WHERE oid = 'ty_add'::regclass;
SELECT compare('SELECT * FROM ty_add');
SELECT compare('SELECT a FROM ty_add WHERE r < 0.5 AND d = ''missing d''', false);

--
-- System columns
--
CREATE TABLE ty_sys (a int, b text);
INSERT INTO ty_sys SELECT g, 'sys ' || g FROM generate_series(1, 1000) g;
BEGIN;
DELETE FROM ty_sys WHERE a % 5 = 0;   -- xmax set by an aborted transaction
ROLLBACK;
SELECT compare('SELECT ctid, xmin, xmax, cmin, cmax, tableoid::regclass, * FROM ty_sys');
SELECT compare('SELECT ctid, a FROM ty_sys WHERE xmax <> ''0''');
SELECT compare('SELECT tableoid::regclass, count(*) FROM ty_sys GROUP BY 1');
SELECT ctid, cmin, cmax, tableoid::regclass, a FROM ty_sys WHERE a IN (1, 5, 6, 999, 1000) ORDER BY a;
-- in the transaction that writes them: several command ids, a row locked
BEGIN;
INSERT INTO ty_sys VALUES (1001, 'cmd 1');
INSERT INTO ty_sys VALUES (1002, 'cmd 2');
UPDATE ty_sys SET b = 'updated' WHERE a = 1001;
SELECT a FROM ty_sys WHERE a = 3 FOR SHARE;
SELECT compare('SELECT ctid, xmin, xmax, cmin, cmax, tableoid::regclass, * FROM ty_sys');
SELECT ctid, cmin, cmax, xmin = pg_current_xact_id()::xid AS mine, a, b FROM ty_sys WHERE a > 1000 ORDER BY a;
ROLLBACK;
-- a partitioned table's rows carry their partition's OID
CREATE TABLE ty_part (k int, v text) PARTITION BY LIST (k);
CREATE TABLE ty_part_a PARTITION OF ty_part FOR VALUES IN (1, 2);
CREATE TABLE ty_part_b PARTITION OF ty_part FOR VALUES IN (3);
INSERT INTO ty_part SELECT g % 3 + 1, 'v' || g FROM generate_series(1, 30) g;
SELECT compare('SELECT tableoid::regclass, ctid, * FROM ty_part');

--
-- HOT chains and dead tuples, before and after VACUUM; all-visible pages
--
CREATE TABLE ty_hot (a int, b int, c text) WITH (fillfactor = 50, autovacuum_enabled = off);
INSERT INTO ty_hot SELECT g, 0, 'hot ' || g FROM generate_series(1, 2000) g;
BEGIN;
UPDATE ty_hot SET b = b + 1 WHERE a % 3 = 0;
UPDATE ty_hot SET b = b + 1 WHERE a % 3 = 0;
UPDATE ty_hot SET b = b + 1, c = c || '!' WHERE a % 6 = 0;
SELECT pg_stat_get_xact_tuples_hot_updated('ty_hot'::regclass) > 0 AS hot_updates;
COMMIT;
DELETE FROM ty_hot WHERE a % 7 = 0;
BEGIN;
UPDATE ty_hot SET b = -1 WHERE a % 11 = 0;   -- aborted: dead new versions
ROLLBACK;
SELECT compare('SELECT ctid, * FROM ty_hot');
SELECT compare('SELECT b, count(*) FROM ty_hot GROUP BY b ORDER BY b');
SELECT compare('SELECT ctid, a, b FROM ty_hot WHERE a % 6 = 0 AND a < 100');
-- a page of deleted rows only: returns nothing, and the scan goes on
WITH d AS (DELETE FROM ty_hot WHERE ctid >= '(3,0)' AND ctid < '(4,0)' RETURNING 1)
SELECT count(*) > 0 AS deleted FROM d;
SELECT count(*) AS rows_on_page_3 FROM ty_hot WHERE ctid >= '(3,0)' AND ctid < '(4,0)';
SELECT compare('SELECT ctid, * FROM ty_hot', false);
VACUUM ty_hot;
SELECT compare('SELECT ctid, * FROM ty_hot', false);
VACUUM (FREEZE) ty_hot;
SELECT relpages > 0 AND relallvisible = relpages AS all_visible FROM pg_class WHERE oid = 'ty_hot'::regclass;
SELECT compare('SELECT ctid, xmin, xmax, * FROM ty_hot', false);
SELECT compare('SELECT count(*) > 0, sum(b) > 0, max(c) FROM ty_hot');
-- all-visible pages and pages no longer all-visible
UPDATE ty_hot SET b = 100 WHERE a BETWEEN 500 AND 520;
SELECT compare('SELECT ctid, * FROM ty_hot', false);
-- rows the scanning transaction itself inserted, updated and deleted
BEGIN;
INSERT INTO ty_hot SELECT g, g, 'new' FROM generate_series(3001, 3100) g;
UPDATE ty_hot SET c = 'upd' WHERE a % 13 = 0;
DELETE FROM ty_hot WHERE a % 17 = 0;
SELECT compare('SELECT ctid, * FROM ty_hot', false);
SELECT compare('SELECT c, count(*) FROM ty_hot GROUP BY c ORDER BY c', false);
ROLLBACK;
-- a scan does not see what its own statement inserts
CREATE TABLE ty_self (a int);
INSERT INTO ty_self SELECT generate_series(1, 1000);
SELECT plan('INSERT INTO ty_self SELECT a + 1000 FROM ty_self');
BEGIN;
SET LOCAL memprobe.enable_streamscan = on;
INSERT INTO ty_self SELECT a + 1000 FROM ty_self;
SELECT count(*), max(a) FROM ty_self;
ROLLBACK;
BEGIN;
SET LOCAL memprobe.enable_streamscan = off;
INSERT INTO ty_self SELECT a + 1000 FROM ty_self;
SELECT count(*), max(a) FROM ty_self;
ROLLBACK;

--
-- UPDATE and DELETE whose target the node scans (two identical copies of a
-- table, one changed with the node, one with core's scan; their rows,
-- ctids included, must end up the same)
--
CREATE TABLE ty_mod_on (a int, b int, c text);
INSERT INTO ty_mod_on SELECT g, g % 50, 'm' || g FROM generate_series(1, 1500) g;
CREATE TABLE ty_mod_off (LIKE ty_mod_on);
INSERT INTO ty_mod_off SELECT * FROM ty_mod_on;
CREATE TABLE ty_keys (k int);
INSERT INTO ty_keys VALUES (3), (7), (1400);
ANALYZE ty_mod_on, ty_mod_off, ty_keys;
SELECT plan('UPDATE ty_mod_on SET b = b * 10 WHERE a % 100 = 0 RETURNING *');
SELECT plan('DELETE FROM ty_mod_on WHERE a % 150 = 0');
SET memprobe.enable_streamscan = on;
UPDATE ty_mod_on SET b = b * 10, c = c || ' upd' WHERE a % 100 = 0 RETURNING *;
DELETE FROM ty_mod_on WHERE a % 150 = 0 RETURNING a, b, c;
UPDATE ty_mod_on m SET c = 'joined' FROM ty_keys k WHERE m.a = k.k RETURNING m.a, m.c, k.k;
DELETE FROM ty_mod_on m USING ty_keys k WHERE m.a = k.k + 1 RETURNING m.a;
SET memprobe.enable_streamscan = off;
UPDATE ty_mod_off SET b = b * 10, c = c || ' upd' WHERE a % 100 = 0 RETURNING *;
DELETE FROM ty_mod_off WHERE a % 150 = 0 RETURNING a, b, c;
UPDATE ty_mod_off m SET c = 'joined' FROM ty_keys k WHERE m.a = k.k RETURNING m.a, m.c, k.k;
DELETE FROM ty_mod_off m USING ty_keys k WHERE m.a = k.k + 1 RETURNING m.a;
RESET memprobe.enable_streamscan;
SELECT same_rows(rows_of('SELECT ctid, * FROM ty_mod_on'), rows_of('SELECT ctid, * FROM ty_mod_off')),
       (SELECT count(*) FROM ty_mod_on) AS rows;
-- UPDATE of a partitioned table's key: rows move to another partition
CREATE TABLE ty_pmod_on (k int, v text) PARTITION BY RANGE (k);
CREATE TABLE ty_pmod_on_1 PARTITION OF ty_pmod_on FOR VALUES FROM (0) TO (100);
CREATE TABLE ty_pmod_on_2 PARTITION OF ty_pmod_on FOR VALUES FROM (100) TO (1000);
CREATE TABLE ty_pmod_off (k int, v text) PARTITION BY RANGE (k);
CREATE TABLE ty_pmod_off_1 PARTITION OF ty_pmod_off FOR VALUES FROM (0) TO (100);
CREATE TABLE ty_pmod_off_2 PARTITION OF ty_pmod_off FOR VALUES FROM (100) TO (1000);
INSERT INTO ty_pmod_on SELECT g, 'v' || g FROM generate_series(0, 199) g;
INSERT INTO ty_pmod_off SELECT g, 'v' || g FROM generate_series(0, 199) g;
SELECT plan('UPDATE ty_pmod_on SET k = k + 100 WHERE k % 40 = 0');
SET memprobe.enable_streamscan = on;
UPDATE ty_pmod_on SET k = k + 100 WHERE k % 40 = 0 RETURNING tableoid::regclass, *;
SET memprobe.enable_streamscan = off;
UPDATE ty_pmod_off SET k = k + 100 WHERE k % 40 = 0 RETURNING tableoid::regclass, *;
RESET memprobe.enable_streamscan;
SELECT same_rows(rows_of('SELECT replace(tableoid::regclass::text, ''_on'', ''''), ctid, * FROM ty_pmod_on'),
                 rows_of('SELECT replace(tableoid::regclass::text, ''_off'', ''''), ctid, * FROM ty_pmod_off'));
-- MERGE (PostgreSQL 15+) with the node scanning target and source
SELECT scans('MERGE INTO ty_mod_on t USING ty_keys k ON t.a = k.k * 2 WHEN MATCHED THEN UPDATE SET c = ''merged'' WHEN NOT MATCHED THEN INSERT VALUES (k.k * 2, -1, ''ins'')');
SET memprobe.enable_streamscan = on;
MERGE INTO ty_mod_on t USING ty_keys k ON t.a = k.k * 2
  WHEN MATCHED THEN UPDATE SET c = 'merged'
  WHEN NOT MATCHED THEN INSERT VALUES (k.k * 2, -1, 'ins');
SET memprobe.enable_streamscan = off;
MERGE INTO ty_mod_off t USING ty_keys k ON t.a = k.k * 2
  WHEN MATCHED THEN UPDATE SET c = 'merged'
  WHEN NOT MATCHED THEN INSERT VALUES (k.k * 2, -1, 'ins');
RESET memprobe.enable_streamscan;
SELECT same_rows(rows_of('SELECT ctid, * FROM ty_mod_on'), rows_of('SELECT ctid, * FROM ty_mod_off'));
SELECT * FROM ty_mod_on WHERE c IN ('merged', 'ins', 'joined') ORDER BY a;

--
-- Row locks through the node: SELECT ... FOR UPDATE / FOR SHARE
--
SELECT plan('SELECT * FROM ty_mod_on WHERE a < 5 FOR UPDATE');
BEGIN;
SET LOCAL memprobe.enable_streamscan = on;
SELECT a, b, c FROM ty_mod_on WHERE a < 5 ORDER BY a FOR UPDATE;
SELECT a, b, c FROM ty_mod_on WHERE a BETWEEN 5 AND 8 ORDER BY a FOR SHARE;
SELECT m.a, k.k FROM ty_mod_on m JOIN ty_keys k ON m.b = k.k WHERE m.a < 60 ORDER BY m.a FOR NO KEY UPDATE OF m;
SELECT a FROM ty_mod_on WHERE xmax = pg_current_xact_id()::xid ORDER BY a;
ROLLBACK;
BEGIN;
SET LOCAL memprobe.enable_streamscan = off;
SELECT a, b, c FROM ty_mod_on WHERE a < 5 ORDER BY a FOR UPDATE;
SELECT a, b, c FROM ty_mod_on WHERE a BETWEEN 5 AND 8 ORDER BY a FOR SHARE;
SELECT m.a, k.k FROM ty_mod_on m JOIN ty_keys k ON m.b = k.k WHERE m.a < 60 ORDER BY m.a FOR NO KEY UPDATE OF m;
SELECT a FROM ty_mod_on WHERE xmax = pg_current_xact_id()::xid ORDER BY a;
ROLLBACK;

--
-- WHERE CURRENT OF a cursor over the node (without FOR UPDATE: the row is
-- found from the scan's current tuple; with FOR UPDATE: from the row mark)
--
CREATE TABLE ty_cur (a int, b int);
INSERT INTO ty_cur SELECT g, g FROM generate_series(1, 1000) g;
SELECT plan('SELECT a, b FROM ty_cur WHERE a % 100 = 0');
BEGIN;
SET LOCAL memprobe.enable_streamscan = on;
DECLARE c CURSOR FOR SELECT a, b FROM ty_cur WHERE a % 100 = 0;
FETCH 2 FROM c;
UPDATE ty_cur SET b = -b WHERE CURRENT OF c RETURNING *;
FETCH 3 FROM c;
DELETE FROM ty_cur WHERE CURRENT OF c RETURNING *;
FETCH BACKWARD 1 FROM c;
UPDATE ty_cur SET b = b * 1000 WHERE CURRENT OF c RETURNING *;
FETCH ALL FROM c;
UPDATE ty_cur SET b = 0 WHERE CURRENT OF c;   -- not on a row
ROLLBACK;
BEGIN;
SET LOCAL memprobe.enable_streamscan = off;
DECLARE c CURSOR FOR SELECT a, b FROM ty_cur WHERE a % 100 = 0;
FETCH 2 FROM c;
UPDATE ty_cur SET b = -b WHERE CURRENT OF c RETURNING *;
FETCH 3 FROM c;
DELETE FROM ty_cur WHERE CURRENT OF c RETURNING *;
FETCH BACKWARD 1 FROM c;
UPDATE ty_cur SET b = b * 1000 WHERE CURRENT OF c RETURNING *;
FETCH ALL FROM c;
UPDATE ty_cur SET b = 0 WHERE CURRENT OF c;   -- not on a row
ROLLBACK;
BEGIN;
SET LOCAL memprobe.enable_streamscan = on;
DECLARE c CURSOR FOR SELECT a, b FROM ty_cur WHERE a % 250 = 0 FOR UPDATE;
FETCH 2 FROM c;
UPDATE ty_cur SET b = -b WHERE CURRENT OF c RETURNING *;
FETCH 1 FROM c;
DELETE FROM ty_cur WHERE CURRENT OF c RETURNING *;
SELECT * FROM ty_cur WHERE a % 250 = 0 ORDER BY a;
ROLLBACK;
BEGIN;
SET LOCAL memprobe.enable_streamscan = off;
DECLARE c CURSOR FOR SELECT a, b FROM ty_cur WHERE a % 250 = 0 FOR UPDATE;
FETCH 2 FROM c;
UPDATE ty_cur SET b = -b WHERE CURRENT OF c RETURNING *;
FETCH 1 FROM c;
DELETE FROM ty_cur WHERE CURRENT OF c RETURNING *;
SELECT * FROM ty_cur WHERE a % 250 = 0 ORDER BY a;
ROLLBACK;

RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA streamscan_types CASCADE;
