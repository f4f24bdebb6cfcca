/*-------------------------------------------------------------------------
 *
 * data_cap.c
 *	  Stopping a runaway statement that ignores the guard's cancel: the
 *	  sampler lowers the process's soft RLIMIT_DATA to about what it has
 *	  mapped, so that its next allocation fails inside the statement, and
 *	  the process lifts it again when the statement ends.
 *
 * A cancel only sets a flag that the process acts on at its next
 * CHECK_FOR_INTERRUPTS.  Code that allocates in a loop without one (a
 * PL/Python or PL/Perl function growing a list: Python's and Perl's own
 * allocators; C code of an extension) never sees it, and the kernel's OOM
 * killer then kills the process, and the postmaster every session with it.
 * RLIMIT_DATA (Linux 4.7 and later) counts a process's private writable
 * mappings: the heap and every malloc'd block, not shared buffers nor
 * dynamic shared memory.  A process of the same user may lower another's
 * soft limit with prlimit(2), as the sampler is.  Past it, malloc() and
 * mmap() fail: palloc raises "out of memory" (53200) naming the context and
 * the request, PL/Python raises MemoryError (the function fails with
 * 38000), PL/Perl dies with "Out of memory!".
 *
 * A cap must never outlive the statement it was meant for, nor catch a
 * process idle in a transaction.  The process writes the start of the
 * top-level statement it ends into its slot (at the end of each top-level
 * ExecutorRun, ExecutorEnd and utility statement, and at every abort),
 * then reads whether it is capped; the sampler sets "capped" first, then
 * lowers the limit, then reads whether that statement ended, and lifts the
 * limit again if so.  With a full barrier between each side's write and
 * read, at least one of them sees the other's: either the process lifts
 * the cap, or the sampler does.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/resource.h>

#include "access/xact.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/ipc.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "utils/backend_status.h"
#include "utils/guc.h"

#include "guard/data_cap.h"
#include "shared/compat.h"

/* memprobe.cap_after_cancel */
static bool cap_after_cancel = true;

/* Room left above what the process has mapped when it is capped. */
#define CAP_MARGIN	(INT64CONST(16) * 1024 * 1024)

/* One per PGPROC. */
typedef struct CapSlot
{
	pg_atomic_uint32 capped;	/* set by the sampler before it lowers the limit */
	pg_atomic_uint64 ended_stmt;	/* set by the process: the top-level statement it ended */
} CapSlot;

typedef struct CapShared
{
	int			nslots;
	CapSlot		slots[FLEXIBLE_ARRAY_MEMBER];
} CapShared;

static CapShared *shared = NULL;

/* the process's own RLIMIT_DATA, as the postmaster had it (inherited: taken in _PG_init) */
static struct rlimit original_limit;
static bool original_known = false;

static shmem_request_hook_type prev_shmem_request = NULL;
static shmem_startup_hook_type prev_shmem_startup = NULL;

Size
data_cap_shmem_size(void)
{
	return add_size(offsetof(CapShared, slots), mul_size(compat_proc_slot_count(), sizeof(CapSlot)));
}

static void
data_cap_shmem_request(void)
{
	if (prev_shmem_request)
		prev_shmem_request();
	RequestAddinShmemSpace(data_cap_shmem_size());
}

static void
data_cap_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup)
		prev_shmem_startup();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	shared = ShmemInitStruct("memprobe_cap", data_cap_shmem_size(), &found);
	if (!found)
	{
		shared->nslots = compat_proc_slot_count();
		for (int i = 0; i < shared->nslots; i++)
		{
			pg_atomic_init_u32(&shared->slots[i].capped, 0);
			pg_atomic_init_u64(&shared->slots[i].ended_stmt, 0);
		}
	}
	LWLockRelease(AddinShmemInitLock);
}

bool
data_cap_enabled(void)
{
	return cap_after_cancel && shared != NULL;
}

/* ------------------------------------------------------------------------
 * In the sampler.
 * ------------------------------------------------------------------------
 */

/* VmData of pid in bytes (its private writable mappings: what RLIMIT_DATA counts), or -1. */
static int64
vm_data_bytes(int pid)
{
	char		path[64];
	char		line[256];
	FILE	   *f;
	int64		kb = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if ((f = AllocateFile(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "VmData:", 7) == 0)
		{
			kb = strtoi64(line + 7, NULL, 10);
			break;
		}
	FreeFile(f);
	return kb < 0 ? -1 : kb * 1024;
}

bool
data_cap_process(int pid, int procno, TimestampTz stmt_start, int64 *cap_bytes)
{
	CapSlot    *slot;
	struct rlimit old;
	struct rlimit cap;
	int64		mapped;

	if (!data_cap_enabled() || procno < 0 || procno >= shared->nslots)
		return false;
	slot = &shared->slots[procno];
	if ((mapped = vm_data_bytes(pid)) < 0 || prlimit(pid, RLIMIT_DATA, NULL, &old) != 0)
		return false;
	cap.rlim_cur = (rlim_t) (mapped + CAP_MARGIN);
	cap.rlim_max = old.rlim_max;
	if ((old.rlim_cur != RLIM_INFINITY && old.rlim_cur <= cap.rlim_cur) ||
		(cap.rlim_max != RLIM_INFINITY && cap.rlim_cur > cap.rlim_max))
		return false;			/* its limit is that low already */

	pg_atomic_write_u32(&slot->capped, 1);
	pg_memory_barrier();
	if (pg_atomic_read_u64(&slot->ended_stmt) == (uint64) stmt_start)
	{
		pg_atomic_write_u32(&slot->capped, 0);
		return false;
	}
	if (prlimit(pid, RLIMIT_DATA, &cap, NULL) != 0)
	{
		ereport(LOG,
				errmsg("memprobe: could not lower the data size limit of process %d: %m", pid));
		pg_atomic_write_u32(&slot->capped, 0);
		return false;
	}
	pg_memory_barrier();
	if (pg_atomic_read_u64(&slot->ended_stmt) == (uint64) stmt_start)
	{
		/*
		 * The statement ended meanwhile: lift the cap, even if the process
		 * did already (it may have done so before our prlimit).
		 */
		(void) pg_atomic_exchange_u32(&slot->capped, 0);
		(void) prlimit(pid, RLIMIT_DATA, &old, NULL);
		return false;
	}
	*cap_bytes = (int64) cap.rlim_cur;
	return true;
}

/* ------------------------------------------------------------------------
 * In the process capped.
 * ------------------------------------------------------------------------
 */

/*
 * This process's slot once found (its number is its own for life), and what
 * it last wrote to the slot's ended_stmt: data_cap.h's inline test reads
 * the slot's capped flag and that.
 */
pg_atomic_uint32 *data_cap_my_capped = NULL;
uint64		data_cap_ended_written = 0;
static CapSlot *my_slot = NULL;

void
data_cap_statement_end_slow(void)
{
	uint64		ended;

	if (unlikely(my_slot == NULL))
	{
		int			procno = compat_my_proc_number();

		if (shared == NULL || procno < 0 || procno >= shared->nslots)
			return;
		my_slot = &shared->slots[procno];
		data_cap_my_capped = &my_slot->capped;
	}
	if (MyBEEntry == NULL)
		return;

	/*
	 * A statement ends here at least twice (its ExecutorRun, then its
	 * ExecutorEnd): once written, and the barrier passed, the store needs no
	 * repeating before the capped flag is read again.
	 */
	ended = (uint64) MyBEEntry->st_activity_start_timestamp;
	if (ended != data_cap_ended_written)
	{
		pg_atomic_write_u64(&my_slot->ended_stmt, ended);
		pg_memory_barrier();
		data_cap_ended_written = ended;
	}
	if (pg_atomic_read_u32(&my_slot->capped) == 0 ||
		pg_atomic_exchange_u32(&my_slot->capped, 0) == 0)
		return;
	if (original_known && setrlimit(RLIMIT_DATA, &original_limit) != 0)
		ereport(LOG,
				errmsg("memprobe: could not restore this process's data size limit: %m"));
}

/* ------------------------------------------------------------------------
 * Setup.
 * ------------------------------------------------------------------------
 */

void
data_cap_init(void)
{
	DefineCustomBoolVariable("memprobe.cap_after_cancel",
							 "Lowers the data size limit of a process whose statement grows on after the memory guard cancelled it.",
							 "Its next allocation then fails inside the statement, instead of the kernel "
							 "killing the process; the process lifts the limit when the statement ends.",
							 &cap_after_cancel, true, PGC_SIGHUP, 0, NULL, NULL, NULL);
	original_known = getrlimit(RLIMIT_DATA, &original_limit) == 0;
}

void
data_cap_install_hooks(void)
{
	prev_shmem_request = shmem_request_hook;
	shmem_request_hook = data_cap_shmem_request;
	prev_shmem_startup = shmem_startup_hook;
	shmem_startup_hook = data_cap_shmem_startup;
}
