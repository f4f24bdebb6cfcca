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
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/tupmacs.h"
#include "utils/memutils.h"

#include "tuple_deform.h"

/* core's buffer slot with our init/release/getsomeattrs; set by tuple_deform_init */
TupleTableSlotOps memprobe_deform_slot_ops;

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
		d->attalign = att->attalign;
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
}

static void
deform_slot_release(TupleTableSlot *slot)
{
	DeformSlot *dslot = (DeformSlot *) slot;

	if (dslot->deform_attrs)
		pfree(dslot->deform_attrs);
	dslot->deform_attrs = NULL;
	dslot->deform_desc = NULL;
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
	char	   *tp;
	uint32		off;
	bool		slow;
	int			attnum;

	Assert(!TTS_EMPTY(slot));

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

	/* only as many columns as the tuple has */
	natts = Min(HeapTupleHeaderGetNatts(tup), natts);

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

	tp = (char *) tup + tup->t_hoff;

	for (; attnum < natts; attnum++)
	{
		const DeformAttr *att = &attrs[attnum];

		if (hasnulls && att_isnull(attnum, bp))
		{
			values[attnum] = (Datum) 0;
			isnull[attnum] = true;
			slow = true;		/* offsets after a NULL are not fixed */
			continue;
		}

		isnull[attnum] = false;

		if (!slow && att->cacheoff >= 0)
			off = att->cacheoff;
		else if (att->attlen == -1)
		{
			off = att_align_pointer(off, att->attalign, -1, tp + off);
			slow = true;
		}
		else
		{
			/* not varlena, so safe to use att_align_nominal */
			off = att_align_nominal(off, att->attalign);
		}

		values[attnum] = fetch_att(tp + off, att->attbyval, att->attlen);

		off = att_addlength_pointer(off, att->attlen, tp + off);

		if (att->attlen <= 0)
			slow = true;
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
