/*-------------------------------------------------------------------------
 *
 * tuplestore_layout.h
 *	  memprobe's copy of tuplestore.c's private state (PostgreSQL 15 and 17),
 *	  and the few readers and writers of it that memprobe needs.
 *
 * tuplestore.c keeps struct Tuplestorestate to itself, and 15 and 17 export
 * no way to ask a store how much memory or disk it uses (18's
 * tuplestore_get_stats) or which context holds its tuples.  memprobe reads
 * those fields through a copy of the struct (from
 * src/backend/utils/sort/tuplestore.c, identical in 15.18 and 17.11), which
 * must match the server's byte for byte: compat_tuplestore_layout_ok()
 * checks a live tuplestore against it once per backend before anything else
 * here is used, and the callers stand aside (core's node stays) when it does
 * not match.  On 18 none of this is reached.
 *
 * Like compat.h, this file tests PG_VERSION_NUM; it is kept apart because it
 * is the one place memprobe depends on another file's private layout.
 *
 * Copyright (c) 2026, The memprobe Developers
 * Portions Copyright (c) 1996-2025, PostgreSQL Global Development Group
 * Portions Copyright (c) 1994, Regents of the University of California
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_TUPLESTORE_LAYOUT_H
#define MEMPROBE_TUPLESTORE_LAYOUT_H

#include "postgres.h"

#include "executor/executor.h"
#include "storage/buffile.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/tuplestore.h"

#if PG_VERSION_NUM < 180000

/* TupStoreStatus and struct Tuplestorestate of tuplestore.c (15, 17) */
typedef enum CompatTupStoreStatus
{
	COMPAT_TSS_INMEM,
	COMPAT_TSS_WRITEFILE,
	COMPAT_TSS_READFILE
} CompatTupStoreStatus;

typedef struct CompatTuplestoreLayout
{
	CompatTupStoreStatus status;
	int			eflags;
	bool		backward;
	bool		interXact;
	bool		truncated;
	int64		availMem;
	int64		allowedMem;
	int64		tuples;
	BufFile    *myfile;
	MemoryContext context;
	ResourceOwner resowner;
	void	   *(*copytup) (Tuplestorestate *state, void *tup);
	void		(*writetup) (Tuplestorestate *state, void *tup);
	void	   *(*readtup) (Tuplestorestate *state, unsigned int len);
	void	  **memtuples;
	int			memtupdeleted;
	int			memtupcount;
	int			memtupsize;
	bool		growmemtuples;
	void	   *readptrs;
	int			activeptr;
	int			readptrcount;
	int			readptrsize;
	int			writepos_file;
	off_t		writepos_offset;
} CompatTuplestoreLayout;

/* buffile.c's MAX_PHYSICAL_FILESIZE: a BufFile's segments are 1GB each */
#define COMPAT_BUFFILE_SEGMENT_SIZE	INT64CONST(0x40000000)

#define compat_ts(state) ((CompatTuplestoreLayout *) (state))

/*
 * Does the copied layout match this server's tuplestore?  Creates a small
 * tuplestore in the current memory context and checks every field whose
 * value tuplestore_begin_heap() and tuplestore_puttuple() fix.
 */
static inline bool
compat_tuplestore_layout_ok(void)
{
	Tuplestorestate *ts = tuplestore_begin_heap(true, false, 123);
	CompatTuplestoreLayout *l = compat_ts(ts);
	bool		ok;

	ok = l->status == COMPAT_TSS_INMEM &&
		l->eflags == (EXEC_FLAG_BACKWARD | EXEC_FLAG_REWIND) &&
		!l->backward && !l->interXact && !l->truncated &&
		l->allowedMem == 123 * 1024L &&
		l->availMem == l->allowedMem - (int64) GetMemoryChunkSpace(l->memtuples) &&
		l->tuples == 0 && l->myfile == NULL &&
		l->context == CurrentMemoryContext &&
		l->resowner == CurrentResourceOwner &&
		l->writetup != NULL &&
		l->memtupdeleted == 0 && l->memtupcount == 0 &&
		l->activeptr == 0 && l->readptrcount == 1;
	tuplestore_end(ts);
	return ok;
}

/*
 * Bytes the tuples in memory take, as work_mem is charged (what PostgreSQL
 * 18 reports as Memory storage), or -1 once they have gone to a temp file.
 * Cheap enough to call per tuple.
 */
static inline int64
compat_tuplestore_mem_used(Tuplestorestate *state)
{
	if (compat_ts(state)->status != COMPAT_TSS_INMEM)
		return -1;
	return compat_ts(state)->allowedMem - compat_ts(state)->availMem;
}

/* Bytes written to the tuplestore's temp file, or -1 while it is in memory. */
static inline int64
compat_tuplestore_disk_used(Tuplestorestate *state)
{
	CompatTuplestoreLayout *l = compat_ts(state);
	int			fileno;
	off_t		offset;

	switch (l->status)
	{
		case COMPAT_TSS_WRITEFILE:
			/* the seek position is the write position */
			BufFileTell(l->myfile, &fileno, &offset);
			break;
		case COMPAT_TSS_READFILE:
			fileno = l->writepos_file;
			offset = l->writepos_offset;
			break;
		default:
			return -1;
	}
	return fileno * COMPAT_BUFFILE_SEGMENT_SIZE + offset;
}

/*
 * Release a tuplestore whose every allocation lives in a memory context the
 * caller is about to reset: only its temp file needs closing.  This replaces
 * tuplestore_end()'s tuple-by-tuple pfree with one context reset, as
 * PostgreSQL 18's tuplestore_end() does.
 */
static inline void
compat_tuplestore_release_file(Tuplestorestate *state)
{
	CompatTuplestoreLayout *l = compat_ts(state);

	if (l->myfile != NULL)
	{
		BufFileClose(l->myfile);
		l->myfile = NULL;
	}
}

/*
 * The routine a tuplestore writes each tuple to its temp file with (for
 * tuplestore_begin_heap stores, tuplestore.c's writetup_heap, which also
 * frees the tuple), and the memory context that holds its tuples.
 *
 * Why memprobe swaps the routine: when a put tips the store over work_mem,
 * tuplestore.c writes out and frees every tuple in memory before the put
 * returns, so the most the tuples' context ever held is visible only inside
 * that put, at the first write.  There is no hook there; the writing routine
 * is the one call memprobe can stand in front of (GenMaterial's own stores
 * only; the swap replaces nothing else, and the original is called for
 * every tuple).
 */
typedef void (*CompatTuplestoreWritetup) (Tuplestorestate *state, void *tup);

static inline CompatTuplestoreWritetup
compat_tuplestore_swap_writetup(Tuplestorestate *state, CompatTuplestoreWritetup fn)
{
	CompatTuplestoreLayout *l = compat_ts(state);
	CompatTuplestoreWritetup old = l->writetup;

	l->writetup = fn;
	return old;
}

static inline MemoryContext
compat_tuplestore_context(Tuplestorestate *state)
{
	return compat_ts(state)->context;
}

/*
 * Make the store's next puts copy their tuples into 'cxt' (tuplestore.c reads
 * state->context only in its put functions, to copy the tuple there).
 * Tuples already stored stay where they are: the store frees each with
 * pfree, which finds the chunk's own context.
 */
static inline void
compat_tuplestore_set_context(Tuplestorestate *state, MemoryContext cxt)
{
	compat_ts(state)->context = cxt;
}

#else							/* PG_VERSION_NUM >= 180000 */

/*
 * On 18 GenMaterial stands aside (core already does what it does), so these
 * are never reached; the layout check says so first.
 */
static inline bool
compat_tuplestore_layout_ok(void)
{
	return false;
}

static inline int64
compat_tuplestore_mem_used(Tuplestorestate *state)
{
	elog(ERROR, "tuplestore internals are not read on this server version");
	pg_unreachable();
}

static inline int64
compat_tuplestore_disk_used(Tuplestorestate *state)
{
	elog(ERROR, "tuplestore internals are not read on this server version");
	pg_unreachable();
}

static inline void
compat_tuplestore_release_file(Tuplestorestate *state)
{
	elog(ERROR, "tuplestore internals are not read on this server version");
}

typedef void (*CompatTuplestoreWritetup) (Tuplestorestate *state, void *tup);

static inline CompatTuplestoreWritetup
compat_tuplestore_swap_writetup(Tuplestorestate *state, CompatTuplestoreWritetup fn)
{
	elog(ERROR, "tuplestore internals are not read on this server version");
	pg_unreachable();
}

static inline MemoryContext
compat_tuplestore_context(Tuplestorestate *state)
{
	elog(ERROR, "tuplestore internals are not read on this server version");
	pg_unreachable();
}

static inline void
compat_tuplestore_set_context(Tuplestorestate *state, MemoryContext cxt)
{
	elog(ERROR, "tuplestore internals are not read on this server version");
}

#endif							/* PG_VERSION_NUM < 180000 */

#endif							/* MEMPROBE_TUPLESTORE_LAYOUT_H */
