/*-------------------------------------------------------------------------
 *
 * page_quals.c
 *	  Recognise StreamScan's page-loop quals: see page_quals.h.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/tupmacs.h"
#include "catalog/pg_type_d.h"
#include "nodes/nodeFuncs.h"
#include "nodes/primnodes.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"

#include "scan/page_quals.h"
#include "scan/tuple_deform.h"

typedef struct PageQualFunc
{
	Oid			funcid;
	PageQualOp	op;
	Oid			ltype;
	Oid			rtype;
} PageQualFunc;

#define INT_CMP(name, l, r) \
	{F_##name##EQ, PQ_EQ, l, r}, {F_##name##NE, PQ_NE, l, r}, \
	{F_##name##LT, PQ_LT, l, r}, {F_##name##LE, PQ_LE, l, r}, \
	{F_##name##GT, PQ_GT, l, r}, {F_##name##GE, PQ_GE, l, r}

/* the built-in integer comparison functions, all strict and leakproof */
static const PageQualFunc page_qual_funcs[] = {
	INT_CMP(INT2, INT2OID, INT2OID),
	INT_CMP(INT4, INT4OID, INT4OID),
	INT_CMP(INT8, INT8OID, INT8OID),
	INT_CMP(INT24, INT2OID, INT4OID),
	INT_CMP(INT42, INT4OID, INT2OID),
	INT_CMP(INT28, INT2OID, INT8OID),
	INT_CMP(INT82, INT8OID, INT2OID),
	INT_CMP(INT48, INT4OID, INT8OID),
	INT_CMP(INT84, INT8OID, INT4OID),
};

/* "a op b" is "b commuted(op) a" */
static PageQualOp
commute(PageQualOp op)
{
	switch (op)
	{
		case PQ_LT:
			return PQ_GT;
		case PQ_LE:
			return PQ_GE;
		case PQ_GT:
			return PQ_LT;
		case PQ_GE:
			return PQ_LE;
		default:
			return op;
	}
}

static int64
const_as_int64(Const *c)
{
	switch (c->consttype)
	{
		case INT2OID:
			return DatumGetInt16(c->constvalue);
		case INT4OID:
			return DatumGetInt32(c->constvalue);
		default:
			return DatumGetInt64(c->constvalue);
	}
}

/*
 * match_qual
 *		Fill *pq if 'expr' is a page-loop qual of this scan.
 */
static bool
match_qual(Expr *expr, Index scanrelid, TupleDesc desc,
		   const DeformAttr *attrs, PageQual *pq, int32 *var_off)
{
	OpExpr	   *op;
	Node	   *left;
	Node	   *right;
	Var		   *var;
	Const	   *con;
	bool		var_left;
	Oid			funcid;
	const PageQualFunc *f = NULL;
	Form_pg_attribute att;

	if (!IsA(expr, OpExpr))
		return false;
	op = (OpExpr *) expr;
	if (list_length(op->args) != 2 || op->opretset)
		return false;
	left = linitial(op->args);
	right = lsecond(op->args);
	if (IsA(left, Var) && IsA(right, Const))
		var_left = true;
	else if (IsA(left, Const) && IsA(right, Var))
		var_left = false;
	else
		return false;
	var = (Var *) (var_left ? left : right);
	con = (Const *) (var_left ? right : left);

	if (var->varno != scanrelid || var->varlevelsup != 0 ||
		var->varattno <= 0 || var->varattno > desc->natts || con->constisnull)
		return false;

	funcid = op->opfuncid != InvalidOid ? op->opfuncid : get_opcode(op->opno);
	for (int i = 0; i < lengthof(page_qual_funcs); i++)
		if (page_qual_funcs[i].funcid == funcid)
			f = &page_qual_funcs[i];
	if (f == NULL)
		return false;

	/* argument types exactly as the function takes them */
	if (var->vartype != (var_left ? f->ltype : f->rtype) ||
		con->consttype != (var_left ? f->rtype : f->ltype))
		return false;

	att = TupleDescAttr(desc, var->varattno - 1);
	if (att->attisdropped || att->atttypid != var->vartype || !att->attbyval)
		return false;

	pq->attnum = var->varattno - 1;
	pq->offset = attrs[pq->attnum].cacheoff;
	if (attrs[pq->attnum].attlen <= 0)
		return false;
	if (pq->offset < 0)
	{
		/* after exactly one varlena, which is at a fixed offset */
		int			v = -1;

		for (int a = 0; a < pq->attnum; a++)
		{
			if (attrs[a].attlen > 0)
				continue;
			if (v >= 0 || attrs[a].attlen != -1 || attrs[a].cacheoff < 0)
				return false;
			v = a;
		}
		if (v < 0)
			return false;
		for (int phase = 0; phase < 8; phase++)
		{
			int32		off = phase;

			for (int a = v + 1; a < pq->attnum; a++)
			{
				Form_pg_attribute b = TupleDescAttr(desc, a);

				off = att_align_nominal(off, b->attalign) + b->attlen;
			}
			off = att_align_nominal(off, att->attalign);
			pq->delta[phase] = off - phase;
		}
		*var_off = attrs[v].cacheoff;
	}
	pq->attlen = att->attlen;
	pq->op = var_left ? f->op : commute(f->op);
	pq->constval = const_as_int64(con);
	return true;
}

/*
 * page_quals_build
 *		The leading run of page-loop quals of a scan's qual list (implicit
 *		AND, in execution order), or NULL if the first qual is not one.
 *		*rest gets the quals after that run.
 */
PageQuals *
page_quals_build(List *qual, Index scanrelid, TupleDesc desc, List **rest)
{
	PageQuals  *pq;
	DeformAttr *attrs = tuple_deform_attrs(desc, CurrentMemoryContext);
	int			n = 0;
	ListCell   *lc;

	pq = palloc(offsetof(PageQuals, quals) + sizeof(PageQual) * Max(list_length(qual), 1));
	pq->max_attnum = 0;
	pq->var_off = -1;
	foreach(lc, qual)
	{
		/* (every varlena-relative qual names the same varlena: the first column that is one) */
		if (!match_qual(lfirst(lc), scanrelid, desc, attrs, &pq->quals[n], &pq->var_off))
			break;
		pq->max_attnum = Max(pq->max_attnum, pq->quals[n].attnum);
		n++;
	}
	pfree(attrs);
	if (n == 0)
	{
		pfree(pq);
		*rest = qual;
		return NULL;
	}
	pq->nquals = n;
	*rest = list_copy_tail(qual, n);
	return pq;
}
