/*-------------------------------------------------------------------------
 *
 * node_peaks.c
 *	  The largest in-memory peak any node of a plan recorded, and whether a
 *	  node spilled to disk: memprobe_statements' node_peak, node_peak_type
 *	  and spills (statements.c), read at ExecutorEnd before the nodes end.
 *
 * Each node kind plugs in one function that reads what EXPLAIN ANALYZE
 * prints for it (Sort Memory, Hash Peak Memory Usage, HashAggregate and
 * Memoize Peak Memory Usage, Material Maximum Storage, and the stores of
 * WindowAgg, CTE Scan, Recursive Union and Table Function Scan from
 * stores.c), from the node's own state, so that no EXPLAIN is needed.
 * The leader's own nodes only: parallel workers' are gone by then.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/hashjoin.h"
#include "executor/instrument.h"
#include "nodes/execnodes.h"
#include "nodes/nodeFuncs.h"
#include "utils/tuplesort.h"

#include "report/node_peaks.h"
#include "shared/compat.h"
#include "shared/plan_walk.h"
#include "store/material.h"
#include "store/stores.h"

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
 * under EXPLAIN ANALYZE.  node_peaks_keep() gives every Hash node of a
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
 * node_peaks_keep_tree
 *		Give each Hash node of the plan the hinstrument that core keeps the
 *		peaks of rebuilt tables in (see hash_peak), in es_query_cxt, as
 *		ExecShutdownHash would allocate it under EXPLAIN ANALYZE.  Core reads
 *		it only to accumulate into it and to print EXPLAIN's figures, which
 *		it then gives exactly as with its own.
 */
void
node_peaks_keep_tree(QueryDesc *queryDesc)
{
	HashKeepWalk walk;

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
 * Later nodes report here: add a row, and its tag to node_may_report_peak's
 * switch (node_peaks.h).  A custom scan's function checks that the node is its own and
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



/* Fold the peak of a node that may report one into the walk. */
void
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


static bool
node_peak_walker(PlanState *ps, void *context)
{
	NodePeakWalk *walk = (NodePeakWalk *) context;

	if (ps == NULL || subplan_walked_before(&walk->subplans, ps))
		return false;
	node_peak_visit(ps, walk);
	return planstate_tree_walker(ps, node_peak_walker, context);
}

void
node_peaks_walk_tree(QueryDesc *queryDesc, NodePeakWalk *walk)
{
	subplan_walk_init(&walk->subplans, queryDesc->estate);
	(void) node_peak_walker(queryDesc->planstate, walk);
	subplan_walk_end(&walk->subplans);
}

/* The name memprobe_statements.node_peak_type shows for a walk's kind. */
const char *
node_peak_name(int kind)
{
	return node_peaks[kind].name;
}
