/*-------------------------------------------------------------------------
 *
 * material_mergejoin.c
 *	  GenMaterial under merge joins: the extra marks that let a merge join's
 *	  inner Material drop the rows the join has passed.
 *
 * ExecInitMergeJoin (nodeMergejoin.c, 15 to 18) sets mj_ExtraMarks only
 * when
 *
 *		IsA(innerPlan(node), Material) &&
 *		(eflags & EXEC_FLAG_REWIND) == 0 &&
 *		!mergestate->mj_SkipMarkRestore
 *
 * With it, the join marks the inner before every advance past an inner row
 * it will never return to, and Material's mark (ExecMaterialMarkPos) trims
 * its tuplestore.  memprobe's node is a CustomScan, so the join never gives
 * it those marks, and it would keep every inner row the join passes between
 * matches: under work_mem it would spill them, where core's Material keeps
 * a few rows and writes nothing.
 *
 * So memprobe's ExecutorStart_hook (hooks.c), once the plan state tree is
 * built, has this file find every MergeJoinState whose inner is memprobe's
 * node and set mj_ExtraMarks as core would have for a Material.  The flag is only read while the join
 * runs, so setting it after initialization changes nothing else.  eflags:
 * the join passes its own to the inner, adding only EXEC_FLAG_MARK (and not
 * even that with mj_SkipMarkRestore), so the REWIND bit the node received
 * in BeginCustomScan is the join's (material_exec_takes_extra_marks).
 *
 * The walk (planstate_tree_walker: main plan, initplans, subplans, the
 * children of Append, MergeAppend, SubqueryScan and custom scans) runs only
 * when the ExecutorStart just finished began at least one of memprobe's
 * nodes with EXEC_FLAG_MARK and without EXEC_FLAG_REWIND: only a merge join
 * asks for MARK (passed down through Result and SubqueryScan, which core's
 * test does not look through either), so plans without such a join are
 * skipped for the cost of one comparison.  On PostgreSQL 18 GenMaterial
 * stands aside and there is no walk.
 *
 * EvalPlanQual: EvalPlanQualStart builds its recheck tree with ExecInitNode
 * directly, not through ExecutorStart, so merge joins in a recheck tree give
 * memprobe's node no extra marks.  Results are the same (the marks only let
 * the store drop rows); the recheck keeps the inner rows its joins pass.  In
 * a recheck every scan of a relation the query locks or copies rows of
 * returns at most its one test row, so those joins see few rows; a merge
 * join over relations scanned normally in the recheck (inside a subplan)
 * may keep more than core's would.
 *
 * Elsewhere core's executor never mistakes memprobe's node for anything but
 * a CustomScan that supports backward scan and mark/restore.  Every place a
 * parent or caller tests a child's node type (15.18 and 18.6 alike):
 *
 *	nodeMergejoin.c ExecInitMergeJoin, IsA(innerPlan(node), Material) for
 *		mj_ExtraMarks: not treated as Material; this file makes up for it.
 *	execAmi.c ExecReScan, ExecMarkPos, ExecRestrPos (T_MaterialState cases):
 *		dispatch to our ReScan/MarkPos/RestrPos methods, which mirror
 *		Material's.
 *	execAmi.c ExecSupportsBackwardScan on final plans (portalcmds.c
 *		PerformCursorOpen and spi.c SPI_cursor_open_internal, deciding
 *		whether a cursor declared without SCROLL or NO SCROLL may scroll):
 *		T_Material, and T_CustomScan with CUSTOMPATH_SUPPORT_BACKWARD_SCAN
 *		(which we set), both return true: treated alike.
 *	execAmi.c ExecSupportsMarkRestore (Paths), ExecMaterializesOutput
 *		(joinpath.c, subselect.c make_subplan, costsize.c cost_subplan),
 *		planner.c's ExecSupportsBackwardScan, createplan.c, setrefs.c,
 *		subselect.c finalize_plan, costsize.c: planning, all before
 *		planner_hook substitutes the node, so they see core's Material.
 *	execProcnode.c ExecInitNode/ExecEndNode, ExecShutdownNode,
 *		ExecSetTupleBound (passes no bound through Material or a custom
 *		scan): dispatch or alike.
 *	execCurrent.c search_plan_tree (WHERE CURRENT OF): Material is not
 *		searched, a CustomScan without a scan relation is not matched:
 *		alike.
 *	execParallel.c: custom scans matter only when parallel_aware, which
 *		Material never is: alike.
 *	explain.c: prints "Materialize" and, on 18 only, show_material_info;
 *		our node prints its own lines (ExplainCustomScan).
 *
 * Copyright (c) 2026, The memprobe Developers
 * Portions Copyright (c) 1996-2025, PostgreSQL Global Development Group
 * Portions Copyright (c) 1994, Regents of the University of California
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/executor.h"
#include "nodes/execnodes.h"
#include "nodes/nodeFuncs.h"

#include "shared/compat.h"
#include "store/material.h"

/*
 * extra_marks_walker
 *		Give every merge join in the tree whose inner is memprobe's node the
 *		extra marks core gives a Material.
 */
static bool
extra_marks_walker(PlanState *ps, void *context)
{
	if (ps == NULL)
		return false;

	if (IsA(ps, MergeJoinState))
	{
		MergeJoinState *mj = (MergeJoinState *) ps;

		if (!mj->mj_SkipMarkRestore &&
			material_exec_takes_extra_marks(innerPlanState(mj)))
			mj->mj_ExtraMarks = true;
	}

	return planstate_tree_walker(ps, extra_marks_walker, context);
}

/*
 * material_mergejoin_walk
 *		After ExecutorStart began one of memprobe's nodes for marks only
 *		(material_mergejoin_started, material.h): the walk of the plan
 *		state tree.
 */
void
material_mergejoin_walk(QueryDesc *queryDesc)
{
	(void) extra_marks_walker(queryDesc->planstate, NULL);
}
