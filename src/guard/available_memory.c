/*-------------------------------------------------------------------------
 *
 * available_memory.c
 *	  The memory the kernel still gives the server: available_memory(),
 *	  which the sampler calls at each sample, whether or not the guard is
 *	  on, for memprobe.min_available_memory (guard.c) and memprobe_guard.
 *
 * When the postmaster runs in a memory cgroup with a limit (cgroup v2
 * memory.max, v1 memory.limit_in_bytes, on its own cgroup or an ancestor),
 * the smallest over those cgroups of the limit minus the working set (usage
 * less the inactive file cache from memory.stat, as container runtimes
 * compute it: the kernel reclaims that cache before it kills); otherwise
 * MemAvailable from /proc/meminfo.  A limit on any ancestor bounds the
 * server as much as one on its own cgroup, hence the walk up to the root;
 * and MemAvailable, not MemFree, because the kernel gives the page cache
 * back before it runs out.
 *
 * Copyright (c) 2026, The memprobe Developers
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/fd.h"

#include "guard/available_memory.h"

const char *const available_source_names[] = {
	[AVAILABLE_UNKNOWN] = NULL,
	[AVAILABLE_CGROUP_V1] = "cgroup v1",
	[AVAILABLE_CGROUP_V2] = "cgroup v2",
	[AVAILABLE_MEMAVAILABLE] = "MemAvailable",
};

/* The first number in file path (after key, if given), or -1. */
static int64
read_number(const char *path, const char *key)
{
	FILE	   *f = AllocateFile(path, "r");
	char		line[256];
	int64		value = -1;
	size_t		keylen = key ? strlen(key) : 0;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
	{
		char	   *p = line;

		if (key != NULL)
		{
			if (strncmp(line, key, keylen) != 0 || (line[keylen] != ' ' && line[keylen] != ':'))
				continue;
			p = line + keylen + 1;
		}
		if (strncmp(p, "max", 3) == 0)
			value = PG_INT64_MAX;	/* cgroup v2: no limit */
		else
			value = strtoi64(p, NULL, 10);
		break;
	}
	FreeFile(f);
	return value;
}

/*
 * The postmaster's memory cgroup directory (v1's memory hierarchy if there
 * is one, else v2's) into dir, and whether it is v2; false if none.
 */
static bool
postmaster_cgroup(char *dir, size_t len, bool *v2)
{
	char		path[64];
	char		line[MAXPGPATH];
	FILE	   *f;
	bool		found = false;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int) PostmasterPid);
	if ((f = AllocateFile(path, "r")) == NULL)
		return false;
	while (fgets(line, sizeof(line), f) != NULL)
	{
		char	   *controllers = strchr(line, ':');
		char	   *cgpath = controllers ? strchr(controllers + 1, ':') : NULL;

		if (cgpath == NULL)
			continue;
		*cgpath++ = '\0';
		cgpath[strcspn(cgpath, "\n")] = '\0';
		controllers++;
		if (strstr(controllers, "memory") != NULL)
		{
			snprintf(dir, len, "/sys/fs/cgroup/memory%s", cgpath);
			*v2 = false;
			found = true;
			break;
		}
		if (controllers[0] == '\0' && strncmp(line, "0", 1) == 0)
		{
			snprintf(dir, len, "/sys/fs/cgroup%s", cgpath);
			*v2 = true;
			found = true;		/* keep looking for a v1 memory line */
		}
	}
	FreeFile(f);
	/* "/sys/fs/cgroup/" and "/sys/fs/cgroup/memory/": drop the trailing slash */
	if (found && dir[strlen(dir) - 1] == '/')
		dir[strlen(dir) - 1] = '\0';
	return found;
}

/*
 * The memory the kernel still gives the server, in bytes, where the figure
 * comes from, and the memory it is taken from (*total: the cgroup limit that
 * gave the smallest figure, or MemTotal); -1 (and AVAILABLE_UNKNOWN) if it
 * cannot be known.
 */
int64
available_memory(AvailableSource *source, int64 *total)
{
	char		dir[MAXPGPATH];
	char		path[MAXPGPATH + 32];
	bool		v2;
	int64		best = -1;

	*source = AVAILABLE_UNKNOWN;
	*total = -1;
	if (postmaster_cgroup(dir, sizeof(dir), &v2))
	{
		const char *root = v2 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/memory";

		for (;;)
		{
			int64		limit,
						usage,
						inactive;

			snprintf(path, sizeof(path), "%s/%s", dir, v2 ? "memory.max" : "memory.limit_in_bytes");
			limit = read_number(path, NULL);
			/* v1 says "no limit" with a page-rounded PG_INT64_MAX */
			if (limit > 0 && limit < (INT64CONST(1) << 60))
			{
				snprintf(path, sizeof(path), "%s/%s", dir, v2 ? "memory.current" : "memory.usage_in_bytes");
				usage = read_number(path, NULL);
				snprintf(path, sizeof(path), "%s/memory.stat", dir);
				inactive = read_number(path, v2 ? "inactive_file" : "total_inactive_file");
				if (usage >= 0)
				{
					int64		avail = limit - (usage - Max(inactive, 0));

					if (best < 0 || avail < best)
					{
						best = avail;
						*total = limit;
						*source = v2 ? AVAILABLE_CGROUP_V2 : AVAILABLE_CGROUP_V1;
					}
				}
			}
			if (strlen(dir) <= strlen(root))
				break;
			*strrchr(dir, '/') = '\0';
		}
	}
	if (best < 0)
	{
		int64		kb = read_number("/proc/meminfo", "MemAvailable");

		if (kb >= 0)
		{
			int64		total_kb = read_number("/proc/meminfo", "MemTotal");

			best = kb * 1024;
			*total = total_kb >= 0 ? total_kb * 1024 : -1;
			*source = AVAILABLE_MEMAVAILABLE;
		}
	}
	if (best < 0)
		*source = AVAILABLE_UNKNOWN;
	return Max(best, -1);
}
