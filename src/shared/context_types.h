/*-------------------------------------------------------------------------
 *
 * context_types.h
 *	  Names of PostgreSQL's memory context types and of contexts as core's
 *	  pg_backend_memory_contexts shows them, and creation of a context of a
 *	  type chosen by name.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_CONTEXT_TYPES_H
#define MEMPROBE_CONTEXT_TYPES_H

#include "postgres.h"

#include "utils/memutils.h"

/* The allocators memprobe can create a context of. */
typedef enum MemprobeContextKind
{
	MEMPROBE_CONTEXT_ASET,
	MEMPROBE_CONTEXT_GENERATION,
	MEMPROBE_CONTEXT_SLAB,
	MEMPROBE_CONTEXT_BUMP
} MemprobeContextKind;

/*
 * Block sizes memprobe gives the AllocSet, Generation and Bump contexts it
 * creates: blocks double from 8kB up to 1MB.  Core's ALLOCSET_DEFAULT_SIZES
 * doubles up to 8MB, which can leave a context holding almost twice what it
 * stores (a half-empty 8MB block); 1MB caps that waste at a few percent for
 * large contexts while keeping malloc calls rare.
 */
#define MEMPROBE_MIN_CONTEXT_SIZE	0
#define MEMPROBE_INIT_BLOCK_SIZE	(8 * 1024)
#define MEMPROBE_MAX_BLOCK_SIZE		(1024 * 1024)

/* Largest chunk memprobe asks a Slab context for (its blocks hold >= 32). */
#define MEMPROBE_SLAB_MAX_CHUNK		(256 * 1024)

/*
 * Longest ident shown plus one, as core's MEMORY_CONTEXT_IDENT_DISPLAY_SIZE
 * (mcxtfuncs.c): an ident is shown cut to fewer bytes than this.
 */
#define MEMPROBE_IDENT_DISPLAY_SIZE	1024

extern const char *memprobe_context_type_name(MemoryContext context);
extern void memprobe_context_label(MemoryContext context, const char **name,
								   const char **ident, int *ident_len);
extern MemoryContext memprobe_context_create(MemprobeContextKind kind,
											 MemoryContext parent,
											 const char *name,
											 Size slab_chunk_size);
extern Size memprobe_slab_chunk_size(Size chunk_size);
extern uint64 memprobe_context_bound(MemprobeContextKind kind,
									 Size chunk_size, uint64 nchunks);

#endif							/* MEMPROBE_CONTEXT_TYPES_H */
