/*-------------------------------------------------------------------------
 *
 * injection.c
 *	  Test-only pause points (see injection.h).  Without
 *	  MEMPROBE_INJECTION_POINTS this file defines an empty injection_init().
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/fmgrprotos.h"
#include "utils/guc.h"

#include "shared/injection.h"

#ifdef MEMPROBE_INJECTION_POINTS

/* memprobe.test_pause_at: the point to pause at ("" for none) */
static char *pause_at = NULL;

/* memprobe.test_pause_lock: the advisory lock key to wait on there */
static int	pause_lock = 0;

/*
 * memprobe_injection_point
 *		Wait at 'name' while another session holds the advisory lock, if the
 *		settings ask for it.
 */
void
memprobe_injection_point(const char *name)
{
	if (pause_at == NULL || pause_at[0] == '\0' || strcmp(pause_at, name) != 0)
		return;

	DirectFunctionCall1(pg_advisory_lock_int8, Int64GetDatum(pause_lock));
	DirectFunctionCall1(pg_advisory_unlock_int8, Int64GetDatum(pause_lock));
}

/* memprobe.test_log_delay: microseconds a client backend sleeps per LOG line */
static int	log_delay_us = 0;

/*
 * memprobe_injection_log_delay
 *		Sleep at a client backend's LOG line, if the setting asks for it.
 */
void
memprobe_injection_log_delay(const ErrorData *edata)
{
	if (log_delay_us > 0 && edata->elevel == LOG && MyBackendType == B_BACKEND)
		pg_usleep(log_delay_us);
}

/* memprobe.test_cap_delay: milliseconds the sampler waits before lowering a limit */
static int	cap_delay_ms = 0;

/*
 * memprobe_injection_cap_delay
 *		Sleep in the sampler between marking a process capped and lowering its
 *		limit, if the setting asks for it.
 */
void
memprobe_injection_cap_delay(void)
{
	if (cap_delay_ms > 0)
		pg_usleep(cap_delay_ms * 1000L);
}

void
injection_init(void)
{
	DefineCustomIntVariable("memprobe.test_cap_delay",
							"Test builds only: milliseconds the sampler waits between marking a process capped and lowering its limit.",
							NULL,
							&cap_delay_ms,
							0,
							0, 10000,
							PGC_SUSET,
							GUC_UNIT_MS,
							NULL, NULL, NULL);
	DefineCustomIntVariable("memprobe.test_log_delay",
							"Test builds only: microseconds a client backend sleeps at each LOG line it writes.",
							NULL,
							&log_delay_us,
							0,
							0, 1000000,
							PGC_SUSET,
							0,
							NULL, NULL, NULL);
	DefineCustomStringVariable("memprobe.test_pause_at",
							   "Test builds only: the pause point to wait at.",
							   NULL,
							   &pause_at,
							   "",
							   PGC_SUSET,
							   0,
							   NULL, NULL, NULL);
	DefineCustomIntVariable("memprobe.test_pause_lock",
							"Test builds only: the advisory lock a pause point waits on.",
							NULL,
							&pause_lock,
							0,
							0, INT_MAX,
							PGC_SUSET,
							0,
							NULL, NULL, NULL);
}

#endif							/* MEMPROBE_INJECTION_POINTS */
