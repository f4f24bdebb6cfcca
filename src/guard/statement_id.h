/*-------------------------------------------------------------------------
 *
 * statement_id.h
 *	  One identity for each top-level statement of each process, shared by
 *	  the sampler, the guard, the data cap and the cancel's translation
 *	  (statement_id.c).
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_STATEMENT_ID_H
#define MEMPROBE_STATEMENT_ID_H

#include "access/xact.h"
#include "port/atomics.h"

#include "guard/data_cap.h"
#include "guard/guard.h"

/* shared memory (memprobe.c) */
extern Size statement_id_shmem_size(void);
extern void statement_id_shmem_init(void);

/*
 * In the process: the identity of the last top-level statement it began,
 * and of the last it ended (equal between statements).  0 until its first.
 */
extern uint64 statement_my_began;
extern uint64 statement_my_ended;

/*
 * This process's slot's "began" and "ended", once found with its data cap
 * flag (statement_id.c); NULL before (or without memprobe's shared memory).
 */
extern pg_atomic_uint64 *statement_my_began_slot;
extern pg_atomic_uint64 *statement_my_ended_slot;
extern int	statement_began_at_level;

extern void statement_begin_slow(void);
extern void statement_end_slow(void);

/* Does a top-level statement run (begun, not ended)? */
static inline bool
statement_running(void)
{
	return statement_my_began != statement_my_ended;
}

/*
 * A top-level statement begins (or goes on): a client's statement at its
 * planning, ExecutorStart or ExecutorRun, utility statement, each Execute
 * message of a portal, a fast-path call.  A new identity
 * unless one is running already (the same statement's next phase).
 */
static inline void
statement_begin(void)
{
	if (unlikely(statement_my_began == statement_my_ended))
	{
		if (unlikely(statement_my_began_slot == NULL))
		{
			statement_begin_slow();
			return;
		}
		statement_my_began = statement_my_ended + 1;
		pg_atomic_write_u64(statement_my_began_slot, statement_my_began);
		statement_began_at_level = guard_subxacts_open + 1;	/* GetCurrentTransactionNestLevel() */
	}
}

/*
 * A top-level statement ended (a portal's Execute, ExecutorEnd, a utility
 * statement, a fast-path call, the abort of the (sub)transaction it began
 * in): say so, and lift a cap the sampler set (data_cap.c).  Inline, the
 * test of a statement's second end with no cap.
 */
static inline void
statement_end(void)
{
	if (unlikely(statement_my_began_slot == NULL))
	{
		statement_end_slow();
		return;
	}
	/*
	 * Written, then the capped flag read, with a full barrier between: the
	 * sampler sets the flag, then reads "ended" (data_cap.c).  A statement
	 * ends here at least twice (its ExecutorRun, then its ExecutorEnd): the
	 * store and the barrier once.
	 */
	if (statement_my_ended != statement_my_began)
	{
		statement_my_ended = statement_my_began;
		pg_atomic_write_u64(statement_my_ended_slot, statement_my_ended);
		pg_memory_barrier();
	}
	if (unlikely(pg_atomic_read_u32(data_cap_my_capped) != 0))
		data_cap_lift_own();
}

/*
 * A fast-path call (the protocol's FunctionCall message) begins: always a
 * new statement, named by the function for the sampler's crash report.
 */
extern void statement_begin_fastpath(Oid fid);

/*
 * A transaction's abort, unless nested_running (a procedure's ROLLBACK a
 * level down), and a subtransaction event (memprobe's callbacks, hooks.c).
 */
extern void statement_abort(bool nested_running);
extern void statement_subxact_event(SubXactEvent event);

/*
 * In the sampler: the statement process procno began last, and the one it
 * ended last; 0 for a slot out of range.
 */
extern uint64 statement_began(int procno);
extern uint64 statement_ended(int procno);

/*
 * In the sampler: when statement stmt of process procno is a fast-path
 * call, its text ("fastpath function call: ...") into buf; false otherwise.
 */
extern bool statement_fastpath_text(int procno, uint64 stmt, char *buf, Size len);

#endif							/* MEMPROBE_STATEMENT_ID_H */
