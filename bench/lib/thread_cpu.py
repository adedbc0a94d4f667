#!/usr/bin/env python3
"""CPU time of a process's threads by group, from /proc/PID/task/*/stat.

  thread_cpu.py PID snap FILE     saves every thread's user+system ticks
  thread_cpu.py PID diff FILE     prints the ms each group used since, e.g.
                                  "vthreads=390 writer=450 jit=480 gc=80 ... total=1440ms"
Groups: request threads (Weft's virtual threads run on ForkJoinPool carriers: "vthreads"), the
SQLite writer, the JIT compilers, the collector; others by their thread name.
"""
import json
import os
import sys

GROUPS = (("weft-sqlite-wri", "writer"), ("weft-sqlite-che", "checkpointer"), ("weft-req", "request"), ("C2", "jit"),
          ("C1", "jit"), ("GC", "gc"), ("VM Thread", "gc"), ("ForkJoin", "vthreads"))


def snap(pid):
    out = {}
    for t in os.listdir(f"/proc/{pid}/task"):
        try:
            s = open(f"/proc/{pid}/task/{t}/stat").read()
        except OSError:
            continue
        name = s[s.index("(") + 1:s.rindex(")")]
        f = s[s.rindex(")") + 2:].split()
        out[t] = (name, int(f[11]) + int(f[12]))
    return out


def group(name):
    return next((g for k, g in GROUPS if k in name), name)


pid, cmd, path = sys.argv[1], sys.argv[2], sys.argv[3]
if cmd == "snap":
    json.dump(snap(pid), open(path, "w"))
else:
    before, after, tick = json.load(open(path)), snap(pid), 1000 / os.sysconf("SC_CLK_TCK")
    ms = {}
    for t, (name, ticks) in after.items():
        d = ticks - (before[t][1] if t in before else 0)
        if d:
            ms[group(name)] = ms.get(group(name), 0) + d * tick
    print(" ".join(f"{k}={v:.0f}" for k, v in sorted(ms.items(), key=lambda x: -x[1])), f"total={sum(ms.values()):.0f}ms")
