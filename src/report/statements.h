/*-------------------------------------------------------------------------
 *
 * statements.h
 *	  memprobe_statements: executor memory per statement (statements.c).
 *
 * memprobe's hooks (hooks.c) call these with the executor nesting level:
 * 0 for a client's own statement, one more for each statement, function
 * call or utility statement it runs inside.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_STATEMENTS_H
#define MEMPROBE_STATEMENTS_H

#include "access/xact.h"
#include "executor/execdesc.h"
#include "executor/executor.h"
#include "parser/analyze.h"


extern void statements_init(void);
extern void statements_preloaded(void);

/* shared memory (memprobe.c) */
extern Size statements_shmem_size(void);
extern void statements_shmem_request(void);
extern void statements_shmem_init(void);

/* after parse analysis (post_parse_analyze_hook) */
extern void statements_parsed(ParseState *pstate, Query *query, JumbleState *jstate, int level);

/* around the executor */
extern void statements_executor_started(QueryDesc *queryDesc, int eflags, int level);
extern void statements_executor_sample(QueryDesc *queryDesc);
extern void statements_sample_at_error(void *arg);

/* ExecutorEnd: next is the rest of the chain, run between the sample and the store */
extern int64 statements_executor_end(QueryDesc *queryDesc, int level, ExecutorEnd_hook_type next);

/* transaction and subtransaction events */
extern void statements_xact_event(XactEvent event);
extern void statements_subxact_event(SubXactEvent event);

#endif							/* MEMPROBE_STATEMENTS_H */
