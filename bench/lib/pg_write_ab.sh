#!/usr/bin/env bash
# Issue 17 (4): YCSB workload A on PostgreSQL, build against build (A, B, A, B), each run on a
# throwaway PostgreSQL of its own with pg_stat_statements (so no build inherits the tables another
# left): loads the 100,000 records of ~1 KB, warms Weft with workload A (WARMUP s), and measures
# DURATION s of it (wrk -t2 -c128): ops/s, p99, CPU ms per operation of Weft's JVM, of all
# PostgreSQL processes and of the event reader's backend alone (the one that runs the sequencer),
# the sequencer statement's calls, mean ms and shared buffers per call (steadier than time on a
# shared machine), the pending table's size, and the load average.
#   pg_write_ab.sh ROUNDS NAME=JAR[:ARGS] ...
set -euo pipefail
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
source "$REPO/bench/lib/common.sh"
export WEFT_ADMIN_PASSWORD=pgwriteab-pass-1
WARMUP=${WARMUP:-10}
rounds=$1; shift
BENCH_CMD=bench/lib/pg_write_ab.sh bench_init pg-write-ab "$rounds" "$@"
source "$BENCH_LIB/pg_write_common.sh"
ticks() { [ -r "/proc/$1/stat" ] && awk '{print $14 + $15}' "/proc/$1/stat" || echo 0; }
pg_ticks() {
  local pid t=0 p
  pid=$(head -1 "$PG_DIR/data/postmaster.pid")
  for p in "$pid" $(pgrep -P "$pid" || true); do t=$((t + $(ticks "$p"))); done
  echo "$t"
}
echo "# $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg) records=$RECORDS warmup=${WARMUP}s duration=${DURATION}s"
echo "# round variant ops/s p99_ms weft_ms/op pg_ms/op events_backend_ms/op sequencer_calls sequencer_ms/call sequencer_buffers/call pending_table load"
hz=$(getconf CLK_TCK)
for r in $(seq 1 "$rounds"); do
  for v in "$@"; do
    name=${v%%=*}; spec=${v#*=}; jar=${spec%%:*}; args=""; [ "$spec" = "$jar" ] || args=${spec#*:}
    pg_write_start_pg
    rm -rf "$BENCH_TMP/data"
    # shellcheck disable=SC2086
    pg_write_start_weft "$jar" $args
    pg_write_load
    wrk_run "$BENCH_LIB/ycsb.lua" "$WEFT_URL" -t2 -c128 -d"${WARMUP}s"
    # the event reader's backend: the session that last ran the sequencer's lock or statement
    ev=$(pg_sql "$PG_PRIMARY_PORT" "select pid from pg_stat_activity where query like '%weft_event_%' and query not like '%pg_stat_activity%' and (query like '%pg_advisory_xact_lock%' or query like '%weft_event_seqs WHERE seq >%' or query like 'WITH todo%' or query like '%weft_event_log%' or query like 'VACUUM%') limit 1")
    pg_sql "$PG_PRIMARY_PORT" "select pg_stat_statements_reset()" >/dev/null
    w0=$(ticks "$WEFT_PID"); p0=$(pg_ticks); e0=$(ticks "$ev")
    wrk_run "$BENCH_LIB/ycsb.lua" "$WEFT_URL" -t2 -c128 -d"${DURATION}s"
    w1=$(ticks "$WEFT_PID"); p1=$(pg_ticks); e1=$(ticks "$ev")
    seq=$(pg_sql "$PG_PRIMARY_PORT" "select calls || ' ' || round((total_exec_time / greatest(calls, 1))::numeric, 3) || ' ' || round(shared_blks_hit::numeric / greatest(calls, 1)) from pg_stat_statements where query like 'WITH todo AS (DELETE FROM weft_event_pending%'")
    size=$(pg_sql "$PG_PRIMARY_PORT" "select pg_size_pretty(pg_total_relation_size('weft_event_pending'))" | tr -d ' ')
    awk -v r="$r" -v n="$name" -v rps="$WRK_RPS" -v p99="$WRK_P99" -v req="$WRK_REQUESTS" -v hz="$hz" \
      -v w="$((w1 - w0))" -v p="$((p1 - p0))" -v e="$((e1 - e0))" -v s="${seq:-0 0 0}" -v sz="$size" -v l="$(cut -d' ' -f1-3 /proc/loadavg)" \
      'BEGIN { printf "%-3s %-8s %8.0f %7.1f %8.4f %8.4f %8.4f %16s %8s  %s\n", r, n, rps, p99, 1000*w/hz/req, 1000*p/hz/req, 1000*e/hz/req, s, sz, l }'
    stop_weft
    stop_pg_all
  done
done
