#!/usr/bin/env python3
"""SQLite FTS5's answer time for bench/search's $text rows: reads the ndjson docs {"title","body"} on
stdin into an FTS5 table (porter stemmer, diacritics removed), then for each argument (words) prints
the median ms of MATCH 'w1 OR w2' ORDER BY bm25 (title weighing 10) LIMIT 100 (runs 3-5 of 5).

  fts_reference.py DB_FILE "w1 w2" ["w3 w4" ...] < docs.ndjson
"""
import json
import sqlite3
import statistics
import sys
import time

db = sqlite3.connect(sys.argv[1])
db.execute("CREATE VIRTUAL TABLE t USING fts5(title, body, tokenize='porter unicode61 remove_diacritics 2')")
db.executemany("INSERT INTO t(title, body) VALUES (?, ?)", ((d["title"], d["body"]) for d in map(json.loads, sys.stdin)))
db.commit()
for words in sys.argv[2:]:
    q = " OR ".join(words.split())
    runs = []
    for _ in range(5):
        t = time.perf_counter()
        db.execute("SELECT rowid, title FROM t WHERE t MATCH ? ORDER BY bm25(t, 10.0, 1.0) LIMIT 100", (q,)).fetchall()
        runs.append((time.perf_counter() - t) * 1000)
    print("%.1f" % statistics.median(runs[2:]))
