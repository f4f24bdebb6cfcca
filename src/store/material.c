/*-------------------------------------------------------------------------
 *
 * material.c
 *	  GenMaterial, planning side: replaces the Material nodes of finished
 *	  plans with memprobe's custom scan (material_exec.c), whose tuples live
 *	  in a Generation memory context instead of the query's AllocSet.
 *
 * Why planner_hook, after standard_planner: the substitution is then part of
 * the plan itself, so it is made once, kept in cached plans (prepared
 * statements, generic plans), shipped to parallel workers with the rest of
 * the plan, and shown by plain EXPLAIN, as core's enable_* settings are.
 * The plan standard_planner returns is fresh, so rewriting it is safe; a
 * cached plan is never touched.
 *
 * The plan is finished (setrefs.c has run), so the replacement node is built
 * the way setrefs would have left it (material_make_scan).
 *
 * PostgreSQL 18's tuplestore already keeps its tuples in a Generation
 * context and reports their size; there memprobe leaves Material alone.
 *
 * Copyright (c) 2026, The memprobe Developers
 * Portions Copyright (c) 1996-2025, PostgreSQL Global Development Group
 * Portions Copyright (c) 1994, Regents of the University of California
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/plannodes.h"
#include "optimizer/planner.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "shared/compat.h"
#include "shared/observe_only.h"
#include "shared/plan_walk.h"
#include "store/tuplestore_layout.h"
#include "store/material.h"

/* memprobe.enable_material */
static bool material_enabled = true;

/* memprobe.material_context */
int			material_context_type = MATERIAL_CONTEXT_GENERATION;

static const struct config_enum_entry material_context_options[] = {
	{"generation", MATERIAL_CONTEXT_GENERATION, false},
	{"aset", MATERIAL_CONTEXT_ASET, false},
	{NULL, 0, false}
};


/* Whether this backend's tuplestore matches compat.h's copy: unknown yet. */
typedef enum LayoutCheck
{
	LAYOUT_UNCHECKED,
	LAYOUT_OK,
	LAYOUT_MISMATCH
} LayoutCheck;

static LayoutCheck layout_check = LAYOUT_UNCHECKED;

static Plan *substitute_materials(Plan *plan);
static CustomScan *material_make_scan(Plan *material);

/*
 * material_supported
 *		Can memprobe reach into this server's tuplestores (GenMaterial, and
 *		the stores of stores.c)?  Not on 18 (core keeps tuples in a Generation
 *		context itself), and not if the tuplestore layout check fails (then
 *		once per backend a WARNING says so, and those nodes stay core's).
 */
bool
material_supported(void)
{
	if (MEMPROBE_CORE_TUPLESTORE_GENERATION)
		return false;

	if (layout_check == LAYOUT_UNCHECKED)
	{
		MemoryContext tmp = AllocSetContextCreate(CurrentMemoryContext,
												  "memprobe layout check",
												  ALLOCSET_SMALL_SIZES);
		MemoryContext old = MemoryContextSwitchTo(tmp);
		bool		ok = compat_tuplestore_layout_ok();

		MemoryContextSwitchTo(old);
		MemoryContextDelete(tmp);
		layout_check = ok ? LAYOUT_OK : LAYOUT_MISMATCH;
		if (!ok)
			ereport(WARNING,
					(errmsg("memprobe does not recognize this server's tuplestore layout"),
					 errdetail("Material nodes and the tuple stores of WindowAgg, CTE Scan and Recursive Union are left to PostgreSQL in this session."),
					 errhint("Rebuild memprobe against this server's headers.")));
	}
	return layout_check == LAYOUT_OK;
}

/*
 * substitute_in_list
 *		substitute_materials() on each plan of a list of child plans.
 */
static void
substitute_in_list(List *plans)
{
	ListCell   *lc;

	foreach(lc, plans)
		lfirst(lc) = substitute_materials(lfirst(lc));
}

/*
 * substitute_materials
 *		Walk a finished plan tree, replacing every Material node with
 *		memprobe's custom scan.  Returns the (possibly replaced) node.
 */
static Plan *
substitute_materials(Plan *plan)
{
	if (plan == NULL)
		return NULL;

	plan->lefttree = substitute_materials(plan->lefttree);
	plan->righttree = substitute_materials(plan->righttree);

	/* child plans that hang off node-specific fields */
	switch (nodeTag(plan))
	{
		case T_Append:
			substitute_in_list(((Append *) plan)->appendplans);
			break;
		case T_MergeAppend:
			substitute_in_list(((MergeAppend *) plan)->mergeplans);
			break;
		case T_BitmapAnd:
			substitute_in_list(((BitmapAnd *) plan)->bitmapplans);
			break;
		case T_BitmapOr:
			substitute_in_list(((BitmapOr *) plan)->bitmapplans);
			break;
		case T_SubqueryScan:
			((SubqueryScan *) plan)->subplan =
				substitute_materials(((SubqueryScan *) plan)->subplan);
			break;
		case T_CustomScan:
			substitute_in_list(((CustomScan *) plan)->custom_plans);
			break;
		default:
			break;
	}

	if (IsA(plan, Material))
		return (Plan *) material_make_scan(plan);
	return plan;
}

/*
 * material_substitute
 *		After planning (material_planned, material.h, for a plan of more
 *		than one scan node): substitute Material nodes in the main plan and
 *		in every subplan and initplan.
 */
PlannedStmt *
material_substitute(PlannedStmt *stmt)
{
	if (!material_enabled || !memprobe_changes_plans() || !material_supported())
		return stmt;

	stmt->planTree = substitute_materials(stmt->planTree);
	substitute_in_list(stmt->subplans);

	return stmt;
}

/*
 * material_make_scan
 *		The custom scan that replaces 'material', built as setrefs.c would
 *		have built it, the plan being finished:
 *	- the Material's child stays its outer plan (lefttree), so ExecReScan
 *	  propagates changed parameters to it and EXPLAIN shows it as usual;
 *	- custom_scan_tlist is the Material's own targetlist (OUTER_VAR Vars into
 *	  the child's output) and the node's targetlist refers to it with
 *	  INDEX_VAR Vars, so the scan tuple is exactly the child's row and
 *	  EXPLAIN VERBOSE deparses the columns through the child;
 *	- everything else (costs, plan_node_id, params, initPlans, parallel
 *	  safety) is the Material's.
 */
static CustomScan *
material_make_scan(Plan *material)
{
	CustomScan *cscan = makeNode(CustomScan);
	List	   *tlist = NIL;
	ListCell   *lc;
	AttrNumber	resno = 0;

	Assert(IsA(material, Material));

	/* Costs, ids, params, initPlans, parallel flags: all the Material's. */
	cscan->scan.plan = *material;
	cscan->scan.plan.type = T_CustomScan;
	cscan->scan.plan.qual = NIL;
	cscan->scan.scanrelid = 0;

	/* The scan tuple is the child's row; our output refers to it. */
	cscan->custom_scan_tlist = material->targetlist;
	foreach(lc, material->targetlist)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);
		Expr	   *expr = tle->expr;

		/*
		 * setrefs leaves Consts in a Material's targetlist as they are; keep
		 * them so, or EXPLAIN VERBOSE would print them in parentheses (it
		 * does for an INDEX_VAR that stands for a non-Var).  The node never
		 * projects: its output is the stored row whatever its targetlist.
		 */
		resno++;
		if (IsA(expr, Var))
			expr = (Expr *) makeVar(INDEX_VAR, resno, exprType((Node *) expr),
									exprTypmod((Node *) expr),
									exprCollation((Node *) expr), 0);
		else
			expr = copyObject(expr);

		tlist = lappend(tlist, makeTargetEntry(expr, tle->resno,
											   tle->resname, tle->resjunk));
	}
	cscan->scan.plan.targetlist = tlist;

	cscan->flags = CUSTOMPATH_SUPPORT_BACKWARD_SCAN | CUSTOMPATH_SUPPORT_MARK_RESTORE;
	cscan->custom_plans = NIL;
	cscan->custom_exprs = NIL;
	cscan->custom_private = NIL;
	cscan->custom_relids = NULL;
	cscan->methods = &material_scan_methods;

	return cscan;
}

/*
 * material_init
 *		GUCs and the custom scan's methods.
 */
void
material_init(void)
{
	DefineCustomBoolVariable("memprobe.enable_material",
							 "Replaces Material plan nodes with memprobe's, whose tuples live in a memory context of their own.",
							 "Takes effect when a query is planned; cached plans keep the choice they were made with. "
							 "Has no effect on PostgreSQL 18 and later, whose Material already does this.",
							 &material_enabled,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomEnumVariable("memprobe.material_context",
							 "Memory context type that memprobe's Material nodes keep their tuples in.",
							 "generation stores each tuple at its size; aset rounds it up to a power of two, as core's Material does.",
							 &material_context_type,
							 MATERIAL_CONTEXT_GENERATION,
							 material_context_options,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	material_exec_init();
}

