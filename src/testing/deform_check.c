/*-------------------------------------------------------------------------
 *
 * deform_check.c
 *	  Test builds only: memprobe_test_deform(seed, ntuples), a randomized
 *	  differential test of memprobe_deform() against core's deformation.
 *
 * Compiled only into test builds (make MEMPROBE_INJECTION_POINTS=1, as
 * scripts/test builds), and declared in SQL by its regression test
 * (sql/deform_random.sql), never by the extension's install script.
 *
 * From its seed it builds random tuple descriptors (1 to 40 columns of
 * every length and alignment: by-value, fixed-length by-reference of real
 * and of odd sizes, varlena values with 1-byte, 4-byte, compressed-inline
 * and on-disk TOAST pointer headers, cstring, dropped columns, columns
 * added after the first tuples were written, with and without a missing
 * value) and forms tuples from random values and NULLs with
 * heap_form_tuple().  Each tuple is deformed by core (a heap slot:
 * slot_deform_heap_tuple() and slot_getmissingattrs(); and
 * heap_deform_tuple() when the tuple has every column) and by
 * memprobe_deform() in memprobe's slot: one column at a time, all columns
 * at once, in random steps (each call resumes where the last stopped), and
 * as one random prefix.  Columns the tuple stores must come out bitwise equal, pointers
 * included (both deform the same copy of the tuple); missing values equal
 * by datumIsEqual().  The first difference is an error naming the seed and
 * the tuple; the same arguments reproduce it.
 *
 * memprobe's slot is given each tuple with ExecCopySlot() from a heap slot:
 * the buffer slot callbacks it inherits copy the tuple into the slot's
 * memory (a materialized slot, no buffer), as StreamScan's EvalPlanQual
 * path does (streamscan_exec.c).  memprobe_deform() reads that copy as it
 * reads a tuple in a buffer page.
 *
 * Copyright (c) 2026, The memprobe Developers
 * Portions Copyright (c) 1996-2025, PostgreSQL Global Development Group
 * Portions Copyright (c) 1994, Regents of the University of California
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/toast_compression.h"
#include "access/tupdesc_details.h"
#include "catalog/pg_type_d.h"
#include "common/pg_prng.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/memutils.h"

#include "shared/compat.h"
#include "scan/tuple_deform.h"

PG_FUNCTION_INFO_V1(memprobe_test_deform);

#define MAX_COLUMNS		40
#define MAX_WIDTHS		4		/* column counts the tuples of one descriptor have */
#define MAX_STEPS		4		/* slot_getsomeattrs() calls of a stepwise check */
#define MAX_CASE_TUPLES 200		/* tuples per descriptor, at most */

/* built-in types taken as they are: every fixed length and alignment */
static const Oid fixed_types[] = {
	BOOLOID, CHAROID, INT2OID, INT4OID, INT8OID, FLOAT4OID, FLOAT8OID,
	OIDOID, XIDOID, XID8OID, MONEYOID, PG_LSNOID, DATEOID, TIMEOID,
	TIMESTAMPTZOID, NAMEOID, UUIDOID, MACADDROID, MACADDR8OID, TIDOID,
	TIMETZOID, INTERVALOID, POINTOID, CIRCLEOID, BOXOID
};

/* varlena types (int4 alignment, but float8[] double) */
static const Oid varlena_types[] = {
	TEXTOID, BYTEAOID, NUMERICOID, INETOID, FLOAT8ARRAYOID
};

static const char alignments[] = {
	TYPALIGN_CHAR, TYPALIGN_SHORT, TYPALIGN_INT, TYPALIGN_DOUBLE
};

/* One descriptor and the shorter ones its older tuples were formed with. */
typedef struct DeformCase
{
	TupleDesc	desc;			/* the table's: all columns, missing values */
	int			nwidths;
	int			widths[MAX_WIDTHS]; /* ascending; the last is desc->natts */
	TupleDesc	formdescs[MAX_WIDTHS];	/* the first widths[i] columns */
} DeformCase;

/* One check of one tuple: which slot_getsomeattrs() calls memprobe's slot got. */
typedef struct DeformCheck
{
	const char *name;			/* "all columns", "steps", ... */
	int			nsteps;
	int			steps[MAX_STEPS];
} DeformCheck;

/* The run: its arguments, generator, contexts and where it is. */
typedef struct DeformRun
{
	int64		seed;
	int32		ntuples;
	pg_prng_state rng;
	MemoryContext casecxt;		/* one descriptor, its slots and values */
	MemoryContext tuplecxt;		/* one tuple and its values */
	int64		tupno;			/* tuples formed before the current one */
	int64		checks;			/* deformations compared */
	Datum		values[MAX_COLUMNS];
	bool		isnull[MAX_COLUMNS];
} DeformRun;

/* lo .. hi inclusive */
static int
rand_int(DeformRun *run, int lo, int hi)
{
	return lo + (int) pg_prng_uint64_range(&run->rng, 0, (uint64) (hi - lo));
}

static bool
rand_chance(DeformRun *run, double p)
{
	return pg_prng_double(&run->rng) < p;
}

static void
rand_bytes(DeformRun *run, char *dst, int len)
{
	while (len > 0)
	{
		uint64		r = pg_prng_uint64(&run->rng);
		int			n = Min(len, (int) sizeof(r));

		memcpy(dst, &r, n);
		dst += n;
		len -= n;
	}
}

/*
 * random_varlena_length
 *		Data bytes of a varlena value: mostly small, often near the 126 bytes
 *		a 1-byte header can hold, sometimes up to a few kB.
 */
static int
random_varlena_length(DeformRun *run)
{
	int			r = rand_int(run, 0, 99);

	if (r < 40)
		return rand_int(run, 0, 20);
	if (r < 70)
		return rand_int(run, 110, 140);
	if (r < 93)
		return rand_int(run, 0, 600);
	return rand_int(run, 600, 3000);
}

/*
 * random_varlena
 *		A varlena value in one of the forms a tuple can hold: plain (a 4-byte
 *		header heap_form_tuple shortens when the column is packable and the
 *		value small), already short (as a value taken from another tuple),
 *		compressed inline (kept with its 4-byte header), or an on-disk TOAST
 *		pointer (copied as is; deformation must never follow it).
 */
static Datum
random_varlena(DeformRun *run)
{
	int			r = rand_int(run, 0, 99);
	int			len = random_varlena_length(run);
	char	   *p;

	if (r < 10)
	{
		varatt_external ext;

		ext.va_rawsize = len + 100000 + VARHDRSZ;
		VARATT_EXTERNAL_SET_SIZE_AND_COMPRESS_METHOD(ext, len + 100000,
													 TOAST_PGLZ_COMPRESSION_ID);
		ext.va_valueid = (Oid) pg_prng_uint32(&run->rng);
		ext.va_toastrelid = (Oid) pg_prng_uint32(&run->rng);
		p = palloc(VARHDRSZ_EXTERNAL + sizeof(ext));
		SET_VARTAG_EXTERNAL(p, VARTAG_ONDISK);
		memcpy(VARDATA_EXTERNAL(p), &ext, sizeof(ext));
	}
	else if (r < 20)
	{
		p = palloc(VARHDRSZ_COMPRESSED + len);
		SET_VARSIZE_COMPRESSED(p, VARHDRSZ_COMPRESSED + len);
		rand_bytes(run, p + VARHDRSZ, VARHDRSZ_COMPRESSED - VARHDRSZ + len);
	}
	else if (r < 30 && len <= VARATT_SHORT_MAX - VARHDRSZ_SHORT)
	{
		p = palloc(VARHDRSZ_SHORT + len);
		SET_VARSIZE_SHORT(p, VARHDRSZ_SHORT + len);
		rand_bytes(run, p + VARHDRSZ_SHORT, len);
	}
	else
	{
		p = palloc(VARHDRSZ + len);
		SET_VARSIZE(p, VARHDRSZ + len);
		rand_bytes(run, p + VARHDRSZ, len);
	}
	return PointerGetDatum(p);
}

/*
 * random_value
 *		A random value for a column, in CurrentMemoryContext.  By-value
 *		values are what fetch_att() gives for their bytes.
 */
static Datum
random_value(DeformRun *run, Form_pg_attribute att)
{
	if (att->attbyval)
	{
		Datum		bytes;

		rand_bytes(run, (char *) &bytes, sizeof(bytes));
		/* as fetch_att(&bytes, true, attlen), spelt out (clang warns on its by-reference arm) */
		switch (att->attlen)
		{
			case 1:
				return CharGetDatum(*(char *) &bytes);
			case 2:
				return Int16GetDatum(*(int16 *) &bytes);
			case 4:
				return Int32GetDatum(*(int32 *) &bytes);
			default:
				Assert(att->attlen == 8);
				return bytes;
		}
	}
	if (att->attlen > 0)
	{
		char	   *p = palloc(att->attlen);

		rand_bytes(run, p, att->attlen);
		return PointerGetDatum(p);
	}
	if (att->attlen == -2)
	{
		int			len = rand_int(run, 0, 200);
		char	   *s = palloc(len + 1);

		for (int i = 0; i < len; i++)
			s[i] = 'a' + rand_int(run, 0, 25);
		s[len] = '\0';
		return CStringGetDatum(s);
	}
	return random_varlena(run);
}

/*
 * random_column
 *		Column i of desc: a built-in fixed-length type, a varlena type (maybe
 *		with another alignment, as a user type can have, or plain storage,
 *		which keeps even small values' 4-byte headers), cstring, or a
 *		fixed-length by-reference column of any length and alignment (as
 *		CREATE TYPE ... INTERNALLENGTH = n allows); perhaps dropped.
 */
static void
random_column(DeformRun *run, TupleDesc desc, int i)
{
	int			r = rand_int(run, 0, 99);
	Form_pg_attribute att;

	if (r < 45)
		TupleDescInitEntry(desc, i + 1, NULL,
						   fixed_types[rand_int(run, 0, lengthof(fixed_types) - 1)],
						   -1, 0);
	else if (r < 82)
		TupleDescInitEntry(desc, i + 1, NULL,
						   varlena_types[rand_int(run, 0, lengthof(varlena_types) - 1)],
						   -1, 0);
	else if (r < 87)
		TupleDescInitEntry(desc, i + 1, NULL, CSTRINGOID, -1, 0);
	else
		TupleDescInitEntry(desc, i + 1, NULL, BYTEAOID, -1, 0);

	att = TupleDescAttr(desc, i);
	if (r >= 87)
	{
		att->attlen = rand_int(run, 1, 40);
		att->attbyval = false;
		att->attalign = alignments[rand_int(run, 0, lengthof(alignments) - 1)];
		att->attstorage = TYPSTORAGE_PLAIN;
	}
	else if (att->attlen == -1)
	{
		if (rand_chance(run, 0.3))
			att->attalign = alignments[rand_int(run, 0, lengthof(alignments) - 1)];
		if (rand_chance(run, 0.25))
			att->attstorage = TYPSTORAGE_PLAIN;
	}
	if (rand_chance(run, 0.08))
	{
		/* as RemoveAttributeById leaves it; its value is always NULL */
		att->attisdropped = true;
		att->atttypid = InvalidOid;
	}
	compat_tupledesc_attr_changed(desc, i);
}

/*
 * random_widths
 *		How many columns the descriptor's tuples have: all of them, or (as
 *		after ALTER TABLE ... ADD COLUMN) some tuples fewer: up to three
 *		shorter widths, from 0 columns on.
 */
static void
random_widths(DeformRun *run, DeformCase *dc)
{
	int			natts = dc->desc->natts;
	int			nshort = rand_chance(run, 0.35) ? rand_int(run, 1, MAX_WIDTHS - 1) : 0;

	dc->nwidths = 0;
	for (int i = 0; i < nshort; i++)
	{
		int			w = rand_int(run, 0, natts - 1);
		int			j = dc->nwidths;

		/* insert in order, once */
		while (j > 0 && dc->widths[j - 1] > w)
			j--;
		if (j > 0 && dc->widths[j - 1] == w)
			continue;
		memmove(&dc->widths[j + 1], &dc->widths[j],
				(dc->nwidths - j) * sizeof(int));
		dc->widths[j] = w;
		dc->nwidths++;
	}
	dc->widths[dc->nwidths++] = natts;
}

/*
 * random_missing
 *		The values of the columns added after the narrowest tuples were
 *		formed, as ALTER TABLE ... ADD COLUMN ... DEFAULT keeps them
 *		(TupleConstr->missing, atthasmissing): some have one, others are NULL
 *		for tuples without them.  Sometimes there is no missing array at all.
 */
static void
random_missing(DeformRun *run, DeformCase *dc)
{
	TupleDesc	desc = dc->desc;
	AttrMissing *missing;

	if (dc->nwidths == 1 || rand_chance(run, 0.15))
		return;

	desc->constr = palloc0(sizeof(TupleConstr));
	if (rand_chance(run, 0.15))
		return;

	missing = palloc0(sizeof(AttrMissing) * desc->natts);
	for (int i = dc->widths[0]; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		/* a cstring column never has one (getmissingattr() refuses it) */
		if (att->attisdropped || att->attlen == -2 || rand_chance(run, 0.4))
			continue;
		missing[i].am_present = true;
		missing[i].am_value = random_value(run, att);
		att->atthasmissing = true;
		compat_tupledesc_attr_changed(desc, i);
	}
	desc->constr->missing = missing;
}

/*
 * random_case
 *		A random descriptor, the widths of its tuples, and a descriptor of
 *		each width to form them with, in CurrentMemoryContext.
 */
static void
random_case(DeformRun *run, DeformCase *dc)
{
	int			natts = rand_chance(run, 0.2) ? rand_int(run, 1, 4) :
		rand_int(run, 1, MAX_COLUMNS);

	dc->desc = CreateTemplateTupleDesc(natts);
	for (int i = 0; i < natts; i++)
		random_column(run, dc->desc, i);
	random_widths(run, dc);
	random_missing(run, dc);

	for (int w = 0; w < dc->nwidths; w++)
	{
		TupleDesc	form = CreateTemplateTupleDesc(dc->widths[w]);

		for (int i = 0; i < dc->widths[w]; i++)
		{
			/* TupleDescCopyEntry() keeps what heap_form_tuple() reads */
			TupleDescCopyEntry(form, i + 1, dc->desc, i + 1);
		}
		dc->formdescs[w] = form;
	}
}

/*
 * random_tuple
 *		A tuple of the case, of one of its widths, with random NULLs: none,
 *		all, or each column NULL with some probability (dropped columns
 *		always).
 */
static HeapTuple
random_tuple(DeformRun *run, const DeformCase *dc)
{
	TupleDesc	form = dc->formdescs[rand_int(run, 0, dc->nwidths - 1)];
	int			mode = rand_int(run, 0, 99);
	double		pnull;

	if (mode < 15)
		pnull = 0.0;
	else if (mode < 20)
		pnull = 1.0;
	else
	{
		static const double pnulls[] = {0.05, 0.2, 0.5, 0.8};

		pnull = pnulls[rand_int(run, 0, lengthof(pnulls) - 1)];
	}

	for (int i = 0; i < form->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(form, i);

		run->isnull[i] = att->attisdropped || rand_chance(run, pnull);
		run->values[i] = run->isnull[i] ? (Datum) 0 : random_value(run, att);
	}
	return heap_form_tuple(form, run->values, run->isnull);
}

/*
 * describe_value
 *		A value for an error message: a by-value datum in hex, a pointer as
 *		its offset in the tuple's data and its first bytes (read only inside
 *		the tuple).
 */
static char *
describe_value(Datum value, bool isnull, Form_pg_attribute att, HeapTuple tuple)
{
	char	   *p = DatumGetPointer(value);
	char	   *start = (char *) tuple->t_data;
	char	   *end = start + tuple->t_len;
	StringInfoData buf;

	if (isnull)
		return "NULL";
	if (att->attbyval)
		return psprintf("datum 0x%016llx", (unsigned long long) value);
	if (p < start || p >= end)
		return psprintf("pointer %p, outside the tuple", p);

	initStringInfo(&buf);
	appendStringInfo(&buf, "data offset %d:",
					 (int) (p - (start + tuple->t_data->t_hoff)));
	for (int i = 0; i < 16 && p + i < end; i++)
		appendStringInfo(&buf, " %02x", (unsigned char) p[i]);
	return buf.data;
}

/* A column's type for an error message. */
static const char *
describe_type(Form_pg_attribute att)
{
	if (att->attisdropped)
		return "dropped";
	if (att->attlen > 0 && !att->attbyval && att->atttypid == BYTEAOID)
		return "fixed-length by-reference";
	return format_type_be(att->atttypid);
}

/* The descriptor in short: attlen and attalign per column, then flags. */
static char *
describe_layout(TupleDesc desc)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		appendStringInfo(&buf, "%s%d%c%s%s%s%s", i > 0 ? " " : "",
						 att->attlen, att->attalign,
						 att->attbyval ? "v" : "",
						 att->attlen == -1 && att->attstorage == TYPSTORAGE_PLAIN ? "p" : "",
						 att->attisdropped ? "x" : "",
						 att->atthasmissing ? "m" : "");
	}
	return buf.data;
}

/* "all columns", "steps 3, 17, 40", "prefix 5" */
static char *
describe_check(const DeformCheck *check)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfoString(&buf, check->name);
	for (int i = 0; i < check->nsteps; i++)
		appendStringInfo(&buf, "%s%d", i > 0 ? ", " : " ", check->steps[i]);
	return buf.data;
}

/*
 * report_mismatch
 *		The error for column col (0-based) of the tuple in mslot, whose
 *		deformation by memprobe (mslot) and core (cslot) differ.
 */
static void
report_mismatch(const DeformRun *run, const DeformCheck *check,
				TupleTableSlot *mslot, TupleTableSlot *cslot, int col)
{
	TupleDesc	desc = mslot->tts_tupleDescriptor;
	Form_pg_attribute att = TupleDescAttr(desc, col);
	HeapTuple	tuple = ((DeformSlot *) mslot)->base.base.tuple;

	ereport(ERROR,
			(errcode(ERRCODE_INTERNAL_ERROR),
			 errmsg("memprobe_deform differs from core at column %d of tuple " INT64_FORMAT " (seed " INT64_FORMAT ")",
					col + 1, run->tupno, run->seed),
			 errdetail("Check \"%s\".  Column %d: %s, attlen %d, attalign '%c', attbyval %s, attstorage '%c'%s.  "
					   "Core: %s.  memprobe: %s.  "
					   "The tuple stores %d of %d columns (t_hoff %d, t_len %u, %s).  "
					   "Columns (attlen, attalign; v by value, p plain storage, x dropped, m missing value): %s.",
					   describe_check(check), col + 1,
					   describe_type(att),
					   att->attlen, att->attalign, att->attbyval ? "true" : "false",
					   att->attstorage, att->atthasmissing ? ", has a missing value" : "",
					   describe_value(cslot->tts_values[col], cslot->tts_isnull[col], att, tuple),
					   describe_value(mslot->tts_values[col], mslot->tts_isnull[col], att, tuple),
					   HeapTupleHeaderGetNatts(tuple->t_data), desc->natts,
					   tuple->t_data->t_hoff, tuple->t_len,
					   HeapTupleHasNulls(tuple) ? "with NULLs" : "no NULLs",
					   describe_layout(desc)),
			 errhint("memprobe_test_deform(" INT64_FORMAT ", %d) reproduces it.",
					 run->seed, run->ntuples)));
}

/*
 * compare_columns
 *		Columns 0 .. upto - 1 of memprobe's slot against core's, which hold
 *		the same tuple; only those in 'needed' when it is not NULL (a slot
 *		that deforms by need leaves the others unset).  Columns the tuple
 *		stores must be bitwise equal (by reference, the same pointer into the
 *		tuple); columns it does not store come from the descriptor's missing
 *		values and compare with datumIsEqual().
 */
static void
compare_columns(DeformRun *run, const DeformCheck *check,
				TupleTableSlot *mslot, TupleTableSlot *cslot, int upto,
				Bitmapset *needed)
{
	HeapTuple	tuple = ((DeformSlot *) mslot)->base.base.tuple;
	int			stored = HeapTupleHeaderGetNatts(tuple->t_data);

	if (mslot->tts_nvalid < upto)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("memprobe_deform%s left tts_nvalid at %d after slot_getsomeattrs(slot, %d)",
						needed ? " by need" : "", mslot->tts_nvalid, upto),
				 errdetail("Tuple " INT64_FORMAT ", seed " INT64_FORMAT ".",
						   run->tupno, run->seed),
				 errhint("memprobe_test_deform(" INT64_FORMAT ", %d) reproduces it.",
						 run->seed, run->ntuples)));

	for (int i = 0; i < upto; i++)
	{
		Form_pg_attribute att = TupleDescAttr(mslot->tts_tupleDescriptor, i);
		Datum		m = mslot->tts_values[i];
		Datum		c = cslot->tts_values[i];
		bool		same;

		if (needed != NULL && !bms_is_member(i, needed))
			continue;
		if (mslot->tts_isnull[i] || cslot->tts_isnull[i])
			same = mslot->tts_isnull[i] == cslot->tts_isnull[i];
		else if (i < stored)
			same = m == c;
		else
			same = datumIsEqual(m, c, att->attbyval, att->attlen);
		if (!same)
			report_mismatch(run, check, mslot, cslot, i);
	}
	run->checks++;
}

/*
 * store_tuple
 *		Give memprobe's slot a fresh copy of src's tuple (tts_nvalid 0), and
 *		core's slot the same copy, deformed.  Returns the copy.
 */
static HeapTuple
store_tuple(TupleTableSlot *mslot, TupleTableSlot *cslot, TupleTableSlot *src)
{
	HeapTuple	tuple;

	/* cslot points at the copy ExecCopySlot() is about to free */
	ExecClearTuple(cslot);
	ExecCopySlot(mslot, src);
	tuple = ((DeformSlot *) mslot)->base.base.tuple;
	Assert(TTS_SHOULDFREE(mslot) && mslot->tts_nvalid == 0);

	ExecStoreHeapTuple(tuple, cslot, false);
	slot_getallattrs(cslot);
	return tuple;
}

/*
 * compare_heap_deform_tuple
 *		Core against core: heap_deform_tuple() against core's heap slot, for
 *		a tuple that has every column.  A difference means the reference
 *		itself is in doubt (or this file built the descriptor wrong).
 */
static void
compare_heap_deform_tuple(DeformRun *run, HeapTuple tuple, TupleTableSlot *cslot)
{
	heap_deform_tuple(tuple, cslot->tts_tupleDescriptor, run->values, run->isnull);
	for (int i = 0; i < cslot->tts_tupleDescriptor->natts; i++)
	{
		if (run->isnull[i] != cslot->tts_isnull[i] ||
			(!run->isnull[i] && run->values[i] != cslot->tts_values[i]))
			elog(ERROR, "heap_deform_tuple() and core's heap slot differ at column %d of tuple " INT64_FORMAT " (seed " INT64_FORMAT ")",
				 i + 1, run->tupno, run->seed);
	}
}

/*
 * check_tuple
 *		The checks of src's tuple.  One column at a time first, so that a
 *		wrong offset is reported at the column it first goes wrong at, before
 *		memprobe_deform() reads on from it (a length read at a wrong offset
 *		could take it outside the tuple).  Then all columns at once (and
 *		core's slot against heap_deform_tuple() when the tuple has every
 *		column: for columns it lacks heap_deform_tuple() keeps by-reference
 *		missing values in a cache for the life of the backend), random
 *		steps, one random prefix.
 */
static void
check_tuple(DeformRun *run, TupleTableSlot *mslot, TupleTableSlot *cslot,
			TupleTableSlot *src, TupleTableSlot *nslot, Bitmapset *needed)
{
	int			natts = mslot->tts_tupleDescriptor->natts;
	DeformCheck check;
	HeapTuple	tuple;

	check.name = "one column at a time, up to";
	check.nsteps = 1;
	store_tuple(mslot, cslot, src);
	for (int k = 1; k <= natts; k++)
	{
		check.steps[0] = k;
		slot_getsomeattrs(mslot, k);
		compare_columns(run, &check, mslot, cslot, k, NULL);
	}

	check.name = "all columns";
	check.nsteps = 0;
	tuple = store_tuple(mslot, cslot, src);
	slot_getallattrs(mslot);
	compare_columns(run, &check, mslot, cslot, natts, NULL);
	if (HeapTupleHeaderGetNatts(tuple->t_data) == natts)
		compare_heap_deform_tuple(run, tuple, cslot);

	check.name = "steps";
	check.nsteps = 0;
	store_tuple(mslot, cslot, src);
	for (int k = 0; k < natts && check.nsteps < MAX_STEPS;)
	{
		k = rand_int(run, k + 1, natts);
		check.steps[check.nsteps++] = k;
		slot_getsomeattrs(mslot, k);
		compare_columns(run, &check, mslot, cslot, k, NULL);
	}

	check.name = "prefix";
	check.nsteps = 1;
	check.steps[0] = rand_int(run, 1, natts);
	store_tuple(mslot, cslot, src);
	slot_getsomeattrs(mslot, check.steps[0]);
	compare_columns(run, &check, mslot, cslot, check.steps[0], NULL);

	/*
	 * By need (tuple_deform_set_need): random steps on the slot that fills
	 * only its needed columns; those are compared, the others must not be
	 * read.
	 */
	check.name = "by need, steps";
	check.nsteps = 0;
	store_tuple(nslot, cslot, src);
	for (int k = 0; k < natts && check.nsteps < MAX_STEPS;)
	{
		k = rand_int(run, k + 1, natts);
		check.steps[check.nsteps++] = k;
		slot_getsomeattrs(nslot, k);
		compare_columns(run, &check, nslot, cslot, k, needed);
	}
}

/*
 * check_case
 *		A random descriptor and ntuples random tuples of it, checked; all in
 *		run->casecxt and run->tuplecxt, which are reset.
 */
static void
check_case(DeformRun *run, int ntuples)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(run->casecxt);
	DeformCase	dc;
	TupleTableSlot *mslot;
	TupleTableSlot *cslot;
	TupleTableSlot *src;
	TupleTableSlot *nslot;
	Bitmapset  *needed = NULL;

	random_case(run, &dc);
	mslot = MakeSingleTupleTableSlot(dc.desc, &memprobe_deform_slot_ops);

	/* a random set of needed columns, never empty, sometimes the last */
	{
		double		p = rand_chance(run, 0.5) ? 0.15 : 0.6;

		for (int c = 0; c < dc.desc->natts; c++)
			if (rand_chance(run, p))
				needed = bms_add_member(needed, c);
		if (needed == NULL || rand_chance(run, 0.3))
			needed = bms_add_member(needed, dc.desc->natts - 1);
	}
	nslot = MakeSingleTupleTableSlot(dc.desc, &memprobe_deform_slot_ops);
	tuple_deform_set_need(nslot, needed);
	cslot = MakeSingleTupleTableSlot(dc.desc, &TTSOpsHeapTuple);
	src = MakeSingleTupleTableSlot(dc.desc, &TTSOpsHeapTuple);

	for (int i = 0; i < ntuples; i++)
	{
		HeapTuple	tuple;

		CHECK_FOR_INTERRUPTS();
		MemoryContextSwitchTo(run->tuplecxt);
		tuple = random_tuple(run, &dc);
		ExecStoreHeapTuple(tuple, src, false);
		check_tuple(run, mslot, cslot, src, nslot, needed);

		ExecClearTuple(cslot);
		ExecClearTuple(mslot);
		ExecClearTuple(nslot);
		ExecClearTuple(src);
		MemoryContextReset(run->tuplecxt);
		run->tupno++;
	}

	ExecDropSingleTupleTableSlot(mslot);
	ExecDropSingleTupleTableSlot(nslot);
	ExecDropSingleTupleTableSlot(cslot);
	ExecDropSingleTupleTableSlot(src);
	MemoryContextSwitchTo(oldcxt);
	MemoryContextReset(run->casecxt);
}

/*
 * memprobe_test_deform(seed int8, ntuples int4) RETURNS int8
 *		Check ntuples random tuples (descriptors of up to 200 tuples each)
 *		from seed; return how many deformations were compared with core's.
 *		The same arguments give the same descriptors and tuples.
 */
Datum
memprobe_test_deform(PG_FUNCTION_ARGS)
{
	DeformRun  *run;
	MemoryContext runcxt;
	int64		checks;

	if (PG_GETARG_INT32(1) < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("ntuples must not be negative")));

	runcxt = AllocSetContextCreate(CurrentMemoryContext, "memprobe_test_deform",
								   ALLOCSET_DEFAULT_SIZES);
	run = MemoryContextAllocZero(runcxt, sizeof(DeformRun));
	run->seed = PG_GETARG_INT64(0);
	run->ntuples = PG_GETARG_INT32(1);
	pg_prng_seed(&run->rng, (uint64) run->seed);
	run->casecxt = AllocSetContextCreate(runcxt, "memprobe_test_deform case",
										 ALLOCSET_DEFAULT_SIZES);
	run->tuplecxt = AllocSetContextCreate(runcxt, "memprobe_test_deform tuple",
										  ALLOCSET_DEFAULT_SIZES);

	while (run->tupno < run->ntuples)
		check_case(run, (int) Min(rand_int(run, 1, MAX_CASE_TUPLES),
								  run->ntuples - run->tupno));

	checks = run->checks;
	MemoryContextDelete(runcxt);
	PG_RETURN_INT64(checks);
}
