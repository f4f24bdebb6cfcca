/* memprobe upgrade script, 0.1 to 0.2 */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION memprobe UPDATE TO '0.2'" to load this file. \quit

--
-- Executor memory per statement (memprobe must be preloaded).
--
CREATE FUNCTION memprobe_statements(
    OUT userid oid,
    OUT dbid oid,
    OUT toplevel bool,
    OUT queryid int8,
    OUT query text,
    OUT calls int8,
    OUT max_exec_mem_bytes int8,
    OUT mean_exec_mem_bytes float8,
    OUT last_exec_mem_bytes int8,
    OUT node_peak_bytes int8,
    OUT node_peak_type text,
    OUT spilled_calls int8,
    OUT temp_bytes_written int8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'memprobe_statements'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION memprobe_statements() IS
'one row per (userid, dbid, queryid, toplevel): executions, executor memory per execution (a lower bound of its peak), the largest node peak, spills and temp bytes written';

CREATE VIEW memprobe_statements AS
    SELECT * FROM memprobe_statements();

COMMENT ON VIEW memprobe_statements IS
'executor memory per statement, keyed as pg_stat_statements (join on userid, dbid, queryid, toplevel)';

-- As pg_stat_statements: everyone may read (other roles' query texts are hidden), only superusers reset.
GRANT SELECT ON memprobe_statements TO PUBLIC;

CREATE FUNCTION memprobe_statements_reset()
RETURNS void
AS 'MODULE_PATHNAME', 'memprobe_statements_reset'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION memprobe_statements_reset() IS
'remove every memprobe_statements entry';

REVOKE ALL ON FUNCTION memprobe_statements_reset() FROM PUBLIC;
