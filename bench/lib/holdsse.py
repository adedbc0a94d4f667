#!/usr/bin/env python3
"""Holds COUNT Server-Sent-Events streams open on one Weft, for ./weft bench hold (seed 004).

usage: holdsse.py HOST PORT COUNT PATH HOLD_S [START_FILE]
Environment: WEFT_AUTH, the Authorization header value.
Each connection sends GET PATH with Accept: text/event-stream and waits for the 200 head (Weft
puts an SSE stream on the wire at once). Prints "ready OK FAILED" once every connection has its
head. Then, when START_FILE is given, waits until that file exists (so that the streams of every
load process are held over the same window), keeps all of them open HOLD_S seconds more
(reading heartbeats and events), closes them and prints "closed EVENTS STREAMS": the SSE events
(data: lines) received in all, and on how many streams at least one arrived. Python asyncio: one
process holds a few thousand idle sockets at a small cost; the bench runs several processes
because of the 20,000 open files limit per process.
"""
import asyncio
import os
import resource
import sys

MARK = b"data: "


async def one(host, port, path, auth, sem, held):
    async with sem:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), 60)
        writer.write((f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: text/event-stream\r\n"
                      f"Authorization: {auth}\r\n\r\n").encode())
        await writer.drain()
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 60)
        if not head.startswith(b"HTTP/1.1 200"):
            writer.close()
            raise RuntimeError(head[:60])
        held.append((reader, writer))


def count_events(tail, data):
    """Occurrences of MARK in tail + data (tail: the last len(MARK) - 1 bytes read before)."""
    buf = tail + data
    return buf.count(MARK), buf[-(len(MARK) - 1):]


async def drain(reader, counts, i):
    tail = b""
    try:
        while True:
            data = await reader.read(4096)
            if not data:
                return
            n, tail = count_events(tail, data)
            counts[i] += n
    except Exception:
        pass


async def main():
    host, port, count, path, hold = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], float(sys.argv[5])
    start_file = sys.argv[6] if len(sys.argv) > 6 else None
    auth = os.environ.get("WEFT_AUTH", "")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    sem = asyncio.Semaphore(100)
    held = []
    results = await asyncio.gather(*(one(host, port, path, auth, sem, held) for _ in range(count)),
                                   return_exceptions=True)
    failed = [r for r in results if isinstance(r, BaseException)]
    if failed:
        print(f"holdsse: {len(failed)} failed, first: {failed[0]!r}", file=sys.stderr)
    counts = [0] * len(held)
    readers = [asyncio.ensure_future(drain(r, counts, i)) for i, (r, _) in enumerate(held)]
    print(f"ready {len(held)} {len(failed)}", flush=True)
    if start_file:
        while not os.path.exists(start_file):
            await asyncio.sleep(0.1)
    await asyncio.sleep(hold)
    for _, w in held:
        w.close()
    for t in readers:
        t.cancel()
    print(f"closed {sum(counts)} {sum(1 for c in counts if c)}", flush=True)


if __name__ == "__main__":
    asyncio.run(main())
