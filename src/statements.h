/*-------------------------------------------------------------------------
 *
 * statements.h
 *	  memprobe_statements: executor memory per statement (statements.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_STATEMENTS_H
#define MEMPROBE_STATEMENTS_H

extern void statements_init(void);
extern void statements_install_hooks(void);

#endif							/* MEMPROBE_STATEMENTS_H */
