/*-------------------------------------------------------------------------
 *
 * sampler.c
 *	  Every PostgreSQL process's private memory, live: a background worker
 *	  (the sampler) reads each process's resident anonymous memory from
 *	  /proc every memprobe.sample_interval and publishes it in shared memory
 *	  for memprobe_backends, memprobe_history and memprobe_statements.
 *
 * Built as pg_wait_sampling's collector is: a worker registered when
 * memprobe is preloaded, a WaitLatch loop that exits with the postmaster and
 * re-reads the configuration on SIGHUP, and nothing asked of the processes
 * it observes: it never signals, locks or waits on them.  Which processes
 * and what they run comes from core's backend status array (the snapshot
 * pg_stat_activity reads: client backends, parallel workers, autovacuum,
 * background workers, auxiliary processes), the parallel leader from each
 * PGPROC's lock group, and the memory from /proc/PID/statm.
 *
 * The figure is resident anonymous memory, statm's "resident" minus its
 * "shared" (file-backed and shared-memory pages; Linux 4.5 and later count
 * exactly those there), in bytes: what a process's palloc'd and malloc'd
 * memory occupies in RAM.  It is the part of a process's footprint that
 * grows with what its statement does and that the kernel cannot reclaim
 * without killing it: shared buffers are one segment charged once, however
 * many processes map them, and file pages are page cache the kernel frees
 * before it kills.  The OOM killer ranks by RSS (anonymous, file and shmem
 * pages, plus swap and page tables), so a runaway statement's anonymous
 * growth is what makes its process the one killed.
 *
 * Readers never wait on the sampler: it writes each sample into the one of
 * two sets readers are not using, then publishes it by bumping a
 * generation counter; a reader copies the set the counter names and retries
 * (a bounded number of times) if the counter moved meanwhile.  A sampler
 * stopped mid-write (SIGSTOP) leaves the published set whole.  Each
 * process's statement peak lives in a slot of its own (by PGPROC number)
 * under a change counter, so that the process itself can read it at the end
 * of its statement with a few loads.  The history is a ring whose readers
 * keep only the entries no write overtook while they copied.  The readers
 * are in sampler_readers.c, the layout they share in sampler_shmem.h.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "miscadmin.h"
#include "pgstat.h"
#include "port/atomics.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "utils/backend_status.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "guard/guard.h"
#include "guard/last_samples.h"
#include "guard/query_dsm.h"
#include "guard/sampler.h"
#include "guard/sampler_shmem.h"
#include "guard/statement_id.h"
#include "shared/changecount.h"
#include "shared/compat.h"

PGDLLEXPORT void memprobe_sampler_main(Datum main_arg);

/* memprobe.sample_interval (ms; 0: no sampling; else at least 1) */
static double sample_interval = 1000;

/* memprobe.history_size (entries), memprobe.history_min_bytes (kB) */
static int	history_size = 4096;
static int	history_min_kb = 64 * 1024;

/* the layout: sampler_shmem.h */
SamplerShared *sampler_shared = NULL;


/* ------------------------------------------------------------------------
 * Shared memory.
 * ------------------------------------------------------------------------
 */

static Size
set_size(int nslots)
{
	return MAXALIGN(add_size(offsetof(SampleSet, rows), mul_size(nslots, sizeof(ProcSample))));
}

Size
sampler_shmem_size(void)
{
	Size		size = MAXALIGN(offsetof(SamplerShared, data));

	size = add_size(size, mul_size(2, set_size(compat_proc_slot_count())));
	size = add_size(size, MAXALIGN(mul_size(compat_proc_slot_count(), sizeof(PeakSlot))));
	size = add_size(size, mul_size(history_size, sizeof(HistoryEntry)));
	return size;
}

/* Attach to its shared memory, making it at server start (memprobe.c holds AddinShmemInitLock). */
void
sampler_shmem_init(void)
{
	bool		found;

	sampler_shared = ShmemInitStruct("memprobe_sampler", sampler_shmem_size(), &found);
	if (!found)
	{
		memset(sampler_shared, 0, sampler_shmem_size());
		pg_atomic_init_u64(&sampler_shared->generation, 0);
		pg_atomic_init_u64(&sampler_shared->history_next, 0);
		pg_atomic_init_u32(&sampler_shared->nbgw_types, 0);
		sampler_shared->nslots = compat_proc_slot_count();
		sampler_shared->history_size = history_size;
		sampler_shared->set_size = set_size(sampler_shared->nslots);
		for (int i = 0; i < sampler_shared->nslots; i++)
			pg_atomic_init_u32(&peak_slots()[i].changecount, 0);
	}
}

/* ------------------------------------------------------------------------
 * The sampler's own state: per process, what outlives one sample.
 * ------------------------------------------------------------------------
 */

typedef struct ProcState
{
	int			pid;			/* hash key */
	TimestampTz proc_start;		/* tells a reused pid from the process it was */
	int64		max_private;
	int64		last_private;	/* at the previous sample, or -1 */
	int64		grown;			/* this sample: its growth since the previous one */
	int64		between;		/* at its last sample idle outside a transaction, or -1 */
	uint64		stmt;			/* statement_id.h */
	uint64		stmt_queryid;
	int64		stmt_peak;
	int64		group_bytes;	/* this sample: own, plus workers' and query DSM for a leader */
	int			nworkers;		/* this sample: its parallel workers sampled */
	int			procno;			/* its PGPROC number */
	int			leader_pid;		/* its parallel leader, or 0 */
	bool		leads;			/* has led a parallel query (its own lock group leader) */
	QueryDsmCache dsm;			/* what query_dsm.c found of its statement's shared memory */
	int			bgw_type;		/* a background worker's, once looked up */
	bool		bgw_type_known;
	uint64		seen;			/* the last cycle that saw it */
} ProcState;

static HTAB *proc_states = NULL;
static uint64 cycle = 0;
static const char **activities = NULL;	/* this sample's query texts, by row */
static char *fastpath_texts = NULL;	/* by row: a fast-path call's, which core does not keep */

#define FASTPATH_TEXT_SIZE 256
static bool proc_readable = true;

/*
 * Nothing known yet of the process a state is for: a pid seen for the first
 * time (proc_start 0 until its status entry is read), or a new process with
 * a pid seen before (proc_start its start).
 */
static void
proc_state_reset(ProcState *ps, TimestampTz proc_start)
{
	ps->proc_start = proc_start;
	ps->max_private = 0;
	ps->last_private = -1;
	ps->between = -1;
	ps->stmt = 0;
	ps->stmt_queryid = 0;
	ps->stmt_peak = 0;
	memset(&ps->dsm, 0, sizeof(ps->dsm));
	ps->bgw_type_known = false;
}

/*
 * Resident anonymous memory of pid in bytes (statm's resident minus shared,
 * in pages), or -1 if the process is gone or cannot be read.
 */
static int64
private_bytes_of(int pid)
{
	char		path[64];
	char		buf[256];
	int			fd;
	ssize_t		len;
	unsigned long size,
				resident,
				share;

	snprintf(path, sizeof(path), "/proc/%d/statm", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return -1;
	buf[len] = '\0';
	if (sscanf(buf, "%lu %lu %lu", &size, &resident, &share) != 3)
		return -1;
	if (share > resident)
		return 0;
	return (int64) (resident - share) * (int64) sysconf(_SC_PAGESIZE);
}

/*
 * Note every process that has a PGPROC this cycle, with its PGPROC number
 * and parallel leader (read without a lock, as pg_stat_get_activity reads
 * lockGroupLeader).
 */
static void
note_procs(void)
{
	for (uint32 i = 0; i < ProcGlobal->allProcCount && i < (uint32) sampler_shared->nslots; i++)
	{
		PGPROC	   *proc = &ProcGlobal->allProcs[i];
		int			pid = proc->pid;
		PGPROC	   *leader = proc->lockGroupLeader;
		bool		found;
		ProcState  *ps;

		if (pid == 0)
			continue;
		ps = hash_search(proc_states, &pid, HASH_ENTER, &found);
		if (!found)
			proc_state_reset(ps, 0);
		ps->procno = (int) i;
		ps->leader_pid = (leader != NULL && leader->pid != pid) ? leader->pid : 0;
		ps->leads = leader == proc;
		ps->seen = cycle;
	}
}

static void
write_peak_slot(ProcState *ps)
{
	PeakSlot   *slot = &peak_slots()[ps->procno];

	changecount_write_begin(&slot->changecount);
	slot->pid = ps->pid;
	slot->stmt = ps->stmt;
	slot->stmt_peak = ps->stmt_peak;
	changecount_write_end(&slot->changecount);
}

static void
append_history(const ProcSample *row, TimestampTz now)
{
	uint64		n = pg_atomic_read_u64(&sampler_shared->history_next);
	HistoryEntry *e = &history_ring()[n % sampler_shared->history_size];

	e->sampled_at = now;
	e->pid = row->pid;
	e->backend_type = row->backend_type;
	e->bgw_type = row->bgw_type;
	e->queryid = row->queryid;
	e->private_bytes = row->private_bytes;
	pg_write_barrier();
	pg_atomic_write_u64(&sampler_shared->history_next, n + 1);
}

static void guard_sample(SampleSet *set);
static void save_largest(SampleSet *set);

/* The number of name in bgw_types (added if new and there is room), or 0. */
static int
bgw_type_number(const char *name)
{
	uint32		n = pg_atomic_read_u32(&sampler_shared->nbgw_types);

	for (uint32 i = 0; i < n; i++)
		if (strcmp(sampler_shared->bgw_types[i], name) == 0)
			return (int) i + 1;
	if (n == MAX_BGW_TYPES)
		return 0;
	strlcpy(sampler_shared->bgw_types[n], name, BGW_MAXLEN);
	pg_write_barrier();
	pg_atomic_write_u32(&sampler_shared->nbgw_types, n + 1);
	return (int) n + 1;
}

/*
 * A background worker's type (its number in bgw_types), looked up once per
 * process: core's list of registered workers, under its lock.
 */
static int
bgw_type_of(ProcState *ps, int pid)
{
	if (!ps->bgw_type_known)
	{
		const char *name = GetBackgroundWorkerTypeByPid(pid);

		ps->bgw_type = name != NULL ? bgw_type_number(name) : 0;
		ps->bgw_type_known = true;
	}
	return ps->bgw_type;
}

const char *
sampler_backend_type_name(int backend_type, int bgw_type)
{
	if (bgw_type > 0 && sampler_shared != NULL &&
		(uint32) bgw_type <= pg_atomic_read_u32(&sampler_shared->nbgw_types))
	{
		pg_read_barrier();
		return sampler_shared->bgw_types[bgw_type - 1];
	}
	return GetBackendTypeDesc((BackendType) backend_type);
}

/*
 * sample_once
 *		Read every process's memory, attribute it to the statement running,
 *		and publish the sample.  Returns the number of processes sampled.
 */
static int
sample_once(void)
{
	uint64		gen = pg_atomic_read_u64(&sampler_shared->generation);
	SampleSet  *set = set_at(gen + 1);
	TimestampTz now = GetCurrentTimestamp();
	int			nbackends;
	int			n = 0;
	HASH_SEQ_STATUS seq;
	ProcState  *ps;

	cycle++;
	note_procs();
	pgstat_clear_backend_activity_snapshot();
	nbackends = pgstat_fetch_stat_numbackends();

	for (int i = 1; i <= nbackends && n < sampler_shared->nslots; i++)
	{
		LocalPgBackendStatus *local = compat_local_beentry(i);
		PgBackendStatus *be;
		ProcSample *row;
		int64		bytes;

		if (local == NULL)
			continue;
		be = &local->backendStatus;
		if (be->st_procpid <= 0 ||
			(ps = hash_search(proc_states, &be->st_procpid, HASH_FIND, NULL)) == NULL ||
			ps->seen != cycle ||
			(bytes = private_bytes_of(be->st_procpid)) < 0)
			continue;
		if (ps->proc_start != be->st_proc_start_timestamp)
		{
			/* a new process with a pid seen before */
			proc_state_reset(ps, be->st_proc_start_timestamp);
		}
		ps->max_private = Max(ps->max_private, bytes);
		ps->grown = ps->last_private >= 0 ? bytes - ps->last_private : 0;
		ps->last_private = bytes;
		ps->group_bytes = bytes;
		ps->nworkers = 0;

		activities[n] = be->st_activity_raw;
		row = &set->rows[n++];
		row->pid = be->st_procpid;
		row->leader_pid = ps->leader_pid;
		row->backend_type = (int) be->st_backendType;
		row->bgw_type = be->st_backendType == B_BG_WORKER ? bgw_type_of(ps, be->st_procpid) : 0;
		row->userid = be->st_userid;
		row->state = (int) be->st_state;
		/*
		 * A fast-path call leaves the status entry's text, query id and
		 * query start at the previous query's: its own start is the state's,
		 * it has no query id, and its text is the function called.
		 */
		row->queryid = be->st_state == STATE_RUNNING ? (uint64) be->st_query_id : 0;
		row->stmt_start = be->st_state == STATE_RUNNING ? be->st_activity_start_timestamp :
			be->st_state == STATE_FASTPATH ? be->st_state_start_timestamp : 0;
		row->stmt = row->stmt_start != 0 ? statement_began(ps->procno) : 0;
		if (be->st_state == STATE_FASTPATH)
		{
			char	   *text = fastpath_texts + (n - 1) * FASTPATH_TEXT_SIZE;

			if (statement_fastpath_text(ps->procno, row->stmt, text, FASTPATH_TEXT_SIZE))
				activities[n - 1] = text;
			else
				activities[n - 1] = "fastpath function call";
		}
		row->private_bytes = bytes;
		row->max_private_bytes = ps->max_private;
	}

	/*
	 * A parallel query's memory: its workers' at this sample count for the
	 * leader's statement, and so does the dynamic shared memory it holds (a
	 * parallel hash join's hash table), which statm counts as shared.
	 */
	for (int i = 0; i < n; i++)
	{
		ProcSample *row = &set->rows[i];

		if (row->leader_pid != 0 &&
			(ps = hash_search(proc_states, &row->leader_pid, HASH_FIND, NULL)) != NULL &&
			ps->seen == cycle)
		{
			ps->group_bytes += row->private_bytes;
			ps->nworkers++;
		}
	}
	for (int i = 0; i < n; i++)
	{
		ProcSample *row = &set->rows[i];

		ps = hash_search(proc_states, &row->pid, HASH_FIND, NULL);
		if (ps->leads && row->stmt != 0)
			ps->group_bytes += query_dsm_bytes(row->pid, row->stmt, ps->nworkers, &ps->dsm);
		if (row->stmt == 0)
		{
			/* outside a transaction: what no cancel frees (in one, an abort may) */
			if (row->state == STATE_IDLE)
				ps->between = row->private_bytes;
			ps->stmt = 0;
			ps->stmt_queryid = 0;
			ps->stmt_peak = 0;
		}
		else if (ps->stmt == row->stmt && ps->stmt_queryid == row->queryid)
			ps->stmt_peak = Max(ps->stmt_peak, ps->group_bytes);
		else
		{
			ps->stmt = row->stmt;
			ps->stmt_queryid = row->queryid;
			ps->stmt_peak = ps->group_bytes;
		}
		row->stmt_peak = ps->stmt_peak;
		write_peak_slot(ps);
		if (sampler_shared->history_size > 0 && row->private_bytes >= (int64) history_min_kb * 1024)
			append_history(row, now);
	}

	set->nrows = n;
	set->sampled_at = now;
	pg_write_barrier();
	pg_atomic_write_u64(&sampler_shared->generation, gen + 1);

	/* the crash file first: the guard re-reads the status snapshot that activities[] points into */
	save_largest(set);
	guard_sample(set);

	/* forget processes that are gone */
	hash_seq_init(&seq, proc_states);
	while ((ps = hash_seq_search(&seq)) != NULL)
		if (ps->seen != cycle)
			hash_search(proc_states, &ps->pid, HASH_REMOVE, NULL);
	return n;
}

/* Hand the sample to the guard (guard.c), which may cancel statements. */
static void
guard_sample(SampleSet *set)
{
	static GuardCandidate *candidates = NULL;

	if (candidates == NULL)
		candidates = MemoryContextAlloc(TopMemoryContext,
										sampler_shared->nslots * sizeof(GuardCandidate));
	for (int i = 0; i < set->nrows; i++)
	{
		ProcSample *row = &set->rows[i];
		ProcState  *ps = hash_search(proc_states, &row->pid, HASH_FIND, NULL);
		GuardCandidate *c = &candidates[i];

		c->pid = row->pid;
		c->procno = ps->procno;
		c->leader_pid = row->leader_pid;
		c->backend_type = row->backend_type;
		c->bgw_type = row->bgw_type;
		c->userid = row->userid;
		c->state = row->state;
		c->in_transaction = row->state == STATE_IDLEINTRANSACTION ||
			row->state == STATE_IDLEINTRANSACTION_ABORTED;
		c->queryid = row->queryid;
		c->stmt = row->stmt;
		c->stmt_started_at = row->stmt_start;
		c->private_bytes = row->private_bytes;
		c->grown_bytes = ps->grown;
		c->between_bytes = ps->between;
		c->group_bytes = ps->group_bytes;
	}
	guard_after_sample(candidates, set->nrows, set->sampled_at);
}

/*
 * What the crash file keeps: the LAST_SAMPLES processes that hold the most,
 * each at its latest sample while it lived.  Not simply the last sample's:
 * the kernel frees a killed process's memory at once, and the postmaster
 * reaps it a little later, so a sample in between sees the victim at 0
 * bytes (a zombie) or not at all, and would name a bystander (t/005 once
 * saw the autovacuum launcher named for a victim sampled 100ms before).
 * So a process that was in the list and is now dead or gone keeps its last
 * live figure for DEAD_GRACE_MS (at least two samples); one that lives is
 * always at its latest figure (one that held much and freed it is no
 * longer the largest).
 */
#define DEAD_GRACE_MS	1000

static LastSample kept[LAST_SAMPLES];
static int	nkept = 0;

/* Put s into list (n entries, at most LAST_SAMPLES, most first) if it is among the largest. */
static void
largest_add(LastSample *list, int *n, const LastSample *s)
{
	int			at;

	if (*n < LAST_SAMPLES)
		at = (*n)++;
	else if (list[LAST_SAMPLES - 1].private_bytes < s->private_bytes)
		at = LAST_SAMPLES - 1;
	else
		return;
	list[at] = *s;
	for (; at > 0 && list[at - 1].private_bytes < list[at].private_bytes; at--)
	{
		LastSample	tmp = list[at - 1];

		list[at - 1] = list[at];
		list[at] = tmp;
	}
}

/* Keep the largest processes where a crash leaves them (last_samples.c). */
static void
save_largest(SampleSet *set)
{
	int64		grace_ms = Max(DEAD_GRACE_MS, 2 * (int64) sample_interval);
	LastSample	largest[LAST_SAMPLES];
	int			n = 0;

	for (int i = 0; i < set->nrows; i++)
	{
		ProcSample *row = &set->rows[i];
		LastSample	s;

		if (row->private_bytes == 0 ||
			(n == LAST_SAMPLES && row->private_bytes <= largest[LAST_SAMPLES - 1].private_bytes))
			continue;			/* dead (a zombie), or too small to be kept */
		s.sampled_at = set->sampled_at;
		s.pid = row->pid;
		strlcpy(s.backend_type, sampler_backend_type_name(row->backend_type, row->bgw_type),
				sizeof(s.backend_type));
		s.queryid = row->queryid;
		s.private_bytes = row->private_bytes;
		strlcpy(s.query, activities[i] ? activities[i] : "", sizeof(s.query));
		largest_add(largest, &n, &s);
	}
	/* the processes kept before that are dead or gone now: their last live figure, a while */
	for (int k = 0; k < nkept; k++)
	{
		bool		alive = false;

		for (int i = 0; i < set->nrows && !alive; i++)
			alive = set->rows[i].pid == kept[k].pid && set->rows[i].private_bytes > 0;
		if (!alive &&
			!TimestampDifferenceExceeds(kept[k].sampled_at, set->sampled_at, (int) grace_ms))
			largest_add(largest, &n, &kept[k]);
	}
	memcpy(kept, largest, n * sizeof(LastSample));
	nkept = n;
	last_samples_save(kept, nkept);
}

/*
 * A sampler whose samples take more than 1/SAMPLE_COST_WARN of its interval
 * in CPU time uses that share of a core, all the time: a sample's cost grows
 * with the processes it reads, so with a few hundred of them the shortest
 * intervals keep a core busy (bench/RESULTS.md, "the sampler").  One
 * WARNING per value of memprobe.sample_interval,
 * after SAMPLE_COST_RUN samples in a row over the line (CPU time, not wall
 * time: a sampler descheduled on a busy machine costs nothing meanwhile).
 */
#define SAMPLE_COST_WARN 20
#define SAMPLE_COST_RUN 3

/* this process's user + system CPU time, in microseconds */
static int64
cpu_time_us(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return (int64) (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 +
		ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
}

static void
check_sample_cost(int nprocs, int64 cpu_us)
{
	static double warned_interval = 0;
	static int	over = 0;

	if (warned_interval == sample_interval)
		return;
	if (cpu_us * SAMPLE_COST_WARN <= (int64) sample_interval * 1000)
	{
		over = 0;
		return;
	}
	if (++over < SAMPLE_COST_RUN)
		return;
	over = 0;
	warned_interval = sample_interval;
	ereport(WARNING,
			errmsg("memprobe.sample_interval is short for this server"),
			errdetail("It is %g ms, and a sample of %d processes takes %.2f ms of CPU time, so the memprobe sampler uses about %.0f%% of a CPU core.",
					  sample_interval, nprocs, cpu_us / 1000.0,
					  Min(100.0, 100.0 * cpu_us / (sample_interval * 1000.0))),
			errhint("Set memprobe.sample_interval to %d ms or more to keep the sampler under %d%% of a core.",
					(int) Min(60 * 60 * 1000, (cpu_us * SAMPLE_COST_WARN + 999) / 1000),
					100 / SAMPLE_COST_WARN));
}

/* Can this machine's /proc give a process's memory?  Logs once when not. */
static bool
proc_available(void)
{
	if (private_bytes_of(MyProcPid) >= 0)
		return true;
	ereport(LOG,
			errmsg("memprobe cannot read \"/proc/%d/statm\"", MyProcPid),
			errdetail("The sampler reads each process's resident memory from /proc/PID/statm (Linux); it samples no process memory."));
	return false;
}

void
memprobe_sampler_main(Datum main_arg)
{
	HASHCTL		info;
	TimestampTz next = 0;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, SignalHandlerForShutdownRequest);
	BackgroundWorkerUnblockSignals();

	info.keysize = sizeof(int);
	info.entrysize = sizeof(ProcState);
	info.hcxt = TopMemoryContext;
	proc_states = hash_create("memprobe sampler processes", 256, &info,
							  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	proc_readable = proc_available();
	activities = MemoryContextAllocZero(TopMemoryContext, sampler_shared->nslots * sizeof(char *));
	fastpath_texts = MemoryContextAllocZero(TopMemoryContext, sampler_shared->nslots * FASTPATH_TEXT_SIZE);
	last_samples_recover();
	guard_warn_if_sampling_off();

	while (!ShutdownRequestPending)
	{
		long		timeout = -1;
		int			events = WL_LATCH_SET | WL_EXIT_ON_PM_DEATH;
		TimestampTz now = GetCurrentTimestamp();

		if (sample_interval > 0 && proc_readable)
		{
			if (now >= next)
			{
				int64		cpu_before = cpu_time_us();
				int			nprocs = sample_once();
				int64		interval_us = (int64) (sample_interval * 1000);
				int64		step_us = guard_sample_step_us(interval_us);

				/* the cost of the interval set, not of the guard's faster samples */
				if (step_us == interval_us)
					check_sample_cost(nprocs, cpu_time_us() - cpu_before);
				/* a fixed schedule, not drifting by the time a sample takes */
				next += step_us;
				if (next <= now)
					next = now + step_us;
				now = GetCurrentTimestamp();
			}
			timeout = Max(0, (next - now + 999) / 1000);
			events |= WL_TIMEOUT;
		}

		(void) WaitLatch(MyLatch, events, timeout, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();

		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
			guard_warn_if_sampling_off();
		}
	}
	/* a clean shutdown (a crash ends the sampler with SIGQUIT, before this) */
	last_samples_forget();
	/* 1: the postmaster starts it again if anything but shutdown stopped it */
	proc_exit(1);
}

/* ------------------------------------------------------------------------
 * Readers (the others: sampler_readers.c).
 * ------------------------------------------------------------------------
 */

bool
sampler_sampling(void)
{
	return sample_interval > 0;
}

/* ------------------------------------------------------------------------
 * Setup.
 * ------------------------------------------------------------------------
 */

/*
 * memprobe.sample_interval: below 1ms is refused, not taken as 0 (which
 * turns sampling and the guard off): "500us" was accepted as an integer
 * setting and rounded to 0 without a word.
 */
static bool
check_sample_interval(double *newval, void **extra, GucSource source)
{
	if (*newval > 0 && *newval < 1)
	{
		GUC_check_errdetail("memprobe.sample_interval must be 0 (sampling off) or at least 1ms.");
		return false;
	}
	return true;
}

void
sampler_init(void)
{
	GucContext	size_context = process_shared_preload_libraries_in_progress ?
		PGC_POSTMASTER : PGC_SIGHUP;

	DefineCustomRealVariable("memprobe.sample_interval",
							 "Time between two samples of every process's private memory.",
							 "0 turns the sampler off; otherwise at least 1ms.  The memory guard samples "
							 "faster while memory runs short.",
							 &sample_interval, 1000, 0, 60 * 60 * 1000,
							 PGC_SIGHUP, GUC_UNIT_MS, check_sample_interval, NULL, NULL);
	DefineCustomIntVariable("memprobe.history_size",
							"Samples memprobe_history keeps.",
							"Each takes 40 bytes of shared memory.",
							&history_size, 4096, 0, 1024 * 1024,
							size_context, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("memprobe.history_min_bytes",
							"Private memory a process must hold for its samples to enter memprobe_history.",
							NULL,
							&history_min_kb, 64 * 1024, 0, INT_MAX / 2,
							PGC_SIGHUP, GUC_UNIT_KB, NULL, NULL, NULL);
}

/* The sampler's background worker: only when memprobe is preloaded (memprobe.c). */
void
sampler_register_worker(void)
{
	BackgroundWorker worker;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS;
	worker.bgw_start_time = BgWorkerStart_PostmasterStart;
	worker.bgw_restart_time = 10;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "memprobe");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "memprobe_sampler_main");
	snprintf(worker.bgw_name, BGW_MAXLEN, "memprobe sampler");
	snprintf(worker.bgw_type, BGW_MAXLEN, "memprobe sampler");
	RegisterBackgroundWorker(&worker);
}
