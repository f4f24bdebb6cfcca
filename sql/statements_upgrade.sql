--
-- Upgrades: CREATE EXTENSION memprobe VERSION '0.1' (or '0.2'), then ALTER EXTENSION UPDATE gives
-- the objects of the current version, the same as a fresh install of it.
--
-- (after statements.sql, or alone: no NOTICE either way)
SET client_min_messages = warning;
DROP EXTENSION IF EXISTS memprobe;
RESET client_min_messages;
CREATE EXTENSION memprobe VERSION '0.1';
SELECT extversion FROM pg_extension WHERE extname = 'memprobe';
SELECT to_regclass('memprobe_statements') AS view_01, to_regproc('memprobe_statements_reset') AS reset_01;
-- this library serves 0.1's objects: a database not yet updated keeps working
SELECT count(*) > 0 AS contexts_01 FROM memprobe_contexts WHERE name = 'TopMemoryContext';
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
SELECT memprobe_statements_reset() IS NOT NULL AS t;
SELECT query, calls FROM memprobe_statements;
SELECT has_function_privilege('public', 'memprobe_statements_reset()', 'EXECUTE') AS public_reset,
       has_table_privilege('public', 'memprobe_statements', 'SELECT') AS public_read;
-- the same objects as a fresh install: the same members with the same definitions,
-- privileges (also as recorded for pg_dump in pg_init_privs) and comments
CREATE TEMP VIEW st_members AS
SELECT pg_describe_object(d.classid, d.objid, 0) AS object,
       CASE WHEN d.classid = 'pg_proc'::regclass THEN pg_get_functiondef(d.objid)
            WHEN d.classid = 'pg_class'::regclass THEN pg_get_viewdef(d.objid::regclass) END AS definition,
       CASE WHEN d.classid = 'pg_proc'::regclass
              THEN (SELECT proacl::text FROM pg_proc WHERE oid = d.objid)
            WHEN d.classid = 'pg_class'::regclass
              THEN (SELECT relacl::text FROM pg_class WHERE oid = d.objid) END AS acl,
       (SELECT initprivs::text FROM pg_init_privs i
         WHERE i.objoid = d.objid AND i.classoid = d.classid AND i.objsubid = 0) AS initprivs,
       obj_description(d.objid, (SELECT relname FROM pg_class WHERE oid = d.classid)) AS comment
  FROM pg_depend d
 WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
   AND d.classid <> 'pg_type'::regclass
   AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'memprobe');
CREATE TEMP TABLE st_upgraded AS SELECT * FROM st_members;
DROP EXTENSION memprobe;
CREATE EXTENSION memprobe;
SELECT extversion FROM pg_extension WHERE extname = 'memprobe';
CREATE TEMP TABLE st_fresh AS SELECT * FROM st_members;
-- what is compared: every member has a definition, and those with privileges of their own
SELECT count(*) AS members, count(definition) AS with_definition, count(acl) AS with_acl,
       count(initprivs) AS with_initprivs FROM st_fresh;
(SELECT * FROM st_upgraded EXCEPT ALL SELECT * FROM st_fresh)
UNION ALL
(SELECT * FROM st_fresh EXCEPT ALL SELECT * FROM st_upgraded);
-- From 0.2: memprobe_statements_reset() returned nothing and there was no
-- memprobe_statements_info; 0.2's objects work with this library, and the update gives the
-- fresh install's objects.
DROP EXTENSION memprobe;
CREATE EXTENSION memprobe VERSION '0.2';
SELECT extversion FROM pg_extension WHERE extname = 'memprobe';
SELECT pg_get_function_result('memprobe_statements_reset'::regproc) AS reset_02_returns,
       to_regclass('memprobe_statements_info') AS info_02;
SELECT memprobe_statements_reset();
SELECT count(*) >= 0 AS statements_02 FROM memprobe_statements;
ALTER EXTENSION memprobe UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'memprobe';
SELECT pg_get_function_result('memprobe_statements_reset'::regproc) AS reset_returns;
SELECT dealloc, stats_reset IS NOT NULL AS has_reset_time FROM memprobe_statements_info;
SELECT has_function_privilege('public', 'memprobe_statements_reset()', 'EXECUTE') AS public_reset,
       has_table_privilege('public', 'memprobe_statements_info', 'SELECT') AS public_info;
CREATE TEMP TABLE st_upgraded_02 AS SELECT * FROM st_members;
(SELECT * FROM st_upgraded_02 EXCEPT ALL SELECT * FROM st_fresh)
UNION ALL
(SELECT * FROM st_fresh EXCEPT ALL SELECT * FROM st_upgraded_02);
DROP EXTENSION memprobe;
