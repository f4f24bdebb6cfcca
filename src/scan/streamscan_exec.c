/*-------------------------------------------------------------------------
 *
 * streamscan_exec.c
 *	  StreamScan, executor side: a heap sequential scan, page at a time,
 *	  reading its blocks from a look-ahead stream (block_stream.c) and
 *	  handing out tuples in memprobe's slot (tuple_deform.c).
 *
 * It does what nodeSeqscan.c and heapam's page-mode scan
 * (heapgettup_pagemode, heapgetpage / heap_prepare_pagescan) do together,
 * with the same public functions and in the same order; each step is
 * beside the function that mirrors it: the scan starts at the first fetch,
 * not at executor start, so EXPLAIN without ANALYZE scans nothing
 * (begin_scan); the block count, the BAS_BULKREAD ring and synchronized
 * scans (init_scan, next_block); SERIALIZABLE's predicate lock before the
 * block count (lock_relation) and its rw-conflict checks on every tuple
 * read; each page pruned and its visible tuples collected at once under a
 * share lock (read_page); "snapshot too old" on 15 (test_current_page);
 * backward scans and changes of direction, as heapam (next_tuple_slow);
 * EvalPlanQual's test tuple copied into the node's own slot, so that quals
 * and projection see it as any scanned tuple (epq_fetch).  The scan needs
 * an MVCC snapshot (page-at-a-time visibility), as heapam's page mode does;
 * executor snapshots always are.
 *
 * The node's state is in streamscan_node.h.  Apart from this file: what the
 * node sets up before its first row (streamscan_prepare.c), the projection
 * fast paths (streamscan_project.[ch]) and the EXPLAIN ANALYZE lines
 * (streamscan_explain.c).
 *
 * Copyright (c) 2026, The memprobe Developers
 * Portions Copyright (c) 1996-2025, PostgreSQL Global Development Group
 * Portions Copyright (c) 1994, Regents of the University of California
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/parallel.h"
#include "access/relscan.h"
#include "access/syncscan.h"
#include "access/tableam.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "storage/predicate.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "scan/block_stream.h"
#include "shared/compat.h"
#include "shared/injection.h"
#include "scan/page_quals.h"
#include "scan/streamscan.h"
#include "scan/streamscan_node.h"
#include "scan/streamscan_parallel.h"
#include "scan/streamscan_project.h"
#include "scan/tuple_deform.h"

static Node *streamscan_create_state(CustomScan *cscan);
static TupleTableSlot *streamscan_exec(CustomScanState *node);
static TupleTableSlot *streamscan_exec_columns(CustomScanState *node);
static void streamscan_end(CustomScanState *node);
static void streamscan_rescan(CustomScanState *node);
static void streamscan_shutdown(CustomScanState *node);
static Size streamscan_estimate_dsm(CustomScanState *node, ParallelContext *pcxt);
static void streamscan_initialize_dsm(CustomScanState *node, ParallelContext *pcxt,
									  void *coordinate);
static void streamscan_reinitialize_dsm(CustomScanState *node, ParallelContext *pcxt,
										void *coordinate);
static void streamscan_initialize_worker(CustomScanState *node, shm_toc *toc,
										 void *coordinate);

const CustomScanMethods streamscan_scan_methods = {
	.CustomName = STREAMSCAN_CUSTOM_NAME,
	.CreateCustomScanState = streamscan_create_state,
};

static const CustomExecMethods streamscan_exec_methods = {
	.CustomName = STREAMSCAN_CUSTOM_NAME,
	.BeginCustomScan = streamscan_begin,
	.ExecCustomScan = streamscan_exec,
	.EndCustomScan = streamscan_end,
	.ReScanCustomScan = streamscan_rescan,
	.ExplainCustomScan = streamscan_explain,
	/* called by core for parallel-aware nodes only */
	.EstimateDSMCustomScan = streamscan_estimate_dsm,
	.InitializeDSMCustomScan = streamscan_initialize_dsm,
	.ReInitializeDSMCustomScan = streamscan_reinitialize_dsm,
	.InitializeWorkerCustomScan = streamscan_initialize_worker,
	.ShutdownCustomScan = streamscan_shutdown,
};

/*
 * The node's methods once prepare_scan has found it has no qual and a
 * projection that copies columns, each named once, with deformation by need
 * on: streamscan_exec_methods with streamscan_exec_columns to return rows,
 * made from them in streamscan_exec_init.  Core reads a node's methods at
 * every call, so the switch takes effect at the next row (as PostgreSQL 18
 * picks a Seq Scan's ExecProcNode variant by its qual and projection), and
 * nothing in memprobe tells a StreamScan by its methods.
 */
CustomExecMethods streamscan_columns_exec_methods;

static Node *
streamscan_create_state(CustomScan *cscan)
{
	StreamScanState *s = palloc0(sizeof(StreamScanState));

	NodeSetTag(s, T_CustomScanState);
	s->css.methods = &streamscan_exec_methods;
	compat_custom_scan_request_slot_ops(&s->css, &memprobe_deform_slot_ops);
	s->cbuf = InvalidBuffer;
	s->cblock = InvalidBlockNumber;
	return (Node *) s;
}

/*
 * init_scan
 *		As heapam's initscan(): block count and synchronized-scan start.
 *		'rescan' keeps the start block, so that rewinding a cursor does not
 *		move it.  Returns whether the scan is to read through a BAS_BULKREAD
 *		ring (the caller sets up the strategy and the stream that uses it).
 */
static bool
init_scan(StreamScanState *s, bool rescan)
{
	bool		bulk;

	/*
	 * A parallel scan believes the block count of the shared scan, rescans
	 * too (initscan); the shared allocator picks the start block and
	 * reports positions to the synchronized-scan machinery.
	 */
	if (s->par != NULL)
		s->nblocks = streamscan_parallel_nblocks(s->par);
	else
		s->nblocks = RelationGetNumberOfBlocks(s->rel);

	bulk = !RelationUsesLocalBuffers(s->rel) && s->nblocks > (BlockNumber) NBuffers / 4;

	if (s->par != NULL)
	{
		s->report_sync = false;
		s->startblock = 0;
		s->inited = false;
		s->cblock = InvalidBlockNumber;
		pgstat_count_heap_scan(s->rel);
		return bulk;
	}

	/*
	 * As heapam's SO_ALLOW_SYNC: once off (a backward pass started, or the
	 * setting was off), a rescan keeps it off.
	 */
	s->report_sync = bulk && synchronize_seqscans && (!rescan || s->report_sync);

	if (!rescan)
		s->startblock = s->report_sync ? ss_get_location(s->rel, s->nblocks) : 0;

	s->inited = false;
	s->cblock = InvalidBlockNumber;

	pgstat_count_heap_scan(s->rel);
	return bulk;
}

/*
 * next_block
 *		The block stream's callback: the block after the last one it was
 *		given, in the pass's direction, as heapam's
 *		heapgettup_initial_block / heapgettup_advance_block.
 */
static BlockNumber
next_block(struct ReadStream *stream, void *arg, void *per_buffer_data)
{
	StreamScanState *s = arg;
	BlockNumber blk;

	if (s->stream_done || s->nblocks == 0)
		return InvalidBlockNumber;

	if (s->par != NULL)
	{
		/* as heapam's heap_scan_stream_read_next_parallel: forward only */
		Assert(ScanDirectionIsForward(s->dir));
		if (!s->stream_started)
		{
			s->stream_started = true;
			streamscan_parallel_restart(s->par);
		}
		blk = streamscan_parallel_next_block(s->par, s->rel);
	}
	else if (!s->stream_started)
	{
		s->stream_started = true;
		if (ScanDirectionIsForward(s->dir))
			blk = s->startblock;
		else
		{
			/* as heapam: a backward scan would mislead forward ones */
			s->report_sync = false;
			blk = s->startblock > 0 ? s->startblock - 1 : s->nblocks - 1;
		}
	}
	else if (ScanDirectionIsForward(s->dir))
	{
		blk = s->stream_block + 1;
		if (blk >= s->nblocks)
			blk = 0;
		/*
		 * As heapam (heapgettup_pagemode on 15, heapgettup_advance_block on
		 * 17+): the block moved to is reported before it is read, and before
		 * the end check, so that a finished scan reports its start.  Only
		 * forward passes report, and memprobe's own stream (15) queues only
		 * backward ones, so on 15 this is the block about to be read, as in
		 * heapam; core's read stream (17+) asks for blocks ahead, and heapam
		 * reports those.
		 */
		if (s->report_sync)
			ss_report_location(s->rel, blk);
		if (blk == s->startblock)
			blk = InvalidBlockNumber;
	}
	else
	{
		blk = s->stream_block;
		if (blk == s->startblock)
			blk = InvalidBlockNumber;
		else
			blk = (blk == 0 ? s->nblocks : blk) - 1;
	}

	if (blk == InvalidBlockNumber)
		s->stream_done = true;
	else
		s->stream_block = blk;
	return blk;
}

/*
 * restart_stream
 *		Point the stream at 'from' (InvalidBlockNumber: the start of a pass)
 *		in direction 'dir'.
 */
static void
restart_stream(StreamScanState *s, ScanDirection dir, BlockNumber from)
{
	s->dir = dir;
	s->stream_done = false;
	s->stream_started = BlockNumberIsValid(from);
	s->stream_block = from;
	block_stream_reset(s->stream);
}

/*
 * read_page
 *		Move to the stream's next block and collect its visible tuples, as
 *		heapgetpage (15) / heap_prepare_pagescan (17+).  False at the end.
 */
static bool
read_page(StreamScanState *s)
{
	Buffer		buf;
	Page		page;
	OffsetNumber lines;
	bool		all_visible;
	bool		check_serializable;
	int			ntup = 0;

	if (BufferIsValid(s->cbuf))
	{
		ReleaseBuffer(s->cbuf);
		s->cbuf = InvalidBuffer;
	}

	/* at least once per page: a page of dead tuples returns nothing */
	CHECK_FOR_INTERRUPTS();

	buf = block_stream_next(s->stream, next_block);
	if (!BufferIsValid(buf))
	{
		s->cblock = InvalidBlockNumber;
		s->ntuples = 0;
		return false;
	}
	s->cbuf = buf;
	s->cpage = BufferGetPage(buf);
	s->cblock = BufferGetBlockNumber(buf);
	if (s->par != NULL)
		streamscan_parallel_note_read(s->par, s->cblock, &s->stats);

	heap_page_prune_opt(s->rel, buf);

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	compat_test_for_old_snapshot(s->snapshot, s->rel, page);
	lines = PageGetMaxOffsetNumber(page);

	/* all-visible: every tuple is visible to every snapshot, but a standby's */
	all_visible = PageIsAllVisible(page) && !s->snapshot->takenDuringRecovery;
	check_serializable = CheckForSerializableConflictOutNeeded(s->rel, s->snapshot);

	for (OffsetNumber off = FirstOffsetNumber; off <= lines; off++)
	{
		ItemId		lpp = PageGetItemId(page, off);
		HeapTupleData loctup;
		bool		valid;

		if (!ItemIdIsNormal(lpp))
			continue;

		if (all_visible && !check_serializable)
		{
			s->vistuples[ntup++] = off;
			continue;
		}

		loctup.t_tableOid = RelationGetRelid(s->rel);
		loctup.t_data = (HeapTupleHeader) PageGetItem(page, lpp);
		loctup.t_len = ItemIdGetLength(lpp);
		ItemPointerSet(&loctup.t_self, s->cblock, off);

		valid = all_visible || HeapTupleSatisfiesVisibility(&loctup, s->snapshot, buf);
		if (check_serializable)
			HeapCheckForSerializableConflictOut(valid, s->rel, &loctup, buf,
												s->snapshot);
		if (valid)
			s->vistuples[ntup++] = off;
	}

	LockBuffer(buf, BUFFER_LOCK_UNLOCK);

	Assert(ntup <= MaxHeapTuplesPerPage);
	s->ntuples = ntup;
	return true;
}

/*
 * set_ctup
 *		Point s->ctup at the current visible tuple.
 */
static inline void
set_ctup(StreamScanState *s)
{
	Page		page = s->cpage;
	OffsetNumber off = s->vistuples[s->cindex];
	ItemId		lpp = PageGetItemId(page, off);

	Assert(page == BufferGetPage(s->cbuf));

	s->ctup.t_data = (HeapTupleHeader) PageGetItem(page, lpp);
	s->ctup.t_len = ItemIdGetLength(lpp);
	ItemPointerSet(&s->ctup.t_self, s->cblock, off);
}

/*
 * test_current_page
 *		"snapshot too old" (PostgreSQL 15 only; nothing on 17+): heapam's
 *		heapgettup_pagemode tests the current page at every fetch, before it
 *		moves on, and a new page again once it is read; so do we.
 */
static inline void
test_current_page(StreamScanState *s)
{
	compat_test_for_old_snapshot(s->snapshot, s->rel, BufferGetPage(s->cbuf));
}

/*
 * next_tuple_slow
 *		next_tuple() at the start of a pass, on a change of direction, and
 *		when the current page is used up.
 */
static pg_noinline bool
next_tuple_slow(StreamScanState *s, ScanDirection dir)
{
	bool		forward = ScanDirectionIsForward(dir);

	if (!s->inited)
	{
		/* a new pass: from the start block, or backward from the one before */
		restart_stream(s, dir, InvalidBlockNumber);
		if (!read_page(s))
			return false;
		test_current_page(s);
		s->cindex = forward ? 0 : s->ntuples - 1;
		s->inited = true;
	}
	else
	{
		test_current_page(s);
		s->cindex += forward ? 1 : -1;
	}

	while (s->cindex < 0 || s->cindex >= s->ntuples)
	{
		/*
		 * After a change of direction, the stream restarts from the current
		 * block here, when the next page is needed, and not when the cursor
		 * turns around: as heapam's heap_fetch_next_buffer (17+).  A cursor
		 * that turns around within a page thus neither waits for the
		 * look-ahead reads in flight (nor meets their errors) nor loses the
		 * look-ahead distance it has built up.
		 */
		if (dir != s->dir)
			restart_stream(s, dir, s->cblock);
		if (!read_page(s))
		{
			/* end of the pass; a later fetch starts a new one */
			s->inited = false;
			return false;
		}
		test_current_page(s);
		s->cindex = forward ? 0 : s->ntuples - 1;
	}

	set_ctup(s);
	return true;
}

/*
 * next_tuple
 *		Advance to the next visible tuple in direction 'dir' and point
 *		s->ctup at it; false at the end of the scan in that direction.
 */
static inline bool
next_tuple(StreamScanState *s, ScanDirection dir)
{
	/* the common case: forward, on the same page, the stream going forward */
	if (likely(s->inited && dir == ForwardScanDirection && s->dir == dir &&
			   s->cindex + 1 < s->ntuples))
	{
		test_current_page(s);
		s->cindex++;
		set_ctup(s);
		return true;
	}
	return next_tuple_slow(s, dir);
}

/*
 * skip_failing_tuples
 *		The page loop's fast path for page quals, forward on a page: the tuples
 *		after the current one that fail them are passed over in one tight
 *		loop, counted as core counts them one at a time (each fetched, for
 *		pg_stat's seq_tup_read, and each filtered, for EXPLAIN ANALYZE's "Rows
 *		Removed by Filter"), and the current tuple becomes the last of them;
 *		next_tuple() then goes on to the next tuple, one that passes or cannot
 *		be decided on the raw tuple, or to the next page.  Only when the scan
 *		goes forward and the current page has tuples after the current one.
 *
 * Returns the page quals' result for the tuple it stopped at, the one
 * next_tuple() goes to, so that the caller does not check it again; or
 * PAGE_QUAL_NOT_CHECKED when it checked none there (nothing done, or every
 * tuple left on the page failed, and next_tuple() goes to another page).
 */
#define PAGE_QUAL_NOT_CHECKED (-1)

static inline int
skip_failing_tuples(StreamScanState *s)
{
	Page		page;
	int			i,
				first;
	int			stop_result = PAGE_QUAL_NOT_CHECKED;

	if (!(s->inited && s->css.ss.ps.state->es_direction == ForwardScanDirection &&
		  s->dir == ForwardScanDirection && s->cindex + 1 < s->ntuples))
		return PAGE_QUAL_NOT_CHECKED;
	page = s->cpage;
	first = s->cindex + 1;
	for (i = first; i < s->ntuples; i++)
	{
		ItemId		lpp = PageGetItemId(page, s->vistuples[i]);
		PageQualResult r = page_quals_check(s->page_quals,
											(HeapTupleHeader) PageGetItem(page, lpp));

		if (r != PAGE_QUAL_FAIL)
		{
			stop_result = r;
			break;
		}
	}
	if (i > first)
	{
		s->cindex = i - 1;
		compat_count_heap_getnext_n(s->rel, i - first);
		InstrCountFiltered1(&s->css, i - first);
		set_ctup(s);
	}
	return stop_result;
}

/*
 * lock_relation
 *		As heap_beginscan for a sequential scan, before the block count is
 *		read: the snapshot check and the relation's predicate lock.
 *
 * The lock comes before the block count (initscan, or for a parallel scan
 * table_parallelscan_initialize).  The other way round, a concurrent
 * serializable transaction could extend the table in between with a row
 * this scan never reads, before this scan's lock exists for its write to
 * see: the rw-conflict would be lost and write skew could commit.  (Core's
 * Parallel Seq Scan counts the blocks first, in ExecSeqScanInitializeDSM,
 * and takes the lock in table_beginscan_parallel after it: memprobe keeps
 * the serial scan's order there too.)
 */
static void
lock_relation(StreamScanState *s)
{
	/* page-at-a-time visibility is only right for MVCC snapshots */
	if (!IsMVCCSnapshot(s->snapshot))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("memprobe stream scan requires an MVCC snapshot"),
				 errhint("Set memprobe.enable_streamscan to off.")));

	PredicateLockRelation(s->rel, s->snapshot);
	MEMPROBE_INJECTION_POINT("streamscan-scan-start");
}

/*
 * start_scan
 *		The rest of heap_beginscan: block count, strategy, stream.
 */
static void
start_scan(StreamScanState *s)
{
	s->vistuples = MemoryContextAlloc(s->css.ss.ps.state->es_query_cxt,
									  sizeof(OffsetNumber) * MaxHeapTuplesPerPage);
	if (init_scan(s, false))
		s->strategy = GetAccessStrategy(BAS_BULKREAD);
	s->stream = block_stream_begin(s->rel, s->strategy, s->max_distance,
								   next_block, s, &s->stats);
	s->begun = true;
}

/*
 * begin_scan
 *		The first fetch of a serial scan (or of a parallel-aware one run
 *		without a parallel context): as heap_beginscan.
 */
static void
begin_scan(StreamScanState *s)
{
	lock_relation(s);
	start_scan(s);
}

/*
 * epq_fetch
 *		Inside an EvalPlanQual recheck, as execScan.c's ExecScanFetch: the
 *		test tuple for this relation, once, or nothing.  Sets *handled to
 *		false when the relation takes no part in the recheck and is to be
 *		scanned as usual.
 */
static TupleTableSlot *
epq_fetch(StreamScanState *s, bool *handled)
{
	ScanState  *ss = &s->css.ss;
	EPQState   *epqstate = ss->ps.state->es_epq_active;
	Index		scanrelid = ((Scan *) ss->ps.plan)->scanrelid;
	TupleTableSlot *slot = ss->ss_ScanTupleSlot;
	TupleTableSlot *test;

	*handled = true;
	if (epqstate->relsubs_done[scanrelid - 1])
		return ExecClearTuple(slot);

	if (epqstate->relsubs_slot[scanrelid - 1] != NULL)
	{
		test = epqstate->relsubs_slot[scanrelid - 1];
		Assert(epqstate->relsubs_rowmark[scanrelid - 1] == NULL);
		epqstate->relsubs_done[scanrelid - 1] = true;
	}
	else if (epqstate->relsubs_rowmark[scanrelid - 1] != NULL)
	{
		if (s->epq_fetch_slot == NULL)
		{
			MemoryContext oldcxt = MemoryContextSwitchTo(ss->ps.state->es_query_cxt);

			s->epq_fetch_slot = ExecInitExtraTupleSlot(ss->ps.state,
													   RelationGetDescr(s->rel),
													   &TTSOpsBufferHeapTuple);
			MemoryContextSwitchTo(oldcxt);
		}
		test = s->epq_fetch_slot;
		epqstate->relsubs_done[scanrelid - 1] = true;
		if (!EvalPlanQualFetchRowMark(epqstate, scanrelid, test))
			return NULL;
	}
	else
	{
		*handled = false;
		return NULL;
	}

	if (TupIsNull(test))
		return NULL;

	/* our slot type: quals and projection were compiled for it */
	ExecCopySlot(slot, test);
	slot->tts_tableOid = test->tts_tableOid;
	slot->tts_tid = test->tts_tid;
	/* a sequential scan has no access-method condition to recheck */
	return slot;
}

/*
 * streamscan_exec
 *		As ExecScan: fetch, check the quals, project.  Tuples that fail the
 *		page-loop quals are counted and skipped without touching the slot.
 */
static TupleTableSlot *
streamscan_exec(CustomScanState *node)
{
	StreamScanState *s = (StreamScanState *) node;
	EState	   *estate = node->ss.ps.state;
	ExprContext *econtext = node->ss.ps.ps_ExprContext;
	ExprState  *qual;
	ProjectionInfo *proj;
	TupleTableSlot *scanslot = node->ss.ss_ScanTupleSlot;

	if (unlikely(!s->prepared))
		prepare_scan(s);
	qual = node->ss.ps.qual;
	proj = node->ss.ps.ps_ProjInfo;

	for (;;)
	{
		TupleTableSlot *slot = scanslot;
		ExprState  *checkqual = qual;

		CHECK_FOR_INTERRUPTS();
		/* ResetExprContext(), whose two tests (children, anything allocated) come first */
		if (!econtext->ecxt_per_tuple_memory->isReset ||
			econtext->ecxt_per_tuple_memory->firstchild != NULL)
			ResetExprContext(econtext);

		if (unlikely(estate->es_epq_active != NULL))
		{
			bool		handled;

			slot = epq_fetch(s, &handled);
			if (!handled)
				slot = scanslot;
			else if (TupIsNull(slot))
				return proj ? ExecClearTuple(proj->pi_state.resultslot) : slot;
			else
			{
				/* the test tuple meets the whole qual */
				if (unlikely(s->qual_deferred))
					qual = compile_deferred_qual(s);
				checkqual = qual;
				goto check;
			}
		}

		if (unlikely(!s->begun))
			begin_scan(s);

		for (;;)
		{
			int			known = PAGE_QUAL_NOT_CHECKED;

			if (s->page_quals != NULL && s->batch_quals)
				known = skip_failing_tuples(s);
			if (!next_tuple(s, estate->es_direction))
			{
				ExecClearTuple(scanslot);
				return proj ? ExecClearTuple(proj->pi_state.resultslot) : scanslot;
			}
			pgstat_count_heap_getnext(s->rel);

			if (s->page_quals == NULL)
				break;
			/* the tuple skip_failing_tuples() stopped at is the one we are on */
			if (known == PAGE_QUAL_NOT_CHECKED)
				known = page_quals_check(s->page_quals, s->ctup.t_data);
			switch ((PageQualResult) known)
			{
				case PAGE_QUAL_PASS:
					checkqual = s->rest_qual;
					break;
				case PAGE_QUAL_FAIL:
					InstrCountFiltered1(node, 1);
					continue;
				case PAGE_QUAL_UNKNOWN:
					if (unlikely(s->qual_deferred))
						qual = compile_deferred_qual(s);
					checkqual = qual;
					break;
			}
			break;
		}
		deform_slot_store(scanslot, &s->ctup, s->cbuf);

check:
		econtext->ecxt_scantuple = slot;
		if (checkqual == NULL || ExecQual(checkqual, econtext))
		{
			if (proj == NULL)
				return slot;
			if (s->empty_tlist)
			{
				/*
				 * What ExecProject would make of no columns, without running
				 * it: a row of no columns, the same for every tuple, so the
				 * slot stays as it is once stored.
				 */
				TupleTableSlot *result = proj->pi_state.resultslot;

				if (TTS_EMPTY(result))
					ExecStoreVirtualTuple(result);
				return result;
			}
			if (s->proj_attnums != NULL)
				return project_columns(s, slot);
			return ExecProject(proj);
		}

		InstrCountFiltered1(node, 1);
	}
}

/*
 * streamscan_exec_columns
 *		streamscan_exec for a node with no qual (nor page-loop quals) whose
 *		projection copies columns, each named once, with deformation by need
 *		and memprobe.streamscan_direct_projection on (prepare_scan decides,
 *		once): every tuple fetched is a row, and a tuple with no NULL is
 *		deformed straight into the projection's result slot.  The scan slot
 *		still holds the tuple, for its TID (WHERE CURRENT OF) and for anyone
 *		who reads it: it deforms on demand as always, from its first column.
 *		An EvalPlanQual recheck, and the first fetch, go through
 *		streamscan_exec.  ExecCustomScan has checked for interrupts just
 *		before, and nothing here loops over tuples (read_page checks once per
 *		page, as streamscan_exec does).
 */
static TupleTableSlot *
streamscan_exec_columns(CustomScanState *node)
{
	StreamScanState *s = (StreamScanState *) node;
	EState	   *estate = node->ss.ps.state;
	ExprContext *econtext = node->ss.ps.ps_ExprContext;
	TupleTableSlot *scanslot = node->ss.ss_ScanTupleSlot;
	TupleTableSlot *result = node->ss.ps.ps_ProjInfo->pi_state.resultslot;
	HeapTupleHeader tup;
	uint32		end = 0;

	Assert(s->prepared && node->ss.ps.qual == NULL && s->page_quals == NULL &&
		   s->proj_steps != NULL);
	if (unlikely(estate->es_epq_active != NULL || !s->begun))
		return streamscan_exec(node);

	/* ResetExprContext(), as streamscan_exec */
	if (!econtext->ecxt_per_tuple_memory->isReset ||
		econtext->ecxt_per_tuple_memory->firstchild != NULL)
		ResetExprContext(econtext);

	if (!next_tuple(s, estate->es_direction))
	{
		ExecClearTuple(scanslot);
		return ExecClearTuple(result);
	}
	pgstat_count_heap_getnext(s->rel);
	deform_slot_store(scanslot, &s->ctup, s->cbuf);
	econtext->ecxt_scantuple = scanslot;

	/* the steps hold for a tuple with every column up to proj_last, none NULL */
	tup = s->ctup.t_data;
	if (unlikely(HeapTupleHeaderGetNatts(tup) < s->proj_last ||
				 (HeapTupleHasNulls(&s->ctup) && !no_nulls_before(tup->t_bits, s->proj_last))))
		return project_columns_through_slot(s, scanslot);
	clear_projection_result(result);
	deform_steps(s->proj_steps, 0, s->proj_nsteps, INT_MAX, (char *) tup + tup->t_hoff,
				 result->tts_values, result->tts_isnull, &end);
	return projection_result_filled(result);
}

static void
streamscan_end(CustomScanState *node)
{
	StreamScanState *s = (StreamScanState *) node;

	if (BufferIsValid(s->cbuf))
		ReleaseBuffer(s->cbuf);
	s->cbuf = InvalidBuffer;
	if (s->stream)
		block_stream_end(s->stream);
	s->stream = NULL;
	if (s->strategy)
		FreeAccessStrategy(s->strategy);
	s->strategy = NULL;
	if (s->par != NULL)
	{
		if (IsParallelWorker())
			streamscan_parallel_publish(s->par, &s->stats);
		streamscan_parallel_end(s->par);
		s->par = NULL;
	}
}

/*
 * streamscan_shutdown
 *		A worker's scan is over (ExecShutdownNode): its page counts go to its
 *		slot for the leader, before the worker reports that it has finished.
 */
static void
streamscan_shutdown(CustomScanState *node)
{
	StreamScanState *s = (StreamScanState *) node;

	if (s->par != NULL && IsParallelWorker())
		streamscan_parallel_publish(s->par, &s->stats);
}

/*
 * streamscan_estimate_dsm
 *		Parallel-aware scans only (ExecParallelEstimate): see
 *		streamscan_parallel.c.
 */
static Size
streamscan_estimate_dsm(CustomScanState *node, ParallelContext *pcxt)
{
	StreamScanState *s = (StreamScanState *) node;

	return streamscan_parallel_estimate(s->rel, s->snapshot, pcxt->nworkers);
}

/*
 * streamscan_initialize_dsm
 *		The leader, as ExecSeqScanInitializeDSM: the shared scan, and this
 *		process's part in it begun, as table_beginscan_parallel() begins it
 *		there, whether or not the leader will take part.
 */
static void
streamscan_initialize_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	StreamScanState *s = (StreamScanState *) node;
	/* the scan's state lives as long as the query, wherever the Gather runs */
	MemoryContext oldcxt = MemoryContextSwitchTo(node->ss.ps.state->es_query_cxt);

	if (!s->begun)
		lock_relation(s);
	s->par = streamscan_parallel_initialize(s->par, coordinate, node->pscan_len, pcxt,
											s->rel, s->snapshot);
	if (!s->begun)
		start_scan(s);
	else
	{
		/* a new parallel context for a scan begun already: start over */
		if (BufferIsValid(s->cbuf))
			ReleaseBuffer(s->cbuf);
		s->cbuf = InvalidBuffer;
		block_stream_reset(s->stream);
		(void) init_scan(s, true);
	}
	MemoryContextSwitchTo(oldcxt);
}

/*
 * streamscan_reinitialize_dsm
 *		The leader, before a rescan's workers start: as
 *		ExecSeqScanReInitializeDSM.  The leader's own rescan (which rewinds
 *		its part) has run already (ExecReScanGather).
 */
static void
streamscan_reinitialize_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	StreamScanState *s = (StreamScanState *) node;

	streamscan_parallel_reinitialize(s->par, s->rel);
}

/*
 * streamscan_initialize_worker
 *		A worker, as ExecSeqScanInitializeWorker: its part of the shared
 *		scan begun, with the snapshot the leader serialized in it.
 */
static void
streamscan_initialize_worker(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	StreamScanState *s = (StreamScanState *) node;
	MemoryContext oldcxt = MemoryContextSwitchTo(node->ss.ps.state->es_query_cxt);

	s->par = streamscan_parallel_attach(coordinate, s->rel);
	s->snapshot = s->par->snapshot;
	begin_scan(s);
	MemoryContextSwitchTo(oldcxt);
}

/*
 * streamscan_rescan
 *		As ExecReScanSeqScan + heap_rescan: start over at the same start
 *		block, with a fresh block count.
 */
static void
streamscan_rescan(CustomScanState *node)
{
	StreamScanState *s = (StreamScanState *) node;

	if (s->begun)
	{
		bool		bulk;

		if (BufferIsValid(s->cbuf))
			ReleaseBuffer(s->cbuf);
		s->cbuf = InvalidBuffer;
		/* drop look-ahead pins now, as heap_rescan does, not at the next fetch */
		block_stream_reset(s->stream);

		bulk = init_scan(s, true);
		if (bulk != (s->strategy != NULL))
		{
			/* the stream reads through the strategy: end it before the strategy */
			block_stream_end(s->stream);
			if (s->strategy)
				FreeAccessStrategy(s->strategy);
			s->strategy = bulk ? GetAccessStrategy(BAS_BULKREAD) : NULL;
			s->stream = block_stream_begin(s->rel, s->strategy, s->max_distance,
										   next_block, s, &s->stats);
		}
	}
	ExecScanReScan(&node->ss);
}

/*
 * streamscan_exec_init
 *		Register the custom scan so that copied, cached and serialized plans
 *		(parallel workers) find its methods by name.
 */
void
streamscan_exec_init(void)
{
	tuple_deform_init();
	RegisterCustomScanMethods(&streamscan_scan_methods);
	streamscan_columns_exec_methods = streamscan_exec_methods;
	streamscan_columns_exec_methods.ExecCustomScan = streamscan_exec_columns;
}
