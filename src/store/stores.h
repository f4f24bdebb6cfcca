/*-------------------------------------------------------------------------
 *
 * stores.h
 *	  Tuple stores of WindowAgg, CTE Scan, Recursive Union, Function Scan and
 *	  Table Function Scan in a Generation context (stores.c).
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_STORES_H
#define MEMPROBE_STORES_H

#include "executor/execdesc.h"
#include "nodes/execnodes.h"

extern void stores_init(void);
extern void stores_executor_started(QueryDesc *queryDesc, int eflags);

/*
 * The most the node's stores held in memory (bytes, as work_mem is charged;
 * -1 once on disk) and whether they spilled, for memprobe_statements; false
 * if the node is not a store owner memprobe knows.
 */
extern bool stores_node_peak(PlanState *ps, int64 *bytes, bool *spilled);

/*
 * What EXPLAIN ANALYZE prints for a WindowAgg, CTE Scan, Recursive Union or
 * Table Function Scan on 15 and 17 (explain_storage.c): PostgreSQL 18's
 * Storage and Maximum Storage, and the tuple context's type and peak when
 * memprobe claimed the stores (context_type NULL when it only watched).
 */
typedef struct StoreFigures
{
	bool		used_disk;
	int64		max_space;		/* bytes */
	const char *context_type;
	int64		peak_held;		/* bytes */
} StoreFigures;

/* false if the node has no figures (not watched, or never made a store) */
extern bool stores_explain_figures(PlanState *ps, StoreFigures *figures);

#endif							/* MEMPROBE_STORES_H */
