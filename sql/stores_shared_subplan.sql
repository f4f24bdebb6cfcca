--
-- A sub plan shared by several SubPlans: a correlated sub-select in the
-- WHERE clause of a query on a partitioned table is copied into each
-- partition's filter, and every copy runs the one sub plan.  A CTE Scan, a
-- Recursive Union or a WindowAgg in it must be tracked once, with one tuple
-- context, and EXPLAIN ANALYZE must show what the same query shows on an
-- unpartitioned table (one copy).  On PostgreSQL 18 core prints the Storage
-- line, there is no Tuple Context line and memprobe makes no context: the
-- comparisons hold all the same.
--
SET memprobe.enable_streamscan = off;
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SET work_mem = '4MB';

CREATE TABLE ssp (k int, v int) PARTITION BY LIST (k);
CREATE TABLE ssp1 PARTITION OF ssp FOR VALUES IN (1);
CREATE TABLE ssp2 PARTITION OF ssp FOR VALUES IN (2);
CREATE TABLE ssp3 PARTITION OF ssp FOR VALUES IN (3);
CREATE TABLE ssp4 PARTITION OF ssp FOR VALUES IN (4);
INSERT INTO ssp SELECT g % 4 + 1, g FROM generate_series(1, 8) g;
CREATE TABLE ssu AS SELECT * FROM ssp;
-- ~1MB of ~1kB rows for the stores
CREATE TABLE ssb (id int, b text);
INSERT INTO ssb SELECT g, repeat('b', 1000) FROM generate_series(1, 1000) g;
ANALYZE ssp, ssu, ssb;

-- EXPLAIN ANALYZE of q (%s: the table): how many filters run the SubPlan, and the first node named
-- node's Maximum Storage and Peak Memory Held (NULL where not printed)
CREATE FUNCTION ss_figures(q text, tab text, node text, OUT copies int, OUT max_kb int, OUT held_kb int)
LANGUAGE plpgsql AS $$
DECLARE
  line text;
  in_node bool := false;
BEGIN
  copies := 0;
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || format(q, tab) LOOP
    IF line ~ 'Filter: .*SubPlan' THEN
      copies := copies + 1;
    END IF;
    IF line ~ '->  ' THEN
      in_node := max_kb IS NULL AND substring(line from '->  (.*)$') ~ ('^' || node);
    ELSIF in_node AND line ~ 'Maximum Storage: ' THEN
      max_kb := substring(line from 'Maximum Storage: (\d+)kB')::int;
    ELSIF in_node AND line ~ 'Peak Memory Held: ' THEN
      held_kb := substring(line from 'Peak Memory Held: (\d+)kB')::int;
    END IF;
  END LOOP;
END $$;

-- The figures of node in q on the partitioned table (shared) against the unpartitioned one
-- (unshared): the shared SubPlan runs in every partition's filter, the store holds ~1MB, and
-- shared reports at least 90% of unshared (Maximum Storage; Peak Memory Held when printed).
CREATE FUNCTION ss_compare(q text, node text)
RETURNS TABLE (shared_copies int, unshared_copies int, sizable bool, max_storage_same bool,
               peak_held_same bool)
LANGUAGE sql AS $$
  SELECT s.copies, u.copies, u.max_kb >= 500,
         s.max_kb >= 0.9 * u.max_kb,
         CASE WHEN u.held_kb IS NULL THEN s.held_kb IS NULL ELSE s.held_kb >= 0.9 * u.held_kb END
    FROM ss_figures(q, 'ssp', node) s, ss_figures(q, 'ssu', node) u
$$;

-- a CTE (MATERIALIZED) read in the sub-select: filled once, rewound by each run
SELECT * FROM ss_compare($$SELECT count(*) FROM %s t
                           WHERE t.v <= (WITH c AS MATERIALIZED (SELECT id, b FROM ssb)
                                         SELECT count(*) FROM c WHERE length(c.b) > t.v)$$,
                         'CTE Scan');

-- a recursive CTE: its Recursive Union's working and intermediate tables, and the CTE's store
SELECT * FROM ss_compare($$SELECT count(*) FROM %s t
                           WHERE t.v <= (WITH RECURSIVE r(i, n, b) AS
                                           (SELECT id, 1, b FROM ssb WHERE id <= 300
                                            UNION ALL SELECT i, n + 1, b FROM r WHERE n < 3)
                                         SELECT count(*) FROM r WHERE n > mod(t.v, 2))$$,
                         'Recursive Union');
SELECT * FROM ss_compare($$SELECT count(*) FROM %s t
                           WHERE t.v <= (WITH RECURSIVE r(i, n, b) AS
                                           (SELECT id, 1, b FROM ssb WHERE id <= 300
                                            UNION ALL SELECT i, n + 1, b FROM r WHERE n < 3)
                                         SELECT count(*) FROM r WHERE n > mod(t.v, 2))$$,
                         'CTE Scan');

-- a WindowAgg whose store is made again by each run (its input depends on the outer row)
SELECT * FROM ss_compare($$SELECT count(*) FROM %s t
                           WHERE t.v <= (SELECT max(s) FROM
                                          (SELECT sum(length(b)) OVER (ORDER BY id ROWS BETWEEN
                                                    UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) s
                                             FROM ssb WHERE id > t.v) w)$$,
                         'WindowAgg');

-- One tuple context per node, shared or not: counted from inside the query (an InitPlan reads
-- memprobe_contexts), as many on the partitioned table as on the unpartitioned one, and at most
-- three (the two CTEs' stores and the Recursive Union's tables; none on 18).
CREATE FUNCTION ss_contexts(tab text) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  n bigint;
BEGIN
  EXECUTE format($q$
    SELECT (SELECT count(*) FROM memprobe_contexts
             WHERE name IN ('memprobe CTE tuples', 'memprobe Recursive Union tuples'))
      FROM %s t
     WHERE t.v <= (WITH RECURSIVE r(i, n, b) AS
                     (SELECT id, 1, b FROM ssb WHERE id <= 300
                      UNION ALL SELECT i, n + 1, b FROM r WHERE n < 3)
                   SELECT count(*) FROM r WHERE n > mod(t.v, 2))
       AND t.v <= (WITH c AS MATERIALIZED (SELECT id, b FROM ssb)
                   SELECT count(*) FROM c WHERE length(c.b) > t.v)
     LIMIT 1$q$, tab) INTO n;
  RETURN n;
END $$;
SELECT shared = unshared AS same_contexts, shared <= 3 AS one_per_node
  FROM (SELECT ss_contexts('ssp') AS shared, ss_contexts('ssu') AS unshared) c;

DROP FUNCTION ss_contexts(text);
DROP FUNCTION ss_compare(text, text);
DROP FUNCTION ss_figures(text, text, text);
DROP TABLE ssp, ssu, ssb;
