#!/usr/bin/env python3
"""Holds COUNT Server-Sent-Events streams open on one Weft, for ./weft bench hold (seed 004).

usage: holdsse.py HOST PORT COUNT PATH HOLD_S
Environment: WEFT_AUTH, the Authorization header value.
Each connection sends GET PATH with Accept: text/event-stream and waits for the 200 head (Weft
puts an SSE stream on the wire at once). Prints "ready OK FAILED" once every connection has its
head, keeps all of them open HOLD_S seconds more (reading and dropping heartbeats), then closes
them and exits. Python asyncio: one process holds a few thousand idle sockets at a small cost;
the bench runs several processes because of the 20,000 open files limit per process.
"""
import asyncio
import os
import resource
import sys


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


async def drain(reader):
    try:
        while await reader.read(4096):
            pass
    except Exception:
        pass


async def main():
    host, port, count, path, hold = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], float(sys.argv[5])
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
    print(f"ready {len(held)} {len(failed)}", flush=True)
    readers = [asyncio.ensure_future(drain(r)) for r, _ in held]
    await asyncio.sleep(hold)
    for _, w in held:
        w.close()
    for t in readers:
        t.cancel()
    print("closed", flush=True)


if __name__ == "__main__":
    asyncio.run(main())
