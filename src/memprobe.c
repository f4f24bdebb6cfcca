/*-------------------------------------------------------------------------
 *
 * memprobe.c
 *	  Module entry point: _PG_init defines every part's settings and, when
 *	  memprobe is preloaded, installs its hooks; shared memory, once.
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
 * stores in Generation contexts, EXPLAIN's Storage line), report/ (memory
 * reporting) and guard/ (the sampler and the memory guard); shared/ holds
 * what several use, testing/ what only test builds compile.  They are
 * libraries: PostgreSQL calls into memprobe only through hooks.c's hooks
 * (installed by memprobe_install_hooks) and, at server start, this file's
 * two shared memory hooks, which request every part's space at once and
 * have each part attach to its own.  HACKING.md draws the layout, which
 * scripts/check-layout checks.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
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

static shmem_request_hook_type prev_shmem_request = NULL;
static shmem_startup_hook_type prev_shmem_startup = NULL;

/* The shared memory of the sampler and the guard, which the LOG line counts as one. */
static Size
sampler_and_guard_shmem_size(void)
{
	return add_size(add_size(add_size(sampler_shmem_size(), guard_shmem_size()),
							 add_size(last_samples_shmem_size(), data_cap_shmem_size())),
					statement_id_shmem_size());
}

/* shmem_request_hook: every part's space, in one request, and their locks. */
static void
memprobe_shmem_request(void)
{
	if (prev_shmem_request)
		prev_shmem_request();
	statements_shmem_request();
	RequestAddinShmemSpace(add_size(add_size(statements_shmem_size(), backends_shmem_size()),
									sampler_and_guard_shmem_size()));
}

/*
 * shmem_startup_hook: every part attaches to its shared memory, made at
 * server start, under the lock core gives for it.  Then one LOG line at
 * server start naming the build (the version a DBA compares with the
 * package's) and the shared memory memprobe takes: its two tables are sized
 * by settings (memprobe.max and query_text_bytes; max_connections and
 * memprobe.publish_contexts), and a DBA should see what they cost without
 * adding it up.
 */
static void
memprobe_shmem_startup(void)
{
	Size		statements = statements_shmem_size();
	Size		backends = backends_shmem_size();
	Size		sampler = sampler_and_guard_shmem_size();

	if (prev_shmem_startup)
		prev_shmem_startup();

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	statements_shmem_init();
	backends_shmem_init();
	sampler_shmem_init();
	guard_shmem_init();
	data_cap_shmem_init();
	statement_id_shmem_init();
	last_samples_shmem_init();
	LWLockRelease(AddinShmemInitLock);

	if (!IsUnderPostmaster)
		ereport(LOG,
				errmsg("memprobe %s takes %zu kB of shared memory",
					   MEMPROBE_BUILD_VERSION,
					   (statements + backends + sampler + 1023) / 1024),
				errdetail("Of that, memprobe_statements takes %zu kB, memprobe_backends %zu kB and the sampler %zu kB.",
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

	statements_preloaded();
	sampler_register_worker();
	prev_shmem_request = shmem_request_hook;
	shmem_request_hook = memprobe_shmem_request;
	prev_shmem_startup = shmem_startup_hook;
	shmem_startup_hook = memprobe_shmem_startup;
	memprobe_install_hooks();
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
