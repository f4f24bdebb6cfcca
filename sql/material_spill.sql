--
-- GenMaterial never spills where core's Material does not, and never writes
-- more temp blocks.  A merge join's inner Material must hold a whole group
-- of equal keys while the join rescans it; at work_mem = 64kB, whether the
-- group fits depends on what each tuple is charged (GetMemoryChunkSpace).
-- For each tuple size, the test finds the largest group core's Material
-- (memprobe.enable_material = off) keeps in memory, then runs that group
-- and one more row with GenMaterial on and off.  The sizes are those of the
-- stored MinimalTuples: powers of two, where AllocSet's rounding costs
-- nothing and a Generation chunk's larger header (PostgreSQL 15) or its
-- sentinel byte (16 and later, with assertions) would cost more, sizes in
-- between, where Generation costs less, and one above 8kB.  The tuples reach
-- the Material from a Sort (minimal tuples), an index scan (heap tuples) and
-- an index scan that projects (virtual tuples).  On PostgreSQL 18 both runs
-- are core's Material and the output is the same.
--
CREATE SCHEMA material_spill;
SET search_path = material_spill, public;
SET memprobe.enable_streamscan = off;
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SET enable_hashjoin = off;
SET enable_nestloop = off;

-- The outer side: key 0 twice (the join reads the inner's group of zeros
-- twice, restoring to its mark), then 3 to 1000 once each.
CREATE TABLE ms_outer AS
  SELECT CASE WHEN g <= 2 THEN 0 ELSE g END AS k FROM generate_series(1, 1000) g;
CREATE INDEX ON ms_outer (k);
ANALYZE ms_outer;
-- The inner side for the index scans, refilled by ms_query().
CREATE TABLE ms_inner (k int, pad text) WITH (autovacuum_enabled = false);
CREATE INDEX ON ms_inner (k);

-- pad's length for a MinimalTuple of 'width' bytes holding (int, text): a
-- 16-byte header, the int, then the text with a 1-byte length header up to
-- 126 bytes, 4 bytes (int-aligned, so no padding here) beyond.
CREATE FUNCTION ms_pad(width int) RETURNS int
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN width - 21 <= 126 THEN width - 21 ELSE width - 24 END
$$;

-- The query for a group of n zeros, followed by 1200 more rows (enough for
-- the planner to expect a Sort larger than work_mem and put a Material on
-- it).  'sort': the inner is generated and sorted; 'index': read from
-- ms_inner through its index; 'projection': the same with pad computed by
-- the scan.  Refills ms_inner for the index sources.
CREATE FUNCTION ms_query(source text, width int, n int) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  rows text := format('SELECT CASE WHEN g <= %s THEN 0 ELSE g END AS k, '
                      'lpad(g::text, %s, ''x'') AS pad FROM generate_series(1, %s) g',
                      n, ms_pad(width), n + 1200);
  inner_q text;
BEGIN
  -- the index sources must not be sorted instead
  PERFORM set_config('enable_sort', (source = 'sort')::text, true);
  IF source = 'sort' THEN
    inner_q := rows || ' OFFSET 0';
  ELSE
    TRUNCATE ms_inner;
    EXECUTE 'INSERT INTO ms_inner ' || rows;
    inner_q := CASE source WHEN 'index' THEN 'SELECT k, pad'
                           ELSE 'SELECT k, pad || '''' AS pad' END
               || ' FROM ms_inner ORDER BY k OFFSET 0';
  END IF;
  RETURN format('SELECT count(*), sum(length(i.pad)) FROM ms_outer o '
                'JOIN (%s) i ON i.k = o.k', inner_q);
END $$;

-- The merge join's inner node of q run with memprobe.enable_material =
-- setting, with its own temp blocks written and read (its figures less its
-- child's) added as "Own Written" and "Own Read".
CREATE FUNCTION ms_inner_node(q text, setting text) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  plan jsonb;
  node jsonb;
BEGIN
  PERFORM set_config('memprobe.enable_material', setting, true);
  EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q
    INTO plan;
  PERFORM set_config('memprobe.enable_material', 'on', true);
  SELECT c INTO node FROM jsonb_path_query(plan, 'strict $.**') m,
                          jsonb_array_elements(m->'Plans') c
    WHERE m->>'Node Type' = 'Merge Join' AND c->>'Parent Relationship' = 'Inner';
  RETURN node || jsonb_build_object(
    'Own Written', (node->>'Temp Written Blocks')::bigint
                   - (node->'Plans'->0->>'Temp Written Blocks')::bigint,
    'Own Read', (node->>'Temp Read Blocks')::bigint
                - (node->'Plans'->0->>'Temp Read Blocks')::bigint);
END $$;

-- Does core's Material keep a group of n tuples of 'width' bytes in memory?
CREATE FUNCTION ms_core_fits(width int, n int) RETURNS bool
LANGUAGE plpgsql AS $$
BEGIN
  RETURN (ms_inner_node(ms_query('sort', width, n), 'off')->>'Own Written')::bigint = 0;
END $$;

-- The largest group core's Material keeps in memory (at least one row of
-- 'width' bytes fits in 64kB, and 2 * 64kB / width + 2 never do).
CREATE FUNCTION ms_core_limit(width int) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
  lo int := 1;
  hi int := 2 * 65536 / width + 2;
  mid int;
BEGIN
  IF NOT ms_core_fits(width, lo) OR ms_core_fits(width, hi) THEN
    RAISE EXCEPTION 'no limit between % and % rows of % bytes', lo, hi, width;
  END IF;
  WHILE hi - lo > 1 LOOP
    mid := (lo + hi) / 2;
    IF ms_core_fits(width, mid) THEN lo := mid; ELSE hi := mid; END IF;
  END LOOP;
  RETURN lo;
END $$;

-- With core's largest group (n) and one more row: is the inner memprobe's
-- node with the setting on (15, 17) and core's with it off, does GenMaterial
-- keep in memory what core keeps there (its Storage line says so too), and
-- does it write and read no more temp blocks than core?  Where a Generation
-- chunk is cheaper than an AllocSet chunk on every server and build
-- (gen_cheaper: 100, 200 and 1000 bytes), do the tuples still go to
-- Generation (on 15 and 17; null for the other sizes)?
CREATE FUNCTION ms_compare(src text, w int, n int, gen_cheaper bool)
RETURNS TABLE (source text, width int, inner_as_expected bool,
               memory_where_core_memory bool, no_more_temp_than_core bool,
               generation_where_cheaper bool)
LANGUAGE plpgsql AS $$
DECLARE
  substitutes bool := current_setting('server_version_num')::int < 180000;
  q text;
  node_on jsonb;
  node_off jsonb;
  rows int;
BEGIN
  inner_as_expected := true;
  memory_where_core_memory := true;
  no_more_temp_than_core := true;
  IF gen_cheaper THEN
    node_on := ms_inner_node(ms_query(src, w, n), 'on');
    generation_where_cheaper := NOT substitutes OR
                                node_on->>'Tuple Context' = 'Generation';
  END IF;
  FOREACH rows IN ARRAY ARRAY[n, n + 1] LOOP
    q := ms_query(src, w, rows);
    node_on := ms_inner_node(q, 'on');
    node_off := ms_inner_node(q, 'off');
    inner_as_expected := inner_as_expected AND
      node_off->>'Node Type' = 'Materialize' AND
      CASE WHEN substitutes THEN node_on->>'Custom Plan Provider' = 'MemprobeMaterial'
           ELSE node_on->>'Node Type' = 'Materialize' END AND
      node_on->>'Storage' = CASE WHEN (node_on->>'Own Written')::bigint > 0
                                 THEN 'Disk' ELSE 'Memory' END;
    IF (node_off->>'Own Written')::bigint = 0 THEN
      memory_where_core_memory := memory_where_core_memory AND
        node_on->>'Storage' = 'Memory';
    END IF;
    no_more_temp_than_core := no_more_temp_than_core AND
      (node_on->>'Own Written')::bigint <= (node_off->>'Own Written')::bigint AND
      (node_on->>'Own Read')::bigint <= (node_off->>'Own Read')::bigint;
  END LOOP;
  source := src;
  width := w;
  RETURN NEXT;
END $$;

SET work_mem = '64kB';

CREATE TABLE ms_limits AS
  SELECT width, ms_core_limit(width) AS n
  FROM unnest(ARRAY[100, 128, 200, 256, 1000, 1024, 12256]) width;

-- tuples from a Sort
SELECT c.* FROM ms_limits l,
                ms_compare('sort', l.width, l.n, l.width IN (100, 200, 1000)) c
  ORDER BY c.width;

-- tuples from an index scan (heap tuples) and from one that projects
-- (virtual tuples), at the sizes that fit a heap page uncompressed
SELECT c.* FROM ms_limits l, unnest(ARRAY['index', 'projection']) s,
                ms_compare(s, l.width, l.n, l.width IN (100, 200, 1000)) c
  WHERE l.width IN (128, 1000, 1024)
  ORDER BY c.source, c.width;

-- the node's contexts go with the query
SELECT count(*) AS leftover FROM memprobe_contexts
  WHERE name IN ('memprobe material tuples', 'memprobe material store');

RESET work_mem;
RESET enable_hashjoin;
RESET enable_nestloop;
RESET memprobe.enable_streamscan;
RESET max_parallel_workers_per_gather;
RESET jit;
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA material_spill CASCADE;
