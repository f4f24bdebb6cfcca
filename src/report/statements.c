/*-------------------------------------------------------------------------
 *
 * statements.c
 *	  memprobe_statements: executor memory per statement, keyed as
 *	  pg_stat_statements keys its entries, so the two views join on queryid.
 *
 * What memprobe's hooks (hooks.c) call, with the executor nesting level
 * they keep: the executions memprobe.track counts, measured from
 * ExecutorStart to ExecutorEnd and stored into the shared table
 * (statements_table.c), keyed as pg_stat_statements keys its entries, by
 * (userid, dbid, queryid, toplevel); a statement whose queryid is 0 is not
 * tracked.  When preloaded, statements_preloaded() calls EnableQueryId(),
 * as pg_stat_statements does, unless the server starts with memprobe.track
 * = none.  What one execution records: see Execution.
 *
 * Hot path: with memprobe.track excluding a statement, the hooks test the
 * level and move on (no allocation, no lookup).  A tracked statement costs
 * one small palloc in its es_query_cxt, a memory context walk per sample,
 * a plan walk at ExecutorEnd, and its entry's spinlock (the table's lock and
 * a hash lookup too when the backend has not stored into that entry before).
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/parallel.h"
#include "access/xact.h"
#include "executor/executor.h"
#include "executor/instrument.h"
#include "miscadmin.h"
#include "utils/backend_status.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "guard/sampler.h"
#include "guard/statement_id.h"
#include "report/node_peaks.h"
#include "report/query_texts.h"
#include "report/statement_log.h"
#include "report/statements.h"
#include "report/statements_table.h"
#include "shared/compat.h"
#include "shared/memory_tree.h"

/* memprobe.track */
typedef enum StatementsTrack
{
	TRACK_NONE,
	TRACK_TOP,
	TRACK_ALL
} StatementsTrack;

static const struct config_enum_entry track_options[] = {
	{"none", TRACK_NONE, false},
	{"top", TRACK_TOP, false},
	{"all", TRACK_ALL, false},
	{NULL, 0, false}
};

static int	statements_track = TRACK_TOP;

/*
 * The nesting levels memprobe.track counts are those below this: 0 for none,
 * 1 for top, INT_MAX for all (assign_track).  One comparison where the
 * setting's three values took three.
 */
static int	tracked_levels = 1;

static void
assign_track(int newval, void *extra)
{
	tracked_levels = newval == TRACK_ALL ? INT_MAX : (newval == TRACK_TOP ? 1 : 0);
}



/* Does memprobe.track count a statement at this executor nesting level (hooks.c)? */
#define TRACKED(level) ((level) < tracked_levels && !IsParallelWorker())

/*
 * One tracked execution in progress: allocated in its es_query_cxt and
 * unlinked by a reset callback on that context, so an execution that errors
 * out leaves nothing behind.  What it records (ExecutorStart to ExecutorEnd
 * of one QueryDesc; a cursor's fetches are one execution):
 *
 *	executor memory: the bytes es_query_cxt and all its children hold in
 *		blocks (MemoryContextMemAllocated(es_query_cxt, true)), sampled at
 *		the end of every ExecutorRun and at the start of ExecutorEnd (after
 *		ExecutorFinish, before any node ends and frees its memory); the
 *		largest sample is the execution's figure.  A lower bound of the true
 *		peak: memory freed between two samples (a hash table or sort a node
 *		reset and rebuilt, a spilling sort's memory freed before its merge)
 *		is not seen, nor memory outside es_query_cxt (catalog caches, the
 *		plan itself) nor parallel workers' own memory.
 *	node peak: the largest peak any node of the plan recorded, as EXPLAIN
 *		ANALYZE prints it (Sort Memory, Hash Peak Memory Usage, HashAggregate
 *		Peak Memory Usage, Memoize Peak Memory Usage, Material Maximum
 *		Storage, and the stores of WindowAgg, CTE Scan and Recursive Union
 *		from stores.c), read at ExecutorEnd before the nodes end; the
 *		leader's own nodes only.  Each node kind plugs in one function
 *		(node_peaks.c).
 *	spilled: some node went past work_mem to disk (a disk sort, a hash join
 *		with more than one batch, a hash aggregate that spilled, a
 *		tuplestore on disk).
 *	temp bytes: pgBufferUsage.temp_blks_written * BLCKSZ, from ExecutorStart
 *		to the end of ExecutorEnd (nested statements' included).
 */
typedef struct Execution
{
	QueryDesc  *query_desc;
	struct Execution *next;
	int64		temp_blks_start;
	int64		mem_peak;
	Oid			userid;			/* as at its start: an error may leave another current */
	bool		toplevel;		/* at its start: only those are counted when they fail */
	/*
	 * The plan's query id and the statement's place in its source text, kept
	 * for a failure: the abort releases a cached plan (PortalReleaseCachedPlan)
	 * before it deletes the executor context, so the PlannedStmt may be gone
	 * by then, while the QueryDesc and its source text are not.
	 */
	uint64		queryid;
	int			stmt_location;
	int			stmt_len;
	/* its text normalised (query_texts.c), or NULL: made at its start */
	char	   *text;
	int			text_len;
	bool		text_known;		/* its entry known to have its text, at its start */
	bool		ended;			/* reached ExecutorEnd */
	MemoryContextCallback callback;
} Execution;

static Execution *executions = NULL;

/*
 * The record of the outermost running execution, kept here rather than
 * allocated in its executor context at each statement; the others (nested,
 * or more portals open at once) are allocated there.  Either way, the reset
 * callback of the executor context ends it.
 */
static Execution outermost_execution;
static bool outermost_execution_in_use = false;

/*
 * Top-level executions that ended in an error or a cancel, noted when their
 * executor context goes (execution_forget, during the abort) and added to
 * their entries by the transaction's abort callback, which may take the
 * lock.  The buffers are made at the first tracked execution, so that noting
 * allocates nothing while the transaction aborts (perhaps for want of
 * memory).
 */
typedef struct FailedExecution
{
	StatementsKey key;
	int64		mem;
	int64		private_peak;
	int			text_len;
	char	   *text;			/* memprobe.query_text_bytes + 1 */
} FailedExecution;

#define MAX_FAILED 4
static FailedExecution *failed = NULL;
static int	nfailed = 0;

static int64 statement_private_peak(void);

/*
 * The shared entries this backend stored into last, by key, with the
 * incarnation each had then.  A statement whose entry is remembered is
 * stored under that entry's spinlock alone, if its incarnation is still
 * the one remembered: neither the table's lock nor a lookup, the two
 * largest parts of what storing cost a statement (bench/RESULTS.md, "Per
 * statement under 1%").  An entry that left the table since (entry_remove)
 * or whose element now holds another (entry_alloc) has another
 * incarnation, and is looked up again under the lock.
 */
#define ENTRY_MEMO_SIZE 64

typedef struct EntryMemo
{
	StatementsKey key;
	StatementsEntry *entry;		/* NULL: empty */
	uint64		incarnation;
} EntryMemo;

static EntryMemo entry_memo[ENTRY_MEMO_SIZE];

static inline EntryMemo *
entry_memo_slot(const StatementsKey *key)
{
	return &entry_memo[(key->queryid ^ (key->queryid >> 32) ^ key->userid ^ key->toplevel) %
					   ENTRY_MEMO_SIZE];
}

/* Remember entry (caller holds the lock: its incarnation cannot change). */
static inline void
entry_memo_keep(EntryMemo *m, const StatementsKey *key, StatementsEntry *entry)
{
	memcpy(&m->key, key, sizeof(StatementsKey));	/* padding too: compared by memcmp */
	m->entry = entry;
	m->incarnation = entry->incarnation;
}

/* Fold one execution's figures into entry (caller holds its spinlock). */
static inline void
entry_add(StatementsEntry *entry, int64 mem, NodePeakWalk *walk, int64 temp_bytes,
		  int64 private_peak)
{
	entry->calls++;
	entry->usage += 1.0;
	entry->mem_sum += (double) mem;
	entry->mem_max = Max(entry->mem_max, mem);
	entry->mem_last = mem;
	if (walk->kind >= 0 && (entry->node_kind < 0 || walk->bytes > entry->node_peak))
	{
		entry->node_peak = walk->bytes;
		entry->node_kind = walk->kind;
	}
	if (walk->spilled)
		entry->spills++;
	entry->temp_bytes += temp_bytes;
	entry->private_max = Max(entry->private_max, private_peak);
}

/*
 * store
 *		Fold one execution's figures into its entry, creating it if needed,
 *		with the normalised text when known (query_texts.c), else the
 *		statement's own.
 */
static void
store(QueryDesc *queryDesc, const char *normalized, int normalized_len, bool text_known,
	  bool toplevel, int64 mem, NodePeakWalk *walk, int64 temp_bytes, int64 private_peak)
{
	StatementsKey key;
	StatementsEntry *entry;
	EntryMemo  *m;

	statements_key(&key, GetUserId(), queryDesc->plannedstmt->queryId, toplevel);
	m = entry_memo_slot(&key);
	if (m->entry != NULL && memcmp(&m->key, &key, sizeof(StatementsKey)) == 0)
	{
		entry = m->entry;
		SpinLockAcquire(&entry->mutex);
		if (likely(entry->incarnation == m->incarnation))
		{
			Assert(memcmp(&entry->key, &key, sizeof(StatementsKey)) == 0);
			entry_add(entry, mem, walk, temp_bytes, private_peak);
			SpinLockRelease(&entry->mutex);
			goto stored;
		}
		SpinLockRelease(&entry->mutex);
	}

	LWLockAcquire(statements_shared->lock, LW_SHARED);
	entry = hash_search(statements_hash, &key, HASH_FIND, NULL);
	if (entry == NULL)
	{
		const char *text;
		int			text_len;

		LWLockRelease(statements_shared->lock);
		if (normalized != NULL)
		{
			text = normalized;
			text_len = normalized_len;
		}
		else
			text = statements_own_text(queryDesc, &text_len);
		LWLockAcquire(statements_shared->lock, LW_EXCLUSIVE);
		entry = statements_entry_alloc(&key, text, text_len);
	}
	entry_memo_keep(m, &key, entry);
	SpinLockAcquire(&entry->mutex);
	entry_add(entry, mem, walk, temp_bytes, private_peak);
	SpinLockRelease(&entry->mutex);
	LWLockRelease(statements_shared->lock);

stored:
	/* known at its start: remembered then (a reset since is noticed at the next start) */
	if (!text_known)
		query_texts_remember(key.userid, key.queryid, key.toplevel);
}

/*
 * log_execution
 *		memprobe.log_min_memory's line for an execution just stored: its text
 *		as memprobe_statements keeps it (the normalised text made at its
 *		start, else its entry's), or its own when the entry has gone since.
 */
static pg_noinline void
log_execution(QueryDesc *queryDesc, const char *normalized, bool toplevel, int64 mem,
			  int64 private_peak, NodePeakWalk *walk)
{
	char	   *copy = NULL;
	const char *text = normalized;

	if (text == NULL)
	{
		StatementsKey key;

		statements_key(&key, GetUserId(), queryDesc->plannedstmt->queryId, toplevel);
		copy = statements_entry_text(&key);
		if (copy == NULL)
		{
			int			len;
			const char *own = statements_own_text(queryDesc, &len);

			copy = pnstrdup(own, len);
		}
		text = copy;
	}
	statement_log_report(queryDesc->plannedstmt->queryId, text, mem, private_peak,
						 walk->kind >= 0 ? node_peak_name(walk->kind) : NULL, walk->bytes,
						 false);
	if (copy != NULL)
		pfree(copy);
}

/* ------------------------------------------------------------------------
 * Executions: what memprobe's executor hooks (hooks.c) call.
 * ------------------------------------------------------------------------
 */

/* The buffers failed executions are noted in (see FailedExecution). */
static void
failed_buffers(void)
{
	FailedExecution *f = MemoryContextAllocZero(TopMemoryContext,
												MAX_FAILED * sizeof(FailedExecution));

	for (int i = 0; i < MAX_FAILED; i++)
		f[i].text = MemoryContextAlloc(TopMemoryContext, statements_text_bytes + 1);
	failed = f;
}

/*
 * Note an execution whose context goes without its ExecutorEnd: it failed.
 * Runs while the transaction aborts: reads and copies, allocates nothing.
 * The QueryDesc and its source text outlive the executor context (they are
 * in the portal's context or the message's).
 */
static void
note_failed(Execution *e)
{
	FailedExecution *f = &failed[nfailed++];
	const char *text;

	statements_key(&f->key, e->userid, e->queryid, true);
	f->mem = e->mem_peak;
	f->private_peak = statement_private_peak();
	if (e->text != NULL)
	{
		text = e->text;
		f->text_len = e->text_len;
	}
	else
		text = statements_source_text(e->query_desc->sourceText, e->stmt_location, e->stmt_len,
						   &f->text_len);
	memcpy(f->text, text, f->text_len);
	f->text[f->text_len] = '\0';
}

/* Add the failed executions noted to their entries (the abort callbacks). */
static void
store_failed(void)
{
	int			n = nfailed;

	nfailed = 0;				/* once, even if a line below fails */
	for (int i = 0; i < n; i++)
	{
		FailedExecution *f = &failed[i];
		/* memprobe.log_min_memory: with the text the entry keeps (set once, at its making) */
		bool		log = statement_log_min_memory >= 0 && statement_log_due(f->mem, f->private_peak);

		statements_store_failed(&f->key, f->text, f->text_len, f->mem, f->private_peak, log);
		if (log)
			statement_log_report(f->key.queryid, f->text, f->mem, f->private_peak,
								 NULL, 0, true);
	}
}

/* A transaction event (memprobe's transaction callback, hooks.c). */
void
statements_xact_event(XactEvent event)
{
	if (nfailed > 0 && statements_shared != NULL &&
		(event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT))
		store_failed();
}

/* A subtransaction event (memprobe's subtransaction callback, hooks.c). */
void
statements_subxact_event(SubXactEvent event)
{
	if (nfailed > 0 && statements_shared != NULL && event == SUBXACT_EVENT_ABORT_SUB)
		store_failed();
}

static void
execution_forget(void *arg)
{
	Execution  *done = (Execution *) arg;

	if (!done->ended && done->toplevel && failed != NULL && nfailed < MAX_FAILED)
		note_failed(done);

	for (Execution **p = &executions; *p != NULL; p = &(*p)->next)
	{
		if (*p == done)
		{
			*p = done->next;
			break;
		}
	}
	if (done == &outermost_execution)
		outermost_execution_in_use = false;
}

static inline Execution *
execution_find(QueryDesc *queryDesc)
{
	for (Execution *e = executions; e != NULL; e = e->next)
		if (e->query_desc == queryDesc)
			return e;
	return NULL;
}

static inline void
execution_sample(Execution *e)
{
	int64		held = memory_tree_bytes(e->query_desc->estate->es_query_cxt);

	e->mem_peak = Max(e->mem_peak, held);
}

/* The rest of statements_parsed, out of line: its fast path saves no registers. */
static pg_noinline void
note_parsed(ParseState *pstate, Query *query, JumbleState *jstate, uint32 generation,
			int level)
{
	query_texts_check_generation(generation);
	query_texts_parsed(pstate, query, jstate, level == 0, statements_text_bytes);
}

/*
 * After parse analysis (memprobe's post_parse_analyze_hook, hooks.c), at
 * the executor nesting level: where the statement's constants are, for its
 * normalised text (query_texts.c), as pg_stat_statements' hook keeps them.
 */
void
statements_parsed(ParseState *pstate, Query *query, JumbleState *jstate, int level)
{
	uint32		generation;

	/*
	 * Nothing to normalise (no constant, no query id), or not tracked: the
	 * statements memprobe.track counts, as pg_stat_statements: a function's
	 * statement analysed while track = top and run again from its cached
	 * plan after track = all keeps its text as written in both.
	 */
	if (jstate == NULL || jstate->clocations_count == 0 || query->queryId == UINT64CONST(0) ||
		statements_shared == NULL || !TRACKED(level))
		return;
	/* a statement run again, its text known: two comparisons, no call */
	generation = pg_atomic_read_u32(&statements_shared->generation);
	if (generation == query_texts_known_generation &&
		query_texts_known_last(GetUserId(), query->queryId, level == 0))
		return;
	note_parsed(pstate, query, jstate, generation, level);
}

/* After ExecutorStart (memprobe's ExecutorStart_hook, hooks.c), at the nesting level. */
void
statements_executor_started(QueryDesc *queryDesc, int eflags, int level)
{
	if (TRACKED(level) &&
		queryDesc->plannedstmt->queryId != UINT64CONST(0) &&
		(eflags & EXEC_FLAG_EXPLAIN_ONLY) == 0)
	{
		MemoryContext cxt = queryDesc->estate->es_query_cxt;
		Execution  *e;
		uint32		generation;

		/* claimed only once nothing below can fail: the callback frees it */
		if (!outermost_execution_in_use)
			e = &outermost_execution;
		else
			e = MemoryContextAlloc(cxt, sizeof(Execution));

		if (failed == NULL)
			failed_buffers();
		e->query_desc = queryDesc;
		e->temp_blks_start = pgBufferUsage.temp_blks_written;
		e->mem_peak = 0;
		e->userid = GetUserId();
		e->toplevel = level == 0;
		e->queryid = queryDesc->plannedstmt->queryId;
		e->stmt_location = queryDesc->plannedstmt->stmt_location;
		e->stmt_len = queryDesc->plannedstmt->stmt_len;
		e->text = NULL;
		e->text_len = 0;
		/*
		 * What this backend knows is stale once entries were removed: a
		 * statement run from a cached plan is parsed by no one who would
		 * have noticed (query_texts_check_generation at parse analysis).
		 */
		generation = pg_atomic_read_u32(&statements_shared->generation);
		if (unlikely(generation != query_texts_known_generation))
			query_texts_check_generation(generation);
		e->text_known = query_texts_known_last(e->userid, e->queryid, e->toplevel) ||
			query_texts_known(e->userid, e->queryid, e->toplevel);
		if (!e->text_known)
		{
			MemoryContext old = MemoryContextSwitchTo(cxt);

			e->text = query_texts_normalized(e->queryid, queryDesc->sourceText,
											 e->stmt_location, e->stmt_len, &e->text_len);
			MemoryContextSwitchTo(old);
		}
		e->ended = false;
		e->callback.func = execution_forget;
		e->callback.arg = e;
		if (e == &outermost_execution)
			outermost_execution_in_use = true;
		MemoryContextRegisterResetCallback(cxt, &e->callback);
		e->next = executions;
		executions = e;
		node_peaks_keep(queryDesc);
	}
}

/*
 * After a run of the execution (ExecutorRun returned, or failed: a failed
 * execution's last sample, which note_failed reads): its memory now.
 */
void
statements_executor_sample(QueryDesc *queryDesc)
{
	Execution  *e;

	if (executions != NULL && (e = execution_find(queryDesc)) != NULL)
		execution_sample(e);
}

/*
 * An error context callback (arg: the QueryDesc) for a run without an
 * error handler around it (hooks.c): the failed execution's last sample,
 * taken as the error is raised, before anything is freed.
 */
void
statements_sample_at_error(void *arg)
{
	statements_executor_sample((QueryDesc *) arg);
}

/*
 * The most private memory the sampler saw this backend (with its parallel
 * workers) hold during the client's statement now ending, or -1: the
 * statement is known by its identity (statement_id.h), which the sampler
 * reads too.  Nested statements run inside the client's, and
 * get its figure; one shorter than a sample interval gets none.
 */
static int64
statement_private_peak(void)
{
	if (MyBEEntry == NULL || MyBEEntry->st_state != STATE_RUNNING)
		return -1;
	return sampler_statement_peak(statement_my_began);
}

/*
 * statements_executor_end
 *		At ExecutorEnd (memprobe's hook, hooks.c), which passes the rest of
 *		the chain as next: the execution's last sample and its node peaks
 *		before the nodes end, then next, then the execution stored.
 *		Returns its executor memory, or -1 when it is not tracked.  As
 *		pg_stat_statements' pgss_ExecutorEnd, whether it is stored and
 *		whether it is top-level are decided here, by the nesting level at
 *		its end, not at its start: a cursor opened inside a function or by
 *		DECLARE and closed by COMMIT ends at level 0 and counts as top-level
 *		in both (the README's join on toplevel relies on it).
 */
int64
statements_executor_end(QueryDesc *queryDesc, int level, ExecutorEnd_hook_type next)
{
	Execution  *e = executions != NULL ? execution_find(queryDesc) : NULL;
	NodePeakWalk walk = NODE_PEAK_WALK_INIT;
	int64		mem = 0;
	int64		temp_blks_start = 0;
	char	   *text = NULL;
	int			text_len = 0;
	bool		text_known = false;
	int64		private_peak;

	if (e != NULL)
		e->ended = true;
	if (e != NULL && !TRACKED(level))
		e = NULL;
	if (e != NULL)
	{
		/* before any node ends: e itself goes with es_query_cxt */
		execution_sample(e);
		node_peaks_walk(queryDesc, &walk);
		mem = e->mem_peak;
		temp_blks_start = e->temp_blks_start;
		/* its normalised text, if made, in the caller's context: e goes below */
		if (e->text != NULL)
		{
			text = pnstrdup(e->text, e->text_len);
			text_len = e->text_len;
		}
		/* known under the key it is stored with (a cursor may end at another level) */
		text_known = e->text_known && e->toplevel == (level == 0);
	}

	next(queryDesc);

	if (e == NULL)
		return -1;
	private_peak = statement_private_peak();
	store(queryDesc, text, text_len, text_known, level == 0, mem, &walk,
		  (pgBufferUsage.temp_blks_written - temp_blks_start) * (int64) BLCKSZ,
		  private_peak);
	/*
	 * memprobe.log_min_memory: off, one comparison; under it, two more.  A
	 * nested statement is judged on its own executor memory: the private
	 * figure it carries is its client statement's so far, and would log
	 * every nested statement after one large one.
	 */
	if (unlikely(statement_log_min_memory >= 0) &&
		statement_log_due(mem, level == 0 ? private_peak : -1))
		log_execution(queryDesc, text, level == 0, mem, private_peak, &walk);
	if (text != NULL)
		pfree(text);
	return mem;
}

/* ------------------------------------------------------------------------
 * Setup.
 * ------------------------------------------------------------------------
 */

/*
 * statements_init
 *		Define the settings (always, so configuration naming them is valid
 *		whether or not memprobe is preloaded).
 */
void
statements_init(void)
{
	/*
	 * The two sizes fix the shared memory, so they are PGC_POSTMASTER when
	 * preloaded.  A library loaded later cannot define a PGC_POSTMASTER
	 * setting (guc.c refuses after startup): there they are PGC_SIGHUP,
	 * readable and changed by nothing, as tracking is off anyway.
	 */
	GucContext	size_context = process_shared_preload_libraries_in_progress ?
		PGC_POSTMASTER : PGC_SIGHUP;

	DefineCustomEnumVariable("memprobe.track",
							 "Which statements memprobe_statements tracks.",
							 "top: statements issued by clients; all: also statements run inside "
							 "functions and procedures; none: no tracking.",
							 &statements_track, TRACK_TOP, track_options,
							 PGC_SUSET, 0, NULL, assign_track, NULL);
	DefineCustomIntVariable("memprobe.max",
							"Most statements memprobe_statements keeps.",
							"The least used are evicted when the table is full.",
							&statements_max, 5000, 100, INT_MAX / 2,
							size_context, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("memprobe.query_text_bytes",
							"Bytes of each statement's text memprobe_statements keeps.",
							"Texts are cut there, on a character boundary; each entry reserves "
							"this much shared memory.",
							&statements_text_bytes, 1024, 0, 1024 * 1024,
							size_context, GUC_UNIT_BYTE, NULL, NULL, NULL);
	statement_log_init();
}

/*
 * statements_preloaded
 *		memprobe is preloaded: compute query ids.
 */
void
statements_preloaded(void)
{
	/*
	 * Query ids cost every statement its jumbling (bench/RESULTS.md).  A
	 * server started with memprobe.track = none does not ask for them, so
	 * that turning tracking off really costs nothing; memprobe_statements
	 * then counts only statements that get a query id from elsewhere
	 * (compute_query_id = on, pg_stat_statements) once track is set later.
	 * The value read here is the one from the configuration at start.
	 */
	if (statements_track != TRACK_NONE)
		EnableQueryId();
}
