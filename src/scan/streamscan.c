/*-------------------------------------------------------------------------
 *
 * streamscan.c
 *	  StreamScan, planning side: wherever the planner considers a heap
 *	  sequential scan, it also considers memprobe's (streamscan_exec.c), at
 *	  the same cost, and prefers it on that tie.
 *
 * memprobe's set_rel_pathlist hook (hooks.c) calls streamscan_add_paths
 * after core has built a relation's paths.  For each plain (non-partial)
 * SeqScan path of a heap relation it inserts a CustomPath that is a copy
 * of it (rows, costs, parameterization, parallel safety, target) just
 * before it in the pathlist.  Path selection breaks
 * cost ties in favour of the earlier path, so memprobe's scan is chosen
 * exactly where core would choose its seq scan and nowhere else: the plans
 * are core's plans with one node type changed.  The SeqScan path stays in
 * the list because the planner sometimes rebuilds a path with another
 * parameterization (reparameterize_path(), for appendrel children), which
 * it can do for SeqScan and not for a custom path; there core's scan is
 * used, as it would be anyway.
 *
 * Partial paths the same way: each partial (parallel-aware) SeqScan path of
 * a heap relation gets a parallel-aware copy ahead of it in the
 * partial_pathlist, so that a Gather, Gather Merge or Parallel Append built
 * over the relation's cheapest partial path (linitial) takes memprobe's,
 * where core would take its Parallel Seq Scan, with the same workers
 * (streamscan_parallel.c shares the blocks out as core does).  The hook
 * runs before the relation's gather paths are made (set_rel_pathlist), and
 * partial paths are never reparameterized.
 *
 * Not offered: TABLESAMPLE (a different scan) and table access methods
 * other than heap.
 *
 * Copyright (c) 2026, The memprobe Developers
 * Portions Copyright (c) 1996-2025, PostgreSQL Global Development Group
 * Portions Copyright (c) 1994, Regents of the University of California
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_am_d.h"
#include "catalog/pg_class_d.h"
#include "nodes/pathnodes.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "utils/guc.h"
#include "utils/rel.h"

#include "scan/streamscan.h"
#include "scan/streamscan_parallel.h"
#include "shared/observe_only.h"

/* memprobe.enable_streamscan */
static bool streamscan_enabled = true;

/* memprobe.streamscan_distance */
int			streamscan_distance = 256;

/* memprobe.streamscan_page_quals */
bool		streamscan_page_quals = true;

/* memprobe.streamscan_deform_by_need */
bool		streamscan_deform_by_need = true;

/* memprobe.streamscan_simple_projection */
bool		streamscan_simple_projection = true;

/* memprobe.streamscan_direct_projection */
bool		streamscan_direct_projection = true;

/* memprobe.streamscan_batch_quals */
bool		streamscan_batch_quals = true;


static Plan *streamscan_plan_path(PlannerInfo *root, RelOptInfo *rel,
								  CustomPath *best_path, List *tlist,
								  List *clauses, List *custom_plans);

static const CustomPathMethods streamscan_path_methods = {
	.CustomName = STREAMSCAN_CUSTOM_NAME,
	.PlanCustomPath = streamscan_plan_path,
};

/*
 * is_heap_relation
 *		Does the relation use the heap table access method?  The planner
 *		holds a lock on it and has its relcache entry built already
 *		(get_relation_info), so this is one relcache lookup; the planner
 *		keeps no note of the access method itself.
 */
static bool
is_heap_relation(Oid relid)
{
	Relation	rel = RelationIdGetRelation(relid);
	bool		heap;

	if (!RelationIsValid(rel))
		elog(ERROR, "could not open relation with OID %u", relid);
	heap = rel->rd_rel->relam == HEAP_TABLE_AM_OID;
	RelationClose(rel);
	return heap;
}

/*
 * streamscan_path_from
 *		memprobe's path in place of core's SeqScan path: the same in every
 *		planner-visible respect.
 */
static CustomPath *
streamscan_path_from(Path *seqscan)
{
	CustomPath *cpath = makeNode(CustomPath);

	cpath->path = *seqscan;
	cpath->path.type = T_CustomPath;
	cpath->path.pathtype = T_CustomScan;
	cpath->path.pathkeys = NIL;
	/*
	 * Backward scans as core's (SCROLL cursors need no Material on top); a
	 * parallel-aware scan is never run backward (ExecSupportsBackwardScan).
	 */
	cpath->flags = seqscan->parallel_aware ? 0 : CUSTOMPATH_SUPPORT_BACKWARD_SCAN;
#ifdef CUSTOMPATH_SUPPORT_PROJECTION
	cpath->flags |= CUSTOMPATH_SUPPORT_PROJECTION;
#endif
	cpath->custom_paths = NIL;
	cpath->custom_private = NIL;
	cpath->methods = &streamscan_path_methods;
	return cpath;
}

/* Does pathlist hold core's plain (or, if parallel, its parallel) sequential scan path? */
static bool
has_seqscan_path(List *pathlist, bool parallel)
{
	ListCell   *lc;

	foreach(lc, pathlist)
	{
		Path	   *path = (Path *) lfirst(lc);

		if (path->pathtype == T_SeqScan && IsA(path, Path) &&
			path->parallel_aware == parallel)
			return true;
	}
	return false;
}

/*
 * streamscan_add_paths
 *		After core has built a relation's paths (memprobe's set_rel_pathlist
 *		hook, hooks.c): StreamScan's beside its Seq Scans.
 */
void
streamscan_add_paths(PlannerInfo *root, RelOptInfo *rel, Index rti, RangeTblEntry *rte)
{
	List	   *pathlist = NIL;
	ListCell   *lc;

	if (!streamscan_enabled || !memprobe_changes_plans())
		return;
	if (rel->reloptkind != RELOPT_BASEREL &&
		rel->reloptkind != RELOPT_OTHER_MEMBER_REL)
		return;
	/* inheritance parents and partitioned tables get an Append instead */
	if (rte->rtekind != RTE_RELATION || rte->inh || rte->tablesample != NULL)
		return;
	if (rte->relkind != RELKIND_RELATION && rte->relkind != RELKIND_MATVIEW)
		return;
	/*
	 * Nothing to do when add_path kept no sequential scan (an index scan
	 * beat it: most OLTP statements), checked before the relation is opened
	 * for its access method, which costs more than all the rest of this
	 * hook (bench/RESULTS.md, "Scans against the floor").
	 */
	if (!has_seqscan_path(rel->pathlist, false) &&
		!(streamscan_parallel_enabled && has_seqscan_path(rel->partial_pathlist, true)))
		return;
	if (!is_heap_relation(rte->relid))
		return;

	foreach(lc, rel->pathlist)
	{
		Path	   *path = (Path *) lfirst(lc);

		/* ahead of core's path: the tie goes to memprobe's */
		if (path->pathtype == T_SeqScan && IsA(path, Path) &&
			!path->parallel_aware)
			pathlist = lappend(pathlist, streamscan_path_from(path));
		pathlist = lappend(pathlist, path);
	}
	rel->pathlist = pathlist;

	if (!streamscan_parallel_enabled || rel->partial_pathlist == NIL)
		return;
	pathlist = NIL;
	foreach(lc, rel->partial_pathlist)
	{
		Path	   *path = (Path *) lfirst(lc);

		if (path->pathtype == T_SeqScan && IsA(path, Path) &&
			path->parallel_aware)
			pathlist = lappend(pathlist, streamscan_path_from(path));
		pathlist = lappend(pathlist, path);
	}
	rel->partial_pathlist = pathlist;
}

/*
 * streamscan_plan_path
 *		The CustomScan node, as create_seqscan_plan() makes a SeqScan: the
 *		qual is the restriction clauses in the order create_customscan_plan()
 *		already gave them (order_qual_clauses: security level first, so
 *		row-level security policies run before any user function), without
 *		their RestrictInfos.  Nestloop parameters are replaced by core after
 *		this returns.
 */
static Plan *
streamscan_plan_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
					 List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);

	Assert(rel->relid > 0 && custom_plans == NIL);

	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = extract_actual_clauses(clauses, false);
	cscan->scan.scanrelid = rel->relid;
	cscan->flags = best_path->flags;
	cscan->custom_plans = NIL;
	cscan->custom_exprs = NIL;
	cscan->custom_private = NIL;
	cscan->custom_scan_tlist = NIL; /* scan tuples have the table's row type */
	cscan->methods = &streamscan_scan_methods;
	return &cscan->scan.plan;
}

void
streamscan_init(void)
{
	DefineCustomBoolVariable("memprobe.enable_streamscan",
							 "Plans heap sequential scans as memprobe's streaming scan.",
							 "Takes effect when a query is planned.",
							 &streamscan_enabled,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("memprobe.enable_parallel_streamscan",
							 "Plans parallel heap sequential scans as memprobe's parallel streaming scan.",
							 "Where the planner considers a Parallel Seq Scan of a heap table, it also "
							 "considers memprobe's at the same cost.  Needs memprobe.enable_streamscan.  "
							 "Takes effect when a query is planned.",
							 &streamscan_parallel_enabled,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("memprobe.streamscan_distance",
							"Furthest look-ahead of memprobe's streaming scan, in blocks.",
							"0 reads one block at a time with no look-ahead.  "
							"Before PostgreSQL 17 it bounds the kernel read-ahead advice "
							"memprobe gives (in runs of 64 blocks); from 17 any other value "
							"uses core's read stream, which sizes its own look-ahead.",
							&streamscan_distance,
							256,
							0, 4096,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);

	DefineCustomBoolVariable("memprobe.streamscan_page_quals",
							 "Checks simple integer comparisons on raw tuples in memprobe's streaming scan.",
							 "Quals of the form column op constant on int2, int4 or int8 columns at a fixed "
							 "offset are checked in the page loop, before a tuple is stored in a slot.  "
							 "Takes effect at executor start.",
							 &streamscan_page_quals,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);
	DefineCustomBoolVariable("memprobe.streamscan_batch_quals",
							 "Passes over the tuples that fail a streaming scan's page-loop quals in one loop.",
							 "Going forward on a page, the tuples that fail memprobe.streamscan_page_quals "
							 "are skipped in a tight loop and counted at once, instead of one fetch each.  "
							 "Takes effect at executor start.",
							 &streamscan_batch_quals,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("memprobe.streamscan_deform_by_need",
							 "Deforms only the columns a streaming scan's quals and projection read.",
							 "When the scan projects, each needed column is reached from the end of the "
							 "variable-width column before it, without walking the columns in between "
							 "(tuples with a NULL before the last needed column are deformed column by "
							 "column).  Takes effect at executor start.",
							 &streamscan_deform_by_need,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);
	DefineCustomBoolVariable("memprobe.streamscan_simple_projection",
							 "Projects a streaming scan's rows by copying columns when it returns plain columns of the table.",
							 "A targetlist of table columns (no expression, no system column) is a copy of "
							 "those columns from the scanned tuple, as the expression machinery would make it, "
							 "without its call per row.  Takes effect at executor start.",
							 &streamscan_simple_projection,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);
	DefineCustomBoolVariable("memprobe.streamscan_direct_projection",
							 "Deforms a streaming scan's tuples straight into the rows it returns when it has no qual and returns plain columns.",
							 "With no qual, a plain-column projection naming each column once, and deformation "
							 "by need on, a tuple with no NULL up to the last column read is deformed into the "
							 "projection's row instead of the scan's slot and then copied.  Takes effect at "
							 "executor start.",
							 &streamscan_direct_projection,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	streamscan_exec_init();
}
