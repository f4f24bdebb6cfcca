/*-------------------------------------------------------------------------
 *
 * material.h
 *	  GenMaterial: Material nodes whose tuples live in a memory context of
 *	  their own (Generation by default).  material.c substitutes the plan
 *	  nodes; material_exec.c runs them; material_mergejoin.c gives them the
 *	  extra marks core's merge join gives core's Material.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_MATERIAL_H
#define MEMPROBE_MATERIAL_H

#include "postgres.h"

#include "executor/execdesc.h"
#include "nodes/extensible.h"
#include "nodes/plannodes.h"
#include "shared/compat.h"
#include "shared/plan_walk.h"

/* The custom scan's name: unique across extensions, shown by EXPLAIN. */
#define MATERIAL_CUSTOM_NAME	"MemprobeMaterial"

/* memprobe.material_context */
typedef enum MaterialContextType
{
	MATERIAL_CONTEXT_GENERATION,
	MATERIAL_CONTEXT_ASET
} MaterialContextType;

extern int	material_context_type;

extern const CustomScanMethods material_scan_methods;

/* material_exec.c */
extern uint64 material_mark_only_begins;
extern bool material_exec_takes_extra_marks(struct PlanState *ps);
extern bool material_exec_node_peak(struct PlanState *ps, int64 *bytes, bool *spilled);
extern void material_exec_init(void);

/* material_mergejoin.c */
extern void material_mergejoin_walk(QueryDesc *queryDesc);

/*
 * Around ExecutorStart (memprobe's ExecutorStart_hook, hooks.c): the count
 * of memprobe's nodes begun for marks only before it, then the walk of the
 * plan state tree if the query began one.  Nothing where GenMaterial stands
 * aside (18).  Inline: the walk is rare, the test is every statement's.
 */
static inline uint64
material_mergejoin_before_start(void)
{
	return material_mark_only_begins;
}

static inline void
material_mergejoin_started(QueryDesc *queryDesc, uint64 begun)
{
	if (!MEMPROBE_CORE_TUPLESTORE_GENERATION &&
		unlikely(material_mark_only_begins != begun) && queryDesc->planstate != NULL)
		material_mergejoin_walk(queryDesc);
}

extern bool material_supported(void);
extern void material_init(void);
extern PlannedStmt *material_substitute(PlannedStmt *stmt);

/*
 * After planning (memprobe's planner_hook, hooks.c): GenMaterial in place
 * of the plan's Materialize nodes.  Inline, the test that settles the common
 * OLTP plan, one scan node, with nothing to walk.
 */
static inline PlannedStmt *
material_planned(PlannedStmt *stmt)
{
	if (stmt->subplans == NIL && plan_is_leaf(stmt->planTree))
		return stmt;
	return material_substitute(stmt);
}

#endif							/* MEMPROBE_MATERIAL_H */
