#!/usr/bin/env python3
# usage: python3 bench/lib/page_layout.py [N]  (decision 0006: SQLite page size and table layout, no Weft in the way)
# Page size / layout measurement on SQLite itself (python's sqlite3), YCSB-like ~1.1 KB bodies.
import sqlite3, os, time, random, sys
N = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
print("sqlite", sqlite3.sqlite_version, "N", N, "rows of ~1.1 KB")
random.seed(1)
alpha = "abcdefghijklmnopqrstuvwxyz."
bodies = [("{" + ",".join('"field%d":"%s"' % (k, "".join(random.choice(alpha) for _ in range(100))) for k in range(10)) + "}").encode() for _ in range(2000)]
def run(page, layout):
    path = "" + os.environ.get("TMPDIR", "/tmp") + "/page-layout-%d-%s.db" % (page, layout)
    for s in ("", "-wal", "-shm"):
        if os.path.exists(path + s): os.remove(path + s)
    c = sqlite3.connect(path, isolation_level=None)
    c.execute("PRAGMA page_size=%d" % page)
    c.execute("PRAGMA journal_mode=WAL"); c.execute("PRAGMA synchronous=FULL"); c.execute("PRAGMA cache_size=-16000")
    if layout == "worowid":
        c.execute("CREATE TABLE d(id BLOB PRIMARY KEY, body BLOB NOT NULL) WITHOUT ROWID")
    else:
        c.execute("CREATE TABLE d(rid INTEGER PRIMARY KEY, id BLOB NOT NULL UNIQUE, body BLOB NOT NULL)")
    ins = "INSERT INTO d(id, body) VALUES(?, ?)"
    t = time.time()
    for b in range(0, N, 1000):  # bulk load: 1000-row transactions
        c.execute("BEGIN")
        c.executemany(ins, [(("user%d" % random.randrange(10**12)).encode(), bodies[i % 2000]) for i in range(b, b + 1000)])
        c.execute("COMMIT")
    load = time.time() - t
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = os.path.getsize(path)
    ids = [r[0] for r in c.execute("SELECT id FROM d LIMIT 2000")]
    t = time.time()  # single-row update transactions (fsync each: synchronous=FULL)
    for i in range(500):
        c.execute("UPDATE d SET body=? WHERE id=?", (bodies[(i * 7) % 2000], ids[i % 2000]))
    upd = 500 / (time.time() - t)
    walsize = os.path.getsize(path + "-wal")
    t = time.time()
    for i in range(500):
        c.execute("INSERT INTO d(id, body) VALUES(?, ?)", (("new%d" % i).encode(), bodies[i % 2000]))
    ins1 = 500 / (time.time() - t)
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    c.close()
    c = sqlite3.connect(path); c.execute("PRAGMA mmap_size=268435456")
    scans = []
    for r in range(3):
        t = time.time(); c.execute("SELECT sum(instr(body, X'213f')) FROM d").fetchone(); scans.append(time.time() - t)
    ov = c.execute("SELECT count(*) FROM dbstat WHERE pagetype='overflow'").fetchone()[0] if False else None
    c.close()
    print("page %5d %-8s file %6.1f MB  load %5.2f s (%6.0f rows/s)  1-row updates %5.0f/s  1-row inserts %5.0f/s  wal after 500 upd %5.1f MB  scan min %.3f s max %.3f s" % (
        page, layout, size / 1e6, load, N / load, upd, ins1, walsize / 1e6, min(scans), max(scans)))
    sys.stdout.flush()
    for s in ("", "-wal", "-shm"):
        if os.path.exists(path + s): os.remove(path + s)
for rep in range(2):
    print("round", rep + 1, "uptime:", open("/proc/loadavg").read().strip())
    for page in (4096, 8192, 16384, 32768, 65536):
        run(page, "worowid")
    for page in (4096, 16384):
        run(page, "rowid")
