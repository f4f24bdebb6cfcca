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

#include "port/atomics.h"

extern void data_cap_init(void);
/* shared memory (memprobe.c) */
extern Size data_cap_shmem_size(void);
extern void data_cap_shmem_init(void);

/* memprobe.cap_after_cancel is on (and memprobe preloaded) */
extern bool data_cap_enabled(void);

/*
 * The sampler: lower process pid's soft RLIMIT_DATA to what it has mapped
 * plus a margin, unless its statement stmt (statement_id.h) has ended; true
 * (with the new limit in *cap_bytes and the one before in *old_limit, -1
 * for none) if it did.
 */
extern bool data_cap_process(int pid, int procno, uint64 stmt, int64 *cap_bytes,
							 int64 *old_limit);

/*
 * The sampler: put back old_limit on process pid, capped for a statement
 * that is no longer running, unless the process lifted the cap itself;
 * true if the sampler lifted it.
 */
extern bool data_cap_lift_ended(int pid, int procno, int64 old_limit);

/*
 * In a backend: find this process's slot (at its first statement), and,
 * when a top-level statement has ended (statement_end), lift a cap the
 * sampler set.
 */
extern pg_atomic_uint32 *data_cap_my_capped;
extern void data_cap_find_my_slot(void);
extern void data_cap_lift_own(void);

#endif							/* MEMPROBE_DATA_CAP_H */
