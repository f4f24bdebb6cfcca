/*-------------------------------------------------------------------------
 *
 * memprobe.c
 *	  Module entry point: _PG_init calls each subsystem's init function and
 *	  does nothing else.
 *
 * memprobe is meant to be loaded through shared_preload_libraries.  Its
 * planner and executor hooks are installed only then, as
 * pg_stat_statements installs its hooks: a library loaded later in one
 * backend (CREATE EXTENSION's first function call, LOAD) would otherwise
 * change the plans of that backend alone, from the middle of its life.
 * Loaded on demand, memprobe gives its reporting functions, which need no
 * hook, and defines all its settings, so that configuration naming them is
 * valid either way; the executor settings then change nothing.
 *
 * Each subsystem (one file per capability under src/) owns its GUCs and
 * hooks; every hook it installs keeps and calls the previous one.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/guc.h"

#include "compat.h"
#include "alloc_bench.h"
#include "backends.h"
#include "injection.h"
#include "material.h"
#include "statements.h"
#include "stores.h"
#include "explain_storage.h"
#include "streamscan.h"

MEMPROBE_MODULE_MAGIC;

void		_PG_init(void);

void
_PG_init(void)
{
	injection_init();
	alloc_bench_init();
	material_init();
	streamscan_init();
	statements_init();
	backends_init();
	stores_init();
	explain_storage_init();

	MarkGUCPrefixReserved("memprobe");

	if (!process_shared_preload_libraries_in_progress)
		return;

	material_install_hooks();
	streamscan_install_hooks();
	statements_install_hooks();
	backends_install_hooks();
	stores_install_hooks();
	explain_storage_install_hooks();
}
