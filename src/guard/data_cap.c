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
 * process idle in a transaction.  The process writes the identity of the
 * top-level statement it ends into its slot (statement_id.c: at the end of
 * each top-level ExecutorRun, ExecutorEnd, utility statement and fast-path
 * call, and at the abort of the transaction or subtransaction it began in),
 * then reads whether it is capped; the sampler sets "capped" first, then
 * lowers the limit, then reads whether that statement ended, and lifts the
 * limit again if so.  With a full barrier between each side's write and
 * read, at least one of them sees the other's: either the process lifts
 * the cap, or the sampler does.  And at each later sample the sampler lifts
 * a cap whose statement it no longer sees running (data_cap_lift_ended), in
 * case the statement ended where no hook saw it.
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
#include "guard/statement_id.h"
#include "shared/compat.h"
#include "shared/injection.h"

/* memprobe.cap_after_cancel */
static bool cap_after_cancel = true;

/* Room left above what the process has mapped when it is capped. */
#define CAP_MARGIN	(INT64CONST(16) * 1024 * 1024)

/* One per PGPROC. */
typedef struct CapSlot
{
	pg_atomic_uint32 capped;	/* set by the sampler before it lowers the limit */
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


Size
data_cap_shmem_size(void)
{
	return add_size(offsetof(CapShared, slots), mul_size(compat_proc_slot_count(), sizeof(CapSlot)));
}

/* Attach to its shared memory, making it at server start (memprobe.c holds AddinShmemInitLock). */
void
data_cap_shmem_init(void)
{
	bool		found;

	shared = ShmemInitStruct("memprobe_cap", data_cap_shmem_size(), &found);
	if (!found)
	{
		shared->nslots = compat_proc_slot_count();
		for (int i = 0; i < shared->nslots; i++)
			pg_atomic_init_u32(&shared->slots[i].capped, 0);
	}
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
data_cap_process(int pid, int procno, uint64 stmt, int64 *cap_bytes, int64 *old_limit)
{
	CapSlot    *slot;
	struct rlimit old;
	struct rlimit cap;
	int64		mapped;

	if (!data_cap_enabled() || procno < 0 || procno >= shared->nslots || stmt == 0)
		return false;
	slot = &shared->slots[procno];
	if ((mapped = vm_data_bytes(pid)) < 0 || prlimit(pid, RLIMIT_DATA, NULL, &old) != 0)
		return false;
	cap.rlim_cur = (rlim_t) (mapped + CAP_MARGIN);
	cap.rlim_max = old.rlim_max;
	if ((old.rlim_cur != RLIM_INFINITY && old.rlim_cur <= cap.rlim_cur) ||
		(cap.rlim_max != RLIM_INFINITY && cap.rlim_cur > cap.rlim_max))
		return false;			/* its limit is that low already */

	/* identities only grow: one ended at or after stmt means stmt ended */
	pg_atomic_write_u32(&slot->capped, 1);
	pg_memory_barrier();
	if (statement_ended(procno) >= stmt)
	{
		pg_atomic_write_u32(&slot->capped, 0);
		return false;
	}
	MEMPROBE_INJECTION_CAP_DELAY();
	if (prlimit(pid, RLIMIT_DATA, &cap, NULL) != 0)
	{
		ereport(LOG,
				errmsg("memprobe could not lower the data size limit of process %d: %m", pid));
		pg_atomic_write_u32(&slot->capped, 0);
		return false;
	}
	pg_memory_barrier();
	if (statement_ended(procno) >= stmt)
	{
		/*
		 * The statement ended meanwhile: lift the cap, even if the process
		 * did already (it may have done so before our prlimit).
		 */
		(void) pg_atomic_exchange_u32(&slot->capped, 0);
		(void) prlimit(pid, RLIMIT_DATA, &old, NULL);
		ereport(LOG,
				errmsg("memprobe lifted the data size limit of process %d again", pid),
				errdetail("Its statement ended while the limit was being lowered."));
		return false;
	}
	*cap_bytes = (int64) cap.rlim_cur;
	*old_limit = old.rlim_cur == RLIM_INFINITY ? -1 : (int64) old.rlim_cur;
	return true;
}

bool
data_cap_lift_ended(int pid, int procno, int64 old_limit)
{
	struct rlimit lim;

	if (shared == NULL || procno < 0 || procno >= shared->nslots ||
		pg_atomic_exchange_u32(&shared->slots[procno].capped, 0) == 0)
		return false;			/* the process lifted it itself */
	if (prlimit(pid, RLIMIT_DATA, NULL, &lim) != 0)
		return false;
	lim.rlim_cur = old_limit < 0 ? RLIM_INFINITY : (rlim_t) old_limit;
	return prlimit(pid, RLIMIT_DATA, &lim, NULL) == 0;
}

/* ------------------------------------------------------------------------
 * In the process capped.
 * ------------------------------------------------------------------------
 */

/* This process's capped flag once found (its PGPROC number is its own for life). */
pg_atomic_uint32 *data_cap_my_capped = NULL;

void
data_cap_find_my_slot(void)
{
	int			procno = compat_my_proc_number();

	if (shared != NULL && procno >= 0 && procno < shared->nslots)
		data_cap_my_capped = &shared->slots[procno].capped;
}

void
data_cap_lift_own(void)
{
	if (data_cap_my_capped == NULL ||
		pg_atomic_read_u32(data_cap_my_capped) == 0 ||
		pg_atomic_exchange_u32(data_cap_my_capped, 0) == 0)
		return;
	if (original_known && setrlimit(RLIMIT_DATA, &original_limit) != 0)
		ereport(LOG,
				errmsg("memprobe could not restore the data size limit of this process: %m"));
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
