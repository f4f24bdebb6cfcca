/*-------------------------------------------------------------------------
 *
 * sampler_shmem.h
 *	  The sampler's shared memory: its layout and where each part lies.
 *	  The sampler writes it (sampler.c) and its readers read it
 *	  (sampler_readers.c, sampler.c's header says how neither waits on
 *	  the other).  Private to those two files.
 *
 * After the fixed part, data holds two sample sets, one peak slot per
 * PGPROC and the history ring, in that order (sampler_shmem_size()).
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_SAMPLER_SHMEM_H
#define MEMPROBE_SAMPLER_SHMEM_H

#include "datatype/timestamp.h"
#include "port/atomics.h"
#include "postmaster/bgworker.h"

/* One process at one sample, as memprobe_backends shows it. */
typedef struct ProcSample
{
	int			pid;
	int			leader_pid;		/* parallel leader, or 0 */
	int			backend_type;	/* BackendType */
	int			bgw_type;		/* a background worker's type: bgw_types[bgw_type - 1], or 0 */
	Oid			userid;
	int			state;			/* BackendState */
	uint64		queryid;		/* the statement running, or 0 */
	TimestampTz stmt_start;		/* its start, or 0 when idle */
	uint64		stmt;			/* its identity (statement_id.h), or 0 when idle */
	int64		private_bytes;
	int64		max_private_bytes;	/* since the process started */
	int64		stmt_peak;		/* most during the statement (leader: with workers) */
} ProcSample;

/* One published sample of every process. */
typedef struct SampleSet
{
	int			nrows;
	TimestampTz sampled_at;
	ProcSample	rows[FLEXIBLE_ARRAY_MEMBER];
} SampleSet;

/* A process's statement peak, read by the process itself (by PGPROC number). */
typedef struct PeakSlot
{
	pg_atomic_uint32 changecount;	/* odd while the sampler writes it */
	int			pid;
	uint64		stmt;			/* statement_id.h */
	int64		stmt_peak;
} PeakSlot;

typedef struct HistoryEntry
{
	TimestampTz sampled_at;
	int			pid;
	int			backend_type;
	int			bgw_type;		/* as ProcSample's */
	uint64		queryid;
	int64		private_bytes;
} HistoryEntry;

/*
 * The types of the background workers seen (bgw_type: "logical replication
 * launcher", "parallel worker", an extension's), named as pg_stat_activity
 * names them.  Written by the sampler only, each name once and never
 * changed: a name is complete before the count that covers it is raised.
 */
#define MAX_BGW_TYPES 32

typedef struct SamplerShared
{
	pg_atomic_uint64 generation;	/* sets published; the last is sets[gen % 2] */
	pg_atomic_uint64 history_next;	/* history entries ever written */
	int			nslots;			/* rows a set holds; peak slots */
	int			history_size;
	Size		set_size;
	pg_atomic_uint32 nbgw_types;
	char		bgw_types[MAX_BGW_TYPES][BGW_MAXLEN];
	char		data[FLEXIBLE_ARRAY_MEMBER];	/* two sets, the peak slots, the history */
} SamplerShared;

/* set at shared memory startup (sampler.c); NULL unless memprobe is preloaded */
extern SamplerShared *sampler_shared;

static inline SampleSet *
set_at(uint64 generation)
{
	return (SampleSet *) (sampler_shared->data + (generation % 2) * sampler_shared->set_size);
}

static inline PeakSlot *
peak_slots(void)
{
	return (PeakSlot *) (sampler_shared->data + 2 * sampler_shared->set_size);
}

static inline HistoryEntry *
history_ring(void)
{
	return (HistoryEntry *) (sampler_shared->data + 2 * sampler_shared->set_size +
							 MAXALIGN(sampler_shared->nslots * sizeof(PeakSlot)));
}

#endif							/* MEMPROBE_SAMPLER_SHMEM_H */
