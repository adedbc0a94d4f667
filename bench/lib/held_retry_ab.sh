#!/usr/bin/env bash
# The seed regex over 1M documents (engine (d)) one request at a time, builds interleaved on one data
# directory made by `LOAD=big bench/lib/scan_ab.sh load DATA` (issue 12):
#   held_retry_ab.sh DATA ROUNDS SECONDS NAME=JAR ...
# each round starts each variant in turn, warms 5 requests, then sends requests for SECONDS: the
# median wall time, the process's CPU per request, and the CPU per request of the scan threads
# (weft-scan-*) and of the writer thread (weft-sqlite-wri: there a find's ask re-reads, every 10 s,
# a collection too large for held-rows-bytes). A variant named floor runs bench/lib/RegexScanFloor.java
# instead (SQLite alone: two readers over the halves of the ids with Weft's prefilter).
set -euo pipefail
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
source "$REPO/bench/lib/common.sh"
export WEFT_ADMIN_PASSWORD=scanab-pass-1
auth_enable
JAVA=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
WORK=$(mktemp -d /tmp/held-retry-ab.XXXXXX); trap 'rm -rf "$WORK"' EXIT
data=$1; rounds=$2; secs=$3; shift 3
table=$(sqlite3 -readonly "$data/weft.db" "SELECT 'd' || id FROM weft_colls WHERE db = 'bench' AND name = 'big'")
exec 9>/tmp/weft-bench.lock; flock 9
Q="/bench/big?filter=%7B%22links.url%22%3A%7B%22%24regex%22%3A%22.*pach.*%22%7D%7D"
ticks() { # pid pattern -> summed utime+stime of threads whose name matches
  local t s n f sum=0 pid=$1 pat=$2
  for t in /proc/$pid/task/*; do s=$(cat $t/stat 2>/dev/null) || continue; n=${s#*(}; n=${n%%)*}
    case "$n" in $pat) f=(${s##*) }); sum=$((sum + ${f[11]} + ${f[12]}));; esac; done; echo $sum; }
echo "# $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= rounds; r++)); do
  for v in "$@"; do
    name=${v%%=*}; jar=${v#*=}
    if [ "$name" = floor ]; then
      $JAVA -cp "$REPO/target/lib/*" "$REPO/bench/lib/RegexScanFloor.java" "$data/weft.db" "$table" floor 5 2>/dev/null | sed "s/^/round $r floor /"
      continue
    fi
    PORT=$(free_port)
    $JAVA --enable-native-access=ALL-UNNAMED -XX:+UseSerialGC -Xms64m -Xmn32m -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=30 \
      -XX:+UseCompactObjectHeaders -Xmx2g -cp "$jar:$REPO/target/lib/*" dev.weft.Main --port "$PORT" --data "$data" \
      --result-cache-entries 0 >"$WORK/weft-$PORT.log" 2>&1 &
    PID=$!; U="http://127.0.0.1:$PORT"
    wait_http "$U/ping" 300 "$PID"
    for i in 1 2 3 4 5; do curl -s -o /dev/null "${CURL_AUTH[@]}" "$U$Q"; done
    p0=$(awk '{print $14+$15}' /proc/$PID/stat); w0=$(ticks $PID 'weft-sqlite-wri*'); s0=$(ticks $PID 'weft-scan-*')
    ts=(); end=$((SECONDS + secs))
    while ((SECONDS < end)); do ts+=("$(curl -s -o "$WORK/body" -w '%{time_total}' "${CURL_AUTH[@]}" "$U$Q")"); done
    p1=$(awk '{print $14+$15}' /proc/$PID/stat); w1=$(ticks $PID 'weft-sqlite-wri*'); s1=$(ticks $PID 'weft-scan-*')
    n=${#ts[@]}
    med=$(printf '%s\n' "${ts[@]}" | sort -g | awk '{v[NR]=$1} END{print v[int((NR+1)/2)]}')
    printf 'round %d %-4s %3d requests median %.3f s  cpu/request %3d ms (scan threads %3d, writer %3d)  answer %s\n' "$r" "$name" "$n" "$med" \
      $(( (p1 - p0) * 10 / n )) $(( (s1 - s0) * 10 / n )) $(( (w1 - w0) * 10 / n )) "$(python3 -c 'import json,sys;print(len(json.load(open(sys.argv[1]))))' "$WORK/body") docs"
    kill -TERM $PID; wait $PID || true
  done
  echo "# load $(cut -d' ' -f1-3 /proc/loadavg)"
done
