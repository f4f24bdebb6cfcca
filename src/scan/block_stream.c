/*-------------------------------------------------------------------------
 *
 * block_stream.c
 *	  StreamScan's block stream: see block_stream.h.
 *
 * memprobe's own look-ahead (PostgreSQL 15/16) keeps a queue of the blocks
 * the scan will read next and gives the kernel read-ahead advice for them
 * in runs of ADVICE_RUN blocks (segment_map.c), while the buffer manager
 * reads each block when its turn comes (ReadBufferExtended with the scan's
 * strategy, as heapam).  On PostgreSQL 17+ core's read_stream replaces all
 * of this (compat.h).
 *
 * Only descending block sequences (backward scans) are advised.  Ascending
 * ones are left to the kernel's own sequential read-ahead, as core's
 * read_stream (17+) leaves them: pages brought in by posix_fadvise carry no
 * read-ahead mark, so advising a forward scan stops the kernel's
 * asynchronous read-ahead, and the scan reaches the disk in many small
 * requests instead of a few large ones.  Backward, the kernel reads nothing
 * ahead (one 8kB request per page), and advice is what makes such a scan
 * fast (bench/RESULTS.md, "forward scans left to the kernel's read-ahead").
 *
 * Runs, not PrefetchBuffer() per block: per-block advice costs a syscall
 * and a buffer lookup per block, which made even a scan from the page cache
 * slower than core's.  The advice pins no buffer and occupies none: the
 * strategy ring and the pin limit, which bound how far core's read_stream
 * may pin ahead, do not apply to it; memprobe.streamscan_distance bounds
 * the page cache it asks for.
 *
 * Copyright (c) 2026, The memprobe Developers
 * Portions Copyright (c) 1996-2025, PostgreSQL Global Development Group
 * Portions Copyright (c) 1994, Regents of the University of California
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/instrument.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/spccache.h"

#include "scan/block_stream.h"
#include "shared/compat.h"
#include "scan/segment_map.h"

BlockStream *
block_stream_begin(Relation rel, BufferAccessStrategy strategy,
				   int max_distance, BlockStreamNextBlock next_block,
				   void *arg, BlockStreamStats *stats)
{
	BlockStream *bs = palloc0(sizeof(BlockStream));

	bs->rel = rel;
	bs->strategy = strategy;
	bs->next_block = next_block;
	bs->arg = arg;
	bs->stats = stats;

	if (max_distance <= 0)
		bs->kind = BLOCK_STREAM_NONE;
#if MEMPROBE_HAVE_READ_STREAM
	else
	{
		bs->kind = BLOCK_STREAM_READ_STREAM;
		bs->read_stream = read_stream_begin_relation(COMPAT_READ_STREAM_SEQSCAN_FLAGS,
													 strategy, rel,
													 MAIN_FORKNUM,
													 next_block, arg, 0);
	}
#else
	else if (get_tablespace_io_concurrency(rel->rd_rel->reltablespace) == 0)
	{
		/* effective_io_concurrency = 0: "issue no advice", as in core */
		bs->kind = BLOCK_STREAM_NONE;
	}
	else
	{
		bs->kind = BLOCK_STREAM_PREFETCH;
		bs->max_distance = Max(max_distance, ADVICE_RUN);
		bs->last_block = InvalidBlockNumber;
		bs->stats->distance_limit = bs->max_distance;
		bs->queue = palloc(sizeof(BlockNumber) * bs->max_distance);
	}
#endif
	return bs;
}

/*
 * flush_run
 *		Advise the gathered run, if any, and adapt the distance to whether
 *		it was already in the page cache.
 *
 * The distance follows read_stream.c's rules, in blocks:
 *	- it starts at 0: a scan of pages in shared buffers never looks ahead and
 *	  pays nothing for the stream, nor does an ascending one;
 *	- a block of a descending sequence the buffer manager had to read from
 *	  the kernel (seen in pgBufferUsage) raises it to at least one run, and
 *	  each run that was not in the page cache (so advice started I/O)
 *	  doubles it;
 *	- each run found already cached takes one run off it, and the reads of
 *	  the next 1, 3, 7 ... up to 63 runs' worth of blocks do not raise it
 *	  (a scan of a table in the page cache asks about one run in 64, 32MB:
 *	  each question is an open, a one-byte read and a close);
 *	- it never exceeds memprobe.streamscan_distance.
 * A run whose far end is in shared buffers, while the scan is finding pages
 * there, gets no advice: the buffer manager will not read it.  A run is
 * ADVICE_RUN consecutive blocks in scan order; a wrap-around, a change of
 * direction or the end of the scan ends one early.
 */
static void
flush_run(BlockStream *bs)
{
	BlockNumber low;
	int			advised;

	if (bs->run_len == 0)
		return;
	low = Min(bs->run_first, bs->run_last);
	if (bs->recent_hits > 0 &&
		BufferIsValid(PrefetchBuffer(bs->rel, MAIN_FORKNUM, bs->run_last).recent_buffer))
	{
		/*
		 * The scan has been finding pages in shared buffers, and the run's
		 * far end is there too: the buffer manager will not read it, so the
		 * page cache need not (with double buffering the kernel may well
		 * have dropped it).  One buffer-mapping lookup per run, and only
		 * while there are hits.
		 */
		advised = 0;
	}
	else
	{
		if (bs->segments == NULL)
			bs->segments = segment_map_open(bs->rel);
		advised = segment_map_advise(bs->segments, low, bs->run_len);
	}
	bs->run_len = 0;
	bs->recent_hits = 0;

	if (advised > 0)
	{
		bs->stats->prefetches += advised;
		bs->distance = Min(Max(bs->distance * 2, ADVICE_RUN), bs->max_distance);
		bs->backoff = 0;
	}
	else
	{
		/*
		 * Already cached (the page cache holds the table, or the kernel's
		 * own read-ahead got there first): look less far, and let the next
		 * 1, 3, 7, up to 63 runs' worth of reads pass without raising the
		 * distance, until a run is found missing.
		 */
		bs->distance = Max(bs->distance - ADVICE_RUN, 0);
		bs->backoff = Min(bs->backoff * 2 + 1, 63);
		bs->quiet_blocks = bs->backoff * ADVICE_RUN;
	}
}

/* Add a block to the run being gathered (scan order). */
static void
gather(BlockStream *bs, BlockNumber blkno)
{
	if (bs->run_len > 0)
	{
		bool		next = blkno == bs->run_last + 1 &&
			(bs->run_len == 1 || bs->run_last > bs->run_first);
		bool		prev = blkno + 1 == bs->run_last &&
			(bs->run_len == 1 || bs->run_last < bs->run_first);

		if (!next && !prev)
			flush_run(bs);
	}
	if (bs->run_len == 0)
		bs->run_first = blkno;
	bs->run_last = blkno;
	if (++bs->run_len == ADVICE_RUN)
		flush_run(bs);
}

/*
 * block_stream_look_ahead
 *		Queue blocks until 'distance' are queued ahead of the current one,
 *		advising them run by run.
 */
void
block_stream_look_ahead(BlockStream *bs)
{
	while (bs->nqueued < bs->distance && !bs->exhausted)
	{
		BlockNumber blkno = bs->next_block(NULL, bs->arg, NULL);

		if (blkno == InvalidBlockNumber)
		{
			bs->exhausted = true;
			flush_run(bs);
			break;
		}
		{
			int			tail = bs->head + bs->nqueued;

			if (tail >= bs->max_distance)
				tail -= bs->max_distance;
			bs->queue[tail] = blkno;
		}
		bs->nqueued++;
		gather(bs, blkno);
		bs->stats->distance_peak = Max(bs->stats->distance_peak, bs->nqueued);
	}
}

/*
 * block_stream_next_slow
 *		block_stream_next() (block_stream.h) for a block memprobe's
 *		look-ahead has queued.
 */
Buffer
block_stream_next_slow(BlockStream *bs)
{
	BlockNumber blkno;
	Buffer		buf;
	int64		hits_before = block_stream_buffer_hits();
	int64		reads_before = block_stream_buffer_reads();

	Assert(bs->kind == BLOCK_STREAM_PREFETCH && bs->nqueued > 0);
	blkno = bs->queue[bs->head];
	if (++bs->head == bs->max_distance)
		bs->head = 0;
	bs->nqueued--;

	buf = ReadBufferExtended(bs->rel, MAIN_FORKNUM, blkno, RBM_NORMAL,
							 bs->strategy);
	block_stream_account(bs, blkno, hits_before, reads_before);
	return buf;
}

/*
 * block_stream_reset
 *		Forget the look-ahead: the next call asks the callback afresh (after
 *		a change of direction, or to start a new pass).  Advice already given
 *		cannot be taken back; it costs at most some page cache.
 */
void
block_stream_reset(BlockStream *bs)
{
#if MEMPROBE_HAVE_READ_STREAM
	if (bs->read_stream)
		read_stream_reset(bs->read_stream);
#endif
	bs->head = 0;
	bs->nqueued = 0;
	bs->exhausted = false;
	bs->distance = 0;
	bs->run_len = 0;
	bs->quiet_blocks = 0;
	bs->backoff = 0;
	bs->recent_hits = 0;
	bs->last_block = InvalidBlockNumber;
}

void
block_stream_end(BlockStream *bs)
{
#if MEMPROBE_HAVE_READ_STREAM
	if (bs->read_stream)
		read_stream_end(bs->read_stream);
	bs->read_stream = NULL;
#endif
	if (bs->segments)
		segment_map_close(bs->segments);
	if (bs->queue)
		pfree(bs->queue);
	pfree(bs);
}

BlockStreamKind
block_stream_kind(BlockStream *bs)
{
	return bs->kind;
}

/*
 * block_stream_stats_add
 *		*into plus *more (another process's, for a parallel scan): counts add
 *		up, the look-ahead bounds are the furthest either reached.
 */
void
block_stream_stats_add(BlockStreamStats *into, const BlockStreamStats *more)
{
	into->pages += more->pages;
	into->hits += more->hits;
	into->reads += more->reads;
	into->prefetches += more->prefetches;
	into->pages_again += more->pages_again;
	into->distance_limit = Max(into->distance_limit, more->distance_limit);
	into->distance_peak = Max(into->distance_peak, more->distance_peak);
}
