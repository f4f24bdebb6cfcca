/*-------------------------------------------------------------------------
 *
 * observe_only.c
 *	  memprobe.observe_only: memprobe's reporting, sampler and guard, with
 *	  every plan and every executor node left as core makes them.
 *
 * It is a user setting, as the enable_* settings it overrides are, so a DBA
 * can set it for the whole server, one database or one role (ALTER DATABASE
 * ... SET, ALTER ROLE ... SET) and a session can compare.  As those, it is
 * read when a query is planned (StreamScan, GenMaterial) or when its
 * executor starts (the tuple stores): a cached plan keeps the nodes it was
 * made with until it is replanned.  EXPLAIN's Storage line is reporting
 * and stays.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/guc.h"

#include "shared/observe_only.h"

bool		memprobe_observe_only = false;

void
observe_only_init(void)
{
	DefineCustomBoolVariable("memprobe.observe_only",
							 "Reports memory and runs the guard without changing any plan: every memprobe substitution is off.",
							 "Overrides memprobe.enable_streamscan, memprobe.enable_parallel_streamscan, "
							 "memprobe.enable_material and memprobe.enable_stores.  Takes effect when a query "
							 "is planned; cached plans keep the nodes they were made with.",
							 &memprobe_observe_only,
							 false,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);
}
