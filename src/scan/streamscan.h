/*-------------------------------------------------------------------------
 *
 * streamscan.h
 *	  StreamScan: heap sequential scans through a look-ahead block stream.
 *	  streamscan.c offers the paths and makes the plans; streamscan_exec.c
 *	  runs them; block_stream.c looks ahead; tuple_deform.c deforms.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_STREAMSCAN_H
#define MEMPROBE_STREAMSCAN_H

#include "postgres.h"

#include "nodes/extensible.h"
#include "nodes/pathnodes.h"

/* The custom scan's name: unique across extensions, shown by EXPLAIN. */
#define STREAMSCAN_CUSTOM_NAME	"MemprobeStreamScan"

/* memprobe.streamscan_distance: the furthest look-ahead, in blocks */
extern int	streamscan_distance;

/* memprobe.streamscan_page_quals */
extern bool streamscan_page_quals;
extern bool streamscan_deform_by_need;

/* memprobe.streamscan_simple_projection: plain-column projections copied, not evaluated */
extern bool streamscan_simple_projection;

/* memprobe.streamscan_direct_projection: with no qual, deformed into the projection's row */
extern bool streamscan_direct_projection;

/* memprobe.streamscan_batch_quals: tuples failing page quals passed over in one loop */
extern bool streamscan_batch_quals;

extern const CustomScanMethods streamscan_scan_methods;

extern void streamscan_init(void);
extern void streamscan_add_paths(PlannerInfo *root, RelOptInfo *rel, Index rti,
								RangeTblEntry *rte);
extern void streamscan_exec_init(void);

#endif							/* MEMPROBE_STREAMSCAN_H */
