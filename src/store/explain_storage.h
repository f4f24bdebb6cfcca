/*-------------------------------------------------------------------------
 *
 * explain_storage.h
 *	  PostgreSQL 18's EXPLAIN ANALYZE Storage lines for core's store-keeping
 *	  nodes on 15 and 17 (explain_storage.c; the plan walk at ExecutorEnd,
 *	  explain_storage_walk.c).
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_EXPLAIN_STORAGE_H
#define MEMPROBE_EXPLAIN_STORAGE_H

#include "executor/execdesc.h"
#include "nodes/plannodes.h"
#include "tcop/dest.h"

extern void explain_storage_init(void);

/* around a utility statement (memprobe's ProcessUtility hook, hooks.c) */
extern struct ExplainFrame *explain_storage_begin(PlannedStmt *pstmt, DestReceiver **dest);
extern void explain_storage_end(struct ExplainFrame *frame);

/* the innermost EXPLAIN ANALYZE memprobe wrapped that is running, or NULL (always on 18) */
extern struct ExplainFrame *explain_storage_current_frame;
extern void explain_storage_query_started(QueryDesc *queryDesc, int eflags);
extern void explain_storage_query_ending(QueryDesc *queryDesc);

/*
 * Around the executor (memprobe's hooks, hooks.c).  Inline: outside an
 * EXPLAIN ANALYZE, which is every other statement, one test and no call.
 */
static inline void
explain_storage_executor_started(QueryDesc *queryDesc, int eflags)
{
	if (unlikely(explain_storage_current_frame != NULL))
		explain_storage_query_started(queryDesc, eflags);
}

static inline void
explain_storage_executor_ending(QueryDesc *queryDesc)
{
	if (unlikely(explain_storage_current_frame != NULL))
		explain_storage_query_ending(queryDesc);
}

#endif							/* MEMPROBE_EXPLAIN_STORAGE_H */
