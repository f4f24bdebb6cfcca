/*-------------------------------------------------------------------------
 *
 * sampler_readers.c
 *	  What reads the sampler's shared memory (sampler_shmem.h): the SQL
 *	  functions memprobe_samples and memprobe_history, a process's own
 *	  statement peak at the end of its statement, and the check that
 *	  memprobe is preloaded (sampler.h).
 *
 * None of them waits on the sampler or locks its memory: a sample set is
 * kept only if the generation counter did not move while it was copied, a
 * peak slot is read under its change counter, and history entries a write
 * overtook during the copy are left out (sampler.c's header).  A set or a
 * slot is copied at most READ_RETRIES times, rather than wait on a sampler
 * that publishes faster than it can be copied.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "funcapi.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "guard/sampler.h"
#include "guard/sampler_shmem.h"
#include "shared/changecount.h"
#include "shared/compat.h"
#include "shared/stats_privileges.h"

#define READ_RETRIES 100

int64
sampler_statement_peak(uint64 stmt)
{
	/* this process's slot once found: its number is its own for life */
	static PeakSlot *slot = NULL;
	PeakSlot	copy;

	if (unlikely(slot == NULL))
	{
		int			procno = compat_my_proc_number();

		if (sampler_shared == NULL || procno < 0 || procno >= sampler_shared->nslots)
			return -1;
		slot = &peak_slots()[procno];
	}
	if (stmt == 0)
		return -1;

	/*
	 * Most statements end before any sample saw them: one unlocked read of
	 * the slot's statement tells, before the consistent copy.  Should the
	 * sampler be writing this very statement's first peak as it ends, the
	 * result is the one the copy gives when it reads the slot just before.
	 */
	if (((volatile PeakSlot *) slot)->stmt != stmt)
		return -1;
	if (!changecount_read(&slot->changecount, slot, &copy, sizeof(copy), READ_RETRIES))
		return -1;
	return (copy.pid == MyProcPid && copy.stmt == stmt) ? copy.stmt_peak : -1;
}

void
sampler_require_preloaded(void)
{
	if (sampler_shared == NULL)
		ereport(ERROR,
				errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				errmsg("memprobe must be loaded via \"shared_preload_libraries\" to sample process memory"),
				errhint("Add memprobe to shared_preload_libraries and restart the server."));
}

/* A copy of the last published sample (palloc'd), or NULL if there is none yet. */
static SampleSet *
copy_last_set(void)
{
	Size		size = sampler_shared->set_size;
	SampleSet  *copy = palloc(size);

	for (int tries = 0; tries < READ_RETRIES; tries++)
	{
		uint64		gen = pg_atomic_read_u64(&sampler_shared->generation);

		if (gen == 0)
			return NULL;
		pg_read_barrier();
		memcpy(copy, set_at(gen), size);
		pg_read_barrier();
		if (pg_atomic_read_u64(&sampler_shared->generation) == gen)
			return copy;
	}
	/* the sampler published READ_RETRIES times while we copied: give up */
	ereport(ERROR,
			errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			errmsg("could not read memprobe's process samples"),
			errdetail("The sampler published new samples faster than they could be copied."));
	return NULL;				/* keep compiler quiet */
}

PG_FUNCTION_INFO_V1(memprobe_samples);
PG_FUNCTION_INFO_V1(memprobe_history);

#define SAMPLES_COLS 9

/*
 * memprobe_samples
 *		SQL SRF: every process at the last sample.  As pg_stat_activity (and
 *		memprobe_backends' own figures), a process's figures and statement
 *		only for roles whose privileges the caller has, or with those of
 *		pg_read_all_stats; otherwise only its pid, leader, type and the
 *		sample's time: how much memory another role's process holds, and
 *		when its statement started, tell what it is doing.
 */
Datum
memprobe_samples(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	SampleSet  *set;

	sampler_require_preloaded();
	InitMaterializedSRF(fcinfo, 0);
	if ((set = copy_last_set()) == NULL)
		return (Datum) 0;

	for (int r = 0; r < set->nrows; r++)
	{
		ProcSample *row = &set->rows[r];
		Datum		values[SAMPLES_COLS];
		bool		nulls[SAMPLES_COLS];
		int			i = 0;

		memset(nulls, 0, sizeof(nulls));
		values[i++] = Int32GetDatum(row->pid);
		if (!memprobe_may_see(row->userid))
		{
			/* as pg_stat_activity hides them: the leader and the type too */
			nulls[i++] = true;	/* leader_pid */
			nulls[i++] = true;	/* backend_type */
			nulls[i++] = true;	/* private_bytes */
			nulls[i++] = true;	/* max_private_bytes */
			values[i++] = TimestampTzGetDatum(set->sampled_at);
			nulls[i++] = true;	/* statement_queryid */
			nulls[i++] = true;	/* statement_started_at */
			nulls[i++] = true;	/* statement_max_private_bytes */
			Assert(i == SAMPLES_COLS);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
			continue;
		}
		if (row->leader_pid != 0)
			values[i++] = Int32GetDatum(row->leader_pid);
		else
			nulls[i++] = true;
		values[i++] = CStringGetTextDatum(sampler_backend_type_name(row->backend_type, row->bgw_type));
		values[i++] = Int64GetDatum(row->private_bytes);
		values[i++] = Int64GetDatum(row->max_private_bytes);
		values[i++] = TimestampTzGetDatum(set->sampled_at);
		if (row->stmt_start != 0 && row->queryid != 0)
			values[i++] = Int64GetDatum((int64) row->queryid);
		else
			nulls[i++] = true;
		if (row->stmt_start != 0)
		{
			values[i++] = TimestampTzGetDatum(row->stmt_start);
			values[i++] = Int64GetDatum(row->stmt_peak);
		}
		else
		{
			nulls[i++] = true;
			nulls[i++] = true;
		}
		Assert(i == SAMPLES_COLS);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

#define HISTORY_COLS 5

/*
 * memprobe_history
 *		SQL SRF: the samples of processes above memprobe.history_min_bytes
 *		still in the ring, oldest first.  Entries a concurrent write overtook
 *		while they were copied are left out.
 */
Datum
memprobe_history(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int			size;
	HistoryEntry *copy;
	uint64		before,
				after,
				first;

	sampler_require_preloaded();
	InitMaterializedSRF(fcinfo, 0);
	size = sampler_shared->history_size;
	if (size <= 0)
		return (Datum) 0;
	copy = palloc(size * sizeof(HistoryEntry));

	before = pg_atomic_read_u64(&sampler_shared->history_next);
	pg_read_barrier();
	memcpy(copy, history_ring(), size * sizeof(HistoryEntry));
	pg_read_barrier();
	after = pg_atomic_read_u64(&sampler_shared->history_next);

	/* entries before+1-size .. before-1 were whole when read, unless written over since */
	first = after >= (uint64) size ? after - size + 1 : 0;
	for (uint64 n = first; n < before; n++)
	{
		HistoryEntry *e = &copy[n % size];
		Datum		values[HISTORY_COLS];
		bool		nulls[HISTORY_COLS] = {false};

		values[0] = TimestampTzGetDatum(e->sampled_at);
		values[1] = Int32GetDatum(e->pid);
		values[2] = CStringGetTextDatum(sampler_backend_type_name(e->backend_type, e->bgw_type));
		if (e->queryid != 0)
			values[3] = Int64GetDatum((int64) e->queryid);
		else
			nulls[3] = true;
		values[4] = Int64GetDatum(e->private_bytes);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
