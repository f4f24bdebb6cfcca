/* memprobe install script (version 0.1, frozen: installs version 0.1 for upgrade tests and old installations) */

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
