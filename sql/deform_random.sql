--
-- memprobe_deform() against core's tuple deformation on random tuples (test builds only:
-- src/testing/deform_check.c).  Each call builds random tuple descriptors and tuples from its seed,
-- deforms every tuple with core and with memprobe's slot (one column at a time, all columns,
-- random steps, a random prefix), and stops at the first difference with an error naming the
-- seed and the tuple.  It returns how many deformations it compared: at least four per tuple.
--
CREATE FUNCTION memprobe_test_deform(seed int8, ntuples int4) RETURNS int8
AS '$libdir/memprobe', 'memprobe_test_deform' LANGUAGE C STRICT;

-- 100000 tuples
SELECT seed, memprobe_test_deform(seed, 10000) >= 4 * 10000 AS ok
FROM unnest(ARRAY[1, 2, 3, 4, 5, 42, 1000003, -7, -9223372036854775808,
                  9223372036854775807]::int8[]) AS seed;

-- the same arguments, the same tuples
SELECT memprobe_test_deform(6, 2000) = memprobe_test_deform(6, 2000) AS reproducible;

SELECT memprobe_test_deform(6, 0);
SELECT memprobe_test_deform(6, -1);

DROP FUNCTION memprobe_test_deform(int8, int4);
