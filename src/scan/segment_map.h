/*-------------------------------------------------------------------------
 *
 * segment_map.h
 *	  memprobe's own handle on a relation's segment files, for the kernel
 *	  read-ahead advice StreamScan gives on PostgreSQL 15/16.
 *
 * PostgreSQL has no smgr hook, and its only advice call, PrefetchBuffer(),
 * advises one 8kB block at a time, which breaks the kernel's own sequential
 * read-ahead and made cold scans slower (bench/RESULTS.md).  memprobe maps a
 * run of blocks to its segment file in O(1) (block / RELSEG_SIZE, the
 * file's path computed once per scan), opens the file itself read-only for
 * the moment of one call, and advises the whole run with one
 * posix_fadvise(WILLNEED), after checking with a one-byte non-blocking read
 * (preadv2 RWF_NOWAIT) that the run is not in the page cache already.  The
 * descriptor is closed before anything that could raise an error, so none
 * outlives a call (it costs an open and a close per run asked about;
 * block_stream.c asks about few runs of a cached table).  It never reads a
 * block for PostgreSQL and never touches shared buffers: advice only
 * decides what the kernel has ready when the buffer manager reads.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_SEGMENT_MAP_H
#define MEMPROBE_SEGMENT_MAP_H

#include "postgres.h"

#include "storage/block.h"
#include "utils/rel.h"

typedef struct SegmentMap SegmentMap;

extern SegmentMap *segment_map_open(Relation rel);
extern int	segment_map_advise(SegmentMap *map, BlockNumber first, BlockNumber nblocks);
extern void segment_map_close(SegmentMap *map);

#endif							/* MEMPROBE_SEGMENT_MAP_H */
