/*-------------------------------------------------------------------------
 *
 * streamscan_parallel.h
 *	  Parallel StreamScan: the blocks of one heap scan shared out between a
 *	  Gather's leader and its workers, as core's Parallel Seq Scan shares
 *	  them, and the page counts of every participant brought back to the
 *	  leader for EXPLAIN ANALYZE.
 *
 * The dynamic shared memory of one parallel-aware StreamScan node holds:
 *	- one slot of page counts per planned worker, which each worker adds its
 *	  own to when its scan shuts down;
 *	- core's parallel block scan (ParallelBlockTableScanDescData and the
 *	  serialized snapshot: table_parallelscan_initialize()), from which
 *	  every participant takes its blocks with
 *	  table_block_parallelscan_startblock_init() / _nextpage(), exactly as
 *	  heapam's parallel scan does: the same chunks, the same ramp-down at
 *	  the end, the same synchronized-scan start and reports;
 *	- in test builds, a bitmap of the blocks read, to count a block read
 *	  twice.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_STREAMSCAN_PARALLEL_H
#define MEMPROBE_STREAMSCAN_PARALLEL_H

#include "postgres.h"

#include "access/parallel.h"
#include "access/relscan.h"
#include "storage/block.h"
#include "utils/rel.h"
#include "utils/snapshot.h"

#include "scan/block_stream.h"

/* memprobe.enable_parallel_streamscan */
extern bool streamscan_parallel_enabled;

typedef struct StreamScanShared StreamScanShared;
typedef struct StreamScanWorkerTotals StreamScanWorkerTotals;

/* One participant's view of the shared scan (backend-private). */
typedef struct StreamScanParallel
{
	StreamScanShared *shared;
	ParallelBlockTableScanDesc pbscan;	/* in 'shared' */
	ParallelBlockTableScanWorkerData alloc; /* this process's chunk */
	bool		started;		/* startblock_init done for this pass? */
	Snapshot	snapshot;		/* a worker's: restored from the scan */

	/* a worker's counts have been added to its slot */
	bool		published;

	/* the leader's: its workers' counts, brought back when the DSM goes */
	StreamScanWorkerTotals *totals;
} StreamScanParallel;

extern Size streamscan_parallel_estimate(Relation rel, Snapshot snapshot,
										 int nworkers);
extern StreamScanParallel *streamscan_parallel_initialize(StreamScanParallel *par,
														  void *coordinate,
														  Size size,
														  ParallelContext *pcxt,
														  Relation rel,
														  Snapshot snapshot);
extern void streamscan_parallel_reinitialize(StreamScanParallel *par,
											 Relation rel);
extern StreamScanParallel *streamscan_parallel_attach(void *coordinate,
													  Relation rel);
extern BlockNumber streamscan_parallel_nblocks(StreamScanParallel *par);
extern BlockNumber streamscan_parallel_next_block(StreamScanParallel *par,
												  Relation rel);
extern void streamscan_parallel_restart(StreamScanParallel *par);
#ifdef MEMPROBE_INJECTION_POINTS
/* test builds: count a block some participant has read already */
extern void streamscan_parallel_note_read(StreamScanParallel *par,
										  BlockNumber blkno,
										  BlockStreamStats *stats);
#else
static inline void
streamscan_parallel_note_read(StreamScanParallel *par, BlockNumber blkno,
							  BlockStreamStats *stats)
{
}
#endif
extern void streamscan_parallel_publish(StreamScanParallel *par,
										const BlockStreamStats *mine);
extern int	streamscan_parallel_worker_stats(StreamScanParallel *par,
											 BlockStreamStats *sum,
											 const BlockStreamStats **each);
extern void streamscan_parallel_end(StreamScanParallel *par);

#endif							/* MEMPROBE_STREAMSCAN_PARALLEL_H */
