/*-------------------------------------------------------------------------
 *
 * injection.h
 *	  Test-only pause points: a way for an isolation spec to hold a backend
 *	  at an exact place in memprobe's code, deterministically.
 *
 * Compiled in only when MEMPROBE_INJECTION_POINTS is defined (scripts/test
 * builds with it: make MEMPROBE_INJECTION_POINTS=1); in any other build
 * MEMPROBE_INJECTION_POINT() is nothing at all.
 *
 * With it, two superuser-only settings exist: memprobe.test_pause_at names a
 * point and memprobe.test_pause_lock an advisory lock key.  A backend that
 * reaches the named point takes and releases that session-level advisory
 * lock (pg_advisory_lock(key)), so it waits there for as long as another
 * session holds the lock, and isolationtester sees it as blocked on a lock.
 *
 * And a slow server log: memprobe.test_log_delay makes a client backend
 * sleep that long (microseconds) at each LOG line it writes, in memprobe's
 * emit_log_hook.  With log_statement, that widens core's own windows, such
 * as the one between reading an Execute message and running the portal.
 * And a slow cap: memprobe.test_cap_delay makes the sampler sleep that long
 * (milliseconds) between marking a process capped and lowering its limit
 * (data_cap.c), so that its statement can end in between.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_INJECTION_H
#define MEMPROBE_INJECTION_H

#ifdef MEMPROBE_INJECTION_POINTS
/* src/testing/injection.c, compiled only into test builds */
extern void memprobe_injection_point(const char *name);
extern void memprobe_injection_log_delay(const ErrorData *edata);
extern void memprobe_injection_cap_delay(void);
extern void injection_init(void);
#define MEMPROBE_INJECTION_POINT(name) memprobe_injection_point(name)
#define MEMPROBE_INJECTION_LOG_DELAY(edata) memprobe_injection_log_delay(edata)
#define MEMPROBE_INJECTION_CAP_DELAY() memprobe_injection_cap_delay()
#else
#define MEMPROBE_INJECTION_POINT(name) ((void) 0)
#define MEMPROBE_INJECTION_LOG_DELAY(edata) ((void) 0)
#define MEMPROBE_INJECTION_CAP_DELAY() ((void) 0)
static inline void
injection_init(void)
{
}
#endif

#endif							/* MEMPROBE_INJECTION_H */
