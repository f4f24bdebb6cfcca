/*-------------------------------------------------------------------------
 *
 * statement_log.c
 *	  memprobe.log_min_memory: one LOG line for each statement whose memory
 *	  reached the setting, as log_temp_files logs a temporary file and
 *	  auto_explain.log_min_duration a slow plan.
 *
 * The figures are those memprobe_statements records of the execution
 * (statements.c, which decides and calls): its executor memory peak and the
 * private memory the sampler saw during the client's statement.  So only
 * the statements memprobe.track counts are logged, each at its
 * ExecutorEnd; a top-level statement that fails is logged as its failure
 * is counted, at the abort, without a node.  Like log_temp_files it is
 * PGC_SUSET: the log is the DBA's.
 *
 *	LOG:  statement memory: executor 32784 kB, private 41216 kB, query id 6120475316213465397
 *	DETAIL:  Largest node: Sort, 30208 kB. Query: SELECT g FROM generate_series($1, $2) g ORDER BY g DESC
 *
 * The statement's own text is hidden (errhidestmt), as auto_explain hides
 * it: the normalised text is in the detail.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>

#include "utils/guc.h"

#include "report/statement_log.h"

int			statement_log_min_memory = -1;

void
statement_log_report(uint64 queryid, const char *text, int64 exec_bytes,
					 int64 private_bytes, const char *node, int64 node_bytes, bool failed)
{
	long long	exec_kb = (long long) (exec_bytes / 1024);
	long long	private_kb = (long long) (private_bytes / 1024);
	long long	id = (long long) (int64) queryid;	/* signed, as memprobe_statements shows it */

	ereport(LOG,
			private_bytes >= 0 ?
			errmsg("statement memory: executor %lld kB, private %lld kB, query id %lld",
				   exec_kb, private_kb, id) :
			errmsg("statement memory: executor %lld kB, private not sampled, query id %lld",
				   exec_kb, id),
			failed ?
			errdetail("The statement failed; its figures are those sampled before the error. Query: %s",
					  text) :
			node != NULL ?
			errdetail("Largest node: %s, %lld kB. Query: %s",
					  node, (long long) (node_bytes / 1024), text) :
			errdetail("No node reported its memory. Query: %s", text),
			errhidestmt(true));
}

void
statement_log_init(void)
{
	DefineCustomIntVariable("memprobe.log_min_memory",
							"Logs each statement whose memory reaches this amount.",
							"Counts the executor's memory peak and the private memory the sampler "
							"saw, as memprobe_statements records them. Zero logs every statement; "
							"-1 turns this off.",
							&statement_log_min_memory,
							-1, -1, INT_MAX,
							PGC_SUSET,
							GUC_UNIT_KB,
							NULL, NULL, NULL);
}
