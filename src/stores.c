/*-------------------------------------------------------------------------
 *
 * stores.c
 *	  The tuple stores of WindowAgg, CTE Scan and Recursive Union keep their
 *	  tuples in a Generation context of memprobe's (PostgreSQL 15 and 17).
 *
 * Before PostgreSQL 18 a tuplestore copies every tuple it stores into the
 * memory context that was current when it was created (its "context"
 * field), which for these nodes is the query's AllocSet: a 1kB tuple takes
 * a 2kB chunk there, so a store holds half what work_mem allows, spills
 * twice as early, and a WindowAgg whose store spills can no longer trim it
 * (the seed's 1000x case).  PostgreSQL 18 gives each tuplestore a
 * Generation context for its tuples (no power-of-two rounding).
 *
 * memprobe does the same without replacing the nodes: a tuplestore reads
 * its context field only when it copies an incoming tuple (puttuple,
 * puttupleslot, putvalues), and every chunk is freed through its own
 * header, so pointing the field at another context between two puts is
 * safe at any time: later tuples go there, earlier ones are freed where
 * they are.  The struct, its tuple-pointer array and its read pointers stay
 * where core put them, as on 18.  The field is reached through compat.h's
 * copy of the tuplestore layout, checked against a live tuplestore once per
 * backend (GenMaterial's check); if it does not match, nothing is changed.
 *
 * When each store is claimed (its context pointed at the node's Generation
 * context, created in the query's context at ExecutorStart, so that it
 * goes when the query's memory goes, on success, error or cancel alike):
 *	CTE Scan: the CTE's store is created by the first CTE Scan's
 *		ExecInitCteScan and shared by the others; claimed at ExecutorStart,
 *		while it is empty.  Rescans clear it (tuplestore_clear keeps the
 *		field).
 *	WindowAgg: a store per partition, created in begin_partition and filled
 *		by spool_tuples, one tuple per call of the outer plan.  The outer
 *		plan's ExecProcNodeReal is wrapped: before each call, the current
 *		partition's store is claimed if it is not yet.  Only the partition's
 *		first tuple, stored by begin_partition before any call, lands in the
 *		query's context.
 *	Recursive Union: the working and intermediate tables, created at init
 *		(claimed at ExecutorStart) and a new intermediate table per
 *		iteration, created just before the recursive term is called again:
 *		both children are wrapped, and claim the current tables before each
 *		call.
 * The wrappers also sample what the stores hold, for memprobe_statements'
 * node peaks.  EvalPlanQual rechecks build their trees without
 * ExecutorStart: their stores stay core's.
 *
 * Not covered: Function Scan and Table Function Scan create and fill their
 * store in one call (ExecMakeTableFunctionResult, the function itself),
 * with no moment in between; they stay core's for now.
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

#include "compat.h"
#include "context_types.h"
#include "material.h"
#include "plan_walk.h"
#include "stores.h"

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
		default:
			return 0;
	}
}

#if !MEMPROBE_CORE_TUPLESTORE_GENERATION

/* memprobe.enable_stores */
static bool stores_enabled = true;

static ExecutorStart_hook_type prev_executor_start = NULL;


/*
 * A node whose stores memprobe claims: its tuple context and what its
 * stores held at most (sampled before each call of a child, and at
 * ExecutorEnd).
 */
typedef struct StoreOwner
{
	PlanState  *ps;
	MemoryContext tuples;
	int64		peak;			/* bytes in memory, as work_mem is charged */
	bool		spilled;
	void	   *query;			/* the QueryStores it belongs to */
	struct StoreOwner *next;
} StoreOwner;

/* A wrapped child of a StoreOwner. */
typedef struct WrappedChild
{
	PlanState  *child;
	ExecProcNodeMtd real;		/* the child's own ExecProcNodeReal */
	StoreOwner *owner;
	struct WrappedChild *next;
} WrappedChild;

/*
 * Owners and wrapped children of every query running in this backend
 * (nested queries add theirs in front).  They live in their query's
 * context; a reset callback on that context unlinks them, so a query that
 * errors out leaves nothing behind.
 */
static StoreOwner *owners = NULL;
static WrappedChild *wrapped = NULL;

typedef struct QueryStores
{
	MemoryContextCallback callback;
} QueryStores;

/* ------------------------------------------------------------------------
 * Claiming.
 * ------------------------------------------------------------------------
 */

/* Point the store's tuples at the owner's context; what it holds in memory (-1: on disk). */
static inline int64
claim(StoreOwner *owner, Tuplestorestate *store)
{
	int64		used;

	if (store == NULL)
		return 0;
	if (compat_ts(store)->context != owner->tuples)
		compat_ts(store)->context = owner->tuples;
	used = compat_tuplestore_mem_used(store);
	if (used < 0)
		owner->spilled = true;
	return used;
}

/*
 * Claim the owner's current stores and sample them: the peak is the most
 * the node's stores held in memory together (a Recursive Union's two
 * tables summed, as PostgreSQL 18's EXPLAIN sums them).
 */
static void
claim_stores(StoreOwner *owner)
{
	Tuplestorestate *stores[2];
	int			n = node_stores(owner->ps, stores);
	int64		used = 0;

	for (int i = 0; i < n; i++)
		used += Max(claim(owner, stores[i]), 0);
	if (used > owner->peak)
		owner->peak = used;
}

/* ExecProcNodeReal of a wrapped child: claim the owner's stores, then run. */
static TupleTableSlot *
wrapped_child_exec(PlanState *ps)
{
	WrappedChild *w;

	for (w = wrapped; w != NULL; w = w->next)
		if (w->child == ps)
			break;
	if (unlikely(w == NULL))
		elog(ERROR, "memprobe: no wrapper recorded for plan node %d",
			 ps->plan->plan_node_id);
	claim_stores(w->owner);
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
} StartWalk;

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
	owner->tuples = memprobe_context_create(material_context_type == MATERIAL_CONTEXT_ASET ?
											MEMPROBE_CONTEXT_ASET : MEMPROBE_CONTEXT_GENERATION,
											walk->estate->es_query_cxt,
											context_name, 0);
	owner->next = owners;
	owners = owner;
	return owner;
}

static void
wrap_child(StartWalk *walk, StoreOwner *owner, PlanState *child)
{
	WrappedChild *w;

	if (child == NULL)
		return;
	w = MemoryContextAlloc(walk->estate->es_query_cxt, sizeof(WrappedChild));
	w->child = child;
	w->real = child->ExecProcNodeReal;
	w->owner = owner;
	/* ExecProcNodeFirst and ExecProcNodeInstr both call ExecProcNodeReal */
	child->ExecProcNodeReal = wrapped_child_exec;
	w->next = wrapped;
	wrapped = w;
}

static bool
start_walker(PlanState *ps, void *context)
{
	StartWalk  *walk = (StartWalk *) context;

	if (ps == NULL)
		return false;

	switch (nodeTag(ps))
	{
		case T_WindowAggState:
			wrap_child(walk, add_owner(walk, ps, "memprobe WindowAgg tuples"),
					   outerPlanState(ps));
			break;
		case T_RecursiveUnionState:
			{
				StoreOwner *owner = add_owner(walk, ps, "memprobe Recursive Union tuples");

				claim_stores(owner);
				wrap_child(walk, owner, outerPlanState(ps));
				wrap_child(walk, owner, innerPlanState(ps));
				break;
			}
		case T_CteScanState:
			if (((CteScanState *) ps)->leader == (CteScanState *) ps)
				claim_stores(add_owner(walk, ps, "memprobe CTE tuples"));
			break;
		default:
			break;
	}
	return planstate_tree_walker(ps, start_walker, context);
}

/*
 * Reset callback of the query's context: unlink its owners and wrapped
 * children (nested queries normally end first, but an error can end them
 * in any order, so by membership).
 */
static void
forget_query(void *arg)
{
	void	   *query = arg;

	for (WrappedChild **p = &wrapped; *p != NULL;)
	{
		if ((*p)->owner->query == query)
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

static void
stores_executor_start(QueryDesc *queryDesc, int eflags)
{
	if (prev_executor_start)
		prev_executor_start(queryDesc, eflags);
	else
		standard_ExecutorStart(queryDesc, eflags);

	/* a plan of one node has no store of these kinds (none of them is a leaf) */
	if (stores_enabled && queryDesc->planstate != NULL &&
		!planstate_is_leaf(queryDesc->planstate) &&
		(eflags & EXEC_FLAG_EXPLAIN_ONLY) == 0 && material_supported())
	{
		/* allocates nothing unless it finds a node to take over */
		StartWalk	walk = {queryDesc->estate, NULL};

		(void) start_walker(queryDesc->planstate, &walk);
	}
}

/* ------------------------------------------------------------------------
 * Peaks, for memprobe_statements.
 * ------------------------------------------------------------------------
 */

bool
stores_node_peak(PlanState *ps, int64 *bytes, bool *spilled)
{
	Tuplestorestate *stores[2];
	int			n;
	bool		any = false;

	for (StoreOwner *owner = owners; owner != NULL; owner = owner->next)
	{
		if (owner->ps != ps)
			continue;
		claim_stores(owner);	/* a last sample */
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

void
stores_init(void)
{
	DefineCustomBoolVariable("memprobe.enable_stores",
							 "Keeps the tuples of WindowAgg, CTE Scan and Recursive Union stores in a Generation context.",
							 "As PostgreSQL 18 does for every tuplestore: no power-of-two rounding, so a "
							 "store holds twice as many ~1kB tuples before it spills.  Read at executor start.",
							 &stores_enabled, true, PGC_USERSET, 0, NULL, NULL, NULL);
}

void
stores_install_hooks(void)
{
	prev_executor_start = ExecutorStart_hook;
	ExecutorStart_hook = stores_executor_start;
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
stores_install_hooks(void)
{
}

#endif
