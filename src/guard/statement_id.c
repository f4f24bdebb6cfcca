/*-------------------------------------------------------------------------
 *
 * statement_id.c
 *	  One identity for each top-level statement of each process: what the
 *	  sampler attributes a peak to, what the guard cancels and caps, and what
 *	  the cancelled process checks a cancel against.
 *
 * Core has no such identity.  pg_stat_activity's query_start
 * (st_activity_start_timestamp) is set once per simple-query string, so the
 * statements of "SELECT 1; SELECT f()" share it, and a cap meant for the
 * second was taken for ended when the first ended; a fast-path call leaves
 * it (and the query id and text) at the previous query's.  So each process
 * counts its own top-level statements in a slot of shared memory (by PGPROC
 * number): "began" is the identity of the last statement it began, "ended"
 * of the last it ended; a statement runs while they differ.  The process
 * begins one at the first of its hooks that sees it at the top level (the
 * planning of each statement of a string or of a Bind, ExecutorStart, each
 * ExecutorRun of an Execute message, ProcessUtility, the lookup of a
 * fast-path call's function) and ends it where the top-level execution
 * ends (ExecutorRun, ExecutorEnd, ProcessUtility, the fast-path function's
 * return), or at the abort of the transaction or of the subtransaction it
 * began in.  Not at parse analysis: the statement has taken little yet (its
 * text and raw parse tree are its message's), and a begin there too costs
 * every statement more than the planner's (bench/RESULTS.md).
 *
 * Why two identities never collide: only the process in a PGPROC writes its
 * slot, and it numbers on from what the slot holds when it starts (a later
 * process in the same PGPROC goes on counting); the count only grows, 64
 * bits wide, and the slots are made anew with shared memory at every server
 * start.  A statement is therefore named by (PGPROC number, identity), and
 * the guard checks the pid in the PGPROC too.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/shmem.h"
#include "utils/lsyscache.h"

#include "guard/data_cap.h"
#include "guard/guard.h"
#include "guard/statement_id.h"
#include "shared/changecount.h"
#include "shared/compat.h"

#define FASTPATH_TEXT_LEN	(2 * NAMEDATALEN + 64)

typedef struct StatementSlot
{
	pg_atomic_uint64 began;
	pg_atomic_uint64 ended;
	pg_atomic_uint32 changecount;	/* the fast-path call's text, odd while written */
	uint64		fastpath_stmt;	/* the statement that is a fast-path call */
	char		fastpath_text[FASTPATH_TEXT_LEN];
} StatementSlot;

typedef struct StatementShared
{
	int			nslots;
	StatementSlot slots[FLEXIBLE_ARRAY_MEMBER];
} StatementShared;

static StatementShared *shared = NULL;


uint64		statement_my_began = 0;
uint64		statement_my_ended = 0;

/* this process's slot once found (its PGPROC number is its own for life) */
static StatementSlot *my_slot = NULL;

/* the slot's "began" and "ended" (statement_id.h's inline begin and end write them) */
pg_atomic_uint64 *statement_my_began_slot = NULL;
pg_atomic_uint64 *statement_my_ended_slot = NULL;

/* the transaction nesting level the running statement began at */
int			statement_began_at_level = 0;

Size
statement_id_shmem_size(void)
{
	return add_size(offsetof(StatementShared, slots),
					mul_size(compat_proc_slot_count(), sizeof(StatementSlot)));
}

/* Attach to its shared memory, making it at server start (memprobe.c holds AddinShmemInitLock). */
void
statement_id_shmem_init(void)
{
	bool		found;

	shared = ShmemInitStruct("memprobe_statement_id", statement_id_shmem_size(), &found);
	if (!found)
	{
		memset(shared, 0, statement_id_shmem_size());
		shared->nslots = compat_proc_slot_count();
		for (int i = 0; i < shared->nslots; i++)
		{
			pg_atomic_init_u64(&shared->slots[i].began, 0);
			pg_atomic_init_u64(&shared->slots[i].ended, 0);
			pg_atomic_init_u32(&shared->slots[i].changecount, 0);
		}
	}
}

/*
 * This process's slot: found at its first statement, numbering on from what
 * an earlier process in the same PGPROC left (it may have died mid-statement,
 * so from the larger of the two).
 */
static bool
find_my_slot(void)
{
	int			procno;
	uint64		last;

	if (likely(my_slot != NULL))
		return true;
	procno = compat_my_proc_number();
	if (shared == NULL || procno < 0 || procno >= shared->nslots)
		return false;
	my_slot = &shared->slots[procno];
	last = Max(pg_atomic_read_u64(&my_slot->began), pg_atomic_read_u64(&my_slot->ended));
	statement_my_began = statement_my_ended = last;
	pg_atomic_write_u64(&my_slot->ended, last);
	pg_atomic_write_u64(&my_slot->began, last);
	data_cap_find_my_slot();
	/* the inline begin and end from now on (they read the capped flag too) */
	if (data_cap_my_capped != NULL)
	{
		statement_my_began_slot = &my_slot->began;
		statement_my_ended_slot = &my_slot->ended;
	}
	return true;
}

void
statement_begin_slow(void)
{
	if (!find_my_slot() || statement_my_began != statement_my_ended)
		return;
	statement_my_began = statement_my_ended + 1;
	pg_atomic_write_u64(&my_slot->began, statement_my_began);
	statement_began_at_level = guard_subxacts_open + 1;	/* GetCurrentTransactionNestLevel() */
}

void
statement_end_slow(void)
{
	if (!find_my_slot())
		return;
	/* as statement_end() does inline (statement_id.h), before the slot was known */
	if (statement_my_ended != statement_my_began)
	{
		statement_my_ended = statement_my_began;
		pg_atomic_write_u64(&my_slot->ended, statement_my_ended);
		pg_memory_barrier();
	}
	if (data_cap_my_capped != NULL && pg_atomic_read_u32(data_cap_my_capped) != 0)
		data_cap_lift_own();
}

void
statement_begin_fastpath(Oid fid)
{
	char	   *name;
	char	   *nspname;

	if (!find_my_slot())
		return;
	statement_end();			/* what ran before it, if nothing ended it */
	name = get_func_name(fid);
	nspname = get_namespace_name(get_func_namespace(fid));
	changecount_write_begin(&my_slot->changecount);
	snprintf(my_slot->fastpath_text, FASTPATH_TEXT_LEN, "fastpath function call: %s.%s (OID %u)",
			 nspname ? nspname : "?", name ? name : "?", fid);
	my_slot->fastpath_stmt = statement_my_ended + 1;
	changecount_write_end(&my_slot->changecount);
	statement_begin_slow();
}

void
statement_abort(bool nested_running)
{
	/*
	 * An abort ends the statement that failed, wherever it failed; not a
	 * CALL whose procedure rolls back a level down (nested_running).  A
	 * commit needs nothing: every statement that begins ends by a hook of
	 * its own, and one that never runs (a Bind planned, never executed) is
	 * idle, which the guard neither cancels nor caps.
	 */
	if (!nested_running)
		statement_end();
}

void
statement_subxact_event(SubXactEvent event)
{
	/*
	 * The abort of the subtransaction a statement began in (a statement
	 * after SAVEPOINT that failed) ends it: the session is idle in the
	 * aborted transaction next.  One a level deeper (a PL/pgSQL exception
	 * block inside the statement) does not.
	 */
	if (event == SUBXACT_EVENT_ABORT_SUB && statement_running() &&
		GetCurrentTransactionNestLevel() <= statement_began_at_level)
		statement_end();
}

/* ------------------------------------------------------------------------
 * In the sampler.
 * ------------------------------------------------------------------------
 */

uint64
statement_began(int procno)
{
	if (shared == NULL || procno < 0 || procno >= shared->nslots)
		return 0;
	return pg_atomic_read_u64(&shared->slots[procno].began);
}

uint64
statement_ended(int procno)
{
	if (shared == NULL || procno < 0 || procno >= shared->nslots)
		return 0;
	return pg_atomic_read_u64(&shared->slots[procno].ended);
}

bool
statement_fastpath_text(int procno, uint64 stmt, char *buf, Size len)
{
	StatementSlot *slot;

	if (shared == NULL || procno < 0 || procno >= shared->nslots || stmt == 0)
		return false;
	slot = &shared->slots[procno];
	if (((volatile StatementSlot *) slot)->fastpath_stmt != stmt)
		return false;
	for (int tries = 0; tries < 100; tries++)
	{
		uint32		before = pg_atomic_read_u32(&slot->changecount);

		if (before & 1)
			continue;
		pg_read_barrier();
		if (slot->fastpath_stmt != stmt)
			return false;
		strlcpy(buf, slot->fastpath_text, Min(len, FASTPATH_TEXT_LEN));
		pg_read_barrier();
		if (pg_atomic_read_u32(&slot->changecount) == before)
			return true;
	}
	return false;
}
