#!/usr/bin/env bash
# Issue 22: a $text first page sorted by textScore over 1,000,000 English-like documents (as bench
# search (c) loads them), the native ranking function (text-native-ranking 1: weft_top) against
# FTS5's bm25 alone (0), on one data directory, the same jar, alternated (1, 0, 1, 0, ...).
#   text_native_ab.sh load DATA          1M docs of gen.py english-ndjson and search (c)'s text index
#   text_native_ab.sh run DATA ROUNDS    each round starts Weft with 1 then 0, and for each pair
#       (rare, common: search (c)'s) sends WARM (30) requests, then RUNS (40) timed one at a time:
#       Weft's process CPU per request (/proc utime+stime over the RUNS) and curl's median wall
# Holds the benchmark lock while it measures (run). Checks that both give the same page.
set -euo pipefail
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
source "$REPO/bench/lib/common.sh"
export WEFT_ADMIN_PASSWORD=textab-pass-1
auth_enable
JAVA=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
JAR=${JAR:-$REPO/target/weft-0.1.0-SNAPSHOT.jar}
WORK=$(mktemp -d /tmp/text-ab.XXXXXX); trap 'rm -rf "$WORK"' EXIT
WARM=${WARM:-30}; RUNS=${RUNS:-40}
start() { # data args...
  local data=$1; shift
  PORT=$(free_port)
  $JAVA --enable-native-access=ALL-UNNAMED -XX:+UseSerialGC -Xms64m -Xmn32m -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=30 \
    -XX:+UseCompactObjectHeaders -Xmx2g -XX:TieredStopAtLevel=4 -cp "$JAR:$REPO/target/lib/*" \
    dev.weft.Main --port "$PORT" --data "$data" --result-cache-entries 0 "$@" >"$WORK/weft-$PORT.log" 2>&1 &
  PID=$!
  WEFT_URL="http://127.0.0.1:$PORT"
  wait_http "$WEFT_URL/ping" 300 "$PID" || { tail -20 "$WORK/weft-$PORT.log"; exit 1; }
}
stop() { kill -TERM "$PID"; wait "$PID" 2>/dev/null || true; }
enc() { python3 "$REPO/bench/lib/gen.py" urlencode "$1"; }
word() { python3 "$REPO/bench/lib/gen.py" english-word "$1"; }
cpu() { local s; s=$(cat /proc/$PID/stat); set -- ${s##*) }; echo $(( ${12} + ${13} )); }
case $1 in
  load)
    data=$2; mkdir -p "$data"
    start "$data"
    curl -sf "${CURL_AUTH[@]}" -X PUT -H 'Content-Type: application/json' -d '{}' "$WEFT_URL/bench" >/dev/null
    curl -sf "${CURL_AUTH[@]}" -X PUT -H 'Content-Type: application/json' -d '{}' "$WEFT_URL/bench/text" >/dev/null
    python3 "$REPO/bench/lib/gen.py" english-ndjson 1000000 >"$WORK/text.ndjson"
    curl -sf "${CURL_AUTH[@]}" -X POST -H 'Content-Type: application/x-ndjson' --data-binary @"$WORK/text.ndjson" "$WEFT_URL/bench/text" >/dev/null
    rm -f "$WORK/text.ndjson"
    curl -sf "${CURL_AUTH[@]}" -X PUT -H 'Content-Type: application/json' --max-time 1200 \
      -d '{"keys":{"title":"text","body":"text"},"ops":{"weights":{"title":10},"default_language":"english"}}' "$WEFT_URL/bench/text/_indexes/search" >/dev/null
    sleep 3; stop; ls -la "$data" ;;
  run)
    data=$2; rounds=$3
    RARE="$(word 2000) $(word 3000)"; COMMON="$(word 150) $(word 400)"
    SCORED="&keys=$(enc '{"title":1,"score":{"$meta":"textScore"}}')&sort=$(enc '{"score":{"$meta":"textScore"}}')&pagesize=100"
    exec 9>/tmp/weft-bench.lock; flock 9
    echo "# $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg) warm=$WARM runs=$RUNS rare='$RARE' common='$COMMON'"
    for ((r = 1; r <= rounds; r++)); do
      for native in 1 0; do
        start "$data" --text-native-ranking "$native"
        for pair in rare common; do
          words=$RARE; [ $pair = rare ] || words=$COMMON
          url="$WEFT_URL/bench/text?filter=$(enc "{\"\$text\":{\"\$search\":\"$words\"}}")$SCORED"
          for ((i = 0; i < WARM; i++)); do curl -sf -o /dev/null "${CURL_AUTH[@]}" "$url"; done
          curl -sf -o "$WORK/page-$pair-$native" "${CURL_AUTH[@]}" "$url"
          ts=(); c0=$(cpu)
          for ((i = 0; i < RUNS; i++)); do ts+=("$(curl -sf -o /dev/null -w '%{time_total}' "${CURL_AUTH[@]}" "$url")"); done
          c1=$(cpu)
          med=$(printf '%s\n' "${ts[@]}" | sort -g | awk '{v[NR]=$1} END{print v[int((NR+1)/2)]}')
          printf 'round %d native %d %-6s cpu/req %5.1f ms  wall median %6.1f ms\n' "$r" "$native" "$pair" \
            "$(awk -v t=$((c1 - c0)) -v n=$RUNS 'BEGIN{print t*10/n}')" "$(awk -v m="$med" 'BEGIN{print m*1000}')"
        done
        stop
      done
      for pair in rare common; do
        if cmp -s "$WORK/page-$pair-1" "$WORK/page-$pair-0"; then echo "  $pair: pages equal ($(python3 -c 'import json,sys;print(len(json.load(open(sys.argv[1]))))' "$WORK/page-$pair-1") documents)"; else echo "  $pair: PAGES DIFFER"; fi
      done
      echo "# load $(cut -d' ' -f1-3 /proc/loadavg)"
    done ;;
esac
