/*-------------------------------------------------------------------------
 *
 * data_cap.h
 *	  Stopping a runaway statement that ignores the guard's cancel, by
 *	  lowering its process's soft RLIMIT_DATA for the rest of the statement
 *	  (data_cap.c).
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_DATA_CAP_H
#define MEMPROBE_DATA_CAP_H

#include "datatype/timestamp.h"

extern void data_cap_init(void);
extern void data_cap_install_hooks(void);
extern Size data_cap_shmem_size(void);

/* memprobe.cap_after_cancel is on (and memprobe preloaded) */
extern bool data_cap_enabled(void);

/*
 * The sampler: lower process pid's soft RLIMIT_DATA to what it has mapped
 * plus a margin, unless the statement that started at stmt_start has ended;
 * true (and the new limit in *cap_bytes) if it did.
 */
extern bool data_cap_process(int pid, int procno, TimestampTz stmt_start, int64 *cap_bytes);

/*
 * In a backend, at the end of each top-level statement: say so, and lift a
 * cap the sampler set.  (Aborts call it themselves.)
 */
extern void data_cap_statement_end(void);

#endif							/* MEMPROBE_DATA_CAP_H */
