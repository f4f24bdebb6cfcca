/*-------------------------------------------------------------------------
 *
 * context_types.c
 *	  Names of PostgreSQL's memory context types, and creation of a context
 *	  of a type chosen by name.
 *
 * The type names are the ones PostgreSQL 18's pg_backend_memory_contexts
 * shows (AllocSet, Generation, Slab, Bump), so memprobe's reports read the
 * same on every server version.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "compat.h"
#include "context_types.h"

/*
 * memprobe_context_type_name
 *		The type of 'context' as PostgreSQL 18 names it; "???" for a type this
 *		build does not know (as core does).
 */
const char *
memprobe_context_type_name(MemoryContext context)
{
	if (IsA(context, AllocSetContext))
		return "AllocSet";
	if (IsA(context, GenerationContext))
		return "Generation";
	if (IsA(context, SlabContext))
		return "Slab";
	if (compat_is_bump_context(context))
		return "Bump";
	return "???";
}

/*
 * memprobe_slab_chunk_size
 *		The chunk size a Slab context serves when asked for 'chunk_size'.
 *
 * A free Slab chunk holds the link to the next free one, so SlabContextCreate
 * raises smaller chunk sizes to COMPAT_SLAB_MIN_CHUNK_SIZE (sizeof(int) on
 * 15, a pointer from 16: see compat.h), and SlabAlloc then accepts requests
 * of exactly that size only.  Callers allocate this size from the context.
 */
Size
memprobe_slab_chunk_size(Size chunk_size)
{
	return Max(chunk_size, COMPAT_SLAB_MIN_CHUNK_SIZE);
}

/*
 * slab_block_size
 *		The block size memprobe gives a Slab context of 'chunk_size' chunks:
 *		8kB, doubled until a block holds at least 32 chunks.
 */
static Size
slab_block_size(Size chunk_size)
{
	Size		block_size = SLAB_DEFAULT_BLOCK_SIZE;

	/* 64 bytes covers the chunk header and the block header share */
	while (block_size < 32 * (chunk_size + 64))
		block_size *= 2;
	return block_size;
}

/*
 * memprobe_context_create
 *		Create a context of the given kind under 'parent'.
 *
 * AllocSet, Generation and Bump contexts get memprobe's block sizes (see
 * context_types.h).  A Slab context serves one chunk size only,
 * memprobe_slab_chunk_size(slab_chunk_size) ('slab_chunk_size' is ignored
 * for the other kinds), which must not exceed MEMPROBE_SLAB_MAX_CHUNK; its
 * blocks hold at least 32 chunks.  Bump needs PostgreSQL 17 or later:
 * callers check MEMPROBE_HAVE_BUMP and report that to the user themselves.
 */
MemoryContext
memprobe_context_create(MemprobeContextKind kind, MemoryContext parent,
						const char *name, Size slab_chunk_size)
{
	switch (kind)
	{
		case MEMPROBE_CONTEXT_ASET:
			/* the macro form insists on a literal name; ours is the caller's */
			return AllocSetContextCreateInternal(parent, name,
												 MEMPROBE_MIN_CONTEXT_SIZE,
												 MEMPROBE_INIT_BLOCK_SIZE,
												 MEMPROBE_MAX_BLOCK_SIZE);
		case MEMPROBE_CONTEXT_GENERATION:
			return GenerationContextCreate(parent, name,
										   MEMPROBE_MIN_CONTEXT_SIZE,
										   MEMPROBE_INIT_BLOCK_SIZE,
										   MEMPROBE_MAX_BLOCK_SIZE);
		case MEMPROBE_CONTEXT_SLAB:
			{
				Size		chunk_size = memprobe_slab_chunk_size(slab_chunk_size);

				Assert(slab_chunk_size > 0 &&
					   slab_chunk_size <= MEMPROBE_SLAB_MAX_CHUNK);
				return SlabContextCreate(parent, name,
										 slab_block_size(chunk_size),
										 chunk_size);
			}
		case MEMPROBE_CONTEXT_BUMP:
			return compat_bump_context_create(parent, name,
											  MEMPROBE_MIN_CONTEXT_SIZE,
											  MEMPROBE_INIT_BLOCK_SIZE,
											  MEMPROBE_MAX_BLOCK_SIZE);
	}
	elog(ERROR, "unrecognized memory context kind: %d", (int) kind);
	pg_unreachable();
}
