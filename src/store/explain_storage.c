/*-------------------------------------------------------------------------
 *
 * explain_storage.c
 *	  EXPLAIN ANALYZE prints PostgreSQL 18's "Storage: ...  Maximum Storage:
 *	  NkB" line for WindowAgg, CTE Scan, Recursive Union and Table Function
 *	  Scan on PostgreSQL 15 and 17.
 *
 * 15 and 17 have no per-node EXPLAIN hook (18's explain_per_node_hook), and
 * these are core's nodes, not memprobe's, so nothing memprobe runs is called
 * while ExplainNode() prints them.  What memprobe can do is add the lines
 * to EXPLAIN's finished output, at the place 18 prints them:
 *
 *	- ProcessUtility (explain_storage_begin): for EXPLAIN with ANALYZE, the
 *	  output receiver is wrapped; it passes the row description on at once
 *	  and holds EXPLAIN's rows (one per line in text format, one document
 *	  otherwise) until EXPLAIN ends, then sends them on, with the lines added.
 *	- ExecutorEnd of each explained query, before its nodes end: a walk in
 *	  ExplainNode()'s order numbers the nodes EXPLAIN prints and takes the
 *	  figures stores.c sampled for the nodes of those four kinds
 *	  (explain_storage_walk.c).
 *	- The output is read node by node in that same order, and each node's
 *	  lines go where 18's ExplainNode() prints them (add_storage_lines); if
 *	  anything does not match (another extension changed the output, say),
 *	  the output is sent unchanged.
 *
 * auto_explain prints plans itself and gets no lines.
 * memprobe.explain_storage turns this off.
 *
 * Copyright (c) 2026, The memprobe Developers
 * Portions Copyright (c) 1996-2025, PostgreSQL Global Development Group
 * Portions Copyright (c) 1994, Regents of the University of California
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "nodes/execnodes.h"
#include "nodes/parsenodes.h"
#include "tcop/dest.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "shared/compat.h"
#include "store/explain_storage.h"
#include "store/explain_storage_walk.h"
#include "store/stores.h"

#if !MEMPROBE_CORE_TUPLESTORE_GENERATION

/* as PostgreSQL 18's explain.c */
#define BYTES_TO_KILOBYTES(b)	(((b) + 1023) / 1024)

/* memprobe.explain_storage */
static bool explain_storage_enabled = true;


/* the innermost EXPLAIN ANALYZE running (explain_storage.h's inline tests read it) */
ExplainFrame *explain_storage_current_frame = NULL;

/* The wrapped output receiver. */
typedef struct HoldingReceiver
{
	DestReceiver pub;
	DestReceiver *inner;
	ExplainFrame *frame;
	TupleDesc	typeinfo;
	List	   *rows;			/* char *, EXPLAIN's rows as sent */
	bool		passthrough;	/* not a one-text-column output: forward as is */
} HoldingReceiver;

/* ------------------------------------------------------------------------
 * Adding the lines to the output.
 * ------------------------------------------------------------------------
 */

/* The output as lines (text format: EXPLAIN's rows are its lines). */
typedef struct Lines
{
	char	  **line;
	int			n;
} Lines;

static int
indent_of(const char *line)
{
	int			i = 0;

	while (line[i] == ' ')
		i++;
	return i;
}

static bool
starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/*
 * The lines memprobe adds for one node, indented by 'indent'.  The figures
 * are 18's (tuplestore_get_stats()), kept by stores.c across 15's and 17's
 * per-partition and per-iteration stores and sampled at every input row (18
 * updates them when a store is trimmed, cleared or spills; a store filled
 * in one call that spilled shows at least work_mem, the floor of 18's
 * figure).  When memprobe holds the store's tuples, a second line gives
 * their context and the most it held in blocks, as GenMaterial's node does.
 */
static List *
storage_lines(StorageNode *node, OutputFormat format, int indent, bool last_in_object)
{
	StoreFigures *f = &node->figures;
	const char *storage = f->used_disk ? "Disk" : "Memory";
	int64		max_kb = BYTES_TO_KILOBYTES(f->max_space);
	int64		held_kb = BYTES_TO_KILOBYTES(f->peak_held);
	List	   *lines = NIL;
	StringInfoData buf;

	initStringInfo(&buf);
	switch (format)
	{
		case FORMAT_TEXT:
			appendStringInfoSpaces(&buf, indent);
			appendStringInfo(&buf, "Storage: %s  Maximum Storage: " INT64_FORMAT "kB",
							 storage, max_kb);
			lines = lappend(lines, pstrdup(buf.data));
			if (f->context_type != NULL)
			{
				resetStringInfo(&buf);
				appendStringInfoSpaces(&buf, indent);
				appendStringInfo(&buf, "Tuple Context: %s  Peak Memory Held: " INT64_FORMAT "kB",
								 f->context_type, held_kb);
				lines = lappend(lines, pstrdup(buf.data));
			}
			break;
		case FORMAT_JSON:
		case FORMAT_YAML:
		case FORMAT_XML:
			{
				const char *names[4] = {"Storage", "Maximum Storage", "Tuple Context", "Peak Memory Held"};
				char		values[4][32];
				bool		quoted[4] = {true, false, true, false};
				int			n = f->context_type != NULL ? 4 : 2;

				snprintf(values[0], sizeof(values[0]), "%s", storage);
				snprintf(values[1], sizeof(values[1]), INT64_FORMAT, max_kb);
				snprintf(values[2], sizeof(values[2]), "%s", f->context_type ? f->context_type : "");
				snprintf(values[3], sizeof(values[3]), INT64_FORMAT, held_kb);
				for (int i = 0; i < n; i++)
				{
					resetStringInfo(&buf);
					appendStringInfoSpaces(&buf, indent);
					if (format == FORMAT_XML)
					{
						/* ExplainProperty's XML: spaces in the name become dashes */
						char	   *tag = pstrdup(names[i]);

						for (char *c = tag; *c; c++)
							if (*c == ' ')
								*c = '-';
						appendStringInfo(&buf, "<%s>%s</%s>", tag, values[i], tag);
					}
					else if (format == FORMAT_JSON)
						appendStringInfo(&buf, quoted[i] ? "\"%s\": \"%s\"%s" : "\"%s\": %s%s",
										 names[i], values[i],
										 (last_in_object && i == n - 1) ? "" : ",");
					else
						appendStringInfo(&buf, quoted[i] ? "%s: \"%s\"" : "%s: %s",
										 names[i], values[i]);
					lines = lappend(lines, pstrdup(buf.data));
				}
				break;
			}
	}
	pfree(buf.data);
	return lines;
}

/*
 * What ExplainNode() prints, in text, after a node type's own properties
 * (buffers, WAL, per-worker figures) and its children, at the properties'
 * indentation; and what may follow a node's block, less indented: a sibling
 * or the parent's next child or label, or the lines after the plan.
 */
static const char *const text_after[] = {"Buffers: ", "I/O Timings: ", "WAL: ", "Worker ",
"->  ", "InitPlan ", "SubPlan ", "CTE ", NULL};
static const char *const text_outer[] = {"->  ", "InitPlan ", "SubPlan ", "CTE ", "Planning",
	"Execution Time: ", "Trigger ", "JIT:", "Settings: ", "Query Identifier: ",
"Serialization: ", NULL};

static bool
starts_with_any(const char *s, const char *const *prefixes)
{
	for (int k = 0; prefixes[k] != NULL; k++)
		if (starts_with(s, prefixes[k]))
			return true;
	return false;
}

/*
 * Text format: where a node's own properties end, from its first property
 * line.  A value with a newline (a string constant in a filter, say) goes
 * on over the next output lines, which user data can make look like
 * anything, so where the properties end is not read from the text: the walk
 * deparses the node's own properties as ExplainNode() does and keeps how
 * many lines each takes (explain_storage_walk.c; a node whose count cannot
 * be known, as with a range table name with a newline, gets no lines).  Each property the walk counted is stepped over with as many lines
 * as its value takes (a property left out, as "Rows Removed by Filter" with
 * none removed, is not there), so a value's continuation lines are never
 * read as anything; the line after them must be one that ends a node's
 * properties, or the output is not understood (-1).
 */
static int
text_properties_end(Lines *out, int from, int indent, StorageNode *node)
{
	int			i = from;
	const char *line;
	int			ind;

	for (int k = 0; k < node->nprops && i < out->n; k++)
	{
		line = out->line[i];
		if (indent_of(line) == indent && starts_with(line + indent, node->prop_label[k]))
			i += 1 + node->prop_newlines[k];
	}
	if (i >= out->n)
		return i == out->n ? i : -1;
	line = out->line[i];
	ind = indent_of(line);
	if (line[0] == '\0' ||
		(ind == indent && starts_with_any(line + ind, text_after)) ||
		(ind < indent && starts_with_any(line + ind, text_outer)))
		return i;
	return -1;
}

/*
 * Structured formats: where a node's own properties end, from its first
 * property line: before the first line at the properties' indentation that
 * starts what ExplainNode() prints after the node type's own switch
 * (buffers, WAL, per-worker figures) or the children, or at the first line
 * indented less.  JSON and YAML escape a value's newlines; in XML every real
 * line starts with a tag (values escape '<'), and a value's continuation
 * lines do not.
 */
static int
properties_end(Lines *out, int from, int indent, OutputFormat format)
{
	static const char *const json_after[] = {"\"Shared Hit Blocks\":", "\"WAL Records\":",
	"\"Workers\":", "\"Plans\":", NULL};
	static const char *const yaml_after[] = {"Shared Hit Blocks:", "WAL Records:", "Workers:",
	"Plans:", NULL};
	static const char *const xml_after[] = {"<Shared-Hit-Blocks>", "<WAL-Records>", "<Workers>",
	"<Plans>", NULL};
	const char *const *after = format == FORMAT_JSON ? json_after :
		format == FORMAT_YAML ? yaml_after : xml_after;
	int			i;

	Assert(format != FORMAT_TEXT);
	for (i = from; i < out->n; i++)
	{
		const char *line = out->line[i];
		int			ind = indent_of(line);

		if (line[0] == '\0')
			break;
		if (format == FORMAT_XML && line[ind] != '<')
			continue;
		if (ind < indent)
			break;
		if (ind > indent)
			continue;
		if (starts_with_any(line + ind, after))
			break;
	}
	return i;
}

/*
 * Find the numbered node's header: text, the plan's first line (after a
 * blank line between plans) or a line starting "->  "; otherwise its "Node
 * Type" property.  Returns the name's start in *name and the properties'
 * indentation in *indent, or NULL if the line is no header.
 */
static const char *
node_header(Lines *out, int i, bool plan_start, OutputFormat format, int *indent)
{
	const char *line = out->line[i];
	int			ind = indent_of(line);

	switch (format)
	{
		case FORMAT_TEXT:
			if (plan_start)
			{
				*indent = 2;
				return line;
			}
			if (starts_with(line + ind, "->  "))
			{
				*indent = ind + 6;
				return line + ind + 4;
			}
			return NULL;
		case FORMAT_JSON:
			*indent = ind;
			return starts_with(line + ind, "\"Node Type\": \"") ? line + ind + 14 : NULL;
		case FORMAT_YAML:
			if (starts_with(line + ind, "- "))
				ind += 2;
			*indent = ind;
			return starts_with(line + ind, "Node Type: \"") ? line + ind + 12 : NULL;
		case FORMAT_XML:
			*indent = ind;
			return starts_with(line + ind, "<Node-Type>") ? line + ind + 11 : NULL;
	}
	return NULL;
}

/*
 * The output with the lines added, or NULL if it does not have the nodes
 * the walks numbered.  The output is read node by node in the walk's order
 * (a text node's header line, or a structured node's "Node Type" property),
 * and each node's lines go after its own properties and before its buffer,
 * WAL and per-worker figures and its children, where 18's ExplainNode()
 * prints them.  Every header must be where the walk says and every numbered
 * node of those kinds must carry the expected name.
 */
static Lines *
add_storage_lines(Lines *out, ExplainFrame *frame)
{
	Lines	   *result = palloc(sizeof(Lines));
	ListCell   *next = list_head(frame->storage_nodes);
	int			number = 0;
	bool		plan_start = true;
	int			cap = out->n + 4 * list_length(frame->storage_nodes) + 1;
	int		   *insert_at = palloc(sizeof(int) * (list_length(frame->storage_nodes) + 1));
	List	  **inserts = palloc0(sizeof(List *) * (list_length(frame->storage_nodes) + 1));
	int			ninserts = 0;

	for (int i = 0; i < out->n; i++)
	{
		int			indent;
		const char *name;

		if (frame->format == FORMAT_TEXT && out->line[i][0] == '\0')
		{
			plan_start = true;
			continue;
		}
		name = node_header(out, i, plan_start, frame->format, &indent);
		plan_start = false;
		if (name == NULL)
			continue;

		if (next != NULL && ((StorageNode *) lfirst(next))->number == number)
		{
			StorageNode *node = (StorageNode *) lfirst(next);
			int			end;
			bool		last_in_object;

			if (!starts_with(name, node->name))
				return NULL;
			next = lnext(frame->storage_nodes, next);
			number++;
			if (!node->placeable)
				continue;
			end = frame->format == FORMAT_TEXT ?
				text_properties_end(out, i + 1, indent, node) :
				properties_end(out, i + 1, indent, frame->format);
			if (end < 0)
				return NULL;
			/* JSON: at the object's end the line before needs its comma */
			last_in_object = end >= out->n || indent_of(out->line[end]) < indent;
			insert_at[ninserts] = end;
			inserts[ninserts] = storage_lines(node, frame->format, indent, last_in_object);
			if (frame->format == FORMAT_JSON && last_in_object)
				out->line[end - 1] = psprintf("%s,", out->line[end - 1]);
			ninserts++;
			/* the node's own lines hold no header (a value's lines may look like one) */
			i = end - 1;
			continue;
		}
		number++;
	}
	if (next != NULL || number != frame->nodes)
		return NULL;

	result->line = palloc(sizeof(char *) * cap);
	result->n = 0;
	for (int i = 0, k = 0; i <= out->n; i++)
	{
		ListCell   *lc;

		while (k < ninserts && insert_at[k] == i)
		{
			foreach(lc, inserts[k])
				result->line[result->n++] = lfirst(lc);
			k++;
		}
		if (i < out->n)
			result->line[result->n++] = out->line[i];
	}
	return result;
}

/* Split a document into lines (the trailing newline, if any, kept aside). */
static Lines *
split_lines(const char *doc, bool *trailing_newline)
{
	Lines	   *lines = palloc(sizeof(Lines));
	char	   *copy = pstrdup(doc);
	int			len = strlen(copy);
	int			cap = 16;

	*trailing_newline = len > 0 && copy[len - 1] == '\n';
	if (*trailing_newline)
		copy[len - 1] = '\0';
	lines->line = palloc(sizeof(char *) * cap);
	lines->n = 0;
	for (char *p = copy;;)
	{
		char	   *nl = strchr(p, '\n');

		if (lines->n == cap)
		{
			cap *= 2;
			lines->line = repalloc(lines->line, sizeof(char *) * cap);
		}
		lines->line[lines->n++] = p;
		if (nl == NULL)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	return lines;
}

/* ------------------------------------------------------------------------
 * The holding receiver.
 * ------------------------------------------------------------------------
 */

static void
holding_startup(DestReceiver *self, int operation, TupleDesc typeinfo)
{
	HoldingReceiver *h = (HoldingReceiver *) self;
	MemoryContext old = MemoryContextSwitchTo(h->frame->cxt);

	/* ExplainQuery's own, alive until after rShutdown */
	h->typeinfo = typeinfo;
	/* ExplainResultDesc(): text, or xml or json (texts in the same form) */
	h->passthrough = typeinfo->natts != 1 ||
		(TupleDescAttr(typeinfo, 0)->atttypid != TEXTOID &&
		 TupleDescAttr(typeinfo, 0)->atttypid != XMLOID &&
		 TupleDescAttr(typeinfo, 0)->atttypid != JSONOID);
	MemoryContextSwitchTo(old);
	h->inner->rStartup(h->inner, operation, typeinfo);
}

static void
send_rows(HoldingReceiver *h, List *rows)
{
	TupleTableSlot *slot = MakeSingleTupleTableSlot(h->typeinfo, &TTSOpsVirtual);
	ListCell   *lc;

	foreach(lc, rows)
	{
		ExecClearTuple(slot);
		slot->tts_values[0] = CStringGetTextDatum((char *) lfirst(lc));
		slot->tts_isnull[0] = false;
		ExecStoreVirtualTuple(slot);
		h->inner->receiveSlot(slot, h->inner);
	}
	ExecDropSingleTupleTableSlot(slot);
}

static bool
holding_receive(TupleTableSlot *slot, DestReceiver *self)
{
	HoldingReceiver *h = (HoldingReceiver *) self;
	MemoryContext old;
	bool		isnull;
	Datum		value;

	if (h->passthrough)
		return h->inner->receiveSlot(slot, h->inner);
	value = slot_getattr(slot, 1, &isnull);
	if (isnull)
	{
		/* not EXPLAIN's output after all: send what is held, then this */
		h->passthrough = true;
		send_rows(h, h->rows);
		h->rows = NIL;
		return h->inner->receiveSlot(slot, h->inner);
	}
	old = MemoryContextSwitchTo(h->frame->cxt);
	h->rows = lappend(h->rows, TextDatumGetCString(value));
	MemoryContextSwitchTo(old);
	return true;
}

/* The held rows with memprobe's lines added, or the rows as they were. */
static List *
rewritten_rows(HoldingReceiver *h)
{
	ExplainFrame *frame = h->frame;
	Lines	   *out;
	Lines	   *added;
	bool		trailing_newline = false;
	List	   *rows = NIL;

	if (frame->storage_nodes == NIL || h->rows == NIL)
		return h->rows;
	if (frame->format == FORMAT_TEXT)
	{
		ListCell   *lc;

		out = palloc(sizeof(Lines));
		out->n = 0;
		out->line = palloc(sizeof(char *) * list_length(h->rows));
		foreach(lc, h->rows)
		{
			/* a row with a newline in it is not one line: leave it all be */
			if (strchr(lfirst(lc), '\n') != NULL)
				return h->rows;
			out->line[out->n++] = lfirst(lc);
		}
	}
	else
	{
		if (list_length(h->rows) != 1)
			return h->rows;
		out = split_lines(linitial(h->rows), &trailing_newline);
	}

	added = add_storage_lines(out, frame);
	if (added == NULL)
	{
		elog(DEBUG1, "memprobe leaves the Storage lines out: EXPLAIN's output lacks the plan nodes it numbered");
		return h->rows;
	}

	if (frame->format == FORMAT_TEXT)
	{
		for (int i = 0; i < added->n; i++)
			rows = lappend(rows, added->line[i]);
	}
	else
	{
		StringInfoData doc;

		initStringInfo(&doc);
		for (int i = 0; i < added->n; i++)
		{
			if (i > 0)
				appendStringInfoChar(&doc, '\n');
			appendStringInfoString(&doc, added->line[i]);
		}
		if (trailing_newline)
			appendStringInfoChar(&doc, '\n');
		rows = list_make1(doc.data);
	}
	return rows;
}

static void
holding_shutdown(DestReceiver *self)
{
	HoldingReceiver *h = (HoldingReceiver *) self;

	if (h->rows != NIL)
	{
		MemoryContext old = MemoryContextSwitchTo(h->frame->cxt);

		send_rows(h, rewritten_rows(h));
		MemoryContextSwitchTo(old);
		h->rows = NIL;
	}
	h->inner->rShutdown(h->inner);
}

static void
holding_destroy(DestReceiver *self)
{
	/* the frame's context goes when ProcessUtility returns */
}

/* ------------------------------------------------------------------------
 * ProcessUtility: EXPLAIN with ANALYZE.
 * ------------------------------------------------------------------------
 */

/*
 * A boolean option's value, read leniently (core's defGetBoolean() takes
 * fewer spellings and reports the rest); false if unreadable.
 */
static bool
option_bool(DefElem *opt, bool *value)
{
	if (opt->arg == NULL)
		*value = true;
	else if (IsA(opt->arg, String))
		return parse_bool(strVal(opt->arg), value);
	else if (IsA(opt->arg, Integer))
		*value = intVal(opt->arg) != 0;
	else
		return false;
	return true;
}

/*
 * The options EXPLAIN will run with, read leniently: core reports bad
 * options itself, in its own order, so anything unexpected here means "not
 * ours" rather than an error.
 */
static bool
explain_options(ExplainStmt *stmt, OutputFormat *format, bool *verbose)
{
	bool		analyze = false;
	ListCell   *lc;

	*format = FORMAT_TEXT;
	*verbose = false;
	foreach(lc, stmt->options)
	{
		DefElem    *opt = (DefElem *) lfirst(lc);

		if (strcmp(opt->defname, "analyze") == 0)
		{
			if (!option_bool(opt, &analyze))
				return false;
		}
		else if (strcmp(opt->defname, "verbose") == 0)
		{
			if (!option_bool(opt, verbose))
				return false;
		}
		else if (strcmp(opt->defname, "format") == 0)
		{
			const char *p;

			if (opt->arg == NULL || !IsA(opt->arg, String))
				return false;
			p = strVal(opt->arg);
			if (strcmp(p, "text") == 0)
				*format = FORMAT_TEXT;
			else if (strcmp(p, "json") == 0)
				*format = FORMAT_JSON;
			else if (strcmp(p, "yaml") == 0)
				*format = FORMAT_YAML;
			else if (strcmp(p, "xml") == 0)
				*format = FORMAT_XML;
			else
				return false;
		}
	}
	return analyze;
}

/*
 * explain_storage_begin
 *		Before a utility statement runs (memprobe's ProcessUtility hook,
 *		hooks.c): for an EXPLAIN ANALYZE whose output gets the Storage
 *		lines, hold its output in *dest until its plan is printed, and
 *		return the frame explain_storage_end takes when it is over (even by
 *		an error); else NULL, *dest unchanged.
 */
struct ExplainFrame *
explain_storage_begin(PlannedStmt *pstmt, DestReceiver **dest)
{
	Node	   *parsetree = pstmt->utilityStmt;
	OutputFormat format;
	bool		verbose;
	ExplainFrame *frame;
	HoldingReceiver *holding;
	MemoryContext cxt;

	if (!explain_storage_enabled || !IsA(parsetree, ExplainStmt) ||
		!explain_options((ExplainStmt *) parsetree, &format, &verbose) || *dest == NULL)
		return NULL;

	cxt = AllocSetContextCreate(CurrentMemoryContext, "memprobe EXPLAIN storage",
								ALLOCSET_SMALL_SIZES);
	frame = MemoryContextAllocZero(cxt, sizeof(ExplainFrame));
	frame->cxt = cxt;
	frame->format = format;
	frame->verbose = verbose;
	frame->outer = explain_storage_current_frame;
	holding = MemoryContextAllocZero(cxt, sizeof(HoldingReceiver));
	holding->pub.receiveSlot = holding_receive;
	holding->pub.rStartup = holding_startup;
	holding->pub.rShutdown = holding_shutdown;
	holding->pub.rDestroy = holding_destroy;
	holding->pub.mydest = (*dest)->mydest;
	holding->inner = *dest;
	holding->frame = frame;

	explain_storage_current_frame = frame;
	*dest = &holding->pub;
	return frame;
}

/* The EXPLAIN explain_storage_begin held the output of is over. */
void
explain_storage_end(struct ExplainFrame *frame)
{
	explain_storage_current_frame = frame->outer;
	MemoryContextDelete(frame->cxt);
}

void
explain_storage_init(void)
{
	DefineCustomBoolVariable("memprobe.explain_storage",
							 "EXPLAIN ANALYZE prints PostgreSQL 18's Storage line for WindowAgg, CTE Scan, Recursive Union and Table Function Scan.",
							 "memprobe adds the lines to EXPLAIN's output on PostgreSQL 15 and 17; "
							 "18 prints them itself.",
							 &explain_storage_enabled, true, PGC_USERSET, 0, NULL, NULL, NULL);
}

#else							/* PostgreSQL 18: core prints them */

void
explain_storage_init(void)
{
	static bool explain_storage_enabled = true;

	/* defined on every version, so that configuration naming it is valid */
	DefineCustomBoolVariable("memprobe.explain_storage",
							 "Has no effect on PostgreSQL 18, whose EXPLAIN ANALYZE prints these Storage lines itself.",
							 NULL, &explain_storage_enabled, true, PGC_USERSET, 0, NULL, NULL, NULL);
}

struct ExplainFrame *explain_storage_current_frame = NULL;

struct ExplainFrame *
explain_storage_begin(PlannedStmt *pstmt, DestReceiver **dest)
{
	return NULL;
}

void
explain_storage_end(struct ExplainFrame *frame)
{
}

#endif
