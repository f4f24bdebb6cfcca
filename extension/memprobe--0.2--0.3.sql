/* memprobe upgrade script, 0.2 to 0.3 */
-- Copyright (c) 2026, The memprobe Developers; the PostgreSQL License (LICENSE)

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION memprobe UPDATE TO '0.3'" to load this file. \quit

--
-- A server that still runs 0.2's library (0.3 installed since it started, not restarted) cannot
-- run 0.3's functions: say so here, where core would fail below with "could not find function
-- ... in file".  0.3's library defines memprobe.sample_interval; 0.2's reserves the prefix and
-- does not, so the setting reads as missing exactly when the old library is the one loaded.
-- memprobe_contexts (there since 0.1) loads the library first where this session has not.
--
DO $$
BEGIN
  PERFORM 1 FROM memprobe_contexts LIMIT 1;
  IF current_setting('memprobe.sample_interval', true) IS NULL THEN
    RAISE EXCEPTION 'the memprobe library loaded in this session is older than 0.3'
      USING ERRCODE = 'object_not_in_prerequisite_state',
            DETAIL = 'memprobe 0.3 is installed, but this server still runs the library it loaded at its start (shared_preload_libraries), or this session loaded the older one before the installation.',
            HINT = 'Restart the server (or, where memprobe is not preloaded, reconnect), then run ALTER EXTENSION memprobe UPDATE again.';
  END IF;
END $$;

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

--
-- Every process's private memory, from the sampler: memprobe_samples(), memprobe_history, and
-- memprobe_backends' new columns (appended, so the view is replaced in place and keeps its
-- privileges).
--
CREATE FUNCTION memprobe_samples(
    OUT pid int4,
    OUT leader_pid int4,
    OUT backend_type text,
    OUT private_bytes int8,
    OUT max_private_bytes int8,
    OUT sampled_at timestamptz,
    OUT statement_queryid int8,
    OUT statement_started_at timestamptz,
    OUT statement_max_private_bytes int8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'memprobe_samples'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION memprobe_samples() IS
'every PostgreSQL process at the sampler''s last sample: private (resident anonymous) memory, the most since it started, the running statement and the most it reached';

CREATE FUNCTION memprobe_history(
    OUT sampled_at timestamptz,
    OUT pid int4,
    OUT backend_type text,
    OUT queryid int8,
    OUT private_bytes int8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'memprobe_history'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION memprobe_history() IS
'the last memprobe.history_size samples of processes holding at least memprobe.history_min_bytes of private memory, oldest first';

CREATE VIEW memprobe_history AS
    SELECT * FROM memprobe_history();

COMMENT ON VIEW memprobe_history IS
'recent samples of processes above memprobe.history_min_bytes: time, pid, backend type, query id, private memory';

REVOKE ALL ON FUNCTION memprobe_history() FROM PUBLIC;
REVOKE ALL ON memprobe_history FROM PUBLIC;
GRANT EXECUTE ON FUNCTION memprobe_history() TO pg_read_all_stats;
GRANT SELECT ON memprobe_history TO pg_read_all_stats;

CREATE OR REPLACE VIEW memprobe_backends AS
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
           m.published_at,
           s.private_bytes,
           s.max_private_bytes,
           s.sampled_at,
           s.statement_queryid,
           s.statement_started_at,
           s.statement_max_private_bytes
      FROM pg_stat_activity AS a
      LEFT JOIN memprobe_backends() AS m ON m.pid = a.pid
      LEFT JOIN memprobe_samples() AS s ON s.pid = a.pid;

COMMENT ON VIEW memprobe_backends IS
'every process''s memory: its memory contexts as it last published them, and its private memory as the sampler last read it; read without signalling or waiting on anyone';

--
-- memprobe_statements gains max_private_bytes (the most private memory the sampler saw while
-- the statement ran) and the executions that ended in an error or a cancel (failed_calls and
-- their memory).  A view's function cannot change its result columns in place.
--
DROP VIEW memprobe_statements;
DROP FUNCTION memprobe_statements();

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
    OUT temp_bytes_written int8,
    OUT max_private_bytes int8,
    OUT failed_calls int8,
    OUT failed_max_exec_mem_bytes int8,
    OUT failed_max_private_bytes int8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'memprobe_statements'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION memprobe_statements() IS
'one row per (userid, dbid, queryid, toplevel): executions, executor memory per execution (a lower bound of its peak), the largest node peak, spills, temp bytes written, the most private memory the sampler saw, and the executions that ended in an error or a cancel';

CREATE VIEW memprobe_statements AS
    SELECT * FROM memprobe_statements();

COMMENT ON VIEW memprobe_statements IS
'executor memory per statement, keyed as pg_stat_statements (join on userid, dbid, queryid, toplevel)';

-- As pg_stat_statements: everyone may read (other roles' query texts are hidden), only superusers reset.
GRANT SELECT ON memprobe_statements TO PUBLIC;


--
-- What ran before a crash restart.
--
CREATE FUNCTION memprobe_before_restart(
    OUT sampled_at timestamptz,
    OUT pid int4,
    OUT backend_type text,
    OUT queryid int8,
    OUT private_bytes int8,
    OUT query text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'memprobe_before_restart'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION memprobe_before_restart() IS
'the largest processes at the sampler''s last sample before the server restarted after a crash (none after a clean start)';

CREATE VIEW memprobe_before_restart AS
    SELECT * FROM memprobe_before_restart();

COMMENT ON VIEW memprobe_before_restart IS
'what ran before the last crash restart: the largest processes at the last sample, with their query ids, queries and private memory';

REVOKE ALL ON FUNCTION memprobe_before_restart() FROM PUBLIC;
REVOKE ALL ON memprobe_before_restart FROM PUBLIC;
GRANT EXECUTE ON FUNCTION memprobe_before_restart() TO pg_read_all_stats;
GRANT SELECT ON memprobe_before_restart TO pg_read_all_stats;

--
-- What the memory guard sees (the memory available to the server, the largest process, at the
-- sampler's last sample) and the statements it cancelled, for monitoring.
--
CREATE FUNCTION memprobe_guard(
    OUT sampled_at timestamptz,
    OUT available_bytes int8,
    OUT available_source text,
    OUT largest_pid int4,
    OUT largest_private_bytes int8,
    OUT backend_memory_limit_bytes int8,
    OUT min_available_memory_bytes int8,
    OUT cancels_backend_memory_limit int8,
    OUT cancels_min_available_memory int8,
    OUT last_cancel_at timestamptz)
RETURNS record
AS 'MODULE_PATHNAME', 'memprobe_guard'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION memprobe_guard() IS
'the memory guard: the memory available to the server and the largest process at the sampler''s last sample, the settings in bytes, and the statements cancelled per setting since the server started';

CREATE VIEW memprobe_guard AS
    SELECT * FROM memprobe_guard();

COMMENT ON VIEW memprobe_guard IS
'one row: memory available to the server (and from where), the largest process, the guard''s settings and its cancels per setting';

-- As memprobe_samples and memprobe_backends: readable by everyone (pg_monitor included).
GRANT SELECT ON memprobe_guard TO PUBLIC;

--
-- The version of the library this server runs (not the SQL version, which pg_extension shows):
-- the release (0.3.0) or, for a build of any other commit, the commit it was built from.
--
CREATE FUNCTION memprobe_version()
RETURNS text
AS 'MODULE_PATHNAME', 'memprobe_version'
LANGUAGE C STRICT STABLE PARALLEL SAFE;

COMMENT ON FUNCTION memprobe_version() IS
'the version of the memprobe library loaded: the release, or the commit a development build was made from';
