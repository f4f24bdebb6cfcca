--
-- EXPLAIN ANALYZE's Storage line when a property value of the node spans lines: a string
-- constant with a newline goes on over the next output lines, and a continuation line may look
-- like what ends a node's properties ("Buffers: ", "WAL: ", "->  ", "CTE ").  On 15 and 17
-- memprobe places its lines from the plan (how many lines each of the node's own properties
-- takes), not from the text, so they come where 18 prints them: after the whole property.
-- kB, buffer counts and row counts are masked and memprobe's own Tuple Context line is left
-- out, so that the plans are the same on 15, 17 and 18 (on 18 they are core's own output).
--
SET memprobe.enable_streamscan = off;
SET max_parallel_workers_per_gather = 0;
SET jit = off;

CREATE TABLE esl (x text);
INSERT INTO esl SELECT 'v' || g FROM generate_series(1, 10) g;

-- 'a', a newline, indent spaces, the prefix, 'b'; one row holds each, so that the filter
-- removes one and "Rows Removed by Filter" follows the continuation lines
CREATE FUNCTION esl_lit(prefix text, indent int) RETURNS text LANGUAGE sql IMMUTABLE
AS $$ SELECT 'a' || chr(10) || repeat(' ', indent) || prefix || 'b' $$;
INSERT INTO esl SELECT esl_lit(p, 2) FROM unnest(ARRAY['Buffers: ', 'WAL: ', '->  ', 'CTE ']) p;
INSERT INTO esl VALUES (esl_lit('Buffers: ', 8));
ANALYZE esl;

-- EXPLAIN ANALYZE of q, masked
CREATE FUNCTION esl_explain(q text, with_buffers bool DEFAULT false, with_verbose bool DEFAULT false)
RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  line text;
  planning bool := false;
BEGIN
  FOR line IN EXECUTE format('EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS %s, VERBOSE %s) %s',
                             CASE WHEN with_buffers THEN 'on' ELSE 'off' END,
                             CASE WHEN with_verbose THEN 'on' ELSE 'off' END, q) LOOP
    planning := planning OR line = 'Planning:';
    CONTINUE WHEN planning OR line ~ '^\s*(Window: |Tuple Context: \w+  Peak Memory Held: \d+kB$)';
    line := regexp_replace(line, ' \(actual [^)]*\)', '');
    line := regexp_replace(line, 'Maximum Storage: \d+kB$', 'Maximum Storage: NkB');
    line := regexp_replace(line, '=\d+', '=N', 'g');
    -- 18 names the window (w1), 15 and 17 print (?)
    line := regexp_replace(line, 'OVER (\(\?\)|w\d+)', 'OVER w', 'g');
    RETURN NEXT line;
  END LOOP;
END $$;

-- a CTE Scan whose filter's constant has a line starting at the scan's property indentation
-- with each prefix, without and with BUFFERS: the lines come after the filter and its "Rows
-- Removed", before the node's Buffers line and its CTE
SELECT * FROM esl_explain(format('WITH c AS MATERIALIZED (SELECT x FROM esl) SELECT * FROM c WHERE x <> %L',
                                 esl_lit('Buffers: ', 2)));
SELECT * FROM esl_explain(format('WITH c AS MATERIALIZED (SELECT x FROM esl) SELECT * FROM c WHERE x <> %L',
                                 esl_lit('Buffers: ', 2)), true);
SELECT * FROM esl_explain(format('WITH c AS MATERIALIZED (SELECT x FROM esl) SELECT * FROM c WHERE x <> %L',
                                 esl_lit('WAL: ', 2)));
SELECT * FROM esl_explain(format('WITH c AS MATERIALIZED (SELECT x FROM esl) SELECT * FROM c WHERE x <> %L',
                                 esl_lit('WAL: ', 2)), true);
SELECT * FROM esl_explain(format('WITH c AS MATERIALIZED (SELECT x FROM esl) SELECT * FROM c WHERE x <> %L',
                                 esl_lit('->  ', 2)));
SELECT * FROM esl_explain(format('WITH c AS MATERIALIZED (SELECT x FROM esl) SELECT * FROM c WHERE x <> %L',
                                 esl_lit('->  ', 2)), true);
SELECT * FROM esl_explain(format('WITH c AS MATERIALIZED (SELECT x FROM esl) SELECT * FROM c WHERE x <> %L',
                                 esl_lit('CTE ', 2)));
SELECT * FROM esl_explain(format('WITH c AS MATERIALIZED (SELECT x FROM esl) SELECT * FROM c WHERE x <> %L',
                                 esl_lit('CTE ', 2)), true);

-- the CTE Scan below another node (properties indented 8)
SELECT * FROM esl_explain(format('WITH c AS MATERIALIZED (SELECT x FROM esl) SELECT count(*) FROM c WHERE x <> %L',
                                 esl_lit('Buffers: ', 8)), true);

-- VERBOSE: the constant in the Output line of a CTE Scan and of a WindowAgg (where it is the
-- child's column, named through the plan above it)
SELECT * FROM esl_explain(format('WITH c AS MATERIALIZED (SELECT x FROM esl) SELECT x || %L FROM c',
                                 esl_lit('Buffers: ', 2)), true, true);
SELECT * FROM esl_explain(format('SELECT x || %L, row_number() OVER () FROM esl',
                                 esl_lit('->  ', 2)), true, true);

-- the structured formats escape the newline: the same properties on the same nodes
CREATE FUNCTION esl_json(q text) RETURNS TABLE (node text, storage text, has_maximum bool)
LANGUAGE plpgsql AS $$
DECLARE
  doc json;
BEGIN
  EXECUTE format('EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS ON, FORMAT JSON) %s', q) INTO doc;
  RETURN QUERY SELECT n->>'Node Type', n->>'Storage', n ? 'Maximum Storage'
                 FROM jsonb_path_query(doc::jsonb, 'strict $.**') n
                WHERE jsonb_typeof(n) = 'object' AND n ? 'Node Type';
END $$;
SELECT * FROM esl_json(format('WITH c AS MATERIALIZED (SELECT x FROM esl) SELECT * FROM c WHERE x <> %L',
                              esl_lit('Buffers: ', 2)));
CREATE FUNCTION esl_xml(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  doc xml;
BEGIN
  EXECUTE format('EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS ON, FORMAT XML) %s', q) INTO doc;
  RETURN QUERY SELECT regexp_replace(line, '\d+', 'N', 'g')
                 FROM regexp_split_to_table(doc::text, '\n') line
                WHERE line ~ 'Node-Type|Storage|Filter';
END $$;
SELECT * FROM esl_xml(format('WITH c AS MATERIALIZED (SELECT x FROM esl) SELECT * FROM c WHERE x <> %L',
                             esl_lit('  <Shared-Hit-Blocks>1</Shared-Hit-Blocks>', 2)));

-- where memprobe cannot count a node's lines from the plan, it adds no lines to the output
-- (core's output on 15 and 17; 18 prints its own): a name with a newline (it may be shortened
-- to be unique, so its text is not known), a constant with a "->  " line in another node
CREATE FUNCTION esl_storage_lines(q text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  line text;
  n bigint := 0;
BEGIN
  FOR line IN EXECUTE format('EXPLAIN (ANALYZE, COSTS OFF) %s', q) LOOP
    IF line ~ '^\s*Storage: (Memory|Disk)  Maximum Storage: \d+kB$' THEN n := n + 1; END IF;
  END LOOP;
  RETURN n;
END $$;
CREATE VIEW esl_version AS SELECT current_setting('server_version_num')::int >= 180000 AS pg18;
SELECT esl_storage_lines(format('WITH %I AS MATERIALIZED (SELECT x FROM esl) SELECT * FROM %1$I WHERE x <> %L',
                                esl_lit('Buffers: ', 2), 'a'))
       = (CASE WHEN pg18 THEN 1 ELSE 0 END) AS name_spans_lines
  FROM esl_version;
SELECT esl_storage_lines(format('WITH c AS MATERIALIZED (SELECT x FROM esl WHERE x <> %L) SELECT * FROM c',
                                esl_lit('->  ', 6)))
       = (CASE WHEN pg18 THEN 1 ELSE 0 END) AS other_node_spans_lines
  FROM esl_version;
-- and with nothing spanning lines, the lines are there
SELECT esl_storage_lines('WITH c AS MATERIALIZED (SELECT x FROM esl) SELECT * FROM c WHERE x <> ''a''') AS plain;

DROP VIEW esl_version;
DROP FUNCTION esl_storage_lines(text);
DROP FUNCTION esl_xml(text);
DROP FUNCTION esl_json(text);
DROP FUNCTION esl_explain(text, bool, bool);
DROP FUNCTION esl_lit(text, int);
DROP TABLE esl;
