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
 * tuples live:
 *
 *	- the tuplestore is created while a memory context of the node's own is
 *	  current, so it keeps its tuples there (tuplestore.c copies each tuple
 *	  into the context current at tuplestore_begin_heap) and charges
 *	  work_mem with GetMemoryChunkSpace() of that context's chunks.  A
 *	  Generation context (memprobe.material_context = generation, the
 *	  default) stores each tuple at its own size where AllocSet rounds it up
 *	  to a power of two, so the same work_mem holds up to twice as many
 *	  tuples before spilling to disk;
 *	- blocks double from 8kB up to 1MB (context_types.h), so the context
 *	  holds little more than it stores;
 *	- the tuplestore and everything it allocated go with one context reset
 *	  on rescan and at the end, instead of a pfree per tuple (its temp file,
 *	  if it spilled, is closed first).
 *
 * EXPLAIN ANALYZE prints PostgreSQL 18's storage line for the node,
 * "Storage: Memory|Disk  Maximum Storage: NkB", computed as 18's
 * tuplestore_get_stats() does but as the peak over every rescan, and beside
 * it the peak bytes the tuple context held in blocks: the real footprint.
 *
 * Copyright (c) 2026, The memprobe Developers
 * Portions Copyright (c) 1996-2025, PostgreSQL Global Development Group
 * Portions Copyright (c) 1994, Regents of the University of California
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/executor.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "compat.h"
#include "tuplestore_layout.h"
#include "context_types.h"
#include "material.h"

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
	MemoryContext tuple_cxt;	/* holds the tuplestore; NULL until needed */

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
 * The tuple context a store's writing routine last saw and the most it held
 * then (see material_writetup).  Set inside a put, read right after it.
 */
static MemoryContext written_cxt = NULL;
static int64 written_held = 0;

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
 * material_writetup
 *		The writing routine of our tuplestores: note what the tuple context
 *		holds, then write the tuple out (and free it) as tuplestore.c would.
 *
 * Called only inside tuplestore_puttupleslot, for every tuple that goes to
 * the temp file: all of them at once when a put spills the store, then each
 * new one.  Just before the first write of a spill the context holds every
 * tuple stored so far, the new one and the temp file's buffer: the most it
 * ever holds, gone by the time the put returns.  material_note_put folds it
 * into the node's peak.  Nothing runs here while the store is in memory.
 */
static void
material_writetup(Tuplestorestate *state, void *tup)
{
	MemoryContext cxt = compat_tuplestore_context(state);

	if (written_cxt != cxt)
	{
		written_cxt = cxt;
		written_held = 0;
	}
	written_held = Max(written_held, (int64) cxt->mem_allocated);
	core_writetup(state, tup);
}

/*
 * material_begin_store
 *		Create the tuplestore, with the node's tuple context current so that
 *		the tuplestore keeps its tuples there.
 */
static Tuplestorestate *
material_begin_store(MaterialScanState *ms)
{
	EState	   *estate = ms->css.ss.ps.state;
	MemoryContext oldcxt;
	Tuplestorestate *ts;

	if (ms->tuple_cxt == NULL)
		ms->tuple_cxt = memprobe_context_create(ms->context_type == MATERIAL_CONTEXT_ASET ?
												MEMPROBE_CONTEXT_ASET :
												MEMPROBE_CONTEXT_GENERATION,
												estate->es_query_cxt,
												"memprobe material tuples", 0);

	oldcxt = MemoryContextSwitchTo(ms->tuple_cxt);
	ts = tuplestore_begin_heap(true, false, work_mem);
	tuplestore_set_eflags(ts, ms->eflags);

	/* stand in front of its writing routine (see material_writetup) */
	core_writetup = compat_tuplestore_swap_writetup(ts, material_writetup);
	Assert(core_writetup != material_writetup);
	/* nothing a failed put may have left concerns this store */
	written_cxt = NULL;

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
	ms->peak_held = Max(ms->peak_held, (int64) ms->tuple_cxt->mem_allocated);
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
 * measured once by copying the tuple into the tuple context.  What the
 * context held just before it wrote the tuples out, material_writetup saw;
 * once on disk it also sees each new tuple held until written.  Neither
 * costs anything while the store is in memory.
 */
static void
material_note_put(MaterialScanState *ms, TupleTableSlot *stored)
{
	int64		mem = compat_tuplestore_mem_used(ms->tuplestore);

	if (mem > ms->max_space)
		ms->max_space = mem;
	else if (mem < 0)
	{
		if (ms->last_mem >= 0)
		{
			MemoryContext oldcxt = MemoryContextSwitchTo(ms->tuple_cxt);
			MinimalTuple copy = ExecCopySlotMinimalTuple(stored);
			int64		space = GetMemoryChunkSpace(copy);

			pfree(copy);
			MemoryContextSwitchTo(oldcxt);
			ms->max_space = Max(ms->max_space, ms->last_mem + space);
		}

		/* what the context held before this put wrote its tuples out */
		if (written_cxt == ms->tuple_cxt)
		{
			ms->peak_held = Max(ms->peak_held, written_held);
			written_cxt = NULL;
		}
	}
	ms->last_mem = mem;

	if ((int64) ms->tuple_cxt->mem_allocated > ms->peak_held)
		ms->peak_held = ms->tuple_cxt->mem_allocated;
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
		{
			tuplestore_puttupleslot(ts, outerslot);
			material_note_put(ms, outerslot);
		}

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
		MemoryContextDelete(ms->tuple_cxt);
		ms->tuple_cxt = NULL;
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
	cxt_type = ms->context_type == MATERIAL_CONTEXT_ASET ? "AllocSet" : "Generation";

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
