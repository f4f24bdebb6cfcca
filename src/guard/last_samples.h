/*-------------------------------------------------------------------------
 *
 * last_samples.h
 *	  What ran before a crash: the sampler's latest samples of the largest
 *	  processes, kept in a file that survives a crash restart
 *	  (last_samples.c).
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_LAST_SAMPLES_H
#define MEMPROBE_LAST_SAMPLES_H

#include "datatype/timestamp.h"

#define LAST_SAMPLES			5	/* the largest processes kept */
#define LAST_SAMPLE_QUERY_BYTES	256 /* the first bytes of each one's query */
#define LAST_SAMPLE_TYPE_BYTES	64	/* its type's name, as pg_stat_activity's */

typedef struct LastSample
{
	TimestampTz sampled_at;
	int			pid;
	char		backend_type[LAST_SAMPLE_TYPE_BYTES];
	uint64		queryid;
	int64		private_bytes;
	char		query[LAST_SAMPLE_QUERY_BYTES];
} LastSample;

/* shared memory (memprobe.c) */
extern Size last_samples_shmem_size(void);
extern void last_samples_shmem_init(void);

/* the sampler: at its start, after each sample, at a clean shutdown */
extern void last_samples_recover(void);
extern void last_samples_save(LastSample *largest, int n);
extern void last_samples_forget(void);

#endif							/* MEMPROBE_LAST_SAMPLES_H */
