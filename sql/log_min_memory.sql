--
-- memprobe.log_min_memory: one LOG line for each statement whose executor memory peak or
-- sampled private memory reached the setting (kB; -1, the default, is off).  The figures and
-- query ids vary from run to run and server to server, so this suite shows each line by its
-- severity and SQLSTATE alone (VERBOSITY sqlstate): which statements log and how many lines;
-- t/010_log_min_memory.pl reads the lines whole in the server log.
--
CREATE EXTENSION IF NOT EXISTS memprobe;
SET client_min_messages = log;
SET max_parallel_workers_per_gather = 0;
SET work_mem = '64MB';
\set VERBOSITY sqlstate
SHOW memprobe.log_min_memory;

-- the sort whose memory is logged: an in-memory sort of 500,000 rows of two integers, some
-- 24MB; and a function that runs it as a nested statement and holds it half a second, so that
-- the sampler sees the private memory it takes (memprobe.sample_interval is 100ms in
-- test-servers/preload-small-buffers.conf)
CREATE FUNCTION lmm_sort() RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT g, g + 1 AS h FROM generate_series(1, 500000) g ORDER BY g DESC LOOP
    PERFORM pg_sleep(0.5);
    RETURN r.g;
  END LOOP;
END $$;
SELECT sum(h) FROM (SELECT g, g + 1 AS h FROM generate_series(1, 500000) g ORDER BY g DESC OFFSET 0) s;

-- on at 10MB: small statements log nothing (in a fresh session, whose private memory is small)
\c
SET client_min_messages = log;
SET max_parallel_workers_per_gather = 0;
SET work_mem = '64MB';
\set VERBOSITY sqlstate
SET memprobe.log_min_memory = '10MB';
SHOW memprobe.log_min_memory;
SELECT 1 + 1 AS two;
SELECT count(*) FROM generate_series(1, 1000);
SELECT sum(g) FROM (SELECT g FROM generate_series(1, 1000) g ORDER BY g DESC OFFSET 0) s;
-- the sort: one line
SELECT sum(h) FROM (SELECT g, g + 1 AS h FROM generate_series(1, 500000) g ORDER BY g DESC OFFSET 0) s;
-- a statement that fails after its sort: its error, then its line
SELECT sum(1 / (g - 1)) FROM (SELECT g, g + 1 AS h FROM generate_series(1, 500000) g ORDER BY g DESC OFFSET 0) s;
-- in a function: the client's statement holds little executor memory (the nested statement's
-- is not its own), but the sampler saw its backend's private memory: one line.  With
-- memprobe.track = all its nested statements are judged too, each by its own executor memory
-- alone (the private figure it carries is its client statement's so far): the sort logs, the
-- pg_sleep call does not; then the client's statement
SELECT lmm_sort();
SET memprobe.track = 'all';
SELECT lmm_sort();
RESET memprobe.track;
-- logging is reporting: memprobe.observe_only does not stop it
SET memprobe.observe_only = on;
SELECT sum(h) FROM (SELECT g, g + 1 AS h FROM generate_series(1, 500000) g ORDER BY g DESC OFFSET 0) s;
RESET memprobe.observe_only;
-- 0 logs every statement (utility statements are not executions: SET logs nothing)
SET memprobe.log_min_memory = 0;
SELECT 1 + 1 AS two;
RESET memprobe.log_min_memory;
SELECT 1 + 1 AS two;

-- superusers only, as log_temp_files: a role cannot set it for itself; a superuser can for it
\set VERBOSITY default
RESET client_min_messages;
CREATE ROLE regress_lmm_user;
SET ROLE regress_lmm_user;
SET memprobe.log_min_memory = '10MB';
SHOW memprobe.log_min_memory;
RESET ROLE;
ALTER ROLE regress_lmm_user SET memprobe.log_min_memory = '10MB';
SELECT unnest(setconfig) FROM pg_db_role_setting
 WHERE setrole = 'regress_lmm_user'::regrole;
DROP ROLE regress_lmm_user;
DROP FUNCTION lmm_sort();
