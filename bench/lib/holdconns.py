#!/usr/bin/env python3
"""Opens N keep-alive HTTP/1.1 connections, sends one GET on each, reads the full answer, and
keeps every connection open until killed.

usage: holdconns.py HOST PORT COUNT [PATH]
Prints "ready OK FAILED" on stdout once every connection has had its answer, then sleeps.
"""
import asyncio
import resource
import sys


async def one(host, port, path, sem, held):
    async with sem:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), 30)
        writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
        await writer.drain()
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
        length = 0
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":", 1)[1])
        await asyncio.wait_for(reader.readexactly(length), 30)
        if not head.startswith(b"HTTP/1.1 200"):
            raise RuntimeError(head[:40])
        held.append(writer)


async def main():
    host, port, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    path = sys.argv[4] if len(sys.argv) > 4 else "/"
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    sem = asyncio.Semaphore(200)
    held = []
    results = await asyncio.gather(*(one(host, port, path, sem, held) for _ in range(count)),
                                   return_exceptions=True)
    failed = [r for r in results if isinstance(r, BaseException)]
    if failed:
        print(f"holdconns: {len(failed)} failed, first: {failed[0]!r}", file=sys.stderr)
    print(f"ready {len(held)} {len(failed)}", flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main())
