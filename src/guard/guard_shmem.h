/*-------------------------------------------------------------------------
 *
 * guard_shmem.h
 *	  The guard's shared memory (guard.c makes it): the cancel slots, the
 *	  counters and the last sample memprobe_guard shows (guard_view.c).
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_GUARD_SHMEM_H
#define MEMPROBE_GUARD_SHMEM_H

#include "datatype/timestamp.h"
#include "port/atomics.h"

#include "guard/available_memory.h"
#include "guard/cancel.h"
#include "guard/guard.h"

/* What the guard saw at one sample, as memprobe_guard shows it. */
typedef struct GuardSample
{
	pg_atomic_uint32 changecount;	/* odd while the sampler writes it */
	TimestampTz sampled_at;		/* 0: no sample yet */
	int64		available;		/* bytes; -1: unknown */
	int			source;			/* AvailableSource */
	int			largest_pid;	/* 0: no process sampled */
	Oid			largest_userid;	/* its role: who may see it (memprobe_may_see) */
	int64		largest_bytes;
} GuardSample;

typedef struct GuardShared
{
	int			nslots;
	pg_atomic_uint64 cancels[GUARD_REASONS];	/* cancels sent, per setting */
	pg_atomic_uint64 last_cancel_at;	/* TimestampTz of the last; 0: none */
	pg_atomic_uint32 latest;	/* which of samples[] readers read */
	GuardSample samples[2];		/* the sampler writes the other one */
	GuardSlot	slots[FLEXIBLE_ARRAY_MEMBER];
} GuardShared;


/* NULL until attached (guard_shmem_init) */
extern GuardShared *guard_shared;

/* memprobe.backend_memory_limit, memprobe.min_available_memory (kB; 0: off) */
extern int	guard_backend_limit_kb;
extern int	guard_min_available_kb;

/* after each sample, whether or not the guard is on (guard_view.c) */
extern void guard_publish_sample(const GuardCandidate *candidates, int n, TimestampTz sampled_at,
								 int64 avail, AvailableSource source);

/* settings that can never be met: warned about once, then ignored (impossible_settings.c) */
extern bool guard_min_available_possible(int64 min_avail, int64 total, AvailableSource source);
extern bool guard_backend_limit_possible(const GuardCandidate *candidates, int n, int64 limit);
extern void guard_backend_limit_off(void);

#endif							/* MEMPROBE_GUARD_SHMEM_H */
