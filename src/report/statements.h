/*-------------------------------------------------------------------------
 *
 * statements.h
 *	  memprobe_statements: executor memory per statement (statements.c).
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_STATEMENTS_H
#define MEMPROBE_STATEMENTS_H

#include "access/xact.h"
#include "executor/execdesc.h"

extern void statements_init(void);
extern void statements_install_hooks(void);
extern Size statements_shmem_size(void);
extern int	statements_nesting_level(void);

extern bool statements_nested_running(void);

/* a fast-path call's function runs, a level down (hooks.c) */
extern void statements_call_entered(void);
extern void statements_call_left(void);

/* around the executor (memprobe's hooks, hooks.c) */
extern void statements_executor_started(QueryDesc *queryDesc, int eflags);
extern void statements_executor_end(QueryDesc *queryDesc);

/* transaction and subtransaction events (memprobe's callbacks, hooks.c) */
extern void statements_xact_event(XactEvent event);
extern void statements_subxact_event(SubXactEvent event);

#endif							/* MEMPROBE_STATEMENTS_H */
