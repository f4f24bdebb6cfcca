/*-------------------------------------------------------------------------
 *
 * hooks.h
 *	  The hooks through which PostgreSQL calls into memprobe (hooks.c).
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_HOOKS_H
#define MEMPROBE_HOOKS_H

/* Called only when memprobe is preloaded (memprobe.c). */
extern void memprobe_install_hooks(void);

#endif							/* MEMPROBE_HOOKS_H */
