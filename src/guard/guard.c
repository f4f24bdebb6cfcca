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
 * memory and what bounds it.  Settings that can never be met are warned
 * about once and ignored (impossible_settings.c).  A cancelled statement
 * that keeps growing without taking the cancel is capped (data_cap.c).
 *
 * A statement is cancelled with SIGINT, as pg_cancel_backend() does, and
 * in the process core's query cancel becomes the guard's error, 53200
 * (cancel_statement, cancel.c).
 *
 * What the guard sees is readable from SQL (memprobe_guard, guard_view.c):
 * the available memory (computed whether or not min_available_memory is
 * set), the largest process, and the statements cancelled per setting.
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

#include "miscadmin.h"
#include "pgstat.h"
#include "port/atomics.h"
#include "storage/ipc.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "utils/backend_status.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "guard/available_memory.h"
#include "guard/cancel.h"
#include "guard/data_cap.h"
#include "guard/guard.h"
#include "guard/guard_shmem.h"
#include "guard/size_text.h"
#include "guard/sampler.h"
#include "guard/statement_id.h"
#include "shared/injection.h"
#include "shared/changecount.h"
#include "shared/compat.h"

/* memprobe.backend_memory_limit, memprobe.min_available_memory (kB; 0: off) */
int			guard_backend_limit_kb = 0;
int			guard_min_available_kb = 0;

GuardShared *guard_shared = NULL;



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

	guard_shared = ShmemInitStruct("memprobe_guard", guard_shmem_size(), &found);
	if (!found)
	{
		memset(guard_shared, 0, guard_shmem_size());
		guard_shared->nslots = compat_proc_slot_count();
		for (int r = 0; r < GUARD_REASONS; r++)
			pg_atomic_init_u64(&guard_shared->cancels[r], 0);
		pg_atomic_init_u64(&guard_shared->last_cancel_at, 0);
		pg_atomic_init_u32(&guard_shared->latest, 0);
		for (int i = 0; i < lengthof(guard_shared->samples); i++)
			pg_atomic_init_u32(&guard_shared->samples[i].changecount, 0);
		for (int i = 0; i < guard_shared->nslots; i++)
			pg_atomic_init_u32(&guard_shared->slots[i].changecount, 0);
	}
}

/* ------------------------------------------------------------------------
 * The cancel slots, for the cancelled process (cancel.c).
 * ------------------------------------------------------------------------
 */

GuardSlot *
guard_slot(int procno)
{
	if (guard_shared == NULL || procno < 0 || procno >= guard_shared->nslots)
		return NULL;
	return &guard_shared->slots[procno];
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
 * an OLTP backend holds a few MB, a runaway hundreds (README).
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

/*
 * Sampling faster when the guard may soon have to act.  A runaway grows by
 * hundreds of MB a second (bench/RESULTS.md, "The default interval"), so at
 * the default interval of 1s it can pass from "plenty left" to the OOM
 * killer between two samples.  After each sample the guard estimates how
 * long the headroom lasts (the memory above min_available_memory, or a
 * process's distance to backend_memory_limit) at the fastest growth it saw
 * since the previous sample (a process's, over the time its statement ran
 * if it started since, or the available memory's fall), and asks for the
 * next sample after a quarter of that: down to STEP_FLOOR_US, and at the
 * floor while the memory is short, or a cancelled statement still runs (so
 * that its cap follows at once).  And before anything grows: a runaway
 * that starts just after a sample is seen only at the next, so the headroom
 * above min_available_memory must outlast one step at the fastest growth
 * expected (ASSUMED_GROWTH: an array_agg of 1000-byte texts grew at about
 * 1GB a second on this machine, README), twice over.  With plenty of memory
 * and nothing growing fast the interval stays as set.  The floor: at
 * STEP_FLOOR_US a sampler with a few hundred processes to read takes a
 * sizeable share of a core (bench/RESULTS.md, "the sampler"), for the
 * seconds a shortage lasts.
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
 * The sampler writes the reason and figures into the process's slot
 * (cancel.h: by PGPROC number, under a change counter), then sends SIGINT,
 * as pg_cancel_backend() does; in the process, core's query cancel becomes
 * the guard's error, 53200 (cancel.c, and the emit_log_hook,
 * guard_log_emitting).  A cancel is sent only if the statement sampled is
 * still the one running (statement_still_running), so that it does not
 * fail the next statement with core's "canceling statement due to user
 * request"; and the server log has the guard's LOG line either way.
 */
static void
cancel_statement(const GuardCandidate *c, GuardReason reason, int64 figure, int64 limit)
{
	GuardSlot  *slot = &guard_shared->slots[c->procno];
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
				errmsg("memprobe is canceling the statement of process %d due to memprobe.backend_memory_limit",
					   c->pid),
				errdetail("Its memory, %s, exceeded the limit of %s.  Its query id is %lld.",
						  figure_text, limit_text, (long long) c->queryid));
	else
		ereport(LOG,
				errmsg("memprobe is canceling the statement of process %d due to memprobe.min_available_memory",
					   c->pid),
				errdetail("The server's available memory, %s, fell below the minimum of %s, and the statement held the most memory, %s.  Its query id is %lld.",
						  figure_text, limit_text, size_text(c->group_bytes),
						  (long long) c->queryid));
	if (kill(c->pid, SIGINT) != 0)
	{
		ereport(LOG,
				errmsg("memprobe could not send signal to process %d: %m", c->pid));
		return;
	}
	/* counted once sent: memprobe_guard's cancels_* (the sampler is the only writer) */
	pg_atomic_fetch_add_u64(&guard_shared->cancels[reason], 1);
	pg_atomic_write_u64(&guard_shared->last_cancel_at, (uint64) GetCurrentTimestamp());
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
					errmsg("memprobe lowered the data size limit of process %d to %s",
						   c->pid, size_text(cap_bytes)),
					errdetail("Its statement (query id %lld) grew from %s to %s after memprobe canceled it, without acting on the cancel.  The limit cannot help: it leaves the process room for %s more than it holds, and the server can give only %s.",
							  (long long) c->queryid, size_text(gs->cancelled_bytes),
							  size_text(c->private_bytes),
							  size_text(cap_bytes - c->private_bytes), size_text(avail)));
		else
			ereport(LOG,
					errmsg("memprobe lowered the data size limit of process %d to %s",
						   c->pid, size_text(cap_bytes)),
					errdetail("Its statement (query id %lld) grew from %s to %s after memprobe canceled it, without acting on the cancel, so its next allocation fails.  The process restores its limit when the statement ends.",
							  (long long) c->queryid, size_text(gs->cancelled_bytes),
							  size_text(c->private_bytes)));
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
					errmsg("memprobe lifted the data size limit of process %d", c->pid),
					errdetail("The statement it was lowered for is no longer running."));
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
				errmsg("memprobe does not cancel the statement of process %d (%s) for %s",
					   c->pid, sampler_backend_type_name(c->backend_type, c->bgw_type), setting),
				errdetail("The process held %s between statements, and its statement added %s.  A cancel frees only what a statement added; the memory a process keeps between statements stays.",
						  size_text(c->between_bytes), size_text(Max(added_bytes(c), 0))),
				errhint("Terminating the process with pg_terminate_backend() frees what it keeps between statements (what a procedural language's allocator kept, caches, temporary buffers, a large setting).  A statement that adds a quarter of %s is still canceled.",
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
			errmsg("memprobe has no statement to cancel in process %d (%s), over memprobe.backend_memory_limit",
				   c->pid, sampler_backend_type_name(c->backend_type, c->bgw_type)),
			errdetail("The process holds %s; the limit is %s.", held_text, limit_text),
			errhint("%s", uncancellable_hint(c)));
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
					errmsg("memprobe cancels no statement for memprobe.min_available_memory"),
					errdetail("The server's available memory, %s, is below the minimum of %s, and the process that held the most at the previous sample, %d (%s), is gone: it ended or was killed between two samples, and the kernel's OOM killer kills the process that holds the most.  The process holding the most now, %d, holds only %s.",
							  avail_text, min_avail_text, prev_largest_pid,
							  size_text(prev_largest_bytes),
							  holder->pid, size_text(holder->group_bytes)),
					errhint("A shorter memprobe.sample_interval, or a larger memprobe.min_available_memory, leaves the guard time to act."));
		}
		if (!episode_small_logged)
		{
			episode_small_logged = true;
			size_texts_apart(avail, min_avail, &avail_text, &min_avail_text);
			ereport(LOG,
					errmsg("memprobe cancels no statement for memprobe.min_available_memory"),
					errdetail("The server's available memory, %s, is below the minimum of %s, but the process holding the most, %d (%s), holds only %s.  memprobe cancels a statement only if it holds at least a quarter of memprobe.min_available_memory: the memory is held elsewhere (shared memory, the page cache, other programs, many small processes).",
							  avail_text, min_avail_text, holder->pid,
							  sampler_backend_type_name(holder->backend_type, holder->bgw_type),
							  size_text(holder->group_bytes)));
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
					errmsg("memprobe cancels no statement for memprobe.min_available_memory"),
					errdetail("The server's available memory, %s, is below the minimum of %s, and the process holding the most, %d (%s, %s), has no statement memprobe may cancel; memprobe cancels nothing else.",
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

static void forget_states(GuardCandidate *candidates, int n);

void
guard_after_sample(GuardCandidate *candidates, int n, TimestampTz sampled_at)
{
	int64		limit = (int64) guard_backend_limit_kb * 1024;
	int64		min_avail = (int64) guard_min_available_kb * 1024;
	AvailableSource source;
	int64		avail;
	int64		total;

	if (guard_shared == NULL)
		return;
	/* at every sample, so that memprobe_guard shows it whether or not the guard is on */
	avail = available_memory(&source, &total);
	guard_publish_sample(candidates, n, sampled_at, avail, source);

	forget_states(candidates, n);
	lift_ended_caps(candidates, n);
	if (data_cap_enabled() && (limit > 0 || min_avail > 0))
		cap_ignored_cancels(candidates, n, avail, sampled_at);
	if (limit == 0)
		guard_backend_limit_off();
	else if (!guard_backend_limit_possible(candidates, n, limit))
		limit = 0;
	if (min_avail > 0 && !guard_min_available_possible(min_avail, total, source))
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
			c->between_bytes < (int64) guard_backend_limit_kb * 1024 / ADDED_SHARE)
			gs->between_warned = false;
	}
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
							&guard_backend_limit_kb, 0, 0, INT_MAX,
							PGC_SIGHUP, GUC_UNIT_KB, NULL, NULL, NULL);
	DefineCustomIntVariable("memprobe.min_available_memory",
							"Memory left to the server below which the largest running statement is cancelled.",
							"The memory cgroup's limit less its working set, or MemAvailable; one "
							"statement at a time, checked at each sample.  0 turns it off.",
							&guard_min_available_kb, 0, 0, INT_MAX,
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

	if (sampler_sampling() || (guard_backend_limit_kb == 0 && guard_min_available_kb == 0))
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
					  guard_backend_limit_kb, guard_min_available_kb),
			errhint("Set memprobe.sample_interval above 0 for the guard to act, or set both limits to 0."));
}
