/*-------------------------------------------------------------------------
 *
 * guard.h
 *	  The memory guard: cancels the statement of a process whose private
 *	  memory passes memprobe.backend_memory_limit, or of the largest one when
 *	  the memory left to the server falls below memprobe.min_available_memory
 *	  (guard.c); in that process, the cancel's translation into the guard's
 *	  error (cancel.c).
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_GUARD_H
#define MEMPROBE_GUARD_H

#include "access/xact.h"
#include "datatype/timestamp.h"
#include "utils/elog.h"
#include "utils/guc.h"
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
	uint64		stmt;			/* its statement (statement_id.h); 0: none running */
	TimestampTz stmt_started_at;	/* when it started (its query string's start), or 0 */
	int64		private_bytes;
	int64		grown_bytes;	/* since the previous sample (0 for a process new to it) */
	int64		between_bytes;	/* at its last sample idle outside a transaction; -1: none */
	int64		group_bytes;	/* a leader's with its workers', else its own */
} GuardCandidate;

extern void guard_init(void);
/* shared memory (memprobe.c) */
extern Size guard_shmem_size(void);
extern void guard_shmem_init(void);

/*
 * the sampler, after each sample (taken at sampled_at): publish what the
 * guard sees for memprobe_guard, then decide and cancel
 */
extern void guard_after_sample(GuardCandidate *candidates, int n, TimestampTz sampled_at);

/*
 * The sampler, after each sample: the time to the next one, in
 * microseconds, given memprobe.sample_interval's (interval_us).  Shorter
 * while memory runs short or a process grows fast toward a guard limit.
 */
extern int64 guard_sample_step_us(int64 interval_us);

/*
 * In a backend or parallel worker, from an error handler: if the error is
 * the query cancel the guard sent to this process's running statement,
 * replace it with the guard's out-of-memory error (does not return then).
 * cxt: a memory context the handler may allocate in (not ErrorContext).
 * (cancel.c)
 */
extern void guard_translate_cancel(MemoryContext cxt);

/* at emit_log_hook (hooks.c): the guard's cancel caught nowhere else (cancel.c) */
extern void guard_log_emitting(ErrorData *edata);

/* Subtransactions open now (kept by guard_xact_event and cancel.c's guard_subxact_event). */
extern int	guard_subxacts_open;

/*
 * Does an ERROR reach the server log, and so guard_emit_log?  Not when
 * log_min_messages is above it (FATAL, PANIC) or is LOG, which core orders
 * above ERROR for the log (is_log_level_output).
 */
static inline bool
guard_errors_reach_log(void)
{
	return log_min_messages <= ERROR && log_min_messages != LOG;
}

/*
 * While a statement is planned (memprobe's planner_hook, hooks.c) or run
 * (memprobe_statements' ExecutorRun_hook), a cancel the guard sent must
 * fail it with the guard's error, also where a PL/pgSQL handler or a
 * savepoint would catch it first: does this need a handler of memprobe's
 * around it that translates the cancel (guard_translate_cancel)?
 * nesting_level: the executor and utility nesting level (statements.c).
 *
 * Not a client's own statement outside any subtransaction: nothing between
 * the hook and the top level can catch the cancel (PL/pgSQL handlers and
 * savepoints run in a subtransaction of their own), so it reaches
 * guard_emit_log, which gives it the same error before the client or the
 * log sees it.  The handler (PG_TRY's setjmp and its bookkeeping, a cost
 * every OLTP statement would pay at each of the two hooks: bench/RESULTS.md)
 * is left out there; statements inside functions, utility statements or
 * subtransactions, and any while the log does not see ERRORs, still get
 * it.  Inline, as a call would cost each hook more than the test.
 */
static inline bool
guard_cancel_needs_handler(int nesting_level)
{
	Assert(guard_subxacts_open == GetCurrentTransactionNestLevel() - 1);
	return nesting_level != 0 || guard_subxacts_open != 0 || !guard_errors_reach_log();
}

/*
 * In the sampler, at its start and after each reload: one WARNING when a
 * guard limit is set while sampling is off.
 */
extern void guard_warn_if_sampling_off(void);

/*
 * In a backend, from the executor's hooks at the top level: a query starts
 * (ExecutorStart) or ends (ExecutorEnd).  A portal run by several Execute
 * messages is one query over several statements (statement_id.h); the
 * guard's cancel of one of them is still meant for the query (cancel.c).
 */
extern uint64 guard_query_first_stmt;
extern int	guard_query_level;

static inline void
guard_top_level_query_started(uint64 stmt)
{
	guard_query_first_stmt = stmt;
	guard_query_level = guard_subxacts_open + 1;	/* GetCurrentTransactionNestLevel() */
}

static inline void
guard_top_level_query_ended(void)
{
	guard_query_first_stmt = 0;
}

/*
 * A transaction event (memprobe's transaction callback, hooks.c, which
 * also ends the top-level query at an abort): no subtransaction is open at
 * any event (pre-commit too).
 */
static inline void
guard_xact_event(void)
{
	guard_subxacts_open = 0;
}

/* A subtransaction event (memprobe's subtransaction callback, hooks.c; cancel.c). */
extern void guard_subxact_event(SubXactEvent event);

#endif							/* MEMPROBE_GUARD_H */
