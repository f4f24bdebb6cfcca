/*-------------------------------------------------------------------------
 *
 * streamscan_prepare.c
 *	  What a StreamScan sets up before its first row.  At executor start,
 *	  streamscan_begin (the node's BeginCustomScan method): its slot type
 *	  and the settings it runs with.  At the first fetch, prepare_scan
 *	  (called by streamscan_exec): its page-loop quals, its qual and
 *	  projection compiled again for memprobe's slot (15), its projection
 *	  fast paths and the method that returns its rows.  When the whole qual
 *	  is first needed, compile_deferred_qual.
 *
 * Most of it waits for the first fetch, as core's Seq Scan leaves its scan
 * to the first fetch: a plan over many partitions, or under EXPLAIN
 * without ANALYZE, pays nothing for scans that never run.  Each of these
 * runs once per node, out of line, apart from the row loop.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/executor.h"
#include "optimizer/clauses.h"
#include "utils/rel.h"

#include "scan/page_quals.h"
#include "scan/streamscan.h"
#include "scan/streamscan_node.h"
#include "scan/streamscan_project.h"
#include "scan/tuple_deform.h"
#include "shared/compat.h"

/*
 * streamscan_begin
 *		Executor start: as little as core's ExecInitSeqScan does beyond what
 *		ExecInitCustomScan has done already; the rest waits for the first
 *		fetch (prepare_scan).
 */
void
streamscan_begin(CustomScanState *node, EState *estate, int eflags)
{
	StreamScanState *s = (StreamScanState *) node;
	Scan	   *scan = (Scan *) node->ss.ps.plan;

	/*
	 * ExecInitCustomScan has compiled the qual and the projection, and put
	 * the state of every SubPlan in them in the node's subPlan list: an empty
	 * list means neither has one, with no walk of the expressions.
	 */
	bool		has_subplans = node->ss.ps.subPlan != NIL;

	/*
	 * 15 compiled the qual and the projection for a virtual scan slot.  They
	 * are compiled again for ours at the first fetch, unless a SubPlan is in
	 * them: the SubPlans' states, which EXPLAIN and rescans find in the
	 * node's subPlan list, must then be the ones that run from the start.
	 */
	if (has_subplans)
		compat_custom_scan_apply_slot_ops(node, estate, &memprobe_deform_slot_ops);
	else
		s->recompile = compat_custom_scan_apply_slot_ops_lazily(node, estate,
																&memprobe_deform_slot_ops);

	s->rel = node->ss.ss_currentRelation;
	s->snapshot = estate->es_snapshot;
	s->max_distance = streamscan_distance;
	s->ctup.t_tableOid = RelationGetRelid(s->rel);
	s->empty_tlist = node->ss.ps.ps_ProjInfo != NULL &&
		node->ss.ps.plan->targetlist == NIL;

	/*
	 * Not when the qual has a SubPlan: the rest of the qual is compiled a
	 * second time, and each compilation would run the subplan on its own.
	 */
	s->want_page_quals = streamscan_page_quals &&
		!(has_subplans && contain_subplans((Node *) scan->plan.qual));
	s->want_by_need = streamscan_deform_by_need;
	s->batch_quals = streamscan_batch_quals;
	s->want_simple_projection = streamscan_simple_projection;
	s->want_direct_projection = streamscan_direct_projection;
}

/*
 * prepare_scan
 *		The first fetch (or EvalPlanQual recheck): what executor start left
 *		for it, in the query's memory context; and the method that returns
 *		the node's later rows.
 */
pg_noinline void
prepare_scan(StreamScanState *s)
{
	CustomScanState *node = &s->css;
	Scan	   *scan = (Scan *) node->ss.ps.plan;
	MemoryContext oldcxt = MemoryContextSwitchTo(node->ss.ps.state->es_query_cxt);

	if (s->want_page_quals)
	{
		List	   *rest;

		s->page_quals = page_quals_build(scan->plan.qual, scan->scanrelid,
										 RelationGetDescr(s->rel), &rest);
		if (s->page_quals)
			s->rest_qual = ExecInitQual(rest, &node->ss.ps);
	}

	if (s->recompile)
	{
		/* count(*) never runs its projection (streamscan_exec) */
		if (!s->empty_tlist)
			compat_custom_scan_recompile_projection(node);

		/*
		 * With page-loop quals the whole qual runs only for rows they cannot
		 * decide and in EvalPlanQual rechecks: compiled when first needed.
		 */
		if (s->page_quals == NULL)
			compat_custom_scan_recompile_qual(node);
		else
		{
			node->ss.ps.qual = NULL;
			s->qual_deferred = true;
		}
	}

	if (s->want_simple_projection)
		simple_projection(s);

	/* only what the quals and projection read (nothing: nothing to do) */
	if (s->want_by_need)
	{
		Bitmapset  *columns = needed_columns(node);

		if (columns != NULL)
			tuple_deform_set_need(node->ss.ss_ScanTupleSlot, columns);
		bms_free(columns);
	}

	/* the node's later rows by streamscan_exec_columns, where it applies */
	if (s->want_direct_projection && s->want_by_need && node->ss.ps.qual == NULL &&
		s->page_quals == NULL && s->proj_attnums != NULL)
	{
		s->proj_steps = tuple_deform_projection_steps(RelationGetDescr(s->rel),
													  s->proj_attnums, s->proj_natts,
													  &s->proj_nsteps,
													  node->ss.ps.state->es_query_cxt);
		if (s->proj_steps != NULL)
		{
			node->methods = &streamscan_columns_exec_methods;
			elog(DEBUG1, "memprobe stream scan of \"%s\" deforms its rows into its projection's",
				 RelationGetRelationName(s->rel));
		}
	}

	MemoryContextSwitchTo(oldcxt);
	s->prepared = true;
}

/*
 * compile_deferred_qual
 *		The whole qual, compiled for memprobe's slot the first time it is
 *		needed (15, with page-loop quals: see prepare_scan).
 */
pg_noinline ExprState *
compile_deferred_qual(StreamScanState *s)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(s->css.ss.ps.state->es_query_cxt);

	compat_custom_scan_recompile_qual(&s->css);
	MemoryContextSwitchTo(oldcxt);
	s->qual_deferred = false;
	return s->css.ss.ps.qual;
}
