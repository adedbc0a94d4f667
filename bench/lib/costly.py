"""The delay one subscriber's costly filter causes another (bench streams --costly).

usage: costly.py BASE_URL AUTH_HEADER DOCS ELEMENTS
Opens an SSE stream on /bench/costly with filter {"arr": {"$in": [450 values]}} and one on
/bench/probe (no filter), POSTs DOCS documents of an ELEMENTS-number array to /bench/costly, then
one document to /bench/probe, and prints "delay_ms MS costly_end REASON": the time from the probe
POST's answer to its event's receipt, and how the costly stream ended (or "open").
"""
import http.client, json, sys, threading, time, urllib.parse

base, auth, docs, elements = sys.argv[1], sys.argv[2].removeprefix("Authorization: "), int(sys.argv[3]), int(sys.argv[4])
host = urllib.parse.urlparse(base)

def stream(path, on_event, on_close):
    c = http.client.HTTPConnection(host.hostname, host.port, timeout=600)
    c.request("GET", path, headers={"Accept": "text/event-stream", "Authorization": auth})
    r = c.getresponse()
    assert r.status == 200, (path, r.status, r.read())
    def read():
        event = ""
        try:
            for raw in r:
                line = raw.decode().rstrip("\n")
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: "):
                    (on_close if event == "close" else on_event)(json.loads(line[6:]))
                elif not line:
                    event = ""
        except Exception:
            pass
        on_close(None)
    threading.Thread(target=read, daemon=True).start()

def post(path, body):
    c = http.client.HTTPConnection(host.hostname, host.port, timeout=600)
    c.request("POST", path, body=body, headers={"Content-Type": "application/json", "Authorization": auth})
    r = c.getresponse(); r.read()
    assert r.status == 201, (path, r.status)

got = threading.Event(); closed = []
values = ",".join(str(1_000_000_000 + i) for i in range(450))
stream("/bench/costly/_streams?filter=" + urllib.parse.quote('{"arr":{"$in":[' + values + ']}}'),
       lambda e: None, lambda d: closed.append(d))
stream("/bench/probe/_streams", lambda e: got.set(), lambda d: None)
time.sleep(0.5)
big = '{"arr":[' + ",".join(str(i % 1000) for i in range(elements)) + ']}'
for _ in range(docs):
    post("/bench/costly", big)
start = time.monotonic()
post("/bench/probe", '{"probe":1}')
got.wait(120)
delay = (time.monotonic() - start) * 1000
time.sleep(0.5)
end = closed[0] if closed else "open"
print(f"delay_ms {delay:.0f} costly_end {json.dumps(end)}")
