/*-------------------------------------------------------------------------
 *
 * statement_log.h
 *	  memprobe.log_min_memory: one LOG line for each statement whose memory
 *	  reached the setting (statement_log.c).
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_STATEMENT_LOG_H
#define MEMPROBE_STATEMENT_LOG_H

/* memprobe.log_min_memory, in kB; -1: off */
extern int	statement_log_min_memory;

/*
 * Is a statement with these figures (bytes; private_bytes -1 when the
 * sampler saw none) due a line?  Callers test statement_log_min_memory >= 0
 * first, so that the setting off costs them that one comparison.
 */
static inline bool
statement_log_due(int64 exec_bytes, int64 private_bytes)
{
	int64		threshold = (int64) statement_log_min_memory * 1024;

	return exec_bytes >= threshold || private_bytes >= threshold;
}

/*
 * Log one statement's figures: its query id and text (normalised when
 * known), executor peak, private peak (-1: not sampled), largest node
 * (node NULL: none reported) and whether it failed.
 */
extern void statement_log_report(uint64 queryid, const char *text, int64 exec_bytes,
								 int64 private_bytes, const char *node, int64 node_bytes,
								 bool failed);

extern void statement_log_init(void);

#endif							/* MEMPROBE_STATEMENT_LOG_H */
