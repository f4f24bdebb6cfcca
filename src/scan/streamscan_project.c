/*-------------------------------------------------------------------------
 *
 * streamscan_project.c
 *	  StreamScan's projection fast paths, set up at the first fetch: see
 *	  streamscan_project.h, which holds the per-row copy.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/sysattr.h"
#include "optimizer/optimizer.h"
#include "utils/rel.h"

#include "scan/streamscan_project.h"

/*
 * simple_projection
 *		If every entry of the node's targetlist is a column of the table (a
 *		user column, neither dropped nor of another type), set up the copy
 *		that projects them: what ExecBuildProjectionInfo compiles such a
 *		targetlist into (one fetch of the scan slot's columns up to the last
 *		one read, then an EEOP_ASSIGN_SCAN_VAR step per entry), without the
 *		expression machinery's call and dispatch per row.
 */
void
simple_projection(StreamScanState *s)
{
	CustomScanState *node = &s->css;
	Scan	   *scan = (Scan *) node->ss.ps.plan;
	TupleDesc	desc = RelationGetDescr(s->rel);
	List	   *tlist = scan->plan.targetlist;
	AttrNumber *attnums;
	AttrNumber	last = 0;
	int			n = 0;
	ListCell   *lc;

	if (node->ss.ps.ps_ProjInfo == NULL || s->empty_tlist)
		return;
	attnums = palloc(sizeof(AttrNumber) * list_length(tlist));
	foreach(lc, tlist)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);
		Var		   *var = (Var *) tle->expr;

		if (var == NULL || !IsA(var, Var) || var->varno != scan->scanrelid ||
			var->varlevelsup != 0 || var->varattno <= 0 || var->varattno > desc->natts ||
			TupleDescAttr(desc, var->varattno - 1)->attisdropped ||
			TupleDescAttr(desc, var->varattno - 1)->atttypid != var->vartype)
		{
			pfree(attnums);
			return;
		}
		attnums[n++] = var->varattno;
		last = Max(last, var->varattno);
	}
	s->proj_attnums = attnums;
	s->proj_natts = n;
	s->proj_last = last;
}

/*
 * project_columns, out of line: streamscan_exec_columns' rare way (inline
 * in streamscan_exec, whose every row may take it)
 */
pg_noinline TupleTableSlot *
project_columns_through_slot(StreamScanState *s, TupleTableSlot *scanslot)
{
	return project_columns(s, scanslot);
}

/*
 * needed_columns
 *		The columns (0-based) the node's quals and projection read, or NULL
 *		if its scan slot must be whole: when the node does not project (the
 *		slot itself goes to the parent) or reads a whole row.  System columns
 *		are not deformed and need nothing.
 */
Bitmapset *
needed_columns(CustomScanState *node)
{
	Scan	   *scan = (Scan *) node->ss.ps.plan;
	Bitmapset  *attrs = NULL;
	Bitmapset  *columns = NULL;
	int			m = -1;

	if (node->ss.ps.ps_ProjInfo == NULL)
		return NULL;
	pull_varattnos((Node *) scan->plan.targetlist, scan->scanrelid, &attrs);
	pull_varattnos((Node *) scan->plan.qual, scan->scanrelid, &attrs);
	while ((m = bms_next_member(attrs, m)) >= 0)
	{
		AttrNumber	attno = m + FirstLowInvalidHeapAttributeNumber;

		if (attno == InvalidAttrNumber)
		{
			bms_free(columns);
			columns = NULL;
			break;
		}
		if (attno > 0)
			columns = bms_add_member(columns, attno - 1);
	}
	bms_free(attrs);
	return columns;
}
