/*-------------------------------------------------------------------------
 *
 * alloc_bench.h
 *	  memprobe_alloc_bench(): palloc/pfree micro-benchmarks from SQL.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_ALLOC_BENCH_H
#define MEMPROBE_ALLOC_BENCH_H

extern void alloc_bench_init(void);

#endif							/* MEMPROBE_ALLOC_BENCH_H */
