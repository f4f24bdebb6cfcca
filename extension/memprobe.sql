/* memprobe install script (version 0.3) */
-- Copyright (c) 2026, The memprobe Developers; the PostgreSQL License (LICENSE)

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION memprobe" to load this file. \quit

--
-- Memory contexts of the current backend, with PostgreSQL 18's columns.
--
CREATE FUNCTION memprobe_contexts(
    OUT name text,
    OUT ident text,
    OUT type text,
    OUT level int4,
    OUT path int4[],
    OUT total_bytes int8,
    OUT total_nblocks int8,
    OUT free_bytes int8,
    OUT free_chunks int8,
    OUT used_bytes int8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'memprobe_contexts'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION memprobe_contexts() IS
'one row per memory context of the current backend, with PostgreSQL 18''s pg_backend_memory_contexts columns';

CREATE VIEW memprobe_contexts AS
    SELECT * FROM memprobe_contexts();

COMMENT ON VIEW memprobe_contexts IS
'memory contexts of the current backend: name, ident, type, level (1-based), path of context ids, sizes';

-- As pg_backend_memory_contexts: superusers and pg_read_all_stats only.
REVOKE ALL ON FUNCTION memprobe_contexts() FROM PUBLIC;
REVOKE ALL ON memprobe_contexts FROM PUBLIC;
GRANT EXECUTE ON FUNCTION memprobe_contexts() TO pg_read_all_stats;
GRANT SELECT ON memprobe_contexts TO pg_read_all_stats;

--
-- palloc/pfree micro-benchmark in a fresh context of the given type.
--
CREATE FUNCTION memprobe_alloc_bench(
    context_type text,
    chunk_size int4,
    nchunks int4,
    pattern text DEFAULT 'fifo',
    loops int4 DEFAULT 1,
    OUT alloc_ns float8,
    OUT free_ns float8,
    OUT peak_bytes int8,
    OUT blocks int8)
RETURNS record
AS 'MODULE_PATHNAME', 'memprobe_alloc_bench'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION memprobe_alloc_bench(text, int4, int4, text, int4) IS
'allocate nchunks chunks in a fresh aset, generation, slab, bump or malloc context and release them by pattern (fifo, lifo, random, reset, hold); per-chunk ns, peak bytes held, blocks';

-- It can allocate up to memprobe.alloc_bench_max_memory per call: not for PUBLIC.
REVOKE ALL ON FUNCTION memprobe_alloc_bench(text, int4, int4, text, int4) FROM PUBLIC;

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

CREATE FUNCTION memprobe_statements_reset()
RETURNS timestamptz
AS 'MODULE_PATHNAME', 'memprobe_statements_reset'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION memprobe_statements_reset() IS
'remove every memprobe_statements entry; returns the time of the reset';

REVOKE ALL ON FUNCTION memprobe_statements_reset() FROM PUBLIC;

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
