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
 * executor or utility statement of its own: needs_fmgr_hook sees the
 * function looked up for the call, begins a statement for the guard and
 * has fmgr_info wrap it, and fmgr_hook then sees it run and return, which
 * ends it.  A built-in function is never wrapped (fmgr.c looks it up
 * without asking): such a call is no statement of its own for the guard
 * (it is cancelled as the one before it, which has ended, so never
 * capped).  An object access hook would see every call's execute check,
 * but costs ~40 instructions of every statement (pgbench -S runs one).
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
static needs_fmgr_hook_type prev_needs_fmgr = NULL;
static fmgr_hook_type prev_fmgr = NULL;

/* The fast-path call's function from its lookup to its return, else 0. */
static Oid	fastpath_fid = InvalidOid;

/* the FunctionCall message that began it (its state's start) */
static TimestampTz fastpath_message = 0;

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
	int			level = statements_nesting_level();

	/* a Bind message's plan: its statement begins here */
	if (level == 0)
		statement_begin();
	if (!guard_cancel_needs_handler(level))
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

/*
 * An abort: it ends the statement that failed (unless a procedure rolled
 * back a level down), and a fast-path call whose function failed where
 * fmgr_hook did not see it.
 */
static pg_noinline void
statement_aborted(void)
{
	if (fastpath_running)
	{
		fastpath_running = false;
		fastpath_fid = InvalidOid;
		statements_call_left();
	}
	statement_abort(statements_nested_running());
	guard_top_level_query_ended();
}

static void
memprobe_xact_callback(XactEvent event, void *arg)
{
	if (unlikely(event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT))
		statement_aborted();
	guard_xact_event();
	statements_xact_event(event);
}

static void
memprobe_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
						  SubTransactionId parentSubid, void *arg)
{
	statement_subxact_event(event);
	guard_subxact_event(event);
	statements_subxact_event(event);
}

/*
 * Is this process in a fast-path call at the top level, outside the
 * function it calls?
 */
static inline bool
fastpath_outside_call(void)
{
	return MyBEEntry != NULL && MyBEEntry->st_state == STATE_FASTPATH &&
		!fastpath_running && statements_nesting_level() == 0;
}

/*
 * A fast-path call's function is looked up (or, for a SECURITY DEFINER
 * one, which fmgr_info wraps without asking, starts): the first function
 * of a FunctionCall message, known by the message's state change
 * (pgstat_report_activity(STATE_FASTPATH) at each message sets its start),
 * begins the call's statement, named by it.  Later lookups in the same
 * message are its arguments' and result's input and output functions.
 */
static bool
fastpath_call_found(Oid fn_oid)
{
	if (MyBEEntry->st_state_start_timestamp == fastpath_message)
		return false;
	fastpath_message = MyBEEntry->st_state_start_timestamp;
	fastpath_fid = fn_oid;
	statement_begin_fastpath(fn_oid);
	return true;
}

/*
 * needs_fmgr_hook: fetch_fp_info looks the called function up before
 * anything else of its message: that lookup is wrapped (fmgr_security_definer
 * then calls fmgr_hook around the call); none in any other state.
 */
static bool
memprobe_needs_fmgr(Oid fn_oid)
{
	if (prev_needs_fmgr && prev_needs_fmgr(fn_oid))
		return true;
	return unlikely(fastpath_outside_call()) && fastpath_call_found(fn_oid);
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
	if (event == FHET_START)
	{
		if (unlikely(fastpath_outside_call()) &&
			(flinfo->fn_oid == fastpath_fid || fastpath_call_found(flinfo->fn_oid)))
		{
			fastpath_running = true;
			statements_call_entered();
		}
	}
	else if (unlikely(fastpath_running) && flinfo->fn_oid == fastpath_fid &&
			 statements_nesting_level() == 1)
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
	prev_needs_fmgr = needs_fmgr_hook;
	needs_fmgr_hook = memprobe_needs_fmgr;
	prev_fmgr = fmgr_hook;
	fmgr_hook = memprobe_fmgr;
	RegisterXactCallback(memprobe_xact_callback, NULL);
	RegisterSubXactCallback(memprobe_subxact_callback, NULL);
}
