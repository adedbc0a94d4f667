#!/usr/bin/env bash
# YCSB workloads C and A (as bench/ycsb: 100,000 records of ~1 KB, zipfian keys, wrk -t2 -c128),
# build against build on one PostgreSQL cluster and one SQLite data dir (issue 17, decision 0008).
#   pg_read_ab.sh run ROUNDS NAME=JAR[:ARGS] ...
#       loads both stores once (with the first variant), then each round starts each variant in
#       turn (A, B, A, B) on SQLite and on PostgreSQL, warms it with workload A until its JIT is
#       quiet, and runs each workload for DURATION (15) s: ops/s, p50/p99, CPU ms per operation of
#       Weft's JVM (and by thread group: vthreads = request carriers, weft-pg-reader, ...) and of
#       PostgreSQL's processes, the load average, the young and full collections (jstat); with
#       STATS=1 also PostgreSQL's checkpoints, autovacuums, autoanalyzes and buffers written
#   pg_read_ab.sh profile NAME=JAR[:ARGS]
#       one variant on each store of STORES: a JFR recording of each workload (kept in $OUT,
#       default /tmp/pg-read-ab), its top frames (lib/jfr_top.py); PERF=1 (with
#       JOPTS=-XX:+PreserveFramePointer) also perf's samples of Weft, Java frames named
# A variant is a copy of a built jar (cp target/weft-*.jar /tmp/x.jar) and Weft settings (ARGS,
# space-separated). STORES="postgresql sqlite", WORKLOADS="c a" pick some. Holds the benchmark lock.
set -euo pipefail
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
source "$REPO/bench/lib/common.sh"
export WEFT_ADMIN_PASSWORD=pgreadab-pass-1
RECORDS=${RECORDS:-100000}; DURATION=${DURATION:-15}; WARMUP=${WARMUP:-10}
STORES=${STORES:-sqlite postgresql}; WORKLOADS=${WORKLOADS:-c a}
OUT=${OUT:-/tmp/pg-read-ab}; mkdir -p "$OUT"
JAVA=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
mode=$1; shift
BENCH_CMD=bench/lib/pg_read_ab.sh bench_init pg-read-ab "$mode" "$@"
auth_enable
WRK_TIMEOUT=$((DURATION + 120))
[ "${STATS:-0}" = 0 ] || export BENCH_PG_OPTS="-c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all"

start_variant() { # store jar args...
  local store=$1 jar=$2; shift 2
  local port; port=$(free_port)
  local where=(--data "$BENCH_TMP/sqlite-data")
  [ "$store" = postgresql ] && where=(--data "$BENCH_TMP/pg-data" --store "$PG_URL")
  $JAVA --enable-native-access=ALL-UNNAMED -XX:+UseSerialGC -Xms64m -Xmn32m -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=30 \
    -XX:+UseCompactObjectHeaders -Xmx2g -XX:TieredStopAtLevel=4 ${JOPTS:-} -cp "$jar:$REPO/target/lib/*" \
    dev.weft.Main --port "$port" "${where[@]}" "$@" >>"$BENCH_TMP/weft-$port.log" 2>&1 &
  WEFT_PID=$!; track_pid "$WEFT_PID"
  WEFT_URL="http://127.0.0.1:$port"
  wait_http "$WEFT_URL/ping" 300 "$WEFT_PID" || { tail -20 "$BENCH_TMP/weft-$port.log" >&2; exit 1; }
}
cpu_ticks() { [ -n "$1" ] && [ -r "/proc/$1/stat" ] && awk '{print $14 + $15}' "/proc/$1/stat" || echo 0; }
pg_ticks() {
  local pid t=0 p
  pid=$(head -1 "$PG_DIR/data/postmaster.pid")
  for p in "$pid" $(pgrep -P "$pid" || true); do t=$((t + $(cpu_ticks "$p"))); done
  echo "$t"
}
pg_stats() { # checkpoints, autovacuum and autoanalyze runs so far, the group writer's updates
  pg_sql "$PG_PRIMARY_PORT" "select (select checkpoints_timed + checkpoints_req from pg_stat_bgwriter), (select coalesce(sum(autovacuum_count),0) from pg_stat_user_tables), (select coalesce(sum(autoanalyze_count),0) from pg_stat_user_tables), (select buffers_backend + buffers_checkpoint from pg_stat_bgwriter)"
}
# young count, young s, full count, full s of Weft's collector so far
gc_now() { jstat -gcutil "$WEFT_PID" | awk 'NR==2{print $(NF-6), $(NF-5), $(NF-4), $(NF-3)}'; }
load_stores() { # jar
  local s
  for s in $STORES; do
    mkdir -p "$BENCH_TMP/sqlite-data" "$BENCH_TMP/pg-data"
    start_variant "$s" "$1"
    weft_call PUT /ycsb -H 'Content-Type: application/json' -d '{}' >/dev/null
    weft_call PUT /ycsb/usertable -H 'Content-Type: application/json' -d '{}' >/dev/null
    weft_call POST /ycsb/usertable -H 'Content-Type: application/x-ndjson' --data-binary "@$BENCH_TMP/records.ndjson" >/dev/null
    stop_weft
  done
}
ycsb_env() { export YCSB_RECORDS=$RECORDS YCSB_READ_PCT=$1 YCSB_QUERY= YCSB_FIXED_PATH= YCSB_PREFIX=/ycsb/usertable/; }
measure() { # round name store wl
  local pct=100 w0 p0 s0 s1
  [ "$4" = a ] && pct=50
  ycsb_env "$pct"
  python3 "$BENCH_LIB/thread_cpu.py" "$WEFT_PID" snap "$BENCH_TMP/threads"
  [ "$3" != postgresql ] || [ "${STATS:-0}" = 0 ] || s0=$(pg_stats)
  w0=$(cpu_ticks "$WEFT_PID"); p0=0; [ "$3" = postgresql ] && p0=$(pg_ticks)
  local g0; g0=$(gc_now)
  wrk_run "$BENCH_LIB/ycsb.lua" "$WEFT_URL" -t2 -c128 -d"${DURATION}s"
  local w1 p1=0 hz; w1=$(cpu_ticks "$WEFT_PID"); [ "$3" = postgresql ] && p1=$(pg_ticks); hz=$(getconf CLK_TCK)
  local groups; groups=$(python3 "$BENCH_LIB/thread_cpu.py" "$WEFT_PID" diff "$BENCH_TMP/threads" | tr '\n' ' ')
  printf '%-3s %-8s %-10s %s %8.0f ops/s p50 %5.2f p99 %6.2f ms  weft %.4f pg %.4f ms/op  load %s  [%s]\n' \
    "$1" "$2" "$3" "${4^^}" "$WRK_RPS" "$WRK_P50" "$WRK_P99" \
    "$(awk -v a="$w0" -v b="$w1" -v r="$WRK_REQUESTS" -v hz="$hz" 'BEGIN{print 1000*(b-a)/hz/r}')" \
    "$(awk -v a="$p0" -v b="$p1" -v r="$WRK_REQUESTS" -v hz="$hz" 'BEGIN{print 1000*(b-a)/hz/r}')" \
    "$(cut -d' ' -f1-3 /proc/loadavg)" "$groups"
  echo "      gc over the run (young count, young s, full count, full s): $(gc_now | awk -v a="$g0" 'BEGIN{split(a,b," ")} {printf "%d %.3f %d %.3f", $1-b[1], $2-b[2], $3-b[3], $4-b[4]}')"
  if [ -n "${s0:-}" ]; then
    s1=$(pg_stats)
    echo "      pg over the run (checkpoints|autovacuums|autoanalyzes|buffers written): before $s0 after $s1"
  fi
}

python3 - "$RECORDS" >"$BENCH_TMP/records.ndjson" <<'PY'
import json, random, string, sys
n = int(sys.argv[1]); rnd = random.Random(3); chars = string.ascii_letters + string.digits
out = sys.stdout
for i in range(n):
    doc = {"_id": "user%d" % i}
    for f in range(10):
        doc["field%d" % f] = "".join(rnd.choices(chars, k=100))
    out.write(json.dumps(doc, separators=(",", ":")) + "\n")
PY
case "$STORES" in *postgresql*) start_pg ;; esac

case $mode in
  run)
    rounds=$1; shift
    first=${1#*=}; load_stores "${first%%:*}"
    echo "# $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg) records=$RECORDS duration=${DURATION}s stores=$STORES workloads=$WORKLOADS"
    for r in $(seq 1 "$rounds"); do
      for v in "$@"; do
        name=${v%%=*}; spec=${v#*=}; jar=${spec%%:*}; args=""; [ "$spec" = "$jar" ] || args=${spec#*:}
        for s in $STORES; do
          # shellcheck disable=SC2086
          start_variant "$s" "$jar" $args
          ycsb_env 50; warm_weft "$WARMUP" "$BENCH_LIB/ycsb.lua" "$WEFT_URL" -t2 -c128 2>/dev/null
          for w in $WORKLOADS; do measure "$r" "$name" "$s" "$w"; done
          stop_weft
        done
      done
    done ;;
  profile)
    name=${1%%=*}; spec=${1#*=}; jar=${spec%%:*}; args=""; [ "$spec" = "$jar" ] || args=${spec#*:}
    load_stores "$jar"
    for s in $STORES; do
      # shellcheck disable=SC2086
      start_variant "$s" "$jar" $args
      ycsb_env 50; warm_weft "$WARMUP" "$BENCH_LIB/ycsb.lua" "$WEFT_URL" -t2 -c128 2>/dev/null
      for w in $WORKLOADS; do
        jcmd "$WEFT_PID" JFR.start name=ab settings=profile >/dev/null
        if [ "${PERF:-0}" = 1 ]; then # perf's samples of every thread, Java frames named by the JIT's map
          perf record -F 499 -g -p "$WEFT_PID" -o "$OUT/$name-$s-$w.perf" -- sleep "$((DURATION - 1))" 2>/dev/null &
          perf_pid=$!
        fi
        measure 1 "$name" "$s" "$w"
        if [ "${PERF:-0}" = 1 ]; then
          wait "$perf_pid" || true; jcmd "$WEFT_PID" Compiler.perfmap >/dev/null
          perf report -i "$OUT/$name-$s-$w.perf" --no-children --sort comm,dso --stdio 2>/dev/null | grep -v '^#' | grep -v '^$' | head -40 >"$OUT/$name-$s-$w.perf-dso" || true
          echo "    perf: $OUT/$name-$s-$w.perf"
        fi
        jcmd "$WEFT_PID" JFR.stop name=ab filename="$OUT/$name-$s-$w.jfr" >/dev/null
        jfr print --events jdk.ExecutionSample,jdk.NativeMethodSample "$OUT/$name-$s-$w.jfr" \
          | python3 "$BENCH_LIB/jfr_top.py" 30 >"$OUT/$name-$s-$w.top"
        echo "    profile: $OUT/$name-$s-$w.jfr, top frames $OUT/$name-$s-$w.top"
      done
      stop_weft
    done ;;
  *) die "usage: pg_read_ab.sh run ROUNDS NAME=JAR[:ARGS] ... | profile NAME=JAR[:ARGS]" ;;
esac
