/*-------------------------------------------------------------------------
 *
 * streamscan_explain.c
 *	  StreamScan under EXPLAIN ANALYZE: streamscan_explain, the node's
 *	  ExplainCustomScan method, shows how the scan looked ahead and what it
 *	  read (its block stream's figures), and how many of its quals ran in
 *	  the page loop.
 *
 * It only reads what the scan kept: the figures are counted as the scan
 * goes, and nothing here runs while it returns rows.  Where parallel
 * workers ran the node, a parallel-aware scan's figures are everyone's,
 * brought back through its shared memory; any other scan's stay in the
 * workers, and EXPLAIN says so (see streamscan_explain).
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/rel.h"

#include "scan/block_stream.h"
#include "scan/page_quals.h"
#include "scan/streamscan_node.h"
#include "scan/streamscan_parallel.h"
#include "shared/compat.h"

/*
 * workers_that_ran
 *		How many parallel workers ran this node, as far as EXPLAIN ANALYZE
 *		knows (their instrumentation, gathered by the leader).
 */
static int
workers_that_ran(PlanState *ps)
{
	int			n = 0;

	if (ps->worker_instrument == NULL)
		return 0;
	for (int i = 0; i < ps->worker_instrument->num_workers; i++)
	{
		if (ps->worker_instrument->instrument[i].nloops > 0)
			n++;
	}
	return n;
}

/*
 * explained_page_quals
 *		How many of the qual's clauses ran in the page loop.  A parallel
 *		scan's leader that took no part (parallel_leader_participation =
 *		off) never prepared its scan: its workers, which have the leader's
 *		settings and plan, built what it would build, so it is built here.
 */
static int
explained_page_quals(StreamScanState *s)
{
	Scan	   *scan = (Scan *) s->css.ss.ps.plan;
	PageQuals  *pq;
	List	   *rest;

	if (s->prepared || !s->want_page_quals || s->par == NULL)
		return s->page_quals ? s->page_quals->nquals : 0;
	pq = page_quals_build(scan->plan.qual, scan->scanrelid, RelationGetDescr(s->rel), &rest);
	return pq ? pq->nquals : 0;
}

/*
 * streamscan_explain
 *		EXPLAIN ANALYZE: how the scan looked ahead and what it read.
 *
 * A parallel-aware scan's figures are every participant's: the workers'
 * come back through the node's shared memory (streamscan_parallel.c), and
 * the line says how the pages were shared out.
 *
 * A non-parallel-aware scan that parallel workers also ran (a non-partial
 * scan under Gather, each worker reading the whole relation) keeps its
 * workers' figures in the workers: core passes custom scan nodes no shared
 * memory unless they are parallel-aware, and no instrumentation callback at
 * all, so they cannot be gathered.  Then EXPLAIN says so, rather than print
 * the leader's pages beside Buffers figures that count everyone's.
 */
void
streamscan_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	StreamScanState *s = (StreamScanState *) node;
	BlockStreamStats all = s->stats;
	const BlockStreamStats *st = &all;
	BlockStreamStats workers_sum;
	const BlockStreamStats *each;
	int			nslots = 0;
	bool		parallel_aware = node->ss.ps.plan->parallel_aware;
	int			nworkers = parallel_aware ? 0 : workers_that_ran(&node->ss.ps);
	int			npage_quals;
	const char *kind;
	int64		unused;

	if (!es->analyze || (!s->begun && nworkers == 0))
		return;

	if (parallel_aware && s->par != NULL)
	{
		nslots = streamscan_parallel_worker_stats(s->par, &workers_sum, &each);
		block_stream_stats_add(&all, &workers_sum);
	}
	npage_quals = explained_page_quals(s);

	if (!s->begun)
	{
		/* only workers ran it (parallel_leader_participation = off) */
		if (es->format == EXPLAIN_FORMAT_TEXT)
		{
			compat_explain_indent(es);
			appendStringInfo(es->str, "Pages: not counted (read by %d parallel worker%s only)\n",
							 nworkers, nworkers == 1 ? "" : "s");
		}
		else
		{
			ExplainPropertyText("Pages Counted By", "none", es);
			ExplainPropertyInteger("Workers Not Counted", NULL, nworkers, es);
		}
		return;
	}

	/*
	 * hit and read count every buffer the stream pinned; core's read_stream
	 * (17+) pins blocks ahead of the scan, so a scan that stopped early (a
	 * LIMIT, an EXISTS) pinned some it never reached: shown apart, so that
	 * hit + read - unused = the pages the scan consumed.
	 */
	unused = Max(0, st->hits + st->reads - st->pages);

	switch (block_stream_kind(s->stream))
	{
		case BLOCK_STREAM_PREFETCH:
			kind = "prefetch";
			break;
		case BLOCK_STREAM_READ_STREAM:
			kind = "read_stream";
			break;
		default:
			kind = "off";
			break;
	}

	if (es->format == EXPLAIN_FORMAT_TEXT)
	{
		compat_explain_indent(es);
		appendStringInfo(es->str, "Look-ahead: %s", kind);
		if (block_stream_kind(s->stream) == BLOCK_STREAM_PREFETCH)
			appendStringInfo(es->str, "  Distance: limit=%d peak=%d  Prefetches: " INT64_FORMAT,
							 st->distance_limit, st->distance_peak, st->prefetches);
		appendStringInfoChar(es->str, '\n');
		compat_explain_indent(es);
		appendStringInfo(es->str, "Pages: " INT64_FORMAT "  hit=" INT64_FORMAT "  read=" INT64_FORMAT,
						 st->pages, st->hits, st->reads);
		if (unused > 0)
			appendStringInfo(es->str, "  read ahead unused=" INT64_FORMAT, unused);
		if (s->par != NULL)
		{
			/* how the shared scan's pages were shared out */
			appendStringInfo(es->str, "  (leader " INT64_FORMAT, s->stats.pages);
			for (int i = 0; i < nslots; i++)
				appendStringInfo(es->str, "%s" INT64_FORMAT, i == 0 ? "; workers " : ", ",
								 each[i].pages);
			appendStringInfoChar(es->str, ')');
#ifdef MEMPROBE_INJECTION_POINTS
			appendStringInfo(es->str, "  read twice=" INT64_FORMAT, st->pages_again);
#endif
		}
		if (nworkers > 0)
			appendStringInfo(es->str, "  (leader only; %d parallel worker%s not counted)",
							 nworkers, nworkers == 1 ? "" : "s");
		appendStringInfoChar(es->str, '\n');
		if (npage_quals > 0)
		{
			compat_explain_indent(es);
			appendStringInfo(es->str, "Page Quals: %d of %d\n", npage_quals,
							 list_length(((Scan *) node->ss.ps.plan)->plan.qual));
		}
	}
	else
	{
		ExplainPropertyText("Look-ahead", kind, es);
		if (block_stream_kind(s->stream) == BLOCK_STREAM_PREFETCH)
		{
			ExplainPropertyInteger("Look-ahead Limit", NULL, st->distance_limit, es);
			ExplainPropertyInteger("Look-ahead Peak", NULL, st->distance_peak, es);
			ExplainPropertyInteger("Prefetches Issued", NULL, st->prefetches, es);
		}
		ExplainPropertyInteger("Pages", NULL, st->pages, es);
		ExplainPropertyInteger("Pages Hit", NULL, st->hits, es);
		ExplainPropertyInteger("Pages Read", NULL, st->reads, es);
		ExplainPropertyInteger("Pages Read Ahead Unused", NULL, unused, es);
		if (s->par != NULL)
		{
			ExplainPropertyInteger("Pages By Leader", NULL, s->stats.pages, es);
			ExplainPropertyInteger("Pages By Workers", NULL, workers_sum.pages, es);
#ifdef MEMPROBE_INJECTION_POINTS
			ExplainPropertyInteger("Pages Read Twice", NULL, st->pages_again, es);
#endif
		}
		if (nworkers > 0)
		{
			ExplainPropertyText("Pages Counted By", "leader", es);
			ExplainPropertyInteger("Workers Not Counted", NULL, nworkers, es);
		}
		ExplainPropertyInteger("Page Quals", NULL, npage_quals, es);
	}
}
