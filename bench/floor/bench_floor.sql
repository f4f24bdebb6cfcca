-- bench/run creates this in its database (bench/floor/bench_floor.c says what it measures)
CREATE OR REPLACE FUNCTION memprobe_floor(rel regclass, passes int DEFAULT 7,
    OUT pages bigint, OUT best_ms float8, OUT median_ms float8, OUT gb_per_s float8,
    OUT memory_best_ms float8, OUT memory_median_ms float8, OUT memory_gb_per_s float8)
  AS '$libdir/bench_floor', 'memprobe_floor' LANGUAGE C STRICT;
