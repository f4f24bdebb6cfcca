#!/usr/bin/python3
"""memprobe benchmark runner: A/B measurements against scratch clusters.

Started by bench/run (which installs packages, builds and installs memprobe, and hands over the
server's bindir).  For each workload it creates the data on a scratch cluster with memprobe
preloaded, warms up, then measures its variants alternating A B A B ... for several rounds with
pgbench, and reports the median latency and TPS of each variant, the ratio to the first variant,
the min-max spread, and a memory figure where the plan has one.  Optionally it counts CPU events
(perf stat) for the backend running each variant.

Results go to bench/out/ (raw JSON, plots) and, with --write-results, to bench/RESULTS.md.

A "variant" is what is compared: a set of session settings (PGOPTIONS) on one cluster, or another
cluster altogether (memprobe loaded vs not loaded).  Features that have not landed yet have a
single "core" variant: those rows record what core PostgreSQL does, for later comparison.

Copyright (c) 2026, The memprobe Developers; the PostgreSQL License (LICENSE)
"""

import argparse
import datetime
import json
import os
import platform
import random
import re
import signal
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
USER = os.environ.get("MEMPROBE_USER", "memprobe")
BASE = os.environ.get("MEMPROBE_BENCH_DIR", "/var/tmp/memprobe-bench")


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def as_user(cmd, env=None, check=True, capture=True, stdin=None):
    """Run cmd (a list) as the unprivileged bench user."""
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    res = subprocess.run(["runuser", "-u", USER, "--"] + cmd, env=full_env, check=False,
                         stdout=subprocess.PIPE if capture else None,
                         stderr=subprocess.PIPE if capture else None, text=True, input=stdin)
    if check and res.returncode != 0:
        raise RuntimeError("command failed (%d): %s\n%s%s" % (res.returncode, " ".join(cmd),
                                                            res.stdout or "", res.stderr or ""))
    return res


class Cluster:
    """A scratch cluster owned by the bench user, reached over a Unix socket."""

    def __init__(self, bindir, name, port, preload):
        self.bindir = bindir
        self.dir = os.path.join(BASE, name)
        self.data = os.path.join(self.dir, "data")
        self.port = port
        self.preload = preload
        self.settings = {}

    def bin(self, prog):
        return os.path.join(self.bindir, prog)

    def init(self):
        if os.path.exists(self.data):
            self.stop(quiet=True)
            shutil.rmtree(self.dir)
        os.makedirs(self.dir)
        shutil.chown(self.dir, USER)
        as_user([self.bin("initdb"), "-D", self.data, "--auth=trust", "--no-instructions", "-N"])

    def start(self, settings):
        opts = {"port": str(self.port), "listen_addresses": "''",
                "unix_socket_directories": "'%s'" % self.dir, "jit": "off",
                "max_parallel_workers_per_gather": "0", "fsync": "off",
                "synchronous_commit": "off", "autovacuum": "off",
                "shared_preload_libraries": "memprobe" if self.preload else "''"}
        opts.update(settings)
        self.settings = opts
        optstr = " ".join("-c %s=%s" % (k, v) for k, v in opts.items())
        as_user([self.bin("pg_ctl"), "-D", self.data, "-l", os.path.join(self.dir, "log"), "-w",
                 "-o", optstr, "start"])

    def stop(self, quiet=False):
        as_user([self.bin("pg_ctl"), "-D", self.data, "-m", "fast", "-w", "stop"], check=not quiet)

    def restart(self, settings):
        self.stop()
        self.start(settings)

    def conn_args(self, db="postgres"):
        return ["-h", self.dir, "-p", str(self.port), "-d", db]

    def psql(self, sql, db="bench", options=""):
        res = as_user([self.bin("psql"), "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1"]
                      + self.conn_args(db), env={"PGOPTIONS": options}, stdin=sql)
        return res.stdout

    def ensure_db(self):
        if self.psql("SELECT 1 FROM pg_database WHERE datname = 'bench'", db="postgres").strip() != "1":
            self.psql("CREATE DATABASE bench", db="postgres")


class Variant:
    def __init__(self, label, cluster, options=""):
        self.label = label
        self.cluster = cluster
        self.options = options


# --------------------------------------------------------------------------------------------
# Workloads.  Each has: settings (server), setup(param, quick) SQL run once per data size (a
# param whose setup is the same as the previous param's reuses its data), query(param) (the
# statement measured), session (settings for every variant: a string, or a function of the
# param), params (full, quick), and variants(clusters) -> [Variant].  With "plans", each row
# records the plan its variant ran (one EXPLAIN ANALYZE).
# --------------------------------------------------------------------------------------------

# one row per 8kB page: 140000 rows make 1.1GB
ONEROW_SETUP = """
    DROP TABLE IF EXISTS onerow;
    CREATE TABLE onerow (id int, pad text) WITH (fillfactor = 10);
    ALTER TABLE onerow ALTER COLUMN pad SET STORAGE plain;
    INSERT INTO onerow SELECT g, repeat('x', 900) FROM generate_series(1, %d) g;
    VACUUM (FREEZE, ANALYZE) onerow;"""

# serial plans (the servers' default here too): the parallel_* workloads set the workers per param
SERIAL = "-c max_parallel_workers_per_gather=0"
NO_OTHER_JOINS = "-c enable_hashjoin=off -c enable_mergejoin=off -c enable_memoize=off"


def material_variants(c):
    """GenMaterial (memprobe's Material, Generation tuple context) against core's Material."""
    return [Variant("memprobe", c["main"], "-c memprobe.enable_material=on"),
            Variant("core", c["main"], "-c memprobe.enable_material=off")]


def material_setup(n, quick):
    """n rows of (int, 1KB text): the seed's tuples, just over 1KB each."""
    return """
        DROP TABLE IF EXISTS mat_inner_%(n)d;
        CREATE TABLE mat_inner_%(n)d AS SELECT g AS a, repeat('a', 1024) AS b
          FROM generate_series(1, %(n)d) g;
        VACUUM ANALYZE mat_inner_%(n)d;""" % {"n": n}


def material_query(n):
    """A nested loop whose inner Material holds the n rows and is scanned twice."""
    return "SELECT sum(length(b)) FROM generate_series(1, 2) g CROSS JOIN mat_inner_%d;" % n


def streamscan_variants(c):
    """StreamScan (memprobe's sequential scan) against core's Seq Scan, same server."""
    return [Variant("memprobe", c["main"], "-c memprobe.enable_streamscan=on"),
            Variant("core", c["main"], "-c memprobe.enable_streamscan=off")]


def deform_variants(c):
    """StreamScan deforming by need, StreamScan deforming every column up to the last needed one,
    core's Seq Scan, and PostgreSQL 18's core when bench/run was given --core18."""
    v = [Variant("memprobe", c["main"], "-c memprobe.enable_streamscan=on -c memprobe.streamscan_deform_by_need=on"),
         Variant("memprobe, by need off", c["main"],
                 "-c memprobe.enable_streamscan=on -c memprobe.streamscan_deform_by_need=off"),
         Variant("core", c["main"], "-c memprobe.enable_streamscan=off")]
    if "core18" in c:
        v.append(Variant("PostgreSQL 18 core", c["core18"]))
    return v


def parallel_variants(c):
    """StreamScan with its parallel-aware scan (Parallel Custom Scan under Gather), core's scans,
    StreamScan with the parallel one off (core's Parallel Seq Scan under Gather, StreamScan in
    serial plans), and PostgreSQL 18's core when bench/run was given --core18.  Core second:
    --paired times the first two, StreamScan on against off."""
    v = [Variant("memprobe", c["main"],
                 "-c memprobe.enable_streamscan=on -c memprobe.enable_parallel_streamscan=on"),
         Variant("core", c["main"], "-c memprobe.enable_streamscan=off"),
         Variant("memprobe, parallel off", c["main"],
                 "-c memprobe.enable_streamscan=on -c memprobe.enable_parallel_streamscan=off")]
    if "core18" in c:
        v.append(Variant("PostgreSQL 18 core", c["core18"]))
    return v


def workers_session(workers):
    """Up to `workers` parallel workers per Gather; every other parallel setting at PostgreSQL's
    default (the scratch servers start with max_parallel_workers_per_gather = 0)."""
    return "-c max_parallel_workers_per_gather=%d" % workers


def ints8_setup(rows):
    """ints8: `rows` rows of 8 int columns, read once (hint bits set, pages in shared buffers)."""
    return """
        DROP TABLE IF EXISTS ints8;
        CREATE TABLE ints8 AS SELECT g AS id, g AS c2, g AS c3, g AS c4, g AS c5, g AS c6,
          g AS c7, g AS c8 FROM generate_series(1, %d) g;
        VACUUM (FREEZE, ANALYZE) ints8;
        SELECT count(*) FROM ints8;""" % rows


def deform_setup(n, rows):
    """deform_N: `rows` rows of a text column, N int columns, then the int column `last`."""
    return """
        DROP TABLE IF EXISTS deform_%(n)d;
        CREATE TABLE deform_%(n)d AS SELECT 'row ' || g AS t%(cols)s, g AS last
          FROM generate_series(1, %(rows)d) g;
        VACUUM (FREEZE, ANALYZE) deform_%(n)d;
        SELECT count(*) FROM deform_%(n)d;""" % {
        "n": n, "rows": rows, "cols": "".join(", g AS c%d" % i for i in range(n))}


def partitions_setup(n, quick):
    """parts_N: N hash partitions (on id) of 100000 rows (v = id % 100), each partition
    small."""
    return """
        DROP TABLE IF EXISTS parts_%(n)d;
        CREATE TABLE parts_%(n)d (id int, v int) PARTITION BY HASH (id);
        DO $$ BEGIN
          FOR i IN 0 .. %(n)d - 1 LOOP
            EXECUTE format('CREATE TABLE parts_%(n)d_%%s PARTITION OF parts_%(n)d '
                           'FOR VALUES WITH (MODULUS %(n)d, REMAINDER %%s)', i, i);
          END LOOP;
        END $$;
        INSERT INTO parts_%(n)d SELECT g, g %% 100 FROM generate_series(1, 100000) g;
        VACUUM (FREEZE, ANALYZE) parts_%(n)d;""" % {"n": n}


def partitions_workload(name, title, query, explain=True):
    """StreamScan on vs off over partitions_setup's table: query has a %d for N."""
    return {
        "name": name,
        "title": title,
        "settings": {"shared_buffers": "256MB"},
        "session": SERIAL,
        "params": ([1000], [20]),
        "param_name": "partitions",
        "setup": partitions_setup,
        "query": lambda n: query % n,
        "explain": explain,
        "variants": streamscan_variants,
        "transactions": (lambda n: 100, lambda n: 3),
    }


def stores_variants(c):
    """memprobe.enable_stores on vs off on the server under test, and PostgreSQL 18's core (no
    memprobe) when bench/run was given --core18."""
    v = [Variant("memprobe", c["main"], "-c memprobe.enable_stores=on"),
         Variant("core", c["main"], "-c memprobe.enable_stores=off")]
    if "core18" in c:
        v.append(Variant("PostgreSQL 18 core", c["core18"]))
    return v


def core_only(c):
    return [Variant("core", c["main"])]


WORKLOADS = [
    {
        "name": "material",
        "title": "Material over N tuples of ~1KB, scanned twice (nested loop inner), work_mem 64MB",
        "settings": {"shared_buffers": "256MB"},
        "session": "-c work_mem=64MB -c enable_material=on " + NO_OTHER_JOINS,
        "params": ([2 ** i for i in range(14)], [1, 64, 8192]),
        "param_name": "tuples",
        "setup": material_setup,
        "query": material_query,
        "variants": material_variants,
        "transactions": (lambda n: max(20, min(2000, 400000 // (n + 64))), lambda n: 5),
    },
    {
        "name": "material_spill",
        "title": "The same Material over 8192 ~1KB tuples at work_mem 12MB: core's AllocSet "
                 "tuples (16.6MB) spill to disk, Generation's (8.7MB) fit",
        "settings": {"shared_buffers": "256MB"},
        # planned and run at 12MB: the planner's estimate (8.6MB) fits, so the plan is the same
        "session": "-c work_mem=12MB -c enable_material=on " + NO_OTHER_JOINS,
        "params": ([8192], [8192]),
        "param_name": "tuples",
        "setup": material_setup,
        "query": material_query,
        "variants": material_variants,
        "transactions": (lambda n: 40, lambda n: 3),
    },
    {
        "name": "windowagg",
        "title": "WindowAgg lag(b, 800) over 1KB rows, LIMIT 1600, work_mem 1MB",
        "settings": {"shared_buffers": "256MB"},
        "session": "-c work_mem=1MB",
        "params": ([1000000], [20000]),
        "param_name": "rows",
        "setup": lambda n, quick: """
            DROP TABLE IF EXISTS winagg;
            CREATE TABLE winagg AS SELECT a, repeat('a', 1024) AS b FROM generate_series(1, %d) a;
            VACUUM ANALYZE winagg;""" % n,
        "query": lambda n: ("SELECT sum(l1), sum(l2) FROM (SELECT length(b) l1, "
                            "length(lag(b, 800) OVER ()) AS l2 FROM winagg LIMIT 1600) s;"),
        "variants": stores_variants,
        "transactions": (lambda n: 10, lambda n: 3),
    },
    {
        "name": "windowagg_sweep",
        "title": "WindowAgg sum(length(b)) over a 10-row frame of N 1KB rows, work_mem 64MB (nothing spills)",
        "settings": {"shared_buffers": "256MB"},
        "session": "-c work_mem=64MB",
        "params": ([100, 1000, 10000, 50000], [100]),
        "param_name": "rows",
        "setup": lambda n, quick: """
            DROP TABLE IF EXISTS winsweep;
            CREATE TABLE winsweep AS SELECT a, repeat('a', 1024) AS b FROM generate_series(1, %d) a;
            VACUUM ANALYZE winsweep;""" % n,
        "query": lambda n: ("SELECT sum(s) FROM (SELECT sum(length(b)) OVER (ORDER BY a ROWS 10 PRECEDING) "
                            "AS s FROM winsweep) w;"),
        "variants": stores_variants,
        "transactions": (lambda n: max(20, 200000 // n), lambda n: 3),
    },
    {
        "name": "cte_multi",
        "title": "a MATERIALIZED CTE of 1KB rows read by two CTE Scans, work_mem 4MB",
        "settings": {"shared_buffers": "256MB"},
        "session": "-c work_mem=4MB",
        "params": ([3000], [300]),
        "param_name": "rows",
        "setup": lambda n, quick: """
            DROP TABLE IF EXISTS ctet;
            CREATE TABLE ctet AS SELECT a, repeat('a', 1024) AS b FROM generate_series(1, %d) a;
            VACUUM ANALYZE ctet;""" % n,
        "query": lambda n: ("WITH c AS MATERIALIZED (SELECT a, b FROM ctet) "
                            "SELECT (SELECT count(*) FROM c), (SELECT sum(length(b)) FROM c);"),
        "variants": stores_variants,
        "transactions": (lambda n: 50, lambda n: 3),
    },
    {
        "name": "recursive_union",
        "title": "WITH RECURSIVE, UNION ALL, 3 iterations of N 1KB rows each, work_mem 4MB",
        "settings": {"shared_buffers": "256MB"},
        "session": "-c work_mem=4MB",
        "params": ([3000], [300]),
        "param_name": "rows",
        "setup": lambda n, quick: "",
        "query": lambda n: ("WITH RECURSIVE r(i, n, b) AS (SELECT g, 1, repeat('a', 1024) "
                            "FROM generate_series(1, %d) g UNION ALL SELECT i, n + 1, b FROM r WHERE n < 3) "
                            "SELECT count(*), sum(length(b)) FROM r;" % n),
        "variants": stores_variants,
        "transactions": (lambda n: 50, lambda n: 3),
    },
    {
        "name": "function_scan",
        "title": "a PL/pgSQL function returning N rows of 1.1KB (RETURN NEXT), work_mem 4MB",
        "settings": {"shared_buffers": "256MB"},
        "session": "-c work_mem=4MB",
        "params": ([3000], [300]),
        "param_name": "rows",
        "setup": lambda n, quick: """
            CREATE OR REPLACE FUNCTION bench_srf(n int) RETURNS SETOF text LANGUAGE plpgsql AS
              $f$BEGIN FOR i IN 1..n LOOP RETURN NEXT repeat('a', 1100); END LOOP; END$f$;""",
        "query": lambda n: "SELECT count(*), sum(length(t)) FROM bench_srf(%d) t;" % n,
        "variants": stores_variants,
        "transactions": (lambda n: 50, lambda n: 3),
    },
    {
        "name": "function_scan_sweep",
        "title": "count(*) over generate_series(1, N), work_mem 64MB (nothing spills)",
        "settings": {"shared_buffers": "256MB"},
        "session": "-c work_mem=64MB",
        "params": ([1000, 100000, 1000000], [1000]),
        "param_name": "rows",
        "setup": lambda n, quick: "",
        "query": lambda n: "SELECT count(*) FROM generate_series(1, %d);" % n,
        "variants": stores_variants,
        "explain": False,
        "transactions": (lambda n: max(10, 2000000 // n), lambda n: 3),
    },
    {
        "name": "seqscan_1row_per_page",
        "title": "count(*) over one row per page (fillfactor 10, 900-byte rows), shared_buffers 256MB",
        "settings": {"shared_buffers": "256MB"},
        "session": SERIAL,
        "params": ([140000], [5000]),
        "param_name": "rows",
        "setup": lambda n, quick: ONEROW_SETUP % n,
        "query": lambda n: "SELECT count(*) FROM onerow;",
        "variants": streamscan_variants,
        "transactions": (lambda n: 10, lambda n: 3),
        "cold": "onerow",
    },
    {
        "name": "seqscan_backward",
        "title": "the same table read backward by a SCROLL cursor (MOVE BACKWARD), its files "
                 "evicted from the page cache after the cursor reached the end",
        "settings": {"shared_buffers": "256MB"},
        "session": SERIAL + " -c synchronize_seqscans=off",
        "params": ([140000], [5000]),
        "param_name": "rows",
        "setup": lambda n, quick: ONEROW_SETUP % n,
        "cursor": ("BEGIN; DECLARE c SCROLL CURSOR FOR SELECT id FROM onerow; MOVE LAST IN c;",
                   "MOVE BACKWARD 1000000 IN c;", "COMMIT;"),
        "variants": streamscan_variants,
        "transactions": (lambda n: 1, lambda n: 1),
        "cold": "onerow",
    },
    {
        "name": "seqscan_filter_all",
        "title": "SELECT * FROM t WHERE id = 0 on an 8-int-column table, all in shared buffers (1GB)",
        "settings": {"shared_buffers": "1GB"},
        "session": SERIAL,
        "params": ([2500000], [100000]),
        "param_name": "rows",
        "setup": lambda n, quick: ints8_setup(n),
        "query": lambda n: "SELECT * FROM ints8 WHERE id = 0;",
        "variants": streamscan_variants,
        "transactions": (lambda n: 40, lambda n: 5),
        "prewarm": "ints8",
        "floor": lambda n: "ints8",
    },
    {
        "name": "deform",
        "title": "sum(last int) after a text column and N int columns, 1M rows, in shared buffers",
        "settings": {"shared_buffers": "1GB"},
        "session": SERIAL,
        "params": ([0, 1, 2, 4, 8, 15, 32], [0, 15]),
        "param_name": "columns",
        "setup": lambda n, quick: deform_setup(n, 50000 if quick else 1000000),
        "query": lambda n: "SELECT sum(last) FROM deform_%d;" % n,
        "variants": deform_variants,
        "transactions": (lambda n: 20, lambda n: 3),
        "floor": lambda n: "deform_%d" % n,
    },
    # The parallel sweeps: the same tables, up to 0, 1, 2 workers.  Quick data is just large
    # enough for the planner to plan 2 workers at the default min_parallel_table_scan_size (8MB:
    # one worker from 1024 pages, two from 3072).
    {
        "name": "parallel_filter_all",
        "title": "seqscan_filter_all's SELECT * FROM t WHERE id = 0 (2.5M rows of 8 ints in shared "
                 "buffers), up to N parallel workers, other parallel settings at their defaults",
        "settings": {"shared_buffers": "1GB"},
        "session": workers_session,
        "params": ([0, 1, 2], [2]),
        "param_name": "workers",
        "setup": lambda w, quick: ints8_setup(500000 if quick else 2500000),
        "query": lambda w: "SELECT * FROM ints8 WHERE id = 0;",
        "variants": parallel_variants,
        "transactions": (lambda w: 40, lambda w: 5),
        "prewarm": "ints8",
        "floor": lambda w: "ints8",
        "plans": True,
    },
    {
        "name": "parallel_deform",
        "title": "deform's sum(last) after a text column and 15 int columns (1M rows in shared "
                 "buffers), up to N parallel workers, other parallel settings at their defaults",
        "settings": {"shared_buffers": "1GB"},
        "session": workers_session,
        "params": ([0, 1, 2], [2]),
        "param_name": "workers",
        "setup": lambda w, quick: deform_setup(15, 250000 if quick else 1000000),
        "query": lambda w: "SELECT sum(last) FROM deform_15;",
        "variants": parallel_variants,
        "transactions": (lambda w: 20, lambda w: 3),
        "prewarm": "deform_15",
        "floor": lambda w: "deform_15",
        "plans": True,
    },
    partitions_workload(
        "partitions_explain",
        "EXPLAIN SELECT count(*) FROM parts WHERE v = 5 over N hash partitions (100k rows "
        "in all): planning and executor start for every partition, nothing scanned",
        "EXPLAIN SELECT count(*) FROM parts_%d WHERE v = 5;", explain=False),
    partitions_workload(
        "partitions_select",
        "The same query run: every partition's ~100 rows scanned",
        "SELECT count(*) FROM parts_%d WHERE v = 5;"),
    {
        "name": "pgbench_select_only",
        "title": "pgbench -S (simple protocol, 1 client), memprobe loaded vs not loaded",
        "settings": {"shared_buffers": "256MB"},
        "session": "",
        "params": ([10], [1]),
        "param_name": "scale",
        "builtin": "select-only",
        "variants": lambda c: [Variant("memprobe loaded", c["main"]),
                               Variant("not loaded", c["plain"])],
        "duration": (10, 2),
    },
    {
        "name": "pgbench_select_only_2c",
        "title": "pgbench -S (simple protocol, 2 clients), memprobe loaded (memprobe.track = top, backends publishing) vs not loaded",
        "settings": {"shared_buffers": "256MB"},
        "session": "",
        "params": ([10], [1]),
        "param_name": "scale",
        "builtin": "select-only",
        "clients": 2,
        "variants": lambda c: [Variant("memprobe loaded", c["main"]),
                               Variant("not loaded", c["plain"]),
                               Variant("not loaded, compute_query_id = on", c["plain"],
                                       "-c compute_query_id=on")],
        "duration": (10, 2),
    },
    {
        "name": "pgbench_simple_update_2c",
        "title": "pgbench -N (simple protocol, 2 clients), memprobe loaded (memprobe.track = top, backends publishing) vs not loaded",
        "settings": {"shared_buffers": "256MB"},
        "session": "",
        "params": ([10], [1]),
        "param_name": "scale",
        "builtin": "simple-update",
        "clients": 2,
        "variants": lambda c: [Variant("memprobe loaded", c["main"]),
                               Variant("not loaded", c["plain"]),
                               Variant("not loaded, compute_query_id = on", c["plain"],
                                       "-c compute_query_id=on")],
        "duration": (10, 2),
    },
]


def session_options(wl, variant, param):
    """PGOPTIONS for a variant of a workload at a param: the workload's settings (a string, or a
    function of the param), then the variant's."""
    session = wl.get("session", "")
    if callable(session):
        session = session(param)
    return (session + " " + variant.options).strip()


def parse_pgbench(out):
    lat = re.search(r"latency average = ([0-9.]+) ms", out)
    tps = re.search(r"tps = ([0-9.]+)", out)
    if not lat or not tps:
        raise RuntimeError("cannot parse pgbench output:\n" + out)
    return float(lat.group(1)), float(tps.group(1))


def run_pgbench(variant, wl, param, quick, script_path):
    c = variant.cluster
    env = {"PGOPTIONS": session_options(wl, variant, param)}
    if "builtin" in wl:
        dur = wl["duration"][1 if quick else 0]
        clients = str(wl.get("clients", 1))
        args = ["-n", "-b", wl["builtin"], "-c", clients, "-j", clients, "-T", str(dur)]
    else:
        tx = wl["transactions"][1 if quick else 0](param)
        args = ["-n", "-f", script_path, "-t", str(tx)]
    res = as_user([c.bin("pgbench")] + args + c.conn_args("bench"), env=env)
    return parse_pgbench(res.stdout)


def explain_plan(variant, wl, param):
    """One EXPLAIN ANALYZE of the variant's statement: (the memory figure of the plan, the plan
    it ran).  The memory figure is EXPLAIN's Maximum Storage (PostgreSQL 18's Material, or
    memprobe's node) in kB, the largest over nodes; None where the plan shows none.  The plan is
    plan_outline's, for workloads with "plans" (else None)."""
    if "builtin" in wl or not wl.get("explain", True):
        return None, None
    sql = "EXPLAIN (ANALYZE, FORMAT JSON, TIMING OFF) " + wl["query"](param)
    out = variant.cluster.psql(sql, options=session_options(wl, variant, param))
    plan = json.loads(out)
    found = []

    def walk(node):
        if "Maximum Storage" in node:
            found.append(node["Maximum Storage"])
        for child in node.get("Plans", []):
            walk(child)

    walk(plan[0]["Plan"])
    return (max(found) if found else None,
            plan_outline(plan[0]["Plan"]) if wl.get("plans") else None)


def plan_outline(node):
    """A plan's nodes as EXPLAIN's text format names them, parent -> child ("; " between
    siblings), with Gather's workers planned and launched: which scan ran, in how many
    processes."""
    name = node["Node Type"]
    if name == "Custom Scan":
        name += " (%s)" % node.get("Custom Plan Provider", "?")
    if node.get("Partial Mode") in ("Partial", "Finalize"):
        name = "%s %s" % (node["Partial Mode"], name)
    if node.get("Parallel Aware"):
        name = "Parallel " + name
    if "Workers Planned" in node:
        name += " (workers planned %s, launched %s)" % (node["Workers Planned"],
                                                       node.get("Workers Launched", "?"))
    children = [plan_outline(child) for child in node.get("Plans", [])]
    if len(children) == 1:
        name += " -> " + children[0]
    elif children:
        name += " -> (" + "; ".join(children) + ")"
    return name


def evict_relation(cluster, relname):
    """Drop a relation's files from the OS page cache (it is clean after a CHECKPOINT)."""
    cluster.psql("CHECKPOINT", db="bench")
    rel = cluster.psql("SELECT pg_relation_filepath('%s')" % relname).strip()
    base = os.path.join(cluster.data, rel)
    seg = 0
    while True:
        path = base if seg == 0 else "%s.%d" % (base, seg)
        if not os.path.exists(path):
            break
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)
        seg += 1


def disk_reads(cluster):
    """(read requests completed, kB read) so far on the block device holding the cluster's data
    directory, from /proc/diskstats; None where it cannot be told."""
    dev = os.stat(cluster.data).st_dev
    try:
        with open("/proc/diskstats") as f:
            for line in f:
                fields = line.split()
                if int(fields[0]) == os.major(dev) and int(fields[1]) == os.minor(dev):
                    return int(fields[3]), int(fields[5]) / 2.0
    except OSError:
        pass
    return None


def io_summary(deltas):
    """Median read requests per execution and their mean size in kB, from disk_reads deltas."""
    deltas = [d for d in deltas if d is not None and d[0] > 0]
    if not deltas:
        return None, None
    return statistics.median(d[0] for d in deltas), \
        statistics.median(d[1] / d[0] for d in deltas)


def disk_delta(before, after):
    if before is None or after is None:
        return None
    return after[0] - before[0], after[1] - before[1]


def perf_counters(variant, wl, param, runs):
    """perf stat counters for the backend running the query `runs` times."""
    if "builtin" in wl or shutil.which("perf") is None:
        return None
    c = variant.cluster
    env = dict(os.environ, PGOPTIONS=session_options(wl, variant, param))
    proc = subprocess.Popen(["runuser", "-u", USER, "--", c.bin("psql"), "-X", "-q", "-At"]
                            + c.conn_args("bench"), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, env=env)
    proc.stdin.write("SELECT pg_backend_pid();\n")
    proc.stdin.flush()
    pid = proc.stdout.readline().strip()
    # hardware counters where the machine has them (virtual machines often do not); the
    # software ones always work
    events = "instructions,cycles,branch-misses,cache-misses,page-faults,task-clock"
    perf = subprocess.Popen(["perf", "stat", "-x", ",", "-e", events, "-p", pid],
                            stderr=subprocess.PIPE, text=True)
    time.sleep(0.3)
    proc.stdin.write("\\o /dev/null\n" + (wl["query"](param) + "\n") * runs + "\\o\nSELECT 1;\n")
    proc.stdin.flush()
    proc.stdout.readline()
    perf.send_signal(signal.SIGINT)
    _, err = perf.communicate()
    proc.stdin.close()
    proc.wait()
    counts = {}
    for line in err.splitlines():
        parts = line.split(",")
        if len(parts) >= 3 and re.match(r"^[0-9.]+$", parts[0].strip()):
            counts[parts[2].split(":")[0]] = float(parts[0])
    if not counts:
        return None
    if "instructions" in counts and counts.get("cycles"):
        counts["ipc"] = counts["instructions"] / counts["cycles"]
    counts["runs"] = runs
    return counts


class Session:
    """A psql session of one variant, kept open: executions timed one by one, client side."""

    def __init__(self, variant, wl, param):
        c = variant.cluster
        env = dict(os.environ, PGOPTIONS=session_options(wl, variant, param))
        self.proc = subprocess.Popen(["runuser", "-u", USER, "--", c.bin("psql"), "-X", "-q",
                                      "-At", "-v", "ON_ERROR_STOP=1"] + c.conn_args("bench"),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     env=env)
        self.run("\\o /dev/null")

    def run(self, sql):
        """Milliseconds from sending sql to psql's answer that it is done."""
        start = time.perf_counter()
        self.proc.stdin.write(sql + "\n\\echo __done\n")
        self.proc.stdin.flush()
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("psql session ended: the statement failed")
            if line.strip() == "__done":
                return (time.perf_counter() - start) * 1000.0

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def paired(wl, param, variants, pairs, mode):
    """Executions of the first two variants interleaved one by one, each in its own session
    (A B, then B A, ...), and the median of the pairs' ratios A/B with a bootstrap 95%
    interval: finer than medians of pgbench runs, for differences of a percent or two.
    Cold: the relation is evicted from the page cache before every execution."""
    a, b = Session(variants[0], wl, param), Session(variants[1], wl, param)
    query = wl["query"](param)

    def timed(session, variant):
        if mode == "cold":
            evict_relation(variant.cluster, wl["cold"])
        return session.run(query)

    try:
        a.run(query)
        b.run(query)
        ta, tb = [], []
        for i in range(pairs):
            if i % 2 == 0:
                ta.append(timed(a, variants[0]))
                tb.append(timed(b, variants[1]))
            else:
                tb.append(timed(b, variants[1]))
                ta.append(timed(a, variants[0]))
    finally:
        a.close()
        b.close()
    ratios = [x / y for x, y in zip(ta, tb)]
    rng = random.Random(1)
    boots = sorted(statistics.median(rng.choices(ratios, k=len(ratios))) for _ in range(2000))
    return {"a": variants[0].label, "b": variants[1].label, "pairs": pairs,
            "a_ms": statistics.median(ta), "b_ms": statistics.median(tb),
            "ratio": statistics.median(ratios), "ci_low": boots[49], "ci_high": boots[1950]}


def result_row(wl, param, mode, variant, rounds, lats, tps, memory_kb=None, io=None):
    """One variant's row of results (and its log lines): latency median and range, TPS, the
    plan's memory, and for cold rows the disk reads (disk_reads deltas)."""
    row = {"workload": wl["name"], "param_name": wl["param_name"], "param": param,
           "mode": mode, "variant": variant.label, "rounds": rounds,
           "latency_ms": statistics.median(lats), "latency_min": min(lats),
           "latency_max": max(lats), "tps": tps, "memory_kb": memory_kb}
    if io is not None:
        row["disk_reads"], row["disk_read_kb"] = io_summary(io)
        if row["disk_reads"]:
            log("  %-22s %-8s %-6s %-16s %d read requests of %.1f kB" % (
                wl["name"], param, mode, variant.label, row["disk_reads"], row["disk_read_kb"]))
    log("  %-22s %-8s %-6s %-16s median %9.3f ms  (%9.3f .. %9.3f)  tps %10.2f%s" % (
        wl["name"], param, mode, variant.label, row["latency_ms"], row["latency_min"],
        row["latency_max"], row["tps"],
        "  mem %s kB" % row["memory_kb"] if row["memory_kb"] is not None else ""))
    return row


def measure_cursor(wl, param, variants, rounds):
    """Cold cursor workloads: per execution, open the cursor and move it to the end (reading the
    table forward), evict the table from the page cache, then time the backward move alone."""
    opener, timed, closer = wl["cursor"]
    sessions = [Session(v, wl, param) for v in variants]
    samples = {v.label: [] for v in variants}
    io = {v.label: [] for v in variants}
    try:
        for r in range(rounds + 1):
            order = list(zip(variants, sessions))
            if r % 2 == 1:
                order.reverse()
            for v, sess in order:
                sess.run(opener)
                evict_relation(v.cluster, wl["cold"])
                before = disk_reads(v.cluster)
                ms = sess.run(timed)
                after = disk_reads(v.cluster)
                sess.run(closer)
                if r > 0:           # round 0 is the untimed warm-up
                    samples[v.label].append(ms)
                    io[v.label].append(disk_delta(before, after))
    finally:
        for sess in sessions:
            sess.close()
    return [result_row(wl, param, "cold", v, rounds, samples[v.label],
                       1000.0 / statistics.median(samples[v.label]), io=io[v.label])
            for v in variants]


def with_also(variants, also):
    """The variants with each --also LABEL:OPTIONS inserted after the first: the first's cluster,
    its options plus OPTIONS."""
    extra = []
    for spec in also:
        label, _, opts = spec.partition(":")
        first = variants[0]
        extra.append(Variant(label, first.cluster, (first.options + " " + opts).strip()))
    return variants[:1] + extra + variants[1:]


def measure(wl, clusters, quick, rounds, with_perf, outdir, pairs=0, also=()):
    results = []
    params = wl["params"][1 if quick else 0]
    for c in set(clusters.values()):
        c.restart(wl["settings"])
    last_setup = None
    for param in params:
        variants = with_also(wl["variants"](clusters), also)
        script_path = None
        if "builtin" in wl:
            for c in set(v.cluster for v in variants):
                c.psql("", db="bench")
                as_user([c.bin("pgbench"), "-i", "-q", "-s", str(param)] + c.conn_args("bench"))
        else:
            setup = wl["setup"](param, quick)
            for c in set(v.cluster for v in variants):
                if setup != last_setup:     # the same data as the previous param's: keep it
                    c.psql(setup)
                if wl.get("cold"):
                    # start from empty shared buffers: only the scan's own reads stay there
                    c.restart(wl["settings"])
                if wl.get("prewarm"):
                    c.psql("SELECT count(*) FROM %s" % wl["prewarm"])
            last_setup = setup
            if "cursor" in wl:
                results += measure_cursor(wl, param, variants, rounds)
                continue
            script_path = os.path.join(BASE, "%s-%s.sql" % (wl["name"], param))
            with open(script_path, "w") as f:
                f.write(wl["query"](param) + "\n")
            shutil.chown(script_path, USER)
        modes = ["warm"] + (["cold"] if wl.get("cold") else [])
        for mode in modes:
            samples = {v.label: [] for v in variants}
            io = {v.label: [] for v in variants}
            # warm-up: one untimed pass of every variant
            for v in variants:
                run_pgbench(v, wl, param, True, script_path)
            for r in range(rounds):
                order = variants if r % 2 == 0 else list(reversed(variants))
                for v in order:
                    if mode == "cold":
                        evict_relation(v.cluster, wl["cold"])
                        before = disk_reads(v.cluster)
                        lat, tps = run_pgbench_cold(v, wl, param, script_path)
                        io[v.label].append(disk_delta(before, disk_reads(v.cluster)))
                    else:
                        lat, tps = run_pgbench(v, wl, param, quick, script_path)
                    samples[v.label].append((lat, tps))
            for v in variants:
                lats = [s[0] for s in samples[v.label]]
                tpss = [s[1] for s in samples[v.label]]
                memory, outline = explain_plan(v, wl, param) if mode == "warm" else (None, None)
                row = result_row(wl, param, mode, v, rounds, lats, statistics.median(tpss),
                                 memory, io[v.label] if mode == "cold" else None)
                if outline is not None:
                    row["plan"] = outline
                    log("  %-22s %-8s %-6s %-16s plan: %s" % (wl["name"], param, mode, v.label,
                                                             outline))
                if with_perf and mode == "warm":
                    row["perf"] = perf_counters(v, wl, param, 5 if quick else 20)
                results.append(row)
            if wl.get("floor") and mode == "warm":
                fl = floor_of(clusters["main"], wl["floor"](param), 3 if quick else 7)
                log("  %-22s %-8s floor: %d pages, best %.2f ms (%.2f GB/s), private memory %.2f ms "
                    "(%.2f GB/s)" % (wl["name"], param, fl["pages"], fl["best_ms"], fl["gb_per_s"],
                                     fl["memory_best_ms"], fl["memory_gb_per_s"]))
                for row in results[-len(variants):]:
                    row["floor"] = fl
                    row["floor_ratio"] = row["latency_ms"] / fl["best_ms"] if fl["best_ms"] else None
            if pairs and "builtin" not in wl and len(variants) >= 2:
                # cold executions take seconds each: a quarter as many pairs
                pr = paired(wl, param, variants, pairs if mode == "warm" else max(pairs // 4, 1),
                            mode)
                pr.update({"workload": wl["name"], "param_name": wl["param_name"],
                           "param": param, "mode": mode})
                results[-len(variants)]["paired"] = pr
                log("  %-22s %-8s %-6s paired %s/%s over %d pairs: %.4f (95%% CI %.4f .. %.4f)" % (
                    wl["name"], param, mode, pr["a"], pr["b"], pr["pairs"], pr["ratio"], pr["ci_low"],
                    pr["ci_high"]))
    return results


FLOOR_COLUMNS = ("pages", "best_ms", "median_ms", "gb_per_s", "memory_best_ms",
                 "memory_median_ms", "memory_gb_per_s")


def floor_of(cluster, table, passes):
    """The floor a scan of table is measured against (bench/floor/bench_floor.c): every page
    pinned, share-locked and one word loaded per 64-byte line, best of passes; and the same loads
    over private memory of the table's size.  bench/run installs the module for the server."""
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "floor",
                           "bench_floor.sql")) as f:
        cluster.psql(f.read())
    out = cluster.psql("SELECT %s FROM memprobe_floor('%s', %d)"
                       % (", ".join(FLOOR_COLUMNS), table, passes)).strip()
    vals = out.split("|")
    return {k: (int(v) if k == "pages" else float(v)) for k, v in zip(FLOOR_COLUMNS, vals)}


def run_pgbench_cold(variant, wl, param, script_path):
    """One execution right after evicting the relation: a single transaction."""
    c = variant.cluster
    env = {"PGOPTIONS": session_options(wl, variant, param)}
    res = as_user([c.bin("pgbench"), "-n", "-f", script_path, "-t", "1"] + c.conn_args("bench"),
                  env=env)
    return parse_pgbench(res.stdout)


def ratio_rows(results):
    """Adds 'ratio' (variant latency / first variant's latency) per workload, param and mode."""
    first = {}
    for r in results:
        key = (r["workload"], r["param"], r["mode"])
        first.setdefault(key, r["latency_ms"])
        r["ratio"] = r["latency_ms"] / first[key] if first[key] else None
    return results


def md_table(header, rows, intro=None):
    """Lines of a markdown table (a blank line and INTRO first when given): HEADER's cells and one
    row of cells per item of ROWS."""
    lines = []
    if intro:
        lines += ["", intro, ""]
    lines.append("| %s |" % " | ".join(header))
    lines.append("|" + "---|" * len(header))
    lines += ["| %s |" % " | ".join(str(c) for c in row) for row in rows]
    return lines


def markdown(results, meta):
    def per_run(p, key, fmt="%.0f"):
        return fmt % (p[key] / (p.get("runs") or 1)) if key in p else "-"

    lines = md_table(
        ["workload", "param", "mode", "variant", "median latency ms", "min .. max ms", "median TPS",
         "ratio to first", "memory kB", "instructions/run", "IPC", "branch-misses/run",
         "page-faults/run"],
        [[r["workload"], "%s=%s" % (r["param_name"], r["param"]), r["mode"], r["variant"],
          "%.3f" % r["latency_ms"], "%.3f .. %.3f" % (r["latency_min"], r["latency_max"]),
          "%.2f" % r["tps"], "%.3f" % (r["ratio"] or 0),
          r["memory_kb"] if r["memory_kb"] is not None else "-",
          per_run(r.get("perf") or {}, "instructions"),
          "%.2f" % r["perf"]["ipc"] if "ipc" in (r.get("perf") or {}) else "-",
          per_run(r.get("perf") or {}, "branch-misses"),
          per_run(r.get("perf") or {}, "page-faults")]
         for r in results])
    cold = [r for r in results if r.get("disk_reads")]
    if cold:
        lines += md_table(
            ["workload", "param", "variant", "read requests", "kB per request"],
            [[r["workload"], "%s=%s" % (r["param_name"], r["param"]), r["variant"],
              "%.0f" % r["disk_reads"], "%.1f" % r["disk_read_kb"]] for r in cold],
            intro="Cold executions' reads from the disk (/proc/diskstats of the data "
                  "directory's device, medians per execution): how many read requests, and "
                  "their mean size.")
    floored = [r for r in results if r.get("floor")]
    if floored:
        lines += md_table(
            ["workload", "param", "variant", "median ms", "floor ms", "floor GB/s",
             "memory floor ms", "memory GB/s", "ratio to floor"],
            [[r["workload"], "%s=%s" % (r["param_name"], r["param"]), r["variant"],
              "%.2f" % r["latency_ms"], "%.2f" % r["floor"]["best_ms"],
              "%.2f" % r["floor"]["gb_per_s"], "%.2f" % r["floor"]["memory_best_ms"],
              "%.2f" % r["floor"]["memory_gb_per_s"], "%.2f" % (r["floor_ratio"] or 0)]
             for r in floored],
            intro="Against the floor (`bench/floor`, measured in the same run on the server "
                  "under test, serially): every page of the table pinned, share-locked and one "
                  "8-byte word loaded per 64-byte line, best of the passes; \"memory\" is the "
                  "same loads over private memory of the table's size.  The ratio is the "
                  "variant's median latency over the floor's best (parallel plans too: the "
                  "floor is one process's).")
    planned = [r for r in results if r.get("plan")]
    if planned:
        lines += md_table(
            ["workload", "param", "variant", "plan"],
            [[r["workload"], "%s=%s" % (r["param_name"], r["param"]), r["variant"], r["plan"]]
             for r in planned],
            intro="Plans run (one EXPLAIN ANALYZE per variant and param, after the timed "
                  "rounds): EXPLAIN's node names, parent -> child, with Gather's workers.")
    prs = [r["paired"] for r in results if r.get("paired")]
    if prs:
        lines += md_table(
            ["workload", "param", "mode", "A", "B", "pairs", "A median ms", "B median ms",
             "median A/B", "95% CI"],
            [[pr["workload"], "%s=%s" % (pr["param_name"], pr["param"]), pr["mode"], pr["a"],
              pr["b"], pr["pairs"], "%.3f" % pr["a_ms"], "%.3f" % pr["b_ms"], "%.4f" % pr["ratio"],
              "%.4f .. %.4f" % (pr["ci_low"], pr["ci_high"])] for pr in prs],
            intro="Paired executions (`--paired`): A and B timed one execution at a time, "
                  "interleaved; the median of the pairs' ratios A/B, with a bootstrap 95% "
                  "interval (below 1: A is faster).")
    return "\n".join(lines)


def plot(results, outdir):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log("matplotlib not available: no plots")
        return []
    made = []
    for name in ("material", "deform"):
        rows = [r for r in results if r["workload"] == name and r["mode"] == "warm"]
        if len({r["param"] for r in rows}) < 2:
            continue
        labels = list(dict.fromkeys(r["variant"] for r in rows))
        fig, axes = plt.subplots(1, 2 if len(labels) > 1 else 1, figsize=(11, 4), squeeze=False)
        ax = axes[0][0]
        for label in labels:
            pts = sorted((r["param"], r["latency_ms"]) for r in rows if r["variant"] == label)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=label)
        ax.set_xlabel(rows[0]["param_name"])
        ax.set_ylabel("median latency (ms)")
        if name == "material":
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
        ax.set_title(next(w["title"] for w in WORKLOADS if w["name"] == name), fontsize=8)
        ax.grid(True, alpha=0.3)
        ax.legend()
        if len(labels) > 1:
            # speed of the first variant relative to each other one (>1: the first is faster)
            rx = axes[0][1]
            for label in labels[1:]:
                pts = sorted((r["param"], r["ratio"]) for r in rows if r["variant"] == label)
                rx.plot([p[0] for p in pts], [p[1] for p in pts], marker="o",
                        label="%s latency / %s latency" % (label, labels[0]))
            rx.axhline(1.0, color="grey", linewidth=1)
            rx.set_xlabel(rows[0]["param_name"])
            if name == "material":
                rx.set_xscale("log", base=2)
            rx.set_ylabel("ratio (medians)")
            rx.grid(True, alpha=0.3)
            rx.legend(fontsize=8)
        path = os.path.join(outdir, "%s.png" % name)
        fig.tight_layout()
        fig.savefig(path, dpi=100)
        plt.close(fig)
        made.append(path)
    return made


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bindir")
    ap.add_argument("--core18-bindir", help="a PostgreSQL 18 build: adds its core to the store, deform and parallel workloads")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--rounds", type=int)
    ap.add_argument("--perf", action="store_true")
    ap.add_argument("--paired", type=int, default=0, metavar="N",
                    help="also time N interleaved single executions of the first two variants")
    ap.add_argument("--write-results", action="store_true")
    ap.add_argument("--command", default="bench/run")
    ap.add_argument("--from-json", help="rewrite the table, plots and RESULTS.md from a results.json")
    ap.add_argument("--also", metavar="LABEL:OPTIONS", action="append", default=[],
                    help="adds a variant after each workload's first: its session options plus "
                         "OPTIONS (e.g. 'prefetch off:-c memprobe.streamscan_prefetch=0'); "
                         "--paired then times the first against it")
    ap.add_argument("workloads", nargs="*")
    args = ap.parse_args()

    if args.from_json:
        with open(args.from_json) as f:
            saved = json.load(f)
        table = markdown(saved["results"], saved["meta"])
        plots = plot(saved["results"], os.path.join(HERE, "out"))
        print(table)
        if args.write_results:
            write_results_md(saved["meta"], table, saved["results"], plots, args.command)
        return

    rounds = args.rounds or (1 if args.quick else 5)
    chosen = [w for w in WORKLOADS if not args.workloads or w["name"] in args.workloads]
    unknown = set(args.workloads) - {w["name"] for w in WORKLOADS}
    if unknown:
        sys.exit("unknown workload(s): %s (have: %s)" % (", ".join(sorted(unknown)),
                                                         ", ".join(w["name"] for w in WORKLOADS)))
    if not args.bindir:
        sys.exit("--bindir is required")
    os.makedirs(BASE, exist_ok=True)
    shutil.chown(BASE, USER)
    outdir = os.path.join(HERE, "out")
    os.makedirs(outdir, exist_ok=True)

    clusters = {"main": Cluster(args.bindir, "main", 54991, preload=True)}
    if args.core18_bindir and any(w.get("variants") in (stores_variants, deform_variants,
                                                        parallel_variants) for w in chosen):
        clusters["core18"] = Cluster(args.core18_bindir, "core18", 54993, preload=False)
    if any(w["name"].startswith("pgbench_") for w in chosen):
        clusters["plain"] = Cluster(args.bindir, "plain", 54992, preload=False)
    for c in clusters.values():
        c.init()
        c.start({})
        c.ensure_db()
    version = clusters["main"].psql("SELECT version()", db="postgres").strip()
    main_c = clusters["main"]
    main_c.psql("CREATE EXTENSION IF NOT EXISTS memprobe")

    results = []
    started = time.time()
    try:
        for wl in chosen:
            log("== %s: %s" % (wl["name"], wl["title"]))
            results += measure(wl, clusters, args.quick, rounds, args.perf, outdir, args.paired,
                               args.also)
    finally:
        for c in clusters.values():
            c.stop(quiet=True)
    ratio_rows(results)

    meta = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "server": version, "machine": "%s, %d cores, %s" % (
            platform.machine(), os.cpu_count(), mem_total()),
        "kernel": platform.release(), "rounds": rounds, "quick": args.quick,
        "seconds": round(time.time() - started),
        "settings": "fsync=off, synchronous_commit=off, jit=off, autovacuum=off, "
                    "max_parallel_workers_per_gather=0 (the parallel_* workloads set it per "
                    "param); shared_buffers per workload",
    }
    with open(os.path.join(outdir, "results.json"), "w") as f:
        json.dump({"meta": meta, "results": results}, f, indent=1)
    table = markdown(results, meta)
    plots = plot(results, outdir)
    print(table)
    if args.write_results:
        write_results_md(meta, table, results, plots, args.command)
    log("bench: %d rows in %ds; raw results in %s" % (len(results), meta["seconds"], outdir))


def mem_total():
    with open("/proc/meminfo") as f:
        kb = int(f.readline().split()[1])
    return "%.0f GiB RAM" % (kb / 1024 / 1024)


def write_results_md(meta, table, results, plots, command):
    path = os.path.join(HERE, "RESULTS.md")
    pngs = []
    for p in plots:
        dest = os.path.join(HERE, os.path.basename(p))
        shutil.copy(p, dest)
        pngs.append(os.path.basename(p))
    titles = "\n".join("- `%s`: %s" % (w["name"], w["title"]) for w in WORKLOADS)
    with open(path, "w") as f:
        f.write("# memprobe benchmark results\n\n")
        f.write("Reproduce (as root, from the repository root):\n\n```sh\n%s\n```\n\n" % command)
        f.write("- date: %s\n- server: %s\n- machine: %s, kernel %s\n- %s\n"
                "- rounds per variant: %d (alternating A B A B), medians; one untimed warm-up pass\n"
                "- run took %d s\n\n" % (meta["date"], meta["server"], meta["machine"],
                                         meta["kernel"], meta["settings"], meta["rounds"],
                                         meta["seconds"]))
        f.write("Workloads:\n\n%s\n\n" % titles)
        f.write("Variants: features that have not landed yet are measured as `core` only "
                "(what stock PostgreSQL does, the baseline their A/B will use). "
                "\"ratio to first\" is the variant's median latency over the first variant's. "
                "\"memory kB\" is EXPLAIN's Maximum Storage where the plan reports one "
                "(core PostgreSQL 15 reports none). Cold rows evict the table from the OS page "
                "cache (posix_fadvise DONTNEED) before each execution.\n\n")
        f.write(table + "\n")
        for p in pngs:
            f.write("\n![%s](%s)\n" % (p, p))


if __name__ == "__main__":
    main()
