/*-------------------------------------------------------------------------
 *
 * explain_storage_walk.h
 *	  An EXPLAIN ANALYZE that memprobe wrapped, and the nodes it adds Storage
 *	  lines for: what the plan walk at ExecutorEnd (explain_storage_walk.c)
 *	  leaves for the rewriting of EXPLAIN's output (explain_storage.c).
 *	  Private to those two files.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_EXPLAIN_STORAGE_WALK_H
#define MEMPROBE_EXPLAIN_STORAGE_WALK_H

#include "nodes/pg_list.h"

#include "store/stores.h"

typedef enum OutputFormat
{
	FORMAT_TEXT,
	FORMAT_JSON,
	FORMAT_YAML,
	FORMAT_XML
} OutputFormat;

/* The most own properties a text node of those kinds has (Table Function Scan's) */
#define MAX_TEXT_PROPERTIES 4

/* A node EXPLAIN prints whose lines memprobe adds. */
typedef struct StorageNode
{
	int			number;			/* in ExplainNode()'s order over every plan, from 0 */
	const char *name;			/* its node type as EXPLAIN names it */
	StoreFigures figures;

	/*
	 * Text format: the node's own properties that ExplainNode() may print
	 * before where 18 prints Storage, in that order, each with the number
	 * of newlines its value holds.  placeable is false when these are not
	 * known: the node gets no lines then.
	 */
	bool		placeable;
	int			nprops;
	const char *prop_label[MAX_TEXT_PROPERTIES];	/* "Filter: " */
	int			prop_newlines[MAX_TEXT_PROPERTIES];
} StorageNode;

/*
 * One EXPLAIN ANALYZE being run (nested ones, from functions the explained
 * query calls, stack up).  Lives in its own context, a child of the one
 * ProcessUtility was called in.
 */
typedef struct ExplainFrame
{
	MemoryContext cxt;
	OutputFormat format;
	bool		verbose;		/* EXPLAIN's VERBOSE */
	int			nodes;			/* nodes numbered so far, over every plan */
	List	   *storage_nodes;	/* StorageNode *, in order */
	List	   *queries;		/* QueryDesc * of explained queries started, not ended */
	struct ExplainFrame *outer;
} ExplainFrame;

#endif							/* MEMPROBE_EXPLAIN_STORAGE_WALK_H */
