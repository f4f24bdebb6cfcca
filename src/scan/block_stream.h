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
 *	  blocks ahead of the one being read when the scan goes backward (the
 *	  kernel reads ahead of forward reads by itself), with a distance that
 *	  ramps up while the scan reads from the kernel and decays when the runs
 *	  are cached already, bounded by memprobe.streamscan_distance.
 * Blocks are always read with ReadBufferExtended() or the read stream:
 * nothing here touches a buffer but through the buffer manager's API.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_BLOCK_STREAM_H
#define MEMPROBE_BLOCK_STREAM_H

#include "postgres.h"

#include "executor/instrument.h"
#include "storage/block.h"
#include "storage/buf.h"
#include "storage/bufmgr.h"
#include "utils/rel.h"

#include "shared/compat.h"

struct ReadStream;

/*
 * Next block to read, or InvalidBlockNumber when the scan has no more.  It
 * has the signature of core's ReadStreamBlockNumberCB (17+), so that core's
 * stream calls it directly, as it calls heapam's; 'stream' and
 * 'per_buffer_data' are not used (NULL from memprobe's own stream).
 */
typedef BlockNumber (*BlockStreamNextBlock) (struct ReadStream *stream, void *arg,
											 void *per_buffer_data);

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
	int64		pages_again;	/* test builds, parallel scans: blocks some
								 * participant had read already */
} BlockStreamStats;

/* How the stream looks ahead (EXPLAIN's "Look-ahead"). */
typedef enum BlockStreamKind
{
	BLOCK_STREAM_NONE,			/* memprobe.streamscan_distance = 0 */
	BLOCK_STREAM_PREFETCH,		/* memprobe's own, PostgreSQL < 17 */
	BLOCK_STREAM_READ_STREAM	/* core's read_stream, 17+ */
} BlockStreamKind;

/* memprobe's look-ahead advises runs of this many blocks: 512kB */
#define ADVICE_RUN	64

/*
 * The stream's state.  Private to block_stream.c, but for block_stream_next()
 * below, which is inline so that the scan's page loop calls
 * ReadBufferExtended() itself, with no frame of the stream's between them:
 * with one row per page, an out-of-line block_stream_next() and its
 * indirect call of the callback made the scan slower than core's, and
 * inline it is at parity (bench/RESULTS.md, "block_stream_next() inline").
 * On 17 read_stream_next_buffer() is called from here too, as heapam calls
 * it, which narrowed the gap there as well.
 */
struct BlockStream
{
	Relation	rel;
	BufferAccessStrategy strategy;
	BlockStreamKind kind;
	BlockStreamNextBlock next_block;
	void	   *arg;
	BlockStreamStats *stats;	/* the caller's */

	/* memprobe's look-ahead: queued blocks, advised in runs */
	int			max_distance;
	int			distance;
	bool		exhausted;		/* next_block said InvalidBlockNumber */
	int			head;
	int			nqueued;
	BlockNumber *queue;			/* max_distance entries */
	BlockNumber run_first;		/* the run being gathered, in scan order */
	BlockNumber run_last;
	int			run_len;
	int			quiet_blocks;	/* reads that do not raise the distance */
	int			backoff;		/* runs' worth of quiet after a cached run */
	int			recent_hits;	/* shared-buffer hits since the last run */
	BlockNumber last_block;		/* the block handed out last, or Invalid */
	struct SegmentMap *segments;	/* opened at the first advice */

#if MEMPROBE_HAVE_READ_STREAM
	ReadStream *read_stream;
#endif
};

extern BlockStream *block_stream_begin(Relation rel,
									   BufferAccessStrategy strategy,
									   int max_distance,
									   BlockStreamNextBlock next_block,
									   void *arg,
									   BlockStreamStats *stats);
extern Buffer block_stream_next_slow(BlockStream *bs);
extern void block_stream_look_ahead(BlockStream *bs);
extern void block_stream_reset(BlockStream *bs);
extern void block_stream_end(BlockStream *bs);
extern BlockStreamKind block_stream_kind(BlockStream *bs);
extern void block_stream_stats_add(BlockStreamStats *into, const BlockStreamStats *more);

static inline int64
block_stream_buffer_hits(void)
{
	return pgBufferUsage.shared_blks_hit + pgBufferUsage.local_blks_hit;
}

static inline int64
block_stream_buffer_reads(void)
{
	return pgBufferUsage.shared_blks_read + pgBufferUsage.local_blks_read;
}

/*
 * block_stream_account
 *		After reading a block: the totals, and memprobe's look-ahead rules
 *		(block_stream.c): a backward scan that had to read from the kernel
 *		looks at least a run ahead; forward, the kernel reads ahead by itself.
 *		'blkno' is only used by memprobe's own stream (core's read stream
 *		passes InvalidBlockNumber).
 */
static inline void
block_stream_account(BlockStream *bs, BlockNumber blkno, int64 hits_before,
					 int64 reads_before)
{
	int64		hits = block_stream_buffer_hits() - hits_before;
	int64		reads = block_stream_buffer_reads() - reads_before;

	if (bs->kind == BLOCK_STREAM_PREFETCH)
	{
		bool		descending = blkno + 1 == bs->last_block;

		bs->last_block = blkno;
		if (hits != 0)
			bs->recent_hits++;
		if (bs->quiet_blocks > 0)
			bs->quiet_blocks--;
		else if (descending && reads != 0)
			bs->distance = Max(bs->distance, ADVICE_RUN);
		if (bs->nqueued < bs->distance)
			block_stream_look_ahead(bs);
	}
	bs->stats->pages++;
	bs->stats->hits += hits;
	bs->stats->reads += reads;
}

/*
 * block_stream_next
 *		The next block, pinned (the caller releases it), or InvalidBuffer at
 *		the end of the stream.  'next_block' must be the callback the stream
 *		was begun with: passed again here, it is a direct call the compiler
 *		can inline into the caller's loop.
 */
static inline Buffer
block_stream_next(BlockStream *bs, BlockStreamNextBlock next_block)
{
	BlockNumber blkno;
	Buffer		buf;
	int64		hits_before;
	int64		reads_before;

	Assert(next_block == bs->next_block);
#if MEMPROBE_HAVE_READ_STREAM
	if (bs->kind == BLOCK_STREAM_READ_STREAM)
	{
		/* core's stream calls next_block itself, as it looks ahead */
		hits_before = block_stream_buffer_hits();
		reads_before = block_stream_buffer_reads();
		buf = read_stream_next_buffer(bs->read_stream, NULL);
		if (BufferIsValid(buf))
			block_stream_account(bs, InvalidBlockNumber, hits_before, reads_before);
		return buf;
	}
#endif
	if (bs->nqueued > 0)
		return block_stream_next_slow(bs);
	if (bs->exhausted)
		return InvalidBuffer;

	/* nothing queued: the next block, read now */
	blkno = next_block(NULL, bs->arg, NULL);
	if (blkno == InvalidBlockNumber)
	{
		bs->exhausted = true;
		return InvalidBuffer;
	}
	hits_before = block_stream_buffer_hits();
	reads_before = block_stream_buffer_reads();
	buf = ReadBufferExtended(bs->rel, MAIN_FORKNUM, blkno, RBM_NORMAL,
							 bs->strategy);
	block_stream_account(bs, blkno, hits_before, reads_before);
	return buf;
}

#endif							/* MEMPROBE_BLOCK_STREAM_H */
