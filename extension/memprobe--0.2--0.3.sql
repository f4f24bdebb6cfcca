/* memprobe upgrade script, 0.2 to 0.3 */
-- Copyright (c) 2026, The memprobe Developers; the PostgreSQL License (LICENSE)

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION memprobe UPDATE TO '0.3'" to load this file. \quit

--
-- memprobe_statements_reset() returns the time of the reset (as pg_stat_statements_reset does
-- from PostgreSQL 17); a function's result type cannot be changed in place.
--
DROP FUNCTION memprobe_statements_reset();

CREATE FUNCTION memprobe_statements_reset()
RETURNS timestamptz
AS 'MODULE_PATHNAME', 'memprobe_statements_reset'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION memprobe_statements_reset() IS
'remove every memprobe_statements entry; returns the time of the reset';

REVOKE ALL ON FUNCTION memprobe_statements_reset() FROM PUBLIC;

--
-- Evictions and the last reset, as pg_stat_statements_info.
--
CREATE FUNCTION memprobe_statements_info(
    OUT dealloc int8,
    OUT stats_reset timestamptz)
RETURNS record
AS 'MODULE_PATHNAME', 'memprobe_statements_info'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION memprobe_statements_info() IS
'times memprobe_statements evicted entries to make room, and when it was last reset';

CREATE VIEW memprobe_statements_info AS
    SELECT * FROM memprobe_statements_info();

COMMENT ON VIEW memprobe_statements_info IS
'memprobe_statements evictions (dealloc) and last reset, as pg_stat_statements_info';

GRANT SELECT ON memprobe_statements_info TO PUBLIC;
