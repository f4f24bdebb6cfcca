/*-------------------------------------------------------------------------
 *
 * material_mergejoin.c
 *	  GenMaterial under merge joins: the extra marks that let a merge join's
 *	  inner Material drop the rows the join has passed.
 *
 * ExecInitMergeJoin (nodeMergejoin.c, 15 to 18) sets mj_ExtraMarks only when
 * its inner plan IsA Material, it was not asked for REWIND and it does not
 * skip mark/restore.  With it, the join marks the inner before every
 * advance past an inner row it will never return to, and Material's mark
 * trims its tuplestore.  memprobe's node is a CustomScan, so the join never
 * gives it those marks, and it would keep every inner row the join passes
 * between matches: under work_mem it would spill them, where core's
 * Material keeps a few rows and writes nothing.  So after ExecutorStart
 * (hooks.c) material_mergejoin_walk sets mj_ExtraMarks as core would have
 * for a Material.  The flag is only read while the join runs, so setting it
 * after initialization changes nothing else.
 *
 * EvalPlanQual: EvalPlanQualStart builds its recheck tree with ExecInitNode
 * directly, not through ExecutorStart, so merge joins in a recheck tree
 * give memprobe's node no extra marks: same results, and the recheck keeps
 * the inner rows its joins pass (few: in a recheck every scan of a relation
 * the query locks returns at most its one test row; a merge join inside a
 * subplan of the recheck may keep more than core's would).  Every other
 * place core tests a child's node type, and what each does with memprobe's
 * node: docs/genmaterial.md.
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
 *		extra marks core gives a Material.  eflags: the join passes its own
 *		to the inner, adding only EXEC_FLAG_MARK (and not even that with
 *		mj_SkipMarkRestore), so the REWIND bit the node received in
 *		BeginCustomScan is the join's (material_exec_takes_extra_marks).
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
 *		state tree (planstate_tree_walker: main plan, initplans, subplans,
 *		the children of Append, MergeAppend, SubqueryScan and custom scans).
 *		Only a merge join asks for MARK without REWIND (passed down through
 *		Result and SubqueryScan, which core's test does not look through
 *		either), so plans without such a join are skipped for the cost of
 *		one comparison.  On PostgreSQL 18 GenMaterial stands aside and there
 *		is no walk.
 */
void
material_mergejoin_walk(QueryDesc *queryDesc)
{
	(void) extra_marks_walker(queryDesc->planstate, NULL);
}
