/*-------------------------------------------------------------------------
 *
 * plan_walk.h
 *	  A shortcut for the plan state walks memprobe's executor hooks make.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_PLAN_WALK_H
#define MEMPROBE_PLAN_WALK_H

#include "nodes/execnodes.h"

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

#endif							/* MEMPROBE_PLAN_WALK_H */
