/*-------------------------------------------------------------------------
 *
 * hooks.c
 *	  The one place PostgreSQL calls into memprobe while it runs: every
 *	  planner, executor, utility, parse analysis, path, log and fmgr hook
 *	  and the transaction callbacks, each one function that does every
 *	  part's work in a written order.  The parts (src/report, src/guard,
 *	  src/store, src/scan) are libraries these call; none installs a hook.
 *	  Shared memory, set up once at server start, is memprobe.c's.
 *
 * One function per hook, not one per part chained through prev_ pointers:
 * a link costs an indirect call, a test of its pointer, a prologue and an
 * epilogue even when it has nothing to do, which is most statements
 * (bench/RESULTS.md), and the order the parts run in is written here, not
 * left to the order of installation:
 *
 *	planner:		[the guard's handler around: the planner down the chain,
 *					then GenMaterial's substitution]
 *	post-parse:		the chain, then memprobe_statements' normalised text
 *	ExecutorStart:	the chain, then GenMaterial's merge join marks, the
 *					statement's identity and the guard's start (a client's),
 *					memprobe_statements' execution record, the tuple stores'
 *					walk, EXPLAIN's query
 *	ExecutorRun:	[the guard's handler around: the chain], then
 *					memprobe_statements' sample
 *	ExecutorFinish:	[the guard's handler around: the chain]
 *	ExecutorEnd:	EXPLAIN's numbering, memprobe_statements' sample and node
 *					peaks, the chain, memprobe_statements' record, then (a
 *					client's statement) memprobe_backends, the statement's
 *					end and the guard's
 *	ProcessUtility:	[EXPLAIN's Storage lines around: [the guard's handler
 *					around: the chain]]
 *	set_rel_pathlist: the chain, then StreamScan's paths
 *	emit_log:		the guard's cancel translated, then the chain
 *
 * The executor nesting level lives here (nesting_level).  Likewise one
 * transaction callback and one subtransaction callback, in the
 * order core called the parts' own (the last registered first):
 *
 *	transaction:	the statement's end (and its cap), the guard, the level
 *					put back, memprobe_statements
 *	subtransaction:	the statement's end, the guard, memprobe_statements
 *
 * A fast-path call (the protocol's FunctionCall message) runs no planner,
 * executor or utility statement of its own: the fmgr hooks make it one
 * (memprobe_needs_fmgr).
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/executor.h"
#include "fmgr.h"
#include "optimizer/paths.h"
#include "optimizer/planner.h"
#include "parser/analyze.h"
#include "tcop/utility.h"
#include "utils/backend_status.h"
#include "utils/elog.h"

#include "hooks.h"
#include "guard/guard.h"
#include "guard/statement_id.h"
#include "report/backends.h"
#include "report/statements.h"
#include "scan/streamscan.h"
#include "shared/compat.h"
#include "shared/injection.h"
#include "store/explain_storage.h"
#include "store/material.h"
#include "store/stores.h"

static planner_hook_type prev_planner = NULL;
static post_parse_analyze_hook_type prev_post_parse_analyze = NULL;
static ExecutorStart_hook_type prev_executor_start = NULL;
static ExecutorRun_hook_type prev_executor_run = NULL;
static ExecutorFinish_hook_type prev_executor_finish = NULL;
static ExecutorEnd_hook_type prev_executor_end = NULL;
static ProcessUtility_hook_type prev_process_utility = NULL;
static set_rel_pathlist_hook_type prev_set_rel_pathlist = NULL;
static emit_log_hook_type prev_emit_log = NULL;
static needs_fmgr_hook_type prev_needs_fmgr = NULL;
static fmgr_hook_type prev_fmgr = NULL;

/*
 * Executor and utility nesting depth, as pg_stat_statements' nesting_level:
 * 0 for a client's own statement, one more inside each ExecutorRun,
 * ExecutorFinish, utility statement and fast-path call.  It is kept across
 * an error by PG_TRY/PG_CATCH, except where no handler is needed: a
 * SELECT's ExecutorFinish (nothing runs under it) and a client's own
 * statement's ExecutorRun where the guard needs no handler, whose error
 * ends the transaction, the abort putting the level back.  The handlers
 * give the guard's cancel its error (guard_translate_cancel) where a
 * PL/pgSQL block or a savepoint could catch it before the top level.
 */
static int	nesting_level = 0;

/*
 * Set while a client's own statement runs without an error handler of
 * memprobe's (memprobe_executor_run): an error ends its transaction, and
 * the abort puts the nesting level back (memprobe_xact_callback).
 */
static bool run_without_handler = false;

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
	int			level = nesting_level;

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

/*
 * After parse analysis: the chain, then memprobe_statements' note of the
 * statement's constants, for its normalised text.
 */
static void
memprobe_post_parse_analyze(ParseState *pstate, Query *query, JumbleState *jstate)
{
	if (prev_post_parse_analyze)
		prev_post_parse_analyze(pstate, query, jstate);
	statements_parsed(pstate, query, jstate, nesting_level);
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
	if (nesting_level == 0)
	{
		/* a cached plan's Execute: its statement begins here, if not at its parse or plan */
		statement_begin();
		if ((eflags & EXEC_FLAG_EXPLAIN_ONLY) == 0)
			guard_top_level_query_started(statement_my_began);
	}
	statements_executor_started(queryDesc, eflags, nesting_level);
	stores_executor_started(queryDesc, eflags);
	explain_storage_executor_started(queryDesc, eflags);
}

/*
 * From the error handler of a hook that ran a statement: the guard's cancel
 * becomes its out-of-memory error (guard.c); any error goes on up.  cxt is
 * the memory context the hook was called in (not ErrorContext).
 */
static void
statement_failed(MemoryContext cxt)
{
	guard_translate_cancel(cxt);
	PG_RE_THROW();
}

/* The next ExecutorRun in the chain, or core's. */
static inline void
run_next(COMPAT_EXECUTOR_RUN_PARAMS)
{
	if (prev_executor_run)
		prev_executor_run(COMPAT_EXECUTOR_RUN_ARGS);
	else
		standard_ExecutorRun(COMPAT_EXECUTOR_RUN_ARGS);
}

/* The next ExecutorFinish in the chain, or core's. */
static inline void
finish_next(QueryDesc *queryDesc)
{
	if (prev_executor_finish)
		prev_executor_finish(queryDesc);
	else
		standard_ExecutorFinish(queryDesc);
}

/*
 * A run with the guard's handler around it (memprobe_executor_run): out of
 * line, so that the run without one saves no registers for setjmp.
 */
static pg_noinline void
run_with_handler(COMPAT_EXECUTOR_RUN_PARAMS)
{
	MemoryContext cxt = CurrentMemoryContext;

	nesting_level++;
	PG_TRY();
	{
		run_next(COMPAT_EXECUTOR_RUN_ARGS);
	}
	PG_CATCH();
	{
		nesting_level--;
		/* a failed execution's last sample (memprobe_statements' failed calls) */
		statements_executor_sample(queryDesc);
		statement_failed(cxt);
	}
	PG_END_TRY();
	nesting_level--;
}

static void
memprobe_executor_run(COMPAT_EXECUTOR_RUN_PARAMS)
{
	/* each Execute message of a portal is a statement of its own */
	if (nesting_level == 0)
		statement_begin();
	if (nesting_level == 0 && !guard_cancel_needs_handler(0))
	{
		/*
		 * A failed execution's last sample, taken as the error is raised,
		 * before anything is freed: what the handler of run_with_handler
		 * takes as it catches.  Error context callbacks run for every
		 * message reported below (a NOTICE, a LOG line too): each such
		 * message then costs a walk of the executor's context tree, which
		 * only raises the peak to what is held then.
		 */
		ErrorContextCallback sample;

		sample.callback = statements_sample_at_error;
		sample.arg = queryDesc;
		sample.previous = error_context_stack;
		error_context_stack = &sample;
		nesting_level++;
		run_without_handler = true;
		run_next(COMPAT_EXECUTOR_RUN_ARGS);
		run_without_handler = false;
		nesting_level--;
		error_context_stack = sample.previous;
	}
	else
		run_with_handler(COMPAT_EXECUTOR_RUN_ARGS);

	statements_executor_sample(queryDesc);
	/* a client's Execute ends here (a portal may be fetched from later, idle in between) */
	if (nesting_level == 0)
		statement_end();
}

static void
memprobe_executor_finish(QueryDesc *queryDesc)
{
	MemoryContext cxt = CurrentMemoryContext;

	/*
	 * A SELECT without a data-modifying WITH has nothing to finish: no
	 * secondary ModifyTable to run and no trigger queued at its level (its
	 * functions' statements queue and fire theirs at their own), so no
	 * statement runs nested below and nothing there checks for interrupts.
	 * Neither the level nor the guard's error handler is needed.
	 */
	if (queryDesc->operation == CMD_SELECT && queryDesc->estate->es_auxmodifytables == NIL)
	{
		finish_next(queryDesc);
		return;
	}

	nesting_level++;
	PG_TRY();
	{
		finish_next(queryDesc);
	}
	PG_CATCH();
	{
		nesting_level--;
		statement_failed(cxt);
	}
	PG_END_TRY();
	nesting_level--;
	/* no sample here: ExecutorEnd takes one before anything is freed */
}

/* The rest of the ExecutorEnd chain, or core's. */
static void
executor_end_next(QueryDesc *queryDesc)
{
	if (prev_executor_end)
		prev_executor_end(queryDesc);
	else
		standard_ExecutorEnd(queryDesc);
}

static void
memprobe_executor_end(QueryDesc *queryDesc)
{
	int64		executor_bytes;

	explain_storage_executor_ending(queryDesc);
	/* its sample and node peaks before any node ends, the chain, then its record */
	executor_bytes = statements_executor_end(queryDesc, nesting_level, executor_end_next);
	/* a client's statement ended: memprobe_backends may be due; a guard's cap goes */
	if (nesting_level == 0)
	{
		backends_statement_end(queryDesc->plannedstmt->queryId, executor_bytes);
		statement_end();
		guard_top_level_query_ended();
	}
}

/* The next ProcessUtility in the chain, or core's. */
static void
process_utility_next(PlannedStmt *pstmt, const char *queryString,
					 bool readOnlyTree, ProcessUtilityContext context,
					 ParamListInfo params, QueryEnvironment *queryEnv,
					 DestReceiver *dest, QueryCompletion *qc)
{
	if (prev_process_utility)
		prev_process_utility(pstmt, queryString, readOnlyTree, context,
							 params, queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context,
								params, queryEnv, dest, qc);
}

/*
 * A utility statement at its nesting level.  Statements run by a utility
 * statement (DO, CALL, EXPLAIN ANALYZE, DECLARE CURSOR, CREATE TABLE AS...)
 * are nested, as pg_stat_statements counts them (with
 * pg_stat_statements.track_utility on, its default).  EXECUTE, PREPARE and
 * DEALLOCATE are not a level: an EXECUTE's statement is top-level, as
 * pg_stat_statements' PGSS_HANDLED_UTILITY decides.
 */
static void
utility_statement(PlannedStmt *pstmt, const char *queryString,
				  bool readOnlyTree, ProcessUtilityContext context,
				  ParamListInfo params, QueryEnvironment *queryEnv,
				  DestReceiver *dest, QueryCompletion *qc)
{
	Node	   *parsetree = pstmt->utilityStmt;
	MemoryContext cxt = CurrentMemoryContext;

	if (nesting_level == 0)
		statement_begin();
	if (IsA(parsetree, ExecuteStmt) || IsA(parsetree, PrepareStmt) ||
		IsA(parsetree, DeallocateStmt))
	{
		process_utility_next(pstmt, queryString, readOnlyTree, context,
							 params, queryEnv, dest, qc);
		return;
	}

	nesting_level++;
	PG_TRY();
	{
		process_utility_next(pstmt, queryString, readOnlyTree, context,
							 params, queryEnv, dest, qc);
	}
	PG_CATCH();
	{
		nesting_level--;
		statement_failed(cxt);
	}
	PG_END_TRY();
	nesting_level--;

	if (nesting_level == 0)
	{
		backends_statement_end(pstmt->queryId, -1);
		statement_end();
	}
}

/*
 * ProcessUtility: an EXPLAIN ANALYZE whose output gets the Storage lines
 * (15 and 17) runs with its output held until its plan is printed
 * (explain_storage.c); every utility statement is a statement at its level.
 */
static void
memprobe_process_utility(PlannedStmt *pstmt, const char *queryString,
						 bool readOnlyTree, ProcessUtilityContext context,
						 ParamListInfo params, QueryEnvironment *queryEnv,
						 DestReceiver *dest, QueryCompletion *qc)
{
	struct ExplainFrame *frame = explain_storage_begin(pstmt, &dest);

	if (likely(frame == NULL))
	{
		utility_statement(pstmt, queryString, readOnlyTree, context,
						  params, queryEnv, dest, qc);
		return;
	}
	PG_TRY();
	{
		utility_statement(pstmt, queryString, readOnlyTree, context,
						  params, queryEnv, dest, qc);
	}
	PG_FINALLY();
	{
		explain_storage_end(frame);
	}
	PG_END_TRY();
}

/*
 * A message is about to be logged or sent: the guard's cancel that reached
 * the top level untranslated becomes its error (guard.c), then the chain.
 */
static void
memprobe_emit_log(ErrorData *edata)
{
	guard_log_emitting(edata);
	if (prev_emit_log)
		prev_emit_log(edata);
}

/* After core has built a relation's paths: StreamScan's beside them. */
static void
memprobe_set_rel_pathlist(PlannerInfo *root, RelOptInfo *rel, Index rti,
						  RangeTblEntry *rte)
{
	if (prev_set_rel_pathlist)
		prev_set_rel_pathlist(root, rel, rti, rte);
	streamscan_add_paths(root, rel, rti, rte);
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
		nesting_level--;
	}
	/* a procedure's COMMIT or ROLLBACK, inside its CALL, leaves its statement running */
	statement_abort(nesting_level > 0 && !run_without_handler);
	guard_top_level_query_ended();
}

static void
memprobe_xact_callback(XactEvent event, void *arg)
{
	if (unlikely(event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT))
		statement_aborted();
	guard_xact_event();
	/*
	 * A client's statement that ran without a handler failed (or, in a
	 * background worker that caught its error without aborting, is over):
	 * no statement runs any more.  Nothing runs in between that reads the
	 * level: the abort marks the failed portal and the others of its
	 * transaction failed (AtAbort_Portals), so no ExecutorEnd comes first.
	 */
	if (unlikely(run_without_handler))
	{
		nesting_level = 0;
		run_without_handler = false;
	}
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
		!fastpath_running && nesting_level == 0;
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
 *
 * A fast-path call (the protocol's FunctionCall message) runs no planner,
 * executor or utility statement of its own: this hook sees the function
 * looked up for the call, begins a statement for the guard and has
 * fmgr_info wrap it, and fmgr_hook then sees it run and return, which ends
 * it.  A built-in function is never wrapped (fmgr.c looks it up without
 * asking): such a call is no statement of its own for the guard (it is
 * cancelled as the one before it, which has ended, so never capped).  An
 * object access hook would see every call's execute check, but costs every
 * statement, and an OLTP statement runs one.
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
			/* its statements run a level down, as when it is called from a query */
			nesting_level++;
		}
	}
	else if (unlikely(fastpath_running) && flinfo->fn_oid == fastpath_fid &&
			 nesting_level == 1)
	{
		fastpath_running = false;
		fastpath_fid = InvalidOid;
		nesting_level--;
		statement_end();
	}
}

/* Called only when memprobe is preloaded (memprobe.c). */
void
memprobe_install_hooks(void)
{
	prev_planner = planner_hook;
	planner_hook = memprobe_planner;
	prev_post_parse_analyze = post_parse_analyze_hook;
	post_parse_analyze_hook = memprobe_post_parse_analyze;
	prev_executor_start = ExecutorStart_hook;
	ExecutorStart_hook = memprobe_executor_start;
	prev_executor_run = ExecutorRun_hook;
	ExecutorRun_hook = memprobe_executor_run;
	prev_executor_finish = ExecutorFinish_hook;
	ExecutorFinish_hook = memprobe_executor_finish;
	prev_executor_end = ExecutorEnd_hook;
	ExecutorEnd_hook = memprobe_executor_end;
	prev_process_utility = ProcessUtility_hook;
	ProcessUtility_hook = memprobe_process_utility;
	prev_set_rel_pathlist = set_rel_pathlist_hook;
	set_rel_pathlist_hook = memprobe_set_rel_pathlist;
	prev_emit_log = emit_log_hook;
	emit_log_hook = memprobe_emit_log;
	prev_needs_fmgr = needs_fmgr_hook;
	needs_fmgr_hook = memprobe_needs_fmgr;
	prev_fmgr = fmgr_hook;
	fmgr_hook = memprobe_fmgr;
	RegisterXactCallback(memprobe_xact_callback, NULL);
	RegisterSubXactCallback(memprobe_subxact_callback, NULL);
}
