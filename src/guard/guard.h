/*-------------------------------------------------------------------------
 *
 * guard.h
 *	  The memory guard: cancels the statement of a process whose private
 *	  memory passes memprobe.backend_memory_limit, or of the largest one when
 *	  the memory left to the server falls below memprobe.min_available_memory
 *	  (guard.c).
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_GUARD_H
#define MEMPROBE_GUARD_H

#include "datatype/timestamp.h"
#include "utils/palloc.h"

/* One process at one sample, as the sampler hands it to the guard. */
typedef struct GuardCandidate
{
	int			pid;
	int			procno;			/* PGPROC number */
	int			leader_pid;		/* parallel leader, or 0 */
	int			backend_type;	/* BackendType */
	int			bgw_type;		/* a background worker's type, for its name (sampler.h) */
	Oid			userid;			/* its role; InvalidOid for auxiliary processes */
	int			state;			/* BackendState */
	bool		in_transaction;	/* idle in a transaction */
	uint64		queryid;
	TimestampTz stmt_start;		/* 0: no statement running */
	int64		private_bytes;
	int64		group_bytes;	/* a leader's with its workers', else its own */
} GuardCandidate;

extern void guard_init(void);
extern void guard_install_hooks(void);
extern Size guard_shmem_size(void);

/*
 * the sampler, after each sample (taken at sampled_at): publish what the
 * guard sees for memprobe_guard, then decide and cancel
 */
extern void guard_after_sample(GuardCandidate *candidates, int n, TimestampTz sampled_at);

/*
 * In a backend or parallel worker, from an error handler: if the error is
 * the query cancel the guard sent to this process's running statement,
 * replace it with the guard's out-of-memory error (does not return then).
 * cxt: a memory context the handler may allocate in (not ErrorContext).
 */
extern void guard_translate_cancel(MemoryContext cxt);

/* While a statement is planned or run: is a handler that translates the guard's cancel needed? */
extern bool guard_cancel_needs_handler(int nesting_level);

/*
 * In the sampler, at its start and after each reload: one WARNING when a
 * guard limit is set while sampling is off.
 */
extern void guard_warn_if_sampling_off(void);

/*
 * In a backend, from the executor's hooks at the top level: a query starts
 * (ExecutorStart) or ends (ExecutorEnd).  A portal run by several Execute
 * messages is one query over several statement timestamps; the guard's
 * cancel of one of them is still meant for the query.
 */
extern void guard_top_level_query_started(void);
extern void guard_top_level_query_ended(void);

#endif							/* MEMPROBE_GUARD_H */
