--
-- memprobe_contexts: PostgreSQL 18's pg_backend_memory_contexts columns on
-- every server version.
--
-- One snapshot, so that every check below sees the same tree.
CREATE TEMP TABLE ctx AS SELECT * FROM memprobe_contexts;

-- the columns and their types, as PostgreSQL 18 has them
SELECT attname, atttypid::regtype
FROM pg_attribute
WHERE attrelid = 'memprobe_contexts'::regclass AND attnum > 0
ORDER BY attnum;

-- TopMemoryContext is the only level-1 context, with id 1 (1-based levels)
SELECT name, ident, type, level, path FROM ctx WHERE level = 1;

-- level is the length of the path, and the last element is the context's id
SELECT count(*) AS bad_level FROM ctx WHERE level <> array_length(path, 1);
SELECT count(*) = count(DISTINCT path[level]) AS ids_unique FROM ctx;

-- every path starts at TopMemoryContext ...
SELECT count(*) AS not_from_top FROM ctx WHERE path[1] <> 1;

-- ... and every child's path extends its parent's
SELECT count(*) AS orphans
FROM ctx c
WHERE c.level > 1
  AND NOT EXISTS (SELECT 1 FROM ctx p
                  WHERE p.level = c.level - 1 AND p.path = c.path[1:c.level - 1]);

-- ids are assigned breadth-first, as PostgreSQL 18 does: a shallower context
-- always has a smaller id than a deeper one
SELECT count(*) AS depth_order_violations
FROM ctx a JOIN ctx b ON a.level < b.level
WHERE a.path[a.level] > b.path[b.level];

-- sizes are consistent
SELECT count(*) AS bad_sizes
FROM ctx
WHERE total_bytes <= 0 OR free_bytes < 0 OR free_bytes > total_bytes
   OR used_bytes <> total_bytes - free_bytes
   OR free_chunks < 0 OR total_nblocks < 0;

-- types of well-known contexts
SELECT DISTINCT name, type, level
FROM ctx
WHERE name IN ('TopMemoryContext', 'CacheMemoryContext', 'MessageContext',
               'TopTransactionContext', 'ExecutorState')
ORDER BY level, name;
SELECT count(*) AS unknown_types
FROM ctx WHERE type NOT IN ('AllocSet', 'Generation', 'Slab', 'Bump');

-- PostgreSQL 18's documented way of summing a subtree works: the
-- CacheMemoryContext subtree holds at least CacheMemoryContext itself, and the
-- whole tree holds everything
SELECT sum(c1.total_bytes) >= min(c2.total_bytes) AS subtree_sum_ok
FROM ctx c1, ctx c2
WHERE c2.name = 'CacheMemoryContext'
  AND c1.path[c2.level] = c2.path[c2.level];
SELECT (SELECT sum(total_bytes) FROM ctx c1
        WHERE c1.path[1] = 1) = (SELECT sum(total_bytes) FROM ctx) AS whole_tree_ok;

-- dynahash contexts are labelled with the hash table's name, as core does
SELECT count(*) AS dynahash_rows FROM ctx WHERE name = 'dynahash';

-- a context created during the transaction shows up with its type, size and
-- place in the tree, and is gone once the transaction ends ('hold' keeps the
-- benchmark's context until then)
BEGIN;
CREATE TEMP TABLE held AS
SELECT * FROM memprobe_alloc_bench('generation', 1040, 8192, 'hold');
SELECT c.name, c.type, p.name AS parent,
       c.total_bytes = h.peak_bytes AS bytes_match_bench,
       c.total_nblocks = h.blocks AS blocks_match_bench,
       c.used_bytes >= 8192 * 1040 AS holds_the_chunks
FROM memprobe_contexts c
JOIN memprobe_contexts p ON p.level = c.level - 1 AND p.path = c.path[1:c.level - 1]
CROSS JOIN held h
WHERE c.name = 'memprobe_alloc_bench';
COMMIT;
SELECT count(*) AS left_after_commit
FROM memprobe_contexts WHERE name LIKE 'memprobe_alloc_bench%';

BEGIN;
SELECT peak_bytes > 0 AS ran FROM memprobe_alloc_bench('slab', 64, 1000, 'hold');
SELECT name, type FROM memprobe_contexts WHERE name = 'memprobe_alloc_bench';
ROLLBACK;
SELECT count(*) AS left_after_rollback
FROM memprobe_contexts WHERE name LIKE 'memprobe_alloc_bench%';

-- long idents (the query string of a cached plan) are clipped to 1023 bytes
PREPARE long_query AS
-- aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
-- bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
-- cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc
-- dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd
-- eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee
-- ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff
-- gggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggg
-- hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh
-- iiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiii
SELECT 1;
SELECT name, octet_length(ident) AS ident_bytes, left(ident, 30) AS ident_start
FROM memprobe_contexts
WHERE name = 'CachedPlanSource' AND ident LIKE 'PREPARE long_query%';
DEALLOCATE long_query;
