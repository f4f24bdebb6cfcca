--
-- The library names its build: memprobe_version() is the release's version (0.3.0) at the
-- release's commit and, for a build of any other commit, the release it follows, its distance
-- from the release, the commit's date and its hash (0.3.0+git4.20261207.077f156), or "+unknown"
-- for a tree that is neither a git clone nor carries .build-version (scripts/build-version).
-- It starts with the SQL version CREATE EXTENSION installs, which stays the control file's.
--
SELECT memprobe_version() ~ '^[0-9]+\.[0-9]+\.[0-9]+(\+(git[0-9]+\.[0-9]{8}\.[0-9a-f]{7,}(\.dirty)?|unknown))?$'
         AS well_formed,
       memprobe_version() LIKE
         (SELECT default_version FROM pg_available_extensions WHERE name = 'memprobe') || '.%'
         AS of_default_version,
       (SELECT extversion FROM pg_extension WHERE extname = 'memprobe') =
         (SELECT default_version FROM pg_available_extensions WHERE name = 'memprobe')
         AS extversion_is_sql_version;

--
-- On PostgreSQL 18 the magic block carries the module's name and the same version
-- (PG_MODULE_MAGIC_EXT), as pg_get_loaded_modules() shows.  15 and 17 have no such function
-- (module_version_1.out).
--
SELECT module_name, version = memprobe_version() AS is_build_version, file_name
  FROM pg_get_loaded_modules() WHERE file_name LIKE 'memprobe%';
