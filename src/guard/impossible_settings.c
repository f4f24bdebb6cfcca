/*-------------------------------------------------------------------------
 *
 * impossible_settings.c
 *	  The guard's settings that can never be met: min_available_memory at
 *	  or above the server's memory, backend_memory_limit below what an idle
 *	  backend holds.  Each is warned about once (per value) and ignored, so
 *	  that a mistyped setting cancels nothing rather than everything.  Runs
 *	  in the sampler, at every sample (guard.c).
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/backend_status.h"

#include "guard/guard_shmem.h"
#include "guard/size_text.h"

/* Settings found impossible and warned about (0: none); the guard ignores them. */
static int64 impossible_min_available = 0;
static int64 impossible_min_available_total = 0;
static int64 impossible_backend_limit = 0;
/* backend_memory_limit once an idle backend showed it possible (0: not yet) */
static int64 judged_backend_limit = 0;

/* backend_memory_limit is off: judged again when it is set again. */
void
guard_backend_limit_off(void)
{
	judged_backend_limit = 0;
}

/*
 * min_available_memory at or above the memory it is measured against can
 * never be met: one WARNING (per value and limit), and the guard ignores it.
 */
bool
guard_min_available_possible(int64 min_avail, int64 total, AvailableSource source)
{
	if (total <= 0 || min_avail < total)
	{
		impossible_min_available = 0;
		return true;
	}
	if (impossible_min_available != min_avail || impossible_min_available_total != total)
	{
		impossible_min_available = min_avail;
		impossible_min_available_total = total;
		ereport(WARNING,
				errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				errmsg("memprobe.min_available_memory can never be met"),
				errdetail("It is %s, and the server's memory is %s (%s).  The memory guard does not act on memprobe.min_available_memory until it is set below that.",
						  size_text(min_avail), size_text(total),
						  source == AVAILABLE_MEMAVAILABLE ? "MemTotal" :
						  source == AVAILABLE_CGROUP_V2 ? "cgroup v2 memory.max" :
						  "cgroup v1 memory.limit_in_bytes"));
	}
	return false;
}

/*
 * backend_memory_limit at or below what an idle client backend holds would
 * cancel every statement of every backend: one WARNING, and the guard
 * ignores it.  Judged by the smallest idle client backend: once an idle
 * backend holds less than the limit, the limit is possible until the
 * setting changes (a session that later idles holding much, a large session
 * variable or what a PL's allocator kept, does not turn a limit others pass
 * into one found impossible).  Until then it is judged again at every
 * sample.  While no client backend is idle (a server started with the limit
 * in postgresql.conf, its clients all busy), it is judged against what a
 * fresh backend holds, FRESH_BACKEND_BYTES, or the smallest client backend
 * if that holds less: below that it is impossible for now, the WARNING once
 * per value, and no cancel.  An idle backend holding more than
 * FRESH_BACKEND_SHARE times that is no fresh backend (the only idle one may
 * be a session keeping a large setting): the same judge then, and such
 * sessions' statements are not cancelled for what they keep anyway
 * (held_between, guard.c).
 *
 * FRESH_BACKEND_BYTES: a client backend after its first statement holds
 * 2.8-3 MB on 15.20 and 2 MB on 18 (cassert builds; pgbench -S backends
 * sampled), so 2 MB.  Not the sampler's own memory: a fork of the
 * postmaster that has touched little, it held under 1 MB on 18.
 */
#define FRESH_BACKEND_BYTES (INT64CONST(2) * 1024 * 1024)
#define FRESH_BACKEND_SHARE 4

bool
guard_backend_limit_possible(const GuardCandidate *candidates, int n, int64 limit)
{
	const GuardCandidate *idle = NULL;
	const GuardCandidate *least = NULL;
	int64		judge_bytes;
	char	   *limit_text,
			   *judge_text;

	if (limit == judged_backend_limit)
		return true;
	for (int i = 0; i < n; i++)
	{
		const GuardCandidate *c = &candidates[i];

		if (c->backend_type != B_BACKEND || c->private_bytes <= 0)
			continue;
		if (c->state == STATE_IDLE && (idle == NULL || c->private_bytes < idle->private_bytes))
			idle = c;
		if (least == NULL || c->private_bytes < least->private_bytes)
			least = c;
	}
	if (idle != NULL && idle->private_bytes > FRESH_BACKEND_SHARE * FRESH_BACKEND_BYTES)
		idle = NULL;
	if (idle != NULL)
		judge_bytes = idle->private_bytes;
	else if (least != NULL && least->private_bytes < FRESH_BACKEND_BYTES)
		judge_bytes = least->private_bytes;
	else
		judge_bytes = FRESH_BACKEND_BYTES;
	if (limit > judge_bytes)
	{
		if (idle != NULL)
			judged_backend_limit = limit;	/* for good */
		impossible_backend_limit = 0;
		return true;
	}
	if (impossible_backend_limit == limit)
		return false;			/* warned already */
	impossible_backend_limit = limit;
	size_texts_apart(limit, judge_bytes, &limit_text, &judge_text);
	ereport(WARNING,
			errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			idle != NULL ?
			errmsg("memprobe.backend_memory_limit is below what an idle backend holds") :
			errmsg("memprobe.backend_memory_limit is below what a fresh backend holds"),
			idle != NULL ?
			errdetail("It is %s, and idle process %d holds %s.  Every statement would pass it; the memory guard does not act on memprobe.backend_memory_limit until it is set above that.",
					  limit_text, idle->pid, judge_text) :
			errdetail("It is %s, and a fresh backend holds %s.  Every statement would pass it; the memory guard does not act on memprobe.backend_memory_limit until it is set above that.",
					  limit_text, judge_text));
	return false;
}
