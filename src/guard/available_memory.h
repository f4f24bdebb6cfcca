/*-------------------------------------------------------------------------
 *
 * available_memory.h
 *	  The memory the kernel still gives the server, read by the sampler at
 *	  each sample for the memory guard and memprobe_guard
 *	  (available_memory.c).
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_AVAILABLE_MEMORY_H
#define MEMPROBE_AVAILABLE_MEMORY_H

/* Where available_memory()'s figure comes from; memprobe_guard shows the name. */
typedef enum AvailableSource
{
	AVAILABLE_UNKNOWN,
	AVAILABLE_CGROUP_V1,
	AVAILABLE_CGROUP_V2,
	AVAILABLE_MEMAVAILABLE
} AvailableSource;

/* The name of each source (NULL for AVAILABLE_UNKNOWN). */
extern const char *const available_source_names[];

/* The available memory in bytes, its source and *total; -1 if unknown. */
extern int64 available_memory(AvailableSource *source, int64 *total);

#endif							/* MEMPROBE_AVAILABLE_MEMORY_H */
