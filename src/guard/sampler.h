/*-------------------------------------------------------------------------
 *
 * sampler.h
 *	  Every PostgreSQL process's private memory, sampled from /proc by a
 *	  background worker (sampler.c; what reads it, sampler_readers.c).
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_SAMPLER_H
#define MEMPROBE_SAMPLER_H

#include "datatype/timestamp.h"

extern void sampler_init(void);
extern void sampler_register_worker(void);
/* shared memory (memprobe.c) */
extern Size sampler_shmem_size(void);
extern void sampler_shmem_init(void);

/* an SQL function's check: errors out unless memprobe is preloaded */
extern void sampler_require_preloaded(void);

/*
 * A sampled process's type as pg_stat_activity names it: a background
 * worker's own type (bgw_type from a sample), else core's name for
 * backend_type.
 */
extern const char *sampler_backend_type_name(int backend_type, int bgw_type);

/* Is sampling on (memprobe.sample_interval > 0, as this process reads it)? */
extern bool sampler_sampling(void);

/*
 * The most private memory the sampler saw this process (and, for a parallel
 * leader, its workers at the same sample) hold during its statement stmt
 * (statement_id.h); -1 when it took no sample of that statement.
 */
extern int64 sampler_statement_peak(uint64 stmt);

#endif							/* MEMPROBE_SAMPLER_H */
