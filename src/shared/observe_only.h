/*-------------------------------------------------------------------------
 *
 * observe_only.h
 *	  memprobe.observe_only: one setting for "report and guard, change no
 *	  plan".  Every substitution (GenMaterial, StreamScan serial and
 *	  parallel, the tuple stores) asks memprobe_changes_plans() beside its
 *	  own enable_* setting.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_OBSERVE_ONLY_H
#define MEMPROBE_OBSERVE_ONLY_H

extern bool memprobe_observe_only;

/* May memprobe put its own nodes or stores in place of core's? */
static inline bool
memprobe_changes_plans(void)
{
	return !memprobe_observe_only;
}

extern void observe_only_init(void);

#endif							/* MEMPROBE_OBSERVE_ONLY_H */
