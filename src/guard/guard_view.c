/*-------------------------------------------------------------------------
 *
 * guard_view.c
 *	  memprobe_guard: what the guard saw at the sampler's last sample, which
 *	  the sampler publishes here after each sample (guard_publish_sample)
 *	  in one of two slots, so that a reader never waits for it.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "guard/guard_shmem.h"
#include "guard/sampler.h"
#include "shared/compat.h"
#include "shared/changecount.h"
#include "shared/stats_privileges.h"

/*
 * Publish what the guard sees at this sample for memprobe_guard: write the
 * slot readers are not told to read, then tell them to read it.
 */
void
guard_publish_sample(const GuardCandidate *candidates, int n, TimestampTz sampled_at,
			   int64 avail, AvailableSource source)
{
	uint32		next = 1 - pg_atomic_read_u32(&guard_shared->latest);
	GuardSample *sample = &guard_shared->samples[next];
	const GuardCandidate *largest = NULL;

	for (int i = 0; i < n; i++)
		if (largest == NULL || candidates[i].private_bytes > largest->private_bytes)
			largest = &candidates[i];

	changecount_write_begin(&sample->changecount);
	sample->sampled_at = sampled_at;
	sample->available = avail;
	sample->source = (int) source;
	sample->largest_pid = largest ? largest->pid : 0;
	sample->largest_userid = largest ? largest->userid : InvalidOid;
	sample->largest_bytes = largest ? largest->private_bytes : 0;
	changecount_write_end(&sample->changecount);
	/* changecount_write_end's atomic add is a full barrier: the slot is whole before this */
	pg_atomic_write_u32(&guard_shared->latest, next);
}

#define READ_RETRIES 100

/*
 * A copy of the latest published sample into copy; false if none could be
 * had (the sampler published READ_RETRIES times while we copied).  Never
 * waits: a sampler stopped mid-write is writing the other slot.
 */
static bool
read_sample(GuardSample *copy)
{
	for (int tries = 0; tries < READ_RETRIES; tries++)
	{
		uint32		latest = pg_atomic_read_u32(&guard_shared->latest);
		GuardSample *sample = &guard_shared->samples[latest];

		pg_read_barrier();
		if (changecount_read(&sample->changecount, sample, copy, sizeof(*copy), 1))
			return true;
	}
	return false;
}

PG_FUNCTION_INFO_V1(memprobe_guard);

#define GUARD_COLS 10

/*
 * memprobe_guard
 *		SQL function, one row: what the guard saw at the sampler's last sample
 *		(the memory available to the server, the largest process), the
 *		settings now in bytes, and the statements it cancelled per setting
 *		since the server started.  The sample's columns are NULL before the
 *		first sample and while sampling is off (memprobe.sample_interval = 0).
 */
Datum
memprobe_guard(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[GUARD_COLS];
	bool		nulls[GUARD_COLS];
	GuardSample sample;
	TimestampTz last_cancel;
	int			i = 0;

	sampler_require_preloaded();
	Assert(guard_shared != NULL);
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	memset(nulls, 0, sizeof(nulls));
	/*
	 * With sampling turned off the last sample is not current: its columns
	 * are NULL, as before the first one (the counters are still good).
	 */
	if (!sampler_sampling() || !read_sample(&sample))
		sample.sampled_at = 0;

	if (sample.sampled_at != 0)
		values[i++] = TimestampTzGetDatum(sample.sampled_at);
	else
		nulls[i++] = true;
	if (sample.sampled_at != 0 && sample.available >= 0)
	{
		values[i++] = Int64GetDatum(sample.available);
		values[i++] = CStringGetTextDatum(available_source_names[sample.source]);
	}
	else
	{
		nulls[i++] = true;
		nulls[i++] = true;
	}
	if (sample.sampled_at != 0 && sample.largest_pid != 0 &&
		memprobe_may_see(sample.largest_userid))
	{
		values[i++] = Int32GetDatum(sample.largest_pid);
		values[i++] = Int64GetDatum(sample.largest_bytes);
	}
	else
	{
		nulls[i++] = true;
		nulls[i++] = true;
	}
	values[i++] = Int64GetDatum((int64) guard_backend_limit_kb * 1024);
	values[i++] = Int64GetDatum((int64) guard_min_available_kb * 1024);
	values[i++] = Int64GetDatum((int64) pg_atomic_read_u64(&guard_shared->cancels[GUARD_BACKEND_LIMIT]));
	values[i++] = Int64GetDatum((int64) pg_atomic_read_u64(&guard_shared->cancels[GUARD_MIN_AVAILABLE]));
	last_cancel = (TimestampTz) pg_atomic_read_u64(&guard_shared->last_cancel_at);
	if (last_cancel != 0)
		values[i++] = TimestampTzGetDatum(last_cancel);
	else
		nulls[i++] = true;
	Assert(i == GUARD_COLS);

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
