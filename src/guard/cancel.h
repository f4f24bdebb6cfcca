/*-------------------------------------------------------------------------
 *
 * cancel.h
 *	  The guard's cancel between two processes: the slot in which the
 *	  sampler says why it cancelled a process's statement (guard.c writes
 *	  it), and what the cancelled process needs to give that cancel the
 *	  guard's error (cancel.c).
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_CANCEL_H
#define MEMPROBE_CANCEL_H

#include "datatype/timestamp.h"
#include "port/atomics.h"

typedef enum GuardReason
{
	GUARD_BACKEND_LIMIT,
	GUARD_MIN_AVAILABLE,
	GUARD_REASONS
} GuardReason;

/* Why the guard cancelled a process's statement (by PGPROC number). */
typedef struct GuardSlot
{
	pg_atomic_uint32 changecount;	/* odd while the sampler writes it */
	int			pid;
	uint64		stmt;			/* the statement cancelled (statement_id.h) */
	int			reason;			/* GuardReason */
	int64		figure;			/* the process's memory, or the available memory */
	int64		limit;			/* the setting's value, bytes */
	int64		held;			/* the process's memory (GUARD_MIN_AVAILABLE) */
	TimestampTz sent_at;		/* when the sampler sent the cancel */
} GuardSlot;

/*
 * Process procno's slot, in memprobe's shared memory (guard.c); NULL
 * without it, or for a number out of range.
 */
extern GuardSlot *guard_slot(int procno);


#endif							/* MEMPROBE_CANCEL_H */
