/*-------------------------------------------------------------------------
 *
 * memory_tree.h
 *	  The blocks a memory context and its descendants hold, as
 *	  MemoryContextMemAllocated(context, true) counts them, summed in a loop
 *	  instead of a call per context: for the figures memprobe takes at every
 *	  statement (its executor memory, what a statement end leaves behind).
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_MEMORY_TREE_H
#define MEMPROBE_MEMORY_TREE_H

#include "nodes/memnodes.h"

static inline int64
memory_tree_bytes(MemoryContext top)
{
	int64		total = 0;
	MemoryContext c = top;

	for (;;)
	{
		total += (int64) c->mem_allocated;
		if (c->firstchild != NULL)
		{
			c = c->firstchild;
			continue;
		}
		/* up to the nearest context below top with a next sibling */
		while (c != top && c->nextchild == NULL)
			c = c->parent;
		if (c == top)
			return total;
		c = c->nextchild;
	}
}

#endif							/* MEMPROBE_MEMORY_TREE_H */
