/*-------------------------------------------------------------------------
 *
 * backends.c
 *	  memprobe_backends and memprobe_backend_contexts(pid): every backend's
 *	  memory, read without signalling, waiting on or blocking anyone.
 *
 * Each backend publishes its own memory into its own shared-memory slot
 * (one per PGPROC, indexed by its PGPROC number) at the end of a top-level
 * statement, when memprobe.publish_interval has passed since it last did
 * or when its memory changed a lot since then (backends_statement_end); a
 * reader copies the slots.  A slot has exactly one writer, its backend, so
 * there is no lock: the writer brackets its writes with a change counter,
 * odd while it writes (as PgBackendStatus' st_changecount), and a reader
 * retries until it copies a slot between two writes.  The writer never
 * waits; a reader waits only for a copy of a few kB to finish.  Publishing
 * walks every context, so its cost is bounded: at most 1% of the backend's
 * time (hold_next_publication).
 *
 * A backend clears its slot when it exits (before_shmem_exit).  Backends
 * that have not finished a statement since they started (and processes
 * that run none: checkpointer, autovacuum...) have no publication; the
 * view shows them with empty figures.
 *
 * Copyright (c) 2026, The memprobe Developers
 * Portions Copyright (c) 1996-2025, PostgreSQL Global Development Group
 * Portions Copyright (c) 1994, Regents of the University of California
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/resource.h>

#include "access/parallel.h"
#include "access/xact.h"
#include "catalog/pg_authid.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/ipc.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "report/backends.h"
#include "shared/compat.h"
#include "shared/context_types.h"
#include "shared/memory_tree.h"
#include "shared/stats_privileges.h"

/* memprobe.publish_interval (ms; -1: never publish; 0: at every statement end) and memprobe.publish_contexts */
static int	publish_interval_ms = 1000;
static int	publish_contexts = 32;

/* The figures memprobe_backends shows inline. */
#define LARGEST_SHOWN		3

/* A change in memory (see bytes_to_compare) that is published at once. */
#define PUBLISH_CHANGE_BYTES	((int64) 1024 * 1024)

/*
 * The bound on what publishing costs (hold_next_publication): after a
 * publication that used t of CPU time, none until PUBLISH_TIME_FACTOR * t
 * has passed, in backends of PUBLISH_BOUND_MIN_CONTEXTS contexts or more.
 */
#define PUBLISH_TIME_FACTOR			100
#define PUBLISH_BOUND_MIN_CONTEXTS	1000

/*
 * Names (a dynahash context's is its hash table's) are cut to fewer than
 * CONTEXT_NAME_BYTES bytes; core's context names are all shorter.  Idents are
 * cut as core cuts them (MEMPROBE_IDENT_DISPLAY_SIZE) and kept apart from the
 * rest (slot_ident), so that memprobe_backends copies no ident.
 */
#define CONTEXT_NAME_BYTES	64
#define CONTEXT_TYPE_BYTES	16

typedef struct PublishedContext
{
	char		name[CONTEXT_NAME_BYTES];
	char		type[CONTEXT_TYPE_BYTES];
	char		parent[CONTEXT_NAME_BYTES];
	int32		level;			/* 1 for TopMemoryContext, as memprobe_contexts */
	int32		ident_len;		/* bytes of its slot_ident; -1: no ident */
	int64		bytes;			/* its own blocks */
} PublishedContext;

/* A context the walk keeps among the largest; described once the walk ends. */
typedef struct LargeContext
{
	MemoryContext context;
	int32		level;
	int64		bytes;
} LargeContext;

/*
 * A backend's publication:
 *	total_bytes: the blocks of every context of the backend's tree
 *		(MemoryContextMemAllocated(TopMemoryContext, true)), at the end of
 *		the statement, after its executor memory was freed.
 *	max_total_bytes: the largest total_bytes it has published; a lower bound
 *		of the most it ever held, as memory allocated and freed between two
 *		publications (a statement's executor memory) is not in it.
 *	max_statement_bytes: the largest executor memory of any statement it
 *		ran (as memprobe_statements measures it; tracked statements only).
 *	largest: the memprobe.publish_contexts contexts holding most blocks
 *		themselves (children not counted), with name, ident, type and level,
 *		labelled as memprobe_contexts and core label them
 *		(memprobe_context_label).
 *	last_queryid, last_statement_bytes: the last top-level statement's.
 */
typedef struct BackendSlot
{
	pg_atomic_uint32 changecount;	/* odd while its backend writes */
	int32		pid;			/* 0: no publication */
	Oid			userid;
	TimestampTz published_at;
	int64		total_bytes;
	int64		max_total_bytes;
	int64		max_statement_bytes;	/* -1: none measured */
	int32		ncontexts;		/* contexts in its tree */
	uint64		last_queryid;
	int64		last_statement_bytes;	/* -1: not measured */
	int32		nlargest;		/* entries in largest[] */
	/* most bytes first; then shared->nlargest idents (slot_ident) */
	PublishedContext largest[FLEXIBLE_ARRAY_MEMBER];
} BackendSlot;

/* What a reader copies for memprobe_backends: the header and LARGEST_SHOWN contexts. */
#define SLOT_HEADER_BYTES	offsetof(BackendSlot, largest)
#define SLOT_SHOWN_BYTES	(SLOT_HEADER_BYTES + LARGEST_SHOWN * sizeof(PublishedContext))

typedef struct BackendsShared
{
	int			nslots;
	int			nlargest;		/* contexts each slot keeps */
	Size		slot_size;
	char		slots[FLEXIBLE_ARRAY_MEMBER];
} BackendsShared;

static BackendsShared *shared = NULL;


/* This backend's state. */
static BackendSlot *my_slot = NULL;
static TimestampTz last_published_at = 0;
static TimestampTz held_until = 0;	/* no publication before (the bound) */
static int64 last_published_compared = 0;
static int64 max_total_seen = 0;
static int64 max_statement_seen = -1;
static LargeContext *walk_buffer = NULL;	/* in TopMemoryContext */
static uint64 last_queryid = 0;
static int64 last_executor_bytes = -1;

/* armed on TopTransactionContext when a publication saw it large */
static MemoryContextCallback xact_memory_freed;
static bool xact_memory_freed_armed = false;

static inline int
slot_contexts(void)
{
	return Max(LARGEST_SHOWN, publish_contexts);
}

static inline Size
slot_size(void)
{
	return MAXALIGN(SLOT_HEADER_BYTES +
					slot_contexts() * (sizeof(PublishedContext) + MEMPROBE_IDENT_DISPLAY_SIZE));
}

static inline int
slot_count(void)
{
	/* every PGPROC that runs code; prepared transactions' never do */
	return MaxBackends + NUM_AUXILIARY_PROCS;
}

static inline BackendSlot *
slot_at(int i)
{
	return (BackendSlot *) (shared->slots + (Size) i * shared->slot_size);
}

/* The ident of slot->largest[k], in a slot or a whole copy of one. */
static inline char *
slot_ident(BackendSlot *slot, int k)
{
	return (char *) &slot->largest[shared->nlargest] + (Size) k * MEMPROBE_IDENT_DISPLAY_SIZE;
}

/* ------------------------------------------------------------------------
 * Shared memory.
 * ------------------------------------------------------------------------
 */

static Size
shared_size(void)
{
	return add_size(offsetof(BackendsShared, slots), mul_size(slot_count(), slot_size()));
}

/* What memprobe_backends takes of shared memory (logged at server start). */
Size
backends_shmem_size(void)
{
	return shared_size();
}

/* Attach to its shared memory, making it at server start (memprobe.c holds AddinShmemInitLock). */
void
backends_shmem_init(void)
{
	bool		found;

	shared = ShmemInitStruct("memprobe_backends", shared_size(), &found);
	if (!found)
	{
		shared->nslots = slot_count();
		shared->nlargest = slot_contexts();
		shared->slot_size = slot_size();
		for (int i = 0; i < shared->nslots; i++)
		{
			BackendSlot *slot = slot_at(i);

			memset(slot, 0, SLOT_HEADER_BYTES);
			pg_atomic_init_u32(&slot->changecount, 0);
		}
	}
}

/* ------------------------------------------------------------------------
 * Writing: this backend's slot only.
 * ------------------------------------------------------------------------
 */

static inline void
begin_write(BackendSlot *slot)
{
	pg_atomic_write_u32(&slot->changecount, pg_atomic_read_u32(&slot->changecount) + 1);
	pg_write_barrier();
}

static inline void
end_write(BackendSlot *slot)
{
	pg_write_barrier();
	pg_atomic_write_u32(&slot->changecount, pg_atomic_read_u32(&slot->changecount) + 1);
}

/* before_shmem_exit: an exited backend leaves no row behind. */
static void
clear_slot(int code, Datum arg)
{
	if (my_slot == NULL)
		return;
	begin_write(my_slot);
	my_slot->pid = 0;
	my_slot->nlargest = 0;
	end_write(my_slot);
	my_slot = NULL;
}

/* Copy a C string into a fixed buffer, cut on a character boundary. */
static void
copy_cut(char *dst, const char *src, int size)
{
	int			len;

	if (src == NULL)
	{
		dst[0] = '\0';
		return;
	}
	len = strnlen(src, size * 4);
	if (len >= size)
		len = pg_mbcliplen(src, len, size - 1);
	memcpy(dst, src, len);
	dst[len] = '\0';
}

/*
 * The cheap figure a statement end compares: the whole of the transaction's
 * and the portals' trees, where what a statement leaves behind when it ends
 * lives (a transaction's memory, an open cursor's store); a few contexts.
 * The rest of the tree (relation, catalog and plan caches, hash tables)
 * grows a little at a time and is published by the interval.
 */
static MemoryContext top_portal_context = NULL;

static int64
bytes_to_compare(void)
{
	int64		total = 0;

	/*
	 * portalmem.c keeps its TopPortalContext to itself; it is made at backend
	 * start (EnablePortalManager) and lives as long as the backend.
	 */
	if (unlikely(top_portal_context == NULL))
	{
		for (MemoryContext c = TopMemoryContext->firstchild; c != NULL; c = c->nextchild)
			if (strcmp(c->name, "TopPortalContext") == 0)
				top_portal_context = c;
	}
	if (TopTransactionContext != NULL)
		total += memory_tree_bytes(TopTransactionContext);
	if (top_portal_context != NULL)
		total += memory_tree_bytes(top_portal_context);
	return total;
}

/*
 * Walk the whole tree: the total, the number of contexts, and in largest[]
 * the n contexts with the most blocks of their own, most first.  It only
 * reads: no allocation, no copy of a name (describe_largest does that for
 * the n kept, once the walk is over).  largest[] is the caller's.
 */
static int
walk_tree(LargeContext *largest, int n, int64 *total, int32 *ncontexts)
{
	MemoryContext c = TopMemoryContext;
	int			level = 1;
	int			kept = 0;

	*total = 0;
	*ncontexts = 0;
	for (;;)
	{
		int64		own = (int64) c->mem_allocated;

		*total += own;
		(*ncontexts)++;

		if (kept < n || own > largest[kept - 1].bytes)
		{
			int			at = kept < n ? kept++ : n - 1;

			/* insertion into the sorted array, dropping the smallest when full */
			while (at > 0 && largest[at - 1].bytes < own)
			{
				largest[at] = largest[at - 1];
				at--;
			}
			largest[at].context = c;
			largest[at].level = level;
			largest[at].bytes = own;
		}

		if (c->firstchild != NULL)
		{
			c = c->firstchild;
			level++;
		}
		else
		{
			while (c->nextchild == NULL)
			{
				c = c->parent;
				level--;
				if (c == NULL)
					return kept;
			}
			c = c->nextchild;
		}
	}
}

/*
 * Write the n contexts walk_tree kept into 'slot', labelled as
 * memprobe_contexts labels them (memprobe_context_label).  Right after the
 * walk, with nothing run in between, so every context kept still exists.
 */
static void
describe_largest(BackendSlot *slot, const LargeContext *largest, int n)
{
	for (int k = 0; k < n; k++)
	{
		MemoryContext c = largest[k].context;
		PublishedContext *pc = &slot->largest[k];
		char	   *ident = slot_ident(slot, k);
		const char *name;
		const char *from;
		int			len;
		const char *parent = NULL;

		memprobe_context_label(c, &name, &from, &len);
		copy_cut(pc->name, name, CONTEXT_NAME_BYTES);
		if (len > 0)
			memcpy(ident, from, len);
		pc->ident_len = from != NULL ? len : -1;
		copy_cut(pc->type, memprobe_context_type_name(c), CONTEXT_TYPE_BYTES);
		/* as core's PostgreSQL 15 parent column: the parent's label */
		if (c->parent != NULL)
			memprobe_context_label(c->parent, &parent, &from, &len);
		copy_cut(pc->parent, parent, CONTEXT_NAME_BYTES);
		pc->level = largest[k].level;
		pc->bytes = largest[k].bytes;
	}
}

static void publish(TimestampTz now, bool may_arm);

/*
 * Reset callback of TopTransactionContext, armed by a publication that saw
 * a large transaction: a COMMIT or ROLLBACK ends its statement before the
 * transaction's memory is freed, so without this an idle backend would
 * show the memory of the transaction it has finished.  Called once the
 * transaction's child contexts are gone.  Held back like any publication
 * (held_until): the next statement end then sees the change.
 */
static void
publish_when_transaction_memory_freed(void *arg)
{
	TimestampTz now = GetCurrentTimestamp();

	xact_memory_freed_armed = false;
	if (now >= held_until)
		publish(now, false);
}

/*
 * CPU time (user and system) this process has used, in microseconds; 0 if
 * it cannot be read, which leaves publication unbounded rather than stopped.
 * A system call: a publication reads it twice.
 */
static int64
cpu_time_us(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return (int64) (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * USECS_PER_SEC +
		ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
}

/*
 * After a publication that started at 'start' and used 'cpu_us' of CPU
 * time, hold the next one back until PUBLISH_TIME_FACTOR times that has
 * passed: publishing uses at most 1% of the backend's elapsed time.  A walk
 * reads every context, so in a backend with many (a few thousand cached
 * plans make tens of thousands) it takes milliseconds, and a statement end
 * that publishes would cost that much.  CPU time, not the clock: a
 * publication preempted or stalled on a page fault did not cost the backend
 * that wait, and would otherwise hold the next back for a hundred times it.
 * A backend with fewer than PUBLISH_BOUND_MIN_CONTEXTS contexts is not held
 * back, so that it publishes a large change at its very next statement end.
 * A change held back is published by the first statement end after the
 * hold (it is still there to be seen then); a backend that goes idle
 * meanwhile shows its previous publication until its next statement.
 */
static void
hold_next_publication(TimestampTz start, int64 cpu_us, int32 ncontexts)
{
	if (ncontexts < PUBLISH_BOUND_MIN_CONTEXTS || cpu_us <= 0)
		held_until = 0;
	else
		held_until = start + cpu_us * PUBLISH_TIME_FACTOR;
}

/*
 * Publish this backend's figures.  may_arm: arm the transaction-end
 * publication if the transaction holds much; false when called from that
 * callback, as a callback registered on a context while its callbacks run
 * would be called in the same loop, again and again.  'now' is when it
 * starts: the bound counts from there.
 */
static void
publish(TimestampTz now, bool may_arm)
{
	int			slotno = compat_my_proc_number();
	int64		cpu_start = cpu_time_us();
	int64		total;
	int32		ncontexts;
	int			nlargest;

	/* nothing once exiting: clear_slot has run or is about to */
	if (proc_exit_inprogress || slotno < 0 || slotno >= shared->nslots)
		return;
	if (my_slot == NULL)
	{
		my_slot = slot_at(slotno);
		before_shmem_exit(clear_slot, (Datum) 0);
	}

	/*
	 * The walk keeps its largest contexts in a buffer of this backend's,
	 * made once; a backend short of memory then simply does not publish (a
	 * statement end must not fail).
	 */
	if (walk_buffer == NULL)
	{
		walk_buffer = MemoryContextAllocExtended(TopMemoryContext,
												 shared->nlargest * sizeof(LargeContext),
												 MCXT_ALLOC_NO_OOM);
		if (walk_buffer == NULL)
			return;
	}
	nlargest = walk_tree(walk_buffer, shared->nlargest, &total, &ncontexts);
	max_total_seen = Max(max_total_seen, total);

	begin_write(my_slot);
	my_slot->pid = MyProcPid;
	my_slot->userid = MyProc->roleId;
	my_slot->published_at = now;
	my_slot->total_bytes = total;
	my_slot->max_total_bytes = max_total_seen;
	my_slot->max_statement_bytes = max_statement_seen;
	my_slot->ncontexts = ncontexts;
	my_slot->last_queryid = last_queryid;
	my_slot->last_statement_bytes = last_executor_bytes;
	my_slot->nlargest = nlargest;
	describe_largest(my_slot, walk_buffer, nlargest);
	end_write(my_slot);

	last_published_at = now;
	last_published_compared = bytes_to_compare();

	if (may_arm && !xact_memory_freed_armed && TopTransactionContext != NULL &&
		MemoryContextMemAllocated(TopTransactionContext, true) >= PUBLISH_CHANGE_BYTES)
	{
		xact_memory_freed.func = publish_when_transaction_memory_freed;
		xact_memory_freed.arg = NULL;
		MemoryContextRegisterResetCallback(TopTransactionContext, &xact_memory_freed);
		xact_memory_freed_armed = true;
	}
	hold_next_publication(now, cpu_time_us() - cpu_start, ncontexts);
}

/*
 * At the end of a top-level statement: publish if memprobe.publish_interval
 * has passed since the last publication, or if memory changed a lot since:
 * the transaction's and the portals' trees (bytes_to_compare) moved by
 * PUBLISH_CHANGE_BYTES, or the statement's executor memory passed the
 * largest published.  That read and a few comparisons are what a statement
 * pays when nothing is due.  Without the change test, a backend that grew
 * and then went idle within the interval would show its old figures until
 * its next statement.  A publication that finds PUBLISH_CHANGE_BYTES or more
 * in the transaction's contexts arms a reset callback that publishes again
 * once they are freed (publish_when_transaction_memory_freed).
 */
void
backends_statement_end(uint64 queryid, int64 executor_bytes)
{
	bool		due;
	TimestampTz now;

	if (shared == NULL || publish_interval_ms < 0 || IsParallelWorker())
		return;

	last_queryid = queryid;
	last_executor_bytes = executor_bytes;

	/*
	 * The interval is counted from the statement's start (the time core took
	 * when the client's message arrived), which costs no clock read: a
	 * statement that started within the interval does not publish unless
	 * its change is large.
	 */
	due = GetCurrentStatementStartTimestamp() - last_published_at >=
		publish_interval_ms * INT64CONST(1000);	/* TimestampDifferenceExceeds, inline */
	if (executor_bytes > max_statement_seen)
	{
		due |= executor_bytes >= max_statement_seen + PUBLISH_CHANGE_BYTES;
		max_statement_seen = executor_bytes;
	}
	if (!due)
	{
		int64		now_bytes = bytes_to_compare();

		due = now_bytes >= last_published_compared + PUBLISH_CHANGE_BYTES ||
			now_bytes <= last_published_compared - PUBLISH_CHANGE_BYTES;
	}
	if (!due)
		return;

	/* the bound holds back whatever is due, to the clock */
	now = GetCurrentTimestamp();
	if (now >= held_until)
		publish(now, true);
}

/* ------------------------------------------------------------------------
 * Reading.
 * ------------------------------------------------------------------------
 */

/*
 * Copy the first 'bytes' of slot i into 'copy', as the writer left it
 * between two publications.  False if the slot has no publication.
 */
static bool
read_slot(int i, BackendSlot *copy, Size bytes)
{
	BackendSlot *slot = slot_at(i);

	for (;;)
	{
		uint32		before = pg_atomic_read_u32(&slot->changecount);
		uint32		after;

		pg_read_barrier();
		if ((before & 1) == 0)
		{
			memcpy((char *) copy + sizeof(pg_atomic_uint32),
				   (char *) slot + sizeof(pg_atomic_uint32),
				   bytes - sizeof(pg_atomic_uint32));
			pg_read_barrier();
			after = pg_atomic_read_u32(&slot->changecount);
			if (after == before)
				return copy->pid != 0;
		}
		CHECK_FOR_INTERRUPTS();
	}
}

static void
require_preloaded(void)
{
	if (shared == NULL)
		ereport(ERROR,
				errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				errmsg("memprobe must be loaded via \"shared_preload_libraries\" to report other backends' memory"),
				errhint("Add memprobe to shared_preload_libraries and restart the server."));
}

static Datum
text_or_null(const char *s, bool *isnull)
{
	*isnull = s[0] == '\0';
	return *isnull ? (Datum) 0 : CStringGetTextDatum(s);
}

PG_FUNCTION_INFO_V1(memprobe_backends);
PG_FUNCTION_INFO_V1(memprobe_backend_contexts);

#define BACKENDS_COLS 11

/*
 * memprobe_backends
 *		SQL SRF: one row per published slot.  The view joins it to
 *		pg_stat_activity for every backend's type and state.  Figures of
 *		another role's backend only with the privileges of pg_read_all_stats.
 */
Datum
memprobe_backends(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	BackendSlot *copy;

	require_preloaded();
	InitMaterializedSRF(fcinfo, 0);
	copy = palloc(SLOT_SHOWN_BYTES);

	for (int i = 0; i < shared->nslots; i++)
	{
		Datum		values[BACKENDS_COLS];
		bool		nulls[BACKENDS_COLS];
		Datum		names[LARGEST_SHOWN];
		Datum		bytes[LARGEST_SHOWN];
		int			shown;
		int			c = 0;

		if (!read_slot(i, copy, SLOT_SHOWN_BYTES))
			continue;
		memset(nulls, 0, sizeof(nulls));
		values[c++] = Int32GetDatum(copy->pid);
		values[c++] = ObjectIdGetDatum(copy->userid);
		if (!memprobe_may_see(copy->userid))
		{
			for (; c < BACKENDS_COLS; c++)
				nulls[c] = true;
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
			continue;
		}
		values[c++] = Int64GetDatum(copy->total_bytes);
		values[c++] = Int64GetDatum(copy->max_total_bytes);
		values[c++] = Int32GetDatum(copy->ncontexts);
		shown = Min(copy->nlargest, LARGEST_SHOWN);
		for (int k = 0; k < shown; k++)
		{
			names[k] = CStringGetTextDatum(copy->largest[k].name);
			bytes[k] = Int64GetDatum(copy->largest[k].bytes);
		}
		values[c++] = PointerGetDatum(construct_array(names, shown, TEXTOID, -1, false, TYPALIGN_INT));
		values[c++] = PointerGetDatum(construct_array(bytes, shown, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
		if (copy->max_statement_bytes >= 0)
			values[c++] = Int64GetDatum(copy->max_statement_bytes);
		else
			nulls[c++] = true;
		if (copy->last_queryid != UINT64CONST(0))
			values[c++] = Int64GetDatum((int64) copy->last_queryid);
		else
			nulls[c++] = true;
		if (copy->last_statement_bytes >= 0)
			values[c++] = Int64GetDatum(copy->last_statement_bytes);
		else
			nulls[c++] = true;
		values[c++] = TimestampTzGetDatum(copy->published_at);
		Assert(c == BACKENDS_COLS);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	pfree(copy);
	return (Datum) 0;
}

#define CONTEXTS_COLS 6

/*
 * memprobe_backend_contexts(pid)
 *		SQL SRF: the contexts that backend last published, most bytes first.
 *		Nothing if it has not published; an error if the caller may not see
 *		its figures or memprobe.publish_contexts is 0.  Idents only for
 *		the caller's own backends or with pg_read_all_stats: a cached
 *		plan's ident is its query text.
 */
Datum
memprobe_backend_contexts(PG_FUNCTION_ARGS)
{
	int32		pid = PG_GETARG_INT32(0);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	BackendSlot *copy;

	require_preloaded();
	if (publish_contexts == 0)
		ereport(ERROR,
				errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				errmsg("memprobe_backend_contexts() is turned off"),
				errdetail("memprobe.publish_contexts is 0, so backends publish only their three largest contexts (see memprobe_backends)."),
				errhint("Set memprobe.publish_contexts to the number of contexts to keep and restart the server."));
	InitMaterializedSRF(fcinfo, 0);

	copy = palloc(shared->slot_size);
	for (int i = 0; i < shared->nslots; i++)
	{
		/* the header first: the whole slot only for that pid's */
		if (!read_slot(i, copy, SLOT_HEADER_BYTES) || copy->pid != pid)
			continue;
		if (!read_slot(i, copy, shared->slot_size) || copy->pid != pid)
			break;
		if (!memprobe_may_see(copy->userid))
			ereport(ERROR,
					errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					errmsg("permission denied to read the memory contexts of process %d", pid),
					errdetail("Only roles with privileges of the role of the backend or of role \"pg_read_all_stats\" may read them."));
		for (int k = 0; k < copy->nlargest && k < publish_contexts; k++)
		{
			Datum		values[CONTEXTS_COLS];
			bool		nulls[CONTEXTS_COLS];
			PublishedContext *pc = &copy->largest[k];

			memset(nulls, 0, sizeof(nulls));
			values[0] = CStringGetTextDatum(pc->name);
			if (pc->ident_len >= 0)
				values[1] = PointerGetDatum(cstring_to_text_with_len(slot_ident(copy, k),
																	 pc->ident_len));
			else
				nulls[1] = true;
			values[2] = CStringGetTextDatum(pc->type);
			values[3] = Int32GetDatum(pc->level);
			values[4] = text_or_null(pc->parent, &nulls[4]);
			values[5] = Int64GetDatum(pc->bytes);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
		break;
	}
	pfree(copy);
	return (Datum) 0;
}

/* ------------------------------------------------------------------------
 * Setup.
 * ------------------------------------------------------------------------
 */

void
backends_init(void)
{
	/* sizes shared memory when preloaded (see statements_init) */
	GucContext	size_context = process_shared_preload_libraries_in_progress ?
		PGC_POSTMASTER : PGC_SIGHUP;

	DefineCustomIntVariable("memprobe.publish_interval",
							"Least time between two publications of a backend's memory to memprobe_backends.",
							"A backend publishes at the end of a top-level statement once this much "
							"time has passed since it last did, or sooner if its memory changed by "
							"1MB or more; 0 publishes at every statement end; -1 turns publication off. "
							"A backend of 1000 contexts or more waits at least 100 times the CPU time "
							"its last publication used, so that publishing uses at most 1% of its time.",
							&publish_interval_ms, 1000, -1, INT_MAX,
							PGC_SUSET, GUC_UNIT_MS, NULL, NULL, NULL);
	DefineCustomIntVariable("memprobe.publish_contexts",
							"Contexts each backend publishes for memprobe_backend_contexts().",
							"The contexts holding the most memory; 0 turns memprobe_backend_contexts() "
							"off (memprobe_backends still shows the three largest).",
							&publish_contexts, 32, 0, 1000,
							size_context, 0, NULL, NULL, NULL);
}
