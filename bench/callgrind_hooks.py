#!/usr/bin/env python3
"""bench/callgrind_hooks.py FEW.out MANY.out STATEMENTS [OBJECT]

Where memprobe's instructions per statement go, hook by hook, from two callgrind profiles of the
same single-user backend run (bench/callgrind --oltp writes them): one with few statements, one
with STATEMENTS more.  For each function of OBJECT (default memprobe.so) that core calls (a
hook, a callback, anything entered from outside memprobe; and a hook that the hook before it
calls through its prev_ pointer, known by its name), its instructions are its own plus
those of everything it calls, less the calls that go on down the hook chain: core's standard_*
functions, core's planner, and the next hook in the chain (another such memprobe function),
also where a helper of memprobe's own that it calls makes them (counted the same way).  So
each line is what that hook adds, and the lines add up to memprobe's cost.  The difference
between the two profiles divided by STATEMENTS is the cost of one statement, without startup.

Prints a markdown table: hook, Ir per statement, calls per statement.
"""
import re
import sys
from collections import defaultdict


def parse(path, obj_pattern):
    """(self_ir, calls, obj_of): self instructions per function, inclusive instructions of each
    call edge (caller, callee) -> [Ir, count], and each function's object."""
    names = {}          # compressed id -> name, per kind ("fn", "ob", "fl")
    self_ir = defaultdict(int)
    calls = defaultdict(lambda: [0, 0])
    obj_of = {}
    events = None
    cur_fn = None
    cur_ob = None
    call_target = None
    call_ob = None
    call_count = 0
    pending_call = False

    def name(kind, value):
        m = re.match(r"\((\d+)\)(?:\s+(.*))?$", value)
        if not m:
            return value
        key = (kind, m.group(1))
        if m.group(2) is not None:
            names[key] = m.group(2)
        return names.get(key, value)

    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("events:"):
                events = line.split()[1:]
                continue
            if line.startswith("ob="):
                cur_ob = name("ob", line[3:])
                continue
            if line.startswith("fn="):
                cur_fn = name("fn", line[3:])
                obj_of.setdefault(cur_fn, cur_ob)
                continue
            if line.startswith("cob="):
                call_ob = name("ob", line[4:])
                continue
            if line.startswith("cfn="):
                call_target = name("fn", line[4:])
                if call_ob is not None:
                    obj_of.setdefault(call_target, call_ob)
                continue
            if line.startswith("calls="):
                call_count = int(line[6:].split()[0])
                pending_call = True
                continue
            if line and (line[0].isdigit() or line[0] in "+-*"):
                parts = line.split()
                ir = int(parts[1]) if len(parts) > 1 and parts[1].lstrip("-").isdigit() else 0
                if pending_call:
                    edge = calls[(cur_fn, call_target)]
                    edge[0] += ir
                    edge[1] += call_count
                    pending_call = False
                    call_ob = None
                elif cur_fn is not None:
                    self_ir[cur_fn] += ir
                continue
            if line.startswith(("fl=", "fi=", "fe=", "cfi=", "cfl=")):
                name("fl", line.split("=", 1)[1])
    return self_ir, calls, obj_of


def hook_costs(path, obj_pattern):
    self_ir, calls, obj_of = parse(path, obj_pattern)
    ours = {fn for fn, ob in obj_of.items() if ob and re.search(obj_pattern, ob)}
    # entered from outside memprobe (called by a function not of the object), or a hook that the
    # hook before it in the chain calls through its prev_ pointer (by name)
    hook_name = re.compile(r"(_planner|_executor_(start|run|finish|end)|_process_utility"
                           r"|_post_parse_analyze|_set_rel_pathlist|_emit_log|_xact_callback"
                           r"|_subxact_callback)$")
    entries = {callee for (caller, callee) in calls
               if callee in ours and (caller not in ours or hook_name.search(callee))}
    chain = lambda fn: fn in entries or fn.startswith("standard_") or fn == "planner"
    calls_of = defaultdict(int)
    for (caller, callee), (_, c) in calls.items():
        calls_of[callee] += c
    memo = {}

    def own_cost(fn, depth=0):
        # fn's instructions less the chain's below it; a function of memprobe's own that fn
        # calls (a helper the compiler kept out of line, which may call down the chain itself)
        # counts the same way, shared among its callers by their calls
        if fn in memo:
            return memo[fn]
        ir = self_ir.get(fn, 0)
        for (caller, callee), (cir, c) in calls.items():
            if caller != fn or chain(callee):
                continue
            if callee in ours and callee != fn and depth < 20 and calls_of[callee] > 0:
                ir += own_cost(callee, depth + 1) * c / calls_of[callee]
            else:
                ir += cir
        memo[fn] = ir
        return ir

    cost = {}
    count = {}
    for fn in entries:
        cost[fn] = own_cost(fn)
        count[fn] = calls_of[fn]
    return cost, count


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    few, many, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    obj = sys.argv[4] if len(sys.argv) > 4 else r"memprobe\.so"
    c1, n1 = hook_costs(few, obj)
    c2, n2 = hook_costs(many, obj)
    rows = []
    for fn in set(c1) | set(c2):
        per = (c2.get(fn, 0) - c1.get(fn, 0)) / n
        calls = (n2.get(fn, 0) - n1.get(fn, 0)) / n
        if calls > 0 or abs(per) >= 1:
            rows.append((per, calls, fn))
    rows.sort(reverse=True)
    print("| memprobe function entered from core | Ir per statement | calls per statement |")
    print("|---|---|---|")
    for per, calls, fn in rows:
        print("| `%s` | %.0f | %.2f |" % (fn, per, calls))
    print("| all | %.0f | |" % sum(r[0] for r in rows))


if __name__ == "__main__":
    main()
