/*-------------------------------------------------------------------------
 *
 * explain_storage_walk.c
 *	  For EXPLAIN ANALYZE's Storage lines on PostgreSQL 15 and 17
 *	  (explain_storage.c): the explained query's plan walked before its
 *	  nodes end, every node numbered in the order EXPLAIN prints it, and the
 *	  figures of those that get the lines taken.
 *
 * explain_storage_query_started() (after ExecutorStart) notes which query
 * the EXPLAIN runs; explain_storage_query_ending() (before ExecutorEnd)
 * walks that query and leaves in the EXPLAIN's frame (explain_storage_walk.h)
 * how many nodes it numbered and, for each WindowAgg, CTE Scan, Recursive
 * Union and Table Function Scan with figures, a StorageNode.  hooks.c calls
 * both through explain_storage.h's inline tests.
 *
 * The walk runs at ExecutorEnd, not when EXPLAIN prints, because the
 * figures are read from the nodes' stores (stores.c), which end with the
 * nodes.  Its order must be ExplainNode()'s exactly: the output is read by
 * counting node headers in that order, and when the count does not match,
 * the output goes out unchanged.  In text format the walk also deparses
 * each such node's own properties as ExplainNode() does, so that the
 * reading knows how many lines their values take (explain_storage.c,
 * text_properties_end, says why).
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
#include "nodes/makefuncs.h"
#include "nodes/parsenodes.h"
#include "tcop/dest.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/ruleutils.h"

#include "shared/compat.h"
#include "store/explain_storage.h"
#include "store/explain_storage_walk.h"
#include "store/stores.h"

#if !MEMPROBE_CORE_TUPLESTORE_GENERATION

/* ------------------------------------------------------------------------
 * Numbering the nodes, at ExecutorEnd.
 * ------------------------------------------------------------------------
 */

typedef struct NumberWalk
{
	ExplainFrame *frame;
	PlannedStmt *pstmt;
	Bitmapset  *printed_subplans;	/* as ExplainState's */
	List	   *deparse_cxt;	/* as ExplainState's; made when first needed */
	int			names_span_lines;	/* -1: not looked at yet */
} NumberWalk;

static void number_node(PlanState *ps, List *ancestors, NumberWalk *walk);

static const char *
storage_node_name(PlanState *ps)
{
	switch (nodeTag(ps))
	{
		case T_WindowAggState:
			return "WindowAgg";
		case T_CteScanState:
			return "CTE Scan";
		case T_RecursiveUnionState:
			return "Recursive Union";
		case T_TableFuncScanState:
			return "Table Function Scan";
		default:
			return NULL;
	}
}

/*
 * Does a name that EXPLAIN may print for a range table entry hold a newline?
 * These are what set_rtable_names() picks from; it makes them unique with a
 * suffix and may shorten them to fit, and which entries it names depends on
 * a prescan of core's that memprobe does not repeat, so the text printed for
 * such a name is not known here.  Names without a newline stay without one.
 */
static bool
rtable_names_span_lines(List *rtable)
{
	ListCell   *lc;

	foreach(lc, rtable)
	{
		RangeTblEntry *rte = (RangeTblEntry *) lfirst(lc);
		const char *names[4];

		names[0] = rte->alias ? rte->alias->aliasname : NULL;
		names[1] = rte->eref ? rte->eref->aliasname : NULL;
		names[2] = rte->rtekind == RTE_RELATION ? get_rel_name(rte->relid) : NULL;
		names[3] = rte->rtekind == RTE_CTE ? rte->ctename : NULL;
		for (int i = 0; i < lengthof(names); i++)
			if (names[i] != NULL && strchr(names[i], '\n') != NULL)
				return true;
	}
	return false;
}

/* Newlines in an expression's text, deparsed as ExplainNode()'s callees do */
static int
expr_newlines(Node *expr, List *context, bool useprefix)
{
	char	   *text = deparse_expression(expr, context, useprefix, false);
	int			n = 0;

	for (; *text != '\0'; text++)
		if (*text == '\n')
			n++;
	return n;
}

static void
add_property(StorageNode *node, const char *label, int newlines)
{
	Assert(node->nprops < MAX_TEXT_PROPERTIES);
	node->prop_label[node->nprops] = label;
	node->prop_newlines[node->nprops] = newlines;
	node->nprops++;
}

/* as show_qual(): an implicit AND list, deparsed as one expression */
static void
add_qual(StorageNode *node, const char *label, List *qual, List *context,
		 bool useprefix, bool rows_removed)
{
	if (qual == NIL)
		return;
	add_property(node, label,
				 expr_newlines((Node *) make_ands_explicit(qual), context, useprefix));
	/* show_instrumentation_count()'s line, when there were such rows */
	if (rows_removed)
		add_property(node, "Rows Removed by Filter: ", 0);
}

/* as show_plan_tlist(): the columns' texts joined by ", " */
static int
tlist_newlines(List *tlist, List *context, bool useprefix)
{
	ListCell   *lc;
	int			n = 0;

	foreach(lc, tlist)
		n += expr_newlines((Node *) ((TargetEntry *) lfirst(lc))->expr, context, useprefix);
	return n;
}

/*
 * Text format: the node's own properties, as 15's and 17's ExplainNode()
 * prints them for these node types (show_plan_tlist(), then the node type's
 * case: show_scan_qual(), show_upper_qual(), show_expression()), deparsed
 * the same way so that each value's newlines are core's.  The deparse
 * context differs from EXPLAIN's only in the range table names, which
 * rtable_names_span_lines() made sure hold no newline.  False if the lines
 * cannot be known.
 */
static bool
text_properties(StorageNode *node, PlanState *ps, List *ancestors, NumberWalk *walk)
{
	Plan	   *plan = ps->plan;
	List	   *rtable = walk->pstmt->rtable;
	bool		verbose = walk->frame->verbose;
	bool		upper_prefix = list_length(rtable) > 1; /* as show_upper_qual() */
	List	   *context;

	if (walk->names_span_lines < 0)
		walk->names_span_lines = rtable_names_span_lines(rtable);
	if (walk->names_span_lines)
		return false;
	/* every entry named: see rtable_names_span_lines() */
	if (walk->deparse_cxt == NIL)
		walk->deparse_cxt =
			deparse_context_for_plan_tree(walk->pstmt,
										  select_rtable_names_for_explain(rtable, NULL));
	context = set_deparse_context_plan(walk->deparse_cxt, plan, ancestors);

	if (verbose && plan->targetlist != NIL && !IsA(plan, RecursiveUnion))
		add_property(node, "Output: ",
					 tlist_newlines(plan->targetlist, context, upper_prefix));
	switch (nodeTag(plan))
	{
		case T_TableFuncScan:
			if (verbose)
				add_property(node, "Table Function Call: ",
							 expr_newlines((Node *) ((TableFuncScan *) plan)->tablefunc,
										   context, true));
			add_qual(node, "Filter: ", plan->qual, context, verbose, true);
			break;
		case T_CteScan:
			add_qual(node, "Filter: ", plan->qual, context, verbose, true);
			break;
		case T_WindowAgg:
			add_qual(node, "Filter: ", plan->qual, context, upper_prefix || verbose, true);
			add_qual(node, "Run Condition: ", ((WindowAgg *) plan)->runConditionOrig, context,
					 upper_prefix || verbose, false);
			break;
		default:
			break;
	}
	return true;
}

static void
add_storage_node(PlanState *ps, const char *name, int number, List *ancestors,
				 NumberWalk *walk)
{
	ExplainFrame *frame = walk->frame;
	StoreFigures figures;
	StorageNode *node;
	MemoryContext old;

	if (!stores_explain_figures(ps, &figures))
		return;
	old = MemoryContextSwitchTo(frame->cxt);
	node = palloc0(sizeof(StorageNode));
	node->number = number;
	node->name = name;
	node->figures = figures;
	frame->storage_nodes = lappend(frame->storage_nodes, node);
	MemoryContextSwitchTo(old);
	node->placeable = frame->format != FORMAT_TEXT ||
		text_properties(node, ps, ancestors, walk);
}

/* ExplainSubPlans(): each physical sub plan once, its SubPlan an ancestor */
static void
number_subplans(List *plans, List *ancestors, NumberWalk *walk)
{
	ListCell   *lc;

	foreach(lc, plans)
	{
		SubPlanState *sps = (SubPlanState *) lfirst(lc);

		if (bms_is_member(sps->subplan->plan_id, walk->printed_subplans))
			continue;
		walk->printed_subplans = bms_add_member(walk->printed_subplans,
												sps->subplan->plan_id);
		ancestors = lcons(sps->subplan, ancestors);
		number_node(sps->planstate, ancestors, walk);
		ancestors = list_delete_first(ancestors);
	}
}

static void
number_members(PlanState **members, int n, List *ancestors, NumberWalk *walk)
{
	for (int i = 0; i < n; i++)
		number_node(members[i], ancestors, walk);
}

/*
 * ExplainNode()'s order: the node, init plans, outer, inner, special
 * children, sub plans; the node's plan heads its children's ancestors
 */
static void
number_node(PlanState *ps, List *ancestors, NumberWalk *walk)
{
	const char *name = storage_node_name(ps);
	int			number = walk->frame->nodes++;

	if (name != NULL)
		add_storage_node(ps, name, number, ancestors, walk);

	ancestors = lcons(ps->plan, ancestors);
	if (ps->initPlan)
		number_subplans(ps->initPlan, ancestors, walk);
	if (outerPlanState(ps))
		number_node(outerPlanState(ps), ancestors, walk);
	if (innerPlanState(ps))
		number_node(innerPlanState(ps), ancestors, walk);
	switch (nodeTag(ps))
	{
		case T_AppendState:
			number_members(((AppendState *) ps)->appendplans,
						   ((AppendState *) ps)->as_nplans, ancestors, walk);
			break;
		case T_MergeAppendState:
			number_members(((MergeAppendState *) ps)->mergeplans,
						   ((MergeAppendState *) ps)->ms_nplans, ancestors, walk);
			break;
		case T_BitmapAndState:
			number_members(((BitmapAndState *) ps)->bitmapplans,
						   ((BitmapAndState *) ps)->nplans, ancestors, walk);
			break;
		case T_BitmapOrState:
			number_members(((BitmapOrState *) ps)->bitmapplans,
						   ((BitmapOrState *) ps)->nplans, ancestors, walk);
			break;
		case T_SubqueryScanState:
			number_node(((SubqueryScanState *) ps)->subplan, ancestors, walk);
			break;
		case T_CustomScanState:
			{
				ListCell   *lc;

				foreach(lc, ((CustomScanState *) ps)->custom_ps)
					number_node((PlanState *) lfirst(lc), ancestors, walk);
				break;
			}
		default:
			break;
	}
	if (ps->subPlan)
		number_subplans(ps->subPlan, ancestors, walk);
	ancestors = list_delete_first(ancestors);
}

/*
 * Is this the query an EXPLAIN ANALYZE runs (ExplainOnePlan's)?  It is
 * instrumented and sends its rows nowhere, into a table or to EXPLAIN's
 * SERIALIZE: never a function's or SPI's query.  Asked at ExecutorStart: by
 * ExecutorEnd the receiver may already be freed (17 frees CREATE TABLE AS's
 * before it).
 */
static bool
is_explained_query(QueryDesc *queryDesc, int eflags)
{
	CommandDest dest;

	if (queryDesc->instrument_options == 0 || queryDesc->dest == NULL ||
		(eflags & EXEC_FLAG_EXPLAIN_ONLY) != 0)
		return false;
	dest = queryDesc->dest->mydest;
	return dest == DestNone || dest == DestIntoRel ||
		compat_dest_is_explain_serialize(dest);
}

/*
 * After ExecutorStart, while an EXPLAIN memprobe wrapped runs
 * (explain_storage_executor_started, explain_storage.h, tests that).
 */
void
explain_storage_query_started(QueryDesc *queryDesc, int eflags)
{
	ExplainFrame *frame = explain_storage_current_frame;

	/*
	 * Queries started while an explained one runs are its functions' (or an
	 * EXPLAIN memprobe did not wrap): not the frame's.
	 */
	if (frame->queries == NIL && is_explained_query(queryDesc, eflags))
	{
		MemoryContext old = MemoryContextSwitchTo(frame->cxt);

		frame->queries = lappend(frame->queries, queryDesc);
		MemoryContextSwitchTo(old);
	}
}

/* Number the explained query's nodes before they end (ExecutorEnd). */
static pg_noinline void
number_explained_query(QueryDesc *queryDesc)
{
	ExplainFrame *frame = explain_storage_current_frame;
	PlanState  *ps = queryDesc->planstate;
	NumberWalk	walk = {frame, queryDesc->plannedstmt, NULL, NIL, -1};
	MemoryContext work = AllocSetContextCreate(CurrentMemoryContext,
											   "memprobe EXPLAIN numbering",
											   ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(work);

	frame->queries = list_delete_ptr(frame->queries, queryDesc);
	/* ExplainPrintPlan() skips an invisible Gather */
	if (IsA(ps, GatherState) && ((Gather *) ps->plan)->invisible)
		ps = outerPlanState(ps);
	number_node(ps, NIL, &walk);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(work);
}

/*
 * Before ExecutorEnd, while an EXPLAIN memprobe wrapped runs
 * (explain_storage_executor_ending, explain_storage.h, tests that).
 */
void
explain_storage_query_ending(QueryDesc *queryDesc)
{
	if (list_member_ptr(explain_storage_current_frame->queries, queryDesc))
		number_explained_query(queryDesc);
}

#else							/* PostgreSQL 18: core prints them */

void
explain_storage_query_started(QueryDesc *queryDesc, int eflags)
{
}

void
explain_storage_query_ending(QueryDesc *queryDesc)
{
}

#endif
