/*-------------------------------------------------------------------------
 *
 * backends.h
 *	  memprobe_backends: every backend's memory, published by each backend
 *	  into its own shared-memory slot (backends.c).
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_BACKENDS_H
#define MEMPROBE_BACKENDS_H

extern void backends_init(void);
/* shared memory (memprobe.c) */
extern Size backends_shmem_size(void);
extern void backends_shmem_init(void);

/*
 * Called at the end of every top-level statement (statements.c's hooks):
 * publishes this backend's memory when due.  executor_bytes is the
 * statement's executor memory as memprobe_statements measured it, or -1.
 */
extern void backends_statement_end(uint64 queryid, int64 executor_bytes);

#endif							/* MEMPROBE_BACKENDS_H */
