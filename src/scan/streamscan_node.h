/*-------------------------------------------------------------------------
 *
 * streamscan_node.h
 *	  StreamScan's executor node: its state, and the functions that the
 *	  files running it share.  Private to the streamscan_*.c files of
 *	  src/scan/: nothing else reads the node's state.
 *
 * streamscan_exec.c runs the node: the scan and its rows, EvalPlanQual
 * rechecks, the methods for parallel-aware plans, rescan and end.  Apart
 * from it: what the node sets up before its first row, at executor start
 * and at the first fetch (streamscan_prepare.c), the projection fast paths
 * (streamscan_project.[ch]) and the EXPLAIN ANALYZE lines
 * (streamscan_explain.c).
 *
 * The functions declared here run once per node or per EXPLAIN, not once
 * per row.  What every row runs stays in streamscan_exec.c, or inline in a
 * header (streamscan_project.h), so that the row loop compiles as it did in
 * one file.  That is also why the EvalPlanQual fetch stays there: the
 * compiler inlines it into streamscan_exec, and a call in its place can
 * change the register allocation of the whole loop.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_STREAMSCAN_NODE_H
#define MEMPROBE_STREAMSCAN_NODE_H

#include "postgres.h"

#include "access/htup.h"
#include "access/sdir.h"
#include "nodes/execnodes.h"
#include "nodes/extensible.h"
#include "storage/block.h"
#include "storage/buf.h"
#include "storage/bufpage.h"
#include "storage/off.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"

#include "scan/block_stream.h"
#include "scan/page_quals.h"
#include "scan/streamscan_parallel.h"
#include "scan/tuple_deform.h"

typedef struct StreamScanState
{
	CustomScanState css;

	Relation	rel;
	Snapshot	snapshot;
	int			max_distance;	/* memprobe.streamscan_distance at start */

	/* set up at the first fetch (and again, partly, on rescan) */
	bool		begun;
	BlockNumber nblocks;		/* blocks in the relation at scan start */
	BlockNumber startblock;		/* first block of a forward pass */
	bool		report_sync;	/* report position (forward passes) */
	BufferAccessStrategy strategy;	/* BAS_BULKREAD, for large tables */
	BlockStream *stream;
	BlockStreamStats stats;		/* stream totals over the node's life */

	/*
	 * A parallel-aware scan run with a parallel context: the shared block
	 * allocation (streamscan_parallel.c).  NULL when serial, and when a
	 * parallel-aware plan runs without one (then it scans every block, as
	 * core's Parallel Seq Scan does then).
	 */
	StreamScanParallel *par;

	/* the pass under way, as heapam's rs_inited / rs_dir */
	bool		inited;
	ScanDirection dir;
	bool		stream_started; /* has the stream asked for a block yet? */
	bool		stream_done;	/* the block sequence has ended */
	BlockNumber stream_block;	/* last block handed to the stream */

	/* the current page, its visible tuples, and the current tuple */
	Buffer		cbuf;
	Page		cpage;			/* BufferGetPage(cbuf), taken once a page */
	BlockNumber cblock;
	int			ntuples;
	int			cindex;
	OffsetNumber *vistuples;	/* MaxHeapTuplesPerPage of them */
	HeapTupleData ctup;

	/* EvalPlanQual row-mark refetches need core's slot type (made when needed) */
	TupleTableSlot *epq_fetch_slot;

	/* the plan needs no column (count(*)): no projection to run per row */
	bool		empty_tlist;

	/*
	 * memprobe.streamscan_simple_projection: a projection of plain columns
	 * of the table is a copy of those columns (see simple_projection), or
	 * proj_attnums is NULL and ExecProject runs it.
	 */
	bool		want_simple_projection;
	bool		want_direct_projection; /* memprobe.streamscan_direct_projection */
	AttrNumber *proj_attnums;	/* per output column, its column in the table */
	int			proj_natts;
	AttrNumber	proj_last;		/* the highest of them */

	/*
	 * memprobe.streamscan_direct_projection, with no qual and deformation
	 * by need on: the steps that deform a tuple straight into the
	 * projection's result slot (streamscan_exec_columns), or NULL.
	 */
	DeformStep *proj_steps;
	int			proj_nsteps;

	/*
	 * Work done at the first fetch rather than at executor start, as core's
	 * Seq Scan leaves its scan to the first fetch: a plan over many
	 * partitions, or under EXPLAIN without ANALYZE, pays nothing for scans
	 * that never run.
	 */
	bool		prepared;		/* done? */
	bool		recompile;		/* 15: qual and projection compiled again */
	bool		qual_deferred;	/* 15: ... the qual only once it is needed */
	bool		want_page_quals;	/* memprobe.streamscan_page_quals at start */
	bool		want_by_need;	/* memprobe.streamscan_deform_by_need at start */
	bool		batch_quals;	/* memprobe.streamscan_batch_quals at start */

	/* page-loop quals (page_quals.h), and the quals left after them */
	PageQuals  *page_quals;
	ExprState  *rest_qual;
} StreamScanState;

/* streamscan_exec.c: the node's methods once prepare_scan switches to streamscan_exec_columns */
extern CustomExecMethods streamscan_columns_exec_methods;

/* streamscan_prepare.c */
extern void streamscan_begin(CustomScanState *node, EState *estate, int eflags);
extern void prepare_scan(StreamScanState *s);
extern ExprState *compile_deferred_qual(StreamScanState *s);

/* streamscan_explain.c */
extern void streamscan_explain(CustomScanState *node, List *ancestors,
							   ExplainState *es);

#endif							/* MEMPROBE_STREAMSCAN_NODE_H */
