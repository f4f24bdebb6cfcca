/*-------------------------------------------------------------------------
 *
 * streamscan_parallel.c
 *	  Parallel StreamScan: the shared block allocation and the page counts
 *	  of every participant (streamscan_parallel.h).
 *
 * Block allocation is core's, called the way heapam's parallel scan calls
 * it (heap_scan_stream_read_next_parallel on 17+, heapgettup_pagemode's
 * parallel branch on 15): table_block_parallelscan_startblock_init() when a
 * pass starts, then table_block_parallelscan_nextpage() for every block, so
 * that chunk sizes, the ramp-down that evens out the end of the scan and
 * the synchronized-scan start and position reports are the ones core's
 * Parallel Seq Scan has.  Its shared state is laid out and initialized by
 * table_parallelscan_initialize(), with the leader's snapshot serialized
 * behind it; a worker scans with that snapshot, restored and registered as
 * table_beginscan_parallel() does.
 *
 * The page counts.  Core gives a custom scan no instrumentation callback:
 * its workers' EXPLAIN figures can only come back through the node's own
 * dynamic shared memory, and that is destroyed (ExecParallelCleanup) before
 * EXPLAIN prints.  So each worker adds its counts to its slot when its scan
 * shuts down (before it reports that it has finished), and the leader reads
 * the slots in an on_dsm_detach callback: the segment is detached only
 * after ExecParallelFinish() has waited for every worker to finish (or on
 * abort, when nothing will print them).  The leader's copy lives in the
 * memory of the (sub)transaction that runs the query, so that a callback
 * that runs during an abort, after the executor's memory may be gone,
 * still writes into live memory; the node frees it at its end, cancelling
 * the callback if the segment is still attached.
 *
 * Copyright (c) 2026, The memprobe Developers
 * Portions Copyright (c) 1996-2025, PostgreSQL Global Development Group
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/parallel.h"
#include "access/relscan.h"
#include "access/tableam.h"
#include "port/atomics.h"
#include "storage/dsm.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "scan/streamscan_parallel.h"

/* memprobe.enable_parallel_streamscan */
bool		streamscan_parallel_enabled = true;

struct StreamScanShared
{
	int			nworkers;		/* worker slots: the workers planned */
	Size		pscan_off;		/* core's parallel scan, from the start */
	Size		seen_off;		/* test builds: the bitmap of blocks read */
	BlockNumber seen_blocks;	/* blocks the bitmap covers (0: none) */
	BlockStreamStats workers[FLEXIBLE_ARRAY_MEMBER];
};

struct StreamScanWorkerTotals
{
	dsm_segment *seg;			/* attached, with our callback; or NULL */
	StreamScanShared *shared;	/* in 'seg' */
	int			nworkers;
	BlockStreamStats each[FLEXIBLE_ARRAY_MEMBER];
};

/*
 * Test builds count every block read in a bitmap, to show that no block is
 * read twice; a relation that grows past what the bitmap was sized for
 * between estimate and initialization (a concurrent extension) is not
 * counted.  Production builds have no bitmap.
 */
#ifdef MEMPROBE_INJECTION_POINTS
#define SEEN_SLACK_BLOCKS	1024
#define seen_bytes(nblocks) \
	(sizeof(pg_atomic_uint32) * (((Size) (nblocks) + SEEN_SLACK_BLOCKS + 31) / 32))
#else
#define seen_bytes(nblocks) ((Size) 0)
#endif

static Size
shared_header_size(int nworkers)
{
	return MAXALIGN(add_size(offsetof(StreamScanShared, workers),
							 mul_size(sizeof(BlockStreamStats), nworkers)));
}

/*
 * streamscan_parallel_estimate
 *		The node's dynamic shared memory: slots, core's parallel scan and
 *		the serialized snapshot (and in test builds the bitmap).
 */
Size
streamscan_parallel_estimate(Relation rel, Snapshot snapshot, int nworkers)
{
	Size		size = shared_header_size(nworkers);

	size = add_size(size, MAXALIGN(table_parallelscan_estimate(rel, snapshot)));
	size = add_size(size, seen_bytes(RelationGetNumberOfBlocks(rel)));
	return size;
}

static void
collect_on_detach(dsm_segment *seg, Datum arg)
{
	StreamScanWorkerTotals *totals = (StreamScanWorkerTotals *) DatumGetPointer(arg);
	StreamScanShared *shared = totals->shared;

	for (int i = 0; i < Min(shared->nworkers, totals->nworkers); i++)
		block_stream_stats_add(&totals->each[i], &shared->workers[i]);
	totals->seg = NULL;
	totals->shared = NULL;
}

/*
 * streamscan_parallel_initialize
 *		The leader, at ExecInitParallelPlan: the shared state, in the
 *		'size' bytes the estimate asked for, for a scan of 'rel' with the
 *		leader's snapshot.  'par' is the node's from an earlier parallel
 *		context, if any (its workers' counts go on adding up), or NULL.
 */
StreamScanParallel *
streamscan_parallel_initialize(StreamScanParallel *par, void *coordinate, Size size,
							   ParallelContext *pcxt, Relation rel, Snapshot snapshot)
{
	StreamScanShared *shared = coordinate;
	int			nworkers = pcxt->nworkers;
	Size		header = shared_header_size(nworkers);

	memset(shared, 0, header);
	shared->nworkers = nworkers;
	shared->pscan_off = header;
	table_parallelscan_initialize(rel,
								  (ParallelTableScanDesc) ((char *) shared + shared->pscan_off),
								  snapshot);
	shared->seen_off = header + MAXALIGN(table_parallelscan_estimate(rel, snapshot));

#ifdef MEMPROBE_INJECTION_POINTS
	{
		/* the bitmap is what the estimate left after the scan's state */
		Size		words = (size - shared->seen_off) / sizeof(pg_atomic_uint32);
		BlockNumber nblocks = ((ParallelBlockTableScanDesc)
							   ((char *) shared + shared->pscan_off))->phs_nblocks;

		Assert(shared->seen_off <= size);
		if ((uint64) words * 32 >= nblocks)
		{
			pg_atomic_uint32 *seen = (pg_atomic_uint32 *) ((char *) shared + shared->seen_off);

			shared->seen_blocks = nblocks;
			for (Size i = 0; i < words; i++)
				pg_atomic_init_u32(&seen[i], 0);
		}
	}
#else
	(void) size;
#endif

	if (par == NULL)
	{
		par = palloc0(sizeof(StreamScanParallel));
		/* see the file's header: (sub)transaction memory */
		par->totals = MemoryContextAllocZero(CurTransactionContext,
											 offsetof(StreamScanWorkerTotals, each) +
											 sizeof(BlockStreamStats) * nworkers);
		par->totals->nworkers = nworkers;
	}
	par->shared = shared;
	par->pbscan = (ParallelBlockTableScanDesc) ((char *) shared + shared->pscan_off);
	par->started = false;

	/* the workers' counts come back to the leader when the segment goes */
	Assert(par->totals->seg == NULL);
	if (pcxt->seg != NULL)
	{
		par->totals->seg = pcxt->seg;
		par->totals->shared = shared;
		on_dsm_detach(pcxt->seg, collect_on_detach, PointerGetDatum(par->totals));
	}
	return par;
}

/*
 * streamscan_parallel_reinitialize
 *		The leader, before a rescan's workers start: as
 *		table_parallelscan_reinitialize, every block unallocated again (the
 *		start block and the block count stay, as in core).  The workers'
 *		counts stay in their slots and go on adding up.
 */
void
streamscan_parallel_reinitialize(StreamScanParallel *par, Relation rel)
{
	StreamScanShared *shared = par->shared;

	table_parallelscan_reinitialize(rel, (ParallelTableScanDesc) par->pbscan);
#ifdef MEMPROBE_INJECTION_POINTS
	if (shared->seen_blocks > 0)
	{
		pg_atomic_uint32 *seen = (pg_atomic_uint32 *) ((char *) shared + shared->seen_off);

		for (BlockNumber i = 0; i < (shared->seen_blocks + 31) / 32; i++)
			pg_atomic_write_u32(&seen[i], 0);
	}
#else
	(void) shared;
#endif
	par->started = false;
}

/*
 * streamscan_parallel_attach
 *		A worker, at its start: the leader's shared state, and the snapshot
 *		serialized in it, restored and registered as
 *		table_beginscan_parallel() does (unregistered at the scan's end).
 */
StreamScanParallel *
streamscan_parallel_attach(void *coordinate, Relation rel)
{
	StreamScanShared *shared = coordinate;
	StreamScanParallel *par = palloc0(sizeof(StreamScanParallel));
	ParallelTableScanDesc pscan = (ParallelTableScanDesc) ((char *) shared + shared->pscan_off);

	par->shared = shared;
	par->pbscan = (ParallelBlockTableScanDesc) pscan;
	/* an MVCC snapshot: the leader's is (the scan refuses any other) */
	if (pscan->phs_snapshot_any)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("memprobe stream scan requires an MVCC snapshot"),
				 errhint("Set memprobe.enable_streamscan to off.")));
	par->snapshot = RestoreSnapshot((char *) pscan + pscan->phs_snapshot_off);
	RegisterSnapshot(par->snapshot);
	return par;
}

BlockNumber
streamscan_parallel_nblocks(StreamScanParallel *par)
{
	return par->pbscan->phs_nblocks;
}

/* A new pass: this process takes its first chunk afresh. */
void
streamscan_parallel_restart(StreamScanParallel *par)
{
	par->started = false;
}

/*
 * streamscan_parallel_next_block
 *		This process's next block, or InvalidBlockNumber when every block
 *		of the relation has been handed out: as heapam's
 *		heap_scan_stream_read_next_parallel.  The position is reported to
 *		the synchronized-scan machinery by core's nextpage.
 */
BlockNumber
streamscan_parallel_next_block(StreamScanParallel *par, Relation rel)
{
	if (unlikely(!par->started))
	{
		table_block_parallelscan_startblock_init(rel, &par->alloc, par->pbscan);
		par->started = true;
	}
	return table_block_parallelscan_nextpage(rel, &par->alloc, par->pbscan);
}

#ifdef MEMPROBE_INJECTION_POINTS
/*
 * streamscan_parallel_note_read
 *		Test builds: mark 'blkno' read, counting it in stats->pages_again if
 *		some participant read it already in this pass.
 */
void
streamscan_parallel_note_read(StreamScanParallel *par, BlockNumber blkno,
							  BlockStreamStats *stats)
{
	StreamScanShared *shared = par->shared;

	if (blkno < shared->seen_blocks)
	{
		pg_atomic_uint32 *seen = (pg_atomic_uint32 *) ((char *) shared + shared->seen_off);
		uint32		bit = (uint32) 1 << (blkno % 32);

		if (pg_atomic_fetch_or_u32(&seen[blkno / 32], bit) & bit)
			stats->pages_again++;
	}
}
#endif

/*
 * streamscan_parallel_publish
 *		A worker whose scan is over: add its counts to its slot, once (it is
 *		called at shutdown and again at the node's end; a worker scans no
 *		more after its shutdown).  Workers of one launch have slots of their
 *		own, and a rescan's workers start only after the last ones finished.
 */
void
streamscan_parallel_publish(StreamScanParallel *par, const BlockStreamStats *mine)
{
	if (par->published ||
		ParallelWorkerNumber < 0 || ParallelWorkerNumber >= par->shared->nworkers)
		return;
	block_stream_stats_add(&par->shared->workers[ParallelWorkerNumber], mine);
	par->published = true;
}

/*
 * streamscan_parallel_worker_stats
 *		The leader, for EXPLAIN: its workers' counts as far as they have come
 *		back (all of them once the Gather has shut its workers down), summed
 *		into *sum, and each worker's in *each.  Returns the number of slots.
 */
int
streamscan_parallel_worker_stats(StreamScanParallel *par, BlockStreamStats *sum,
								 const BlockStreamStats **each)
{
	StreamScanWorkerTotals *totals = par->totals;

	memset(sum, 0, sizeof(*sum));
	*each = NULL;
	if (totals == NULL)
		return 0;
	for (int i = 0; i < totals->nworkers; i++)
		block_stream_stats_add(sum, &totals->each[i]);
	*each = totals->each;
	return totals->nworkers;
}

/*
 * streamscan_parallel_end
 *		The node's end.  A worker unregisters its snapshot.  The leader frees
 *		its copy of the workers' counts, first cancelling the callback that
 *		would fill it if the segment is still attached (ExecEndGather ends
 *		its children before it shuts down its parallel context).
 */
void
streamscan_parallel_end(StreamScanParallel *par)
{
	if (par->snapshot)
		UnregisterSnapshot(par->snapshot);
	par->snapshot = NULL;
	if (par->totals)
	{
		if (par->totals->seg != NULL)
			cancel_on_dsm_detach(par->totals->seg, collect_on_detach,
								 PointerGetDatum(par->totals));
		pfree(par->totals);
		par->totals = NULL;
	}
}
