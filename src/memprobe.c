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
 * Each capability has a folder under src/: scan/ (StreamScan), store/ (tuple
 * stores in Generation contexts, EXPLAIN's Storage line) and report/ (memory
 * reporting); shared/ holds what several use, testing/ what only test builds
 * compile.  Includes run one way: report/ may read store/'s and scan/'s
 * per-node figures; scan/ and store/ include only themselves and shared/;
 * nothing includes this file (scripts/check-layout checks it).  Each file
 * owns its GUCs and hooks; every hook it installs keeps and calls the
 * previous one.  The planner, ExecutorStart and ExecutorEnd hooks, where
 * several capabilities work, are one function each in hooks.c.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "utils/builtins.h"
#include "utils/guc.h"

#include "build_version.h"

#include "shared/compat.h"
#include "shared/observe_only.h"
#include "report/alloc_bench.h"
#include "report/backends.h"
#include "shared/injection.h"
#include "store/material.h"
#include "guard/data_cap.h"
#include "guard/guard.h"
#include "guard/last_samples.h"
#include "guard/sampler.h"
#include "guard/statement_id.h"
#include "hooks.h"
#include "report/statements.h"
#include "store/stores.h"
#include "store/explain_storage.h"
#include "scan/streamscan.h"

MEMPROBE_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(memprobe_version);

PGDLLEXPORT void _PG_init(void);

static shmem_startup_hook_type prev_shmem_startup = NULL;

/*
 * One LOG line at server start naming the build (the version a DBA compares
 * with the package's) and the shared memory memprobe takes: its two
 * tables are sized by settings (memprobe.max and query_text_bytes;
 * max_connections and memprobe.publish_contexts), and a DBA should see what
 * they cost without adding it up.
 */
static void
memprobe_shmem_startup(void)
{
	Size		statements = statements_shmem_size();
	Size		backends = backends_shmem_size();
	Size		sampler = add_size(add_size(add_size(sampler_shmem_size(), guard_shmem_size()),
											add_size(last_samples_shmem_size(), data_cap_shmem_size())),
									   statement_id_shmem_size());

	if (prev_shmem_startup)
		prev_shmem_startup();
	if (!IsUnderPostmaster)
		ereport(LOG,
				errmsg("memprobe %s takes %zu kB of shared memory: memprobe_statements %zu kB, memprobe_backends %zu kB, the sampler %zu kB",
					   MEMPROBE_BUILD_VERSION,
					   (statements + backends + sampler + 1023) / 1024,
					   (statements + 1023) / 1024, (backends + 1023) / 1024,
					   (sampler + 1023) / 1024));
}

void
_PG_init(void)
{
	injection_init();
	observe_only_init();
	alloc_bench_init();
	material_init();
	streamscan_init();
	statements_init();
	backends_init();
	sampler_init();
	guard_init();
	data_cap_init();
	stores_init();
	explain_storage_init();

	MarkGUCPrefixReserved("memprobe");

	if (!process_shared_preload_libraries_in_progress)
		return;

	streamscan_install_hooks();
	statements_install_hooks();
	backends_install_hooks();
	sampler_install_hooks();
	guard_install_hooks();
	data_cap_install_hooks();
	statement_id_install_hooks();
	last_samples_install_hooks();
	explain_storage_install_hooks();
	memprobe_install_hooks();

	prev_shmem_startup = shmem_startup_hook;
	shmem_startup_hook = memprobe_shmem_startup;
}

/*
 * memprobe_version(): the version the library was built as (scripts/
 * build-version), which changes with every commit, where the extension's SQL
 * version (pg_extension.extversion) changes only with its SQL objects.
 */
Datum
memprobe_version(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(cstring_to_text(MEMPROBE_BUILD_VERSION));
}
