/*-------------------------------------------------------------------------
 *
 * context_types.c
 *	  Names of PostgreSQL's memory context types and of contexts as core's
 *	  pg_backend_memory_contexts shows them, and creation of a context of a
 *	  type chosen by name.
 *
 * The type names are the ones PostgreSQL 18's pg_backend_memory_contexts
 * shows (AllocSet, Generation, Slab, Bump), so memprobe's reports read the
 * same on every server version.  Every report of a context's name and ident
 * (memprobe_contexts, memprobe_backend_contexts) takes them from
 * memprobe_context_label, so that they agree with each other and with core.
 *
 * Copyright (c) 2026, The memprobe Developers
 * Portions Copyright (c) 1996-2025, PostgreSQL Global Development Group
 * Portions Copyright (c) 1994, Regents of the University of California
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "mb/pg_wchar.h"
#include "port/pg_bitutils.h"

#include "shared/compat.h"
#include "shared/context_types.h"

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
 * memprobe_context_label
 *		The name and ident pg_backend_memory_contexts shows for 'context', as
 *		mcxtfuncs.c's PutMemoryContextsStatsTupleStore makes them (the same
 *		rule in PostgreSQL 15, 17 and 18): a dynahash context is labelled
 *		with its hash table's name, its ident, and has no ident then (as
 *		MemoryContextStatsPrint logs it); an ident, which can be a whole
 *		query string, is cut on a character boundary to fewer than
 *		MEMPROBE_IDENT_DISPLAY_SIZE bytes (pg_mbcliplen, in the database
 *		encoding).
 *
 * *name and *ident point into the context (*ident is NULL when there is
 * none); *ident_len is how many bytes of *ident to show.  No allocation, so
 * that a walk of the tree can call it without changing the tree.
 */
void
memprobe_context_label(MemoryContext context, const char **name,
					   const char **ident, int *ident_len)
{
	*name = context->name;
	*ident = context->ident;
	*ident_len = 0;

	if (*ident && strcmp(*name, "dynahash") == 0)
	{
		*name = *ident;
		*ident = NULL;
	}
	if (*ident)
	{
		*ident_len = strlen(*ident);
		if (*ident_len >= MEMPROBE_IDENT_DISPLAY_SIZE)
			*ident_len = pg_mbcliplen(*ident, *ident_len,
									  MEMPROBE_IDENT_DISPLAY_SIZE - 1);
	}
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

/*
 * blocks_bound
 *		Upper bound of what an AllocSet, Generation or Bump context made by
 *		memprobe_context_create holds once 'nchunks' chunks, each taking
 *		'chunk_space' bytes of a block (chunk header included), have been
 *		allocated from its blocks and none freed.
 *
 * Until something is freed the three fill blocks alike.  The context is one
 * malloc of MEMPROBE_INIT_BLOCK_SIZE: its header, then the keeper block.
 * When a chunk does not fit in what is left of the current block, that rest
 * is abandoned (AllocSet carves it into free-list chunks too small for the
 * next request) and a new block is made of nextBlockSize bytes, or of the
 * smallest power of two that holds the block header and the chunk if that is
 * more; nextBlockSize starts at MEMPROBE_INIT_BLOCK_SIZE and doubles, up to
 * MEMPROBE_MAX_BLOCK_SIZE, with every block made (AllocSetAlloc, GenerationAlloc
 * and BumpAlloc; their ...FromNewBlock helpers from 16 on).  So a block of B
 * bytes holds (B - block header) / chunk_space chunks.  The keeper's share of
 * the context header is taken as COMPAT_CONTEXT_HEADER_BOUND, more than any
 * allocator's: fewer chunks in the keeper can only mean more blocks after it.
 */
static uint64
blocks_bound(Size chunk_space, Size block_hdr, uint64 nchunks)
{
	uint64		total = MEMPROBE_INIT_BLOCK_SIZE;
	uint64		left = nchunks;
	uint64		in_keeper;
	Size		next_block = MEMPROBE_INIT_BLOCK_SIZE;
	Size		min_block = pg_nextpower2_size_t(chunk_space + block_hdr);

	StaticAssertStmt(MEMPROBE_INIT_BLOCK_SIZE >
					 MAXALIGN(COMPAT_CONTEXT_HEADER_BOUND) + 64,
					 "keeper block cannot hold the context header");
	in_keeper = (MEMPROBE_INIT_BLOCK_SIZE - MAXALIGN(COMPAT_CONTEXT_HEADER_BOUND) -
				 block_hdr) / chunk_space;
	if (left <= in_keeper)
		return total;
	left -= in_keeper;

	for (;;)
	{
		Size		block_size = Max(next_block, min_block);
		uint64		per_block = (block_size - block_hdr) / chunk_space;

		if (next_block == MEMPROBE_MAX_BLOCK_SIZE)
		{
			/* every block from here on is the same size */
			total += ((left + per_block - 1) / per_block) * block_size;
			return total;
		}
		total += block_size;
		if (left <= per_block)
			return total;
		left -= per_block;
		next_block = Min(next_block * 2, MEMPROBE_MAX_BLOCK_SIZE);
	}
}

/*
 * memprobe_context_bound
 *		Upper bound of the bytes (MemoryContextStats' total) a context made by
 *		memprobe_context_create(kind, ..., chunk_size) holds once 'nchunks'
 *		chunks of 'chunk_size' bytes have been allocated in it and none freed
 *		(for Slab, chunks of memprobe_slab_chunk_size(chunk_size)).
 *
 * Derived from the allocators' own rules, cited below; the header sizes they
 * depend on are in compat.h.
 */
uint64
memprobe_context_bound(MemprobeContextKind kind, Size chunk_size,
					   uint64 nchunks)
{
	switch (kind)
	{
		case MEMPROBE_CONTEXT_ASET:
			{
				Size		limit = ALLOCSET_SEPARATE_THRESHOLD;

				/*
				 * AllocSetContextCreateInternal: allocChunkLimit starts at
				 * ALLOC_CHUNK_LIMIT (== ALLOCSET_SEPARATE_THRESHOLD) and is
				 * halved while a chunk that size would take more than
				 * ALLOC_CHUNK_FRACTION (1/4) of a maximum-size block.
				 */
				while (limit + COMPAT_ASET_CHUNKHDRSZ >
					   (MEMPROBE_MAX_BLOCK_SIZE - COMPAT_ASET_BLOCKHDRSZ) / 4)
					limit >>= 1;

				/*
				 * Larger chunks get a block of their own, sized to fit
				 * (AllocSetAlloc; AllocSetAllocLarge from 16).
				 */
				if (chunk_size > limit)
					return MEMPROBE_INIT_BLOCK_SIZE +
						nchunks * (MAXALIGN(chunk_size + COMPAT_SENTINEL_BYTES) +
								   COMPAT_ASET_BLOCKHDRSZ +
								   COMPAT_ASET_CHUNKHDRSZ);

				/*
				 * Smaller ones are rounded up to a power of two, 8 bytes
				 * (1 << ALLOC_MINBITS) at least: AllocSetFreeIndex.
				 */
				return blocks_bound(Max(pg_nextpower2_size_t(chunk_size), 8) +
									COMPAT_ASET_CHUNKHDRSZ,
									COMPAT_ASET_BLOCKHDRSZ, nchunks);
			}
		case MEMPROBE_CONTEXT_GENERATION:
		case MEMPROBE_CONTEXT_BUMP:
			{
				bool		bump = (kind == MEMPROBE_CONTEXT_BUMP);
				Size		chunk_hdr = bump ? COMPAT_BUMP_CHUNKHDRSZ : COMPAT_GENERATION_CHUNKHDRSZ;
				Size		block_hdr = bump ? COMPAT_BUMP_BLOCKHDRSZ : COMPAT_GENERATION_BLOCKHDRSZ;
				Size		chunk = MAXALIGN(chunk_size + COMPAT_SENTINEL_BYTES);
				Size		limit = MEMPROBE_MAX_BLOCK_SIZE;

				/*
				 * GenerationContextCreate and BumpContextCreate: allocChunkLimit
				 * starts at maxBlockSize and is halved while a chunk that size
				 * would take more than 1/8 (Generation_CHUNK_FRACTION,
				 * Bump_CHUNK_FRACTION) of a maximum-size block.  Chunks are
				 * MAXALIGNed, with no power-of-2 rounding.
				 */
				while (limit + chunk_hdr > (MEMPROBE_MAX_BLOCK_SIZE - block_hdr) / 8)
					limit >>= 1;

				/* larger chunks get a block of their own, sized to fit */
				if (chunk > limit)
					return MEMPROBE_INIT_BLOCK_SIZE +
						nchunks * (chunk + chunk_hdr + block_hdr);
				return blocks_bound(chunk + chunk_hdr, block_hdr, nchunks);
			}
		case MEMPROBE_CONTEXT_SLAB:
			{
				/*
				 * SlabContextCreate: fullChunkSize is the chunk header plus
				 * the MAXALIGNed chunk (with a sentinel byte from 16 under
				 * MEMORY_CONTEXT_CHECKING); a block holds (blockSize -
				 * Slab_BLOCKHDRSZ) / fullChunkSize chunks, and Slab allocates
				 * whole blocks of the size memprobe chose, at least one.
				 */
				Size		chunk = memprobe_slab_chunk_size(chunk_size);
				Size		block_size = slab_block_size(chunk);
				Size		full_chunk = COMPAT_SLAB_CHUNKHDRSZ +
					MAXALIGN(chunk + COMPAT_SENTINEL_BYTES);
				uint64		per_block = (block_size - COMPAT_SLAB_BLOCKHDRSZ) / full_chunk;

				return COMPAT_SLAB_CONTEXT_BOUND(per_block) +
					((nchunks + per_block - 1) / per_block) * block_size;
			}
	}
	elog(ERROR, "unrecognized memory context kind: %d", (int) kind);
	pg_unreachable();
}
