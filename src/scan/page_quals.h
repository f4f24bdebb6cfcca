/*-------------------------------------------------------------------------
 *
 * page_quals.h
 *	  StreamScan's page-loop quals: simple integer comparisons checked on
 *	  the raw heap tuple, before it is stored in a slot or deformed.
 *
 * A qual qualifies when it is "column op constant" (either way round) with
 * a built-in btree comparison of int2/int4/int8 (=, <>, <, <=, >, >=, cross
 * types included) on a column whose offset is fixed (all columns before it
 * fixed-width), or follows one varlena at a fixed offset with only
 * fixed-width columns between (its offset is then the varlena's end plus a
 * constant for that end's position modulo 8: one length read per tuple).  Only the leading run of such quals in the node's qual list
 * is taken, so quals run in exactly core's order: these first, then the
 * rest (compiled as usual) on tuples that passed.  They cannot fail or have
 * side effects, and strictness (NULL compares false) is kept.  A tuple
 * whose column is not at its fixed offset (a NULL in the row, or the row
 * predates the column) gets no page-loop answer: the full qual decides.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_PAGE_QUALS_H
#define MEMPROBE_PAGE_QUALS_H

#include "postgres.h"

#include "access/htup_details.h"
#include "access/tupmacs.h"
#include "access/tupdesc.h"
#include "nodes/pg_list.h"

typedef enum PageQualOp
{
	PQ_EQ,
	PQ_NE,
	PQ_LT,
	PQ_LE,
	PQ_GT,
	PQ_GE
} PageQualOp;

typedef struct PageQual
{
	int			attnum;			/* 0-based column */
	int32		offset;			/* fixed offset in the tuple data, or -1: after the varlena */
	int16		attlen;			/* 2, 4 or 8 */
	PageQualOp	op;				/* column op constant */
	int64		constval;
	int32		delta[8];		/* offset == -1: the column's offset past the varlena's end,
								 * by that end's position modulo 8 */
} PageQual;

typedef struct PageQuals
{
	int			nquals;
	int			max_attnum;		/* highest attnum (0-based) any qual reads */
	int32		var_off;		/* offset of the first varlena, for quals after it; or -1 */
	PageQual	quals[FLEXIBLE_ARRAY_MEMBER];
} PageQuals;

typedef enum PageQualResult
{
	PAGE_QUAL_PASS,				/* every page-loop qual is true */
	PAGE_QUAL_FAIL,				/* one is false (or NULL) */
	PAGE_QUAL_UNKNOWN			/* not decidable on the raw tuple */
} PageQualResult;

extern PageQuals *page_quals_build(List *qual, Index scanrelid, TupleDesc desc,
								   List **rest);

static inline int64
page_qual_fetch(const char *p, int16 attlen)
{
	switch (attlen)
	{
		case 2:
			return *(const int16 *) p;
		case 4:
			return *(const int32 *) p;
		default:
			return *(const int64 *) p;
	}
}

/*
 * page_quals_check
 *		The page-loop quals on a raw heap tuple.
 */
static inline PageQualResult
page_quals_check(const PageQuals *pq, HeapTupleHeader tup)
{
	const char *tp;

	if (HeapTupleHeaderGetNatts(tup) <= pq->max_attnum)
		return PAGE_QUAL_UNKNOWN;
	/* a NULL up to the last column read: offsets are not the fixed ones */
	if (tup->t_infomask & HEAP_HASNULL)
	{
		for (int a = 0; a <= pq->max_attnum; a++)
			if (att_isnull(a, tup->t_bits))
				return PAGE_QUAL_UNKNOWN;
	}

	tp = (const char *) tup + tup->t_hoff;
	for (int i = 0; i < pq->nquals; i++)
	{
		const PageQual *q = &pq->quals[i];
		int64		v;
		bool		ok;

		if (q->offset >= 0)
			v = page_qual_fetch(tp + q->offset, q->attlen);
		else
		{
			/* the varlena is at its fixed offset, whatever its header */
			uint32		end = pq->var_off + VARSIZE_ANY(tp + pq->var_off);

			v = page_qual_fetch(tp + end + q->delta[end & 7], q->attlen);
		}

		switch (q->op)
		{
			case PQ_EQ:
				ok = v == q->constval;
				break;
			case PQ_NE:
				ok = v != q->constval;
				break;
			case PQ_LT:
				ok = v < q->constval;
				break;
			case PQ_LE:
				ok = v <= q->constval;
				break;
			case PQ_GT:
				ok = v > q->constval;
				break;
			default:
				ok = v >= q->constval;
				break;
		}
		if (!ok)
			return PAGE_QUAL_FAIL;
	}
	return PAGE_QUAL_PASS;
}

#endif							/* MEMPROBE_PAGE_QUALS_H */
