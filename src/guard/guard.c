/*-------------------------------------------------------------------------
 *
 * guard.c
 *	  The memory guard: after each sample (sampler.c) it cancels the running
 *	  statement of a process whose private memory passed
 *	  memprobe.backend_memory_limit, and, when the memory the kernel still
 *	  gives the server (available_memory.c) falls below
 *	  memprobe.min_available_memory, the statement of the process holding
 *	  the most, one at a time, so that a runaway statement fails with "out
 *	  of memory" before the kernel's OOM killer kills a backend and the
 *	  postmaster restarts every session.
 *
 * Only client backends' and parallel workers' statements are cancelled (a
 * worker's cancel fails its leader's query); walsenders, autovacuum,
 * background workers and auxiliary processes are reported by the sampler,
 * never touched.  A cancel must be able to help: for min_available_memory
 * the process holding the most of all (a parallel query counted as one,
 * with its workers and its dynamic shared memory) must be a running client
 * statement holding a quarter of the setting; otherwise nothing is
 * cancelled, and the log says once per shortage which process holds the
 * memory and what bounds it.  Settings that can never be met (at or above
 * the memory there is; below what an idle backend holds) are warned about
 * once and ignored.  A cancelled statement that keeps growing without taking
 * the cancel is capped (data_cap.c).
 *
 * How a statement is cancelled: the sampler writes the reason and figures
 * into the process's slot (cancel.h: by PGPROC number, under a change
 * counter), then sends it SIGINT, as pg_cancel_backend() does; in the
 * process, core's query cancel becomes the guard's error, 53200 (cancel.c,
 * and the emit_log_hook, guard_log_emitting).  A cancel is sent only if the
 * statement sampled is still the one running (statement_still_running), so
 * that it does not fail the next statement with core's "canceling statement
 * due to user request"; and the server log has the guard's LOG line either
 * way.
 *
 * What the guard sees is readable from SQL (memprobe_guard): at each sample
 * the sampler publishes the available memory (computed whether or not
 * min_available_memory is set) and the largest process into the one of two
 * slots readers are not told to read, each under a change counter, then
 * names it the latest; the statements cancelled are counted per setting in
 * atomics.  The sampler is the only writer, and readers never wait on it.
 *
 * What it cannot catch: memory that grows by more than the headroom between
 * two samples (one allocation of 900MB), memory of processes outside
 * PostgreSQL, and a process idle in a transaction (it has no statement to
 * cancel: the guard logs it once, and cancels nothing smaller instead).
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <signal.h>

#include "access/htup_details.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "port/atomics.h"
#include "storage/ipc.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "utils/backend_status.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "guard/available_memory.h"
#include "guard/cancel.h"
#include "guard/data_cap.h"
#include "guard/guard.h"
#include "guard/sampler.h"
#include "guard/statement_id.h"
#include "shared/injection.h"
#include "shared/changecount.h"
#include "shared/compat.h"
#include "shared/stats_privileges.h"

/* memprobe.backend_memory_limit, memprobe.min_available_memory (kB; 0: off) */
static int	backend_limit_kb = 0;
static int	min_available_kb = 0;

/* What the guard saw at one sample, as memprobe_guard shows it. */
typedef struct GuardSample
{
	pg_atomic_uint32 changecount;	/* odd while the sampler writes it */
	TimestampTz sampled_at;		/* 0: no sample yet */
	int64		available;		/* bytes; -1: unknown */
	int			source;			/* AvailableSource */
	int			largest_pid;	/* 0: no process sampled */
	Oid			largest_userid;	/* its role: who may see it (memprobe_may_see) */
	int64		largest_bytes;
} GuardSample;

typedef struct GuardShared
{
	int			nslots;
	pg_atomic_uint64 cancels[GUARD_REASONS];	/* cancels sent, per setting */
	pg_atomic_uint64 last_cancel_at;	/* TimestampTz of the last; 0: none */
	pg_atomic_uint32 latest;	/* which of samples[] readers read */
	GuardSample samples[2];		/* the sampler writes the other one */
	GuardSlot	slots[FLEXIBLE_ARRAY_MEMBER];
} GuardShared;

static GuardShared *shared = NULL;


/* ------------------------------------------------------------------------
 * Shared memory.
 * ------------------------------------------------------------------------
 */

Size
guard_shmem_size(void)
{
	return add_size(offsetof(GuardShared, slots), mul_size(compat_proc_slot_count(), sizeof(GuardSlot)));
}

/* Attach to its shared memory, making it at server start (memprobe.c holds AddinShmemInitLock). */
void
guard_shmem_init(void)
{
	bool		found;

	shared = ShmemInitStruct("memprobe_guard", guard_shmem_size(), &found);
	if (!found)
	{
		memset(shared, 0, guard_shmem_size());
		shared->nslots = compat_proc_slot_count();
		for (int r = 0; r < GUARD_REASONS; r++)
			pg_atomic_init_u64(&shared->cancels[r], 0);
		pg_atomic_init_u64(&shared->last_cancel_at, 0);
		pg_atomic_init_u32(&shared->latest, 0);
		for (int i = 0; i < lengthof(shared->samples); i++)
			pg_atomic_init_u32(&shared->samples[i].changecount, 0);
		for (int i = 0; i < shared->nslots; i++)
			pg_atomic_init_u32(&shared->slots[i].changecount, 0);
	}
}

/* ------------------------------------------------------------------------
 * Sizes as the messages show them: "2.1 GB", "512 MB", "900 kB".
 * ------------------------------------------------------------------------
 */

char *
size_text(int64 bytes)
{
	if (bytes >= INT64CONST(1024) * 1024 * 1024)
		return psprintf("%.1f GB", (double) bytes / (1024.0 * 1024 * 1024));
	if (bytes >= 1024 * 1024)
		return psprintf("%.0f MB", (double) bytes / (1024.0 * 1024));
	return psprintf("%.0f kB", (double) bytes / 1024.0);
}

/*
 * A figure and the setting it is compared with, as size_text shows them, but
 * told apart: where both would read the same ("300 MB fell below ... (300
 * MB)"), both get as many decimals as it takes in their common unit (up to
 * three), or else are shown in bytes.
 */
void
size_texts_apart(int64 figure, int64 setting, char **figure_text, char **setting_text)
{
	double		unit = 1024.0;
	const char *unit_name = "kB";

	*figure_text = size_text(figure);
	*setting_text = size_text(setting);
	if (figure == setting || strcmp(*figure_text, *setting_text) != 0)
		return;
	if (Max(figure, setting) >= INT64CONST(1024) * 1024 * 1024)
	{
		unit = 1024.0 * 1024 * 1024;
		unit_name = "GB";
	}
	else if (Max(figure, setting) >= 1024 * 1024)
	{
		unit = 1024.0 * 1024;
		unit_name = "MB";
	}
	for (int decimals = 1; decimals <= 3; decimals++)
	{
		*figure_text = psprintf("%.*f %s", decimals, (double) figure / unit, unit_name);
		*setting_text = psprintf("%.*f %s", decimals, (double) setting / unit, unit_name);
		if (strcmp(*figure_text, *setting_text) != 0)
			return;
	}
	*figure_text = psprintf(INT64_FORMAT " bytes", figure);
	*setting_text = psprintf(INT64_FORMAT " bytes", setting);
}

/* ------------------------------------------------------------------------
 * The cancel slots, for the cancelled process (cancel.c).
 * ------------------------------------------------------------------------
 */

GuardSlot *
guard_slot(int procno)
{
	if (shared == NULL || procno < 0 || procno >= shared->nslots)
		return NULL;
	return &shared->slots[procno];
}

/* ------------------------------------------------------------------------
 * Deciding, in the sampler.
 * ------------------------------------------------------------------------
 */

/*
 * min_available_memory cancels a statement only if it holds at least this
 * fraction of the setting (1/4: 64MB of 256MB).  Below that, cancelling
 * cannot give the server its headroom back: the memory is elsewhere (shared
 * buffers, page cache, a process outside PostgreSQL, many small backends),
 * and cancelling one small statement after another frees nothing while the
 * shortfall stays.  A runaway statement passes it long before it matters:
 * measured, pgbench -S backends hold 2-4MB, the runaways of t/005 hundreds.
 */
#define MIN_AVAILABLE_SHARE 4

/* the sampler's memory of what it did, per process */
typedef struct GuardState
{
	int			pid;			/* hash key */
	uint64		cancelled_stmt;	/* the statement last cancelled */
	int64		cancelled_bytes;	/* its private memory when the cancel was sent */
	TimestampTz cancelled_at;	/* when it was sent */
	uint64		capped_stmt;	/* the statement whose process was capped (data_cap.c) */
	bool		cap_in_place;	/* and the cap is not known to be lifted yet */
	int64		cap_old_limit;	/* the limit before the cap (-1: none) */
	bool		warned;			/* logged as above backend_memory_limit, not cancellable */
	bool		between_warned; /* logged as above it between statements */
} GuardState;

static HTAB *guard_states = NULL;

/* the last statement cancelled for min_available_memory, until it ends */
static int	pending_pid = 0;
static uint64 pending_stmt = 0;

/*
 * One shortage episode: from the sample that finds the available memory
 * below min_available_memory to the one that finds it above again.  What the
 * guard could not cancel is logged once per episode.
 */
static int	episode_holder_logged = 0;	/* pid of the holder named in the log */
static bool episode_small_logged = false;

/* Settings found impossible and warned about (0: none); the guard ignores them. */
static int64 impossible_min_available = 0;
static int64 impossible_min_available_total = 0;
static int64 impossible_backend_limit = 0;
/* backend_memory_limit once an idle backend showed it possible (0: not yet) */
static int64 judged_backend_limit = 0;

/*
 * Sampling faster when the guard may soon have to act.  A runaway grows by
 * hundreds of MB a second (the audit's: 62-575 MB/s), so at the default
 * interval of 1s it can pass from "plenty left" to the OOM killer between
 * two samples.  After each sample the guard estimates how long the headroom
 * lasts (the memory above min_available_memory, or a process's distance to
 * backend_memory_limit) at the fastest growth it saw since the previous
 * sample (a process's, over the time its statement ran if it started since,
 * or the available memory's fall), and asks for the
 * next sample after a quarter of that: down to STEP_FLOOR_US, and at the
 * floor while the memory is short, or a cancelled statement still runs (so
 * that its cap follows at once).  And before anything grows: a runaway
 * that starts just after a sample is seen only at the next, so the headroom
 * above min_available_memory must outlast one step at the fastest growth
 * expected (ASSUMED_GROWTH: an array_agg of 1000-byte texts grew at about
 * 1GB a second on this machine, README), twice over.  With plenty of memory
 * and nothing growing fast the interval stays as set.  The floor: a sample takes ~9us of CPU
 * per process (bench/RESULTS.md, "the sampler"), 200 processes ~2ms, so
 * 10ms samples take a fifth of a core, for the seconds a shortage lasts.
 */
#define STEP_FLOOR_US	10000
#define STEP_SHARE		4
#define ASSUMED_GROWTH	1000.0	/* bytes per microsecond: 1GB a second */

static bool is_client(const GuardCandidate *c);
static bool can_cancel(const GuardCandidate *c);

static int64 next_step_us = -1; /* -1: the interval as set */
static TimestampTz prev_sampled_at = 0;
static int64 prev_avail = -1;

/* the process that held the most at the previous sample, for when it is gone */
static int	prev_largest_pid = 0;
static int64 prev_largest_bytes = 0;

int64
guard_sample_step_us(int64 interval_us)
{
	if (next_step_us < 0 || next_step_us >= interval_us)
		return interval_us;
	return Max(next_step_us, Min(STEP_FLOOR_US, interval_us));
}

/* Is a statement the guard cancelled still running, not capped yet? */
static bool
cancelled_still_running(const GuardCandidate *candidates, int n)
{
	if (guard_states == NULL || hash_get_num_entries(guard_states) == 0)
		return false;
	for (int i = 0; i < n; i++)
	{
		const GuardCandidate *c = &candidates[i];
		GuardState *gs;

		if (can_cancel(c) &&
			(gs = hash_search(guard_states, &c->pid, HASH_FIND, NULL)) != NULL &&
			gs->cancelled_stmt == c->stmt && gs->capped_stmt != c->stmt)
			return true;
	}
	return false;
}

/* The next sample's step (next_step_us) from this one's figures; limits in bytes, 0: off. */
static void
plan_next_step(const GuardCandidate *candidates, int n, TimestampTz sampled_at,
			   int64 avail, int64 limit, int64 min_avail)
{
	double		dt_us = prev_sampled_at != 0 ? (double) (sampled_at - prev_sampled_at) : 0;
	double		step_us = -1;
	double		fastest = 0;	/* bytes per microsecond */

	next_step_us = -1;
	if (limit == 0 && min_avail == 0)
		return;
	if (data_cap_enabled() && cancelled_still_running(candidates, n))
	{
		next_step_us = 0;
		return;
	}
	if (dt_us > 0)
	{
		for (int i = 0; i < n; i++)
		{
			const GuardCandidate *c = &candidates[i];
			double		since = dt_us;
			double		rate;

			/* a statement that started since grew in less time than that */
			if (c->stmt_started_at > prev_sampled_at && c->stmt_started_at < sampled_at)
				since = (double) (sampled_at - c->stmt_started_at);
			rate = c->grown_bytes / since;

			if (rate <= 0)
				continue;
			fastest = Max(fastest, rate);
			if (limit > 0 && is_client(c))
			{
				double		t = (limit - c->private_bytes) / rate / STEP_SHARE;

				step_us = step_us < 0 ? t : Min(step_us, t);
			}
		}
		if (prev_avail >= 0 && avail >= 0 && prev_avail > avail)
			fastest = Max(fastest, (prev_avail - avail) / dt_us);
	}
	if (min_avail > 0 && avail >= 0)
	{
		double		t;

		if (avail <= min_avail)
			t = 0;
		else
			t = (avail - min_avail) / Max(fastest * STEP_SHARE, ASSUMED_GROWTH * 2);
		step_us = step_us < 0 ? t : Min(step_us, t);
	}
	if (step_us >= 0)
		next_step_us = (int64) Max(step_us, 0);
}

/* The shortage is over (or the setting off): what is logged once per shortage may be again. */
static void
end_shortage(void)
{
	episode_holder_logged = 0;
	episode_small_logged = false;
}

static GuardState *
guard_state(int pid)
{
	bool		found;
	GuardState *gs;

	if (guard_states == NULL)
	{
		HASHCTL		info;

		info.keysize = sizeof(int);
		info.entrysize = sizeof(GuardState);
		info.hcxt = TopMemoryContext;
		guard_states = hash_create("memprobe guard processes", 64, &info,
								   HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	gs = hash_search(guard_states, &pid, HASH_ENTER, &found);
	if (!found)
	{
		gs->cancelled_stmt = 0;
		gs->cancelled_bytes = 0;
		gs->capped_stmt = 0;
		gs->cap_in_place = false;
		gs->cap_old_limit = -1;
		gs->warned = false;
		gs->between_warned = false;
	}
	return gs;
}

/* A client backend or a parallel worker: the processes the guard may cancel. */
static bool
is_client(const GuardCandidate *c)
{
	return c->backend_type == B_BACKEND ||
		(c->backend_type == B_BG_WORKER && c->leader_pid != 0);
}

/*
 * A client statement (or a fast-path call) or a parallel worker's part of
 * one, running now.
 */
static bool
can_cancel(const GuardCandidate *c)
{
	return is_client(c) && c->stmt != 0 &&
		(c->state == STATE_RUNNING || c->state == STATE_FASTPATH);
}

/*
 * Is c's statement still the one running in its process?  The sample's
 * status snapshot was read before every process's memory: a short statement
 * can end, and the next begin, in between, and a cancel sent then would
 * fail the next one with core's 57014.  So read the status array afresh
 * just before the cancel (one snapshot; a sample rarely cancels more than
 * one statement).  The remaining window is the few microseconds to kill().
 */
static bool
statement_still_running(const GuardCandidate *c)
{
	int			nbackends;

	pgstat_clear_backend_activity_snapshot();
	nbackends = pgstat_fetch_stat_numbackends();
	for (int i = 1; i <= nbackends; i++)
	{
		LocalPgBackendStatus *local = compat_local_beentry(i);

		if (local != NULL && local->backendStatus.st_procpid == c->pid)
			return (local->backendStatus.st_state == STATE_RUNNING ||
					local->backendStatus.st_state == STATE_FASTPATH) &&
				statement_began(c->procno) == c->stmt;
	}
	return false;
}

/*
 * Cancel c's running statement: say why in its slot, then send SIGINT, if
 * the process in that PGPROC is still c's and still runs that statement.
 */
static void
cancel_statement(const GuardCandidate *c, GuardReason reason, int64 figure, int64 limit)
{
	GuardSlot  *slot = &shared->slots[c->procno];
	GuardState *gs = guard_state(c->pid);
	char	   *figure_text,
			   *limit_text;

	if (gs->cancelled_stmt == c->stmt)
		return;					/* sent already; it is on its way out */
	if (ProcGlobal->allProcs[c->procno].pid != c->pid || !statement_still_running(c))
		return;

	changecount_write_begin(&slot->changecount);
	slot->pid = c->pid;
	slot->stmt = c->stmt;
	slot->reason = reason;
	slot->figure = figure;
	slot->limit = limit;
	slot->held = c->group_bytes;
	slot->sent_at = GetCurrentTimestamp();
	changecount_write_end(&slot->changecount);

	gs->cancelled_stmt = c->stmt;
	gs->cancelled_bytes = c->private_bytes;
	gs->cancelled_at = GetCurrentTimestamp();
	size_texts_apart(figure, limit, &figure_text, &limit_text);
	if (reason == GUARD_BACKEND_LIMIT)
		ereport(LOG,
				errmsg("memprobe: canceling the statement of process %d (query id %lld) because its memory %s exceeded memprobe.backend_memory_limit (%s)",
					   c->pid, (long long) c->queryid, figure_text, limit_text));
	else
		ereport(LOG,
				errmsg("memprobe: canceling the statement of process %d (query id %lld), which held the most memory (%s), because the server's available memory %s fell below memprobe.min_available_memory (%s)",
					   c->pid, (long long) c->queryid, size_text(c->group_bytes),
					   figure_text, limit_text));
	if (kill(c->pid, SIGINT) != 0)
	{
		ereport(LOG,
				errmsg("memprobe: could not send a cancel to process %d: %m", c->pid));
		return;
	}
	/* counted once sent: memprobe_guard's cancels_* (the sampler is the only writer) */
	pg_atomic_fetch_add_u64(&shared->cancels[reason], 1);
	pg_atomic_write_u64(&shared->last_cancel_at, (uint64) GetCurrentTimestamp());
}

/*
 * A statement cancelled at an earlier sample, at least CAP_GRACE_MS ago,
 * that still runs and has grown since is not taking the cancel (no
 * CHECK_FOR_INTERRUPTS in its loop): cap its process's memory, so that its
 * next allocation fails inside the statement before the kernel kills the
 * process (data_cap.c).  The grace: the guard samples every 10ms while a
 * cancelled statement runs (plan_next_step), and a statement busy in one
 * long allocation takes the cancel a little later; capped, it would fail
 * with a bare "out of memory" instead of the guard's message.
 */
#define CAP_GRACE_MS	100

static void
cap_ignored_cancels(const GuardCandidate *candidates, int n, int64 avail,
					TimestampTz sampled_at)
{
	if (guard_states == NULL)
		return;
	for (int i = 0; i < n; i++)
	{
		const GuardCandidate *c = &candidates[i];
		GuardState *gs;
		int64		cap_bytes;

		if (!can_cancel(c) ||
			(gs = hash_search(guard_states, &c->pid, HASH_FIND, NULL)) == NULL ||
			gs->cancelled_stmt != c->stmt || gs->capped_stmt == c->stmt ||
			c->private_bytes <= gs->cancelled_bytes ||
			!TimestampDifferenceExceeds(gs->cancelled_at, sampled_at, CAP_GRACE_MS - 1))
			continue;
		if (!data_cap_process(c->pid, c->procno, c->stmt, &cap_bytes, &gs->cap_old_limit))
			continue;
		gs->capped_stmt = c->stmt;
		gs->cap_in_place = true;

		/*
		 * The limit counts what the process has mapped (VmData), which may be
		 * far more than it holds in memory (a reserved buffer it has not
		 * touched): room the server may not have.
		 */
		if (avail >= 0 && cap_bytes - c->private_bytes > avail)
			ereport(LOG,
					errmsg("memprobe: the statement of process %d (query id %lld) grew from %s to %s after the guard cancelled it: its data size limit is lowered to %s, so that its next allocation fails",
						   c->pid, (long long) c->queryid, size_text(gs->cancelled_bytes),
						   size_text(c->private_bytes), size_text(cap_bytes)),
					errdetail("The limit cannot help: it leaves the process room for %s more than it holds, and the server can give only %s.  The statement did not act on the cancel.",
							  size_text(cap_bytes - c->private_bytes), size_text(avail)));
		else
			ereport(LOG,
					errmsg("memprobe: the statement of process %d (query id %lld) grew from %s to %s after the guard cancelled it: its data size limit is lowered to %s, so that its next allocation fails",
						   c->pid, (long long) c->queryid, size_text(gs->cancelled_bytes),
						   size_text(c->private_bytes), size_text(cap_bytes)),
					errdetail("The statement did not act on the cancel.  The process restores its limit when the statement ends."));
	}
}

/*
 * A cap whose statement the sampler no longer sees running (idle, idle in
 * a transaction, or another statement) is lifted here, should the
 * statement have ended where the process could not say so (data_cap.c).
 */
static void
lift_ended_caps(const GuardCandidate *candidates, int n)
{
	HASH_SEQ_STATUS seq;
	GuardState *gs;

	if (guard_states == NULL)
		return;
	hash_seq_init(&seq, guard_states);
	while ((gs = hash_seq_search(&seq)) != NULL)
	{
		const GuardCandidate *c = NULL;

		if (!gs->cap_in_place)
			continue;
		for (int i = 0; i < n && c == NULL; i++)
			if (candidates[i].pid == gs->pid)
				c = &candidates[i];
		if (c == NULL || (can_cancel(c) && c->stmt == gs->capped_stmt))
			continue;
		gs->cap_in_place = false;
		if (data_cap_lift_ended(c->pid, c->procno, gs->cap_old_limit))
			ereport(LOG,
					errmsg("memprobe: lifted the data size limit of process %d: the statement it was lowered for is no longer running",
						   c->pid));
	}
}

/* A setting's value as the server shows it ("64MB"), for the hints below. */
static const char *
setting_text(const char *name)
{
	const char *value = GetConfigOptionByName(name, NULL, true);

	return value ? value : "?";
}

/*
 * Why the guard leaves process c alone, and what bounds its memory instead:
 * the hint of the LOG lines below.
 */
static char *
uncancellable_hint(const GuardCandidate *c)
{
	switch (c->backend_type)
	{
		case B_WAL_SENDER:
			return psprintf("A walsender decoding a transaction keeps up to logical_decoding_work_mem (%s) of its changes in memory before it spills them to disk; lower it, or end the replication connection.",
							setting_text("logical_decoding_work_mem"));
		case B_AUTOVAC_WORKER:
			return psprintf("An autovacuum worker's memory is bounded by autovacuum_work_mem (%s; -1 means maintenance_work_mem, %s); lower it.  The guard never cancels autovacuum: core cancels it only when it blocks a lock.",
							setting_text("autovacuum_work_mem"), setting_text("maintenance_work_mem"));
		case B_BACKEND:
			if (c->in_transaction)
				return pstrdup("It is idle in a transaction, with no statement to cancel: end the transaction, or terminate the process with pg_terminate_backend().");
			return pstrdup("It is idle: this is memory it keeps between statements (caches, prepared statements, temporary buffers); terminating it with pg_terminate_backend() frees it.");
		case B_BG_WORKER:
			return pstrdup("Background workers are not cancelled by the guard; the worker's own settings bound its memory.");
		default:
			return pstrdup("The guard cancels client statements only.");
	}
}

/*
 * What a process's statement added to the memory it held between
 * statements (at its last sample between them; all of it when never seen
 * between).  A cancel frees only that: what a process keeps between
 * statements (what PL/Perl's allocator kept after a statement that grew,
 * caches, temporary buffers, a large setting) stays, and cancelling its
 * next small statement for it frees nothing.  A statement that adds a
 * quarter of the setting itself is cancelled as any other.
 */
#define ADDED_SHARE 4

static int64
added_bytes(const GuardCandidate *c)
{
	return c->between_bytes >= 0 ? c->group_bytes - c->between_bytes : c->group_bytes;
}

/*
 * A client process whose memory between statements is most of what the
 * setting (limit bytes) is about: its statement is not cancelled for it.
 * Logged once while it holds that much between statements.
 */
static bool
held_between(const GuardCandidate *c, int64 limit, const char *setting)
{
	GuardState *gs;

	if (c->between_bytes < 0 || added_bytes(c) >= limit / ADDED_SHARE ||
		c->between_bytes < limit / ADDED_SHARE)
		return false;
	gs = guard_state(c->pid);
	if (!gs->between_warned)
	{
		gs->between_warned = true;
		ereport(LOG,
				errmsg("memprobe: process %d (%s) held %s between statements; the guard does not cancel its statement, which added %s, for %s",
					   c->pid, sampler_backend_type_name(c->backend_type, c->bgw_type),
					   size_text(c->between_bytes), size_text(Max(added_bytes(c), 0)), setting),
				errdetail("A cancel frees only what a statement added; the memory a process keeps between statements stays."),
				errhint("This is memory the process keeps between statements (what a procedural language's allocator kept, caches, temporary buffers, a large setting); terminating it with pg_terminate_backend() frees it.  A statement that adds a quarter of %s is still cancelled.",
						setting));
	}
	return true;
}

/* backend_memory_limit: a process above it that has no statement to cancel, logged once. */
static void
warn_uncancellable_once(const GuardCandidate *c, int64 limit)
{
	GuardState *gs = guard_state(c->pid);
	char	   *held_text,
			   *limit_text;

	if (gs->warned)
		return;
	gs->warned = true;
	size_texts_apart(c->private_bytes, limit, &held_text, &limit_text);
	ereport(LOG,
			errmsg("memprobe: process %d (%s) holds %s, more than memprobe.backend_memory_limit (%s), but has no running statement the guard may cancel",
				   c->pid, sampler_backend_type_name(c->backend_type, c->bgw_type),
				   held_text, limit_text),
			errhint("%s", uncancellable_hint(c)));
}

/*
 * Publish what the guard sees at this sample for memprobe_guard: write the
 * slot readers are not told to read, then tell them to read it.
 */
static void
publish_sample(const GuardCandidate *candidates, int n, TimestampTz sampled_at,
			   int64 avail, AvailableSource source)
{
	uint32		next = 1 - pg_atomic_read_u32(&shared->latest);
	GuardSample *sample = &shared->samples[next];
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
	pg_atomic_write_u32(&shared->latest, next);
}

/*
 * The process that holds the most memory of all the server's: a parallel
 * query counts as one, its leader's, with its workers' memory (a worker
 * whose leader was not sampled counts alone).
 */
static const GuardCandidate *
largest_holder(const GuardCandidate *candidates, int n)
{
	const GuardCandidate *largest = NULL;

	for (int i = 0; i < n; i++)
	{
		const GuardCandidate *c = &candidates[i];
		bool		leader_sampled = false;

		for (int k = 0; k < n && c->leader_pid != 0 && !leader_sampled; k++)
			leader_sampled = candidates[k].pid == c->leader_pid;
		if (leader_sampled)
			continue;
		if (largest == NULL || c->group_bytes > largest->group_bytes)
			largest = c;
	}
	return largest;
}

/*
 * When the process holding the most keeps its memory between statements
 * (held_between), the running client statement that added the most, if it
 * added a quarter of min_available_memory: what a cancel can free.
 */
static const GuardCandidate *
largest_added(const GuardCandidate *candidates, int n, int64 min_avail)
{
	const GuardCandidate *best = NULL;

	for (int i = 0; i < n; i++)
	{
		const GuardCandidate *c = &candidates[i];

		if (can_cancel(c) && c->leader_pid == 0 && added_bytes(c) >= min_avail / MIN_AVAILABLE_SHARE &&
			(best == NULL || added_bytes(c) > added_bytes(best)))
			best = c;
	}
	return best;
}

/*
 * Did the process that held the most at the previous sample, enough for
 * min_available_memory to cancel it, vanish (or become a zombie) since?
 */
static bool
largest_gone(const GuardCandidate *candidates, int n, int64 min_avail)
{
	if (prev_largest_pid == 0 || prev_largest_bytes < min_avail / MIN_AVAILABLE_SHARE)
		return false;
	for (int i = 0; i < n; i++)
		if (candidates[i].pid == prev_largest_pid)
			return candidates[i].private_bytes == 0;
	return true;
}

/*
 * min_available_memory: when avail fell below min_avail, cancel the
 * statement of the process that holds the most memory of all, if cancelling
 * it can help: it holds at least 1/MIN_AVAILABLE_SHARE of min_avail, and it
 * is a client statement running now.  Otherwise cancel nothing, and say once
 * in this shortage why: the largest holds little, or it is a process that
 * has no statement to cancel (named, with what bounds its memory).  One at a
 * time: while the last one cancelled still runs, wait for it.
 */
static void
guard_min_available(GuardCandidate *candidates, int n, int64 avail, int64 min_avail)
{
	const GuardCandidate *holder;
	char	   *avail_text,
			   *min_avail_text;

	if (avail < 0 || avail >= min_avail)
	{
		end_shortage();
		return;
	}

	for (int i = 0; i < n && pending_pid != 0; i++)
		if (candidates[i].pid == pending_pid && candidates[i].stmt == pending_stmt)
			return;
	pending_pid = 0;

	if ((holder = largest_holder(candidates, n)) == NULL)
		return;
	if (holder->group_bytes < min_avail / MIN_AVAILABLE_SHARE)
	{
		if (!episode_small_logged && largest_gone(candidates, n, min_avail))
		{
			episode_small_logged = true;
			size_texts_apart(avail, min_avail, &avail_text, &min_avail_text);
			ereport(LOG,
					errmsg("memprobe: the server's available memory %s is below memprobe.min_available_memory (%s), and the process that held the most at the previous sample, %d (%s), is gone",
						   avail_text, min_avail_text, prev_largest_pid,
						   size_text(prev_largest_bytes)),
					errdetail("It ended or was killed between two samples; the kernel's OOM killer kills the process that holds the most.  The guard cancels nothing now: the process holding the most, %d, holds only %s.",
							  holder->pid, size_text(holder->group_bytes)),
					errhint("A shorter memprobe.sample_interval, or a larger memprobe.min_available_memory, leaves the guard time to act."));
		}
		if (!episode_small_logged)
		{
			episode_small_logged = true;
			size_texts_apart(avail, min_avail, &avail_text, &min_avail_text);
			ereport(LOG,
					errmsg("memprobe: the server's available memory %s is below memprobe.min_available_memory (%s), but the process holding the most, %d (%s), holds only %s; the guard cancels nothing",
						   avail_text, min_avail_text, holder->pid,
						   sampler_backend_type_name(holder->backend_type, holder->bgw_type),
						   size_text(holder->group_bytes)),
					errdetail("The guard cancels a statement only if it holds at least a quarter of memprobe.min_available_memory: the memory is held elsewhere (shared memory, the page cache, other programs, many small processes)."));
		}
		return;
	}
	if (!can_cancel(holder))
	{
		if (episode_holder_logged != holder->pid)
		{
			episode_holder_logged = holder->pid;
			size_texts_apart(avail, min_avail, &avail_text, &min_avail_text);
			ereport(LOG,
					errmsg("memprobe: the server's available memory %s is below memprobe.min_available_memory (%s), but the process holding the most, %d (%s, %s), has no statement the guard may cancel; the guard cancels nothing else",
						   avail_text, min_avail_text, holder->pid,
						   sampler_backend_type_name(holder->backend_type, holder->bgw_type),
						   size_text(holder->group_bytes)),
					errhint("%s", uncancellable_hint(holder)));
		}
		return;
	}
	if (held_between(holder, min_avail, "memprobe.min_available_memory") &&
		(holder = largest_added(candidates, n, min_avail)) == NULL)
		return;
	cancel_statement(holder, GUARD_MIN_AVAILABLE, avail, min_avail);
	pending_pid = holder->pid;
	pending_stmt = holder->stmt;
}

/*
 * min_available_memory at or above the memory it is measured against can
 * never be met: one WARNING (per value and limit), and the guard ignores it.
 */
static bool
min_available_possible(int64 min_avail, int64 total, AvailableSource source)
{
	if (total <= 0 || min_avail < total)
	{
		impossible_min_available = 0;
		return true;
	}
	if (impossible_min_available != min_avail || impossible_min_available_total != total)
	{
		impossible_min_available = min_avail;
		impossible_min_available_total = total;
		ereport(WARNING,
				errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				errmsg("memprobe.min_available_memory (%s) can never be met: the server's memory is %s (%s)",
					   size_text(min_avail), size_text(total),
					   source == AVAILABLE_MEMAVAILABLE ? "MemTotal" :
					   source == AVAILABLE_CGROUP_V2 ? "cgroup v2 memory.max" :
					   "cgroup v1 memory.limit_in_bytes"),
				errdetail("The memory guard does not act on memprobe.min_available_memory until it is set below that."));
	}
	return false;
}

/*
 * backend_memory_limit at or below what an idle client backend holds would
 * cancel every statement of every backend: one WARNING, and the guard
 * ignores it.  Judged by the smallest idle client backend: once an idle
 * backend holds less than the limit, the limit is possible until the
 * setting changes (a session that later idles holding much, a large session
 * variable or what a PL's allocator kept, does not turn a limit others pass
 * into one found impossible).  Until then it is judged again at every
 * sample.  While no client backend is idle (a server started with the limit
 * in postgresql.conf, its clients all busy), it is judged against what a
 * fresh backend holds, FRESH_BACKEND_BYTES, or the smallest client backend
 * if that holds less: below that it is impossible for now, the WARNING once
 * per value, and no cancel.  An idle backend holding more than
 * FRESH_BACKEND_SHARE times that is no fresh backend (the only idle one may
 * be a session keeping a large setting): the same judge then, and such
 * sessions' statements are not cancelled for what they keep anyway
 * (held_between).
 *
 * FRESH_BACKEND_BYTES: a client backend after its first statement holds
 * 2.8-3 MB on 15.20 and 2 MB on 18 (cassert builds; pgbench -S backends
 * sampled), so 2 MB.  Not the sampler's own memory: a fork of the
 * postmaster that has touched little, it held under 1 MB on 18.
 */
#define FRESH_BACKEND_BYTES (INT64CONST(2) * 1024 * 1024)
#define FRESH_BACKEND_SHARE 4

static bool
backend_limit_possible(const GuardCandidate *candidates, int n, int64 limit)
{
	const GuardCandidate *idle = NULL;
	const GuardCandidate *least = NULL;
	int64		judge_bytes;
	char	   *limit_text,
			   *judge_text;

	if (limit == judged_backend_limit)
		return true;
	for (int i = 0; i < n; i++)
	{
		const GuardCandidate *c = &candidates[i];

		if (c->backend_type != B_BACKEND || c->private_bytes <= 0)
			continue;
		if (c->state == STATE_IDLE && (idle == NULL || c->private_bytes < idle->private_bytes))
			idle = c;
		if (least == NULL || c->private_bytes < least->private_bytes)
			least = c;
	}
	if (idle != NULL && idle->private_bytes > FRESH_BACKEND_SHARE * FRESH_BACKEND_BYTES)
		idle = NULL;
	if (idle != NULL)
		judge_bytes = idle->private_bytes;
	else if (least != NULL && least->private_bytes < FRESH_BACKEND_BYTES)
		judge_bytes = least->private_bytes;
	else
		judge_bytes = FRESH_BACKEND_BYTES;
	if (limit > judge_bytes)
	{
		if (idle != NULL)
			judged_backend_limit = limit;	/* for good */
		impossible_backend_limit = 0;
		return true;
	}
	if (impossible_backend_limit == limit)
		return false;			/* warned already */
	impossible_backend_limit = limit;
	size_texts_apart(limit, judge_bytes, &limit_text, &judge_text);
	ereport(WARNING,
			errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			idle != NULL ?
			errmsg("memprobe.backend_memory_limit (%s) is below what an idle backend holds (%s, process %d)",
				   limit_text, judge_text, idle->pid) :
			errmsg("memprobe.backend_memory_limit (%s) is below what a fresh backend holds (%s)",
				   limit_text, judge_text),
			errdetail("Every statement would pass it; the memory guard does not act on memprobe.backend_memory_limit until it is set above that."));
	return false;
}

static void forget_states(GuardCandidate *candidates, int n);

void
guard_after_sample(GuardCandidate *candidates, int n, TimestampTz sampled_at)
{
	int64		limit = (int64) backend_limit_kb * 1024;
	int64		min_avail = (int64) min_available_kb * 1024;
	AvailableSource source;
	int64		avail;
	int64		total;

	if (shared == NULL)
		return;
	/* at every sample, so that memprobe_guard shows it whether or not the guard is on */
	avail = available_memory(&source, &total);
	publish_sample(candidates, n, sampled_at, avail, source);

	forget_states(candidates, n);
	lift_ended_caps(candidates, n);
	if (data_cap_enabled() && (limit > 0 || min_avail > 0))
		cap_ignored_cancels(candidates, n, avail, sampled_at);
	if (limit == 0)
		judged_backend_limit = 0;	/* set again later: judged again */
	else if (!backend_limit_possible(candidates, n, limit))
		limit = 0;
	if (min_avail > 0 && !min_available_possible(min_avail, total, source))
		min_avail = 0;

	if (limit > 0)
	{
		for (int i = 0; i < n; i++)
		{
			GuardCandidate *c = &candidates[i];

			if (c->private_bytes <= limit || !is_client(c))
				continue;			/* the setting applies to client backends and workers */
			if (!can_cancel(c))
				warn_uncancellable_once(c, limit);
			else if (c->between_bytes < limit ||
					 !held_between(c, limit, "memprobe.backend_memory_limit"))
				cancel_statement(c, GUARD_BACKEND_LIMIT, c->private_bytes, limit);
		}
	}

	if (min_avail > 0)
		guard_min_available(candidates, n, avail, min_avail);
	else
		end_shortage();

	plan_next_step(candidates, n, sampled_at, avail, limit, min_avail);
	prev_sampled_at = sampled_at;
	prev_avail = avail;
	{
		const GuardCandidate *largest = largest_holder(candidates, n);

		prev_largest_pid = largest ? largest->pid : 0;
		prev_largest_bytes = largest ? largest->group_bytes : 0;
	}
}

/*
 * Forget the processes that are gone, and the warning about a client backend
 * that runs a statement again (a later idle spell is logged again).
 */
static void
forget_states(GuardCandidate *candidates, int n)
{
	HASH_SEQ_STATUS seq;
	GuardState *gs;

	if (guard_states == NULL || hash_get_num_entries(guard_states) == 0)
		return;
	hash_seq_init(&seq, guard_states);
	while ((gs = hash_seq_search(&seq)) != NULL)
	{
		const GuardCandidate *c = NULL;

		for (int i = 0; i < n && c == NULL; i++)
			if (candidates[i].pid == gs->pid)
				c = &candidates[i];
		if (c == NULL)
			hash_search(guard_states, &gs->pid, HASH_REMOVE, NULL);
		else if (c->backend_type == B_BACKEND && c->state == STATE_RUNNING)
			gs->warned = false;
		if (c != NULL && c->between_bytes >= 0 &&
			c->between_bytes < (int64) backend_limit_kb * 1024 / ADDED_SHARE)
			gs->between_warned = false;
	}
}

/* ------------------------------------------------------------------------
 * Reading, from SQL.
 * ------------------------------------------------------------------------
 */

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
		uint32		latest = pg_atomic_read_u32(&shared->latest);
		GuardSample *sample = &shared->samples[latest];

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
	Assert(shared != NULL);
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
	values[i++] = Int64GetDatum((int64) backend_limit_kb * 1024);
	values[i++] = Int64GetDatum((int64) min_available_kb * 1024);
	values[i++] = Int64GetDatum((int64) pg_atomic_read_u64(&shared->cancels[GUARD_BACKEND_LIMIT]));
	values[i++] = Int64GetDatum((int64) pg_atomic_read_u64(&shared->cancels[GUARD_MIN_AVAILABLE]));
	last_cancel = (TimestampTz) pg_atomic_read_u64(&shared->last_cancel_at);
	if (last_cancel != 0)
		values[i++] = TimestampTzGetDatum(last_cancel);
	else
		nulls[i++] = true;
	Assert(i == GUARD_COLS);

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/* ------------------------------------------------------------------------
 * Setup.
 * ------------------------------------------------------------------------
 */

void
guard_init(void)
{
	DefineCustomIntVariable("memprobe.backend_memory_limit",
							"Private memory past which a process's running statement is cancelled.",
							"Client backends and parallel workers only; checked at each sample of "
							"memprobe.sample_interval.  0 turns it off.",
							&backend_limit_kb, 0, 0, INT_MAX,
							PGC_SIGHUP, GUC_UNIT_KB, NULL, NULL, NULL);
	DefineCustomIntVariable("memprobe.min_available_memory",
							"Memory left to the server below which the largest running statement is cancelled.",
							"The memory cgroup's limit less its working set, or MemAvailable; one "
							"statement at a time, checked at each sample.  0 turns it off.",
							&min_available_kb, 0, 0, INT_MAX,
							PGC_SIGHUP, GUC_UNIT_KB, NULL, NULL, NULL);
}

/*
 * In the sampler, at its start and after each reload: the limits are checked
 * at each sample only, so with sampling off (memprobe.sample_interval = 0)
 * they guard nothing.  One WARNING when that begins, none again until the
 * settings have been right once.
 */
void
guard_warn_if_sampling_off(void)
{
	static bool warned = false;

	if (sampler_sampling() || (backend_limit_kb == 0 && min_available_kb == 0))
	{
		warned = false;
		return;
	}
	if (warned)
		return;
	warned = true;
	ereport(WARNING,
			errmsg("memprobe's memory guard does nothing while memprobe.sample_interval is 0"),
			errdetail("memprobe.backend_memory_limit is %d kB and memprobe.min_available_memory is %d kB, "
					  "but the guard checks them at each sample, and no process is sampled.",
					  backend_limit_kb, min_available_kb),
			errhint("Set memprobe.sample_interval above 0 for the guard to act, or set both limits to 0."));
}
