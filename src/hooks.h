/*-------------------------------------------------------------------------
 *
 * hooks.h
 *	  memprobe's one function for each core hook that several of its parts
 *	  work at (hooks.c).
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_HOOKS_H
#define MEMPROBE_HOOKS_H

#include "executor/execdesc.h"

extern void memprobe_install_hooks(void);

/* The rest of the ExecutorEnd chain, or core's: for statements_executor_end. */
extern void memprobe_next_executor_end(QueryDesc *queryDesc);

#endif							/* MEMPROBE_HOOKS_H */
