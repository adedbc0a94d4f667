#!/usr/bin/env python3
"""What reading 512 change events after a seq costs PostgreSQL, per layout of the event log.

Usage: python3 bench/lib/pg-event-reads.py POSTGRESQL_URL [EVENTS] [WINDOWS] [--jit] [--reuse]

Builds schema weft_event_reads holding EVENTS (default 100,000) events of about 2 KB (document
and previous document, 1 KB each), in three layouts: version 1 (the seq in the event row, an
index on it), the narrow seq rows of version 2/3 with ids following each other, and the same with the
ids broken into runs of 7 (every 8th id missing, as rolled-back or late ids do). Then, for
WINDOWS (default 40) random positions, interleaved, runs EXPLAIN (ANALYZE, BUFFERS) of each
statement (TIMING OFF: per-node clocks would tax the plan with more nodes) as a generic prepared plan (what a node runs once PgJDBC prepares on the server) and
prints the median execution time and buffer accesses. JIT is off, as on Weft's connections
(PgConnections), unless --jit is given; --reuse keeps the schema of the last run. The statements are copies of
PgEventLog's: "join" is its reader before 2026-11-27's run reads, "groups" its EVENTS_AFTER.
"""
import re
import statistics
import subprocess
import sys
import random

ARGS = [a for a in sys.argv[1:] if not a.startswith("--")]
URL = ARGS[0]
EVENTS = int(ARGS[1]) if len(ARGS) > 1 else 100_000
WINDOWS = int(ARGS[2]) if len(ARGS) > 2 else 40
COLS = "at, db, coll, op, key, doc, pre, upd"


def psql(sql):
    return subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", URL], input=sql, text=True,
                          capture_output=True, check=True).stdout


def build():
    psql(f"""
DROP SCHEMA IF EXISTS weft_event_reads CASCADE; CREATE SCHEMA weft_event_reads; SET search_path = weft_event_reads;
CREATE TABLE weft_events(id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, at bigint NOT NULL, db text NOT NULL,
  coll text NOT NULL, op smallint NOT NULL, key bytea NOT NULL, doc bytea, pre bytea, upd bytea, schema_version smallint NOT NULL);
INSERT INTO weft_events(at, db, coll, op, key, doc, pre, schema_version)
SELECT 1700000000000 + g, 'ycsb', 'usertable', 1, convert_to('"user' || g || '"', 'UTF8'),
  convert_to((SELECT string_agg(md5(random()::text || g || i), '') FROM generate_series(1, 32) i), 'UTF8'),
  convert_to((SELECT string_agg(md5(random()::text || g || i || 'p'), '') FROM generate_series(1, 32) i), 'UTF8'), 3
FROM generate_series(1, {EVENTS}) g;
CREATE TABLE weft_event_seqs(seq bigint PRIMARY KEY, id bigint NOT NULL UNIQUE);
INSERT INTO weft_event_seqs SELECT id, id FROM weft_events;
CREATE TABLE broken_seqs(seq bigint PRIMARY KEY, id bigint NOT NULL UNIQUE);
INSERT INTO broken_seqs SELECT row_number() OVER (ORDER BY id), id FROM weft_events WHERE id % 8 <> 0;
CREATE TABLE v1_events AS SELECT id, id AS seq, {COLS} FROM weft_events;
ALTER TABLE v1_events ADD PRIMARY KEY (id); CREATE UNIQUE INDEX ON v1_events(seq);
VACUUM ANALYZE;
""")


def join(seqs):
    return (f"SELECT s.seq, e.at, e.db, e.coll, e.op, e.key, e.doc, e.pre, e.upd FROM {seqs} s JOIN weft_events e"
            f" ON e.id = s.id WHERE s.seq > $1 ORDER BY s.seq LIMIT $2")


def groups(seqs):
    return (f"WITH s AS MATERIALIZED (SELECT seq, id FROM {seqs} WHERE seq > $1 ORDER BY seq LIMIT $2),"
            " g AS (SELECT id - seq AS d, min(id) AS lo, max(id) AS hi, count(*) = max(id) - min(id) + 1 AS whole"
            " FROM s GROUP BY id - seq)"
            " SELECT e.id - g.d AS seq, e.at, e.db, e.coll, e.op, e.key, e.doc, e.pre, e.upd FROM g JOIN LATERAL"
            " (SELECT * FROM weft_events e WHERE e.id >= g.lo ORDER BY e.id LIMIT g.hi - g.lo + 1) e ON true WHERE g.whole"
            " UNION ALL SELECT s.seq, e.at, e.db, e.coll, e.op, e.key, e.doc, e.pre, e.upd"
            " FROM g JOIN s ON s.id - s.seq = g.d JOIN weft_events e ON e.id = s.id WHERE NOT g.whole")


SHAPES = {
    "v1: seq in the event row": f"SELECT seq, {COLS} FROM v1_events WHERE seq > $1 ORDER BY seq LIMIT $2",
    "join, one run": join("weft_event_seqs"),
    "groups, one run": groups("weft_event_seqs"),
    "join, runs of 7": join("broken_seqs"),
    "groups, runs of 7": groups("broken_seqs"),
}


def main():
    if "--reuse" not in sys.argv:
        build()
    names = list(SHAPES)
    # jit off as on Weft's connections (PgConnections); "--jit" measures with the server's setting
    jit = [] if "--jit" in sys.argv else ["SET jit = off;"]
    script = ["SET search_path = weft_event_reads;", "SET plan_cache_mode = force_generic_plan;"] + jit
    for i, name in enumerate(names):
        script.append(f"PREPARE q{i}(bigint, int) AS {SHAPES[name]};")
    rng = random.Random(1)
    top = EVENTS * 7 // 8 - 600
    for _ in range(WINDOWS):
        after = rng.randint(1, top)
        for i in range(len(names)):
            script.append(f"EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, COSTS OFF) EXECUTE q{i}({after}, 512);")
    out = psql("\n".join(script))
    times = [float(t) for t in re.findall(r"Execution Time: ([\d.]+)", out)]
    buffers = []
    for plan in re.split(r"Execution Time: [\d.]+ ms\n?", out)[:-1]:
        first = re.search(r"Buffers: shared ((?:hit|read)=\d+(?: (?:hit|read)=\d+)*)", plan)
        buffers.append(sum(int(n) for n in re.findall(r"=(\d+)", first.group(1))) if first else 0)
    print(f"{EVENTS} events, {WINDOWS} windows of 512 after a random seq, generic plans, EXPLAIN (ANALYZE, BUFFERS, TIMING OFF),"
          f" jit {'as the server has it' if jit == [] else 'off'}")
    print(f"{'statement':<28} {'median ms':>10} {'min ms':>8} {'buffers':>8}")
    for i, name in enumerate(names):
        t = times[i::len(names)]
        b = buffers[i::len(names)]
        print(f"{name:<28} {statistics.median(t):>10.3f} {min(t):>8.3f} {int(statistics.median(b)):>8}")


if __name__ == "__main__":
    main()
