/*-------------------------------------------------------------------------
 *
 * query_texts.c
 *	  memprobe_statements' query texts normalised as pg_stat_statements
 *	  normalises its own, so that the two views show the same text for a
 *	  query id and literals (personal data, often) are not kept.
 *
 * Core's query jumble records where each constant of a statement is, but
 * only during parse analysis (post_parse_analyze_hook's JumbleState), while
 * memprobe_statements makes an entry when an execution ends.  So, as
 * pg_stat_statements does at parse analysis, this backend keeps the
 * constants' locations of a statement it has just analysed, and when an
 * execution of it starts while its entry may not exist yet, the normalised
 * text is made from them (generate_normalized_query and
 * fill_in_constant_lengths of contrib/pg_stat_statements, 15.18 and 18.6:
 * the core scanner gives each constant's length; 18's squashed lists of
 * constants and external parameters as 18 shows them).  The text is made
 * at executor start, not at the entry's creation, because a failed
 * execution's entry is made while the transaction aborts, when nothing
 * should be allocated or scanned.
 *
 * What it costs: a statement whose entry this backend knows to exist (it
 * stored an execution of it, and no entry was removed since: a shared
 * generation number counts resets and evictions) costs one local hash
 * lookup at parse analysis.  Otherwise its constants' locations are copied
 * (a few bytes each) and, at its executor start, the statement is scanned
 * once more.  Both local tables are bounded (they are emptied when full).
 *
 * When the locations are not known (a cached plan run after a reset without
 * being analysed again, as pg_stat_statements has the same gap), or the
 * statement's text at execution is not the one analysed (checked by length
 * and hash), the text is kept as it is.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "parser/scanner.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

#include "report/query_texts.h"
#include "shared/compat.h"

/* The most statements' constants kept, and entries known, before emptying. */
#define MAX_PENDING		256
#define MAX_KNOWN		4096

/* Where the constants of a statement analysed by this backend are. */
typedef struct PendingConstants
{
	uint64		queryid;		/* hash key */
	int			stmt_location;	/* the statement's start in the analysed source */
	int			stmt_len;		/* and its length (CleanQuerytext) */
	uint32		stmt_hash;		/* hash_bytes of its text */
	int			nlocs;
	int			highest_extern_param_id;
	bool		has_squashed_lists;
	LocationLen *locs;			/* sorted by location, in pending_cxt */
} PendingConstants;

typedef struct KnownKey
{
	uint64		queryid;
	Oid			userid;
	bool		toplevel;
} KnownKey;

static MemoryContext pending_cxt = NULL;
static HTAB *pending = NULL;
static HTAB *known = NULL;
static uint32 known_generation = 0;

/*
 * The last entry found known: a statement is looked up at its parse
 * analysis and at its executor start, and a session often runs the same
 * statement again; this spares the hash lookups then.
 */
static KnownKey last_known;
static bool last_known_valid = false;

static int
comp_location(const void *a, const void *b)
{
	int			l = ((const LocationLen *) a)->location;
	int			r = ((const LocationLen *) b)->location;

	return l < r ? -1 : (l > r ? 1 : 0);
}

/* The local tables, made at first use and emptied when full. */
static void
make_tables(void)
{
	HASHCTL		info;

	if (pending_cxt == NULL)
		pending_cxt = AllocSetContextCreate(TopMemoryContext, "memprobe query texts",
											ALLOCSET_SMALL_SIZES);
	if (pending == NULL || hash_get_num_entries(pending) >= MAX_PENDING)
	{
		if (pending != NULL)
			hash_destroy(pending);
		MemoryContextReset(pending_cxt);
		memset(&info, 0, sizeof(info));
		info.keysize = sizeof(uint64);
		info.entrysize = sizeof(PendingConstants);
		info.hcxt = TopMemoryContext;
		pending = hash_create("memprobe pending constants", 64, &info,
							  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	if (known == NULL || hash_get_num_entries(known) >= MAX_KNOWN)
	{
		if (known != NULL)
			hash_destroy(known);
		memset(&info, 0, sizeof(info));
		info.keysize = sizeof(KnownKey);
		info.entrysize = sizeof(KnownKey);
		info.hcxt = TopMemoryContext;
		known = hash_create("memprobe known statements", 256, &info,
							HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
}

static KnownKey
known_key(Oid userid, uint64 queryid, bool toplevel)
{
	KnownKey	key;

	memset(&key, 0, sizeof(key));
	key.queryid = queryid;
	key.userid = userid;
	key.toplevel = toplevel;
	return key;
}

void
query_texts_check_generation(uint32 generation)
{
	if (generation != known_generation)
	{
		if (known != NULL)
			hash_destroy(known);
		known = NULL;
		last_known_valid = false;
	}
	known_generation = generation;
}

bool
query_texts_known(Oid userid, uint64 queryid, bool toplevel)
{
	KnownKey	key;

	if (last_known_valid && last_known.queryid == queryid && last_known.userid == userid &&
		last_known.toplevel == toplevel)
		return true;
	if (known == NULL)
		return false;
	key = known_key(userid, queryid, toplevel);
	if (hash_search(known, &key, HASH_FIND, NULL) == NULL)
		return false;
	last_known = key;
	last_known_valid = true;
	return true;
}

void
query_texts_remember(Oid userid, uint64 queryid, bool toplevel)
{
	KnownKey	key = known_key(userid, queryid, toplevel);

	if (last_known_valid && memcmp(&last_known, &key, sizeof(key)) == 0)
		return;
	make_tables();
	(void) hash_search(known, &key, HASH_ENTER, NULL);
	if (pending != NULL)
		(void) hash_search(pending, &queryid, HASH_REMOVE, NULL);
	last_known = key;
	last_known_valid = true;
}

void
query_texts_parsed(ParseState *pstate, Query *query, JumbleState *jstate, bool toplevel)
{
	PendingConstants *pc;
	const char *stmt;
	int			location = query->stmt_location;
	int			length = query->stmt_len;
	bool		found;

	if (jstate == NULL || jstate->clocations_count == 0 || query->queryId == UINT64CONST(0) ||
		pstate->p_sourcetext == NULL ||
		query_texts_known(GetUserId(), query->queryId, toplevel))
		return;

	make_tables();
	stmt = CleanQuerytext(pstate->p_sourcetext, &location, &length);
	pc = hash_search(pending, &query->queryId, HASH_ENTER, &found);
	if (found)
		pfree(pc->locs);
	pc->stmt_location = location;
	pc->stmt_len = length;
	pc->stmt_hash = hash_bytes((const unsigned char *) stmt, length);
	pc->nlocs = jstate->clocations_count;
	pc->highest_extern_param_id = jstate->highest_extern_param_id;
	pc->has_squashed_lists = COMPAT_JUMBLE_HAS_SQUASHED(jstate);
	pc->locs = MemoryContextAlloc(pending_cxt, pc->nlocs * sizeof(LocationLen));
	memcpy(pc->locs, jstate->clocations, pc->nlocs * sizeof(LocationLen));
	if (pc->nlocs > 1)
		qsort(pc->locs, pc->nlocs, sizeof(LocationLen), comp_location);
}

/*
 * As pg_stat_statements' fill_in_constant_lengths: the length of each
 * constant (locations relative to stmt, which is NUL-terminated at the end
 * of its source and was parsed as such), by the core scanner; duplicates
 * (and what the scanner does not find) get -1.  A '-' at a constant's
 * location starts a negative number, taken as one constant.
 */
static void
fill_in_constant_lengths(LocationLen *locs, int nlocs, int stmt_location, const char *stmt)
{
	core_yyscan_t yyscanner;
	core_yy_extra_type yyextra;
	core_YYSTYPE yylval;
	YYLTYPE		yylloc;

	yyscanner = scanner_init(stmt, &yyextra, &ScanKeywords, ScanKeywordTokens);
	/* no escape string warnings again */
	yyextra.escape_string_warning = false;

	for (int i = 0; i < nlocs; i++)
	{
		int			loc = locs[i].location - stmt_location;
		int			tok;

		if (i > 0 && locs[i].location == locs[i - 1].location)
		{
			locs[i].length = -1;
			continue;
		}
		if (COMPAT_LOCATION_SQUASHED(&locs[i]))
			continue;			/* the jumble gave the list's length */
		locs[i].length = -1;
		if (loc < 0)
			continue;
		for (;;)
		{
			tok = core_yylex(&yylval, &yylloc, yyscanner);
			if (tok == 0)
				break;
			if (yylloc >= loc)
			{
				if (stmt[loc] == '-')
				{
					tok = core_yylex(&yylval, &yylloc, yyscanner);
					if (tok == 0)
						break;
				}
				/* flex put a zero byte after the token's text in scanbuf */
				locs[i].length = strlen(yyextra.scanbuf + loc);
				break;
			}
		}
		if (tok == 0)
			break;
	}
	scanner_finish(yyscanner);
}

char *
query_texts_normalized(uint64 queryid, const char *source, int location, int length,
					   int max_bytes, int *len)
{
	PendingConstants *pc;
	const char *stmt;
	LocationLen *locs;
	StringInfoData out;
	int			copied = 0;		/* bytes of stmt copied or replaced so far */
	int			replaced = 0;

	if (pending == NULL || source == NULL || location > (int) strlen(source) ||
		(pc = hash_search(pending, &queryid, HASH_FIND, NULL)) == NULL)
		return NULL;
	stmt = CleanQuerytext(source, &location, &length);
	if (length != pc->stmt_len ||
		hash_bytes((const unsigned char *) stmt, length) != pc->stmt_hash)
		return NULL;

	locs = palloc(pc->nlocs * sizeof(LocationLen));
	memcpy(locs, pc->locs, pc->nlocs * sizeof(LocationLen));
	fill_in_constant_lengths(locs, pc->nlocs, pc->stmt_location, stmt);

	initStringInfo(&out);
	for (int i = 0; i < pc->nlocs; i++)
	{
		int			off = locs[i].location - pc->stmt_location;
		int			tok_len = locs[i].length;

		/* 18: a parameter's own text stays unless lists were squashed */
		if (COMPAT_LOCATION_EXTERN_PARAM(&locs[i]) && !pc->has_squashed_lists)
			continue;
		if (tok_len < 0 || off < copied || off + tok_len > length)
			continue;
		appendBinaryStringInfo(&out, stmt + copied, off - copied);
		appendStringInfo(&out, "$%d%s", replaced + 1 + pc->highest_extern_param_id,
						 COMPAT_LOCATION_SQUASHED(&locs[i]) ? " /*, ... */" : "");
		replaced++;
		copied = off + tok_len;
	}
	appendBinaryStringInfo(&out, stmt + copied, length - copied);
	pfree(locs);

	*len = out.len > max_bytes ? pg_mbcliplen(out.data, out.len, max_bytes) : out.len;
	out.data[*len] = '\0';
	return out.data;
}
