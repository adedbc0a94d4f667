#!/usr/bin/env python3
"""Where the time goes: aggregates `jfr print --events jdk.ExecutionSample,jdk.NativeMethodSample`.

  jfr print ... | jfr_top.py N
Prints the N most sampled top frames (method, share of samples) and the N most sampled Weft
frames (the first dev.weft frame of each stack: which of Weft's own code the time is under).
"""
import collections
import re
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 12
# Native samples of threads that wait (selector, acceptor, parked) are idle time, not work.
IDLE = ("sun.nio.ch.EPoll.wait", "sun.nio.ch.Net.accept", "sun.nio.ch.Net.poll", "jdk.internal.misc.Unsafe.park",
        "java.lang.Object.wait", "java.lang.Thread.sleep")
idle = 0
top = collections.Counter()
weft = collections.Counter()
samples = 0
stack = None
frame_re = re.compile(r"^\s+([\w$.<>/]+)\(")
for line in sys.stdin:
    if "stackTrace = [" in line:
        stack = []
        continue
    if stack is not None:
        if line.strip().startswith("]") or line.strip() == "...":
            if stack and stack[0].startswith(IDLE):
                idle += 1
            elif stack:
                samples += 1
                top[stack[0]] += 1
                own = next((f for f in stack if f.startswith("dev.weft.")), "(no Weft frame)")
                weft[own] += 1
            stack = None
            continue
        m = frame_re.match(line)
        if m:
            stack.append(m.group(1))
if samples == 0:
    print("  (no samples)")
    sys.exit(0)
print(f"  {samples} samples of work ({idle} of waiting threads left out); top frames:")
for f, c in top.most_common(n):
    print(f"  {100.0 * c / samples:5.1f}%  {f}")
print("  innermost Weft frame:")
for f, c in weft.most_common(n):
    print(f"  {100.0 * c / samples:5.1f}%  {f}")
