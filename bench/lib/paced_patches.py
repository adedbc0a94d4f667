#!/usr/bin/env python3
"""Sends PATCH {"$set":{"stars":k}} to random documents at a fixed rate, on one keep-alive connection.

  paced_patches.py URL_PREFIX IDS_FILE RATE SECONDS AUTH_HEADER_VALUE
URL_PREFIX is http://host:port/db/coll; IDS_FILE one id per line. Prints "sent=N ok=N late=N" at the
end of SECONDS or on SIGTERM (the caller stops it when its measured row ends).
"""
import http.client
import json
import random
import signal
import sys
import time
import urllib.parse

prefix, ids_file, rate, seconds, auth = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
ids = [line.strip() for line in open(ids_file) if line.strip()]
url = urllib.parse.urlsplit(prefix)
conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
rnd = random.Random(7)
sent = ok = late = 0
start = time.monotonic()


def report(*_):
    print(f"sent={sent} ok={ok} late={late} seconds={time.monotonic() - start:.1f}", flush=True)
    sys.exit(0)


signal.signal(signal.SIGTERM, report)
while True:
    due = start + sent / rate
    now = time.monotonic()
    if now - start >= seconds:
        break
    if due > now:
        time.sleep(due - now)
    elif now - due > 1.0 / rate:
        late += 1
    body = json.dumps({"$set": {"stars": rnd.randrange(10000)}})
    headers = {"Content-Type": "application/json", "Authorization": auth}
    conn.request("PATCH", url.path + "/" + rnd.choice(ids), body, headers)
    r = conn.getresponse()
    r.read()
    sent += 1
    ok += 1 if 200 <= r.status < 300 else 0
report()
