/*-------------------------------------------------------------------------
 *
 * streamscan_project.h
 *	  StreamScan's projection fast paths: a projection of plain columns of
 *	  the table done as a copy of those columns, not through ExecProject,
 *	  and the columns that deformation by need is to fetch.
 *
 * At the first fetch, prepare_scan (streamscan_prepare.c) asks
 * streamscan_project.c whether the node's projection is such a copy
 * (simple_projection) and which columns its quals and projection read
 * (needed_columns).  The copy itself, project_columns, is here and inline:
 * streamscan_exec and streamscan_exec_columns run it for every row, which
 * must not pay for a call into another file.  Only
 * project_columns_through_slot, streamscan_exec_columns' rare way, is a
 * call (pg_noinline wherever it lives).
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_STREAMSCAN_PROJECT_H
#define MEMPROBE_STREAMSCAN_PROJECT_H

#include "postgres.h"

#include "executor/tuptable.h"
#include "nodes/bitmapset.h"
#include "nodes/execnodes.h"

#include "scan/streamscan_node.h"
#include "scan/tuple_deform.h"

extern void simple_projection(StreamScanState *s);
extern TupleTableSlot *project_columns_through_slot(StreamScanState *s,
													TupleTableSlot *scanslot);
extern Bitmapset *needed_columns(CustomScanState *node);

/*
 * clear_projection_result
 *		ExecClearTuple(result) before a projection that fills every column.
 *		The projection's slot is virtual, and holds nothing of its own unless
 *		a parent materialised it: then all that tts_virtual_clear() does that
 *		the projection does not redo is invalidating the TID, and the indirect
 *		call is left out.
 */
static inline void
clear_projection_result(TupleTableSlot *result)
{
	if (likely(result->tts_ops == &TTSOpsVirtual && !TTS_SHOULDFREE(result)))
		ItemPointerSetInvalid(&result->tts_tid);
	else
		ExecClearTuple(result);
}

/* As ExecProject marks its result slot once every column is filled. */
static inline TupleTableSlot *
projection_result_filled(TupleTableSlot *result)
{
	result->tts_flags &= ~TTS_FLAG_EMPTY;
	result->tts_nvalid = result->tts_tupleDescriptor->natts;
	return result;
}

/*
 * project_columns
 *		ExecProject for a simple_projection targetlist: the same result slot
 *		with the same values, the scan slot's columns copied (by-reference
 *		values point into the scanned tuple, as EEOP_ASSIGN_SCAN_VAR leaves
 *		them).
 */
static pg_attribute_always_inline TupleTableSlot *
project_columns(StreamScanState *s, TupleTableSlot *scanslot)
{
	TupleTableSlot *result = s->css.ss.ps.ps_ProjInfo->pi_state.resultslot;
	const AttrNumber *attnums = s->proj_attnums;
	int			last = s->proj_last;
	int			n = s->proj_natts;
	const Datum *from_values;
	const bool *from_isnull;
	Datum	   *values;
	bool	   *isnull;

	clear_projection_result(result);

	/*
	 * slot_getsomeattrs(scanslot, last).  The scan's own slot is deformed
	 * here by need when it can be (inline), else by memprobe_deform()
	 * directly, not through slot_getsomeattrs_int() and the slot's callback;
	 * that function still fills the columns the tuple does not have, and
	 * serves any other slot (EvalPlanQual's test tuple).
	 */
	if (scanslot->tts_nvalid < last && !deform_slot_by_need(scanslot, last))
	{
		if (likely(scanslot->tts_ops == &memprobe_deform_slot_ops))
			memprobe_deform(scanslot, last);
		if (scanslot->tts_nvalid < last)
			slot_getsomeattrs_int(scanslot, last);
	}

	values = result->tts_values;
	isnull = result->tts_isnull;
	from_values = scanslot->tts_values;
	from_isnull = scanslot->tts_isnull;
	/* one column at least (simple_projection: a targetlist of none is empty_tlist) */
	Assert(n >= 1);
	values[0] = from_values[attnums[0] - 1];
	isnull[0] = from_isnull[attnums[0] - 1];
	for (int i = 1; i < n; i++)
	{
		values[i] = from_values[attnums[i] - 1];
		isnull[i] = from_isnull[attnums[i] - 1];
	}
	return projection_result_filled(result);
}

#endif							/* MEMPROBE_STREAMSCAN_PROJECT_H */
