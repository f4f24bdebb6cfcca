/*-------------------------------------------------------------------------
 *
 * compat.h
 *	  Every difference between the PostgreSQL major versions memprobe supports
 *	  (15, 17 and 18) lives here, so that call sites read as if written for
 *	  one version.  No other file tests PG_VERSION_NUM, except
 *	  tuplestore_layout.h, memprobe's copy of tuplestore.c's private state.
 *
 * Copyright (c) 2026, The memprobe Developers
 * Portions Copyright (c) 1996-2025, PostgreSQL Global Development Group
 * Portions Copyright (c) 1994, Regents of the University of California
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_COMPAT_H
#define MEMPROBE_COMPAT_H

#include "postgres.h"

#include "executor/executor.h"
#include "fmgr.h"
#include "lib/ilist.h"
#include "nodes/memnodes.h"
#include "utils/memutils.h"
#include "utils/resowner.h"

#if PG_VERSION_NUM < 150000
#error "memprobe requires PostgreSQL 15 or later"
#endif

/*
 * The library's magic block.  From 18 it also carries the module's name and
 * version, which pg_get_loaded_modules() shows: the build's own version
 * (MEMPROBE_BUILD_VERSION, from build_version.h, which the Makefile writes),
 * as memprobe_version() returns it.
 */
#if PG_VERSION_NUM >= 180000
#define MEMPROBE_MODULE_MAGIC \
	PG_MODULE_MAGIC_EXT(.name = "memprobe", .version = MEMPROBE_BUILD_VERSION)
#else
#define MEMPROBE_MODULE_MAGIC PG_MODULE_MAGIC
#endif

/*
 * Exported symbols: only what the server looks up in memprobe.so by name
 * (the magic block, _PG_init, the SQL functions and their info records, the
 * sampler's entry point).  From 16, PGXS builds modules with
 * -fvisibility=hidden and PGDLLEXPORT marks those; 15's does neither, so the
 * Makefile adds the flag and this the marks (15's PG_FUNCTION_INFO_V1 marks
 * only the info record).  It is for what memprobe.so exports, not for
 * speed: GCC already reached memprobe's statics directly.  Every file that
 * defines an SQL function includes this header before its
 * PG_FUNCTION_INFO_V1.
 */
#if PG_VERSION_NUM < 160000 && defined(__GNUC__)
#undef PGDLLEXPORT
#define PGDLLEXPORT __attribute__((visibility("default")))
#undef PG_FUNCTION_INFO_V1
#define PG_FUNCTION_INFO_V1(funcname) \
extern PGDLLEXPORT Datum funcname(PG_FUNCTION_ARGS); \
extern PGDLLEXPORT const Pg_finfo_record * CppConcat(pg_finfo_,funcname)(void); \
const Pg_finfo_record * \
CppConcat(pg_finfo_,funcname) (void) \
{ \
	static const Pg_finfo_record my_finfo = { 1 }; \
	return &my_finfo; \
} \
extern int no_such_variable
#endif

/*
 * The Bump allocator (bump.c) arrived in PostgreSQL 17.  It has no per-chunk
 * header, so pfree, repalloc and GetMemoryChunkSpace are not supported on its
 * chunks; only a reset or delete of the whole context releases memory.
 */
#if PG_VERSION_NUM >= 170000
#define MEMPROBE_HAVE_BUMP true
#else
#define MEMPROBE_HAVE_BUMP false
#endif

static inline bool
compat_is_bump_context(MemoryContext context)
{
#if PG_VERSION_NUM >= 170000
	return IsA(context, BumpContext);
#else
	(void) context;
	return false;
#endif
}

/*
 * Create a Bump context; callers check MEMPROBE_HAVE_BUMP first and report a
 * user-facing error themselves.
 */
static inline MemoryContext
compat_bump_context_create(MemoryContext parent, const char *name,
						   Size minContextSize, Size initBlockSize,
						   Size maxBlockSize)
{
#if PG_VERSION_NUM >= 170000
	return BumpContextCreate(parent, name, minContextSize, initBlockSize,
							 maxBlockSize);
#else
	(void) parent;
	(void) name;
	(void) minContextSize;
	(void) initBlockSize;
	(void) maxBlockSize;
	elog(ERROR, "bump memory contexts require PostgreSQL 17 or later");
	pg_unreachable();
#endif
}

/* ------------------------------------------------------------------------
 * Allocator layouts (context_types.c's memprobe_context_bound()).
 *
 * memprobe_alloc_bench must know, before it allocates, an upper bound of what
 * a context of each type will hold.  That depends on header sizes private to
 * aset.c, generation.c, slab.c and bump.c, which PostgreSQL 16 changed: it
 * replaced each allocator's own chunk header by the 8-byte MemoryChunk
 * (utils/memutils_memorychunk.h, 16 bytes with MEMORY_CONTEXT_CHECKING), gave
 * GenerationBlock and SlabBlock new fields, and, with
 * MEMORY_CONTEXT_CHECKING, always reserves a sentinel byte after a Generation,
 * Bump or Slab chunk and after an AllocSet chunk too large for its free lists
 * (MAXALIGN(size + 1) where 15 has MAXALIGN(size)).
 *
 * The block header sizes below are the MAXALIGNed sizes of the block structs
 * as the 15.18, 17.11 and 18.6 sources declare them (AllocBlockData,
 * GenerationBlock, SlabBlock, BumpBlock); none of their fields needs padding.
 * 16 is untested: it is taken to follow 17, as the MemoryChunk rewrite came
 * with 16.
 * The context structs themselves (AllocSetContext and the rest) are not
 * mirrored: COMPAT_CONTEXT_HEADER_BOUND is more than any of them takes
 * beyond MemoryContextData, and is used only where more header means a
 * larger bound.
 * ------------------------------------------------------------------------
 */
#define COMPAT_CONTEXT_HEADER_BOUND	(MAXALIGN(sizeof(MemoryContextData)) + 256)

/* AllocBlockData: aset, prev, next, freeptr, endptr (the same in 15 to 18) */
#define COMPAT_ASET_BLOCKHDRSZ	MAXALIGN(5 * sizeof(void *))

#if PG_VERSION_NUM >= 160000
#include "utils/memutils_memorychunk.h"

#define COMPAT_ASET_CHUNKHDRSZ			sizeof(MemoryChunk)
#define COMPAT_GENERATION_CHUNKHDRSZ	sizeof(MemoryChunk)
#define COMPAT_SLAB_CHUNKHDRSZ			sizeof(MemoryChunk)
#ifdef MEMORY_CONTEXT_CHECKING
#define COMPAT_BUMP_CHUNKHDRSZ			sizeof(MemoryChunk)
#define COMPAT_SENTINEL_BYTES			1
#else
/* Bump chunks have no header at all */
#define COMPAT_BUMP_CHUNKHDRSZ			0
#define COMPAT_SENTINEL_BYTES			0
#endif

/* GenerationBlock: node, context, blksize, nchunks, nfree, freeptr, endptr */
#define COMPAT_GENERATION_BLOCKHDRSZ \
	MAXALIGN(sizeof(dlist_node) + sizeof(void *) + sizeof(Size) + \
			 2 * sizeof(int) + 2 * sizeof(char *))
/* SlabBlock: slab, nfree, nunused, freehead, unused, node */
#define COMPAT_SLAB_BLOCKHDRSZ \
	MAXALIGN(sizeof(void *) + 2 * sizeof(int32) + 2 * sizeof(void *) + \
			 sizeof(dlist_node))
/* BumpBlock: node, context (MEMORY_CONTEXT_CHECKING only), freeptr, endptr */
#ifdef MEMORY_CONTEXT_CHECKING
#define COMPAT_BUMP_BLOCKHDRSZ \
	MAXALIGN(sizeof(dlist_node) + sizeof(void *) + 2 * sizeof(char *))
#else
#define COMPAT_BUMP_BLOCKHDRSZ \
	MAXALIGN(sizeof(dlist_node) + 2 * sizeof(char *))
#endif

/*
 * slab.c, SlabContextCreate: "Ensure there's enough space to store the
 * pointer to the next free chunk in the memory of the (otherwise) unused
 * allocation": if (chunkSize < sizeof(MemoryChunk *)) chunkSize =
 * sizeof(MemoryChunk *).  SlabAlloc then insists on exactly that size
 * (elog "unexpected alloc chunk size"), so smaller requests must be rounded
 * up by the caller.
 */
#define COMPAT_SLAB_MIN_CHUNK_SIZE		sizeof(void *)

/*
 * The SlabContext header: a fixed struct, plus one bool per chunk of a block
 * with MEMORY_CONTEXT_CHECKING (Slab_CONTEXT_HDRSZ).
 */
#ifdef MEMORY_CONTEXT_CHECKING
#define COMPAT_SLAB_CONTEXT_BOUND(chunksPerBlock) \
	(COMPAT_CONTEXT_HEADER_BOUND + (Size) (chunksPerBlock) * sizeof(bool))
#else
#define COMPAT_SLAB_CONTEXT_BOUND(chunksPerBlock) COMPAT_CONTEXT_HEADER_BOUND
#endif

#else							/* PostgreSQL 15 */

/*
 * AllocChunkData: size, requested_size (MEMORY_CONTEXT_CHECKING), aset,
 * padded to MAXALIGN; GenerationChunk: size, requested_size, block, context,
 * padded likewise; SlabChunk: block, slab.
 */
#ifdef MEMORY_CONTEXT_CHECKING
#define COMPAT_ASET_CHUNKHDRSZ	MAXALIGN(2 * sizeof(Size) + sizeof(void *))
#define COMPAT_GENERATION_CHUNKHDRSZ \
	MAXALIGN(2 * sizeof(Size) + 2 * sizeof(void *))
#else
#define COMPAT_ASET_CHUNKHDRSZ	MAXALIGN(sizeof(Size) + sizeof(void *))
#define COMPAT_GENERATION_CHUNKHDRSZ \
	MAXALIGN(sizeof(Size) + 2 * sizeof(void *))
#endif
#define COMPAT_SLAB_CHUNKHDRSZ	MAXALIGN(2 * sizeof(void *))
#define COMPAT_SENTINEL_BYTES	0

/* GenerationBlock: node, blksize, nchunks, nfree, freeptr, endptr */
#define COMPAT_GENERATION_BLOCKHDRSZ \
	MAXALIGN(sizeof(dlist_node) + sizeof(Size) + 2 * sizeof(int) + \
			 2 * sizeof(char *))
/* SlabBlock: node, nfree, firstFreeChunk */
#define COMPAT_SLAB_BLOCKHDRSZ	MAXALIGN(sizeof(dlist_node) + 2 * sizeof(int))

/* No Bump on 15; defined so that the bound compiles (never used). */
#define COMPAT_BUMP_CHUNKHDRSZ	0
#define COMPAT_BUMP_BLOCKHDRSZ	MAXALIGN(sizeof(dlist_node) + 2 * sizeof(char *))

/*
 * slab.c, SlabContextCreate: "Make sure the linked list node fits inside a
 * freed chunk": if (chunkSize < sizeof(int)) chunkSize = sizeof(int).
 * SlabAlloc then insists on exactly that size (elog "unexpected alloc chunk
 * size"), so smaller requests must be rounded up by the caller.
 */
#define COMPAT_SLAB_MIN_CHUNK_SIZE		sizeof(int)

/*
 * The SlabContext header ends in a free list per possible count of free
 * chunks in a block (chunksPerBlock + 1 dlist_heads), and with
 * MEMORY_CONTEXT_CHECKING a bool per chunk of a block.
 */
#ifdef MEMORY_CONTEXT_CHECKING
#define COMPAT_SLAB_CONTEXT_BOUND(chunksPerBlock) \
	(COMPAT_CONTEXT_HEADER_BOUND + \
	 ((Size) (chunksPerBlock) + 1) * sizeof(dlist_head) + \
	 (Size) (chunksPerBlock) * sizeof(bool))
#else
#define COMPAT_SLAB_CONTEXT_BOUND(chunksPerBlock) \
	(COMPAT_CONTEXT_HEADER_BOUND + \
	 ((Size) (chunksPerBlock) + 1) * sizeof(dlist_head))
#endif

#endif							/* PG_VERSION_NUM >= 160000 */

/* ------------------------------------------------------------------------
 * EXPLAIN helpers moved to commands/explain_format.h and explain_state.h in 18.
 * ------------------------------------------------------------------------
 */
#if PG_VERSION_NUM >= 180000
#include "commands/explain_format.h"
#include "commands/explain_state.h"
#else
#include "commands/explain.h"
#endif

/* Indent a text-format EXPLAIN line: ExplainIndentText() is exported from 18. */
static inline void
compat_explain_indent(ExplainState *es)
{
#if PG_VERSION_NUM >= 180000
	ExplainIndentText(es);
#else
	/* as explain.c's static ExplainIndentText() of 15 and 17 */
	Assert(es->format == EXPLAIN_FORMAT_TEXT);
	if (es->str->len == 0 || es->str->data[es->str->len - 1] == '\n')
		appendStringInfoSpaces(es->str, es->indent * 2);
#endif
}

/* ------------------------------------------------------------------------
 * Tuplestore storage statistics.
 *
 * PostgreSQL 18 keeps tuplestore tuples in a Generation context of its own
 * and reports what they took through tuplestore_get_stats().  Before 18
 * there is no way to ask a tuplestore what it holds; memprobe reads it from
 * a copy of tuplestore.c's private state, kept in tuplestore_layout.h.
 * ------------------------------------------------------------------------
 */
#include "storage/buffile.h"
#include "utils/tuplestore.h"

/*
 * Is this the receiver EXPLAIN (ANALYZE, SERIALIZE) runs its query into
 * (17+)?
 */
#if PG_VERSION_NUM >= 170000
#define compat_dest_is_explain_serialize(dest) ((dest) == DestExplainSerialize)
#else
#define compat_dest_is_explain_serialize(dest) false
#endif

/* Core's tuplestore already stores tuples in a Generation context. */
#if PG_VERSION_NUM >= 180000
#define MEMPROBE_CORE_TUPLESTORE_GENERATION true
#else
#define MEMPROBE_CORE_TUPLESTORE_GENERATION false
#endif

/* ------------------------------------------------------------------------
 * StreamScan (streamscan.c, streamscan_exec.c, block_stream.c).
 * ------------------------------------------------------------------------
 */
#include "access/tableam.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/proc.h"
#include "utils/guc.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

/* Core's read stream (storage/read_stream.h) exists from 17. */
#if PG_VERSION_NUM >= 170000
#include "storage/read_stream.h"
#define MEMPROBE_HAVE_READ_STREAM 1
/* heapam's flags for a sequential scan's stream; 18 adds I/O batching */
#ifdef READ_STREAM_USE_BATCHING
#define COMPAT_READ_STREAM_SEQSCAN_FLAGS (READ_STREAM_SEQUENTIAL | READ_STREAM_USE_BATCHING)
#else
#define COMPAT_READ_STREAM_SEQSCAN_FLAGS READ_STREAM_SEQUENTIAL
#endif
#else
#define MEMPROBE_HAVE_READ_STREAM 0
#endif

/* "snapshot too old" (old_snapshot_threshold) was removed in 17. */
static inline void
compat_test_for_old_snapshot(Snapshot snapshot, Relation rel, Page page)
{
#if PG_VERSION_NUM < 170000
	TestForOldSnapshot(snapshot, rel, page);
#endif
}

/*
 * A custom scan's scan slot type.  From 16, CustomScanState.slotOps, set in
 * CreateCustomScanState, makes ExecInitCustomScan create the scan slot with
 * it.  15 always makes a virtual slot and compiles the node's quals and
 * projection for it before BeginCustomScan runs; there the slot is made
 * again with our type (compat_custom_scan_apply_slot_ops_lazily, from
 * BeginCustomScan), and quals and projection compiled again for it, at once
 * (compat_custom_scan_apply_slot_ops) or when first needed.
 */
static inline void
compat_custom_scan_request_slot_ops(CustomScanState *css,
									const TupleTableSlotOps *ops)
{
#if PG_VERSION_NUM >= 160000
	css->slotOps = ops;
#endif
}

/*
 * The slot only (15): the qual and projection compiled for the virtual slot
 * must be compiled again by compat_custom_scan_recompile_projection() and
 * _qual() before the node first runs them.  Returns
 * whether that is needed (15).  The caller makes sure neither contains a
 * SubPlan (a second compilation would leave the first one's SubPlan states
 * in the node's subPlan list).  Parents compile their expressions after this
 * returns, for the result slot type the node has now: without a projection
 * that is the new scan slot's, as ExecConditionalAssignProjectionInfo would
 * have set it.
 */
static inline bool
compat_custom_scan_apply_slot_ops_lazily(CustomScanState *css, EState *estate,
										 const TupleTableSlotOps *ops)
{
#if PG_VERSION_NUM < 160000
	ScanState  *ss = &css->ss;

	Assert(ss->ss_currentRelation != NULL);
	ExecInitScanTupleSlot(estate, ss, RelationGetDescr(ss->ss_currentRelation), ops);
	if (ss->ps.ps_ProjInfo == NULL)
	{
		ss->ps.resultopsset = ss->ps.scanopsset;
		ss->ps.resultopsfixed = ss->ps.scanopsfixed;
		ss->ps.resultops = ss->ps.scanops;
	}
	return true;
#else
	Assert(css->ss.ss_ScanTupleSlot->tts_ops == ops);
	return false;
#endif
}

/*
 * The second half of compat_custom_scan_apply_slot_ops_lazily (15), in two
 * parts that the caller may each leave out when it never runs that
 * expression: the projection, then the qual.
 */
static inline void
compat_custom_scan_recompile_projection(CustomScanState *css)
{
#if PG_VERSION_NUM < 160000
	ScanState  *ss = &css->ss;

	if (ss->ps.ps_ProjInfo != NULL)
		ExecAssignScanProjectionInfoWithVarno(ss, ((Scan *) ss->ps.plan)->scanrelid);
#else
	(void) css;
#endif
}

static inline void
compat_custom_scan_recompile_qual(CustomScanState *css)
{
#if PG_VERSION_NUM < 160000
	ScanState  *ss = &css->ss;

	ss->ps.qual = ExecInitQual(((Scan *) ss->ps.plan)->plan.qual, &ss->ps);
#else
	(void) css;
#endif
}

/*
 * All of it at once, in BeginCustomScan: the slot, the projection and the
 * qual (15); nothing to do from 16.
 */
static inline void
compat_custom_scan_apply_slot_ops(CustomScanState *css, EState *estate,
								  const TupleTableSlotOps *ops)
{
	if (!compat_custom_scan_apply_slot_ops_lazily(css, estate, ops))
		return;
	/* the first compilation's SubPlan states never run: keep only the new ones */
	css->ss.ps.subPlan = NIL;
	compat_custom_scan_recompile_projection(css);
	compat_custom_scan_recompile_qual(css);
}

/* Path of a relation's main fork, segment 0, relative to the data directory (palloc'd). */
#include "common/relpath.h"

static inline char *
compat_relation_main_fork_path(Relation rel)
{
#if PG_VERSION_NUM >= 180000
	return pstrdup(relpathbackend(rel->rd_locator, rel->rd_backend, MAIN_FORKNUM).str);
#elif PG_VERSION_NUM >= 160000
	return relpathbackend(rel->rd_locator, rel->rd_backend, MAIN_FORKNUM);
#else
	return relpathbackend(rel->rd_node, rel->rd_backend, MAIN_FORKNUM);
#endif
}

/* ------------------------------------------------------------------------
 * Per-statement tracking (statements.c).
 * ------------------------------------------------------------------------
 */

/*
 * ExecutorRun_hook lost its execute_once argument in 18.  A hook is declared
 * as  static void f(COMPAT_EXECUTOR_RUN_PARAMS)  and passes its arguments on
 * with COMPAT_EXECUTOR_RUN_ARGS; the parameters are always named queryDesc,
 * direction, count (and execute_once before 18).
 */
#if PG_VERSION_NUM >= 180000
#define COMPAT_EXECUTOR_RUN_PARAMS \
	QueryDesc *queryDesc, ScanDirection direction, uint64 count
#define COMPAT_EXECUTOR_RUN_ARGS	queryDesc, direction, count
#else
#define COMPAT_EXECUTOR_RUN_PARAMS \
	QueryDesc *queryDesc, ScanDirection direction, uint64 count, bool execute_once
#define COMPAT_EXECUTOR_RUN_ARGS	queryDesc, direction, count, execute_once
#endif

/* EnableQueryId() and CleanQuerytext(): utils/queryjumble.h in 15, nodes/ from 16 */
#if PG_VERSION_NUM >= 160000
#include "nodes/queryjumble.h"
#else
#include "utils/queryjumble.h"
#endif

/*
 * Core Material's peak storage: tuplestore_get_stats() exists from 18 (on 15
 * and 17 memprobe's GenMaterial stands in for Material and reports its own).
 * Returns false when there is nothing to report.
 */
static inline bool
compat_material_state_peak(MaterialState *node, int64 *bytes, bool *spilled)
{
#if PG_VERSION_NUM >= 180000
	char	   *type;
	int64		space;

	if (node->tuplestorestate == NULL)
		return false;
	tuplestore_get_stats(node->tuplestorestate, &type, &space);
	*bytes = space;
	*spilled = strcmp(type, "Disk") == 0;
	return true;
#else
	(void) node;
	(void) bytes;
	(void) spilled;
	return false;
#endif
}

/*
 * This backend's PGPROC number (0 .. MaxBackends + NUM_AUXILIARY_PROCS - 1
 * for processes that run code), or -1 before it has a PGPROC.  17 names it
 * MyProcNumber; 15 keeps it in MyProc->pgprocno.
 */
static inline int
compat_my_proc_number(void)
{
#if PG_VERSION_NUM >= 170000
	return MyProcNumber == INVALID_PROC_NUMBER ? -1 : (int) MyProcNumber;
#else
	return MyProc != NULL ? MyProc->pgprocno : -1;
#endif
}

/*
 * A constant's place in a query jumble (LocationLen).  18 squashes a list of
 * constants into one location (pg_stat_statements shows "IN (1, 2, 3)" as
 * "$1" and a comment) and records external parameters' places too, marked;
 * 15 and 17 record each constant alone and no parameters.
 */
#if PG_VERSION_NUM >= 180000
#define COMPAT_LOCATION_SQUASHED(loc)		((loc)->squashed)
#define COMPAT_LOCATION_EXTERN_PARAM(loc)	((loc)->extern_param)
#define COMPAT_JUMBLE_HAS_SQUASHED(jstate)	((jstate)->has_squashed_lists)
#else
#define COMPAT_LOCATION_SQUASHED(loc)		((void) (loc), false)
#define COMPAT_LOCATION_EXTERN_PARAM(loc)	((void) (loc), false)
#define COMPAT_JUMBLE_HAS_SQUASHED(jstate)	((void) (jstate), false)
#endif

/*
 * How many per-process slots cover every process compat_my_proc_number()
 * numbers: backends (clients, autovacuum, background workers, walsenders)
 * and auxiliary processes.  Prepared transactions' PGPROCs come after them
 * and are no processes.
 */
static inline int
compat_proc_slot_count(void)
{
	return MaxBackends + NUM_AUXILIARY_PROCS;
}

#include "utils/backend_status.h"

/*
 * The idx'th entry (1-based) of this process's snapshot of the backend
 * status array (pg_stat_activity's source).  17 renamed 15's
 * pgstat_fetch_stat_local_beentry.
 */
static inline LocalPgBackendStatus *
compat_local_beentry(int idx)
{
#if PG_VERSION_NUM >= 170000
	return pgstat_get_local_beentry_by_index(idx);
#else
	return pgstat_fetch_stat_local_beentry(idx);
#endif
}

/* ------------------------------------------------------------------------
 * Tuple descriptors (deform_check.c, test builds).
 * ------------------------------------------------------------------------
 */

/*
 * After changing column i's pg_attribute fields in a descriptor by hand:
 * from 18 the descriptor also keeps a CompactAttribute copy of them, which
 * is what core's tuple formation and deformation read, refreshed by
 * populate_compact_attribute().  Before 18 there is no copy.
 */
static inline void
compat_tupledesc_attr_changed(TupleDesc desc, int i)
{
#if PG_VERSION_NUM >= 180000
	populate_compact_attribute(desc, i);
#else
	(void) desc;
	(void) i;
#endif
}

/*
 * pgstat_count_heap_getnext() n times at once: tuples a sequential scan
 * fetched, as pg_stat_all_tables.seq_tup_read counts them.  The counter's
 * fields were renamed in 16 (t_counts.t_tuples_returned, then
 * counts.tuples_returned).
 */
#include "pgstat.h"

static inline void
compat_count_heap_getnext_n(Relation rel, int64 n)
{
	if (pgstat_should_count_relation(rel))
#if PG_VERSION_NUM >= 160000
		rel->pgstat_info->counts.tuples_returned += n;
#else
		rel->pgstat_info->t_counts.t_tuples_returned += n;
#endif
}

#endif							/* MEMPROBE_COMPAT_H */
