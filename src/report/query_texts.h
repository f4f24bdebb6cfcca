/*-------------------------------------------------------------------------
 *
 * query_texts.h
 *	  memprobe_statements' query texts normalised as pg_stat_statements
 *	  normalises its own: each constant replaced by $n.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_QUERY_TEXTS_H
#define MEMPROBE_QUERY_TEXTS_H

#include "parser/analyze.h"

/*
 * After parse analysis (post_parse_analyze_hook): make the normalised text
 * of the statement just analysed, cut to max_bytes, unless this backend
 * knows its entry (userid, queryid, toplevel) has its text already.
 */
extern void query_texts_parsed(ParseState *pstate, Query *query, JumbleState *jstate,
							   bool toplevel, int max_bytes);

/*
 * The normalised text of the statement at location/length of source (as
 * PlannedStmt's stmt_location/stmt_len) with query id queryid, copied into
 * CurrentMemoryContext; NULL when it is not known (then the caller keeps
 * the text as it is, as pg_stat_statements does).
 */
extern char *query_texts_normalized(uint64 queryid, const char *source, int location,
									int length, int *len);

/* Does this backend know the entry of (userid, queryid, toplevel) has its text? */
extern bool query_texts_known(Oid userid, uint64 queryid, bool toplevel);

/*
 * The last entry found known, of the generation query_texts_known_generation
 * (query_texts_check_generation): a statement is looked up at its parse
 * analysis and at its executor start, and a session often runs the same
 * statement again.  Inline, so that a statement run again costs its hooks
 * a few comparisons, not two calls and the hash lookups.
 */
typedef struct KnownKey
{
	uint64		queryid;
	Oid			userid;
	bool		toplevel;
} KnownKey;

extern PGDLLIMPORT uint32 query_texts_known_generation;
extern PGDLLIMPORT KnownKey query_texts_last_known;
extern PGDLLIMPORT bool query_texts_last_known_valid;

static inline bool
query_texts_known_last(Oid userid, uint64 queryid, bool toplevel)
{
	return query_texts_last_known_valid && query_texts_last_known.queryid == queryid &&
		query_texts_last_known.userid == userid && query_texts_last_known.toplevel == toplevel;
}

/* The entry of (userid, queryid, toplevel) exists, with its text. */
extern void query_texts_remember(Oid userid, uint64 queryid, bool toplevel);

/*
 * Entries were removed (a reset, an eviction) since generation: what this
 * backend knows is stale.  generation is read from shared memory by the
 * caller, without a lock (an atomic).
 */
extern void query_texts_check_generation(uint32 generation);

#endif							/* MEMPROBE_QUERY_TEXTS_H */
