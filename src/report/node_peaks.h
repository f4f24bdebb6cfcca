/*-------------------------------------------------------------------------
 *
 * node_peaks.h
 *	  The largest in-memory peak of a plan's nodes (node_peaks.c).
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_NODE_PEAKS_H
#define MEMPROBE_NODE_PEAKS_H

#include "executor/execdesc.h"
#include "nodes/execnodes.h"

#include "shared/plan_walk.h"

/* A walk's result: the largest peak (bytes, its node_peak_name() kind, or -1) and any spill. */
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

extern void node_peak_fold(PlanState *ps, NodePeakWalk *walk);
extern void node_peaks_walk_tree(QueryDesc *queryDesc, NodePeakWalk *walk);
extern void node_peaks_keep_tree(QueryDesc *queryDesc);
extern const char *node_peak_name(int kind);

/* Fold one node's peak into the walk (a call only for the kinds that report). */
static inline void
node_peak_visit(PlanState *ps, NodePeakWalk *walk)
{
	if (node_may_report_peak(nodeTag(ps)))
		node_peak_fold(ps, walk);
}

/* An empty walk: no peak seen, no spill. */
#define NODE_PEAK_WALK_INIT {0, -1, false, {NULL, NULL}}

/*
 * At ExecutorEnd, before the nodes end: fold every node's peak into walk.
 * An OLTP statement's plan is often one node: then no walk.
 */
static inline void
node_peaks_walk(QueryDesc *queryDesc, NodePeakWalk *walk)
{
	if (queryDesc->planstate == NULL)
		return;
	if (planstate_is_leaf(queryDesc->planstate))
		node_peak_visit(queryDesc->planstate, walk);
	else
		node_peaks_walk_tree(queryDesc, walk);
}

/*
 * At ExecutorStart: give each Hash node the instrumentation core keeps the
 * peaks of rebuilt hash tables in (node_peaks.c, hash_peak).
 */
static inline void
node_peaks_keep(QueryDesc *queryDesc)
{
	if (queryDesc->planstate != NULL && !planstate_is_leaf(queryDesc->planstate))
		node_peaks_keep_tree(queryDesc);
}

#endif							/* MEMPROBE_NODE_PEAKS_H */
