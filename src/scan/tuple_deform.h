/*-------------------------------------------------------------------------
 *
 * tuple_deform.h
 *	  memprobe's tuple slot for heap tuples in shared buffers, and the one
 *	  function that deforms them.
 *
 * The slot is PostgreSQL's BufferHeapTupleTableSlot in every respect but
 * one: its getsomeattrs callback is memprobe_deform(), which reads a
 * compact per-column array (8 bytes per column, with the offsets of the
 * leading fixed-width columns precomputed) instead of the tuple
 * descriptor's pg_attribute rows.  Everything that deforms a StreamScan
 * tuple, whoever asks (quals, projection, parent nodes, JIT-compiled
 * expressions, which call the slot's callback for slot types they do not
 * know), goes through memprobe_deform(): a faster deformation plugs in
 * there and nowhere else.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_TUPLE_DEFORM_H
#define MEMPROBE_TUPLE_DEFORM_H

#include "postgres.h"

#include <limits.h>

#include "access/htup.h"
#include "executor/tuptable.h"
#include "access/htup_details.h"
#include "nodes/bitmapset.h"
#include "storage/bufmgr.h"

/* One column, as deformation needs it. */
typedef struct DeformAttr
{
	int32		cacheoff;		/* fixed offset in a tuple without NULLs
								 * before this column, or -1 */
	int16		attlen;
	bool		attbyval;
	uint8		alignby;		/* the alignment in bytes (1, 2, 4 or 8), as
								 * 18's CompactAttribute.attalignby */
} DeformAttr;

/* Align 'off' for a column aligned by 'alignby' bytes: no branch on the type's code. */
#define deform_align(off, alignby)	TYPEALIGN((alignby), (off))

/*
 * The same for a varlena at tp + off (att_align_pointer()): a value with a
 * 1-byte header is never aligned, and a non-zero first byte is one.
 */
static inline uint32
deform_align_varlena(uint32 off, uint8 alignby, const char *ptr)
{
	return VARATT_NOT_PAD_BYTE(ptr) ? off : deform_align(off, alignby);
}

/*
 * Deformation by need (tuple_deform_set_need): the columns the node that
 * owns the slot reads, and how to reach each without walking the columns
 * before it.  A column's offset is fixed relative to the end of the last
 * variable-width column before it (its "base"), given that end's phase
 * modulo 8 (alignments are 1, 2, 4 or 8): delta[phase].  For a
 * variable-width column that is the offset before its own alignment, which
 * depends on its header.  The work for a tuple is a list of steps in column
 * order, one per variable-width column below 'maxneed' (each locates the
 * next base) and one per needed fixed-width column.  Only valid for tuples
 * with no NULL before 'maxneed'; the others are deformed column by column.
 */
typedef enum DeformStepKind
{
	DEFORM_STEP_VARLENA,		/* variable-width (attlen -1): a base */
	DEFORM_STEP_CSTRING,		/* variable-width (attlen -2): a base */
	DEFORM_STEP_BYVAL1,			/* fixed-width by value, 1, 2, 4 or 8 bytes */
	DEFORM_STEP_BYVAL2,
	DEFORM_STEP_BYVAL4,
	DEFORM_STEP_BYVAL8,
	DEFORM_STEP_BYREF			/* fixed-width by reference */
} DeformStepKind;

typedef struct DeformStep
{
	int32		delta[8];		/* offset past the base's end, by its phase */
	int16		col;
	uint8		kind;			/* DeformStepKind: what fetch_att and
								 * att_addlength_pointer would decide from
								 * attlen and attbyval, decided once */
	bool		needed;			/* its value goes into the slot */
	uint8		alignby;
} DeformStep;

typedef struct DeformNeed
{
	int			maxneed;		/* 1 + the highest needed column */
	int			nsteps;
	DeformStep *steps;
	/* the current tuple's: the next step, and its base's end (resumed by a later call) */
	int			next_step;
	uint32		base_end;
} DeformNeed;

/* The slot: a BufferHeapTupleTableSlot and the compact column array. */
typedef struct DeformSlot
{
	BufferHeapTupleTableSlot base;
	TupleDesc	deform_desc;	/* descriptor deform_attrs was built for */
	DeformAttr *deform_attrs;	/* in the slot's memory context */
	DeformNeed *need;			/* deformation by need, or NULL: every column */
} DeformSlot;

extern PGDLLIMPORT TupleTableSlotOps memprobe_deform_slot_ops;

extern void tuple_deform_init(void);
extern DeformAttr *tuple_deform_attrs(TupleDesc desc, MemoryContext cxt);
extern void memprobe_deform(TupleTableSlot *slot, int natts);
extern void tuple_deform_set_need(TupleTableSlot *slot, Bitmapset *columns);
extern DeformStep *tuple_deform_projection_steps(TupleDesc desc,
												 const AttrNumber *attnums, int n,
												 int *nsteps, MemoryContext cxt);

/* No NULL among the first 'n' columns of a tuple with a null bitmap? */
static inline bool
no_nulls_before(const bits8 *bp, int n)
{
	int			bytes = n >> 3;

	for (int i = 0; i < bytes; i++)
		if (bp[i] != 0xFF)
			return false;
	if (n & 7)
	{
		bits8		mask = (bits8) ((1 << (n & 7)) - 1);

		if ((bp[bytes] & mask) != mask)
			return false;
	}
	return true;
}

/*
 * deform_steps
 *		Run steps s .. nsteps - 1 over the tuple data at tp, up to the first
 *		for a column at or past natts (INT_MAX: none is; a constant, so that
 *		the test goes); *endp is the current base's end.  Returns the step it
 *		stopped at.  The kinds are tested most common first (int4, then a
 *		varlena), not through a jump table.
 */
static pg_attribute_always_inline int
deform_steps(const DeformStep *steps, int s, int nsteps, int natts, char *tp,
			 Datum *values, bool *isnull, uint32 *endp)
{
	uint32		end = *endp;
	const DeformStep *st = steps + s;
	const DeformStep *stop = steps + nsteps;

	for (; st < stop; st++)
	{
		uint32		off;
		Datum		value;

		if (natts != INT_MAX && st->col >= natts)
			break;
		off = end + st->delta[end & 7];
		if (st->kind == DEFORM_STEP_BYVAL4)
			value = Int32GetDatum(*((const int32 *) (tp + off)));
		else if (st->kind == DEFORM_STEP_VARLENA)
		{
			off = deform_align_varlena(off, st->alignby, tp + off);
			end = off + VARSIZE_ANY(tp + off);
			if (!st->needed)
				continue;
			value = PointerGetDatum(tp + off);
		}
		else if (st->kind == DEFORM_STEP_BYVAL8)
			value = Int64GetDatum(*((const int64 *) (tp + off)));
		else if (st->kind == DEFORM_STEP_CSTRING)
		{
			off = deform_align(off, st->alignby);
			end = off + strlen(tp + off) + 1;
			if (!st->needed)
				continue;
			value = PointerGetDatum(tp + off);
		}
		else if (st->kind == DEFORM_STEP_BYVAL2)
			value = Int16GetDatum(*((const int16 *) (tp + off)));
		else if (st->kind == DEFORM_STEP_BYVAL1)
			value = CharGetDatum(*((const char *) (tp + off)));
		else
			value = PointerGetDatum(tp + off);
		values[st->col] = value;
		isnull[st->col] = false;
	}
	*endp = end;
	return st - steps;
}

/*
 * deform_by_need
 *		Fill the needed columns among tts_nvalid .. natts - 1 (natts no more
 *		than the tuple has), and count them all valid: the steps of the
 *		slot's need, from the first for a new tuple, else from where the
 *		previous call stopped.  The tuple has no NULL before maxneed.
 */
static pg_attribute_always_inline void
deform_by_need(DeformSlot *dslot, char *tp, int natts)
{
	TupleTableSlot *slot = &dslot->base.base.base;
	DeformNeed *need = dslot->need;
	const DeformStep *steps = need->steps;
	int			nsteps = need->nsteps;
	Datum	   *values = slot->tts_values;
	bool	   *isnull = slot->tts_isnull;
	int			from = slot->tts_nvalid;
	int			s;
	uint32		end;

#ifdef USE_ASSERT_CHECKING
	/* what no one may read: poison, so that a reader shows in tests */
	for (int col = from; col < natts; col++)
	{
		values[col] = (Datum) UINT64CONST(0x7F7F7F7F7F7F7F7F);
		isnull[col] = false;
	}
#endif

	if (from == 0)
	{
		s = 0;
		end = 0;
	}
	else
	{
		/* every step before next_step is for a column below from */
		s = need->next_step;
		end = need->base_end;
	}
	/* a call for every column the steps reach (the usual one) needs no test per step */
	if (natts >= need->maxneed)
		s = deform_steps(steps, s, nsteps, INT_MAX, tp, values, isnull, &end);
	else
		s = deform_steps(steps, s, nsteps, natts, tp, values, isnull, &end);
	need->next_step = s;
	need->base_end = end;
	slot->tts_nvalid = Max(natts, from);
}

/*
 * deform_slot_by_need
 *		memprobe_deform()'s work, inline, for the scan's own projection
 *		(streamscan_exec.c): the slot is ours, has a need, and its tuple has
 *		no NULL and at least natts columns.  False when one of those does not
 *		hold, and nothing was done: memprobe_deform() handles every case.
 */
static pg_attribute_always_inline bool
deform_slot_by_need(TupleTableSlot *slot, int natts)
{
	DeformSlot *dslot = (DeformSlot *) slot;
	HeapTuple	tuple;
	HeapTupleHeader tup;

	if (slot->tts_ops != &memprobe_deform_slot_ops || dslot->need == NULL)
		return false;
	tuple = dslot->base.base.tuple;
	tup = tuple->t_data;
	if (HeapTupleHasNulls(tuple) || HeapTupleHeaderGetNatts(tup) < natts)
		return false;
	deform_by_need(dslot, (char *) tup + tup->t_hoff, natts);
	return true;
}

/*
 * deform_slot_store
 *		Store a heap tuple that lives in a pinned buffer page, as
 *		ExecStoreBufferHeapTuple() does for core's slot type (which refuses
 *		ours).  The slot takes a pin of its own unless it already holds one
 *		on the same buffer, so a scan moving along a page pays nothing per
 *		tuple.  'tuple' must stay valid while the slot holds it (it is the
 *		scan's own HeapTupleData, as in heapam).
 */
static inline void
deform_slot_store(TupleTableSlot *slot, HeapTuple tuple, Buffer buffer)
{
	BufferHeapTupleTableSlot *bslot = (BufferHeapTupleTableSlot *) slot;

	Assert(slot->tts_ops == &memprobe_deform_slot_ops);

	if (TTS_SHOULDFREE(slot))
	{
		/* a materialized slot holds no buffer pin */
		Assert(!BufferIsValid(bslot->buffer));
		heap_freetuple(bslot->base.tuple);
		slot->tts_flags &= ~TTS_FLAG_SHOULDFREE;
	}

	slot->tts_flags &= ~TTS_FLAG_EMPTY;
	slot->tts_nvalid = 0;
	bslot->base.tuple = tuple;
	bslot->base.off = 0;
	slot->tts_tid = tuple->t_self;
	slot->tts_tableOid = tuple->t_tableOid;

	if (bslot->buffer != buffer)
	{
		if (BufferIsValid(bslot->buffer))
			ReleaseBuffer(bslot->buffer);
		bslot->buffer = buffer;
		IncrBufferRefCount(buffer);
	}
}

#endif							/* MEMPROBE_TUPLE_DEFORM_H */
