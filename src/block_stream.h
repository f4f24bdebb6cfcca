/*-------------------------------------------------------------------------
 *
 * block_stream.h
 *	  A look-ahead stream of pinned heap blocks for StreamScan.
 *
 * The scan says which block comes next through a callback; the stream
 * hands back each block pinned, in that order, having looked ahead:
 *	- PostgreSQL 17 and later: core's read_stream does it (I/O combining,
 *	  its own distance control, and on 18 asynchronous I/O);
 *	- PostgreSQL 15/16: memprobe's own look-ahead: kernel read-ahead advice
 *	  (posix_fadvise WILLNEED, run by run, through segment_map.c) for the
 *	  blocks ahead of the one being read, with a distance that ramps up
 *	  while the scan reads from the kernel and decays when the runs are
 *	  cached already, bounded by memprobe.streamscan_distance.
 * Blocks are always read with ReadBufferExtended() or the read stream:
 * nothing here touches a buffer but through the buffer manager's API.
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_BLOCK_STREAM_H
#define MEMPROBE_BLOCK_STREAM_H

#include "postgres.h"

#include "storage/block.h"
#include "storage/buf.h"
#include "storage/bufmgr.h"
#include "utils/rel.h"

/* Next block to read, or InvalidBlockNumber when the scan has no more. */
typedef BlockNumber (*BlockStreamNextBlock) (void *arg);

typedef struct BlockStream BlockStream;

/* What EXPLAIN ANALYZE shows: the caller's totals, which the stream adds to. */
typedef struct BlockStreamStats
{
	int64		pages;			/* blocks handed to the scan */
	int64		hits;			/* found in shared (or local) buffers */
	int64		reads;			/* read from the kernel */
	int64		prefetches;		/* advice calls (runs not in the page cache) */
	int			distance_limit; /* bound on the look-ahead (own stream) */
	int			distance_peak;	/* furthest it looked ahead */
} BlockStreamStats;

/* How the stream looks ahead (EXPLAIN's "Look-ahead"). */
typedef enum BlockStreamKind
{
	BLOCK_STREAM_NONE,			/* memprobe.streamscan_distance = 0 */
	BLOCK_STREAM_PREFETCH,		/* memprobe's own, PostgreSQL < 17 */
	BLOCK_STREAM_READ_STREAM	/* core's read_stream, 17+ */
} BlockStreamKind;

extern BlockStream *block_stream_begin(Relation rel,
									   BufferAccessStrategy strategy,
									   int max_distance,
									   BlockStreamNextBlock next_block,
									   void *arg,
									   BlockStreamStats *stats);
extern Buffer block_stream_next(BlockStream *bs);
extern void block_stream_reset(BlockStream *bs);
extern void block_stream_end(BlockStream *bs);
extern BlockStreamKind block_stream_kind(BlockStream *bs);

#endif							/* MEMPROBE_BLOCK_STREAM_H */
