/*-------------------------------------------------------------------------
 *
 * runaway.c
 *	  memprobe_test_grow(): a statement that grows without ever checking for
 *	  interrupts, then holds its memory, and memprobe_test_reserve(), memory
 *	  mapped but never touched, for the memory guard's tests (test builds
 *	  only).
 *
 * memprobe_test_grow(mb, step_mb, pause_ms, hold_ms) mallocs and touches
 * step_mb megabytes at a time, pausing pause_ms between steps with pg_usleep
 * (which does not check for interrupts either), up to mb megabytes, as a
 * PL/Python or PL/Perl function growing a list with its language's own
 * allocator, or an extension's C code, would: a cancel does not stop it.
 * Then it holds the memory for hold_ms, checking for interrupts every 10ms
 * (a cancel ends it there), frees it all and returns the megabytes it held.
 * Its memory is exactly what it malloc'd (no transient copies, unlike a
 * PL/pgSQL array), and it frees it on every way out.  When malloc fails (the
 * guard's cap: data_cap.c) it raises palloc's "out of memory".
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"

#include "shared/compat.h"

PG_FUNCTION_INFO_V1(memprobe_test_grow);

Datum
memprobe_test_grow(PG_FUNCTION_ARGS)
{
	int32		mb = PG_GETARG_INT32(0);
	int32		step_mb = PG_GETARG_INT32(1);
	int32		pause_ms = PG_GETARG_INT32(2);
	int32		hold_ms = PG_GETARG_INT32(3);
	Size		step;
	int			nsteps;
	char	  **volatile blocks;
	volatile int held = 0;
	volatile bool failed = false;

	if (mb <= 0 || step_mb <= 0 || pause_ms < 0 || hold_ms < 0)
		ereport(ERROR,
				errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				errmsg("invalid arguments to memprobe_test_grow"),
				errdetail("mb and step_mb must be greater than zero, pause_ms and hold_ms greater than or equal to zero."));
	step = (Size) step_mb * 1024 * 1024;
	nsteps = (mb + step_mb - 1) / step_mb;
	blocks = palloc0(nsteps * sizeof(char *));

	PG_TRY();
	{
		while (held < nsteps)
		{
			char	   *block = malloc(step);

			if (block == NULL)
			{
				failed = true;
				break;
			}
			memset(block, 'x', step);	/* resident, as a real runaway's memory is */
			blocks[held++] = block;
			if (pause_ms > 0)
				pg_usleep(pause_ms * 1000L);
		}
		for (int waited = 0; !failed && waited < hold_ms; waited += 10)
		{
			CHECK_FOR_INTERRUPTS();
			pg_usleep(10 * 1000L);
		}
	}
	PG_FINALLY();
	{
		for (int i = 0; i < held; i++)
			free(blocks[i]);
	}
	PG_END_TRY();
	if (failed)
		ereport(ERROR,
				errcode(ERRCODE_OUT_OF_MEMORY),
				errmsg("out of memory"),
				errdetail("Failed on request of size %zu after %d MB.", step, held * step_mb));
	PG_RETURN_INT32(held * step_mb);
}

/*
 * memprobe_test_reserve(mb) mallocs mb megabytes and never touches them:
 * mapped (VmData, what RLIMIT_DATA counts) but not resident, as a reserved
 * result buffer is.  Kept for the rest of the session (the previous
 * reservation freed); 0 frees it.  Returns mb.
 */
static void *reserved = NULL;

PG_FUNCTION_INFO_V1(memprobe_test_reserve);

Datum
memprobe_test_reserve(PG_FUNCTION_ARGS)
{
	int32		mb = PG_GETARG_INT32(0);

	if (mb < 0)
		ereport(ERROR,
				errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				errmsg("mb must be greater than or equal to zero"));
	free(reserved);
	reserved = NULL;
	if (mb > 0 && (reserved = malloc((Size) mb * 1024 * 1024)) == NULL)
		ereport(ERROR,
				errcode(ERRCODE_OUT_OF_MEMORY),
				errmsg("out of memory"),
				errdetail("Failed on request of size %zu.", (Size) mb * 1024 * 1024));
	PG_RETURN_INT32(mb);
}
