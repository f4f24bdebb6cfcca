/*-------------------------------------------------------------------------
 *
 * statements.c
 *	  memprobe_statements: executor memory per statement, keyed as
 *	  pg_stat_statements keys its entries, so the two views join on queryid.
 *
 * Built as contrib/pg_stat_statements is (15.18, 18.6): a hash table in
 * shared memory requested in shmem_request_hook and created in
 * shmem_startup_hook, an LWLock guarding it (shared to update an existing
 * entry, exclusive to add or remove entries) and a spinlock per entry for
 * its counters; unlike pg_stat_statements, a backend updates an entry it
 * stored into before under that spinlock alone (entry_memo); least-used
 * entries evicted when the table is full
 * (entry_dealloc); nesting level tracked across ExecutorRun,
 * ExecutorFinish and ProcessUtility with PG_TRY/PG_CATCH, so that an
 * error leaves it right; not across a SELECT's ExecutorFinish (nothing
 * runs under it), nor a client's own statement's ExecutorRun, where an
 * error ends the transaction and its abort puts the level back.  Entries
 * are keyed by (userid, dbid, queryid, toplevel); a statement whose queryid is 0 is not tracked.  _PG_init
 * calls EnableQueryId() when preloaded, as pg_stat_statements does, unless
 * the server starts with memprobe.track = none.
 *
 * What one execution records (ExecutorStart to ExecutorEnd of one
 * QueryDesc; a cursor's fetches are one execution):
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
 *		(node_peaks[]).
 *	spilled: some node went past work_mem to disk (a disk sort, a hash join
 *		with more than one batch, a hash aggregate that spilled, a
 *		tuplestore on disk).
 *	temp bytes: pgBufferUsage.temp_blks_written * BLCKSZ, from ExecutorStart
 *		to the end of ExecutorEnd (nested statements' included).
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

#include <math.h>
#include <unistd.h>

#include "access/parallel.h"
#include "access/xact.h"
#include "catalog/pg_authid.h"
#include "executor/executor.h"
#include "executor/hashjoin.h"
#include "executor/instrument.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "nodes/execnodes.h"
#include "nodes/nodeFuncs.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/backend_status.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "utils/tuplesort.h"

#include "hooks.h"
#include "report/backends.h"
#include "guard/guard.h"
#include "guard/sampler.h"
#include "guard/statement_id.h"
#include "shared/compat.h"
#include "shared/memory_tree.h"
#include "shared/plan_walk.h"
#include "store/material.h"
#include "report/query_texts.h"
#include "report/statement_log.h"
#include "report/statements.h"
#include "store/stores.h"

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

static int	statements_max = 5000;
static int	statements_text_bytes = 1024;

/* as pg_stat_statements' USAGE_DECREASE_FACTOR and USAGE_DEALLOC_PERCENT */
#define USAGE_DECREASE_FACTOR	(0.99)
#define USAGE_DEALLOC_PERCENT	5

typedef struct StatementsKey
{
	Oid			userid;
	Oid			dbid;
	uint64		queryid;
	bool		toplevel;
} StatementsKey;

typedef struct StatementsEntry
{
	StatementsKey key;			/* hash key; must be first */
	slock_t		mutex;			/* protects incarnation and the counters below */
	/*
	 * Bumped whenever the entry leaves the table or its element is reused
	 * (under the exclusive lock and the mutex): a backend that remembers the
	 * entry (entry_memo) updates it under the mutex alone, and only if this
	 * is still what it remembered.  Neither is ever reinitialised once the
	 * table is made (entries_prepare).
	 */
	uint64		incarnation;
	int64		calls;
	double		mem_sum;		/* for the mean */
	int64		mem_max;
	int64		mem_last;
	int64		node_peak;		/* largest node peak over all executions */
	int			node_kind;		/* its node_peaks[] index, or -1 */
	int64		spills;			/* executions in which a node spilled */
	int64		temp_bytes;
	int64		private_max;	/* most private memory the sampler saw, or -1 */
	int64		failed_calls;	/* executions that ended in an error or cancel */
	int64		failed_mem_max;
	int64		failed_private_max; /* or -1 */
	double		usage;			/* for eviction */
	int			text_len;		/* bytes in text, set once at creation */
	char		text[FLEXIBLE_ARRAY_MEMBER];
} StatementsEntry;

typedef struct StatementsShared
{
	LWLock	   *lock;			/* guards the hash table's membership */
	slock_t		mutex;			/* protects the two below */
	int64		dealloc;		/* times entry_dealloc ran (evictions) */
	TimestampTz stats_reset;	/* last memprobe_statements_reset, or creation */
	pg_atomic_uint32 generation;	/* resets and evictions: query_texts.c */
} StatementsShared;

static StatementsShared *shared = NULL;
static HTAB *hash = NULL;

static shmem_request_hook_type prev_shmem_request = NULL;
static shmem_startup_hook_type prev_shmem_startup = NULL;
static post_parse_analyze_hook_type prev_post_parse_analyze = NULL;
static ExecutorRun_hook_type prev_executor_run = NULL;
static ExecutorFinish_hook_type prev_executor_finish = NULL;
static ProcessUtility_hook_type prev_process_utility = NULL;

/* executor and utility nesting depth, as pg_stat_statements' nesting_level */
static int	nesting_level = 0;

/*
 * Set while a client's own statement runs without an error handler of
 * memprobe's (statements_executor_run): an error ends its transaction, and
 * the abort puts the nesting level back (statements_xact_event).
 */
static bool run_without_handler = false;

#define TRACKED(level) ((level) < tracked_levels && !IsParallelWorker())

/*
 * One tracked execution in progress: allocated in its es_query_cxt and
 * unlinked by a reset callback on that context, so an execution that errors
 * out leaves nothing behind.
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

/* ------------------------------------------------------------------------
 * Per-node peaks: one function per node kind.
 * ------------------------------------------------------------------------
 */

/*
 * Report the node's in-memory peak in *bytes (-1 if it is not known, e.g.
 * for a sort that went to disk) and whether it spilled to disk; false if
 * the node has nothing to report (it never ran, or is not of this kind).
 */
typedef bool (*NodePeakFunction) (PlanState *ps, int64 *bytes, bool *spilled);

static bool
sort_peak_from(Tuplesortstate *state, int64 *bytes, bool *spilled)
{
	TuplesortInstrumentation stats;

	if (state == NULL)
		return false;
	tuplesort_get_stats(state, &stats);
	/*
	 * spaceUsed is in kB, as EXPLAIN prints it; once on disk tuplesort keeps
	 * only the disk figure, so a spilled sort reports no memory peak
	 */
	*spilled = stats.spaceType == SORT_SPACE_TYPE_DISK;
	*bytes = *spilled ? -1 : stats.spaceUsed * 1024;
	return true;
}

/* Sort: tuplesort_get_stats(), as explain.c's show_sort_info */
static bool
sort_peak(PlanState *ps, int64 *bytes, bool *spilled)
{
	SortState  *node = (SortState *) ps;

	if (!node->sort_Done)
		return false;
	return sort_peak_from((Tuplesortstate *) node->tuplesortstate, bytes, spilled);
}

/* Incremental Sort: the larger of its two sorts (both keep their maxima across resets) */
static bool
incremental_sort_peak(PlanState *ps, int64 *bytes, bool *spilled)
{
	IncrementalSortState *node = (IncrementalSortState *) ps;
	int64		b1 = 0,
				b2 = 0;
	bool		s1 = false,
				s2 = false;
	bool		got1 = sort_peak_from(node->fullsort_state, &b1, &s1);
	bool		got2 = sort_peak_from(node->prefixsort_state, &b2, &s2);

	if (!got1)
		b1 = -1;
	if (!got2)
		b2 = -1;

	*bytes = Max(b1, b2);
	*spilled = s1 || s2;
	return got1 || got2;
}

/*
 * Hash: the hash table's spacePeak, as show_hash_info; more than one batch
 * spilled.  A hash join rescanned with changed parameters destroys its table
 * and builds a new one (ExecReScanHashJoin), folding the old one's figures
 * into hinstrument only when hinstrument exists, which core arranges only
 * under EXPLAIN ANALYZE.  hash_keep_peaks() gives every Hash node of a
 * tracked execution one at its start, so that the peak of every table built
 * is kept, as EXPLAIN ANALYZE's "Memory Usage" shows it; the figure is the
 * larger of that and the current table's.
 */
static bool
hash_peak(PlanState *ps, int64 *bytes, bool *spilled)
{
	HashState  *node = (HashState *) ps;
	bool		got = false;

	*bytes = -1;
	*spilled = false;
	if (node->hinstrument != NULL && node->hinstrument->nbatch > 0)
	{
		*bytes = node->hinstrument->space_peak;
		*spilled = node->hinstrument->nbatch > 1;
		got = true;
	}
	if (node->hashtable != NULL)
	{
		*bytes = Max(*bytes, (int64) node->hashtable->spacePeak);
		*spilled |= node->hashtable->nbatch > 1;
		got = true;
	}
	return got;
}

typedef struct HashKeepWalk
{
	MemoryContext cxt;
	SubplanWalk subplans;		/* each shared sub plan walked once (plan_walk.h) */
} HashKeepWalk;

static bool
hash_keep_peaks_walker(PlanState *ps, void *context)
{
	HashKeepWalk *walk = (HashKeepWalk *) context;

	if (ps == NULL || subplan_walked_before(&walk->subplans, ps))
		return false;
	if (IsA(ps, HashState) && ((HashState *) ps)->hinstrument == NULL)
		((HashState *) ps)->hinstrument = (HashInstrumentation *)
			MemoryContextAllocZero(walk->cxt, sizeof(HashInstrumentation));
	return planstate_tree_walker(ps, hash_keep_peaks_walker, context);
}

/*
 * hash_keep_peaks
 *		Give each Hash node of the plan the hinstrument that core keeps the
 *		peaks of rebuilt tables in (see hash_peak), in es_query_cxt, as
 *		ExecShutdownHash would allocate it under EXPLAIN ANALYZE.  Core reads
 *		it only to accumulate into it and to print EXPLAIN's figures, which
 *		it then gives exactly as with its own.
 */
static void
hash_keep_peaks(QueryDesc *queryDesc)
{
	HashKeepWalk walk;

	if (queryDesc->planstate == NULL || planstate_is_leaf(queryDesc->planstate))
		return;
	walk.cxt = queryDesc->estate->es_query_cxt;
	subplan_walk_init(&walk.subplans, queryDesc->estate);
	(void) hash_keep_peaks_walker(queryDesc->planstate, &walk);
	subplan_walk_end(&walk.subplans);
}

/* hashed (and mixed) Agg: hash_mem_peak, as show_hashagg_info */
static bool
agg_peak(PlanState *ps, int64 *bytes, bool *spilled)
{
	AggState   *node = (AggState *) ps;

	if (node->aggstrategy != AGG_HASHED && node->aggstrategy != AGG_MIXED)
		return false;
	*bytes = node->hash_mem_peak;
	*spilled = node->hash_disk_used > 0 || node->hash_batches_used > 1;
	return true;
}

/* Memoize: mem_peak, or mem_used when nothing was ever evicted (show_memoize_info) */
static bool
memoize_peak(PlanState *ps, int64 *bytes, bool *spilled)
{
	MemoizeState *node = (MemoizeState *) ps;

	*bytes = Max(node->stats.mem_peak, node->mem_used);
	*spilled = false;
	return true;
}

/* core Material (tuplestore_get_stats, 18 only) */
static bool
material_peak(PlanState *ps, int64 *bytes, bool *spilled)
{
	if (!compat_material_state_peak((MaterialState *) ps, bytes, spilled))
		return false;
	if (*spilled)
		*bytes = -1;			/* the figure is the temp file's size */
	return true;
}

/* memprobe's Material: its Maximum Storage while in memory */
static bool
genmaterial_peak(PlanState *ps, int64 *bytes, bool *spilled)
{
	if (!material_exec_node_peak(ps, bytes, spilled))
		return false;
	if (*spilled)
		*bytes = -1;			/* the figure is the temp file's size */
	return true;
}

typedef struct NodePeakKind
{
	NodeTag		tag;			/* the PlanState's tag */
	const char *name;			/* shown in memprobe_statements.node_peak_type */
	NodePeakFunction peak;
} NodePeakKind;

/*
 * Later nodes report here: add a row, and its tag to node_peak_visit's
 * switch.  A custom scan's function checks that the node is its own and
 * returns false otherwise.
 */
static const NodePeakKind node_peaks[] = {
	{T_SortState, "Sort", sort_peak},
	{T_IncrementalSortState, "Incremental Sort", incremental_sort_peak},
	{T_HashState, "Hash", hash_peak},
	{T_AggState, "HashAggregate", agg_peak},
	{T_MemoizeState, "Memoize", memoize_peak},
	{T_MaterialState, "Materialize", material_peak},
	{T_CustomScanState, MATERIAL_CUSTOM_NAME, genmaterial_peak},
	/* their tuple stores (stores.c) */
	{T_WindowAggState, "WindowAgg", stores_node_peak},
	{T_RecursiveUnionState, "Recursive Union", stores_node_peak},
	{T_CteScanState, "CTE Scan", stores_node_peak},
	{T_TableFuncScanState, "Table Function Scan", stores_node_peak},
};

typedef struct NodePeakWalk
{
	int64		bytes;
	int			kind;
	bool		spilled;
	SubplanWalk subplans;		/* each shared sub plan walked once (plan_walk.h) */
} NodePeakWalk;

/* Does a node of this kind have a row in node_peaks[]? */
static inline bool
node_may_report_peak(NodeTag tag)
{
	/* most nodes report nothing: one switch instead of a pass over node_peaks[] */
	switch (tag)
	{
		case T_SortState:
		case T_IncrementalSortState:
		case T_HashState:
		case T_AggState:
		case T_MemoizeState:
		case T_MaterialState:
		case T_CustomScanState:
		case T_WindowAggState:
		case T_RecursiveUnionState:
		case T_CteScanState:
		case T_TableFuncScanState:
			return true;
		default:
			return false;
	}
}

/* Fold the peak of a node that may report one into the walk. */
static pg_noinline void
node_peak_fold(PlanState *ps, NodePeakWalk *walk)
{
	NodeTag		tag = nodeTag(ps);

	for (int i = 0; i < lengthof(node_peaks); i++)
	{
		int64		bytes = 0;
		bool		spilled = false;

		if (node_peaks[i].tag != tag || !node_peaks[i].peak(ps, &bytes, &spilled))
			continue;
		if (bytes >= 0 && (walk->kind < 0 || bytes > walk->bytes))
		{
			walk->bytes = bytes;
			walk->kind = i;
		}
		walk->spilled |= spilled;
		break;
	}
}

/* Fold one node's peak into the walk (a call only for the kinds that report). */
static inline void
node_peak_visit(PlanState *ps, NodePeakWalk *walk)
{
	if (node_may_report_peak(nodeTag(ps)))
		node_peak_fold(ps, walk);
}

static bool
node_peak_walker(PlanState *ps, void *context)
{
	NodePeakWalk *walk = (NodePeakWalk *) context;

	if (ps == NULL || subplan_walked_before(&walk->subplans, ps))
		return false;
	node_peak_visit(ps, walk);
	return planstate_tree_walker(ps, node_peak_walker, context);
}

/* ------------------------------------------------------------------------
 * Shared memory.
 * ------------------------------------------------------------------------
 */

static Size
entry_size(void)
{
	return MAXALIGN(offsetof(StatementsEntry, text) + statements_text_bytes + 1);
}

/* What memprobe_statements takes of shared memory, from memprobe.max and query_text_bytes. */
Size
statements_shmem_size(void)
{
	return add_size(MAXALIGN(sizeof(StatementsShared)),
					hash_estimate_size(statements_max, entry_size()));
}

/*
 * The most memprobe_statements may take: an eighth of the machine's memory.
 * The table is created whole at server start (ShmemInitHash with every
 * entry), so a size past this would fill most of the machine before the
 * first statement runs; no workload needs it (the default is 5.7MB, and
 * 100,000 entries of 1kB take 115MB).  0 when the machine does not say.
 */
static Size
statements_shmem_limit(void)
{
	long		pages = sysconf(_SC_PHYS_PAGES);
	long		page_size = sysconf(_SC_PAGESIZE);

	if (pages <= 0 || page_size <= 0)
		return 0;
	return (Size) pages / 8 * (Size) page_size;
}

static void
statements_shmem_request(void)
{
	Size		size = statements_shmem_size();
	Size		limit = statements_shmem_limit();

	if (prev_shmem_request)
		prev_shmem_request();
	if (limit > 0 && size > limit)
		ereport(ERROR,
				errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				errmsg("memprobe_statements would take %zu MB of shared memory, more than an eighth of this machine's memory (%zu MB)",
					   size / (1024 * 1024), limit / (1024 * 1024)),
				errdetail("memprobe.max is %d and memprobe.query_text_bytes is %d; each entry reserves its text's bytes.",
						  statements_max, statements_text_bytes),
				errhint("Lower memprobe.max or memprobe.query_text_bytes."));
	RequestAddinShmemSpace(size);
	RequestNamedLWLockTranche("memprobe_statements", 1);
}

/*
 * entries_prepare
 *		Initialise the spinlock and incarnation of every element the table
 *		will ever use, once, as it is made: a shared hash table allocates
 *		all its statements_max elements at creation (ShmemInitHash with
 *		init_size = max_size) and entry_alloc keeps it at most that full, so
 *		entering that many keys and removing them again touches each.  From
 *		then on an element's spinlock is never reinitialised: a backend with
 *		an old memo of the element may be taking it (store).
 */
static void
entries_prepare(void)
{
	StatementsKey key;

	memset(&key, 0, sizeof(key));
	for (int i = 0; i < statements_max; i++)
	{
		StatementsEntry *entry;

		key.queryid = (uint64) i + 1;
		entry = hash_search(hash, &key, HASH_ENTER, NULL);
		SpinLockInit(&entry->mutex);
		entry->incarnation = 0;
	}
	for (int i = 0; i < statements_max; i++)
	{
		key.queryid = (uint64) i + 1;
		hash_search(hash, &key, HASH_REMOVE, NULL);
	}
}

/*
 * An entry leaves the table (caller holds the lock exclusively): a backend
 * that remembers it no longer updates it, and stores anew.
 */
static void
entry_remove(StatementsEntry *entry)
{
	SpinLockAcquire(&entry->mutex);
	entry->incarnation++;
	SpinLockRelease(&entry->mutex);
	hash_search(hash, &entry->key, HASH_REMOVE, NULL);
}

static void
statements_shmem_startup(void)
{
	bool		found;
	HASHCTL		info;

	if (prev_shmem_startup)
		prev_shmem_startup();

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	shared = ShmemInitStruct("memprobe_statements", sizeof(StatementsShared), &found);
	if (!found)
	{
		shared->lock = &(GetNamedLWLockTranche("memprobe_statements"))->lock;
		SpinLockInit(&shared->mutex);
		shared->dealloc = 0;
		shared->stats_reset = GetCurrentTimestamp();
		pg_atomic_init_u32(&shared->generation, 0);
	}
	info.keysize = sizeof(StatementsKey);
	info.entrysize = entry_size();
	hash = ShmemInitHash("memprobe_statements hash", statements_max, statements_max,
						 &info, HASH_ELEM | HASH_BLOBS);
	if (!found)
		entries_prepare();
	LWLockRelease(AddinShmemInitLock);
}

/* An entry and its usage as entry_dealloc read it. */
typedef struct EntryUsage
{
	StatementsEntry *entry;
	double		usage;
} EntryUsage;

static int
usage_cmp(const void *a, const void *b)
{
	double		l = ((const EntryUsage *) a)->usage;
	double		r = ((const EntryUsage *) b)->usage;

	return l < r ? -1 : (l > r ? 1 : 0);
}

/*
 * entry_dealloc
 *		As pg_stat_statements' entry_dealloc: decay every entry's usage and
 *		remove the USAGE_DEALLOC_PERCENT least used (at least 10).  Caller
 *		holds the lock exclusively.
 */
static void
entry_dealloc(void)
{
	HASH_SEQ_STATUS seq;
	EntryUsage *entries;
	StatementsEntry *entry;
	int			n = 0;
	int			nvictims;

	/*
	 * Usage is read and decayed under each entry's spinlock and sorted as
	 * read: backends update entries they remember under that alone (store).
	 */
	entries = palloc(hash_get_num_entries(hash) * sizeof(EntryUsage));
	hash_seq_init(&seq, hash);
	while ((entry = hash_seq_search(&seq)) != NULL)
	{
		SpinLockAcquire(&entry->mutex);
		entry->usage *= USAGE_DECREASE_FACTOR;
		entries[n].usage = entry->usage;
		SpinLockRelease(&entry->mutex);
		entries[n++].entry = entry;
	}
	qsort(entries, n, sizeof(EntryUsage), usage_cmp);
	nvictims = Min(n, Max(10, n * USAGE_DEALLOC_PERCENT / 100));
	for (int i = 0; i < nvictims; i++)
		entry_remove(entries[i].entry);
	pfree(entries);

	SpinLockAcquire(&shared->mutex);
	shared->dealloc++;
	SpinLockRelease(&shared->mutex);
	pg_atomic_fetch_add_u32(&shared->generation, 1);
}

/*
 * entry_alloc
 *		Add an entry with zeroed counters and the statement's text, making
 *		room first if the table is full.  Caller holds the lock exclusively.
 */
static StatementsEntry *
entry_alloc(StatementsKey *key, const char *text, int text_len)
{
	StatementsEntry *entry;
	bool		found;

	while (hash_get_num_entries(hash) >= statements_max)
		entry_dealloc();

	entry = hash_search(hash, key, HASH_ENTER, &found);
	if (!found)
	{
		/* the spinlock as it is (entries_prepare): an old memo may be taking it */
		SpinLockAcquire(&entry->mutex);
		entry->incarnation++;
		memset(&entry->calls, 0, offsetof(StatementsEntry, text) -
			   offsetof(StatementsEntry, calls));
		entry->node_kind = -1;
		entry->private_max = -1;
		entry->failed_private_max = -1;
		entry->usage = 1.0;
		SpinLockRelease(&entry->mutex);
		memcpy(entry->text, text, text_len);
		entry->text[text_len] = '\0';
		entry->text_len = text_len;
	}
	return entry;
}

/*
 * source_text
 *		A statement's own text within its source string (CleanQuerytext, as
 *		pg_stat_statements; location -1 means all of it), cut to
 *		memprobe.query_text_bytes on a character boundary.  Empty when the
 *		location does not fit the text.
 */
static const char *
source_text(const char *text, int location, int length, int *len)
{
	if (text == NULL || location > (int) strlen(text))
	{
		*len = 0;
		return "";
	}
	text = CleanQuerytext(text, &location, &length);
	*len = length > statements_text_bytes ?
		pg_mbcliplen(text, length, statements_text_bytes) : length;
	return text;
}

/* The text of queryDesc's statement (source_text). */
static const char *
statement_text(QueryDesc *queryDesc, int *len)
{
	return source_text(queryDesc->sourceText, queryDesc->plannedstmt->stmt_location,
					   queryDesc->plannedstmt->stmt_len, len);
}

/*
 * The shared entries this backend stored into last, by key, with the
 * incarnation each had then.  A statement whose entry is remembered is
 * stored under that entry's spinlock alone, if its incarnation is still
 * the one remembered: neither the table's lock nor a lookup (the lock took
 * some 110 of memprobe's instructions per pgbench -S statement, the lookup
 * some 250, bench/RESULTS.md).  An entry that left the table since (entry_remove) or
 * whose element now holds another (entry_alloc) has another incarnation,
 * and is looked up again under the lock.
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
 * Fold one execution's figures into its entry, creating it if needed, with
 * the normalised text when known (query_texts.c), else the statement's own.
 */
static void
store(QueryDesc *queryDesc, const char *normalized, int normalized_len, bool text_known,
	  bool toplevel, int64 mem, NodePeakWalk *walk, int64 temp_bytes, int64 private_peak)
{
	StatementsKey key;
	StatementsEntry *entry;
	EntryMemo  *m;

	memset(&key, 0, sizeof(key));
	key.userid = GetUserId();
	key.dbid = MyDatabaseId;
	key.queryid = queryDesc->plannedstmt->queryId;
	key.toplevel = toplevel;

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

	LWLockAcquire(shared->lock, LW_SHARED);
	entry = hash_search(hash, &key, HASH_FIND, NULL);
	if (entry == NULL)
	{
		const char *text;
		int			text_len;

		LWLockRelease(shared->lock);
		if (normalized != NULL)
		{
			text = normalized;
			text_len = normalized_len;
		}
		else
			text = statement_text(queryDesc, &text_len);
		LWLockAcquire(shared->lock, LW_EXCLUSIVE);
		entry = entry_alloc(&key, text, text_len);
	}
	entry_memo_keep(m, &key, entry);
	SpinLockAcquire(&entry->mutex);
	entry_add(entry, mem, walk, temp_bytes, private_peak);
	SpinLockRelease(&entry->mutex);
	LWLockRelease(shared->lock);

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
		StatementsEntry *entry;

		memset(&key, 0, sizeof(key));
		key.userid = GetUserId();
		key.dbid = MyDatabaseId;
		key.queryid = queryDesc->plannedstmt->queryId;
		key.toplevel = toplevel;
		/* an entry's text is set once, as it is made (entry_alloc) */
		LWLockAcquire(shared->lock, LW_SHARED);
		entry = hash_search(hash, &key, HASH_FIND, NULL);
		if (entry != NULL)
			copy = pnstrdup(entry->text, entry->text_len);
		LWLockRelease(shared->lock);
		if (copy == NULL)
		{
			int			len;
			const char *own = statement_text(queryDesc, &len);

			copy = pnstrdup(own, len);
		}
		text = copy;
	}
	statement_log_report(queryDesc->plannedstmt->queryId, text, mem, private_peak,
						 walk->kind >= 0 ? node_peaks[walk->kind].name : NULL, walk->bytes,
						 false);
	if (copy != NULL)
		pfree(copy);
}

/* ------------------------------------------------------------------------
 * Executor hooks.
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

	memset(&f->key, 0, sizeof(f->key));
	f->key.userid = e->userid;
	f->key.dbid = MyDatabaseId;
	f->key.queryid = e->queryid;
	f->key.toplevel = true;
	f->mem = e->mem_peak;
	f->private_peak = statement_private_peak();
	if (e->text != NULL)
	{
		text = e->text;
		f->text_len = e->text_len;
	}
	else
		text = source_text(e->query_desc->sourceText, e->stmt_location, e->stmt_len,
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
		StatementsEntry *entry;
		bool		log;

		LWLockAcquire(shared->lock, LW_SHARED);
		entry = hash_search(hash, &f->key, HASH_FIND, NULL);
		if (entry == NULL)
		{
			LWLockRelease(shared->lock);
			LWLockAcquire(shared->lock, LW_EXCLUSIVE);
			entry = entry_alloc(&f->key, f->text, f->text_len);
		}
		SpinLockAcquire(&entry->mutex);
		entry->usage += 1.0;
		entry->failed_calls++;
		entry->failed_mem_max = Max(entry->failed_mem_max, f->mem);
		entry->failed_private_max = Max(entry->failed_private_max, f->private_peak);
		SpinLockRelease(&entry->mutex);
		/* memprobe.log_min_memory: with the text the entry keeps (set once, at its making) */
		log = statement_log_min_memory >= 0 && statement_log_due(f->mem, f->private_peak);
		if (log)
		{
			memcpy(f->text, entry->text, entry->text_len);
			f->text[entry->text_len] = '\0';
		}
		LWLockRelease(shared->lock);
		if (log)
			statement_log_report(f->key.queryid, f->text, f->mem, f->private_peak,
								 NULL, 0, true);
	}
}

/* A transaction event (memprobe's transaction callback, hooks.c). */
void
statements_xact_event(XactEvent event)
{
	/*
	 * A client's statement that ran without a handler failed (or, in a
	 * background worker that caught its error without aborting, is over):
	 * no statement runs any more.  Nothing runs in between that reads the
	 * level: the abort marks the failed portal and the others of its
	 * transaction failed (AtAbort_Portals), so no ExecutorEnd comes first.
	 */
	if (unlikely(run_without_handler))
	{
		nesting_level = 0;
		run_without_handler = false;
	}
	if (nfailed > 0 && shared != NULL &&
		(event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT))
		store_failed();
}

/* A subtransaction event (memprobe's subtransaction callback, hooks.c). */
void
statements_subxact_event(SubXactEvent event)
{
	if (nfailed > 0 && shared != NULL && event == SUBXACT_EVENT_ABORT_SUB)
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

/* The rest of statements_post_parse_analyze, out of line: its fast path saves no registers. */
static pg_noinline void
note_parsed(ParseState *pstate, Query *query, JumbleState *jstate, uint32 generation)
{
	query_texts_check_generation(generation);
	query_texts_parsed(pstate, query, jstate, nesting_level == 0, statements_text_bytes);
}

/*
 * After parse analysis: where the statement's constants are, for its
 * normalised text (query_texts.c), as pg_stat_statements' hook keeps them.
 */
static void
statements_post_parse_analyze(ParseState *pstate, Query *query, JumbleState *jstate)
{
	uint32		generation;

	if (prev_post_parse_analyze)
		prev_post_parse_analyze(pstate, query, jstate);
	/*
	 * Nothing to normalise (no constant, no query id), or not tracked: the
	 * statements memprobe.track counts, as pg_stat_statements: a function's
	 * statement analysed while track = top and run again from its cached
	 * plan after track = all keeps its text as written in both.
	 */
	if (jstate == NULL || jstate->clocations_count == 0 || query->queryId == UINT64CONST(0) ||
		shared == NULL || !TRACKED(nesting_level))
		return;
	/* a statement run again, its text known: two comparisons, no call */
	generation = pg_atomic_read_u32(&shared->generation);
	if (generation == query_texts_known_generation &&
		query_texts_known_last(GetUserId(), query->queryId, nesting_level == 0))
		return;
	note_parsed(pstate, query, jstate, generation);
}

/* After ExecutorStart (memprobe's ExecutorStart_hook, hooks.c). */
void
statements_executor_started(QueryDesc *queryDesc, int eflags)
{
	if (nesting_level == 0)
	{
		/* a cached plan's Execute: its statement begins here, if not at its parse or plan */
		statement_begin();
		if ((eflags & EXEC_FLAG_EXPLAIN_ONLY) == 0)
			guard_top_level_query_started(statement_my_began);
	}
	if (TRACKED(nesting_level) &&
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
		e->toplevel = nesting_level == 0;
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
		generation = pg_atomic_read_u32(&shared->generation);
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
		hash_keep_peaks(queryDesc);
	}
}

/*
 * The executor and utility nesting level now: 0 outside any statement's
 * execution (while a client's statement is planned, for one).
 */
int
statements_nesting_level(void)
{
	return nesting_level;
}

/*
 * At a transaction event: does a statement of a level down still run (a
 * procedure's COMMIT or ROLLBACK, inside its CALL)?  Not after a client's
 * statement run without a handler failed: its level was never put back.
 */
bool
statements_nested_running(void)
{
	return nesting_level > 0 && !run_without_handler;
}

/*
 * A fast-path call's function runs (hooks.c): the statements it runs are a
 * level down, as when it is called from a query, and do not end the call.
 */
void
statements_call_entered(void)
{
	nesting_level++;
}

void
statements_call_left(void)
{
	nesting_level--;
}

/*
 * From the error handler of a hook that ran a statement: the guard's cancel
 * becomes its out-of-memory error (guard.c); any error goes on up.  cxt is
 * the memory context the hook was called in (not ErrorContext).
 */
static void
statement_failed(MemoryContext cxt)
{
	guard_translate_cancel(cxt);
	PG_RE_THROW();
}

/* The next ExecutorRun in the chain, or core's. */
static inline void
run_next(COMPAT_EXECUTOR_RUN_PARAMS)
{
	if (prev_executor_run)
		prev_executor_run(COMPAT_EXECUTOR_RUN_ARGS);
	else
		standard_ExecutorRun(COMPAT_EXECUTOR_RUN_ARGS);
}

/* The next ExecutorFinish in the chain, or core's. */
static inline void
finish_next(QueryDesc *queryDesc)
{
	if (prev_executor_finish)
		prev_executor_finish(queryDesc);
	else
		standard_ExecutorFinish(queryDesc);
}

/* Error context callback of such a run: its execution's sample at an error. */
static void
sample_at_error(void *arg)
{
	Execution  *e;

	if (executions != NULL && (e = execution_find((QueryDesc *) arg)) != NULL)
		execution_sample(e);
}

/*
 * A run with the guard's handler around it (statements_executor_run): out
 * of line, so that the run without one saves no registers for setjmp.
 */
static pg_noinline void
run_with_handler(COMPAT_EXECUTOR_RUN_PARAMS)
{
	MemoryContext cxt = CurrentMemoryContext;
	Execution  *e;

	nesting_level++;
	PG_TRY();
	{
		run_next(COMPAT_EXECUTOR_RUN_ARGS);
	}
	PG_CATCH();
	{
		nesting_level--;
		/* a failed execution's last sample (note_failed reads it) */
		if (executions != NULL && (e = execution_find(queryDesc)) != NULL)
			execution_sample(e);
		statement_failed(cxt);
	}
	PG_END_TRY();
	nesting_level--;
}

static void
statements_executor_run(COMPAT_EXECUTOR_RUN_PARAMS)
{
	Execution  *e;

	/* each Execute message of a portal is a statement of its own */
	if (nesting_level == 0)
		statement_begin();
	if (nesting_level == 0 && !guard_cancel_needs_handler(0))
	{
		/*
		 * A failed execution's last sample (note_failed reads it), taken as
		 * the error is raised, before anything is freed: what the handler
		 * below takes as it catches.  Error context callbacks run for every
		 * message reported below (a NOTICE, a LOG line too): each such
		 * message then costs a walk of the executor's context tree, which
		 * only raises the peak to what is held then.  The handler's sample
		 * is run_with_handler's.
		 */
		ErrorContextCallback sample;

		sample.callback = sample_at_error;
		sample.arg = queryDesc;
		sample.previous = error_context_stack;
		error_context_stack = &sample;
		nesting_level++;
		run_without_handler = true;
		run_next(COMPAT_EXECUTOR_RUN_ARGS);
		run_without_handler = false;
		nesting_level--;
		error_context_stack = sample.previous;
	}
	else
		run_with_handler(COMPAT_EXECUTOR_RUN_ARGS);

	if (executions != NULL && (e = execution_find(queryDesc)) != NULL)
		execution_sample(e);
	/* a client's Execute ends here (a portal may be fetched from later, idle in between) */
	if (nesting_level == 0)
		statement_end();
}

static void
statements_executor_finish(QueryDesc *queryDesc)
{
	MemoryContext cxt = CurrentMemoryContext;

	/*
	 * A SELECT without a data-modifying WITH has nothing to finish: no
	 * secondary ModifyTable to run and no trigger queued at its level (its
	 * functions' statements queue and fire theirs at their own), so no
	 * statement runs nested below and nothing there checks for interrupts.
	 * Neither the level nor the guard's error handler is needed: 70 -> 26
	 * instructions of this hook per OLTP statement (bench/RESULTS.md).
	 */
	if (queryDesc->operation == CMD_SELECT && queryDesc->estate->es_auxmodifytables == NIL)
	{
		finish_next(queryDesc);
		return;
	}

	nesting_level++;
	PG_TRY();
	{
		finish_next(queryDesc);
	}
	PG_CATCH();
	{
		nesting_level--;
		statement_failed(cxt);
	}
	PG_END_TRY();
	nesting_level--;
	/* no sample here: ExecutorEnd takes one before anything is freed */
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
 *		Memprobe's ExecutorEnd_hook (hooks.c) calls this, which calls the
 *		rest of the chain in its place.  Take the execution's last sample
 *		and its node peaks before the nodes
 *		end, then store it.  As pg_stat_statements' pgss_ExecutorEnd, whether
 *		it is stored and whether it is top-level are decided here, by the
 *		nesting level at its end, not at its start: a cursor opened inside a
 *		function or by DECLARE and closed by COMMIT ends at level 0 and counts
 *		as top-level in both (the README's join on toplevel relies on it).
 */
void
statements_executor_end(QueryDesc *queryDesc)
{
	Execution  *e = executions != NULL ? execution_find(queryDesc) : NULL;
	NodePeakWalk walk = {0, -1, false, {NULL, NULL}};
	int64		mem = 0;
	int64		temp_blks_start = 0;
	char	   *text = NULL;
	int			text_len = 0;
	bool		text_known = false;

	if (e != NULL)
		e->ended = true;
	if (e != NULL && !TRACKED(nesting_level))
		e = NULL;
	if (e != NULL)
	{
		/* before any node ends: e itself goes with es_query_cxt */
		execution_sample(e);
		if (queryDesc->planstate != NULL)
		{
			if (planstate_is_leaf(queryDesc->planstate))
				node_peak_visit(queryDesc->planstate, &walk);
			else
			{
				subplan_walk_init(&walk.subplans, queryDesc->estate);
				(void) node_peak_walker(queryDesc->planstate, &walk);
				subplan_walk_end(&walk.subplans);
			}
		}
		mem = e->mem_peak;
		temp_blks_start = e->temp_blks_start;
		/* its normalised text, if made, in the caller's context: e goes below */
		if (e->text != NULL)
		{
			text = pnstrdup(e->text, e->text_len);
			text_len = e->text_len;
		}
		/* known under the key it is stored with (a cursor may end at another level) */
		text_known = e->text_known && e->toplevel == (nesting_level == 0);
	}

	memprobe_next_executor_end(queryDesc);

	if (e != NULL)
	{
		int64		private_peak = statement_private_peak();

		store(queryDesc, text, text_len, text_known, nesting_level == 0, mem, &walk,
			  (pgBufferUsage.temp_blks_written - temp_blks_start) * (int64) BLCKSZ,
			  private_peak);
		/*
		 * memprobe.log_min_memory: off, one comparison; under it, two more.
		 * A nested statement is judged on its own executor memory: the
		 * private figure it carries is its client statement's so far, and
		 * would log every nested statement after one large one.
		 */
		if (unlikely(statement_log_min_memory >= 0) &&
			statement_log_due(mem, nesting_level == 0 ? private_peak : -1))
			log_execution(queryDesc, text, nesting_level == 0, mem, private_peak, &walk);
	}
	if (text != NULL)
		pfree(text);

	/* a client's statement ended: memprobe_backends may be due; a guard's cap goes */
	if (nesting_level == 0)
	{
		backends_statement_end(queryDesc->plannedstmt->queryId, e != NULL ? mem : -1);
		statement_end();
		guard_top_level_query_ended();
	}
}

/* The next ProcessUtility in the chain, or core's. */
static void
run_process_utility(PlannedStmt *pstmt, const char *queryString,
					bool readOnlyTree, ProcessUtilityContext context,
					ParamListInfo params, QueryEnvironment *queryEnv,
					DestReceiver *dest, QueryCompletion *qc)
{
	if (prev_process_utility)
		prev_process_utility(pstmt, queryString, readOnlyTree, context,
							 params, queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context,
								params, queryEnv, dest, qc);
}

/*
 * Statements run by a utility statement (DO, CALL, EXPLAIN ANALYZE, DECLARE
 * CURSOR, CREATE TABLE AS...) are nested, as pg_stat_statements counts them
 * (with pg_stat_statements.track_utility on, its default).  EXECUTE,
 * PREPARE and DEALLOCATE are not a level: an EXECUTE's statement is
 * top-level, as pg_stat_statements' PGSS_HANDLED_UTILITY decides.
 */
static void
statements_process_utility(PlannedStmt *pstmt, const char *queryString,
						   bool readOnlyTree, ProcessUtilityContext context,
						   ParamListInfo params, QueryEnvironment *queryEnv,
						   DestReceiver *dest, QueryCompletion *qc)
{
	Node	   *parsetree = pstmt->utilityStmt;
	MemoryContext cxt = CurrentMemoryContext;

	if (nesting_level == 0)
		statement_begin();
	if (IsA(parsetree, ExecuteStmt) || IsA(parsetree, PrepareStmt) ||
		IsA(parsetree, DeallocateStmt))
	{
		run_process_utility(pstmt, queryString, readOnlyTree, context,
							params, queryEnv, dest, qc);
		return;
	}

	nesting_level++;
	PG_TRY();
	{
		run_process_utility(pstmt, queryString, readOnlyTree, context,
							params, queryEnv, dest, qc);
	}
	PG_CATCH();
	{
		nesting_level--;
		statement_failed(cxt);
	}
	PG_END_TRY();
	nesting_level--;

	if (nesting_level == 0)
	{
		backends_statement_end(pstmt->queryId, -1);
		statement_end();
	}
}

/* ------------------------------------------------------------------------
 * SQL functions.
 * ------------------------------------------------------------------------
 */

static void
require_preloaded(void)
{
	if (shared == NULL || hash == NULL)
		ereport(ERROR,
				errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				errmsg("memprobe must be loaded via \"shared_preload_libraries\" to track statements"),
				errhint("Add memprobe to shared_preload_libraries and restart the server."));
}

PG_FUNCTION_INFO_V1(memprobe_statements);
PG_FUNCTION_INFO_V1(memprobe_statements_reset);
PG_FUNCTION_INFO_V1(memprobe_statements_info);

#define STATEMENTS_COLS 17

/*
 * memprobe_statements
 *		SQL SRF: one row per entry.  As pg_stat_statements: every role sees
 *		every row's figures, but the queryid and text only of its own
 *		statements unless it has the privileges of pg_read_all_stats
 *		(superusers do).
 */
Datum
memprobe_statements(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			userid = GetUserId();
	bool		see_all = has_privs_of_role(userid, ROLE_PG_READ_ALL_STATS);
	HASH_SEQ_STATUS seq;
	StatementsEntry *entry;

	require_preloaded();
	InitMaterializedSRF(fcinfo, 0);
	/* 0.2's definition lacks the last four columns (max_private_bytes, failed_*) */
	if (rsinfo->setDesc->natts != STATEMENTS_COLS &&
		rsinfo->setDesc->natts != STATEMENTS_COLS - 4)
		elog(ERROR, "memprobe_statements() declared with %d columns; this library gives %d",
			 rsinfo->setDesc->natts, STATEMENTS_COLS);

	LWLockAcquire(shared->lock, LW_SHARED);
	hash_seq_init(&seq, hash);
	while ((entry = hash_seq_search(&seq)) != NULL)
	{
		Datum		values[STATEMENTS_COLS];
		bool		nulls[STATEMENTS_COLS];
		StatementsEntry c;
		int			i = 0;

		memset(nulls, 0, sizeof(nulls));
		SpinLockAcquire(&entry->mutex);
		memcpy(&c, entry, offsetof(StatementsEntry, text));
		SpinLockRelease(&entry->mutex);

		values[i++] = ObjectIdGetDatum(c.key.userid);
		values[i++] = ObjectIdGetDatum(c.key.dbid);
		values[i++] = BoolGetDatum(c.key.toplevel);
		if (see_all || c.key.userid == userid)
		{
			values[i++] = Int64GetDatum((int64) c.key.queryid);
			values[i++] = CStringGetTextDatum(entry->text);
		}
		else
		{
			nulls[i++] = true;
			values[i++] = CStringGetTextDatum("<insufficient privilege>");
		}
		values[i++] = Int64GetDatum(c.calls);
		values[i++] = Int64GetDatum(c.mem_max);
		values[i++] = Float8GetDatum(c.calls > 0 ? c.mem_sum / c.calls : 0.0);
		values[i++] = Int64GetDatum(c.mem_last);
		if (c.node_kind >= 0)
		{
			values[i++] = Int64GetDatum(c.node_peak);
			values[i++] = CStringGetTextDatum(node_peaks[c.node_kind].name);
		}
		else
		{
			nulls[i++] = true;
			nulls[i++] = true;
		}
		values[i++] = Int64GetDatum(c.spills);
		values[i++] = Int64GetDatum(c.temp_bytes);
		if (c.private_max >= 0)
			values[i++] = Int64GetDatum(c.private_max);
		else
			nulls[i++] = true;
		values[i++] = Int64GetDatum(c.failed_calls);
		values[i++] = Int64GetDatum(c.failed_mem_max);
		if (c.failed_private_max >= 0)
			values[i++] = Int64GetDatum(c.failed_private_max);
		else
			nulls[i++] = true;
		Assert(i == STATEMENTS_COLS);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	LWLockRelease(shared->lock);

	return (Datum) 0;
}

/*
 * memprobe_statements_reset
 *		Remove every entry (not executable by PUBLIC) and return the time of
 *		the reset, which memprobe_statements_info shows from then on (as
 *		pg_stat_statements_reset does from PostgreSQL 17).
 */
Datum
memprobe_statements_reset(PG_FUNCTION_ARGS)
{
	HASH_SEQ_STATUS seq;
	StatementsEntry *entry;
	TimestampTz now = GetCurrentTimestamp();

	require_preloaded();
	LWLockAcquire(shared->lock, LW_EXCLUSIVE);
	hash_seq_init(&seq, hash);
	while ((entry = hash_seq_search(&seq)) != NULL)
		entry_remove(entry);
	SpinLockAcquire(&shared->mutex);
	shared->dealloc = 0;
	shared->stats_reset = now;
	SpinLockRelease(&shared->mutex);
	pg_atomic_fetch_add_u32(&shared->generation, 1);
	LWLockRelease(shared->lock);
	PG_RETURN_TIMESTAMPTZ(now);
}

/*
 * memprobe_statements_info
 *		As pg_stat_statements_info: how many times entries were evicted to make
 *		room (each time the least used 5%, at least 10) and when the figures
 *		were last reset (or the server started).
 */
Datum
memprobe_statements_info(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[2];
	bool		nulls[2] = {false, false};

	require_preloaded();
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	SpinLockAcquire(&shared->mutex);
	values[0] = Int64GetDatum(shared->dealloc);
	values[1] = TimestampTzGetDatum(shared->stats_reset);
	SpinLockRelease(&shared->mutex);

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
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
 * statements_install_hooks
 *		Request shared memory, compute query ids and install the executor
 *		hooks (called only when memprobe is preloaded).
 */
void
statements_install_hooks(void)
{
	/*
	 * Query ids cost every statement its jumbling (2.8% of a pgbench -S
	 * statement's instructions here: README, bench/RESULTS.md).  A server
	 * started with memprobe.track = none does not ask for them, so that
	 * turning tracking off really costs nothing; memprobe_statements then
	 * counts only statements that get a query id from elsewhere
	 * (compute_query_id = on, pg_stat_statements) once track is set later.
	 * The value read here is the one from the configuration at start.
	 */
	if (statements_track != TRACK_NONE)
		EnableQueryId();

	prev_shmem_request = shmem_request_hook;
	shmem_request_hook = statements_shmem_request;
	prev_shmem_startup = shmem_startup_hook;
	shmem_startup_hook = statements_shmem_startup;
	prev_post_parse_analyze = post_parse_analyze_hook;
	post_parse_analyze_hook = statements_post_parse_analyze;
	prev_executor_run = ExecutorRun_hook;
	ExecutorRun_hook = statements_executor_run;
	prev_executor_finish = ExecutorFinish_hook;
	ExecutorFinish_hook = statements_executor_finish;
	prev_process_utility = ProcessUtility_hook;
	ProcessUtility_hook = statements_process_utility;
}
