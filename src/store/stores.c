/*-------------------------------------------------------------------------
 *
 * stores.c
 *	  The tuple stores of WindowAgg, CTE Scan, Recursive Union, Function
 *	  Scan and Table Function Scan keep their tuples in a Generation context
 *	  of memprobe's (PostgreSQL 15 and 17), as PostgreSQL 18's do; and what
 *	  those stores held, for memprobe_statements' node peaks and EXPLAIN
 *	  ANALYZE's Storage line (explain_storage.c).
 *
 * Before 18 a tuplestore copies every tuple it stores into the memory
 * context that was current when it was created (its "context" field), for
 * these nodes the query's AllocSet, where a 1kB tuple takes a 2kB chunk.
 * memprobe changes that without replacing the nodes: a tuplestore reads its
 * context field only when it copies an incoming tuple, and every chunk is
 * freed through its own header, so pointing the field at another context
 * between two puts is safe at any time: later tuples go there, earlier ones
 * are freed where they are.  The struct, its tuple-pointer array and its
 * read pointers stay where core put them, as on 18.  The field is reached
 * through tuplestore_layout.h's copy of the layout, checked against a live
 * tuplestore once per backend; if it does not match, nothing is changed.
 *
 * After ExecutorStart (stores_executor_started) the plan state tree is
 * walked once (start_walker): each node's context is made in the query's
 * context, so that it goes with the query's memory on success, error or
 * cancel alike, and the children that fill its stores are wrapped, so that
 * the stores are claimed and sampled before each of their calls.
 * EvalPlanQual rechecks build their trees without ExecutorStart: their
 * stores stay core's.  How each node's stores are claimed, for readers:
 * docs/tuple-stores.md.
 *
 * Copyright (c) 2026, The memprobe Developers
 * Portions Copyright (c) 1996-2025, PostgreSQL Global Development Group
 * Portions Copyright (c) 1994, Regents of the University of California
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/execnodes.h"
#include "nodes/nodeFuncs.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "shared/compat.h"
#include "store/tuplestore_layout.h"
#include "shared/context_types.h"
#include "shared/observe_only.h"
#include "store/material.h"
#include "shared/plan_walk.h"
#include "store/stores.h"

/*
 * The node's current tuple stores, in stores[] (at most two; NULL where a
 * store does not exist yet or was ended): a WindowAgg's partition store, a
 * Recursive Union's working and intermediate tables, the CTE's store for
 * the CTE Scan that made it (the leader).  The number of slots filled.
 */
static int
node_stores(PlanState *ps, Tuplestorestate **stores)
{
	switch (nodeTag(ps))
	{
		case T_WindowAggState:
			stores[0] = ((WindowAggState *) ps)->buffer;
			return 1;
		case T_RecursiveUnionState:
			stores[0] = ((RecursiveUnionState *) ps)->working_table;
			stores[1] = ((RecursiveUnionState *) ps)->intermediate_table;
			return 2;
		case T_CteScanState:
			if (((CteScanState *) ps)->leader != (CteScanState *) ps)
				return 0;
			stores[0] = ((CteScanState *) ps)->cte_table;
			return 1;
		case T_TableFuncScanState:
			stores[0] = ((TableFuncScanState *) ps)->tupstore;
			return 1;
		default:
			return 0;
	}
}

#if !MEMPROBE_CORE_TUPLESTORE_GENERATION

/* memprobe.enable_stores */
static bool stores_enabled = true;



/*
 * A node whose stores memprobe claims or watches: its tuple context (NULL
 * when only watched) and what its stores held, sampled before each call of
 * a child (after each call of the node itself for the scans that fill their
 * store in one call) and at the end.
 */
typedef struct StoreOwner
{
	PlanState  *ps;
	MemoryContext tuples;		/* NULL: watched for EXPLAIN, not claimed */
	int64		peak;			/* bytes in memory at once, as work_mem is charged */
	bool		spilled;
	bool		stored;			/* has a store ever been seen? */
	int64		peak_held;		/* most the tuple context held in blocks */

	/*
	 * PostgreSQL 18's tuplestore_get_stats() per store: the most it took (in
	 * memory, or its temp file) and whether it ever went to disk.  18 keeps
	 * one store per WindowAgg across partitions and lets a Recursive Union's
	 * two tables swap roles, each keeping its figures; [0] and [1] are those
	 * two tables (or [0] the only store), followed through 15's and 17's
	 * per-partition and per-iteration stores.
	 */
	int64		max_space[2];
	bool		used_disk[2];
	Tuplestorestate *last_intermediate; /* Recursive Union: to count swaps */
	int			swaps;

	void	   *query;			/* the QueryStores it belongs to */
	struct StoreOwner *next;
} StoreOwner;

/*
 * A wrapped node, with up to two roles: the child of an owner (whose stores
 * are claimed before each call), and an owner that makes its store in one
 * call (a Function Scan or Table Function Scan, handled around its calls).
 * A Function Scan under a WindowAgg, or the plan of a CTE, has both.
 */
typedef struct WrappedNode
{
	PlanState  *node;
	ExecProcNodeMtd real;		/* the node's own ExecProcNodeReal */
	StoreOwner *parent;			/* child role: the owner above, or NULL */
	StoreOwner *self;			/* self role: the node's own owner, or NULL */
	void	   *query;			/* the QueryStores it belongs to */
	struct WrappedNode *next;
} WrappedNode;

/*
 * Owners and wrapped nodes of every query running in this backend (nested
 * queries add theirs in front).  They live in their query's context; a
 * reset callback on that context unlinks them, so a query that errors out
 * leaves nothing behind.
 */
static StoreOwner *owners = NULL;
static WrappedNode *wrapped = NULL;
static WrappedNode *last_wrapped = NULL;	/* the last one found: most calls repeat it */

typedef struct QueryStores
{
	MemoryContextCallback callback;
} QueryStores;

/* ------------------------------------------------------------------------
 * Claiming and sampling.
 * ------------------------------------------------------------------------
 */

/*
 * Which of PostgreSQL 18's two Recursive Union tables the 'i'th of
 * node_stores() is.  18 starts with table 0 working and table 1
 * intermediate, and swaps them after each iteration; 15 and 17 end the
 * working table instead and make a new intermediate one, which is how a
 * swap shows here.
 */
static inline int
physical_store(StoreOwner *owner, int i)
{
	int			intermediate = (owner->swaps % 2 == 0) ? 1 : 0;

	if (!IsA(owner->ps, RecursiveUnionState))
		return 0;
	return i == 1 ? intermediate : 1 - intermediate;
}

/*
 * Claim the owner's current stores (point their tuples at its context) and
 * sample them: the peak in memory at once (a Recursive Union's two tables
 * summed), each store's 18-style maximum, and what the context holds.
 */
static void
claim_stores(StoreOwner *owner)
{
	Tuplestorestate *stores[2];
	int			n = node_stores(owner->ps, stores);
	int64		used = 0;

	if (n == 2 && stores[1] != owner->last_intermediate)
	{
		if (owner->last_intermediate != NULL)
			owner->swaps++;
		owner->last_intermediate = stores[1];
	}
	for (int i = 0; i < n; i++)
	{
		Tuplestorestate *store = stores[i];
		int			phys;
		int64		space;

		if (store == NULL)
			continue;
		owner->stored = true;
		if (owner->tuples != NULL && compat_ts(store)->context != owner->tuples)
			compat_ts(store)->context = owner->tuples;
		phys = physical_store(owner, i);
		space = compat_tuplestore_mem_used(store);
		if (space >= 0)
			used += space;
		else
		{
			owner->spilled = true;
			owner->used_disk[phys] = true;

			/*
			 * 18 also counts what the store held in memory when it spilled,
			 * which was over work_mem: a store filled in one call was never
			 * seen then, so work_mem is the figure's floor.
			 */
			space = Max(compat_tuplestore_disk_used(store), compat_ts(store)->allowedMem);
		}
		if (space > owner->max_space[phys])
			owner->max_space[phys] = space;
	}
	if (used > owner->peak)
		owner->peak = used;
	if (owner->tuples != NULL)
	{
		int64		held = MemoryContextMemAllocated(owner->tuples, false);

		if (held > owner->peak_held)
			owner->peak_held = held;
	}
}

static inline WrappedNode *
find_wrapped(PlanState *ps)
{
	WrappedNode *w;

	if (likely(last_wrapped != NULL && last_wrapped->node == ps))
		return last_wrapped;
	for (w = wrapped; w != NULL; w = w->next)
		if (w->node == ps)
			return last_wrapped = w;
	elog(ERROR, "no wrapper recorded for plan node %d",
		 ps->plan->plan_node_id);
	return NULL;				/* keep compiler quiet */
}

/*
 * Will this call of a Function Scan or Table Function Scan make its store?
 * A Function Scan makes all of them in its first call (FunctionNext), after
 * which its self role ends (its per-function state is private to
 * nodeFunctionscan.c, so that is also the only call memprobe can tell).
 */
static bool
makes_store(PlanState *ps)
{
	if (IsA(ps, TableFuncScanState))
		return ((TableFuncScanState *) ps)->tupstore == NULL;
	return IsA(ps, FunctionScanState);
}

static TupleTableSlot *wrapped_exec(PlanState *ps);

/*
 * The self role around one call: on the call that makes the store, the
 * owner's context is the per-query memory the store is made in (see
 * start_walker); after it, a sample.
 */
static TupleTableSlot *
self_call(WrappedNode *w, PlanState *ps)
{
	StoreOwner *owner = w->self;
	TupleTableSlot *slot;
	bool		making = makes_store(ps);

	/* 18 prints the store a rescan makes anew, not the largest of them */
	if (making && IsA(ps, TableFuncScanState))
	{
		owner->max_space[0] = 0;
		owner->used_disk[0] = false;
	}

	if (owner->tuples != NULL && making)
	{
		ExprContext *econtext = ps->ps_ExprContext;
		MemoryContext per_query = econtext->ecxt_per_query_memory;

		econtext->ecxt_per_query_memory = owner->tuples;
		PG_TRY();
		{
			slot = w->real(ps);
		}
		PG_FINALLY();
		{
			econtext->ecxt_per_query_memory = per_query;
		}
		PG_END_TRY();
	}
	else
		slot = w->real(ps);

	if (IsA(ps, FunctionScanState))
	{
		/* its stores are never made again, and 18 prints nothing for it */
		w->self = NULL;
		if (w->parent == NULL && ps->ExecProcNodeReal == wrapped_exec)
		{
			ps->ExecProcNodeReal = w->real;
			if (ps->ExecProcNode == wrapped_exec)
				ps->ExecProcNode = w->real;
		}
	}
	else
		claim_stores(owner);
	return slot;
}

/* ExecProcNodeReal of a wrapped node */
static TupleTableSlot *
wrapped_exec(PlanState *ps)
{
	WrappedNode *w = find_wrapped(ps);

	if (w->parent != NULL)
		claim_stores(w->parent);
	if (w->self != NULL)
		return self_call(w, ps);
	return w->real(ps);
}

/* ------------------------------------------------------------------------
 * ExecutorStart: find the nodes, make their contexts, wrap their children.
 * ------------------------------------------------------------------------
 */

static void forget_query(void *arg);

typedef struct StartWalk
{
	EState	   *estate;
	QueryStores *qs;
	bool		claim;			/* memprobe.enable_stores */
	bool		watch;			/* instrumented: watch what is not claimed */
	SubplanWalk subplans;		/* each shared sub plan walked once (plan_walk.h) */
} StartWalk;

/* context_name NULL: watched only */
static StoreOwner *
add_owner(StartWalk *walk, PlanState *ps, const char *context_name)
{
	MemoryContext cxt = walk->estate->es_query_cxt;
	StoreOwner *owner = MemoryContextAllocZero(cxt, sizeof(StoreOwner));

	/* the first owner of this query: its reset callback, to unlink them all */
	if (walk->qs == NULL)
	{
		walk->qs = MemoryContextAllocZero(cxt, sizeof(QueryStores));
		walk->qs->callback.func = forget_query;
		walk->qs->callback.arg = walk->qs;
		MemoryContextRegisterResetCallback(cxt, &walk->qs->callback);
	}
	owner->ps = ps;
	owner->query = walk->qs;
	if (context_name != NULL)
		owner->tuples = memprobe_context_create(material_context_type == MATERIAL_CONTEXT_ASET ?
												MEMPROBE_CONTEXT_ASET : MEMPROBE_CONTEXT_GENERATION,
												walk->estate->es_query_cxt,
												context_name, 0);
	owner->next = owners;
	owners = owner;
	return owner;
}

/*
 * Give 'node' a role: child of 'owner' (self false), or the owner's own node
 * (self true).  A node is wrapped once; a second role goes into the same
 * wrapper.  False if the role is taken already.
 */
static bool
wrap_node(StartWalk *walk, StoreOwner *owner, PlanState *node, bool self)
{
	WrappedNode *w = NULL;

	if (node == NULL)
		return false;
	if (node->ExecProcNodeReal == wrapped_exec)
	{
		for (w = wrapped; w != NULL; w = w->next)
			if (w->node == node)
				break;
		Assert(w != NULL);
	}
	else
	{
		w = MemoryContextAllocZero(walk->estate->es_query_cxt, sizeof(WrappedNode));
		w->node = node;
		w->real = node->ExecProcNodeReal;
		w->query = walk->qs;
		/* ExecProcNodeFirst and ExecProcNodeInstr both call ExecProcNodeReal */
		node->ExecProcNodeReal = wrapped_exec;
		w->next = wrapped;
		wrapped = w;
	}
	if (self ? w->self != NULL : w->parent != NULL)
		return false;
	if (self)
		w->self = owner;
	else
		w->parent = owner;
	return true;
}

/*
 * Is the node's store made once per query, never again on a rescan?  Core
 * makes it again only when a parameter its functions use changes; with no
 * parameter in the node at all (its functions, quals or target list) that
 * never happens.  Without one and without sub plans of its own, nothing but
 * its functions and expressions (no init plan, no hashed sub plan) runs in
 * the call memprobe gives its context to.
 */
static bool
made_once(PlanState *ps)
{
	return bms_is_empty(ps->plan->allParam) && ps->subPlan == NIL &&
		ps->initPlan == NIL;
}

/* the owner's context name when claiming, NULL when only watching, or "" to leave the node alone */
static const char *
owner_role(StartWalk *walk, const char *context_name)
{
	if (walk->claim)
		return context_name;
	return walk->watch ? NULL : "";
}

/* Undo add_owner() for the owner just added, whose node could not be wrapped. */
static void
drop_owner(StoreOwner *owner)
{
	Assert(owners == owner);
	owners = owner->next;
	if (owner->tuples != NULL)
		MemoryContextDelete(owner->tuples);
	pfree(owner);
}

/*
 * When each node's stores are claimed:
 *	CTE Scan: the CTE's store is created by the first CTE Scan's
 *		ExecInitCteScan and shared by the others; claimed now, while it is
 *		empty.  Rescans clear it (tuplestore_clear keeps the field).
 *	WindowAgg: a store per partition, created in begin_partition and filled
 *		by spool_tuples, one tuple per call of the outer plan, which is
 *		wrapped: before each call the current partition's store is claimed
 *		if it is not yet.  Only the partition's first tuple, stored by
 *		begin_partition before any call, lands in the query's context.
 *	Recursive Union: the working and intermediate tables, created at init
 *		(claimed now) and a new intermediate table per iteration, created
 *		just before the recursive term is called again: both children are
 *		wrapped, and claim the current tables before each call.
 *	Function Scan, Table Function Scan: the store is created and filled in
 *		one call (ExecMakeTableFunctionResult, or the function itself in
 *		materialize mode; tfuncFetchRows), in the expression context's
 *		per-query memory, so for that one call the node itself is wrapped
 *		and the node's context becomes that per-query memory (self_call):
 *		the store, its tuples and whatever else the function keeps "for the
 *		query" land there.  That context lives exactly as long as the
 *		query's, but a store made again on every rescan would leave those
 *		other allocations pinning its blocks, so only nodes whose store is
 *		made once are taken (made_once); lateral and correlated ones stay
 *		core's.
 */
static bool
start_walker(PlanState *ps, void *context)
{
	StartWalk  *walk = (StartWalk *) context;
	const char *role;
	StoreOwner *owner;

	if (ps == NULL || subplan_walked_before(&walk->subplans, ps))
		return false;

	switch (nodeTag(ps))
	{
		case T_WindowAggState:
			role = owner_role(walk, "memprobe WindowAgg tuples");
			if (role == NULL || *role != '\0')
			{
				owner = add_owner(walk, ps, role);
				if (!wrap_node(walk, owner, outerPlanState(ps), false))
					drop_owner(owner);
			}
			break;
		case T_RecursiveUnionState:
			role = owner_role(walk, "memprobe Recursive Union tuples");
			if (role == NULL || *role != '\0')
			{
				owner = add_owner(walk, ps, role);
				claim_stores(owner);
				/* both children call into it; at least one is ever wrapped */
				(void) wrap_node(walk, owner, outerPlanState(ps), false);
				(void) wrap_node(walk, owner, innerPlanState(ps), false);
			}
			break;
		case T_CteScanState:
			role = owner_role(walk, "memprobe CTE tuples");
			if (((CteScanState *) ps)->leader == (CteScanState *) ps &&
				(role == NULL || *role != '\0'))
			{
				owner = add_owner(walk, ps, role);
				claim_stores(owner);
				/* the CTE's plan, shared by every CTE Scan of it, fills the store */
				(void) wrap_node(walk, owner, ((CteScanState *) ps)->cteplanstate, false);
			}
			break;
		case T_TableFuncScanState:
			role = owner_role(walk, "memprobe Table Function Scan tuples");
			if (role != NULL && *role != '\0' && !made_once(ps))
				role = walk->watch ? NULL : "";
			if (role == NULL || *role != '\0')
			{
				owner = add_owner(walk, ps, role);
				if (!wrap_node(walk, owner, ps, true))
					drop_owner(owner);
			}
			break;
		case T_FunctionScanState:
			if (walk->claim && made_once(ps))
			{
				owner = add_owner(walk, ps, "memprobe Function Scan tuples");
				if (!wrap_node(walk, owner, ps, true))
					drop_owner(owner);
			}
			break;
		default:
			break;
	}
	return planstate_tree_walker(ps, start_walker, context);
}

/*
 * Reset callback of the query's context: unlink its owners and wrapped
 * nodes (nested queries normally end first, but an error can end them in
 * any order, so by membership).
 */
static void
forget_query(void *arg)
{
	void	   *query = arg;

	last_wrapped = NULL;
	for (WrappedNode **p = &wrapped; *p != NULL;)
	{
		if ((*p)->query == query)
			*p = (*p)->next;
		else
			p = &(*p)->next;
	}
	for (StoreOwner **p = &owners; *p != NULL;)
	{
		if ((*p)->query == query)
			*p = (*p)->next;
		else
			p = &(*p)->next;
	}
}

/* allocates nothing unless it finds a node to take over or a sub plan */
static pg_noinline void
start_walk(QueryDesc *queryDesc, bool claim, bool watch)
{
	StartWalk	walk = {queryDesc->estate, NULL, claim, watch};

	subplan_walk_init(&walk.subplans, queryDesc->estate);
	(void) start_walker(queryDesc->planstate, &walk);
	subplan_walk_end(&walk.subplans);
}

/*
 * After ExecutorStart (memprobe's ExecutorStart_hook, hooks.c).  For an
 * instrumented query the nodes are watched (sampled, not claimed) even with
 * memprobe.enable_stores off, so that EXPLAIN ANALYZE compares both ways.
 */
void
stores_executor_started(QueryDesc *queryDesc, int eflags)
{
	bool		claim;
	bool		watch;

	/*
	 * A plan of one node has none of these nodes but a lone Function Scan:
	 * an OLTP statement's plan is settled by that test alone.
	 */
	if (queryDesc->planstate == NULL ||
		(planstate_is_leaf(queryDesc->planstate) &&
		 !IsA(queryDesc->planstate, FunctionScanState) &&
		 !IsA(queryDesc->planstate, TableFuncScanState)))
		return;
	claim = stores_enabled && memprobe_changes_plans();
	watch = queryDesc->instrument_options != 0;
	if ((claim || watch) && (eflags & EXEC_FLAG_EXPLAIN_ONLY) == 0 && material_supported())
		start_walk(queryDesc, claim, watch);
}

/* ------------------------------------------------------------------------
 * Figures: memprobe_statements' node peaks, EXPLAIN ANALYZE's Storage line.
 * ------------------------------------------------------------------------
 */

static StoreOwner *
find_owner(PlanState *ps)
{
	for (StoreOwner *owner = owners; owner != NULL; owner = owner->next)
		if (owner->ps == ps)
			return owner;
	return NULL;
}

bool
stores_node_peak(PlanState *ps, int64 *bytes, bool *spilled)
{
	Tuplestorestate *stores[2];
	StoreOwner *owner = find_owner(ps);
	int			n;
	bool		any = false;

	if (owner != NULL)
	{
		claim_stores(owner);	/* a last sample */
		if (!owner->stored)
			return false;
		*bytes = owner->spilled ? -1 : owner->peak;
		*spilled = owner->spilled;
		return true;
	}

	/*
	 * Not claimed (memprobe.enable_stores off, or a recheck tree): what its
	 * stores hold at the end, which for a store that was trimmed or went to
	 * disk is less than its peak, and whether they are on disk.
	 */
	if (!material_supported())
		return false;
	*bytes = 0;
	*spilled = false;
	n = node_stores(ps, stores);
	for (int i = 0; i < n; i++)
	{
		int64		used;

		if (stores[i] == NULL)
			continue;
		any = true;
		used = compat_tuplestore_mem_used(stores[i]);
		if (used < 0)
			*spilled = true;
		else
			*bytes += used;
	}
	if (*spilled)
		*bytes = -1;
	return any;
}

bool
stores_explain_figures(PlanState *ps, StoreFigures *figures)
{
	StoreOwner *owner;

	/* every CTE Scan shows the CTE's store, as 18's show_ctescan_info */
	if (IsA(ps, CteScanState))
		ps = (PlanState *) ((CteScanState *) ps)->leader;
	owner = find_owner(ps);
	if (owner == NULL)
		return false;
	claim_stores(owner);		/* a last sample */
	if (!owner->stored)
		return false;

	if (IsA(ps, RecursiveUnionState))
	{
		/* 18's show_recursive_union_info: the bigger table's type, the sum */
		int			temp = physical_store(owner, 0);	/* the working table */
		int			max = physical_store(owner, 1); /* the intermediate one */

		figures->used_disk = owner->max_space[temp] > owner->max_space[max] ?
			owner->used_disk[temp] : owner->used_disk[max];
		figures->max_space = owner->max_space[0] + owner->max_space[1];
	}
	else
	{
		figures->used_disk = owner->used_disk[0];
		figures->max_space = owner->max_space[0];
	}
	figures->context_type = owner->tuples == NULL ? NULL :
		material_context_type == MATERIAL_CONTEXT_ASET ? "AllocSet" : "Generation";
	figures->peak_held = owner->peak_held;
	return true;
}

void
stores_init(void)
{
	DefineCustomBoolVariable("memprobe.enable_stores",
							 "Keeps the tuples of WindowAgg, CTE Scan, Recursive Union, Function Scan and Table Function Scan stores in a Generation context.",
							 "As PostgreSQL 18 does for every tuplestore: no power-of-two rounding, so a "
							 "store holds twice as many ~1kB tuples before it spills.  Read at executor start.",
							 &stores_enabled, true, PGC_USERSET, 0, NULL, NULL, NULL);
}


#else							/* PostgreSQL 18: core does it */

/* 18's own figures: tuplestore_get_stats(), as EXPLAIN's Storage line */
bool
stores_node_peak(PlanState *ps, int64 *bytes, bool *spilled)
{
	Tuplestorestate *stores[2];
	int			n = node_stores(ps, stores);
	bool		any = false;

	*bytes = 0;
	*spilled = false;
	for (int i = 0; i < n; i++)
	{
		char	   *type;
		int64		space;

		if (stores[i] == NULL)
			continue;
		tuplestore_get_stats(stores[i], &type, &space);
		any = true;
		if (strcmp(type, "Disk") == 0)
			*spilled = true;
		else
			*bytes += space;
	}
	if (*spilled)
		*bytes = -1;
	return any;
}

/* 18's EXPLAIN prints its own Storage lines */
bool
stores_explain_figures(PlanState *ps, StoreFigures *figures)
{
	return false;
}

void
stores_init(void)
{
	static bool stores_enabled = true;

	/* defined on every version, so that configuration naming it is valid */
	DefineCustomBoolVariable("memprobe.enable_stores",
							 "Has no effect on PostgreSQL 18, whose tuplestores keep their tuples in a Generation context.",
							 NULL, &stores_enabled, true, PGC_USERSET, 0, NULL, NULL, NULL);
}

void
stores_executor_started(QueryDesc *queryDesc, int eflags)
{
}

#endif
