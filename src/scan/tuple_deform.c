/*-------------------------------------------------------------------------
 *
 * tuple_deform.c
 *	  memprobe_deform(): heap tuple deformation for StreamScan's slot, from a
 *	  compact column array.
 *
 * The result is exactly core's slot_deform_heap_tuple() (execTuples.c):
 * the same values, NULL flags, saved offset and "slow" state, so a slot can
 * be deformed a few columns at a time.  What differs is where the column
 * facts come from.  Core reads each column's length, alignment and cached
 * offset from its pg_attribute row in the tuple descriptor (over 100 bytes
 * apart, and it writes attcacheoff back while deforming); memprobe reads an
 * 8-byte DeformAttr, built once when the slot is made, with the offsets of
 * the leading fixed-width columns computed up front.  This is the layout
 * PostgreSQL 18 adopted (CompactAttribute); it is the place where the next
 * step (deforming with fewer branches per column) goes.
 *
 * Copyright (c) 2026, The memprobe Developers
 * Portions Copyright (c) 1996-2025, PostgreSQL Global Development Group
 * Portions Copyright (c) 1994, Regents of the University of California
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/tupmacs.h"
#include "utils/memutils.h"

#include "scan/tuple_deform.h"

/* core's buffer slot with our init/release/getsomeattrs; set by tuple_deform_init */
TupleTableSlotOps memprobe_deform_slot_ops;

/* The alignment in bytes of a pg_attribute.attalign code. */
static inline uint8
alignby_of(char attalign)
{
	return attalign == TYPALIGN_DOUBLE ? ALIGNOF_DOUBLE :
		attalign == TYPALIGN_INT ? ALIGNOF_INT :
		attalign == TYPALIGN_SHORT ? ALIGNOF_SHORT : 1;
}

/*
 * tuple_deform_attrs
 *		The compact column array for a descriptor, in context 'cxt'.
 *		cacheoff as core's attcacheoff would settle: known for each column up
 *		to and including the first variable-width one, provided no column
 *		before it is NULL (memprobe_deform checks that per tuple; so does
 *		page_quals.c, which reads its offsets from here too).
 */
DeformAttr *
tuple_deform_attrs(TupleDesc desc, MemoryContext cxt)
{
	DeformAttr *attrs;
	int32		off = 0;
	bool		known = true;

	attrs = MemoryContextAlloc(cxt, sizeof(DeformAttr) * Max(desc->natts, 1));
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		DeformAttr *d = &attrs[i];

		d->attlen = att->attlen;
		d->attbyval = att->attbyval;
		d->alignby = alignby_of(att->attalign);
		d->cacheoff = -1;

		if (!known)
			continue;
		if (att->attlen > 0)
		{
			off = att_align_nominal(off, att->attalign);
			d->cacheoff = off;
			off += att->attlen;
		}
		else
		{
			/*
			 * A varlena's offset can only be cached where it is already
			 * aligned: then there is no padding whether the value turns out
			 * to be short-header (unaligned) or not.  Nothing after it has a
			 * fixed offset.
			 */
			if (att->attlen == -1 && off == att_align_nominal(off, att->attalign))
				d->cacheoff = off;
			known = false;
		}
	}
	return attrs;
}

static void
deform_slot_init(TupleTableSlot *slot)
{
	DeformSlot *dslot = (DeformSlot *) slot;

	dslot->deform_desc = NULL;
	dslot->deform_attrs = NULL;
	dslot->need = NULL;
}

static void
free_need(DeformNeed *need)
{
	pfree(need->steps);
	pfree(need);
}

static void
deform_slot_release(TupleTableSlot *slot)
{
	DeformSlot *dslot = (DeformSlot *) slot;

	if (dslot->deform_attrs)
		pfree(dslot->deform_attrs);
	dslot->deform_attrs = NULL;
	dslot->deform_desc = NULL;
	if (dslot->need)
		free_need(dslot->need);
	dslot->need = NULL;
}

/* What deforming a column takes, as fetch_att() and att_addlength_pointer() decide it. */
static DeformStepKind
step_kind(Form_pg_attribute att)
{
	if (att->attlen == -1)
		return DEFORM_STEP_VARLENA;
	if (att->attlen == -2)
		return DEFORM_STEP_CSTRING;
	if (!att->attbyval)
		return DEFORM_STEP_BYREF;
	/* literal lengths: where Datum is 4 bytes, sizeof(Datum) would repeat sizeof(int32) */
	if (att->attlen == 1)
		return DEFORM_STEP_BYVAL1;
	if (att->attlen == 2)
		return DEFORM_STEP_BYVAL2;
	if (att->attlen == 4)
		return DEFORM_STEP_BYVAL4;
	if (att->attlen == 8 && SIZEOF_DATUM == 8)
		return DEFORM_STEP_BYVAL8;
	elog(ERROR, "unsupported byval length: %d", (int) att->attlen);
	return DEFORM_STEP_BYREF;	/* keep compiler quiet */
}

/*
 * build_need
 *		The steps that deform 'columns' (0-based, not empty) of tuples of
 *		'desc', in cxt.
 */
static DeformNeed *
build_need(TupleDesc desc, Bitmapset *columns, MemoryContext cxt)
{
	DeformNeed *need;
	int			base = -1;

	need = MemoryContextAllocZero(cxt, sizeof(DeformNeed));
	need->maxneed = Min(bms_prev_member(columns, -1) + 1, desc->natts);
	need->steps = MemoryContextAlloc(cxt, sizeof(DeformStep) * Max(need->maxneed, 1));
	for (int col = 0; col < need->maxneed; col++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, col);
		bool		needed = bms_is_member(col, columns);
		DeformStep *st;

		if (att->attlen > 0 && !needed)
			continue;			/* reached by offset from its base */
		st = &need->steps[need->nsteps++];
		st->col = col;
		st->kind = step_kind(att);
		st->needed = needed;
		st->alignby = alignby_of(att->attalign);

		/* the offset past the base's end, for each phase of that end */
		for (int phase = 0; phase < 8; phase++)
		{
			int32		off = phase;

			if (base < 0 && phase > 0)
			{
				st->delta[phase] = 0;	/* no base: the end is 0 */
				continue;
			}
			for (int between = base + 1; between < col; between++)
			{
				Form_pg_attribute b = TupleDescAttr(desc, between);

				off = att_align_nominal(off, b->attalign) + b->attlen;
			}
			if (att->attlen > 0)
				off = att_align_nominal(off, att->attalign);
			st->delta[phase] = off - phase;
		}
		if (att->attlen <= 0)
			base = col;
	}
	return need;
}

/*
 * tuple_deform_set_need
 *		From now on fill only 'columns' (0-based column numbers) of the
 *		slot's tuples: the columns the node's quals and projection read.  The
 *		others are left unset although tts_nvalid counts them, so the caller
 *		must own every reader of the slot: a scan whose projection makes the
 *		tuples it returns, whose quals and projection read no whole row, and
 *		no one else reading its scan slot.  NULL: every column again.  Where
 *		it would skip (almost) nothing, the slot goes on deforming every
 *		column.
 */
void
tuple_deform_set_need(TupleTableSlot *slot, Bitmapset *columns)
{
	DeformSlot *dslot = (DeformSlot *) slot;
	DeformNeed *need;

	Assert(slot->tts_ops == &memprobe_deform_slot_ops);
	if (dslot->need)
		free_need(dslot->need);
	dslot->need = NULL;
	if (columns == NULL)
		return;

	need = build_need(slot->tts_tupleDescriptor, columns, slot->tts_mcxt);

	/*
	 * Worth it wherever it skips a column, that is unless there is a step
	 * for every column below maxneed: a step costs about what the walk
	 * spends on a column (bench/callgrind --deform, bench/RESULTS.md,
	 * "Deformation by steps").
	 */
	if (need->maxneed <= need->nsteps)
	{
		free_need(need);
		return;
	}
	dslot->need = need;
}

/*
 * tuple_deform_projection_steps
 *		Steps that put the value of column attnums[i] (1-based, user columns
 *		of 'desc') of a tuple into position i of a slot's arrays, for a
 *		projection that copies columns: the scan's tuple is then deformed
 *		straight into the projection's result slot (deform_steps() with
 *		natts INT_MAX, valid for tuples with no NULL and at least as many
 *		columns as the highest of attnums).  Unlike a slot's need, worth it
 *		even where no column is skipped: it saves the scan slot's values and
 *		the copy.  NULL when a column is named twice (one step cannot fill
 *		both places).  Allocated in 'cxt'; *nsteps gets their number.
 */
DeformStep *
tuple_deform_projection_steps(TupleDesc desc, const AttrNumber *attnums, int n,
							  int *nsteps, MemoryContext cxt)
{
	Bitmapset  *columns = NULL;
	DeformNeed *need;
	DeformStep *steps;

	Assert(n >= 1);
	for (int j = 0; j < n; j++)
	{
		Assert(attnums[j] >= 1 && attnums[j] <= desc->natts);
		if (bms_is_member(attnums[j] - 1, columns))
		{
			bms_free(columns);
			return NULL;
		}
		columns = bms_add_member(columns, attnums[j] - 1);
	}
	need = build_need(desc, columns, cxt);
	bms_free(columns);

	/*
	 * A needed step's col becomes its place in the result.  The others keep
	 * their column: deform_steps() reads col only to stop below natts, which
	 * these steps are never run with.
	 */
	steps = need->steps;
	for (int i = 0; i < need->nsteps; i++)
	{
		if (!steps[i].needed)
			continue;
		for (int j = 0; j < n; j++)
		{
			if (attnums[j] == steps[i].col + 1)
			{
				steps[i].col = j;
				break;
			}
		}
	}
	*nsteps = need->nsteps;
	pfree(need);
	return steps;
}

/*
 * deform_walk
 *		Columns attnum .. natts - 1, one after the other, from offset *offp.
 *		'slow' (offsets no longer fixed) and 'hasnulls' are constants at
 *		every call, so the compiler drops the checks a copy does not need.
 *		While offsets are fixed it stops after the column that ends them (a
 *		NULL or a variable-width one), setting *slowp; returns the next
 *		column to deform.
 */
static pg_attribute_always_inline int
deform_walk(const DeformAttr *attrs, Datum *values, bool *isnull, char *tp,
			bits8 *bp, int attnum, int natts, bool slow, bool hasnulls,
			uint32 *offp, bool *slowp)
{
	uint32		off = *offp;

	for (; attnum < natts; attnum++)
	{
		const DeformAttr *att = &attrs[attnum];

		if (hasnulls && att_isnull(attnum, bp))
		{
			values[attnum] = (Datum) 0;
			isnull[attnum] = true;
			if (!slow)
			{
				/* offsets after a NULL are not fixed */
				*slowp = true;
				*offp = off;
				return attnum + 1;
			}
			continue;
		}

		isnull[attnum] = false;

		if (!slow && att->cacheoff >= 0)
			off = att->cacheoff;
		else if (att->attlen == -1)
			off = deform_align_varlena(off, att->alignby, tp + off);
		else
			off = deform_align(off, att->alignby);	/* not varlena: nominal */

		values[attnum] = fetch_att(tp + off, att->attbyval, att->attlen);

		off = att_addlength_pointer(off, att->attlen, tp + off);

		if (!slow && att->attlen <= 0)
		{
			*slowp = true;
			*offp = off;
			return attnum + 1;
		}
	}
	*offp = off;
	return natts;
}

/*
 * memprobe_deform
 *		The slot's getsomeattrs callback: extract columns tts_nvalid ..
 *		natts - 1 of the slot's heap tuple into tts_values/tts_isnull.
 *		Columns the tuple does not have (added later with a default) are
 *		left to slot_getsomeattrs_int(), which fills them from the
 *		descriptor's missing values, as for core's slots.
 */
void
memprobe_deform(TupleTableSlot *slot, int natts)
{
	DeformSlot *dslot = (DeformSlot *) slot;
	HeapTuple	tuple = dslot->base.base.tuple;
	HeapTupleHeader tup = tuple->t_data;
	Datum	   *values = slot->tts_values;
	bool	   *isnull = slot->tts_isnull;
	bool		hasnulls = HeapTupleHasNulls(tuple);
	bits8	   *bp = tup->t_bits;
	const DeformAttr *attrs;
	char	   *tp = (char *) tup + tup->t_hoff;
	uint32		off;
	bool		slow;
	int			attnum;

	Assert(!TTS_EMPTY(slot));

	/* only as many columns as the tuple has */
	natts = Min(HeapTupleHeaderGetNatts(tup), natts);

	/*
	 * By need: when no column up to the last needed one is NULL (then every
	 * call for this tuple takes this way, and a later call resumes from the
	 * step the previous one stopped at).
	 */
	if (dslot->need != NULL &&
		(!hasnulls ||
		 no_nulls_before(bp, Min(dslot->need->maxneed, HeapTupleHeaderGetNatts(tup)))))
	{
		deform_by_need(dslot, tp, natts);
		return;
	}

	if (unlikely(dslot->deform_desc != slot->tts_tupleDescriptor))
	{
		/* first use, or the slot was given another descriptor */
		if (dslot->deform_attrs)
			pfree(dslot->deform_attrs);
		dslot->deform_attrs = tuple_deform_attrs(slot->tts_tupleDescriptor,
												 slot->tts_mcxt);
		dslot->deform_desc = slot->tts_tupleDescriptor;
	}
	attrs = dslot->deform_attrs;

	attnum = slot->tts_nvalid;
	if (attnum == 0)
	{
		off = 0;
		slow = false;
	}
	else
	{
		/* resume where the previous call stopped */
		off = dslot->base.base.off;
		slow = TTS_SLOW(slot);
	}

	/*
	 * As PostgreSQL 18's slot_deform_heap_tuple(): the walk is specialised
	 * for each combination of "offsets still fixed" and "tuple has NULLs",
	 * so that each copy carries only the checks it needs (a tuple without
	 * NULLs tests no bitmap; past the fixed offsets nothing tests them).
	 */
	if (!slow)
	{
		if (!hasnulls)
			attnum = deform_walk(attrs, values, isnull, tp, bp, attnum, natts,
								 false, false, &off, &slow);
		else
			attnum = deform_walk(attrs, values, isnull, tp, bp, attnum, natts,
								 false, true, &off, &slow);
	}
	if (attnum < natts)
	{
		if (!hasnulls)
			attnum = deform_walk(attrs, values, isnull, tp, bp, attnum, natts,
								 true, false, &off, &slow);
		else
			attnum = deform_walk(attrs, values, isnull, tp, bp, attnum, natts,
								 true, true, &off, &slow);
	}

	slot->tts_nvalid = attnum;
	dslot->base.base.off = off;
	if (slow)
		slot->tts_flags |= TTS_FLAG_SLOW;
	else
		slot->tts_flags &= ~TTS_FLAG_SLOW;
}

/*
 * tuple_deform_init
 *		Build the slot ops: core's buffer-heap-tuple callbacks (they only
 *		touch the BufferHeapTupleTableSlot our slot begins with), our size,
 *		our init/release for the column array, our deformation.
 */
void
tuple_deform_init(void)
{
	memprobe_deform_slot_ops = TTSOpsBufferHeapTuple;
	memprobe_deform_slot_ops.base_slot_size = sizeof(DeformSlot);
	memprobe_deform_slot_ops.init = deform_slot_init;
	memprobe_deform_slot_ops.release = deform_slot_release;
	memprobe_deform_slot_ops.getsomeattrs = memprobe_deform;
}
