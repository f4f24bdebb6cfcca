/*-------------------------------------------------------------------------
 *
 * memprobe.c
 *	  Module entry point: _PG_init calls each subsystem's init function and
 *	  does nothing else.
 *
 * memprobe is meant to be loaded through shared_preload_libraries: the
 * executor and planner features of later releases install hooks and request
 * shared memory, which only a preloaded library can do.  Loaded on demand
 * instead (CREATE EXTENSION on a server without the setting), the reporting
 * functions that need neither still work.
 *
 * Each subsystem (one file per capability under src/) owns its GUCs and
 * hooks; every hook it installs keeps and calls the previous one.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/guc.h"

#include "alloc_bench.h"
#include "material.h"
#include "streamscan.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

void
_PG_init(void)
{
	alloc_bench_init();
	material_init();
	streamscan_init();

	MarkGUCPrefixReserved("memprobe");
}
