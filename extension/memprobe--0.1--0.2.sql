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

--
-- Every backend's memory, as each backend last published it (memprobe must be preloaded).
--
CREATE FUNCTION memprobe_backends(
    OUT pid int4,
    OUT userid oid,
    OUT total_bytes int8,
    OUT max_total_bytes int8,
    OUT contexts int4,
    OUT largest_contexts text[],
    OUT largest_context_bytes int8[],
    OUT max_statement_bytes int8,
    OUT last_queryid int8,
    OUT last_statement_bytes int8,
    OUT published_at timestamptz)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'memprobe_backends'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION memprobe_backends() IS
'one row per backend that has published its memory: total and largest contexts, as of published_at';

-- Every backend pg_stat_activity shows, with its last publication (figures are NULL for a
-- backend that has not published, and for another role's backend without pg_read_all_stats).
CREATE VIEW memprobe_backends AS
    SELECT a.pid,
           a.backend_type,
           a.datname,
           a.usename,
           a.state,
           a.query_id,
           m.total_bytes,
           m.max_total_bytes,
           m.contexts,
           m.largest_contexts,
           m.largest_context_bytes,
           m.max_statement_bytes,
           m.last_queryid,
           m.last_statement_bytes,
           m.published_at
      FROM pg_stat_activity AS a
      LEFT JOIN memprobe_backends() AS m ON m.pid = a.pid;

COMMENT ON VIEW memprobe_backends IS
'every backend''s memory as it last published it (at a statement end, at most every memprobe.publish_interval), read without signalling or waiting on it';

GRANT SELECT ON memprobe_backends TO PUBLIC;

CREATE FUNCTION memprobe_backend_contexts(
    pid int4,
    OUT name text,
    OUT ident text,
    OUT type text,
    OUT level int4,
    OUT parent text,
    OUT total_bytes int8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'memprobe_backend_contexts'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION memprobe_backend_contexts(int4) IS
'the memory contexts (up to memprobe.publish_contexts) holding the most memory in that backend, as it last published them';
