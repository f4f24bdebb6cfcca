/*-------------------------------------------------------------------------
 *
 * statements_table.h
 *	  memprobe_statements' shared table (statements_table.c), for
 *	  statements.c, which measures the executions stored into it.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_STATEMENTS_TABLE_H
#define MEMPROBE_STATEMENTS_TABLE_H

#include "executor/execdesc.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/lwlock.h"
#include "storage/spin.h"
#include "utils/hsearch.h"

#include "report/node_peaks.h"

/* memprobe.max and memprobe.query_text_bytes (defined by statements_init) */
extern int	statements_max;
extern int	statements_text_bytes;

typedef struct StatementsKey
{
	Oid			userid;
	Oid			dbid;
	uint64		queryid;
	bool		toplevel;
} StatementsKey;

typedef struct StatementsEntry
{
	StatementsKey key;			/* hash key; must be first */
	slock_t		mutex;			/* protects incarnation and the counters below */
	/*
	 * Bumped whenever the entry leaves the table or its element is reused
	 * (under the exclusive lock and the mutex): a backend that remembers the
	 * entry (entry_memo) updates it under the mutex alone, and only if this
	 * is still what it remembered.  Neither is ever reinitialised once the
	 * table is made (entries_prepare).
	 */
	uint64		incarnation;
	int64		calls;
	double		mem_sum;		/* for the mean */
	int64		mem_max;
	int64		mem_last;
	int64		node_peak;		/* largest node peak over all executions */
	int			node_kind;		/* its node_peaks[] index, or -1 */
	int64		spills;			/* executions in which a node spilled */
	int64		temp_bytes;
	int64		private_max;	/* most private memory the sampler saw, or -1 */
	int64		failed_calls;	/* executions that ended in an error or cancel */
	int64		failed_mem_max;
	int64		failed_private_max; /* or -1 */
	double		usage;			/* for eviction */
	int			text_len;		/* bytes in text, set once at creation */
	char		text[FLEXIBLE_ARRAY_MEMBER];
} StatementsEntry;

typedef struct StatementsShared
{
	LWLock	   *lock;			/* guards the hash table's membership */
	slock_t		mutex;			/* protects the two below */
	int64		dealloc;		/* times entry_dealloc ran (evictions) */
	TimestampTz stats_reset;	/* last memprobe_statements_reset, or creation */
	pg_atomic_uint32 generation;	/* resets and evictions: query_texts.c */
} StatementsShared;

/* the table, once attached (statements_shmem_init); NULL without it */
extern StatementsShared *statements_shared;
extern HTAB *statements_hash;

/* A key of this database (padding zeroed: keys are hashed and compared as bytes). */
static inline void
statements_key(StatementsKey *key, Oid userid, uint64 queryid, bool toplevel)
{
	memset(key, 0, sizeof(*key));
	key->userid = userid;
	key->dbid = MyDatabaseId;
	key->queryid = queryid;
	key->toplevel = toplevel;
}

extern StatementsEntry *statements_entry_alloc(const StatementsKey *key, const char *text,
											  int text_len);
extern void statements_store_failed(const StatementsKey *key, char *text, int text_len,
									int64 mem, int64 private_peak, bool copy_text);
extern char *statements_entry_text(const StatementsKey *key);

/* a statement's own text, cut to memprobe.query_text_bytes */
extern const char *statements_source_text(const char *text, int location, int length, int *len);
extern const char *statements_own_text(QueryDesc *queryDesc, int *len);

#endif							/* MEMPROBE_STATEMENTS_TABLE_H */
