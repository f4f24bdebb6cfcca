/*-------------------------------------------------------------------------
 *
 * material_exec.c
 *	  GenMaterial, executor side: memprobe's Material node.
 *
 * It behaves exactly like nodeMaterial.c (PostgreSQL 15/17), whose logic it
 * mirrors line for line: the same eflags rules (REWIND, BACKWARD and MARK
 * kept for itself, REWIND added when BACKWARD is asked for, all three
 * stripped from the child), the same lazy tuplestore, the same rescan,
 * mark/restore and backward-fetch behaviour.  What differs is where the
 * tuples live: in two contexts of the node's own, a Generation context
 * (memprobe.material_context = generation, the default), which stores each
 * tuple at its own size where core's AllocSet rounds it up to a power of
 * two, and an AllocSet that holds the store itself.  Each tuple goes, before
 * it is copied, to whichever charges work_mem less for its exact size
 * (material_route_tuple), so that no tuple is ever charged more than core's
 * Material would charge for it (docs/genmaterial.md).  Everything goes with
 * one reset of each context on rescan and at the end, instead of a pfree
 * per tuple.
 *
 * EXPLAIN ANALYZE prints PostgreSQL 18's storage line for the node,
 * computed as 18's tuplestore_get_stats() does but as the peak over every
 * rescan, and beside it the peak bytes the contexts held in blocks: the
 * real footprint.
 *
 * Copyright (c) 2026, The memprobe Developers
 * Portions Copyright (c) 1996-2025, PostgreSQL Global Development Group
 * Portions Copyright (c) 1994, Regents of the University of California
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "port/pg_bitutils.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "shared/compat.h"
#include "store/tuplestore_layout.h"
#include "shared/context_types.h"
#include "store/material.h"

/* as PostgreSQL 18's explain.c */
#define BYTES_TO_KILOBYTES(b)	(((b) + 1023) / 1024)

typedef struct MaterialScanState
{
	CustomScanState css;
	int			given_eflags;	/* eflags as BeginCustomScan received them */
	int			eflags;			/* REWIND/BACKWARD/MARK we must support */
	bool		eof_underlying; /* reached end of underlying plan? */
	Tuplestorestate *tuplestore;	/* NULL until first needed */
	MaterialContextType context_type;	/* memprobe.material_context */
	MemoryContext tuple_cxt;	/* Generation (or AllocSet) context for
								 * tuples; NULL until needed */
	MemoryContext store_cxt;	/* AllocSet holding the tuplestore and the
								 * tuples it charges less for; tuple_cxt
								 * itself with material_context = aset */
	bool		tuples_in_generation;	/* has a tuple gone to a Generation
										 * context / to an AllocSet? */
	bool		tuples_in_aset;

	/* storage statistics over the node's lifetime, every rescan included */
	bool		stored;			/* has a tuplestore ever been created? */
	bool		used_disk;		/* has one ever spilled to disk? */
	int64		max_space;		/* PostgreSQL 18's Maximum Storage, bytes */
	int64		peak_held;		/* most the tuple context held in blocks */
	int64		last_mem;		/* memory charged after the latest put, or -1 */
} MaterialScanState;

/*
 * Merge joins give extra marks only to the nodes counted here (see
 * material_mergejoin.c): begun with EXEC_FLAG_MARK and without
 * EXEC_FLAG_REWIND.  Backend-local; only ever compared before and after an
 * ExecutorStart.
 */
uint64		material_mark_only_begins = 0;

/*
 * The node whose put is running, and the most its contexts held when the
 * store's writing routine ran in that put, or -1 (see material_writetup).
 * Set around each put, read right after it.
 */
static MaterialScanState *putting_node = NULL;
static int64 written_held = -1;

/* Whether this backend's allocators charge what chunk_space_*() say. */
typedef enum ChargeCheck
{
	CHARGE_UNCHECKED,
	CHARGE_OK,
	CHARGE_MISMATCH
} ChargeCheck;

static ChargeCheck charge_check = CHARGE_UNCHECKED;

/* tuplestore.c's writetup_heap, which material_writetup calls */
static CompatTuplestoreWritetup core_writetup = NULL;

static Node *material_create_state(CustomScan *cscan);
static void material_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *material_exec(CustomScanState *node);
static void material_end(CustomScanState *node);
static void material_rescan(CustomScanState *node);
static void material_mark_pos(CustomScanState *node);
static void material_restr_pos(CustomScanState *node);
static void material_explain(CustomScanState *node, List *ancestors,
							 ExplainState *es);

const CustomScanMethods material_scan_methods = {
	.CustomName = MATERIAL_CUSTOM_NAME,
	.CreateCustomScanState = material_create_state,
};

static const CustomExecMethods material_exec_methods = {
	.CustomName = MATERIAL_CUSTOM_NAME,
	.BeginCustomScan = material_begin,
	.ExecCustomScan = material_exec,
	.EndCustomScan = material_end,
	.ReScanCustomScan = material_rescan,
	.MarkPosCustomScan = material_mark_pos,
	.RestrPosCustomScan = material_restr_pos,
	.ExplainCustomScan = material_explain,
};

static Node *
material_create_state(CustomScan *cscan)
{
	MaterialScanState *ms = palloc0(sizeof(MaterialScanState));

	NodeSetTag(ms, T_CustomScanState);
	ms->css.methods = &material_exec_methods;
	return (Node *) ms;
}

/*
 * material_begin
 *		As ExecInitMaterial.  ExecInitCustomScan has set up the scan slot
 *		(the child's row, from custom_scan_tlist) and found no projection
 *		needed; the result slot must hold minimal tuples, as Material's does,
 *		because we return tuplestore tuples in it.
 */
static void
material_begin(CustomScanState *node, EState *estate, int eflags)
{
	MaterialScanState *ms = (MaterialScanState *) node;
	Plan	   *plan = node->ss.ps.plan;

	/*
	 * Core's merge join gives its inner Material extra marks when its own
	 * eflags, which the inner receives with MARK added, lack REWIND.  Keep
	 * what we were given so that material_mergejoin.c can tell.
	 */
	ms->given_eflags = eflags;
	if ((eflags & (EXEC_FLAG_MARK | EXEC_FLAG_REWIND)) == EXEC_FLAG_MARK)
		material_mark_only_begins++;

	ms->eflags = eflags & (EXEC_FLAG_REWIND | EXEC_FLAG_BACKWARD | EXEC_FLAG_MARK);

	/*
	 * Tuplestore's reading of BACKWARD is "back, but not necessarily to the
	 * start": without REWIND tuplestore_trim could throw away too much.
	 */
	if (eflags & EXEC_FLAG_BACKWARD)
		ms->eflags |= EXEC_FLAG_REWIND;

	ms->eof_underlying = false;
	ms->tuplestore = NULL;
	ms->context_type = (MaterialContextType) material_context_type;

	/* shield the child from REWIND, BACKWARD and MARK/RESTORE */
	eflags &= ~(EXEC_FLAG_REWIND | EXEC_FLAG_BACKWARD | EXEC_FLAG_MARK);
	outerPlanState(node) = ExecInitNode(outerPlan(plan), estate, eflags);

	ExecInitResultTupleSlotTL(&node->ss.ps, &TTSOpsMinimalTuple);
	node->ss.ps.ps_ProjInfo = NULL;
}

/*
 * material_held
 *		What the node's contexts hold in blocks now.
 */
static int64
material_held(MaterialScanState *ms)
{
	int64		held = ms->tuple_cxt->mem_allocated;

	if (ms->store_cxt != ms->tuple_cxt)
		held += ms->store_cxt->mem_allocated;
	return held;
}

/*
 * material_writetup
 *		The writing routine of our tuplestores: note what the node's contexts
 *		hold, then write the tuple out (and free it) as tuplestore.c would.
 *
 * Called only inside tuplestore_puttupleslot, for every tuple that goes to
 * the temp file: all of them at once when a put spills the store, then each
 * new one.  Just before the first write of a spill the contexts hold every
 * tuple stored so far, the new one and the temp file's buffer: the most they
 * ever hold, gone by the time the put returns.  material_note_put folds it
 * into the node's peak.  Nothing runs here while the store is in memory.
 */
static void
material_writetup(Tuplestorestate *state, void *tup)
{
	if (putting_node != NULL && putting_node->tuplestore == state)
		written_held = Max(written_held, material_held(putting_node));
	core_writetup(state, tup);
}

/*
 * chunk_space_aset, chunk_space_generation
 *		What GetMemoryChunkSpace() returns, and so what a tuplestore charges
 *		work_mem, for a palloc of 'size' bytes in an AllocSet or a Generation
 *		context made by memprobe_context_create (aset.c and generation.c of
 *		15.18, 17.11 and 18.6):
 *
 *		AllocSet, size up to ALLOCSET_SEPARATE_THRESHOLD (8kB, aset.c's
 *		ALLOC_CHUNK_LIMIT, which blocks of up to 1MB leave as it is): the
 *		next power of two, at least 8 (1 << ALLOC_MINBITS), plus the chunk
 *		header;
 *		AllocSet, larger (a block of its own), and Generation, any size:
 *		MAXALIGN(size + sentinel) plus the chunk header.
 *
 * compat.h gives the headers and the sentinel room: on 15, 16 bytes for
 * AllocSet and 24 for Generation (24 and 32 with MEMORY_CONTEXT_CHECKING),
 * no sentinel room; from 16, the 8-byte MemoryChunk for both (16 with
 * MEMORY_CONTEXT_CHECKING, which also makes room for a sentinel byte).
 * The first GenMaterial store of a backend checks these against the
 * allocators themselves (chunk_space_check).
 */
static inline Size
chunk_space_aset(Size size)
{
	if (size <= ALLOCSET_SEPARATE_THRESHOLD)
		return pg_nextpower2_size_t(Max(size, 8)) + COMPAT_ASET_CHUNKHDRSZ;
	return MAXALIGN(size + COMPAT_SENTINEL_BYTES) + COMPAT_ASET_CHUNKHDRSZ;
}

static inline Size
chunk_space_generation(Size size)
{
	return MAXALIGN(size + COMPAT_SENTINEL_BYTES) + COMPAT_GENERATION_CHUNKHDRSZ;
}

/*
 * Whether a Generation chunk can never be charged more than an AllocSet
 * chunk of the same size (16 and later without MEMORY_CONTEXT_CHECKING):
 * the power of two is never below MAXALIGN(size), and above 8kB both
 * charge MAXALIGN(size) plus a header of the same size.
 */
#define GENERATION_NEVER_DEARER \
	(COMPAT_GENERATION_CHUNKHDRSZ <= COMPAT_ASET_CHUNKHDRSZ && \
	 COMPAT_SENTINEL_BYTES == 0)

/*
 * chunk_space_check
 *		Do this server's allocators charge what chunk_space_aset and
 *		chunk_space_generation say?  Sizes on both sides of every boundary
 *		the formulas have, in contexts made as the node makes its own.
 */
static bool
chunk_space_check(void)
{
	static const Size sizes[] = {1, 8, 9, 100, 120, 121, 127, 128, 129, 1017,
	1024, 1025, 8185, 8192, 8193, 12256, 200000};
	MemoryContext aset = memprobe_context_create(MEMPROBE_CONTEXT_ASET,
												 CurrentMemoryContext,
												 "memprobe chunk space check", 0);
	MemoryContext gen = memprobe_context_create(MEMPROBE_CONTEXT_GENERATION,
												CurrentMemoryContext,
												"memprobe chunk space check", 0);
	bool		ok = true;

	for (int i = 0; i < lengthof(sizes); i++)
	{
		void	   *a = MemoryContextAlloc(aset, sizes[i]);
		void	   *g = MemoryContextAlloc(gen, sizes[i]);

		ok = ok && GetMemoryChunkSpace(a) == chunk_space_aset(sizes[i]) &&
			GetMemoryChunkSpace(g) == chunk_space_generation(sizes[i]);
		pfree(a);
		pfree(g);
	}
	MemoryContextDelete(aset);
	MemoryContextDelete(gen);
	return ok;
}

/*
 * formed_minimal_tuple_size
 *		The size of the MinimalTuple heap_form_minimal_tuple() makes of the
 *		slot's values (heaptuple.c, 15 to 18): the header with a null bitmap
 *		if any value is null, MAXALIGNed, then the data.
 */
static Size
formed_minimal_tuple_size(TupleTableSlot *slot)
{
	TupleDesc	desc = slot->tts_tupleDescriptor;
	Size		len = SizeofMinimalTupleHeader;

	slot_getallattrs(slot);
	for (int i = 0; i < desc->natts; i++)
	{
		if (slot->tts_isnull[i])
		{
			len += BITMAPLEN(desc->natts);
			break;
		}
	}
	return MAXALIGN(len) +
		heap_compute_data_size(desc, slot->tts_values, slot->tts_isnull);
}

/*
 * slot_minimal_tuple_size
 *		The size ExecCopySlotMinimalTuple(slot) will palloc, as execTuples.c's
 *		copy_minimal_tuple callbacks (15 to 18) make it, or 0 for a slot type
 *		not known here.
 *
 * A minimal tuple slot copies its tuple (heap_copy_minimal_tuple), a heap or
 * buffer heap tuple slot makes one of its heap tuple less the heap header's
 * first MINIMAL_TUPLE_OFFSET bytes (minimal_tuple_from_heap_tuple; the
 * stored tuple may have fewer attributes than the descriptor), and a virtual
 * slot, or one of the others holding values only, forms one of its values
 * (a heap tuple formed of them and made minimal has the same size).
 */
static Size
slot_minimal_tuple_size(TupleTableSlot *slot)
{
	if (TTS_IS_MINIMALTUPLE(slot))
	{
		MinimalTuple mtup = ((MinimalTupleTableSlot *) slot)->mintuple;

		if (mtup != NULL)
			return mtup->t_len;
	}
	else if (TTS_IS_HEAPTUPLE(slot) || TTS_IS_BUFFERTUPLE(slot))
	{
		HeapTuple	htup = ((HeapTupleTableSlot *) slot)->tuple;

		if (htup != NULL)
			return htup->t_len - MINIMAL_TUPLE_OFFSET;
	}
	else if (!TTS_IS_VIRTUAL(slot))
		return 0;
	return formed_minimal_tuple_size(slot);
}

/*
 * material_route_tuple
 *		Before a put: point the store at the context that charges least for
 *		this tuple, the Generation context unless the AllocSet would charge
 *		less for the tuple's exact size (or the size or the charges are not
 *		known here, when the AllocSet charges what core's Material would).
 *		Once the store has spilled, each tuple is written out and freed
 *		within its put and charges nothing: the context stays as it is.
 */
static void
material_route_tuple(MaterialScanState *ms, TupleTableSlot *slot)
{
	MemoryContext cxt = ms->tuple_cxt;

	if (ms->last_mem < 0)
		return;
	if (ms->store_cxt == ms->tuple_cxt)
	{
		ms->tuples_in_aset = true;
		return;
	}

	if (charge_check != CHARGE_OK)
		cxt = ms->store_cxt;
	else if (!GENERATION_NEVER_DEARER)
	{
		Size		size = slot_minimal_tuple_size(slot);

		if (size == 0 || chunk_space_generation(size) > chunk_space_aset(size))
			cxt = ms->store_cxt;
	}

	if (cxt == ms->tuple_cxt)
		ms->tuples_in_generation = true;
	else
		ms->tuples_in_aset = true;
	compat_tuplestore_set_context(ms->tuplestore, cxt);
}

/*
 * material_create_contexts
 *		The node's contexts, made once and reset with each store: with
 *		material_context = aset one AllocSet for everything; otherwise a
 *		Generation context for tuples and an AllocSet for the store and the
 *		tuples it charges less for.  The first time in a backend, check the
 *		chunk charges the choice between them rests on.
 */
static void
material_create_contexts(MaterialScanState *ms)
{
	MemoryContext parent = ms->css.ss.ps.state->es_query_cxt;

	if (ms->context_type == MATERIAL_CONTEXT_ASET)
	{
		ms->tuple_cxt = memprobe_context_create(MEMPROBE_CONTEXT_ASET, parent,
												"memprobe material tuples", 0);
		ms->store_cxt = ms->tuple_cxt;
		return;
	}

	if (charge_check == CHARGE_UNCHECKED)
	{
		charge_check = chunk_space_check() ? CHARGE_OK : CHARGE_MISMATCH;
		if (charge_check == CHARGE_MISMATCH)
			ereport(WARNING,
					(errcode(ERRCODE_WARNING),
					 errmsg("memprobe does not recognize this server's memory chunk sizes"),
					 errdetail("Material nodes keep their tuples in an AllocSet context in this session, as PostgreSQL's Material does."),
					 errhint("Rebuild memprobe against this server's headers.")));
	}

	ms->tuple_cxt = memprobe_context_create(MEMPROBE_CONTEXT_GENERATION, parent,
											"memprobe material tuples", 0);
	ms->store_cxt = memprobe_context_create(MEMPROBE_CONTEXT_ASET, parent,
											"memprobe material store", 0);
}

/*
 * material_begin_store
 *		Create the tuplestore in the node's AllocSet, so that it charges its
 *		own state as core's Material's store does; each put then copies its
 *		tuple into the context material_route_tuple picks.
 */
static Tuplestorestate *
material_begin_store(MaterialScanState *ms)
{
	MemoryContext oldcxt;
	Tuplestorestate *ts;

	if (ms->tuple_cxt == NULL)
		material_create_contexts(ms);

	oldcxt = MemoryContextSwitchTo(ms->store_cxt);
	ts = tuplestore_begin_heap(true, false, work_mem);
	tuplestore_set_eflags(ts, ms->eflags);

	/* stand in front of its writing routine (see material_writetup) */
	core_writetup = compat_tuplestore_swap_writetup(ts, material_writetup);
	Assert(core_writetup != material_writetup);

	if (ms->eflags & EXEC_FLAG_MARK)
	{
		/* read pointer 1 is the mark */
		int			ptrno PG_USED_FOR_ASSERTS_ONLY;

		ptrno = tuplestore_alloc_read_pointer(ts, ms->eflags);
		Assert(ptrno == 1);
	}
	MemoryContextSwitchTo(oldcxt);

	ms->tuplestore = ts;
	ms->stored = true;
	ms->last_mem = compat_tuplestore_mem_used(ts);
	return ts;
}

/*
 * material_update_stats
 *		Fold the tuplestore's current storage into the node's peaks, as
 *		PostgreSQL 18's tuplestore_updatemax() does: memory while in memory,
 *		the temp file's size once spilled (and "Disk" from then on).
 */
static void
material_update_stats(MaterialScanState *ms)
{
	int64		mem;

	if (ms->tuplestore == NULL)
		return;

	mem = compat_tuplestore_mem_used(ms->tuplestore);
	if (mem >= 0)
		ms->max_space = Max(ms->max_space, mem);
	else
	{
		ms->used_disk = true;
		ms->max_space = Max(ms->max_space,
							compat_tuplestore_disk_used(ms->tuplestore));
	}
	ms->peak_held = Max(ms->peak_held, material_held(ms));
}

/*
 * material_note_put
 *		After each tuple stored: keep the peaks up to date (a few field reads
 *		per tuple).
 *
 * When this tuple pushed the tuplestore over work_mem, it has already moved
 * everything to a temp file and freed the memory.  PostgreSQL 18 records the
 * memory peak just before that, with this tuple counted; we rebuild the same
 * figure from the previous tuple's figure plus this tuple's chunk space,
 * measured once by copying the tuple into the context the put used.  What
 * the contexts held just before the tuples were written out,
 * material_writetup saw; once on disk it also sees each new tuple held until
 * written.  Neither costs anything while the store is in memory.
 */
static void
material_note_put(MaterialScanState *ms, TupleTableSlot *stored)
{
	int64		mem = compat_tuplestore_mem_used(ms->tuplestore);

	if (mem > ms->max_space)
		ms->max_space = mem;
	else if (mem < 0 && ms->last_mem >= 0)
	{
		MemoryContext put_cxt = compat_tuplestore_context(ms->tuplestore);
		MemoryContext oldcxt = MemoryContextSwitchTo(put_cxt);
		MinimalTuple copy = ExecCopySlotMinimalTuple(stored);
		int64		space = GetMemoryChunkSpace(copy);

		pfree(copy);
		MemoryContextSwitchTo(oldcxt);
		ms->max_space = Max(ms->max_space, ms->last_mem + space);
	}
	ms->last_mem = mem;

	/* what the contexts held before this put wrote tuples out, if it did */
	ms->peak_held = Max(ms->peak_held, written_held);
	ms->peak_held = Max(ms->peak_held, material_held(ms));
}

/*
 * material_put
 *		Store a copy of the slot's tuple, in the context that charges least
 *		for it, and keep the node's figures.
 */
static void
material_put(MaterialScanState *ms, TupleTableSlot *slot)
{
	material_route_tuple(ms, slot);

	putting_node = ms;
	written_held = -1;
	tuplestore_puttupleslot(ms->tuplestore, slot);
	putting_node = NULL;

	material_note_put(ms, slot);
}

/*
 * material_end_store
 *		Forget the tuplestore: close its temp file, if any, and reset the
 *		context that holds everything else it allocated.
 */
static void
material_end_store(MaterialScanState *ms)
{
	if (ms->tuplestore == NULL)
		return;
	material_update_stats(ms);
	compat_tuplestore_release_file(ms->tuplestore);
	ms->tuplestore = NULL;
	MemoryContextReset(ms->tuple_cxt);
	if (ms->store_cxt != ms->tuple_cxt)
		MemoryContextReset(ms->store_cxt);
}

/*
 * material_exec
 *		As ExecMaterial: return tuples from the tuplestore, reading more from
 *		the child (and storing them) when the tuplestore runs out.
 */
static TupleTableSlot *
material_exec(CustomScanState *node)
{
	MaterialScanState *ms = (MaterialScanState *) node;
	bool		forward = ScanDirectionIsForward(node->ss.ps.state->es_direction);
	Tuplestorestate *ts = ms->tuplestore;
	bool		eof_tuplestore;
	TupleTableSlot *slot;

	CHECK_FOR_INTERRUPTS();

	/* If first time through, and we need a tuplestore, initialize it. */
	if (ts == NULL && ms->eflags != 0)
		ts = material_begin_store(ms);

	eof_tuplestore = (ts == NULL) || tuplestore_ateof(ts);

	if (!forward && eof_tuplestore)
	{
		if (!ms->eof_underlying)
		{
			/*
			 * When reversing direction at tuplestore EOF, the first
			 * gettupleslot call would fetch the last-added tuple; we want
			 * the one before it, if any, so skip one.
			 */
			if (!tuplestore_advance(ts, forward))
				return NULL;	/* the tuplestore must be empty */
		}
		eof_tuplestore = false;
	}

	/* If we can fetch another tuple from the tuplestore, return it. */
	slot = node->ss.ps.ps_ResultTupleSlot;
	if (!eof_tuplestore)
	{
		if (tuplestore_gettupleslot(ts, forward, false, slot))
			return slot;
		if (forward)
			eof_tuplestore = true;
	}

	/*
	 * If necessary, try to fetch another row from the subplan.  Forward scan
	 * only: the child does not do backward scans.
	 */
	if (eof_tuplestore && !ms->eof_underlying)
	{
		TupleTableSlot *outerslot = ExecProcNode(outerPlanState(node));

		if (TupIsNull(outerslot))
		{
			ms->eof_underlying = true;
			return NULL;
		}

		/*
		 * Append a copy of the returned tuple to the tuplestore.  Note that
		 * the tuplestore is certain to be in EOF state, so its read position
		 * moves along with the write position.
		 */
		if (ts)
			material_put(ms, outerslot);

		ExecCopySlot(slot, outerslot);
		return slot;
	}

	/* Nothing left. */
	return ExecClearTuple(slot);
}

/*
 * material_end
 *		As ExecEndMaterial, with one context delete for all stored tuples.
 */
static void
material_end(CustomScanState *node)
{
	MaterialScanState *ms = (MaterialScanState *) node;

	/* the result slot may point into the tuplestore: let go first */
	ExecClearTuple(node->ss.ps.ps_ResultTupleSlot);
	material_end_store(ms);
	if (ms->tuple_cxt != NULL)
	{
		if (ms->store_cxt != ms->tuple_cxt)
			MemoryContextDelete(ms->store_cxt);
		MemoryContextDelete(ms->tuple_cxt);
		ms->tuple_cxt = NULL;
		ms->store_cxt = NULL;
	}
	ExecEndNode(outerPlanState(node));
}

/*
 * material_mark_pos
 *		As ExecMaterialMarkPos: copy the active read pointer to the mark and
 *		let the tuplestore drop what no pointer can reach any more.
 */
static void
material_mark_pos(CustomScanState *node)
{
	MaterialScanState *ms = (MaterialScanState *) node;

	Assert(ms->eflags & EXEC_FLAG_MARK);

	/* if we haven't materialized yet, just return */
	if (!ms->tuplestore)
		return;

	tuplestore_copy_read_pointer(ms->tuplestore, 0, 1);

	/* record the peak before trimming frees anything, as PostgreSQL 18 does */
	material_update_stats(ms);
	tuplestore_trim(ms->tuplestore);
}

/*
 * material_restr_pos
 *		As ExecMaterialRestrPos: copy the mark to the active read pointer.
 */
static void
material_restr_pos(CustomScanState *node)
{
	MaterialScanState *ms = (MaterialScanState *) node;

	Assert(ms->eflags & EXEC_FLAG_MARK);

	/* if we haven't materialized yet, just return */
	if (!ms->tuplestore)
		return;

	tuplestore_copy_read_pointer(ms->tuplestore, 1, 0);
}

/*
 * material_rescan
 *		As ExecReScanMaterial.  ExecReScan has already passed our changed
 *		parameters on to the child (it is our lefttree).
 */
static void
material_rescan(CustomScanState *node)
{
	MaterialScanState *ms = (MaterialScanState *) node;
	PlanState  *outerPlan = outerPlanState(node);

	ExecClearTuple(node->ss.ps.ps_ResultTupleSlot);

	if (ms->eflags != 0)
	{
		/*
		 * If we haven't materialized yet, just return.  If the child's
		 * chgParam is set, ExecProcNode will rescan it; else it needs none.
		 */
		if (!ms->tuplestore)
			return;

		/*
		 * If the child is to be rescanned, forget the stored rows: they must
		 * be read and stored again.  Likewise if we told the tuplestore it
		 * needn't support rescan (our caller did not pass REWIND).
		 * Otherwise rewind and replay what is stored; the child's state does
		 * not change.
		 */
		if (outerPlan->chgParam != NULL ||
			(ms->eflags & EXEC_FLAG_REWIND) == 0)
		{
			material_end_store(ms);
			if (outerPlan->chgParam == NULL)
				ExecReScan(outerPlan);
			ms->eof_underlying = false;
		}
		else
			tuplestore_rescan(ms->tuplestore);
	}
	else
	{
		/* we are just passing on the child's output */
		if (outerPlan->chgParam == NULL)
			ExecReScan(outerPlan);
		ms->eof_underlying = false;
	}
}

/*
 * material_tuple_context_name
 *		Where the node's tuples went: "Generation", "AllocSet", or both when
 *		some sizes were cheaper in one and some in the other.  A node that
 *		stored nothing in memory names the context it would have used first.
 */
static const char *
material_tuple_context_name(MaterialScanState *ms)
{
	if (ms->tuples_in_generation && ms->tuples_in_aset)
		return "Generation and AllocSet";
	if (ms->tuples_in_aset || ms->context_type == MATERIAL_CONTEXT_ASET)
		return "AllocSet";
	return "Generation";
}

/*
 * material_explain
 *		EXPLAIN ANALYZE: PostgreSQL 18's storage line, and the tuple
 *		context's type and peak footprint.  Nothing if the node never built
 *		a tuplestore (as 18).
 */
static void
material_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	MaterialScanState *ms = (MaterialScanState *) node;
	const char *storage;
	const char *cxt_type;
	int64		max_kb;
	int64		held_kb;

	if (!es->analyze)
		return;

	material_update_stats(ms);
	if (!ms->stored)
		return;

	storage = ms->used_disk ? "Disk" : "Memory";
	max_kb = BYTES_TO_KILOBYTES(ms->max_space);
	held_kb = BYTES_TO_KILOBYTES(ms->peak_held);
	cxt_type = material_tuple_context_name(ms);

	if (es->format == EXPLAIN_FORMAT_TEXT)
	{
		compat_explain_indent(es);
		appendStringInfo(es->str, "Storage: %s  Maximum Storage: " INT64_FORMAT "kB\n",
						 storage, max_kb);
		compat_explain_indent(es);
		appendStringInfo(es->str, "Tuple Context: %s  Peak Memory Held: " INT64_FORMAT "kB\n",
						 cxt_type, held_kb);
	}
	else
	{
		ExplainPropertyText("Storage", storage, es);
		ExplainPropertyInteger("Maximum Storage", "kB", max_kb, es);
		ExplainPropertyText("Tuple Context", cxt_type, es);
		ExplainPropertyInteger("Peak Memory Held", "kB", held_kb, es);
	}
}

/*
 * material_exec_takes_extra_marks
 *		Would core's merge join give 'ps', its inner, extra marks were it
 *		core's Material?  Yes for memprobe's node begun without
 *		EXEC_FLAG_REWIND: ExecInitMergeJoin tests its own eflags, and its
 *		inner receives them with no more than EXEC_FLAG_MARK added.  The
 *		caller checks mj_SkipMarkRestore.
 */
bool
material_exec_takes_extra_marks(PlanState *ps)
{
	return ps != NULL && IsA(ps, CustomScanState) &&
		((CustomScanState *) ps)->methods == &material_exec_methods &&
		(((MaterialScanState *) ps)->given_eflags & EXEC_FLAG_REWIND) == 0;
}

/*
 * material_exec_node_peak
 *		If 'ps' is memprobe's Material node and built a tuplestore: the most
 *		its storage took (PostgreSQL 18's Maximum Storage, the figure EXPLAIN
 *		ANALYZE prints: tuple memory, or the temp file once spilled) and
 *		whether it spilled.  Called by statements.c at ExecutorEnd, before
 *		the node ends.
 */
bool
material_exec_node_peak(PlanState *ps, int64 *bytes, bool *spilled)
{
	MaterialScanState *ms;

	if (!IsA(ps, CustomScanState) ||
		((CustomScanState *) ps)->methods != &material_exec_methods)
		return false;
	ms = (MaterialScanState *) ps;
	material_update_stats(ms);
	if (!ms->stored)
		return false;
	*bytes = ms->max_space;
	*spilled = ms->used_disk;
	return true;
}

/*
 * material_exec_init
 *		Register the custom scan so that copied, cached and serialized plans
 *		(parallel workers) find its methods by name.
 */
void
material_exec_init(void)
{
	RegisterCustomScanMethods(&material_scan_methods);
}
