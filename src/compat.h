/*-------------------------------------------------------------------------
 *
 * compat.h
 *	  Every difference between the PostgreSQL major versions memprobe supports
 *	  (15, 17 and 18) lives here, so that call sites read as if written for
 *	  one version.  No other file tests PG_VERSION_NUM.
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_COMPAT_H
#define MEMPROBE_COMPAT_H

#include "postgres.h"

#include "nodes/memnodes.h"
#include "utils/memutils.h"

#if PG_VERSION_NUM < 150000
#error "memprobe requires PostgreSQL 15 or later"
#endif

/*
 * The Bump allocator (bump.c) arrived in PostgreSQL 17.  It has no per-chunk
 * header, so pfree, repalloc and GetMemoryChunkSpace are not supported on its
 * chunks; only a reset or delete of the whole context releases memory.
 */
#if PG_VERSION_NUM >= 170000
#define MEMPROBE_HAVE_BUMP true
#else
#define MEMPROBE_HAVE_BUMP false
#endif

static inline bool
compat_is_bump_context(MemoryContext context)
{
#if PG_VERSION_NUM >= 170000
	return IsA(context, BumpContext);
#else
	(void) context;
	return false;
#endif
}

/*
 * Create a Bump context; callers check MEMPROBE_HAVE_BUMP first and report a
 * user-facing error themselves.
 */
static inline MemoryContext
compat_bump_context_create(MemoryContext parent, const char *name,
						   Size minContextSize, Size initBlockSize,
						   Size maxBlockSize)
{
#if PG_VERSION_NUM >= 170000
	return BumpContextCreate(parent, name, minContextSize, initBlockSize,
							 maxBlockSize);
#else
	(void) parent;
	(void) name;
	(void) minContextSize;
	(void) initBlockSize;
	(void) maxBlockSize;
	elog(ERROR, "bump memory contexts require PostgreSQL 17 or later");
	pg_unreachable();
#endif
}

#endif							/* MEMPROBE_COMPAT_H */
