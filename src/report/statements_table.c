/*-------------------------------------------------------------------------
 *
 * statements_table.c
 *	  memprobe_statements' shared table: its entries, their eviction, a
 *	  failed execution's store, and the SQL functions that read and reset
 *	  them (a finished execution is stored by statements.c, on its hot
 *	  path).
 *
 * Built as contrib/pg_stat_statements' table is: a hash table in shared
 * memory (requested and made by memprobe.c), an LWLock guarding it (shared
 * to update an existing entry, exclusive to add or remove entries) and a
 * spinlock per entry for its counters; unlike pg_stat_statements, a backend
 * updates an entry it stored into before under that spinlock alone
 * (statements.c's entry_memo); least-used entries evicted when the table is
 * full (entry_dealloc).
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>
#include <unistd.h>

#include "catalog/pg_authid.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/timestamp.h"

#include "report/node_peaks.h"
#include "report/query_texts.h"
#include "report/statements.h"
#include "report/statements_table.h"
#include "shared/compat.h"

int			statements_max = 5000;
int			statements_text_bytes = 1024;


/* as pg_stat_statements' USAGE_DECREASE_FACTOR and USAGE_DEALLOC_PERCENT */
#define USAGE_DECREASE_FACTOR	(0.99)
#define USAGE_DEALLOC_PERCENT	5

/* the table, once attached (statements_shmem_init) */
StatementsShared *statements_shared = NULL;
HTAB	   *statements_hash = NULL;

/* ------------------------------------------------------------------------
 * Shared memory.
 * ------------------------------------------------------------------------
 */

static Size
entry_size(void)
{
	return MAXALIGN(offsetof(StatementsEntry, text) + statements_text_bytes + 1);
}

/* What memprobe_statements takes of shared memory, from memprobe.max and query_text_bytes. */
Size
statements_shmem_size(void)
{
	return add_size(MAXALIGN(sizeof(StatementsShared)),
					hash_estimate_size(statements_max, entry_size()));
}

/*
 * The most memprobe_statements may take: an eighth of the machine's memory.
 * The table is created whole at server start (ShmemInitHash with every
 * entry), so a size past this would fill most of the machine before the
 * first statement runs; no workload needs it (the default is 5.7MB, and
 * 100,000 entries of 1kB take 115MB).  0 when the machine does not say.
 */
static Size
statements_shmem_limit(void)
{
	long		pages = sysconf(_SC_PHYS_PAGES);
	long		page_size = sysconf(_SC_PAGESIZE);

	if (pages <= 0 || page_size <= 0)
		return 0;
	return (Size) pages / 8 * (Size) page_size;
}

/*
 * At shared memory's request (memprobe.c, which requests the space): refuse
 * a table too large for the machine, and ask for the table's lock.
 */
void
statements_shmem_request(void)
{
	Size		size = statements_shmem_size();
	Size		limit = statements_shmem_limit();

	if (limit > 0 && size > limit)
		ereport(ERROR,
				errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				errmsg("memprobe_statements would take more than an eighth of this machine's memory"),
				errdetail("It would take %zu MB of shared memory, and an eighth is %zu MB.  memprobe.max is %d and memprobe.query_text_bytes is %d; each entry reserves its text's bytes.",
						  size / (1024 * 1024), limit / (1024 * 1024),
						  statements_max, statements_text_bytes),
				errhint("Lower memprobe.max or memprobe.query_text_bytes."));
	RequestNamedLWLockTranche("memprobe_statements", 1);
}

/*
 * entries_prepare
 *		Initialise the spinlock and incarnation of every element the table
 *		will ever use, once, as it is made: a shared hash table allocates
 *		all its statements_max elements at creation (ShmemInitHash with
 *		init_size = max_size) and entry_alloc keeps it at most that full, so
 *		entering that many keys and removing them again touches each.  From
 *		then on an element's spinlock is never reinitialised: a backend with
 *		an old memo of the element may be taking it (store).
 */
static void
entries_prepare(void)
{
	StatementsKey key;

	memset(&key, 0, sizeof(key));
	for (int i = 0; i < statements_max; i++)
	{
		StatementsEntry *entry;

		key.queryid = (uint64) i + 1;
		entry = hash_search(statements_hash, &key, HASH_ENTER, NULL);
		SpinLockInit(&entry->mutex);
		entry->incarnation = 0;
	}
	for (int i = 0; i < statements_max; i++)
	{
		key.queryid = (uint64) i + 1;
		hash_search(statements_hash, &key, HASH_REMOVE, NULL);
	}
}

/*
 * An entry leaves the table (caller holds the lock exclusively): a backend
 * that remembers it no longer updates it, and stores anew.
 */
static void
entry_remove(StatementsEntry *entry)
{
	SpinLockAcquire(&entry->mutex);
	entry->incarnation++;
	SpinLockRelease(&entry->mutex);
	hash_search(statements_hash, &entry->key, HASH_REMOVE, NULL);
}

/* Attach to the table, making it at server start (memprobe.c holds AddinShmemInitLock). */
void
statements_shmem_init(void)
{
	bool		found;
	HASHCTL		info;

	statements_shared = ShmemInitStruct("memprobe_statements", sizeof(StatementsShared), &found);
	if (!found)
	{
		statements_shared->lock = &(GetNamedLWLockTranche("memprobe_statements"))->lock;
		SpinLockInit(&statements_shared->mutex);
		statements_shared->dealloc = 0;
		statements_shared->stats_reset = GetCurrentTimestamp();
		pg_atomic_init_u32(&statements_shared->generation, 0);
	}
	info.keysize = sizeof(StatementsKey);
	info.entrysize = entry_size();
	statements_hash = ShmemInitHash("memprobe_statements hash", statements_max, statements_max,
						 &info, HASH_ELEM | HASH_BLOBS);
	if (!found)
		entries_prepare();
}

/* An entry and its usage as entry_dealloc read it. */
typedef struct EntryUsage
{
	StatementsEntry *entry;
	double		usage;
} EntryUsage;

static int
usage_cmp(const void *a, const void *b)
{
	double		l = ((const EntryUsage *) a)->usage;
	double		r = ((const EntryUsage *) b)->usage;

	return l < r ? -1 : (l > r ? 1 : 0);
}

/*
 * entry_dealloc
 *		As pg_stat_statements' entry_dealloc: decay every entry's usage and
 *		remove the USAGE_DEALLOC_PERCENT least used (at least 10).  Caller
 *		holds the lock exclusively.
 */
static void
entry_dealloc(void)
{
	HASH_SEQ_STATUS seq;
	EntryUsage *entries;
	StatementsEntry *entry;
	int			n = 0;
	int			nvictims;

	/*
	 * Usage is read and decayed under each entry's spinlock and sorted as
	 * read: backends update entries they remember under that alone (store).
	 */
	entries = palloc(hash_get_num_entries(statements_hash) * sizeof(EntryUsage));
	hash_seq_init(&seq, statements_hash);
	while ((entry = hash_seq_search(&seq)) != NULL)
	{
		SpinLockAcquire(&entry->mutex);
		entry->usage *= USAGE_DECREASE_FACTOR;
		entries[n].usage = entry->usage;
		SpinLockRelease(&entry->mutex);
		entries[n++].entry = entry;
	}
	qsort(entries, n, sizeof(EntryUsage), usage_cmp);
	nvictims = Min(n, Max(10, n * USAGE_DEALLOC_PERCENT / 100));
	for (int i = 0; i < nvictims; i++)
		entry_remove(entries[i].entry);
	pfree(entries);

	SpinLockAcquire(&statements_shared->mutex);
	statements_shared->dealloc++;
	SpinLockRelease(&statements_shared->mutex);
	pg_atomic_fetch_add_u32(&statements_shared->generation, 1);
}

/*
 * entry_alloc
 *		Add an entry with zeroed counters and the statement's text, making
 *		room first if the table is full.  Caller holds the lock exclusively.
 */
StatementsEntry *
statements_entry_alloc(const StatementsKey *key, const char *text, int text_len)
{
	StatementsEntry *entry;
	bool		found;

	while (hash_get_num_entries(statements_hash) >= statements_max)
		entry_dealloc();

	entry = hash_search(statements_hash, key, HASH_ENTER, &found);
	if (!found)
	{
		/* the spinlock as it is (entries_prepare): an old memo may be taking it */
		SpinLockAcquire(&entry->mutex);
		entry->incarnation++;
		memset(&entry->calls, 0, offsetof(StatementsEntry, text) -
			   offsetof(StatementsEntry, calls));
		entry->node_kind = -1;
		entry->private_max = -1;
		entry->failed_private_max = -1;
		entry->usage = 1.0;
		SpinLockRelease(&entry->mutex);
		memcpy(entry->text, text, text_len);
		entry->text[text_len] = '\0';
		entry->text_len = text_len;
	}
	return entry;
}

/*
 * statements_source_text
 *		A statement's own text within its source string (CleanQuerytext, as
 *		pg_stat_statements; location -1 means all of it), cut to
 *		memprobe.query_text_bytes on a character boundary.  Empty when the
 *		location does not fit the text.
 */
const char *
statements_source_text(const char *text, int location, int length, int *len)
{
	if (text == NULL || location > (int) strlen(text))
	{
		*len = 0;
		return "";
	}
	text = CleanQuerytext(text, &location, &length);
	*len = length > statements_text_bytes ?
		pg_mbcliplen(text, length, statements_text_bytes) : length;
	return text;
}

/* The text of queryDesc's statement (statements_source_text). */
const char *
statements_own_text(QueryDesc *queryDesc, int *len)
{
	return statements_source_text(queryDesc->sourceText, queryDesc->plannedstmt->stmt_location,
					   queryDesc->plannedstmt->stmt_len, len);
}

/* The text entry *key keeps, palloc'd, or NULL if it has none (not in the table). */
char *
statements_entry_text(const StatementsKey *key)
{
	StatementsEntry *entry;
	char	   *copy = NULL;

	/* an entry's text is set once, as it is made (entry_alloc) */
	LWLockAcquire(statements_shared->lock, LW_SHARED);
	entry = hash_search(statements_hash, key, HASH_FIND, NULL);
	if (entry != NULL)
		copy = pnstrdup(entry->text, entry->text_len);
	LWLockRelease(statements_shared->lock);
	return copy;
}

/*
 * statements_store_failed
 *		A failed execution (noted as its transaction aborted) into its
 *		entry, made with text if need be; with copy_text, text (of
 *		memprobe.query_text_bytes + 1 bytes) then holds the text the entry
 *		keeps, for memprobe.log_min_memory's line.
 */
void
statements_store_failed(const StatementsKey *key, char *text, int text_len, int64 mem,
						int64 private_peak, bool copy_text)
{
	StatementsEntry *entry;

	LWLockAcquire(statements_shared->lock, LW_SHARED);
	entry = hash_search(statements_hash, key, HASH_FIND, NULL);
	if (entry == NULL)
	{
		LWLockRelease(statements_shared->lock);
		LWLockAcquire(statements_shared->lock, LW_EXCLUSIVE);
		entry = statements_entry_alloc(key, text, text_len);
	}
	SpinLockAcquire(&entry->mutex);
	entry->usage += 1.0;
	entry->failed_calls++;
	entry->failed_mem_max = Max(entry->failed_mem_max, mem);
	entry->failed_private_max = Max(entry->failed_private_max, private_peak);
	SpinLockRelease(&entry->mutex);
	if (copy_text)
	{
		memcpy(text, entry->text, entry->text_len);
		text[entry->text_len] = '\0';
	}
	LWLockRelease(statements_shared->lock);
}

/* ------------------------------------------------------------------------
 * SQL functions.
 * ------------------------------------------------------------------------
 */

static void
require_preloaded(void)
{
	if (statements_shared == NULL || statements_hash == NULL)
		ereport(ERROR,
				errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				errmsg("memprobe must be loaded via \"shared_preload_libraries\" to track statements"),
				errhint("Add memprobe to shared_preload_libraries and restart the server."));
}

PG_FUNCTION_INFO_V1(memprobe_statements);
PG_FUNCTION_INFO_V1(memprobe_statements_reset);
PG_FUNCTION_INFO_V1(memprobe_statements_info);

#define STATEMENTS_COLS 17

/*
 * memprobe_statements
 *		SQL SRF: one row per entry.  As pg_stat_statements: every role sees
 *		every row's figures, but the queryid and text only of its own
 *		statements unless it has the privileges of pg_read_all_stats
 *		(superusers do).
 */
Datum
memprobe_statements(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			userid = GetUserId();
	bool		see_all = has_privs_of_role(userid, ROLE_PG_READ_ALL_STATS);
	HASH_SEQ_STATUS seq;
	StatementsEntry *entry;

	require_preloaded();
	InitMaterializedSRF(fcinfo, 0);
	/* 0.2's definition lacks the last four columns (max_private_bytes, failed_*) */
	if (rsinfo->setDesc->natts != STATEMENTS_COLS &&
		rsinfo->setDesc->natts != STATEMENTS_COLS - 4)
		elog(ERROR, "memprobe_statements() declared with %d columns; this library gives %d",
			 rsinfo->setDesc->natts, STATEMENTS_COLS);

	LWLockAcquire(statements_shared->lock, LW_SHARED);
	hash_seq_init(&seq, statements_hash);
	while ((entry = hash_seq_search(&seq)) != NULL)
	{
		Datum		values[STATEMENTS_COLS];
		bool		nulls[STATEMENTS_COLS];
		StatementsEntry c;
		int			i = 0;

		memset(nulls, 0, sizeof(nulls));
		SpinLockAcquire(&entry->mutex);
		memcpy(&c, entry, offsetof(StatementsEntry, text));
		SpinLockRelease(&entry->mutex);

		values[i++] = ObjectIdGetDatum(c.key.userid);
		values[i++] = ObjectIdGetDatum(c.key.dbid);
		values[i++] = BoolGetDatum(c.key.toplevel);
		if (see_all || c.key.userid == userid)
		{
			values[i++] = Int64GetDatum((int64) c.key.queryid);
			values[i++] = CStringGetTextDatum(entry->text);
		}
		else
		{
			nulls[i++] = true;
			values[i++] = CStringGetTextDatum("<insufficient privilege>");
		}
		values[i++] = Int64GetDatum(c.calls);
		values[i++] = Int64GetDatum(c.mem_max);
		values[i++] = Float8GetDatum(c.calls > 0 ? c.mem_sum / c.calls : 0.0);
		values[i++] = Int64GetDatum(c.mem_last);
		if (c.node_kind >= 0)
		{
			values[i++] = Int64GetDatum(c.node_peak);
			values[i++] = CStringGetTextDatum(node_peak_name(c.node_kind));
		}
		else
		{
			nulls[i++] = true;
			nulls[i++] = true;
		}
		values[i++] = Int64GetDatum(c.spills);
		values[i++] = Int64GetDatum(c.temp_bytes);
		if (c.private_max >= 0)
			values[i++] = Int64GetDatum(c.private_max);
		else
			nulls[i++] = true;
		values[i++] = Int64GetDatum(c.failed_calls);
		values[i++] = Int64GetDatum(c.failed_mem_max);
		if (c.failed_private_max >= 0)
			values[i++] = Int64GetDatum(c.failed_private_max);
		else
			nulls[i++] = true;
		Assert(i == STATEMENTS_COLS);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	LWLockRelease(statements_shared->lock);

	return (Datum) 0;
}

/*
 * memprobe_statements_reset
 *		Remove every entry (not executable by PUBLIC) and return the time of
 *		the reset, which memprobe_statements_info shows from then on (as
 *		pg_stat_statements_reset does from PostgreSQL 17).
 */
Datum
memprobe_statements_reset(PG_FUNCTION_ARGS)
{
	HASH_SEQ_STATUS seq;
	StatementsEntry *entry;
	TimestampTz now = GetCurrentTimestamp();

	require_preloaded();
	LWLockAcquire(statements_shared->lock, LW_EXCLUSIVE);
	hash_seq_init(&seq, statements_hash);
	while ((entry = hash_seq_search(&seq)) != NULL)
		entry_remove(entry);
	SpinLockAcquire(&statements_shared->mutex);
	statements_shared->dealloc = 0;
	statements_shared->stats_reset = now;
	SpinLockRelease(&statements_shared->mutex);
	pg_atomic_fetch_add_u32(&statements_shared->generation, 1);
	LWLockRelease(statements_shared->lock);
	PG_RETURN_TIMESTAMPTZ(now);
}

/*
 * memprobe_statements_info
 *		As pg_stat_statements_info: how many times entries were evicted to make
 *		room (each time the least used 5%, at least 10) and when the figures
 *		were last reset (or the server started).
 */
Datum
memprobe_statements_info(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[2];
	bool		nulls[2] = {false, false};

	require_preloaded();
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	SpinLockAcquire(&statements_shared->mutex);
	values[0] = Int64GetDatum(statements_shared->dealloc);
	values[1] = TimestampTzGetDatum(statements_shared->stats_reset);
	SpinLockRelease(&statements_shared->mutex);

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
