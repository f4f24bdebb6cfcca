/*-------------------------------------------------------------------------
 *
 * segment_map.c
 *	  Segment files and read-ahead advice: see segment_map.h.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include "storage/fd.h"

#include "shared/compat.h"
#include "scan/segment_map.h"

struct SegmentMap
{
	char	   *path;			/* segment 0's path, relative to the data directory */
	bool		probe_works;	/* preadv2(RWF_NOWAIT) answers on this system */
};

SegmentMap *
segment_map_open(Relation rel)
{
	SegmentMap *map = palloc(sizeof(SegmentMap));

	map->path = compat_relation_main_fork_path(rel);
	map->probe_works = true;
	return map;
}

/*
 * open_segment
 *		A descriptor of its own for one segment file, or -1 (no such segment
 *		yet, or no descriptor to spare: then no advice).  BasicOpenFile()
 *		makes room among PostgreSQL's descriptors if it must.  The caller
 *		closes it before doing anything that could raise an error, so no
 *		descriptor outlives the call, whatever happens to the scan after.
 */
static int
open_segment(SegmentMap *map, BlockNumber segno)
{
	char		path[MAXPGPATH];

	if (segno == 0)
		strlcpy(path, map->path, sizeof(path));
	else
		snprintf(path, sizeof(path), "%s.%u", map->path, segno);
	return BasicOpenFile(path, O_RDONLY | PG_BINARY);
}

/*
 * is_resident
 *		Is the block at 'offset' in the kernel's page cache?  A one-byte read
 *		that may not wait for I/O answers it.  Where the kernel cannot say,
 *		assume not (advice on cached pages costs little).
 */
static bool
is_resident(SegmentMap *map, int fd, off_t offset)
{
#ifdef RWF_NOWAIT
	char		byte;
	struct iovec iov = {.iov_base = &byte,.iov_len = 1};

	if (map->probe_works)
	{
		if (preadv2(fd, &iov, 1, offset, RWF_NOWAIT) >= 0)
			return true;
		if (errno == EAGAIN)
			return false;
		map->probe_works = false;
	}
#endif
	return false;
}

/*
 * segment_map_advise
 *		Advise the kernel to read blocks first .. first + nblocks - 1, one
 *		call per segment they fall in, skipping a piece whose last block is
 *		already cached.  Returns the number of posix_fadvise calls made.
 */
int
segment_map_advise(SegmentMap *map, BlockNumber first, BlockNumber nblocks)
{
	int			advised = 0;

	while (nblocks > 0)
	{
		BlockNumber segno = first / RELSEG_SIZE;
		BlockNumber inseg = first % RELSEG_SIZE;
		BlockNumber n = Min(nblocks, RELSEG_SIZE - inseg);
		int			fd = open_segment(map, segno);

		if (fd >= 0)
		{
			if (!is_resident(map, fd, (off_t) (inseg + n - 1) * BLCKSZ))
			{
#ifdef USE_POSIX_FADVISE
				(void) posix_fadvise(fd, (off_t) inseg * BLCKSZ, (off_t) n * BLCKSZ,
									 POSIX_FADV_WILLNEED);
				advised++;
#endif
			}
			close(fd);
		}
		first += n;
		nblocks -= n;
	}
	return advised;
}

void
segment_map_close(SegmentMap *map)
{
	pfree(map->path);
	pfree(map);
}
