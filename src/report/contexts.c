/*-------------------------------------------------------------------------
 *
 * contexts.c
 *	  memprobe_contexts(): the memory contexts of the current backend, with
 *	  the columns of PostgreSQL 18's pg_backend_memory_contexts on every
 *	  server version memprobe supports.
 *
 * PostgreSQL 15's view has a 0-based level and a parent name, and neither the
 * context type nor the path; PostgreSQL 18 (mcxtfuncs.c) reports a 1-based
 * level, the type, and the path of context ids from TopMemoryContext down, so
 * that a subtree can be summed with c1.path[c2.level] = c2.path[c2.level].
 * This file follows PostgreSQL 18's definitions exactly, including its
 * breadth-first numbering of ids: contexts near the top change least, so
 * their ids stay stable from call to call.
 *
 * The ids are transient: they hold for one call only.
 *
 * Copyright (c) 2026, The memprobe Developers
 * Portions Copyright (c) 1996-2025, PostgreSQL Global Development Group
 * Portions Copyright (c) 1994, Regents of the University of California
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "shared/compat.h"
#include "shared/context_types.h"

PG_FUNCTION_INFO_V1(memprobe_contexts);

#define CONTEXTS_COLS		10

/* One context of the breadth-first walk; its id is its index + 1. */
typedef struct VisitedContext
{
	MemoryContext context;
	int			parent_index;	/* index of the parent entry, -1 for the top */
} VisitedContext;

/*
 * path_of
 *		The ids from TopMemoryContext down to entry 'index', as an int4[];
 *		its length, the context's 1-based level, goes to *level.
 */
static ArrayType *
path_of(const VisitedContext *visited, int index, int *level)
{
	ArrayType  *path;
	int			depth = 0;
	Datum	   *ids;

	for (int i = index; i >= 0; i = visited[i].parent_index)
		depth++;

	ids = palloc(depth * sizeof(Datum));
	for (int i = index, pos = depth - 1; i >= 0; i = visited[i].parent_index, pos--)
		ids[pos] = Int32GetDatum(i + 1);

	path = construct_array_builtin(ids, depth, INT4OID);
	pfree(ids);
	*level = depth;
	return path;
}

/*
 * put_context_row
 *		Add the row describing visited[index] to the result.
 */
static void
put_context_row(ReturnSetInfo *rsinfo, const VisitedContext *visited, int index)
{
	MemoryContext context = visited[index].context;
	Datum		values[CONTEXTS_COLS] = {0};
	bool		nulls[CONTEXTS_COLS] = {0};
	MemoryContextCounters stat = {0};
	const char *name;
	const char *ident;
	int			ident_len;
	int			level;
	ArrayType  *path = path_of(visited, index, &level);

	/* Totals for this context alone, without printing anything. */
	context->methods->stats(context, NULL, NULL, &stat, false);

	/* name and ident as core shows them (dynahash, long idents) */
	memprobe_context_label(context, &name, &ident, &ident_len);
	if (name)
		values[0] = CStringGetTextDatum(name);
	else
		nulls[0] = true;
	if (ident)
		values[1] = PointerGetDatum(cstring_to_text_with_len(ident, ident_len));
	else
		nulls[1] = true;

	values[2] = CStringGetTextDatum(memprobe_context_type_name(context));
	values[3] = Int32GetDatum(level);
	values[4] = PointerGetDatum(path);
	values[5] = Int64GetDatum(stat.totalspace);
	values[6] = Int64GetDatum(stat.nblocks);
	values[7] = Int64GetDatum(stat.freespace);
	values[8] = Int64GetDatum(stat.freechunks);
	values[9] = Int64GetDatum(stat.totalspace - stat.freespace);

	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	pfree(path);
}

/*
 * memprobe_contexts
 *		SQL SRF: one row per memory context of this backend.
 *
 * The walk is breadth-first from TopMemoryContext, numbering contexts as it
 * goes (TopMemoryContext is 1).  The walk's own allocations and the result
 * rows land in contexts that are part of the tree being walked; like core's
 * function, the figures are those of the moment each context is visited.
 */
Datum
memprobe_contexts(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	VisitedContext *visited;
	int			nvisited = 0;
	int			capacity = 256;

	InitMaterializedSRF(fcinfo, 0);

	visited = palloc(capacity * sizeof(VisitedContext));
	visited[nvisited].context = TopMemoryContext;
	visited[nvisited].parent_index = -1;
	nvisited++;

	for (int i = 0; i < nvisited; i++)
	{
		put_context_row(rsinfo, visited, i);

		for (MemoryContext child = visited[i].context->firstchild;
			 child != NULL;
			 child = child->nextchild)
		{
			if (nvisited == capacity)
			{
				capacity *= 2;
				visited = repalloc(visited, capacity * sizeof(VisitedContext));
			}
			visited[nvisited].context = child;
			visited[nvisited].parent_index = i;
			nvisited++;
		}
	}

	pfree(visited);
	return (Datum) 0;
}
