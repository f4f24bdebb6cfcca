/*-------------------------------------------------------------------------
 *
 * stores.h
 *	  Tuple stores of WindowAgg, CTE Scan and Recursive Union in a Generation
 *	  context (stores.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_STORES_H
#define MEMPROBE_STORES_H

#include "nodes/execnodes.h"

extern void stores_init(void);
extern void stores_install_hooks(void);

/*
 * The most the node's stores held in memory (bytes, as work_mem is charged;
 * -1 once on disk) and whether they spilled, for memprobe_statements; false
 * if the node is not a store owner memprobe knows.
 */
extern bool stores_node_peak(PlanState *ps, int64 *bytes, bool *spilled);

#endif							/* MEMPROBE_STORES_H */
