#!/bin/bash
# text-insert-cpu.sh CHECKOUT PORT ROUNDS [trigram]: the cost of a text index on ndjson inserts, by thread.
# Starts Weft from CHECKOUT (its ./weft start; the SQLite store), warms it with 60,000 English-like
# documents (bench/lib/gen.py english-ndjson) into a collection with the search bench's text index
# and as many into one without, then ROUNDS x (20,000 documents into a new collection without an
# index, 20,000 into a new one with the text index), one ndjson POST each, 1 s apart. Prints each
# round's docs/s and the CPU each thread group used during each load (bench/lib/thread_cpu.py):
# on a shared 2-core machine the CPU split says more than the wall clock. Run two checkouts
# alternately (A, B, A, B) to compare them. With a fourth argument "trigram": the search bench's
# seed-000 link documents (gen.py links-ndjson) and its trigram index on links.url instead.
set -euo pipefail
CHECKOUT=$1; PORT=$2; ROUNDS=$3; KIND=${4:-text}
LIB=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d /tmp/text-insert-cpu.XXXX)
export WEFT_ADMIN_PASSWORD=${WEFT_ADMIN_PASSWORD:-$(python3 -c 'import secrets; print(secrets.token_urlsafe(24))')}
AUTH=(-H "Authorization: Basic $(printf 'admin:%s' "$WEFT_ADMIN_PASSWORD" | base64 -w0)")
gen() { if [ "$KIND" = text ]; then python3 "$LIB/gen.py" english-ndjson "$1"; else python3 "$LIB/gen.py" links-ndjson "$1" 3; fi; }
gen 20000 >"$TMP/ins.ndjson"
gen 60000 >"$TMP/warm.ndjson"
(cd "$CHECKOUT" && exec ./weft start --port "$PORT" --data "$TMP/data" --result-cache-entries 0) >"$TMP/weft.log" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null || true; wait $PID 2>/dev/null || true; rm -rf "$TMP"' EXIT
U=http://127.0.0.1:$PORT
until curl -s -o /dev/null "${AUTH[@]}" "$U/ping"; do kill -0 $PID; sleep 0.3; done
call() { curl -s -f -o /dev/null "${AUTH[@]}" -H 'Content-Type: application/json' "$@"; }
TEXT_INDEX='{"keys":{"title":"text","body":"text"},"ops":{"weights":{"title":10},"default_language":"english"}}'
[ "$KIND" = text ] || TEXT_INDEX='{"keys":{"links.url":"trigram"}}'
coll() { call -X PUT "$U/bench/$1" -d '{}'; [ -z "${2:-}" ] || call -X PUT "$U/bench/$1/_indexes/x" -d "$TEXT_INDEX"; }
load() { # coll file docs: prints docs/s, appends the CPU split to $TMP/cpu
  python3 "$LIB/thread_cpu.py" $PID snap "$TMP/snap"
  local t0; t0=$(date +%s.%N)
  curl -s -f -o /dev/null "${AUTH[@]}" -H 'Content-Type: application/x-ndjson' -X POST "$U/bench/$1" --data-binary "@$2"
  echo "$(date +%s.%N) $t0" | awk -v n="$3" '{printf "%.0f", n / ($1 - $2)}'
  python3 "$LIB/thread_cpu.py" $PID diff "$TMP/snap" >>"$TMP/cpu"
}
call -X PUT "$U/bench" -d '{}'
coll w1 text; coll w2
load w1 "$TMP/warm.ndjson" 60000 >/dev/null; load w2 "$TMP/warm.ndjson" 60000 >/dev/null
sleep 2; : >"$TMP/cpu"
for r in $(seq "$ROUNDS"); do
  coll "p$r"; p=$(load "p$r" "$TMP/ins.ndjson" 20000); sleep 1
  coll "t$r" text; t=$(load "t$r" "$TMP/ins.ndjson" 20000); sleep 1
  echo "round $r: no index $p docs/s, text index $t docs/s, ratio $(awk -v a="$t" -v b="$p" 'BEGIN{printf "%.2f", a / b}')"
done
echo "CPU per load (ms; no index, text index, alternately):"
cat "$TMP/cpu"
