--
-- memprobe_backends and memprobe_backend_contexts(pid): every backend's
-- memory as it last published it.  Run by `make installcheck-statements`
-- (test-servers/preload-max-100-statements.conf).  A second backend idle in a transaction is in
-- specs/backends_idle.spec.
--
CREATE EXTENSION memprobe;
SHOW memprobe.publish_interval;
SHOW memprobe.publish_contexts;

-- the first statement end of a backend publishes; this backend's row
SELECT 1 AS published;
SELECT backend_type, state, total_bytes > 0 AS has_total,
       max_total_bytes >= total_bytes AS max_at_least_total,
       contexts > 10 AS has_contexts,
       cardinality(largest_contexts) = 3 AND cardinality(largest_context_bytes) = 3 AS three_largest,
       largest_context_bytes[1] >= largest_context_bytes[2]
         AND largest_context_bytes[2] >= largest_context_bytes[3] AS largest_first,
       largest_context_bytes[1] + largest_context_bytes[2] + largest_context_bytes[3]
         <= total_bytes AS within_total,
       published_at <= now() AS published_before
  FROM memprobe_backends WHERE pid = pg_backend_pid();
-- every backend pg_stat_activity shows has a row, published or not
SELECT (SELECT count(*) FROM memprobe_backends) = (SELECT count(*) FROM pg_stat_activity) AS every_backend;
SELECT count(*) > 0 AS unpublished_have_rows FROM memprobe_backends
 WHERE backend_type = 'checkpointer' AND total_bytes IS NULL;

-- its published contexts: at most memprobe.publish_contexts, most bytes first, the
-- inline three first among them, TopMemoryContext at level 1
SELECT count(*) <= 32 AND count(*) >= 3 AS bounded FROM memprobe_backend_contexts(pg_backend_pid());
SELECT bool_and(total_bytes <= prev) AS sorted FROM (
  SELECT total_bytes, lag(total_bytes, 1, total_bytes) OVER (ORDER BY ordinality) AS prev
    FROM memprobe_backend_contexts(pg_backend_pid()) WITH ORDINALITY) s;
SELECT array_agg(name ORDER BY ordinality) FILTER (WHERE ordinality <= 3)
       = (SELECT largest_contexts FROM memprobe_backends() WHERE pid = pg_backend_pid()) AS same_three
  FROM memprobe_backend_contexts(pg_backend_pid()) WITH ORDINALITY;
SELECT name, type, level, parent FROM memprobe_backend_contexts(pg_backend_pid())
 WHERE name = 'TopMemoryContext';
-- a backend with no publication (no such pid): nothing
SELECT count(*) AS no_rows FROM memprobe_backend_contexts(-1);

-- Between two publications nothing changes: with a long interval, small statements do not publish.
SET memprobe.publish_interval = '1h';
SELECT 1 AS small;
CREATE TEMP TABLE pub AS SELECT published_at, total_bytes FROM memprobe_backends() WHERE pid = pg_backend_pid();
SELECT 2 AS small;
SELECT 3 AS small;
SELECT b.published_at = p.published_at AS not_republished
  FROM memprobe_backends() b, pub p WHERE b.pid = pg_backend_pid();

-- A large change is published at the next statement end regardless: 20MB held in a transaction
-- (memprobe_alloc_bench 'hold', under CurTransactionContext), then given back at commit.
BEGIN;
SELECT peak_bytes >= 20 * 1024 * 1024 AS held FROM memprobe_alloc_bench('aset', 1024, 20480, 'hold');
SELECT b.total_bytes >= p.total_bytes + 20 * 1024 * 1024 AS published_with_hold,
       b.published_at > p.published_at AS republished,
       'memprobe_alloc_bench chunks' = ANY (b.largest_contexts) OR
       'memprobe_alloc_bench' = ANY (b.largest_contexts) AS hold_among_largest
  FROM memprobe_backends() b, pub p WHERE b.pid = pg_backend_pid();
COMMIT;
SELECT b.total_bytes < p.total_bytes + 20 * 1024 * 1024 AS given_back,
       b.max_total_bytes >= p.total_bytes + 20 * 1024 * 1024 AS max_remembers
  FROM memprobe_backends() b, pub p WHERE b.pid = pg_backend_pid();

-- A statement using much more executor memory than any before is published at once, with its
-- queryid (the one memprobe_statements and pg_stat_statements show) and executor memory.
CREATE TABLE bk_big AS SELECT g AS a, md5(g::text) AS b FROM generate_series(1, 100000) g;
SELECT memprobe_statements_reset() IS NOT NULL AS t;
SET work_mem = '64MB';
SELECT b FROM bk_big ORDER BY b OFFSET 99999;
RESET work_mem;
SELECT b.last_queryid = s.queryid AS its_queryid,
       b.last_statement_bytes = s.max_exec_mem_bytes AS its_memory,
       b.max_statement_bytes >= s.max_exec_mem_bytes AS max_statement,
       s.max_exec_mem_bytes > 5 * 1024 * 1024 AS big
  FROM memprobe_backends() b, memprobe_statements s
 WHERE b.pid = pg_backend_pid() AND s.query LIKE 'SELECT b FROM bk_big ORDER BY b%';

-- memprobe.publish_interval = -1: no publication at all
SET memprobe.publish_interval = -1;
CREATE TEMP TABLE pub_off AS SELECT published_at FROM memprobe_backends() WHERE pid = pg_backend_pid();
BEGIN;
SELECT peak_bytes > 0 AS held FROM memprobe_alloc_bench('aset', 1024, 20480, 'hold');
SELECT b.published_at = p.published_at AS not_published
  FROM memprobe_backends() b, pub_off p WHERE b.pid = pg_backend_pid();
COMMIT;
RESET memprobe.publish_interval;

-- Privileges, as pg_stat_activity: another role sees that this backend exists, not its figures
-- nor its contexts, unless it has pg_read_all_stats.
CREATE ROLE bk_reader;
SET ROLE bk_reader;
SELECT total_bytes IS NULL AS hidden, largest_contexts IS NULL AS contexts_hidden,
       last_queryid IS NULL AS queryid_hidden
  FROM memprobe_backends WHERE pid = pg_backend_pid();
-- (the message names the pid: shown without it)
DO $$
BEGIN
  PERFORM memprobe_backend_contexts(pg_backend_pid());
EXCEPTION WHEN insufficient_privilege THEN
  RAISE NOTICE 'insufficient_privilege: %', regexp_replace(SQLERRM, '[0-9]+', 'N');
END $$;
RESET ROLE;
GRANT pg_read_all_stats TO bk_reader;
SET ROLE bk_reader;
SELECT total_bytes > 0 AS visible FROM memprobe_backends WHERE pid = pg_backend_pid();
SELECT count(*) > 0 AS contexts_visible FROM memprobe_backend_contexts(pg_backend_pid());
RESET ROLE;
DROP ROLE bk_reader;

-- An exited backend's slot is cleared: this session's pid is gone once it has ended.
CREATE TABLE bk_old_pid AS SELECT pg_backend_pid() AS pid;
\c
DO $$
DECLARE
  old int := (SELECT pid FROM bk_old_pid);
BEGIN
  FOR i IN 1 .. 300 LOOP
    EXIT WHEN NOT EXISTS (SELECT FROM pg_stat_activity WHERE pid = old);
    PERFORM pg_sleep(0.1);
  END LOOP;
END $$;
SELECT count(*) AS old_slot FROM memprobe_backends() WHERE pid = (SELECT pid FROM bk_old_pid);

-- Names and idents as memprobe_contexts and core's pg_backend_memory_contexts show them: a
-- dynahash context is named after its hash table (Prepared Queries, grown by 300 statements),
-- with no ident; a long ident (a statement's text) is cut to fewer than 1024 bytes on a
-- character boundary.  The DO's end publishes (due with memprobe.publish_interval = 0).
SET memprobe.publish_interval = 0;
DO $$ BEGIN
  EXECUTE format('PREPARE bk_long1 AS SELECT %L AS t', repeat('é', 20000));
  FOR i IN 1..300 LOOP EXECUTE format('PREPARE bk_p%s AS SELECT %s', i, i); END LOOP;
END $$;
SELECT name, ident FROM memprobe_backend_contexts(pg_backend_pid())
 WHERE 'Prepared Queries' IN (name, ident);
SELECT b.ident = c.ident AS same_as_core, b.ident = m.ident AS same_as_memprobe_contexts,
       octet_length(b.ident) < 1024 AS cut, b.ident LIKE 'PREPARE bk_long1 AS SELECT ''éé%' AS its_text
  FROM memprobe_backend_contexts(pg_backend_pid()) b, pg_backend_memory_contexts c, memprobe_contexts m
 WHERE b.ident LIKE 'PREPARE bk_long1 %' AND c.ident LIKE 'PREPARE bk_long1 %'
   AND m.ident LIKE 'PREPARE bk_long1 %';
-- every published context has its name and ident in both
SELECT count(*) FILTER (WHERE NOT EXISTS (SELECT FROM memprobe_contexts m
                                          WHERE m.name = b.name AND m.ident IS NOT DISTINCT FROM b.ident
                                            AND m.level = b.level)) AS not_in_memprobe_contexts,
       count(*) FILTER (WHERE NOT EXISTS (SELECT FROM pg_backend_memory_contexts c
                                          WHERE c.name = b.name AND c.ident IS NOT DISTINCT FROM b.ident)) AS not_in_core
  FROM memprobe_backend_contexts(pg_backend_pid()) b;
DEALLOCATE ALL;

-- What publishing costs is bounded: after a publication that took t, a backend of many contexts
-- (5,000 prepared statements with their plans: 15,000 contexts) does not publish again before
-- 100 t has passed, even with memprobe.publish_interval = 0 and a large change due.  One
-- message (\;), so that nothing else runs between the statements: the DO's end publishes
-- (due by the interval; the last publication, of a small tree, holds nothing back); the INSERT
-- records that publication; 2MB held makes the next statement end due, and it is held back.
CREATE TEMP TABLE bk_seen (at timestamptz, contexts int);
DO $$ BEGIN FOR i IN 1..5000 LOOP
  EXECUTE format('PREPARE bk_p%s AS SELECT %s AS a', i, i);
  EXECUTE format('EXECUTE bk_p%s', i);
END LOOP; END $$ \;
INSERT INTO bk_seen SELECT published_at, contexts FROM memprobe_backends() WHERE pid = pg_backend_pid() \;
SELECT peak_bytes >= 2 * 1024 * 1024 AS held FROM memprobe_alloc_bench('aset', 1024, 2048, 'hold') \;
SELECT s.contexts >= 15000 AS many_contexts, b.published_at = s.at AS held_back
  FROM memprobe_backends() b, bk_seen s WHERE b.pid = pg_backend_pid();
-- Once that time has passed it publishes again: statements, one every 0.1s until it has, for
-- 30s at most (not shown); without the prepared statements its tree is small again.
DEALLOCATE ALL;
\set ECHO none
\o /dev/null
SELECT 'SELECT pg_sleep(0.1) WHERE NOT EXISTS (SELECT FROM memprobe_backends() b, bk_seen s
          WHERE b.pid = pg_backend_pid() AND b.published_at > s.at)'
  FROM generate_series(1, 300) \gexec
\o
\set ECHO all
SELECT b.published_at > s.at AS republished, b.contexts < 1000 AS few_contexts
  FROM memprobe_backends() b, bk_seen s WHERE b.pid = pg_backend_pid();
-- A backend of few contexts is not held back: the same message publishes the 2MB at once.
TRUNCATE bk_seen;
SELECT 1 AS published \;
INSERT INTO bk_seen SELECT published_at, contexts FROM memprobe_backends() WHERE pid = pg_backend_pid() \;
SELECT peak_bytes >= 2 * 1024 * 1024 AS held FROM memprobe_alloc_bench('aset', 1024, 2048, 'hold') \;
SELECT b.published_at > s.at AS published_at_once
  FROM memprobe_backends() b, bk_seen s WHERE b.pid = pg_backend_pid();
RESET memprobe.publish_interval;

DROP TABLE bk_big, bk_old_pid;
DROP EXTENSION memprobe;
