/*-------------------------------------------------------------------------
 *
 * plan_walk.h
 *	  Helpers for the plan state walks memprobe's executor hooks make: a
 *	  shortcut for one-node plans, and a way to go through a sub plan shared
 *	  by several SubPlans once.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_PLAN_WALK_H
#define MEMPROBE_PLAN_WALK_H

#include "nodes/bitmapset.h"
#include "nodes/execnodes.h"
#include "nodes/pg_list.h"
#include "nodes/plannodes.h"

/*
 * True if planstate_tree_walker would visit nothing below ps: no outer or
 * inner plan, no initplans or subplans, and not one of the node types whose
 * children it finds elsewhere (the special cases of planstate_tree_walker,
 * the same in 15, 17 and 18).  An OLTP statement's plan is often one such
 * node, and a hook that needs to look at every node can then look at this
 * one and skip the walk.
 */
static inline bool
planstate_is_leaf(PlanState *ps)
{
	return ps->lefttree == NULL && ps->righttree == NULL &&
		ps->initPlan == NIL && ps->subPlan == NIL &&
		!IsA(ps, AppendState) && !IsA(ps, MergeAppendState) &&
		!IsA(ps, BitmapAndState) && !IsA(ps, BitmapOrState) &&
		!IsA(ps, SubqueryScanState) && !IsA(ps, CustomScanState);
}

/*
 * The same for a finished plan (before any executor state exists): no outer
 * or inner plan, and not one of the node types that keep child plans in a
 * field of their own.  A plan's initplans and subplans are in the
 * PlannedStmt's subplans list, which the caller checks.
 */
static inline bool
plan_is_leaf(Plan *plan)
{
	return plan->lefttree == NULL && plan->righttree == NULL &&
		!IsA(plan, Append) && !IsA(plan, MergeAppend) &&
		!IsA(plan, BitmapAnd) && !IsA(plan, BitmapOr) &&
		!IsA(plan, SubqueryScan) && !IsA(plan, CustomScan);
}

/*
 * Several SubPlanStates can share one sub plan's state (the same plan_id,
 * es_subplanstates[plan_id - 1]): the copies of a correlated sub-select in
 * the filter of each partition of a partitioned table, or in a bitmap heap
 * scan's index qual and recheck qual.  planstate_tree_walker goes through
 * that state once per copy; ExplainSubPlans() shows it once, by plan_id.  A
 * walk that must see each node once (to give it one record, or to keep the
 * walk linear in the plan's size) asks subplan_walked_before() of each node.
 * Only a sub plan's top node can be reached twice: below it each node has
 * one parent.  Nodes are told apart by plan_node_id, unique in the plan
 * (setrefs.c numbers them; parallel query keys its shared state by it).
 * Nothing is allocated for a plan without sub plans.
 */
typedef struct SubplanWalk
{
	Bitmapset  *tops;			/* plan_node_id of each sub plan's top node */
	Bitmapset  *walked;			/* those walked already */
} SubplanWalk;

static inline void
subplan_walk_init(SubplanWalk *sw, EState *estate)
{
	ListCell   *lc;

	sw->tops = NULL;
	sw->walked = NULL;
	foreach(lc, estate->es_subplanstates)
	{
		PlanState  *top = (PlanState *) lfirst(lc);

		if (top != NULL)
			sw->tops = bms_add_member(sw->tops, top->plan->plan_node_id);
	}
}

/* Is ps a sub plan's top node that the walk has been through already? */
static inline bool
subplan_walked_before(SubplanWalk *sw, PlanState *ps)
{
	int			id = ps->plan->plan_node_id;

	if (sw->tops == NULL || !bms_is_member(id, sw->tops))
		return false;
	if (bms_is_member(id, sw->walked))
		return true;
	sw->walked = bms_add_member(sw->walked, id);
	return false;
}

static inline void
subplan_walk_end(SubplanWalk *sw)
{
	bms_free(sw->tops);
	bms_free(sw->walked);
}

#endif							/* MEMPROBE_PLAN_WALK_H */
