/*-------------------------------------------------------------------------
 *
 * last_samples.c
 *	  What ran before a crash.  After each sample the sampler keeps the
 *	  LAST_SAMPLES processes that hold the most, each at its last sample
 *	  while it ran (pid, backend type, query id, the first bytes of the
 *	  query, private memory, time; sampler.c's save_largest), in
 *	  pg_stat_tmp/memprobe_last_samples under the data directory, rewritten
 *	  at most once a second and only when they changed.
 *
 * When the OOM killer's SIGKILL (or any crash) ends a backend, the
 * postmaster stops every process with SIGQUIT, reinitializes shared memory
 * and starts them again, the sampler among them: the file is still there,
 * while the shared-memory flag saying it was read is new.  The sampler then
 * logs one line naming the process that held the most at the last samples
 * before the restart and publishes the samples for memprobe_before_restart.  A clean
 * shutdown (the sampler's SIGTERM) removes the file; a sampler restarted on
 * its own (shared memory kept) does not report it again.
 *
 * pg_stat_tmp is left out of base backups (basebackup.c), so a standby
 * made from a primary never reports the primary's samples.  The file is
 * written to a temporary name and renamed, so a crash never leaves half of
 * one.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <unistd.h>

#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "guard/last_samples.h"
#include "guard/sampler.h"
#include "shared/compat.h"

#define LAST_SAMPLES_FILE	"pg_stat_tmp/memprobe_last_samples"
#define LAST_SAMPLES_TEMP	"pg_stat_tmp/memprobe_last_samples.tmp"
#define LAST_SAMPLES_HEADER "memprobe last samples 1\n"

typedef struct LastSamplesShared
{
	bool		recovered;		/* this shared memory's sampler read the file */
	int			n;				/* samples from before the restart */
	LastSample	before[LAST_SAMPLES];
} LastSamplesShared;

static LastSamplesShared *shared = NULL;


/* the sampler's: what it wrote last, and when */
static LastSample written[LAST_SAMPLES];
static int	nwritten = -1;
static TimestampTz written_at = 0;

Size
last_samples_shmem_size(void)
{
	return sizeof(LastSamplesShared);
}

/* Attach to its shared memory, making it at server start (memprobe.c holds AddinShmemInitLock). */
void
last_samples_shmem_init(void)
{
	bool		found;

	shared = ShmemInitStruct("memprobe_last_samples", last_samples_shmem_size(), &found);
	if (!found)
		memset(shared, 0, last_samples_shmem_size());
}

/* ------------------------------------------------------------------------
 * The file: a header line, then one line per process, fields split by tabs
 * (tabs and newlines in the query are written as spaces).
 * ------------------------------------------------------------------------
 */

static bool
same_as_written(LastSample *largest, int n)
{
	if (n != nwritten)
		return false;
	for (int i = 0; i < n; i++)
	{
		/* to the megabyte: a process's memory moves by pages at every sample */
		if (largest[i].pid != written[i].pid ||
			largest[i].queryid != written[i].queryid ||
			largest[i].private_bytes >> 20 != written[i].private_bytes >> 20)
			return false;
	}
	return true;
}

void
last_samples_save(LastSample *largest, int n)
{
	TimestampTz now = GetCurrentTimestamp();
	FILE	   *f;
	bool		ok;

	if (same_as_written(largest, n) ||
		(written_at != 0 && !TimestampDifferenceExceeds(written_at, now, 1000)))
		return;

	f = AllocateFile(LAST_SAMPLES_TEMP, PG_BINARY_W);
	if (f == NULL)
	{
		ereport(LOG,
				errcode_for_file_access(),
				errmsg("could not write file \"%s\": %m", LAST_SAMPLES_TEMP));
		written_at = now;
		return;
	}
	fputs(LAST_SAMPLES_HEADER, f);
	for (int i = 0; i < n; i++)
	{
		LastSample *s = &largest[i];

		for (char *c = s->query; *c; c++)
			if (*c == '\t' || *c == '\n' || *c == '\r')
				*c = ' ';
		for (char *c = s->backend_type; *c; c++)
			if (*c == '\t' || *c == '\n' || *c == '\r')
				*c = ' ';
		fprintf(f, INT64_FORMAT "\t%d\t%s\t" UINT64_FORMAT "\t" INT64_FORMAT "\t%s\n",
				(int64) s->sampled_at, s->pid, s->backend_type, s->queryid,
				s->private_bytes, s->query);
	}
	ok = ferror(f) == 0;
	if (FreeFile(f) != 0)
		ok = false;
	if (ok && rename(LAST_SAMPLES_TEMP, LAST_SAMPLES_FILE) != 0)
		ok = false;
	if (!ok)
		ereport(LOG,
				errcode_for_file_access(),
				errmsg("could not write file \"%s\": %m", LAST_SAMPLES_FILE));
	memcpy(written, largest, n * sizeof(LastSample));
	nwritten = n;
	written_at = now;
}

/* One line of the file into s; false if it is not one. */
static bool
parse_line(char *line, LastSample *s)
{
	char	   *fields[6];
	char	   *p = line;
	int			nf = 0;

	line[strcspn(line, "\n")] = '\0';
	while (nf < 6)
	{
		fields[nf++] = p;
		if (nf == 6)
			break;
		if ((p = strchr(p, '\t')) == NULL)
			return false;
		*p++ = '\0';
	}
	memset(s, 0, sizeof(*s));
	s->sampled_at = (TimestampTz) strtoi64(fields[0], NULL, 10);
	s->pid = atoi(fields[1]);
	/* a file of 0.3 before this: the type's number */
	if (strspn(fields[2], "0123456789") == strlen(fields[2]) && fields[2][0] != '\0')
		strlcpy(s->backend_type, GetBackendTypeDesc((BackendType) atoi(fields[2])),
				sizeof(s->backend_type));
	else
		strlcpy(s->backend_type, fields[2], sizeof(s->backend_type));
	s->queryid = strtou64(fields[3], NULL, 10);
	s->private_bytes = strtoi64(fields[4], NULL, 10);
	strlcpy(s->query, fields[5], sizeof(s->query));
	return s->pid > 0;
}

/*
 * At the sampler's start: if this shared memory has not seen the file yet
 * and it is there, the server restarted without a clean shutdown since it
 * was written.  Say so, and publish its samples.
 */
void
last_samples_recover(void)
{
	FILE	   *f;
	char		line[LAST_SAMPLE_QUERY_BYTES + 256];
	LastSample	before[LAST_SAMPLES];
	int			n = 0;
	LastSample *largest;

	if (shared == NULL || shared->recovered)
		return;
	shared->recovered = true;
	if ((f = AllocateFile(LAST_SAMPLES_FILE, PG_BINARY_R)) == NULL)
		return;
	if (fgets(line, sizeof(line), f) == NULL || strcmp(line, LAST_SAMPLES_HEADER) != 0)
	{
		FreeFile(f);
		return;
	}
	while (n < LAST_SAMPLES && fgets(line, sizeof(line), f) != NULL)
		if (parse_line(line, &before[n]))
			n++;
	FreeFile(f);
	if (n == 0)
		return;

	memcpy(shared->before, before, n * sizeof(LastSample));
	pg_write_barrier();
	shared->n = n;

	largest = &before[0];
	ereport(LOG,
			errmsg("memprobe sampled process %d (%s) holding the most memory before the server restarted",
				   largest->pid, largest->backend_type),
			errdetail("At its last sample, at %s, it held %lld MB of private memory, running query id %lld: %s",
					  timestamptz_to_str(largest->sampled_at),
					  (long long) (largest->private_bytes >> 20),
					  (long long) largest->queryid, largest->query),
			errhint("memprobe_before_restart shows the %d processes that held the most then, each at its last sample while it ran.", n));
}

/* At a clean shutdown: the next start is no restart after a crash. */
void
last_samples_forget(void)
{
	if (unlink(LAST_SAMPLES_FILE) != 0 && errno != ENOENT)
		ereport(LOG,
				errcode_for_file_access(),
				errmsg("could not remove file \"%s\": %m", LAST_SAMPLES_FILE));
}

/* ------------------------------------------------------------------------
 * SQL.
 * ------------------------------------------------------------------------
 */

PG_FUNCTION_INFO_V1(memprobe_before_restart);

/*
 * memprobe_before_restart
 *		SQL SRF: the largest processes at the sampler's last sample before
 *		the server's last restart after a crash; nothing if there was none.
 */
Datum
memprobe_before_restart(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int			n;

	sampler_require_preloaded();
	InitMaterializedSRF(fcinfo, 0);
	if (shared == NULL)
		return (Datum) 0;
	n = shared->n;
	pg_read_barrier();
	for (int i = 0; i < n; i++)
	{
		LastSample *s = &shared->before[i];
		Datum		values[6];
		bool		nulls[6] = {false};
		int			len = strlen(s->query);

		values[0] = TimestampTzGetDatum(s->sampled_at);
		values[1] = Int32GetDatum(s->pid);
		values[2] = CStringGetTextDatum(s->backend_type);
		if (s->queryid != 0)
			values[3] = Int64GetDatum((int64) s->queryid);
		else
			nulls[3] = true;
		values[4] = Int64GetDatum(s->private_bytes);
		/* cut at a byte count, perhaps inside a character: keep the valid prefix */
		len = pg_encoding_verifymbstr(GetDatabaseEncoding(), s->query, len);
		if (len > 0)
			values[5] = PointerGetDatum(cstring_to_text_with_len(s->query, len));
		else
			nulls[5] = true;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
