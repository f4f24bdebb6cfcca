/*-------------------------------------------------------------------------
 *
 * bench_floor.c
 *	  The floor a sequential scan in shared buffers is measured against
 *	  (bench/ only: never built into memprobe, never installed by a package).
 *
 * memprobe_floor(rel, passes) reads every page of rel's main fork the way a
 * scan at memory speed would and nothing more: pin it (ReadBufferExtended,
 * no strategy: the benchmarks keep their tables in shared buffers), share-
 * lock it, load one 8-byte word from each 64-byte line of the page, unlock
 * and unpin.  It times each of passes passes over the relation and returns
 * the best and the median, with the bytes read per second at the best.  A
 * scan must at least pin, lock and bring every line of every page into the
 * CPU; whatever it does beyond that (line pointers, visibility, tuple
 * headers, deformation, quals, the executor) is what its ratio to this
 * floor measures.
 *
 * It also times the same loads over a private buffer of the relation's
 * size (allocated and written once first, then passes passes): the
 * machine's memory-read floor without the buffer manager, for comparison
 * with the first.
 *
 * Only the buffer manager's public API touches shared buffers: a pinned,
 * share-locked page is read, never written.
 *
 * Copyright (c) 2026, The memprobe Developers; the PostgreSQL License
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "storage/bufmgr.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/rel.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(memprobe_floor);

/* where the loads' sum goes, so that the compiler keeps every load */
static volatile uint64 floor_sink;

#define LINE 64

/* one 8-byte load per 64-byte line of len bytes at p */
static inline uint64
touch_lines(const char *p, Size len)
{
	uint64		sum = 0;

	for (Size off = 0; off < len; off += 4 * LINE)
		sum += *(const uint64 *) (p + off) +
			*(const uint64 *) (p + off + LINE) +
			*(const uint64 *) (p + off + 2 * LINE) +
			*(const uint64 *) (p + off + 3 * LINE);
	return sum;
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return x < y ? -1 : x > y ? 1 : 0;
}

/* the median of sorted[n], sorted ascending */
static double
median_of_sorted(const double *sorted, int n)
{
	return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

Datum
memprobe_floor(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	int			passes = PG_GETARG_INT32(1);
	Relation	rel;
	BlockNumber nblocks;
	Size		bytes;
	double	   *buffer_ms,
			   *memory_ms;
	char	   *private;
	uint64		sum = 0;
	TupleDesc	tupdesc;
	Datum		values[7];
	bool		nulls[7] = {0};
	double		best_buffers,
				best_memory;

	if (passes < 1 || passes > 1000)
		ereport(ERROR,
				errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				errmsg("passes must be between 1 and 1000"));
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	rel = relation_open(relid, AccessShareLock);
	if (!RELKIND_HAS_STORAGE(rel->rd_rel->relkind))
		ereport(ERROR,
				errcode(ERRCODE_WRONG_OBJECT_TYPE),
				errmsg("\"%s\" has no storage", RelationGetRelationName(rel)));
	nblocks = RelationGetNumberOfBlocks(rel);
	bytes = (Size) nblocks * BLCKSZ;
	buffer_ms = palloc(passes * sizeof(double));
	memory_ms = palloc(passes * sizeof(double));

	for (int pass = 0; pass < passes; pass++)
	{
		instr_time	start,
					end;

		INSTR_TIME_SET_CURRENT(start);
		for (BlockNumber blk = 0; blk < nblocks; blk++)
		{
			Buffer		buf = ReadBufferExtended(rel, MAIN_FORKNUM, blk, RBM_NORMAL, NULL);

			LockBuffer(buf, BUFFER_LOCK_SHARE);
			sum += touch_lines((const char *) BufferGetPage(buf), BLCKSZ);
			UnlockReleaseBuffer(buf);
		}
		INSTR_TIME_SET_CURRENT(end);
		INSTR_TIME_SUBTRACT(end, start);
		buffer_ms[pass] = INSTR_TIME_GET_MILLISEC(end);
		CHECK_FOR_INTERRUPTS();
	}
	relation_close(rel, AccessShareLock);

	/* the same loads over private memory of the same size, written once first */
	private = MemoryContextAllocHuge(CurrentMemoryContext, Max(bytes, LINE * 4));
	memset(private, 1, Max(bytes, LINE * 4));
	for (int pass = 0; pass < passes; pass++)
	{
		instr_time	start,
					end;

		INSTR_TIME_SET_CURRENT(start);
		sum += touch_lines(private, bytes);
		INSTR_TIME_SET_CURRENT(end);
		INSTR_TIME_SUBTRACT(end, start);
		memory_ms[pass] = INSTR_TIME_GET_MILLISEC(end);
		CHECK_FOR_INTERRUPTS();
	}
	pfree(private);
	floor_sink = sum;

	/* the passes' times, fastest first: the best, then the median */
	qsort(buffer_ms, passes, sizeof(double), cmp_double);
	qsort(memory_ms, passes, sizeof(double), cmp_double);
	best_buffers = buffer_ms[0];
	best_memory = memory_ms[0];
	values[2] = Float8GetDatum(median_of_sorted(buffer_ms, passes));
	values[5] = Float8GetDatum(median_of_sorted(memory_ms, passes));
	values[0] = Int64GetDatum(nblocks);
	values[1] = Float8GetDatum(best_buffers);
	values[3] = Float8GetDatum(best_buffers > 0 ? bytes / (best_buffers / 1000.0) / 1e9 : 0);
	values[4] = Float8GetDatum(best_memory);
	values[6] = Float8GetDatum(best_memory > 0 ? bytes / (best_memory / 1000.0) / 1e9 : 0);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
