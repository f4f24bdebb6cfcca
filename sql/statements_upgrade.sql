--
-- Upgrade from 0.1: CREATE EXTENSION memprobe VERSION '0.1', then ALTER EXTENSION UPDATE gives
-- the objects of 0.2, the same as a fresh install of 0.2.
--
DROP EXTENSION IF EXISTS memprobe;
CREATE EXTENSION memprobe VERSION '0.1';
SELECT extversion FROM pg_extension WHERE extname = 'memprobe';
SELECT to_regclass('memprobe_statements') AS view_01, to_regproc('memprobe_statements_reset') AS reset_01;
-- objects of 0.1 (row types of views left out: 17 and later list them as members too)
SELECT pg_describe_object(classid, objid, 0) AS object FROM pg_depend
 WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e' AND classid <> 'pg_type'::regclass
   AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'memprobe')
 ORDER BY 1;
ALTER EXTENSION memprobe UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'memprobe';
SELECT pg_describe_object(classid, objid, 0) AS object FROM pg_depend
 WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e' AND classid <> 'pg_type'::regclass
   AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'memprobe')
 ORDER BY 1;
-- the new objects work, with their privileges
SELECT memprobe_statements_reset();
SELECT query, calls FROM memprobe_statements;
SELECT has_function_privilege('public', 'memprobe_statements_reset()', 'EXECUTE') AS public_reset,
       has_table_privilege('public', 'memprobe_statements', 'SELECT') AS public_read;
-- the same objects as a fresh install of 0.2
CREATE TEMP TABLE st_upgraded AS SELECT pg_describe_object(classid, objid, 0) AS object FROM pg_depend
 WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e' AND classid <> 'pg_type'::regclass
   AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'memprobe');
DROP EXTENSION memprobe;
CREATE EXTENSION memprobe;
SELECT extversion FROM pg_extension WHERE extname = 'memprobe';
CREATE TEMP TABLE st_fresh AS SELECT pg_describe_object(classid, objid, 0) AS object FROM pg_depend
 WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e' AND classid <> 'pg_type'::regclass
   AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'memprobe');
(SELECT object FROM st_upgraded EXCEPT ALL SELECT object FROM st_fresh)
UNION ALL
(SELECT object FROM st_fresh EXCEPT ALL SELECT object FROM st_upgraded);
DROP EXTENSION memprobe;
