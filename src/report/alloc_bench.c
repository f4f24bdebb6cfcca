/*-------------------------------------------------------------------------
 *
 * alloc_bench.c
 *	  memprobe_alloc_bench(): a palloc/pfree micro-benchmark run inside a
 *	  fresh memory context of a chosen type, so that allocator comparisons
 *	  like those behind memprobe (AllocSet's power-of-2 rounding against
 *	  Generation, PostgreSQL's allocators against plain malloc) can be
 *	  reproduced from SQL on the user's own server.
 *
 * A run allocates nchunks chunks of chunk_size bytes, then releases them in
 * the order the pattern names, 'loops' times, each time in a new context:
 *
 *	fifo	free oldest first (a queue: Generation's best case)
 *	lifo	free newest first (a stack)
 *	random	free in a fixed pseudo-random order (the same on every run)
 *	reset	release everything with one MemoryContextReset
 *	hold	do not release: the context lives on, under CurTransactionContext,
 *			until the transaction ends, so memprobe_contexts can show it
 *
 * Context types are aset, generation, slab, bump (PostgreSQL 17+) and malloc:
 * plain malloc/free per chunk, the baseline PostgreSQL's allocators are
 * measured against.  malloc has no bulk release, so its "reset" frees every
 * chunk in allocation order.
 *
 * Every chunk pointer lives in a "holder" context, and a reset callback on
 * the holder frees whatever malloc'd chunks are still outstanding
 * (release_run), so an error or a cancel anywhere in a run releases
 * everything.  memprobe.alloc_bench_max_memory bounds what this backend's
 * runs hold at any moment (run_bound).
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <malloc.h>
#include <unistd.h>

#include "common/pg_prng.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "report/alloc_bench.h"
#include "shared/compat.h"
#include "shared/context_types.h"

PG_FUNCTION_INFO_V1(memprobe_alloc_bench);

/*
 * memprobe.alloc_bench_max_memory, in kB: the most this backend's runs may
 * hold at any moment.
 */
static int	alloc_bench_max_memory_kb = 1024 * 1024;

/*
 * Bytes reserved by the runs of this backend whose holder context still
 * exists: a run's bound while it runs, what a "hold" run holds after it.
 * Before a run allocates anything it computes an upper bound of what it
 * will hold (its context's blocks from the allocator's rules, or glibc's
 * chunk sizes for malloc, plus its arrays) and reserves it; a run whose
 * bound would take the reserved total over the limit is rejected.  The
 * holder's callback gives the reservation back, so a "hold" run, whose
 * holder lives until the transaction ends, keeps what it really holds
 * reserved until then.
 */
static uint64 alloc_bench_reserved_bytes = 0;

/*
 * The most chunks one run may allocate: the array of their pointers must be
 * one ordinary palloc (the release-order array is half its size).
 */
#define MAX_BENCH_CHUNKS	((int) (MaxAllocSize / sizeof(void *)))

/* How often the timed loops look for a cancel or timeout. */
#define INTERRUPT_CHECK_MASK	1023

typedef enum BenchPattern
{
	PATTERN_FIFO,
	PATTERN_LIFO,
	PATTERN_RANDOM,
	PATTERN_RESET,
	PATTERN_HOLD
} BenchPattern;

typedef struct NamedValue
{
	const char *name;
	int			value;
} NamedValue;

/* -1 stands for malloc, which is no memory context. */
#define BENCH_MALLOC	(-1)

static const NamedValue bench_types[] = {
	{"aset", MEMPROBE_CONTEXT_ASET},
	{"generation", MEMPROBE_CONTEXT_GENERATION},
	{"slab", MEMPROBE_CONTEXT_SLAB},
	{"bump", MEMPROBE_CONTEXT_BUMP},
	{"malloc", BENCH_MALLOC},
};

static const NamedValue bench_patterns[] = {
	{"fifo", PATTERN_FIFO},
	{"lifo", PATTERN_LIFO},
	{"random", PATTERN_RANDOM},
	{"reset", PATTERN_RESET},
	{"hold", PATTERN_HOLD},
};

/*
 * A run's chunk pointers, and what the holder's reset callback must give
 * back: the malloc'd chunks still outstanding, and the run's reservation.
 */
typedef struct BenchChunks
{
	void	  **chunks;			/* chunks[i] is NULL once released */
	int			nchunks;
	bool		malloced;		/* chunks come from malloc */
	uint64		reserved;		/* share of alloc_bench_reserved_bytes */
	MemoryContextCallback callback;
} BenchChunks;

/* What a run measured. */
typedef struct BenchResult
{
	instr_time	alloc_time;
	instr_time	free_time;
	int64		peak_bytes;
	int64		blocks;
} BenchResult;

/*
 * lookup_name
 *		The value 'name' stands for in 'table'; an error listing the valid
 *		names otherwise.  'what' names the argument in the message.
 */
static int
lookup_name(const NamedValue *table, int ntable, const char *name,
			const char *what)
{
	StringInfoData valid;

	for (int i = 0; i < ntable; i++)
	{
		if (strcmp(table[i].name, name) == 0)
			return table[i].value;
	}

	initStringInfo(&valid);
	for (int i = 0; i < ntable; i++)
	{
		if (table == bench_types && table[i].value == MEMPROBE_CONTEXT_BUMP &&
			!MEMPROBE_HAVE_BUMP)
			continue;
		appendStringInfo(&valid, "%s\"%s\"", valid.len > 0 ? ", " : "",
						 table[i].name);
	}
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unrecognized %s \"%s\"", what, name),
			 errhint("Valid values are: %s.", valid.data)));
	pg_unreachable();
}

/*
 * release_run
 *		Reset callback of the holder context: free the malloc'd chunks a run
 *		still owns, so that an error or cancel mid-run leaks nothing, and give
 *		back the run's reservation.  The holder's child contexts are gone by
 *		now (MemoryContextDelete deletes children before it calls callbacks).
 */
static void
release_run(void *arg)
{
	BenchChunks *bc = (BenchChunks *) arg;

	if (bc->malloced && bc->chunks != NULL)
	{
		for (int i = 0; i < bc->nchunks; i++)
		{
			if (bc->chunks[i] != NULL)
			{
				free(bc->chunks[i]);
				bc->chunks[i] = NULL;
			}
		}
	}
	Assert(alloc_bench_reserved_bytes >= bc->reserved);
	alloc_bench_reserved_bytes -= bc->reserved;
	bc->reserved = 0;
}

/*
 * malloc_chunk_bound
 *		Upper bound of the bytes glibc's malloc takes for one chunk of 'size'
 *		bytes: what peak_bytes counts for it (usable size plus the size
 *		field), with glibc's default settings.
 *
 * glibc's request2size(): the size plus one size_t of header, rounded up to
 * MALLOC_ALIGNMENT (16 on 64-bit platforms and i386), at least MINSIZE (4
 * size_ts).  A chunk carved from a larger free one keeps the remainder too
 * when that would be smaller than MINSIZE (_int_malloc), so it can be up to
 * MINSIZE - MALLOC_ALIGNMENT bytes larger.  From 128kB
 * (DEFAULT_MMAP_THRESHOLD_MIN; the threshold only ever grows from there) a
 * chunk may be mmap'd instead: one more size_t, rounded up to whole pages.
 */
static uint64
malloc_chunk_bound(Size size)
{
	Size		min_chunk = 4 * sizeof(size_t);
	Size		chunk = TYPEALIGN(16, size + sizeof(size_t));
	Size		bound;

	chunk = Max(chunk, min_chunk);
	bound = chunk + min_chunk - 16;
	if (chunk >= 128 * 1024)
	{
		long		page = sysconf(_SC_PAGESIZE);

		if (page <= 0)
			page = 4096;
		bound = Max(bound, TYPEALIGN((Size) page, chunk + sizeof(size_t)));
	}
	return bound;
}

/*
 * holder_allocation_bound
 *		Upper bound of what one palloc of 'size' bytes adds to the holder, an
 *		AllocSet with ALLOCSET_SMALL_SIZES (blocks of 1kB to 8kB).
 *
 * Above ALLOCSET_SEPARATE_THRESHOLD a chunk always gets a block of its own,
 * sized to fit.  Anything smaller fits an existing block or takes a new one
 * (or a block of its own) of at most 16kB: the 8kB maximum block size, or
 * the power of two that holds the chunk and both headers.
 */
static uint64
holder_allocation_bound(Size size)
{
	if (size > ALLOCSET_SEPARATE_THRESHOLD)
		return MAXALIGN(size + COMPAT_SENTINEL_BYTES) + COMPAT_ASET_BLOCKHDRSZ +
			COMPAT_ASET_CHUNKHDRSZ;
	return 2 * ALLOCSET_SEPARATE_THRESHOLD;
}

/*
 * run_bound
 *		Upper bound of what a run holds at any moment: in *chunk_bytes what
 *		its context (or malloc) holds once all chunks are allocated, the
 *		peak, as every pattern allocates all chunks before it frees any and
 *		a new round's context is made only after the last one is deleted;
 *		in *array_bytes the holder context: its keeper block, the BenchChunks,
 *		the array of chunk pointers and for lifo and random the release order.
 */
static void
run_bound(int kind, BenchPattern pattern, int chunk_size, int nchunks,
		  uint64 *chunk_bytes, uint64 *array_bytes)
{
	uint64		arrays;

	if (kind == BENCH_MALLOC)
		*chunk_bytes = malloc_chunk_bound((Size) chunk_size) * (uint64) nchunks;
	else
		*chunk_bytes = memprobe_context_bound((MemprobeContextKind) kind,
											  (Size) chunk_size,
											  (uint64) nchunks);

	/* the holder is made with ALLOCSET_SMALL_SIZES: a 1kB keeper block */
	arrays = ALLOCSET_SMALL_INITSIZE;
	arrays += holder_allocation_bound(sizeof(BenchChunks));
	arrays += holder_allocation_bound((Size) nchunks * sizeof(void *));
	if (pattern == PATTERN_LIFO || pattern == PATTERN_RANDOM)
		arrays += holder_allocation_bound((Size) nchunks * sizeof(int));
	*array_bytes = arrays;
}

/*
 * check_arguments
 *		Reject runs the allocator cannot do or memory cannot hold, with
 *		messages that say what to change.  Returns the run's bound, to be
 *		reserved.
 */
static uint64
check_arguments(int kind, const char *type_name, BenchPattern pattern,
				int chunk_size, int nchunks, int loops)
{
	Size		limit;
	uint64		chunk_bytes;
	uint64		array_bytes;
	uint64		bound;
	uint64		max_bytes = (uint64) alloc_bench_max_memory_kb * 1024;

	if (kind == MEMPROBE_CONTEXT_BUMP && !MEMPROBE_HAVE_BUMP)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("context type \"bump\" requires PostgreSQL 17 or later"),
				 errhint("Valid values on this server are: \"aset\", \"generation\", \"slab\", \"malloc\".")));

	if (kind == MEMPROBE_CONTEXT_BUMP &&
		pattern != PATTERN_RESET && pattern != PATTERN_HOLD)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bump contexts cannot free individual chunks"),
				 errhint("Use pattern \"reset\" or \"hold\" with context type \"bump\".")));

	/*
	 * Slab's blocks hold at least 32 chunks (see memprobe_context_create);
	 * chunks smaller than Slab's minimum are rounded up, not refused.
	 */
	limit = (kind == MEMPROBE_CONTEXT_SLAB) ? MEMPROBE_SLAB_MAX_CHUNK : MaxAllocSize;
	if (chunk_size <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("chunk_size must be greater than zero"),
				 errhint("Pass a chunk_size from 1 to %zu bytes for context type \"%s\".",
						 limit, type_name)));
	if ((Size) chunk_size > limit)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("chunk_size %d exceeds the limit of %zu bytes for this context type",
						chunk_size, limit),
				 errhint("Pass a chunk_size from 1 to %zu bytes for context type \"%s\".",
						 limit, type_name)));
	if (nchunks <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("nchunks must be greater than zero"),
				 errhint("Pass an nchunks from 1 to %d.", MAX_BENCH_CHUNKS)));
	if (nchunks > MAX_BENCH_CHUNKS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("nchunks %d exceeds the limit of %d chunks",
						nchunks, MAX_BENCH_CHUNKS),
				 errdetail("The run's array of chunk pointers must fit in one allocation of at most 1GB."),
				 errhint("Pass an nchunks from 1 to %d.", MAX_BENCH_CHUNKS)));
	if (loops <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("loops must be greater than zero"),
				 errhint("Pass loops => 1 or more.")));
	if (pattern == PATTERN_HOLD && loops != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("pattern \"hold\" runs only once"),
				 errhint("Pass loops => 1 with pattern \"hold\".")));

	run_bound(kind, pattern, chunk_size, nchunks, &chunk_bytes, &array_bytes);
	bound = chunk_bytes + array_bytes;
	if (alloc_bench_reserved_bytes + bound > max_bytes)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("memory benchmark would exceed memprobe.alloc_bench_max_memory"),
				 errdetail("The run could hold up to " UINT64_FORMAT " bytes (" UINT64_FORMAT " for its chunks and their blocks, " UINT64_FORMAT " for its arrays of chunk pointers and release order), earlier runs with pattern \"hold\" hold " UINT64_FORMAT " bytes, and the limit is %d kB.",
						   bound, chunk_bytes, array_bytes,
						   alloc_bench_reserved_bytes, alloc_bench_max_memory_kb),
				 alloc_bench_reserved_bytes > 0 ?
				 errhint("Use fewer or smaller chunks, end the transaction that holds the earlier runs, or raise memprobe.alloc_bench_max_memory.") :
				 errhint("Use fewer or smaller chunks, or raise memprobe.alloc_bench_max_memory.")));
	return bound;
}

/*
 * release_order
 *		The order in which chunk indexes are released: NULL means ascending
 *		(fifo, reset on malloc); lifo and random get an explicit array.
 */
static int *
release_order(BenchPattern pattern, int nchunks)
{
	int		   *order;

	if (pattern != PATTERN_LIFO && pattern != PATTERN_RANDOM)
		return NULL;

	order = palloc(nchunks * sizeof(int));
	for (int i = 0; i < nchunks; i++)
		order[i] = (pattern == PATTERN_LIFO) ? nchunks - 1 - i : i;

	if (pattern == PATTERN_RANDOM)
	{
		pg_prng_state prng;

		/* A fixed seed: every run frees in the same order. */
		pg_prng_seed(&prng, UINT64CONST(0x6d656d70726f6265));
		for (int i = nchunks - 1; i > 0; i--)
		{
			int			j = (int) pg_prng_uint64_range(&prng, 0, i);
			int			tmp = order[i];

			order[i] = order[j];
			order[j] = tmp;
		}
	}
	return order;
}

/*
 * run_once
 *		One allocate-then-release round.  'context' is the fresh context to
 *		allocate in, or NULL for malloc.  Adds the timings to *result and
 *		raises its peak and block count to this round's if larger.
 */
static void
run_once(MemoryContext context, BenchChunks *bc, Size chunk_size,
		 BenchPattern pattern, const int *order, BenchResult *result)
{
	int			n = bc->nchunks;
	instr_time	start;
	instr_time	end;
	int64		peak;
	int64		blocks;

	/* allocate */
	INSTR_TIME_SET_CURRENT(start);
	if (context == NULL)
	{
		for (int i = 0; i < n; i++)
		{
			if ((i & INTERRUPT_CHECK_MASK) == 0)
				CHECK_FOR_INTERRUPTS();
			bc->chunks[i] = malloc(chunk_size);
			if (bc->chunks[i] == NULL)
				ereport(ERROR,
						(errcode(ERRCODE_OUT_OF_MEMORY),
						 errmsg("out of memory"),
						 errdetail("Failed on malloc of %zu bytes.", chunk_size)));
		}
	}
	else
	{
		for (int i = 0; i < n; i++)
		{
			if ((i & INTERRUPT_CHECK_MASK) == 0)
				CHECK_FOR_INTERRUPTS();
			bc->chunks[i] = MemoryContextAlloc(context, chunk_size);
		}
	}
	INSTR_TIME_SET_CURRENT(end);
	INSTR_TIME_ACCUM_DIFF(result->alloc_time, end, start);

	/* what the allocator holds at the peak (untimed) */
	if (context == NULL)
	{
		/* malloc's own chunk header is one size_t in glibc */
		peak = 0;
		for (int i = 0; i < n; i++)
			peak += malloc_usable_size(bc->chunks[i]) + sizeof(size_t);
		blocks = n;
	}
	else
	{
		MemoryContextCounters stat = {0};

		context->methods->stats(context, NULL, NULL, &stat, false);
		peak = (int64) stat.totalspace;
		blocks = (int64) stat.nblocks;
	}
	result->peak_bytes = Max(result->peak_bytes, peak);
	result->blocks = Max(result->blocks, blocks);

	if (pattern == PATTERN_HOLD)
		return;

	/* release */
	INSTR_TIME_SET_CURRENT(start);
	if (pattern == PATTERN_RESET && context != NULL)
		MemoryContextReset(context);
	else
	{
		for (int k = 0; k < n; k++)
		{
			int			i = order ? order[k] : k;

			if ((k & INTERRUPT_CHECK_MASK) == 0)
				CHECK_FOR_INTERRUPTS();
			if (context == NULL)
				free(bc->chunks[i]);
			else
				pfree(bc->chunks[i]);
			bc->chunks[i] = NULL;
		}
	}
	INSTR_TIME_SET_CURRENT(end);
	INSTR_TIME_ACCUM_DIFF(result->free_time, end, start);

	/* after a reset the pointers are dangling; forget them */
	if (pattern == PATTERN_RESET && context != NULL)
		memset(bc->chunks, 0, n * sizeof(void *));
}

/*
 * memprobe_alloc_bench
 *		SQL: memprobe_alloc_bench(context_type, chunk_size, nchunks,
 *		pattern, loops) returns (alloc_ns, free_ns, peak_bytes, blocks).
 *
 * alloc_ns and free_ns are the mean nanoseconds per chunk over all loops (for
 * "reset", the reset's time divided by nchunks; NULL for "hold").
 * peak_bytes is what the context held in blocks after all chunks were
 * allocated (for malloc: usable size plus malloc's header per chunk); blocks
 * is how many blocks it had malloc'd then (for malloc, one per chunk).
 * Slab chunks smaller than Slab's minimum are allocated at that minimum.
 */
Datum
memprobe_alloc_bench(PG_FUNCTION_ARGS)
{
	char	   *type_name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	int			chunk_size = PG_GETARG_INT32(1);
	int			nchunks = PG_GETARG_INT32(2);
	char	   *pattern_name = text_to_cstring(PG_GETARG_TEXT_PP(3));
	int			loops = PG_GETARG_INT32(4);
	int			kind;
	BenchPattern pattern;
	MemoryContext parent;
	MemoryContext holder;
	MemoryContext oldcontext;
	BenchChunks *bc;
	int		   *order;
	BenchResult result = {0};
	TupleDesc	tupdesc;
	Datum		values[4];
	bool		nulls[4] = {0};
	double		ops;
	uint64		bound;
	Size		alloc_size;

	kind = lookup_name(bench_types, lengthof(bench_types), type_name,
					   "context type");
	pattern = (BenchPattern) lookup_name(bench_patterns, lengthof(bench_patterns),
										 pattern_name, "pattern");
	bound = check_arguments(kind, type_name, pattern, chunk_size, nchunks, loops);

	/* a Slab context serves only its own chunk size, maybe rounded up */
	alloc_size = (kind == MEMPROBE_CONTEXT_SLAB) ?
		memprobe_slab_chunk_size((Size) chunk_size) : (Size) chunk_size;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	/* "hold" keeps its memory until the transaction ends. */
	parent = (pattern == PATTERN_HOLD) ? CurTransactionContext : CurrentMemoryContext;

	holder = AllocSetContextCreate(parent, "memprobe_alloc_bench chunks",
								   ALLOCSET_SMALL_SIZES);
	oldcontext = MemoryContextSwitchTo(holder);
	bc = palloc0(sizeof(BenchChunks));
	bc->malloced = (kind == BENCH_MALLOC);
	bc->callback.func = release_run;
	bc->callback.arg = bc;
	MemoryContextRegisterResetCallback(holder, &bc->callback);

	/* from here on the holder's callback gives the reservation back */
	bc->reserved = bound;
	alloc_bench_reserved_bytes += bound;

	bc->chunks = palloc0(nchunks * sizeof(void *));
	bc->nchunks = nchunks;
	order = release_order(pattern, nchunks);
	MemoryContextSwitchTo(oldcontext);

	for (int loop = 0; loop < loops; loop++)
	{
		MemoryContext context = NULL;

		if (kind != BENCH_MALLOC)
			context = memprobe_context_create((MemprobeContextKind) kind,
											  holder, "memprobe_alloc_bench",
											  (Size) chunk_size);
		run_once(context, bc, alloc_size, pattern, order, &result);
		if (context != NULL && pattern != PATTERN_HOLD)
			MemoryContextDelete(context);
	}

	if (pattern == PATTERN_HOLD)
	{
		MemoryContextCounters holder_stat = {0};
		uint64		held;

		/*
		 * Until the transaction ends, keep reserved what the run really
		 * holds (its context or malloc'd chunks, and the holder) rather than
		 * its bound: later runs may use the difference.
		 */
		holder->methods->stats(holder, NULL, NULL, &holder_stat, false);
		held = (uint64) result.peak_bytes + (uint64) holder_stat.totalspace;
		alloc_bench_reserved_bytes -= bc->reserved;
		bc->reserved = held;
		alloc_bench_reserved_bytes += held;
	}
	else
		MemoryContextDelete(holder);

	ops = (double) nchunks * loops;
	values[0] = Float8GetDatum(INSTR_TIME_GET_DOUBLE(result.alloc_time) * 1e9 / ops);
	if (pattern == PATTERN_HOLD)
		nulls[1] = true;
	else
		values[1] = Float8GetDatum(INSTR_TIME_GET_DOUBLE(result.free_time) * 1e9 / ops);
	values[2] = Int64GetDatum(result.peak_bytes);
	values[3] = Int64GetDatum(result.blocks);

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc),
													  values, nulls)));
}

/*
 * alloc_bench_init
 *		Define memprobe.alloc_bench_max_memory.
 */
void
alloc_bench_init(void)
{
	DefineCustomIntVariable("memprobe.alloc_bench_max_memory",
							"Most memory this backend's memprobe_alloc_bench runs may hold at any moment.",
							"Before a run allocates anything, an upper bound of what it will hold "
							"(its memory context's blocks or its malloc'd chunks, and its arrays of "
							"chunk pointers and release order) is added to what earlier runs with "
							"pattern \"hold\" still hold in this transaction; "
							"if the sum exceeds this setting, the run is rejected.",
							&alloc_bench_max_memory_kb,
							1024 * 1024,
							1024,
							MAX_KILOBYTES,
							PGC_SUSET,
							GUC_UNIT_KB,
							NULL, NULL, NULL);
}
