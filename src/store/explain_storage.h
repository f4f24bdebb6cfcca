/*-------------------------------------------------------------------------
 *
 * explain_storage.h
 *	  PostgreSQL 18's EXPLAIN ANALYZE Storage lines for core's store-keeping
 *	  nodes on 15 and 17 (explain_storage.c).
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_EXPLAIN_STORAGE_H
#define MEMPROBE_EXPLAIN_STORAGE_H

#include "executor/execdesc.h"

extern void explain_storage_init(void);
extern void explain_storage_install_hooks(void);

/* around the executor (memprobe's hooks, hooks.c) */
extern void explain_storage_executor_started(QueryDesc *queryDesc, int eflags);
extern void explain_storage_executor_ending(QueryDesc *queryDesc);

#endif							/* MEMPROBE_EXPLAIN_STORAGE_H */
