/*-------------------------------------------------------------------------
 *
 * changecount.h
 *	  A slot in shared memory with one writer and readers that never wait:
 *	  the writer makes its change counter odd while it writes; a reader
 *	  copies the slot and keeps the copy only if the counter was even and
 *	  the same before and after (as core's PgBackendStatus st_changecount).
 *	  A writer stopped mid-write makes readers give up, never wait.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_CHANGECOUNT_H
#define MEMPROBE_CHANGECOUNT_H

#include "port/atomics.h"

static inline void
changecount_write_begin(pg_atomic_uint32 *changecount)
{
	pg_atomic_fetch_add_u32(changecount, 1);
	pg_write_barrier();
}

static inline void
changecount_write_end(pg_atomic_uint32 *changecount)
{
	pg_write_barrier();
	pg_atomic_fetch_add_u32(changecount, 1);
}

/*
 * Copy size bytes from slot to copy, guarded by changecount; false if no
 * whole copy could be had in tries attempts.
 */
static inline bool
changecount_read(pg_atomic_uint32 *changecount, const void *slot, void *copy, Size size,
				 int tries)
{
	for (int i = 0; i < tries; i++)
	{
		uint32		before = pg_atomic_read_u32(changecount);

		pg_read_barrier();
		memcpy(copy, slot, size);
		pg_read_barrier();
		if ((before & 1) == 0 && before == pg_atomic_read_u32(changecount))
			return true;
	}
	return false;
}

#endif							/* MEMPROBE_CHANGECOUNT_H */
