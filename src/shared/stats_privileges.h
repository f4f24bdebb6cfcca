/*-------------------------------------------------------------------------
 *
 * stats_privileges.h
 *	  Whose figures a role may read: pg_stat_activity's rule
 *	  (HAS_PGSTAT_PERMISSIONS in pgstatfuncs.c), for every memprobe view of
 *	  other processes.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#ifndef MEMPROBE_STATS_PRIVILEGES_H
#define MEMPROBE_STATS_PRIVILEGES_H

#include "catalog/pg_authid.h"
#include "miscadmin.h"
#include "utils/acl.h"

/*
 * As pg_stat_activity: a role sees the processes of roles whose privileges
 * it has (its own), pg_read_all_stats everyone's (superusers included);
 * processes of no role (auxiliary processes, InvalidOid) only the latter.
 */
static inline bool
memprobe_may_see(Oid process_user)
{
	Oid			me = GetUserId();

	return has_privs_of_role(me, ROLE_PG_READ_ALL_STATS) ||
		(OidIsValid(process_user) && has_privs_of_role(me, process_user));
}

#endif							/* MEMPROBE_STATS_PRIVILEGES_H */
