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
 *	transaction:	the data cap, the guard, memprobe_statements
 *	subtransaction:	the guard, memprobe_statements
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
#include "optimizer/planner.h"

#include "hooks.h"
#include "guard/data_cap.h"
#include "guard/guard.h"
#include "report/statements.h"
#include "shared/compat.h"
#include "shared/injection.h"
#include "store/explain_storage.h"
#include "store/material.h"
#include "store/stores.h"

static planner_hook_type prev_planner = NULL;
static ExecutorStart_hook_type prev_executor_start = NULL;
static ExecutorEnd_hook_type prev_executor_end = NULL;

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
	data_cap_xact_event(event);
	guard_xact_event(event);
	statements_xact_event(event);
}

static void
memprobe_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
						  SubTransactionId parentSubid, void *arg)
{
	guard_subxact_event(event, mySubid);
	statements_subxact_event(event);
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
	RegisterXactCallback(memprobe_xact_callback, NULL);
	RegisterSubXactCallback(memprobe_subxact_callback, NULL);
}
