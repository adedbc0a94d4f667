#!/usr/bin/env bash
# Scans over 1,000,000 SQLite rows, variant against variant on one data directory (issues 12, 14):
# seed 003's $group and the $group by g (1M YCSB documents of ~1.1 KB), the unindexed sort top 10
# and the seed regex (1M documents of ~460 B, as bench engine --big-only loads them).
#   scan_ab.sh load DATA                    load both collections once, with target/'s jar
#   scan_ab.sh run DATA ROUNDS NAME=JAR[:ARGS] ...
#       each round starts each variant in turn on DATA (A, B, A, B), runs each query WARM times
#       (5), then RUNS (5) timed: the median wall time and Weft's CPU per run (every thread)
#   scan_ab.sh profile DATA JAR [ARGS]      JFR top frames, scan threads' CPU and GC pauses per query
# A variant is a copy of a built jar (cp target/weft-*.jar /tmp/x.jar) and Weft settings (ARGS,
# space-separated). Holds the benchmark lock while it measures. QUERIES="seed3 sort" picks some;
# LOAD=big loads only the 1M seed-000 documents (enough for QUERIES="sort regex").
set -euo pipefail
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
source "$REPO/bench/lib/common.sh"
export WEFT_ADMIN_PASSWORD=scanab-pass-1
auth_enable
JAVA=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
WORK=$(mktemp -d /tmp/scan-ab.XXXXXX); trap 'rm -rf "$WORK"' EXIT
WARM=${WARM:-5}; RUNS=${RUNS:-5}
QUERIES=${QUERIES:-seed3 byg sort regex}
start() { # data jar args...
  local data=$1 jar=$2; shift 2
  PORT=$(free_port)
  $JAVA --enable-native-access=ALL-UNNAMED -XX:+UseSerialGC -Xms64m -Xmn32m -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=30 \
    -XX:+UseCompactObjectHeaders -Xmx2g -XX:TieredStopAtLevel=4 ${JOPTS:-} -cp "$jar:$REPO/target/lib/*" \
    dev.weft.Main --port "$PORT" --data "$data" --result-cache-entries 0 "$@" >"$WORK/weft-$PORT.log" 2>&1 &
  PID=$!
  WEFT_URL="http://127.0.0.1:$PORT"
  wait_http "$WEFT_URL/ping" 300 "$PID" || { tail -20 "$WORK/weft-$PORT.log"; exit 1; }
}
stop() { kill -TERM "$PID"; wait "$PID" 2>/dev/null || true; }
SEED3='[{"$group":{"_id":null,"n":{"$sum":{"$size":{"$split":["$field0","."]}}}}}]'
BY_G='[{"$group":{"_id":"$g","sum":{"$sum":"$v"},"avg":{"$avg":"$v"}}}]'
enc() { python3 -c 'import sys,urllib.parse;print(urllib.parse.quote(sys.argv[1],safe=""))' "$1"; }
SORT="/bench/big?sort=$(enc '{"stars":-1}')&pagesize=10"
REGEXQ="/bench/big?filter=$(enc '{"links.url":{"$regex":".*pach.*"}}')"
one() { # query -> seconds
  case $1 in
    seed3) curl -s -o "$WORK/body" -w '%{time_total}' "${CURL_AUTH[@]}" -H 'Content-Type: application/json' -X POST --data-binary "$SEED3" "$WEFT_URL/ycsb/usertable/_aggrs?pagesize=1000" ;;
    byg) curl -s -o "$WORK/body" -w '%{time_total}' "${CURL_AUTH[@]}" -H 'Content-Type: application/json' -X POST --data-binary "$BY_G" "$WEFT_URL/ycsb/usertable/_aggrs?pagesize=1000" ;;
    sort) curl -s -o "$WORK/body" -w '%{time_total}' "${CURL_AUTH[@]}" "$WEFT_URL$SORT" ;;
    regex) curl -s -o "$WORK/body" -w '%{time_total}' "${CURL_AUTH[@]}" "$WEFT_URL$REGEXQ" ;;
  esac
}
cpu() { local s; s=$(cat /proc/$PID/stat); set -- ${s##*) }; echo $(( ${12} + ${13} )); }
case $1 in
  load)
    data=$2; mkdir -p "$data"
    start "$data" "$REPO/target/weft-0.1.0-SNAPSHOT.jar"
    curl -sf "${CURL_AUTH[@]}" -X PUT -H 'Content-Type: application/json' -d '{}' "$WEFT_URL/bench" >/dev/null
    curl -sf "${CURL_AUTH[@]}" -X PUT -H 'Content-Type: application/json' -d '{}' "$WEFT_URL/bench/big" >/dev/null
    python3 "$REPO/bench/lib/gen.py" links-ndjson 1000000 3 >"$WORK/big.ndjson"
    curl -sf "${CURL_AUTH[@]}" -X POST -H 'Content-Type: application/x-ndjson' --data-binary @"$WORK/big.ndjson" "$WEFT_URL/bench/big" >/dev/null
    rm -f "$WORK/big.ndjson"
    if [ "${LOAD:-ycsb big}" != big ]; then
    curl -sf "${CURL_AUTH[@]}" -X PUT -H 'Content-Type: application/json' -d '{}' "$WEFT_URL/ycsb" >/dev/null
    curl -sf "${CURL_AUTH[@]}" -X PUT -H 'Content-Type: application/json' -d '{}' "$WEFT_URL/ycsb/usertable" >/dev/null
    python3 - 1000000 <<'PY' | split -l 200000 -d - "$WORK/piece-"
import json, random, string, sys
n = int(sys.argv[1]); rnd = random.Random(3); chars = string.ascii_letters + string.digits
dotted = chars + "." * 6
out = sys.stdout
for i in range(n):
    doc = {"_id": "user%d" % i, "field0": "".join(rnd.choices(dotted, k=100))}
    for f in range(1, 10):
        doc["field%d" % f] = "".join(rnd.choices(chars, k=100))
    doc["g"] = "g%02d" % (i % 100)
    doc["v"] = i % 1000
    out.write(json.dumps(doc, separators=(",", ":")) + "\n")
PY
    for p in "$WORK"/piece-*; do
      curl -sf "${CURL_AUTH[@]}" -X POST -H 'Content-Type: application/x-ndjson' --data-binary "@$p" "$WEFT_URL/ycsb/usertable" >/dev/null; rm -f "$p"
    done
    fi
    sleep 3; stop; ls -la "$data" ;;
  run)
    data=$2; rounds=$3; shift 3
    exec 9>/tmp/weft-bench.lock; flock 9
    echo "# $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg) warm=$WARM runs=$RUNS"
    for ((r = 1; r <= rounds; r++)); do
      for v in "$@"; do
        name=${v%%=*}; spec=${v#*=}; jar=${spec%%:*}; args=""; [ "$spec" = "$jar" ] || args=${spec#*:}
        start "$data" "$jar" $args
        for q in $QUERIES; do
          for ((i = 0; i < WARM; i++)); do one $q >/dev/null; done
          ts=(); c0=$(cpu)
          for ((i = 0; i < RUNS; i++)); do ts+=("$(one $q)"); done
          c1=$(cpu)
          med=$(printf '%s\n' "${ts[@]}" | sort -g | awk '{v[NR]=$1} END{print v[int((NR+1)/2)]}')
          printf 'round %d %-6s %-6s median %.3f s cpu/run %.2f s  all %s  answer %s\n' "$r" "$name" "$q" "$med" \
            "$(awk -v t=$((c1 - c0)) -v n=$RUNS 'BEGIN{print t/100/n}')" "${ts[*]}" "$(head -c 60 "$WORK/body" | tr -d '\n')"
        done
        stop
      done
      echo "# load $(cut -d' ' -f1-3 /proc/loadavg)"
    done ;;
  profile)
    data=$2; jar=$3; shift 3
    exec 9>/tmp/weft-bench.lock; flock 9
    echo "# $(date -u +%FT%TZ) profile $jar $* load $(cut -d' ' -f1-3 /proc/loadavg)"
    start "$data" "$jar" "$@"
    for q in $QUERIES; do
      for ((i = 0; i < WARM; i++)); do one $q >/dev/null; done
      declare -A T0=()
      for t in /proc/$PID/task/*; do s=$(cat $t/stat); case "$s" in *"(weft-scan"*|*"(GC Thread"*|*"(VM Thread"*|*"(C2 Compi"*|*"(C1 Compi"*) set -- ${s##*) }; T0[$t]=$(( ${12} + ${13} ));; esac; done
      jcmd "$PID" JFR.start name=$q settings=profile >/dev/null
      w=(); for ((i = 0; i < RUNS; i++)); do w+=("$(one $q)"); done
      jcmd "$PID" JFR.stop name=$q filename="$WORK/$q.jfr" >/dev/null
      echo "== $q: runs ${w[*]}"
      for t in "${!T0[@]}"; do s=$(cat $t/stat); n=${s#*(}; n=${n%%)*}; set -- ${s##*) }; echo "   thread $n: $(( ${12} + ${13} - ${T0[$t]} )) ticks"; done
      jfr print --events jdk.ExecutionSample,jdk.NativeMethodSample "$WORK/$q.jfr" | python3 $REPO/bench/lib/jfr_top.py ${TOPN:-14}
      jfr summary "$WORK/$q.jfr" | grep -E "GarbageCollection |YoungGarbage" || true
      jfr print --events jdk.GarbageCollection "$WORK/$q.jfr" | awk '/sumOfPauses/ {gsub(/ ms/,"",$3); s+=$3; n++} END {printf "   GC: %d collections, %.1f ms of pauses\n", n, s}'
    done
    stop ;;
esac
