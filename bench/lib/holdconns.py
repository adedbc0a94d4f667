#!/usr/bin/env python3
"""Opens N keep-alive HTTP/1.1 connections, sends GET PATH on each (REQUESTS times in turn, each
after the previous answer has been read in full), and keeps every connection open and idle.

usage: holdconns.py HOST PORT COUNT [PATH] [--requests K] [--header 'Name: value']... [--auth]
                    [--hold S [--start-file FILE]]
  --requests  GETs per connection, one after the other (1)
  --header    a request header besides Host (repeatable)
  --auth      adds Authorization: $WEFT_AUTH (from the environment, as holdsse.py)
  --hold      once ready (and START_FILE exists, when given), holds S seconds more, closes every
              connection and prints "closed N"; without it the connections stay open until killed
Prints "ready OK FAILED" on stdout once every connection has had its answers.
Used by bench/http-candidates/run (one GET of /, no header) and ./weft bench hold --kind keepalive.
"""
import argparse
import asyncio
import os
import resource
import sys


async def get(reader, writer, request):
    """Sends one request and reads its answer in full (Content-Length bodies); fails unless 200."""
    writer.write(request)
    await writer.drain()
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":", 1)[1])
    await asyncio.wait_for(reader.readexactly(length), 30)
    if not head.startswith(b"HTTP/1.1 200"):
        raise RuntimeError(head[:60])


async def one(host, port, request, requests, sem, held):
    async with sem:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), 30)
        try:
            for _ in range(requests):
                await get(reader, writer, request)
        except BaseException:
            writer.close()
            raise
        held.append(writer)


async def wait_for_file(path):
    """Waits until PATH exists: the load processes of one round then hold over the same window."""
    while not os.path.exists(path):
        await asyncio.sleep(0.1)


async def main():
    p = argparse.ArgumentParser()
    p.add_argument("host"); p.add_argument("port", type=int); p.add_argument("count", type=int)
    p.add_argument("path", nargs="?", default="/")
    p.add_argument("--requests", type=int, default=1)
    p.add_argument("--header", action="append", default=[])
    p.add_argument("--auth", action="store_true")
    p.add_argument("--hold", type=float)
    p.add_argument("--start-file")
    a = p.parse_args()
    headers = [f"Host: {a.host}:{a.port}"] + a.header
    if a.auth:
        headers.append(f"Authorization: {os.environ['WEFT_AUTH']}")
    request = (f"GET {a.path} HTTP/1.1\r\n" + "".join(h + "\r\n" for h in headers) + "\r\n").encode()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    sem = asyncio.Semaphore(200)
    held = []
    results = await asyncio.gather(*(one(a.host, a.port, request, a.requests, sem, held) for _ in range(a.count)),
                                   return_exceptions=True)
    failed = [r for r in results if isinstance(r, BaseException)]
    if failed:
        print(f"holdconns: {len(failed)} failed, first: {failed[0]!r}", file=sys.stderr)
    print(f"ready {len(held)} {len(failed)}", flush=True)
    if a.hold is None:
        await asyncio.Event().wait()
    if a.start_file:
        await wait_for_file(a.start_file)
    await asyncio.sleep(a.hold)
    for w in held:
        w.close()
    print(f"closed {len(held)}", flush=True)


if __name__ == "__main__":
    asyncio.run(main())
