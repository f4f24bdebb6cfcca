--
-- Tuple stores of WindowAgg, CTE Scan, Recursive Union and Function Scan in
-- a Generation context (memprobe.enable_stores; PostgreSQL 15 and 17, a
-- no-op on 18).  Table Function Scan: stores_tablefunc.
-- Every query runs with the setting on and off and must return the same
-- rows; the seed's window case shows the store staying in memory with it on
-- where core's spills.
--
SET memprobe.enable_streamscan = off;
SET max_parallel_workers_per_gather = 0;
SET jit = off;

CREATE TABLE sw (id int, grp int, v numeric, b text);
INSERT INTO sw SELECT g, g % 37, (g * 7919) % 1000 / 10.0, repeat(chr(65 + g % 26), 1024)
  FROM generate_series(1, 3000) g;
ANALYZE sw;

-- Run q with memprobe.enable_stores on and off (at work_mem wm) and compare the two results as
-- multisets: returns the row count and whether they are the same.
CREATE FUNCTION st_same(q text, wm text DEFAULT '4MB', OUT nrows bigint, OUT same bool)
LANGUAGE plpgsql AS $$
DECLARE
  n_diff bigint;
BEGIN
  PERFORM set_config('work_mem', wm, true);
  PERFORM set_config('memprobe.enable_stores', 'on', true);
  EXECUTE 'CREATE TEMP TABLE st_on AS ' || q;
  PERFORM set_config('memprobe.enable_stores', 'off', true);
  EXECUTE 'CREATE TEMP TABLE st_off AS ' || q;
  PERFORM set_config('memprobe.enable_stores', 'on', true);
  EXECUTE 'SELECT count(*) FROM st_on' INTO nrows;
  EXECUTE '(SELECT count(*) FROM ((TABLE st_on EXCEPT ALL TABLE st_off) UNION ALL
                                   (TABLE st_off EXCEPT ALL TABLE st_on)) d)' INTO n_diff;
  same := n_diff = 0 AND nrows = (SELECT count(*) FROM st_off);
  DROP TABLE st_on, st_off;
END $$;

-- window frames with offsets, in memory (4MB) and spilling (64kB), many partitions
SELECT * FROM st_same($$SELECT id, sum(v) OVER (PARTITION BY grp ORDER BY id ROWS BETWEEN 2 PRECEDING AND 3 FOLLOWING) FROM sw$$);
SELECT * FROM st_same($$SELECT id, sum(v) OVER (PARTITION BY grp ORDER BY id ROWS BETWEEN 2 PRECEDING AND 3 FOLLOWING) FROM sw$$, '64kB');
SELECT * FROM st_same($$SELECT id, count(*) OVER (ORDER BY v RANGE BETWEEN 5 PRECEDING AND 5 FOLLOWING), length(b) FROM sw$$, '64kB');
SELECT * FROM st_same($$SELECT id, sum(id) OVER (ORDER BY v GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW) FROM sw$$, '64kB');
SELECT * FROM st_same($$SELECT id, sum(id) OVER (ORDER BY v GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE GROUP) FROM sw$$);
SELECT * FROM st_same($$SELECT id, sum(id) OVER (ORDER BY v RANGE BETWEEN 1 PRECEDING AND CURRENT ROW EXCLUDE TIES) FROM sw$$, '64kB');
SELECT * FROM st_same($$SELECT id, lag(b, 800) OVER (ORDER BY id) IS NULL, lead(id, 50) OVER w, first_value(id) OVER w,
                              last_value(id) OVER w, nth_value(id, 3) OVER w, ntile(7) OVER w, rank() OVER w
                         FROM sw WINDOW w AS (PARTITION BY grp ORDER BY v, id ROWS BETWEEN 10 PRECEDING AND UNBOUNDED FOLLOWING)$$, '1MB');
SELECT * FROM st_same($$SELECT id, sum(id) OVER (PARTITION BY id % 1000), avg(v) OVER () FROM sw$$, '64kB');
-- rescans with changed parameters: a window in a LATERAL subquery
SELECT * FROM st_same($$SELECT o.g, s.* FROM generate_series(1, 30) o(g),
                         LATERAL (SELECT id, sum(v) OVER (ORDER BY id ROWS 3 PRECEDING) FROM sw WHERE grp = o.g) s$$, '64kB');

-- CTEs: referenced several times (one store, several read pointers), rescanned in a subplan
SELECT * FROM st_same($$WITH c AS MATERIALIZED (SELECT id, grp, b FROM sw)
                        SELECT x.id AS x, y.id AS y, length(x.b) FROM c x JOIN c y ON x.id = y.id + 1 WHERE x.grp < 5$$, '64kB');
SELECT * FROM st_same($$WITH c AS MATERIALIZED (SELECT id, grp FROM sw)
                        SELECT g, (SELECT count(*) FROM c WHERE c.grp = g) FROM generate_series(1, 40) g$$);
SELECT * FROM st_same($$WITH c AS MATERIALIZED (SELECT id, b FROM sw ORDER BY id)
                        SELECT a.id AS a, b.id AS b FROM (SELECT id FROM c LIMIT 10) a, (SELECT id FROM c OFFSET 2990) b$$);

-- recursive CTEs, UNION ALL and UNION, in memory and spilling
SELECT * FROM st_same($$WITH RECURSIVE r(n, pad) AS (SELECT 1, repeat('x', 1024) UNION ALL SELECT n + 1, pad FROM r WHERE n < 2000)
                        SELECT n, length(pad) FROM r$$, '64kB');
SELECT * FROM st_same($$WITH RECURSIVE r(n, pad) AS (SELECT 1, repeat('x', 1024) UNION SELECT n % 500 + 1, pad FROM r)
                        SELECT n FROM r$$, '64kB');
SELECT * FROM st_same($$WITH RECURSIVE t(id, depth) AS (SELECT id, 0 FROM sw WHERE id <= 10
                          UNION ALL SELECT sw.id, t.depth + 1 FROM t JOIN sw ON sw.id = t.id * 2 WHERE t.depth < 8)
                        SELECT * FROM t$$);

-- The seed's case, scaled: lag over 1kB rows (1044-byte tuples) at work_mem 1MB.  With stores
-- on the store stays in memory (800 such rows fit in 1MB, trimmed as it goes); core's rounds
-- each tuple up to a 2kB chunk, spills, and then spools the whole table to disk.  (On 18 core
-- does what memprobe does: no spill either way.)
CREATE VIEW st_seed AS
  SELECT node_peak_type, spilled_calls > 0 AS spilled, temp_bytes_written > 0 AS wrote_temp,
         node_peak_bytes BETWEEN 800 * 1044 AND 1024 * 1024 AS peak_800_rows
    FROM memprobe_statements WHERE query LIKE 'SELECT count(l)%';
SET work_mem = '1MB';
SELECT memprobe_statements_reset() IS NOT NULL AS t;
SET memprobe.enable_stores = on;
SELECT count(l) FROM (SELECT lag(b, 800) OVER () AS l FROM sw LIMIT 1600) s;
SELECT * FROM st_seed;
SELECT memprobe_statements_reset() IS NOT NULL AS t;
SET memprobe.enable_stores = off;
SELECT count(l) FROM (SELECT lag(b, 800) OVER () AS l FROM sw LIMIT 1600) s;
SELECT * FROM st_seed;
RESET work_mem;
RESET memprobe.enable_stores;
DROP VIEW st_seed;

-- CTE Scan and Recursive Union: with stores on their tuples are in the node's own context,
-- seen from inside the query (memprobe_contexts, read by an InitPlan once the CTE has been read),
-- and at work_mem 4MB 3000 1kB rows fit (~3.2MB), where core's take 2kB each and spill.
CREATE VIEW st_spills AS
  SELECT spilled_calls > 0 AS spilled FROM memprobe_statements WHERE query ~ 'FROM (c|r)\M';
SET work_mem = '4MB';
SELECT memprobe_statements_reset() IS NOT NULL AS t;
WITH c AS MATERIALIZED (SELECT id, b FROM sw)
  SELECT count(*), sum(length(b)),
         (SELECT sum(total_bytes) FROM memprobe_contexts WHERE name = 'memprobe CTE tuples') > 3000 * 1044 AS in_cte_context
    FROM c;
SELECT * FROM st_spills;
SELECT memprobe_statements_reset() IS NOT NULL AS t;
WITH RECURSIVE r(i, n, b) AS (SELECT id, 1, b FROM sw WHERE id <= 1000 UNION ALL SELECT i, n + 1, b FROM r WHERE n < 2)
  SELECT count(*), sum(length(b)),
         (SELECT sum(total_bytes) FROM memprobe_contexts
           WHERE name = 'memprobe Recursive Union tuples') > 1000 * 1044 AS in_recursive_union_context
    FROM r;
SELECT * FROM st_spills;
SET memprobe.enable_stores = off;
SELECT memprobe_statements_reset() IS NOT NULL AS t;
WITH c AS MATERIALIZED (SELECT id, b FROM sw)
  SELECT count(*), sum(length(b)),
         (SELECT sum(total_bytes) FROM memprobe_contexts WHERE name = 'memprobe CTE tuples') > 3000 * 1044 AS in_cte_context
    FROM c;
SELECT * FROM st_spills;
SELECT memprobe_statements_reset() IS NOT NULL AS t;
WITH RECURSIVE r(i, n, b) AS (SELECT id, 1, b FROM sw WHERE id <= 1000 UNION ALL SELECT i, n + 1, b FROM r WHERE n < 2)
  SELECT count(*), sum(length(b)),
         (SELECT sum(total_bytes) FROM memprobe_contexts
           WHERE name = 'memprobe Recursive Union tuples') > 1000 * 1044 AS in_recursive_union_context
    FROM r;
SELECT * FROM st_spills;
RESET memprobe.enable_stores;
RESET work_mem;
DROP VIEW st_spills;

-- SCROLL cursor over a CTE read twice, spilling: backward fetches, on and off
SET work_mem = '64kB';
BEGIN;
DECLARE cte_on SCROLL CURSOR FOR
  WITH c AS MATERIALIZED (SELECT id, length(b) AS l FROM sw WHERE id <= 300)
  SELECT x.id, x.l, (SELECT count(*) FROM c y WHERE y.id <= x.id) FROM c x;
FETCH ABSOLUTE 250 FROM cte_on;
FETCH BACKWARD 2 FROM cte_on;
SET LOCAL memprobe.enable_stores = off;
DECLARE cte_off SCROLL CURSOR FOR
  WITH c AS MATERIALIZED (SELECT id, length(b) AS l FROM sw WHERE id <= 300)
  SELECT x.id, x.l, (SELECT count(*) FROM c y WHERE y.id <= x.id) FROM c x;
FETCH ABSOLUTE 250 FROM cte_off;
FETCH BACKWARD 2 FROM cte_off;
COMMIT;
RESET work_mem;

-- SCROLL cursor over a window query: backward and absolute fetches, on and off
SET work_mem = '64kB';
BEGIN;
DECLARE cur_on SCROLL CURSOR FOR
  SELECT id, sum(id) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND 5 FOLLOWING), length(b) FROM sw WHERE id <= 500;
FETCH 3 FROM cur_on;
FETCH ABSOLUTE 400 FROM cur_on;
FETCH BACKWARD 3 FROM cur_on;
FETCH LAST FROM cur_on;
FETCH ABSOLUTE 2 FROM cur_on;
SET LOCAL memprobe.enable_stores = off;
DECLARE cur_off SCROLL CURSOR FOR
  SELECT id, sum(id) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND 5 FOLLOWING), length(b) FROM sw WHERE id <= 500;
FETCH 3 FROM cur_off;
FETCH ABSOLUTE 400 FROM cur_off;
FETCH BACKWARD 3 FROM cur_off;
FETCH LAST FROM cur_off;
FETCH ABSOLUTE 2 FROM cur_off;
COMMIT;
RESET work_mem;

-- Function Scan: value-per-call (generate_series), materialize mode (PL/pgSQL, SQL), several
-- functions with ordinality; a store made once and rewound by rescans (inner of a nested loop,
-- no parameters); lateral calls with parameters (made again per row: left to core).
CREATE FUNCTION st_srf_plpgsql(n int) RETURNS SETOF text LANGUAGE plpgsql AS
  $$BEGIN FOR i IN 1..n LOOP RETURN NEXT repeat(chr(65 + i % 26), 1100 + i % 7); END LOOP; END$$;
-- (two statements: not inlined, so a Function Scan of a SQL function in materialize mode)
CREATE FUNCTION st_srf_sql(n int) RETURNS TABLE (i int, b text) LANGUAGE sql AS
  $$SELECT; SELECT g, repeat('s', 1000 + g % 3) FROM generate_series(1, n) g$$;
SELECT * FROM st_same($$SELECT g, g * 2 FROM generate_series(1, 20000) g$$, '64kB');
SELECT * FROM st_same($$SELECT * FROM st_srf_plpgsql(2000) WITH ORDINALITY$$, '64kB');
SELECT * FROM st_same($$SELECT * FROM st_srf_sql(2000)$$, '1MB');
SELECT * FROM st_same($$SELECT * FROM ROWS FROM (generate_series(1, 3000), st_srf_sql(1000), st_srf_plpgsql(10))
                          WITH ORDINALITY$$, '64kB');
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SELECT * FROM st_same($$SELECT sw.id, f.i, length(f.b) FROM sw, st_srf_sql(40) f WHERE f.i = sw.grp$$, '64kB');
SELECT * FROM st_same($$SELECT o.g, f.i FROM generate_series(1, 60) o(g), LATERAL st_srf_sql(o.g) f$$, '64kB');
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;

-- 3000 rows of ~1.1kB from a PL/pgSQL function at work_mem 4MB: with stores on they stay in the
-- node's own context (read from inside the query) and in memory; core's take 2kB each and spill.
CREATE VIEW st_fn_spills AS
  SELECT temp_bytes_written > 0 AS wrote_temp FROM memprobe_statements WHERE query LIKE 'SELECT count(*), sum(length(t))%';
SET work_mem = '4MB';
SELECT memprobe_statements_reset() IS NOT NULL AS t;
SELECT count(*), sum(length(t)),
       (SELECT sum(total_bytes) FROM memprobe_contexts
         WHERE name = 'memprobe Function Scan tuples') > 3000 * 1100 AS in_function_scan_context
  FROM st_srf_plpgsql(3000) t;
SELECT * FROM st_fn_spills;
SET memprobe.enable_stores = off;
SELECT memprobe_statements_reset() IS NOT NULL AS t;
SELECT count(*), sum(length(t)),
       (SELECT sum(total_bytes) FROM memprobe_contexts
         WHERE name = 'memprobe Function Scan tuples') > 3000 * 1100 AS in_function_scan_context
  FROM st_srf_plpgsql(3000) t;
SELECT * FROM st_fn_spills;
RESET memprobe.enable_stores;
RESET work_mem;
DROP VIEW st_fn_spills;
-- a Function Scan under a WindowAgg, and as a CTE's plan: both nodes' stores are memprobe's
SET work_mem = '8MB';
SELECT max(c) AS rows,
       bool_and(in_fn) AS in_function_scan_context, bool_and(in_win) AS in_window_context
  FROM (SELECT count(t) OVER () c,
               (SELECT sum(total_bytes) FROM memprobe_contexts
                 WHERE name = 'memprobe Function Scan tuples') > 3000 * 1100 AS in_fn,
               (SELECT sum(total_bytes) FROM memprobe_contexts
                 WHERE name = 'memprobe WindowAgg tuples') > 3000 * 1100 AS in_win
          FROM st_srf_plpgsql(3000) t) s;
WITH c AS MATERIALIZED (SELECT t FROM st_srf_plpgsql(3000) t)
  SELECT count(*),
         (SELECT sum(total_bytes) FROM memprobe_contexts
           WHERE name = 'memprobe Function Scan tuples') > 3000 * 1100 AS in_function_scan_context,
         (SELECT sum(total_bytes) FROM memprobe_contexts
           WHERE name = 'memprobe CTE tuples') > 3000 * 1100 AS in_cte_context
    FROM c;
RESET work_mem;
-- a lateral call is made again per outer row: its store stays core's (the small Function Scan
-- contexts are the outer generate_series' and memprobe_contexts' own)
SELECT count(*), bool_or(in_context) AS any_big_function_scan_context
  FROM generate_series(1, 3) o(g),
       LATERAL (SELECT EXISTS (SELECT FROM memprobe_contexts WHERE name = 'memprobe Function Scan tuples'
                                  AND total_bytes > 150 * 1000) AS in_context
                  FROM st_srf_sql(o.g * 200) f LIMIT 1) s;

-- SCROLL cursor over a spilling function scan (a random-access store): on and off
SET work_mem = '64kB';
BEGIN;
DECLARE fn_on SCROLL CURSOR FOR SELECT i, length(b) FROM st_srf_sql(300);
FETCH ABSOLUTE 250 FROM fn_on;
FETCH BACKWARD 2 FROM fn_on;
FETCH FIRST FROM fn_on;
SET LOCAL memprobe.enable_stores = off;
DECLARE fn_off SCROLL CURSOR FOR SELECT i, length(b) FROM st_srf_sql(300);
FETCH ABSOLUTE 250 FROM fn_off;
FETCH BACKWARD 2 FROM fn_off;
FETCH FIRST FROM fn_off;
COMMIT;
RESET work_mem;

-- Errors and cancels mid-way leave no context and no temp file behind.
CREATE FUNCTION st_tmp_files() RETURNS bigint LANGUAGE sql AS
  $$SELECT count(*) FROM pg_ls_tmpdir()$$;
SET work_mem = '64kB';
SELECT id, sum(id) OVER (ORDER BY id ROWS 100 PRECEDING), 1 / (2500 - id) FROM sw;
SET statement_timeout = '200ms';
SELECT count(*) FROM (SELECT id, sum(id) OVER (ORDER BY id ROWS 100 PRECEDING), pg_sleep(0.001) FROM sw) s;
RESET statement_timeout;
WITH RECURSIVE r(n, pad) AS (SELECT 1, repeat('x', 1024) UNION ALL SELECT n + 1, pad FROM r WHERE 1 / (1500 - n) > 0)
  SELECT count(*) FROM r;
CREATE FUNCTION st_srf_fails(n int) RETURNS SETOF text LANGUAGE plpgsql AS
  $$BEGIN FOR i IN 1..n LOOP RETURN NEXT repeat('e', 1000) || (1 / (n - 100 - i)); END LOOP; END$$;
SELECT count(*) FROM st_srf_fails(400);
CREATE FUNCTION st_srf_slow(n int) RETURNS SETOF text LANGUAGE plpgsql AS
  $$BEGIN FOR i IN 1..n LOOP PERFORM pg_sleep(0.001); RETURN NEXT repeat('s', 1000); END LOOP; END$$;
SET statement_timeout = '300ms';
-- (terse: where in the function the timeout lands, and so its context, is a matter of timing)
\set VERBOSITY terse
SELECT count(*) FROM st_srf_slow(100000);
\set VERBOSITY default
RESET statement_timeout;
RESET work_mem;
-- (the Function Scan this query reads memprobe_contexts through is its own)
SELECT count(*) AS store_contexts FROM memprobe_contexts
  WHERE name ~ '^memprobe .* tuples$' AND name <> 'memprobe Function Scan tuples';
SELECT count(*) AS function_scan_contexts FROM memprobe_contexts WHERE name = 'memprobe Function Scan tuples';
SELECT st_tmp_files() AS temp_files;

DROP FUNCTION st_tmp_files();
DROP FUNCTION st_srf_plpgsql(int);
DROP FUNCTION st_srf_sql(int);
DROP FUNCTION st_srf_fails(int);
DROP FUNCTION st_srf_slow(int);
DROP FUNCTION st_same(text, text);
DROP TABLE sw;
