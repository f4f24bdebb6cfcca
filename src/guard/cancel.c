/*-------------------------------------------------------------------------
 *
 * cancel.c
 *	  The guard's cancel in the process it cancels: core's query cancel
 *	  becomes the guard's out-of-memory error (ERRCODE_OUT_OF_MEMORY,
 *	  53200) when the guard sent it for the statement running.
 *
 * The sampler (guard.c) writes the reason and figures into the process's
 * slot (cancel.h), then sends it SIGINT, as pg_cancel_backend() does.  The
 * process fails with core's query cancel; where a PL/pgSQL handler or a
 * savepoint could catch that before the top level
 * (guard_cancel_needs_handler, guard.h), memprobe's planner, executor and
 * utility hooks catch it first (guard_translate_cancel) and, when the slot
 * names the statement that was running, raise in its place
 * ERRCODE_OUT_OF_MEMORY (53200) with the guard's message, so that clients,
 * logs and PL/pgSQL handlers see what happened.  Everywhere else (a
 * client's own statement outside any subtransaction, and places no hook
 * covers) the emit_log_hook (guard_emit_log, guard.c) does the same before
 * the error is reported, with is_cancel_by_signal, cancel_is_guards and
 * guard_error_texts from here (cancel.h).
 *
 * A SIGINT says nothing of who sent it, and someone else's cancel must stay
 * core's 57014: so the cancel is the guard's only when this process's slot
 * names it and the statement it was meant for is still this query's.  For
 * that the process keeps which top-level query runs and how many
 * subtransactions are open (guard_query_first_stmt, guard_query_level,
 * guard_subxacts_open, which guard.h's inline functions use at each
 * statement); the rest runs only in an error handler.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "miscadmin.h"
#include "utils/backend_status.h"
#include "utils/timestamp.h"

#include "guard/cancel.h"
#include "guard/guard.h"
#include "guard/size_text.h"
#include "guard/statement_id.h"
#include "shared/changecount.h"
#include "shared/compat.h"
#include "shared/injection.h"

/* ------------------------------------------------------------------------
 * The query running, kept at each statement and transaction event.
 * ------------------------------------------------------------------------
 */

/*
 * The statement (statement_id.h) at which the running top-level query's
 * executor started, or 0.  Each Execute message of a portal run in several
 * is a statement of its own, and the sampler names the one it saw; its
 * cancel can reach the process just after the next Execute began (a cancel
 * that arrives while the backend waits for the client is ignored by core,
 * one that arrives after it has read the message is not).  It was still
 * meant for this query: any statement from the query's first on is.
 */
uint64		guard_query_first_stmt = 0;

/*
 * The transaction nesting level the query started at: a query that fails
 * never reaches ExecutorEnd, and a start left behind would make a later
 * statement's cancel by someone else (pg_cancel_backend) look like the
 * guard's for an earlier one; so the abort of the (sub)transaction it
 * started in forgets it too.  A PL/pgSQL exception block inside the query
 * aborts a subtransaction a level deeper, which does not.
 */
int			guard_query_level = 0;

/*
 * Subtransactions open, GetCurrentTransactionNestLevel() - 1 (guard.h), kept
 * by the transaction callbacks so that guard_cancel_needs_handler makes no
 * call at every statement.  Taken from core at each event, not counted:
 * during START_SUB the new subtransaction is the current one, during
 * COMMIT_SUB and ABORT_SUB the one ending still is (so a subtransaction whose
 * start failed before its START_SUB, and is aborted, leaves it right); none
 * is left when the transaction ends.
 */
int			guard_subxacts_open = 0;

/* A subtransaction event (memprobe's subtransaction callback, hooks.c). */
void
guard_subxact_event(SubXactEvent event)
{
	if (event == SUBXACT_EVENT_ABORT_SUB && guard_query_first_stmt != 0 &&
		GetCurrentTransactionNestLevel() <= guard_query_level)
		guard_top_level_query_ended();
	if (event == SUBXACT_EVENT_START_SUB)
		guard_subxacts_open = GetCurrentTransactionNestLevel() - 1;
	else if (event == SUBXACT_EVENT_COMMIT_SUB || event == SUBXACT_EVENT_ABORT_SUB)
		guard_subxacts_open = GetCurrentTransactionNestLevel() - 2;
}

/* ------------------------------------------------------------------------
 * Failing, in the cancelled process.
 * ------------------------------------------------------------------------
 */

/*
 * This process's slot, read whole even while the sampler writes it: the
 * sampler may write it again at every sample (a portal's next Execute is a
 * new statement, cancelled again), and on a busy machine it can be taken
 * off the CPU between the two halves of a write, so a reader that gave up
 * after a burst of tries would leave the guard's cancel as core's 57014
 * (seen in CI).  Bursts of tries with 100us pauses, up to
 * about 50ms: this runs only in an error handler.
 */
static bool
read_slot_patiently(GuardSlot *slot, GuardSlot *copy)
{
	for (int round = 0; round < 500; round++)
	{
		if (changecount_read(&slot->changecount, slot, copy, sizeof(*copy), 100))
			return true;
		pg_usleep(100L);
	}
	return false;
}

/*
 * A guard cancel sent for a statement that ended before it arrived lands
 * in the next: the sampler checks that the statement still runs, then
 * sends the signal, and a statement can end in between (seen in CI under
 * pgbench -M extended at 10ms samples, as a client's 57014).  Such
 * a cancel, not yet taken by the statement it was meant for, arriving
 * within LATE_CANCEL_MS of being sent, is still the guard's.  Someone
 * else's cancel after a guard cancel that was taken (a PL/pgSQL handler
 * caught it) is not.
 */
#define LATE_CANCEL_MS	200

/* the last statement whose guard cancel this process took */
static uint64 taken_stmt = 0;

/*
 * Is the query cancel being raised the guard's?  Yes when this process's
 * slot names it and the statement it cancelled is the one running (or, for
 * a portal run by several Execute messages, one of this query's), or an
 * earlier one whose cancel arrived late; then copy holds the slot.
 */
static bool
cancel_is_guards(GuardSlot *copy)
{
	GuardSlot  *slot = guard_slot(compat_my_proc_number());

	if (slot == NULL || MyBEEntry == NULL)
		return false;
	if (!read_slot_patiently(slot, copy) || copy->pid != MyProcPid ||
		copy->stmt > statement_my_began)
		return false;
	return copy->stmt == statement_my_began ||
		(guard_query_first_stmt != 0 && copy->stmt >= guard_query_first_stmt) ||
		(copy->stmt != taken_stmt &&
		 !TimestampDifferenceExceeds(copy->sent_at, GetCurrentTimestamp(), LATE_CANCEL_MS));
}

/*
 * Core's error for a cancel by signal (SIGINT, what the guard sends), not
 * one for a statement or lock timeout: by its untranslated message.
 */
static bool
is_cancel_by_signal(const ErrorData *edata)
{
	return edata->elevel == ERROR &&
		edata->sqlerrcode == ERRCODE_QUERY_CANCELED &&
		edata->message_id != NULL &&
		strcmp(edata->message_id, "canceling statement due to user request") == 0;
}

/* The guard's error for the cancel in slot: message, detail and hint, palloc'd. */
static void
guard_error_texts(const GuardSlot *slot, char **message, char **detail, char **hint)
{
	char	   *figure_text,
			   *limit_text;

	size_texts_apart(slot->figure, slot->limit, &figure_text, &limit_text);
	if (slot->reason == GUARD_BACKEND_LIMIT)
	{
		*message = pstrdup("canceling statement due to memprobe.backend_memory_limit");
		*detail = psprintf("The backend's memory, %s, exceeded the limit of %s.  memprobe's memory guard canceled the statement; the session can go on.",
						   figure_text, limit_text);
		*hint = pstrdup("Lower the statement's memory (work_mem, hash_mem_multiplier, or fewer rows at a time), or raise memprobe.backend_memory_limit.");
	}
	else
	{
		*message = pstrdup("canceling statement due to memprobe.min_available_memory");
		*detail = psprintf("The server's available memory, %s, fell below the minimum of %s, and this process held the most memory, %s.  memprobe's memory guard canceled its statement so that the server would not run out.",
						   figure_text, limit_text, size_text(slot->held));
		*hint = pstrdup("Run it again when more memory is free, lower its memory (work_mem, hash_mem_multiplier), or give the server more memory.");
	}
}

void
guard_translate_cancel(MemoryContext cxt)
{
	MemoryContext at_error;
	GuardSlot	copy;
	ErrorData  *edata;
	bool		cancel;
	char	   *message,
			   *detail,
			   *hint;

	if (!cancel_is_guards(&copy))
		return;

	/* the cancel of the statement the guard meant: which error is this? */
	at_error = MemoryContextSwitchTo(cxt);
	edata = CopyErrorData();
	cancel = is_cancel_by_signal(edata);
	FreeErrorData(edata);
	if (!cancel)
	{
		MemoryContextSwitchTo(at_error);
		return;
	}
	FlushErrorState();

	taken_stmt = copy.stmt;
	guard_error_texts(&copy, &message, &detail, &hint);
	ereport(ERROR,
			errcode(ERRCODE_OUT_OF_MEMORY),
			errmsg_internal("%s", message),
			errdetail_internal("%s", detail),
			errhint("%s", hint));
}

/*
 * guard_log_emitting
 *		At emit_log_hook (hooks.c), before the rest of its chain: the
 *		guard's cancel caught nowhere else.
 *
 * That is a client's own statement outside any subtransaction, planned and run
 * without a handler of memprobe's (guard_cancel_needs_handler); and core
 * checks for a cancel at places outside any hook: exec_execute_message() does just
 * before it runs the portal, after it has read the Execute message, marked
 * the statement running and written log_statement's line.  A cancel the
 * sampler sent for a portal's previous Execute that lands there (CI on 15:
 * 2 portal runs in 20, each after dozens of cancels that arrived while the
 * backend waited for the client, which core ignores) fails the query with
 * core's 57014 before memprobe's executor hook runs.  Here, the last place
 * before the error reaches the log and the client, it becomes the guard's.
 *
 * Core's comment on this hook calls changes other than output_to_server
 * unsupported; this one changes the error code and the three texts, all
 * allocated in the error's own context (the current one here), before
 * either output reads them, which is what the client and the log then see.
 * A PL/pgSQL handler or savepoint catches errors before they are reported,
 * which is why the executor, utility and planner hooks translate the
 * cancels raised where one could, and only an error that reaches the top
 * level unchanged comes here.  A server whose log_min_messages is above
 * ERROR (or LOG) calls no emit_log_hook for it: then the hooks translate
 * every cancel themselves, and only one raised where no hook runs reaches
 * the client as 57014.
 */
void
guard_log_emitting(ErrorData *edata)
{
	GuardSlot	copy;

	MEMPROBE_INJECTION_LOG_DELAY(edata);
	if (is_cancel_by_signal(edata) && cancel_is_guards(&copy))
	{
		edata->sqlerrcode = ERRCODE_OUT_OF_MEMORY;
		taken_stmt = copy.stmt;
		guard_error_texts(&copy, &edata->message, &edata->detail, &edata->hint);
		edata->message_id = edata->message;
		edata->detail_log = NULL;
	}
}
