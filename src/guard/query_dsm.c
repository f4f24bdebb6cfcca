/*-------------------------------------------------------------------------
 *
 * query_dsm.c
 *	  The dynamic shared memory a parallel query holds, found from outside
 *	  its processes, for the sampler: its parallel context's segment and the
 *	  segments of its query DSA (a parallel hash join's hash table, a
 *	  parallel bitmap scan's TID bitmap).
 *
 * /proc/PID/statm counts those /dev/shm segments as shared, so a statement
 * whose parallel hash join holds hundreds of megabytes looks small.  They
 * are found by positive identification only, so that nothing else mapped
 * from /dev/shm is counted (pgstat's DSA segments, the DSM control segment,
 * a session's segment, dsm_registry's): in the leader's /proc/PID/maps,
 * each /dev/shm/PostgreSQL.<handle> segment whose first bytes are a shm_toc
 * with parallel.c's PARALLEL_MAGIC covering the whole segment is a parallel
 * context (InitializeParallelDSM); its TOC entry PARALLEL_KEY_DSA
 * (execParallel.c) is the query DSA's control block, created in place
 * there, which lists the DSA's other segments by handle (dsa.c's
 * dsa_area_control.segment_handles).  Each segment counts with the size of
 * its file in /dev/shm: dsm_impl_posix_resize allocates every page when it
 * creates one (posix_fallocate), and the file is one however many processes
 * map it.
 *
 * The layouts read are private to shm_toc.c and dsa.c, and the same in
 * PostgreSQL 15, 17 and 18 on 64-bit builds (checked against their
 * sources); a DSA control block is read only if its segment header's magic
 * number is what dsa.c writes, so a layout that ever differs counts the
 * parallel context alone, never garbage.
 *
 * Reading a leader's maps costs over ten times what re-reading the segments
 * of a parallel context already found does (bench/RESULTS.md, "The guard
 * you can leave on"), so the sampler reads the maps of a leader only when
 * its statement or its set of workers changed, or every QUERY_DSM_RESCAN
 * samples of a long statement, and otherwise re-reads the contexts it
 * found.  Only dynamic_shared_memory_type = posix (Linux's
 * default) is read; segments taken from min_dynamic_shared_memory live in
 * the main shared memory and are not counted.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/stringinfo.h"
#include "storage/dsm_impl.h"
#include "storage/s_lock.h"
#include "utils/memutils.h"

#include "guard/query_dsm.h"

/* parallel.c, execParallel.c, dsa.c (the same in 15, 17 and 18) */
#define PARALLEL_MAGIC				UINT64CONST(0x50477c7c)
#define PARALLEL_KEY_DSA			UINT64CONST(0xE000000000000007)
#define DSA_SEGMENT_HEADER_MAGIC	0x0ce26608
#define DSA_MAX_SEGMENTS			1024

/* shm_toc.c's struct shm_toc, up to its first entries */
typedef struct TocHeader
{
	uint64		toc_magic;
	slock_t		toc_mutex;
	Size		toc_total_bytes;
	Size		toc_allocated_bytes;
	uint32		toc_nentry;
	struct
	{
		uint64		key;
		Size		offset;
	}			toc_entry[64];		/* a parallel query's TOC has fewer */
} TocHeader;

/* dsa.c's dsa_segment_header */
typedef struct DsaSegmentHeader
{
	uint32		magic;
	size_t		usable_pages;
	size_t		size;
	size_t		prev;
	size_t		next;
	size_t		bin;
	bool		freed;
} DsaSegmentHeader;

/* dsa.c's dsa_area_control, up to the segment handles */
typedef struct DsaControlHead
{
	DsaSegmentHeader segment_header;
	uint32		handle;			/* dsa_handle */
	uint32		segment_handles[DSA_MAX_SEGMENTS];	/* dsm_handle */
} DsaControlHead;

/* a leader's maps are read again after this many samples of one statement */
#define QUERY_DSM_RESCAN 10

static int	shm_dir = -1;		/* /dev/shm, opened once */
static StringInfo maps = NULL;	/* reused buffer for /proc/PID/maps */

static bool
readable(void)
{
	if (dynamic_shared_memory_type != DSM_IMPL_POSIX)
		return false;
	if (shm_dir < 0)
		shm_dir = open("/dev/shm", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return shm_dir >= 0;
}

/* Bytes of /dev/shm/PostgreSQL.<handle>, or -1 if it is gone. */
static int64
segment_bytes(uint32 handle)
{
	char		name[32];
	struct stat st;

	snprintf(name, sizeof(name), "PostgreSQL.%u", handle);
	if (fstatat(shm_dir, name, &st, 0) != 0)
		return -1;
	return (int64) st.st_blocks * 512;
}

/*
 * The bytes of the parallel context in segment handle with its query DSA's
 * segments; -1 if handle is gone or no parallel context.
 */
static int64
context_bytes(uint32 handle)
{
	char		name[32];
	int			fd;
	TocHeader	toc;
	DsaControlHead dsa;
	struct stat st;
	ssize_t		got;
	int64		total = -1;

	snprintf(name, sizeof(name), "PostgreSQL.%u", handle);
	if ((fd = openat(shm_dir, name, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	got = pread(fd, &toc, sizeof(toc), 0);
	if (got < (ssize_t) offsetof(TocHeader, toc_entry) || toc.toc_magic != PARALLEL_MAGIC ||
		fstat(fd, &st) != 0 || toc.toc_total_bytes != (Size) st.st_size)
	{
		close(fd);
		return -1;
	}
	total = (int64) st.st_blocks * 512;
	for (uint32 i = 0; i < toc.toc_nentry && i < lengthof(toc.toc_entry) &&
		 offsetof(TocHeader, toc_entry) + (i + 1) * sizeof(toc.toc_entry[0]) <= (Size) got; i++)
	{
		if (toc.toc_entry[i].key != PARALLEL_KEY_DSA)
			continue;
		if (pread(fd, &dsa, sizeof(dsa), toc.toc_entry[i].offset) != sizeof(dsa) ||
			dsa.segment_header.magic != (DSA_SEGMENT_HEADER_MAGIC ^ dsa.handle))
			break;				/* not the layout we know: the context alone */
		/* segment 0 is the control block's own, inside the context */
		for (int k = 1; k < DSA_MAX_SEGMENTS; k++)
		{
			int64		bytes;

			if (dsa.segment_handles[k] != 0 &&
				(bytes = segment_bytes(dsa.segment_handles[k])) > 0)
				total += bytes;
		}
		break;
	}
	close(fd);
	return total;
}

/* Read pid's maps, and keep the parallel contexts it maps in cache. */
static void
find_contexts(int pid, QueryDsmCache *cache)
{
	char		path[64];
	int			fd;
	const char *p;

	cache->ncontexts = 0;
	if (maps == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		maps = makeStringInfo();
		MemoryContextSwitchTo(old);
	}
	resetStringInfo(maps);
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	for (;;)
	{
		ssize_t		got;

		enlargeStringInfo(maps, 16384);
		got = read(fd, maps->data + maps->len, maps->maxlen - maps->len - 1);
		if (got <= 0)
			break;
		maps->len += got;
	}
	close(fd);
	maps->data[maps->len] = '\0';

	/* each segment appears once: dsm.c maps a segment once per process */
	for (p = maps->data; (p = strstr(p, "/dev/shm/PostgreSQL.")) != NULL;)
	{
		char	   *end;
		unsigned long handle = strtoul(p + strlen("/dev/shm/PostgreSQL."), &end, 10);

		p = end;
		if (cache->ncontexts < QUERY_DSM_CONTEXTS && context_bytes((uint32) handle) >= 0)
			cache->contexts[cache->ncontexts++] = (uint32) handle;
	}
}

int64
query_dsm_bytes(int pid, uint64 stmt, int nworkers, QueryDsmCache *cache)
{
	int64		total = 0;
	int			kept = 0;

	if (!readable())
		return 0;
	if (cache->stmt != stmt || cache->nworkers != nworkers)
	{
		/* a new statement, or workers came or went: look afresh (only where it can matter) */
		cache->stmt = stmt;
		cache->nworkers = nworkers;
		cache->samples = 0;
		cache->ncontexts = 0;
		if (nworkers > 0)
			find_contexts(pid, cache);
	}
	else if (++cache->samples % QUERY_DSM_RESCAN == 0)
		find_contexts(pid, cache);	/* a context made with no worker launched, or a new one */

	for (int i = 0; i < cache->ncontexts; i++)
	{
		int64		bytes = context_bytes(cache->contexts[i]);

		if (bytes < 0)
			continue;			/* the query is done with it */
		total += bytes;
		cache->contexts[kept++] = cache->contexts[i];
	}
	cache->ncontexts = kept;
	return total;
}
