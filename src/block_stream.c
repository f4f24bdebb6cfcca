/*-------------------------------------------------------------------------
 *
 * block_stream.c
 *	  StreamScan's block stream: see block_stream.h.
 *
 * memprobe's own look-ahead (PostgreSQL 15/16) follows read_stream.c's
 * distance rules, adapted to advice instead of pins:
 *	- the distance is how many blocks beyond the one being read have been
 *	  handed to PrefetchBuffer();
 *	- it starts at 0: a scan of cached pages never looks ahead, and so pays
 *	  no second buffer-mapping lookup per block;
 *	- a block that had to be read from the kernel (seen in pgBufferUsage)
 *	  doubles it (at least to 1), and so does each prefetch that started
 *	  I/O, so a cold scan reaches the limit within a few blocks;
 *	- a prefetch that finds its block in shared buffers takes 1 off it;
 *	- it never exceeds memprobe.streamscan_distance, the strategy ring
 *	  (blocks prefetched further ahead than the ring holds would only be
 *	  read ahead of buffers the scan has not recycled yet), nor the
 *	  backend's fair share of buffers (as PostgreSQL 17 limits a stream's
 *	  pins).
 * PrefetchBuffer() pins nothing and changes no buffer: it looks the block
 * up and, if absent, asks the kernel to start reading it.  Each block is
 * then read by ReadBufferExtended() with the scan's strategy, as heapam does.
 *
 * On PostgreSQL 17+, core's read_stream replaces all of this (see compat.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/instrument.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/spccache.h"

#include "block_stream.h"
#include "compat.h"

struct BlockStream
{
	Relation	rel;
	BufferAccessStrategy strategy;
	BlockStreamKind kind;
	BlockStreamNextBlock next_block;
	void	   *arg;
	BlockStreamStats *stats;		/* the caller's */

	/* memprobe's look-ahead: queued blocks, already advised */
	int			max_distance;
	int			distance;
	bool		exhausted;		/* next_block said InvalidBlockNumber */
	int			head;
	int			nqueued;
	BlockNumber *queue;			/* max_distance entries */

#if MEMPROBE_HAVE_READ_STREAM
	ReadStream *read_stream;
#endif
};

static inline int64
buffer_hits(void)
{
	return pgBufferUsage.shared_blks_hit + pgBufferUsage.local_blks_hit;
}

static inline int64
buffer_reads(void)
{
	return pgBufferUsage.shared_blks_read + pgBufferUsage.local_blks_read;
}

#if MEMPROBE_HAVE_READ_STREAM
static BlockNumber
read_stream_next_block_cb(ReadStream *stream, void *private_data,
						  void *per_buffer_data)
{
	BlockStream *bs = private_data;

	return bs->next_block(bs->arg);
}
#endif

#if !MEMPROBE_HAVE_READ_STREAM
/*
 * look_ahead_limit
 *		The furthest memprobe's own stream may look ahead.
 */
static int
look_ahead_limit(Relation rel, BufferAccessStrategy strategy, int max_distance)
{
	int			limit = max_distance;

	/* effective_io_concurrency = 0 means "issue no advice", as in core */
	if (get_tablespace_io_concurrency(rel->rd_rel->reltablespace) == 0)
		return 0;
	if (strategy != NULL)
		limit = Min(limit, compat_strategy_ring_buffers(strategy));
	limit = Min(limit, compat_pin_limit(RelationUsesLocalBuffers(rel)));
	return Max(limit, 0);
}
#endif

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
		bs->read_stream = read_stream_begin_relation(READ_STREAM_SEQUENTIAL,
													 strategy, rel,
													 MAIN_FORKNUM,
													 read_stream_next_block_cb,
													 bs, 0);
	}
#else
	else
	{
		bs->kind = BLOCK_STREAM_PREFETCH;
		bs->max_distance = look_ahead_limit(rel, strategy, max_distance);
		bs->stats->distance_limit = bs->max_distance;
		if (bs->max_distance > 0)
			bs->queue = palloc(sizeof(BlockNumber) * bs->max_distance);
	}
#endif
	return bs;
}

/*
 * advise_ahead
 *		Queue and advise blocks until 'distance' blocks beyond the current
 *		one are in flight.
 */
static void
advise_ahead(BlockStream *bs)
{
	while (bs->nqueued < bs->distance && !bs->exhausted)
	{
		BlockNumber blkno = bs->next_block(bs->arg);
		PrefetchBufferResult r;

		if (blkno == InvalidBlockNumber)
		{
			bs->exhausted = true;
			break;
		}
		bs->queue[(bs->head + bs->nqueued) % bs->max_distance] = blkno;
		bs->nqueued++;

		r = PrefetchBuffer(bs->rel, MAIN_FORKNUM, blkno);
		if (r.initiated_io)
		{
			bs->stats->prefetches++;
			bs->distance = Min(bs->distance * 2, bs->max_distance);
		}
		else if (BufferIsValid(r.recent_buffer) && bs->distance > 0)
			bs->distance--;
	}
	bs->stats->distance_peak = Max(bs->stats->distance_peak, bs->nqueued);
}

/*
 * block_stream_next
 *		The next block, pinned (the caller releases it), or InvalidBuffer
 *		at the end of the stream.
 */
Buffer
block_stream_next(BlockStream *bs)
{
	BlockNumber blkno;
	Buffer		buf;
	int64		hits_before = buffer_hits();
	int64		reads_before = buffer_reads();

#if MEMPROBE_HAVE_READ_STREAM
	if (bs->kind == BLOCK_STREAM_READ_STREAM)
	{
		buf = read_stream_next_buffer(bs->read_stream, NULL);
		if (!BufferIsValid(buf))
			return InvalidBuffer;
		goto done;
	}
#endif

	if (bs->nqueued > 0)
	{
		blkno = bs->queue[bs->head];
		bs->head = (bs->head + 1) % bs->max_distance;
		bs->nqueued--;
	}
	else if (bs->exhausted)
		return InvalidBuffer;
	else
	{
		blkno = bs->next_block(bs->arg);
		if (blkno == InvalidBlockNumber)
		{
			bs->exhausted = true;
			return InvalidBuffer;
		}
	}

	buf = ReadBufferExtended(bs->rel, MAIN_FORKNUM, blkno, RBM_NORMAL,
							 bs->strategy);

	if (bs->max_distance > 0)
	{
		/* a synchronous read: look further ahead from now on */
		if (buffer_reads() != reads_before)
			bs->distance = Min(Max(bs->distance * 2, 1), bs->max_distance);
		advise_ahead(bs);
	}

#if MEMPROBE_HAVE_READ_STREAM
done:
#endif
	bs->stats->pages++;
	bs->stats->hits += buffer_hits() - hits_before;
	bs->stats->reads += buffer_reads() - reads_before;
	return buf;
}

/*
 * block_stream_reset
 *		Forget the look-ahead: the next call asks the callback afresh (after
 *		a change of direction, or to start a new pass).  Advice already given
 *		cannot be taken back; it costs at most some kernel read-ahead.
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
}

void
block_stream_end(BlockStream *bs)
{
#if MEMPROBE_HAVE_READ_STREAM
	if (bs->read_stream)
		read_stream_end(bs->read_stream);
	bs->read_stream = NULL;
#endif
	if (bs->queue)
		pfree(bs->queue);
	pfree(bs);
}

BlockStreamKind
block_stream_kind(BlockStream *bs)
{
	return bs->kind;
}
