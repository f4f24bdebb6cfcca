-- Install memprobe into the test database; later suites rely on it.
CREATE EXTENSION memprobe;
SELECT extname, extversion FROM pg_extension WHERE extname = 'memprobe';
-- preloaded by memprobe.conf
SHOW shared_preload_libraries;
