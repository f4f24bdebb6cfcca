--
-- The library says which module and version it is.  On PostgreSQL 18 its magic block carries both
-- (PG_MODULE_MAGIC_EXT), as pg_get_loaded_modules() shows; the version is the control file's
-- default_version, the one CREATE EXTENSION installs.  15 and 17 have no such function
-- (module_version_1.out).
--
SELECT module_name,
       version = (SELECT default_version FROM pg_available_extensions WHERE name = 'memprobe')
         AS is_default_version,
       file_name
  FROM pg_get_loaded_modules() WHERE file_name LIKE 'memprobe%';
