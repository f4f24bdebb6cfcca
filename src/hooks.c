/*-------------------------------------------------------------------------
 *
 * hooks.c
 *	  memprobe's planner_hook, ExecutorStart_hook, ExecutorEnd_hook and
 *	  transaction callbacks: one function for each, which does every
 *	  part's work in turn.
 *
 * Each part (the guard, GenMaterial, memprobe_statements, the tuple stores,
 * EXPLAIN's Storage line) used to install its own hook, chained one after
 * another through its prev_ pointer.  A link costs an indirect call down,
 * a test of its prev_ pointer and a prologue and epilogue even when it has
 * nothing to do, which is most statements: three links instead of eight
 * took 28 instructions off a pgbench -S statement on 15 and 66 on 17
 * (bench/callgrind --oltp, bench/RESULTS.md), and the order the parts run
 * in is written down here, not left to the order of installation.  Each
 * part is called directly, in the order the chain ran them:
 *
 *	planner:		[the guard's handler around: the planner down the chain,
 *					then GenMaterial's substitution]
 *	ExecutorStart:	the chain, then GenMaterial's merge join marks,
 *					memprobe_statements' execution record, the tuple stores'
 *					walk, EXPLAIN's query
 *	ExecutorEnd:	EXPLAIN's numbering, then memprobe_statements' (which
 *					runs the chain in the middle of its work)
 *
 * ExecutorRun, ExecutorFinish, ProcessUtility and post-parse analysis stay
 * with the parts that use them (statements.c, explain_storage.c).
 *
 * Likewise one transaction callback and one subtransaction callback, in the
 * order core called the parts' own (the last registered first):
 *
 *	transaction:	the statement's end (and its cap), the guard,
 *					memprobe_statements
 *	subtransaction:	the statement's end, the guard, memprobe_statements
 *
 * A fast-path call (the protocol's FunctionCall message) runs no planner,
 * executor or utility statement of its own: the object access hook sees
 * its function's execute check (fastpath.c's InvokeFunctionExecuteHook),
 * which begins a statement for the guard; needs_fmgr_hook has fmgr_info
 * wrap the function looked up for the call, and fmgr_hook then sees it run
 * and return, which ends it.  A built-in function is never wrapped (fmgr.c
 * looks it up without asking): its call ends with the transaction, or at
 * the next statement.
 *
 * Core walks its list of callbacks at every event (twice in a transaction
 * that commits: pre-commit and commit); memprobe's is one entry of it, not
 * three.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/objectaccess.h"
#include "catalog/pg_proc.h"
#include "executor/executor.h"
#include "fmgr.h"
#include "optimizer/planner.h"
#include "utils/backend_status.h"

#include "hooks.h"
#include "guard/data_cap.h"
#include "guard/guard.h"
#include "guard/statement_id.h"
#include "report/statements.h"
#include "shared/compat.h"
#include "shared/injection.h"
#include "store/explain_storage.h"
#include "store/material.h"
#include "store/stores.h"

static planner_hook_type prev_planner = NULL;
static ExecutorStart_hook_type prev_executor_start = NULL;
static ExecutorEnd_hook_type prev_executor_end = NULL;
static object_access_hook_type prev_object_access = NULL;
static needs_fmgr_hook_type prev_needs_fmgr = NULL;
static fmgr_hook_type prev_fmgr = NULL;

/* The fast-path call's function from its execute check to its return, else 0. */
static Oid	fastpath_fid = InvalidOid;

/* ... and whether it runs (between fmgr_hook's start and its end or abort) */
static bool fastpath_running = false;

/* The planner down the chain, or core's, then GenMaterial's substitution. */
static PlannedStmt *
plan(Query *parse, const char *query_string, int cursorOptions,
	 ParamListInfo boundParams)
{
	PlannedStmt *stmt;

	MEMPROBE_INJECTION_POINT("guard-planner");
	if (prev_planner)
		stmt = prev_planner(parse, query_string, cursorOptions, boundParams);
	else
		stmt = standard_planner(parse, query_string, cursorOptions, boundParams);
	return material_planned(stmt);
}

/*
 * planner_hook: where a handler could catch the guard's cancel before the
 * top level, planning runs under one that gives the cancel the guard's error
 * (guard_cancel_needs_handler).
 */
static PlannedStmt *
memprobe_planner(Query *parse, const char *query_string, int cursorOptions,
				 ParamListInfo boundParams)
{
	MemoryContext cxt = CurrentMemoryContext;
	PlannedStmt *stmt;

	/* a Bind message's plan: its statement begins here */
	if (statements_nesting_level() == 0)
		statement_begin();
	if (!guard_cancel_needs_handler(statements_nesting_level()))
		return plan(parse, query_string, cursorOptions, boundParams);

	PG_TRY();
	{
		stmt = plan(parse, query_string, cursorOptions, boundParams);
	}
	PG_CATCH();
	{
		guard_translate_cancel(cxt);
		PG_RE_THROW();
	}
	PG_END_TRY();
	return stmt;
}

static void
memprobe_executor_start(QueryDesc *queryDesc, int eflags)
{
	uint64		begun = material_mergejoin_before_start();

	if (statements_nesting_level() == 0)
		statement_begin();
	if (prev_executor_start)
		prev_executor_start(queryDesc, eflags);
	else
		standard_ExecutorStart(queryDesc, eflags);

	material_mergejoin_started(queryDesc, begun);
	statements_executor_started(queryDesc, eflags);
	stores_executor_started(queryDesc, eflags);
	explain_storage_executor_started(queryDesc, eflags);
}

static void
memprobe_executor_end(QueryDesc *queryDesc)
{
	explain_storage_executor_ending(queryDesc);
	statements_executor_end(queryDesc);
}

void
memprobe_next_executor_end(QueryDesc *queryDesc)
{
	if (prev_executor_end)
		prev_executor_end(queryDesc);
	else
		standard_ExecutorEnd(queryDesc);
}

static void
memprobe_xact_callback(XactEvent event, void *arg)
{
	if (unlikely(fastpath_fid != InvalidOid) &&
		(event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT ||
		 event == XACT_EVENT_COMMIT))
	{
		if (fastpath_running)
			statements_call_left();
		fastpath_running = false;
		fastpath_fid = InvalidOid;
	}
	statement_xact_event(event, statements_nested_running());
	guard_xact_event(event);
	statements_xact_event(event);
}

static void
memprobe_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
						  SubTransactionId parentSubid, void *arg)
{
	statement_subxact_event(event);
	guard_subxact_event(event, mySubid);
	statements_subxact_event(event);
}

/* Is this process in a fast-path call, outside the function it calls? */
static inline bool
fastpath_outside_call(void)
{
	return MyBEEntry != NULL && MyBEEntry->st_state == STATE_FASTPATH &&
		!fastpath_running && statements_nesting_level() == 0;
}

/*
 * object_access_hook: a fast-path call's execute check of its function
 * (after its lookup and permission checks, before its arguments are read)
 * begins a statement for the guard, named by the function.
 */
static void
memprobe_object_access(ObjectAccessType access, Oid classId, Oid objectId,
					   int subId, void *arg)
{
	if (prev_object_access)
		prev_object_access(access, classId, objectId, subId, arg);
	if (access == OAT_FUNCTION_EXECUTE && classId == ProcedureRelationId &&
		fastpath_outside_call())
	{
		fastpath_fid = objectId;
		statement_begin_fastpath(objectId);
	}
}

/*
 * needs_fmgr_hook: fetch_fp_info looks the call's function up first, so
 * every function looked up in a fast-path call outside the function called
 * is wrapped (a type's input and output functions too, which fmgr_hook
 * then lets by); none in any other state.
 */
static bool
memprobe_needs_fmgr(Oid fn_oid)
{
	if (prev_needs_fmgr && prev_needs_fmgr(fn_oid))
		return true;
	return fastpath_outside_call();
}

/*
 * fmgr_hook: the fast-path call's function starts (its statements then run
 * a level down, as from a query), and returns or fails: its statement ends.
 * A SECURITY DEFINER function comes here unasked, also when it calls itself
 * a level down: only the outermost call counts.
 */
static void
memprobe_fmgr(FmgrHookEventType event, FmgrInfo *flinfo, Datum *private)
{
	if (prev_fmgr)
		prev_fmgr(event, flinfo, private);
	if (likely(fastpath_fid == InvalidOid) || flinfo->fn_oid != fastpath_fid)
		return;
	if (event == FHET_START)
	{
		if (fastpath_outside_call())
		{
			fastpath_running = true;
			statements_call_entered();
		}
	}
	else if (fastpath_running && statements_nesting_level() == 1)
	{
		fastpath_running = false;
		fastpath_fid = InvalidOid;
		statements_call_left();
		statement_end();
	}
}

/* Called only when memprobe is preloaded. */
void
memprobe_install_hooks(void)
{
	prev_planner = planner_hook;
	planner_hook = memprobe_planner;
	prev_executor_start = ExecutorStart_hook;
	ExecutorStart_hook = memprobe_executor_start;
	prev_executor_end = ExecutorEnd_hook;
	ExecutorEnd_hook = memprobe_executor_end;
	prev_object_access = object_access_hook;
	object_access_hook = memprobe_object_access;
	prev_needs_fmgr = needs_fmgr_hook;
	needs_fmgr_hook = memprobe_needs_fmgr;
	prev_fmgr = fmgr_hook;
	fmgr_hook = memprobe_fmgr;
	RegisterXactCallback(memprobe_xact_callback, NULL);
	RegisterSubXactCallback(memprobe_subxact_callback, NULL);
}
