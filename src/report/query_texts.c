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
 * pg_stat_statements does at parse analysis, this backend makes the
 * normalised text of a statement it has just analysed (the code of
 * generate_normalized_query and fill_in_constant_lengths of
 * contrib/pg_stat_statements, 15.18 and 18.6, in one pass) and keeps it in
 * a table of this backend, keyed by the query id and the statement's own
 * text, until an execution of it makes or finds its entry.  At parse
 * analysis because the scanner must read the text with the settings it was
 * parsed with (standard_conforming_strings, backslash_quote); a failed
 * execution's entry is made while the transaction aborts, when nothing
 * should be scanned.  Utility statements are left out (memprobe measures
 * executors; the statements a utility runs come through here on their own).
 * When the text is not known (as in pg_stat_statements: a cached plan run
 * after a reset without being analysed again, and not in this backend's
 * table any more), the text is kept as it is.
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

/*
 * The most normalised texts kept (and their bytes), and entries known,
 * before emptying.  The table keeps texts after they are stored, so that an
 * entry evicted or reset and made again by a cached plan (run again without
 * being analysed) still gets its normalised text.
 */
#define MAX_TEXTS		1024
#define MAX_TEXT_BYTES	(4 * 1024 * 1024)
#define MAX_KNOWN		4096

/* A statement's identity: its query id and its own text (length and hash). */
typedef struct TextKey
{
	uint64		queryid;
	int			stmt_len;
	uint32		stmt_hash;
} TextKey;

typedef struct NormalizedText
{
	TextKey		key;			/* hash key */
	int			len;
	char	   *text;			/* in texts_cxt, at most memprobe.query_text_bytes */
} NormalizedText;

static MemoryContext texts_cxt = NULL;
static HTAB *texts = NULL;
static Size texts_bytes = 0;
static HTAB *known = NULL;

/* the generation 'known' is of, and the last entry found known (query_texts.h) */
uint32		query_texts_known_generation = 0;
KnownKey	query_texts_last_known;
bool		query_texts_last_known_valid = false;

static int
comp_location(const void *a, const void *b)
{
	int			l = ((const LocationLen *) a)->location;
	int			r = ((const LocationLen *) b)->location;

	return l < r ? -1 : (l > r ? 1 : 0);
}

/* The texts table, made at first use and emptied when full. */
static void
make_texts(void)
{
	HASHCTL		info;

	if (texts_cxt == NULL)
		texts_cxt = AllocSetContextCreate(TopMemoryContext, "memprobe query texts",
										  ALLOCSET_DEFAULT_SIZES);
	if (texts != NULL &&
		(hash_get_num_entries(texts) >= MAX_TEXTS || texts_bytes >= MAX_TEXT_BYTES))
	{
		hash_destroy(texts);
		texts = NULL;
		MemoryContextReset(texts_cxt);
		texts_bytes = 0;
	}
	if (texts == NULL)
	{
		memset(&info, 0, sizeof(info));
		info.keysize = sizeof(TextKey);
		info.entrysize = sizeof(NormalizedText);
		info.hcxt = TopMemoryContext;
		texts = hash_create("memprobe normalised texts", 64, &info,
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
	if (generation != query_texts_known_generation)
	{
		if (known != NULL)
			hash_destroy(known);
		known = NULL;
		query_texts_last_known_valid = false;
	}
	query_texts_known_generation = generation;
}

bool
query_texts_known(Oid userid, uint64 queryid, bool toplevel)
{
	KnownKey	key;

	if (query_texts_known_last(userid, queryid, toplevel))
		return true;
	if (known == NULL)
		return false;
	key = known_key(userid, queryid, toplevel);
	if (hash_search(known, &key, HASH_FIND, NULL) == NULL)
		return false;
	query_texts_last_known = key;
	query_texts_last_known_valid = true;
	return true;
}

void
query_texts_remember(Oid userid, uint64 queryid, bool toplevel)
{
	KnownKey	key = known_key(userid, queryid, toplevel);

	if (query_texts_known_last(userid, queryid, toplevel))
		return;
	if (known != NULL && hash_get_num_entries(known) >= MAX_KNOWN)
	{
		hash_destroy(known);
		known = NULL;
	}
	if (known == NULL)
	{
		HASHCTL		info;

		memset(&info, 0, sizeof(info));
		info.keysize = sizeof(KnownKey);
		info.entrysize = sizeof(KnownKey);
		info.hcxt = TopMemoryContext;
		known = hash_create("memprobe known statements", 256, &info,
							HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	(void) hash_search(known, &key, HASH_ENTER, NULL);
	query_texts_last_known = key;
	query_texts_last_known_valid = true;
}

/*
 * The statement's text normalised, as pg_stat_statements' generate_normalized_query
 * with fill_in_constant_lengths folded in: stmt (NUL-terminated at the end
 * of its source, which was just parsed as such) is scanned constant by
 * constant with the core scanner, each replaced by $n (numbered after the
 * statement's own parameters); a '-' at a constant's location starts a
 * negative number, taken as one constant; duplicates are skipped.  locs are
 * relative to stmt and sorted.  Stops once the text has max_bytes, and
 * returns it cut to that on a character boundary, in CurrentMemoryContext.
 */
static char *
normalize(const char *stmt, int stmt_len, LocationLen *locs, int nlocs,
		  int highest_extern_param_id, bool has_squashed_lists, int max_bytes, int *len)
{
	core_yyscan_t yyscanner;
	core_yy_extra_type yyextra;
	core_YYSTYPE yylval;
	YYLTYPE		yylloc;
	StringInfoData out;
	int			copied = 0;		/* bytes of stmt copied or replaced so far */
	int			replaced = 0;
	int			last_loc = -1;
	bool		at_end = false;

	initStringInfo(&out);
	yyscanner = scanner_init(stmt, &yyextra, &ScanKeywords, ScanKeywordTokens);
	/* no escape string warnings again */
	yyextra.escape_string_warning = false;

	for (int i = 0; i < nlocs && !at_end && out.len < max_bytes; i++)
	{
		int			loc = locs[i].location;
		int			tok_len = -1;

		if (loc <= last_loc || loc < copied || loc >= stmt_len)
			continue;			/* a duplicate, or outside the statement */
		last_loc = loc;
		if (COMPAT_LOCATION_SQUASHED(&locs[i]))
			tok_len = locs[i].length;	/* the jumble gave the list's length */
		else
		{
			for (;;)
			{
				int			tok = core_yylex(&yylval, &yylloc, yyscanner);

				if (tok == 0)
				{
					at_end = true;
					break;
				}
				if (yylloc >= loc)
				{
					if (stmt[loc] == '-' && core_yylex(&yylval, &yylloc, yyscanner) == 0)
					{
						at_end = true;
						break;
					}
					/* flex put a zero byte after the token's text in scanbuf */
					tok_len = strlen(yyextra.scanbuf + loc);
					break;
				}
			}
		}
		/* 18: a parameter's own text stays unless lists were squashed */
		if (COMPAT_LOCATION_EXTERN_PARAM(&locs[i]) && !has_squashed_lists)
			continue;
		if (tok_len < 0 || loc + tok_len > stmt_len)
			continue;
		appendBinaryStringInfo(&out, stmt + copied, loc - copied);
		appendStringInfo(&out, "$%d%s", replaced + 1 + highest_extern_param_id,
						 COMPAT_LOCATION_SQUASHED(&locs[i]) ? " /*, ... */" : "");
		replaced++;
		copied = loc + tok_len;
	}
	scanner_finish(yyscanner);
	if (out.len < max_bytes)
		appendBinaryStringInfo(&out, stmt + copied,
							   Min(stmt_len - copied, max_bytes - out.len + MAX_MULTIBYTE_CHAR_LEN));
	*len = out.len > max_bytes ? pg_mbcliplen(out.data, out.len, max_bytes) : out.len;
	out.data[*len] = '\0';
	return out.data;
}

/*
 * What it costs: a statement whose entry this backend knows to exist (an
 * execution of it was stored, and no entry was removed since: a shared
 * generation number counts resets and evictions) costs an atomic read and
 * a comparison with the last entry found known, or one local hash lookup,
 * here and at executor start.  Otherwise it is scanned once here (up to
 * max_bytes of its text) and its text hashed again at its executor start.
 */
void
query_texts_parsed(ParseState *pstate, Query *query, JumbleState *jstate, bool toplevel,
				   int max_bytes)
{
	TextKey		key;
	NormalizedText *nt;
	const char *stmt;
	int			location = query->stmt_location;
	int			length = query->stmt_len;
	LocationLen *locs;
	char	   *text;
	int			text_len;
	bool		found;
	MemoryContext old;

	if (jstate == NULL || jstate->clocations_count == 0 || query->queryId == UINT64CONST(0) ||
		query->commandType == CMD_UTILITY || pstate->p_sourcetext == NULL ||
		query_texts_known(GetUserId(), query->queryId, toplevel))
		return;

	stmt = CleanQuerytext(pstate->p_sourcetext, &location, &length);
	memset(&key, 0, sizeof(key));
	key.queryid = query->queryId;
	key.stmt_len = length;
	key.stmt_hash = hash_bytes((const unsigned char *) stmt, length);
	if (texts != NULL && hash_search(texts, &key, HASH_FIND, NULL) != NULL)
		return;					/* made at an earlier analysis */

	/* the constants' locations, relative to the statement, sorted */
	locs = palloc(jstate->clocations_count * sizeof(LocationLen));
	memcpy(locs, jstate->clocations, jstate->clocations_count * sizeof(LocationLen));
	for (int i = 0; i < jstate->clocations_count; i++)
		locs[i].location -= location;
	if (jstate->clocations_count > 1)
		qsort(locs, jstate->clocations_count, sizeof(LocationLen), comp_location);
	text = normalize(stmt, length, locs, jstate->clocations_count,
					 jstate->highest_extern_param_id, COMPAT_JUMBLE_HAS_SQUASHED(jstate),
					 max_bytes, &text_len);
	pfree(locs);

	/* the text first, then the entry that points to it: nothing half made is left */
	make_texts();
	old = MemoryContextSwitchTo(texts_cxt);
	text = pnstrdup(text, text_len);
	MemoryContextSwitchTo(old);
	nt = hash_search(texts, &key, HASH_ENTER, &found);
	nt->len = text_len;
	nt->text = text;
	texts_bytes += text_len + 1;
}

char *
query_texts_normalized(uint64 queryid, const char *source, int location, int length,
					   int *len)
{
	TextKey		key;
	NormalizedText *nt;
	const char *stmt;

	if (texts == NULL || source == NULL || location > (int) strlen(source))
		return NULL;
	stmt = CleanQuerytext(source, &location, &length);
	memset(&key, 0, sizeof(key));
	key.queryid = queryid;
	key.stmt_len = length;
	key.stmt_hash = hash_bytes((const unsigned char *) stmt, length);
	if ((nt = hash_search(texts, &key, HASH_FIND, NULL)) == NULL)
		return NULL;
	*len = nt->len;
	return pnstrdup(nt->text, nt->len);
}
