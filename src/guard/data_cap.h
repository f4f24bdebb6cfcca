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

#include "access/xact.h"
#include "datatype/timestamp.h"
#include "port/atomics.h"
#include "utils/backend_status.h"

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

extern pg_atomic_uint32 *data_cap_my_capped;
extern uint64 data_cap_ended_written;
extern void data_cap_statement_end_slow(void);

/*
 * In a backend, at the end of each top-level statement: say so, and lift a
 * cap the sampler set.  (Aborts call it themselves.)  Inline, the test of
 * a statement's second end (ExecutorEnd after its ExecutorRun) with no cap:
 * it was already said, and the barrier passed then.
 */
static inline void
data_cap_statement_end(void)
{
	if (likely(data_cap_my_capped != NULL && MyBEEntry != NULL &&
			   (uint64) MyBEEntry->st_activity_start_timestamp == data_cap_ended_written &&
			   pg_atomic_read_u32(data_cap_my_capped) == 0))
		return;
	data_cap_statement_end_slow();
}

/*
 * A transaction event (memprobe's transaction callback, hooks.c): every
 * abort ends the statement that failed, wherever it failed.
 */
static inline void
data_cap_xact_event(XactEvent event)
{
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT)
		data_cap_statement_end();
}

#endif							/* MEMPROBE_DATA_CAP_H */
