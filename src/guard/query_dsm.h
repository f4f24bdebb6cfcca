/*-------------------------------------------------------------------------
 *
 * query_dsm.h
 *	  The dynamic shared memory a parallel query holds (its parallel
 *	  context and query DSA segments), read from outside its processes
 *	  (query_dsm.c).
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_QUERY_DSM_H
#define MEMPROBE_QUERY_DSM_H

#include "datatype/timestamp.h"

#define QUERY_DSM_CONTEXTS 4	/* parallel contexts kept per leader */

/* What the sampler remembers of one leader between samples. */
typedef struct QueryDsmCache
{
	uint64		stmt;			/* the statement the contexts were found for (statement_id.h) */
	int			nworkers;		/* its workers then */
	int			samples;		/* samples since */
	int			ncontexts;
	uint32		contexts[QUERY_DSM_CONTEXTS];	/* DSM handles of its parallel contexts */
} QueryDsmCache;

/*
 * The bytes of dynamic shared memory the running statement (its identity
 * stmt) of parallel leader pid holds, with nworkers workers sampled
 * now; cache is the sampler's, per leader, zeroed at first.
 */
extern int64 query_dsm_bytes(int pid, uint64 stmt, int nworkers,
							 QueryDsmCache *cache);

#endif							/* MEMPROBE_QUERY_DSM_H */
