# Shared by bench/lib/pg_write_ab.sh and pg_write_explain.sh (issue 17, workload A on PostgreSQL):
# sourced after common.sh and bench_init. A throwaway PostgreSQL with pg_stat_statements, the
# YCSB records, one Weft on a given jar, the records loaded into /ycsb/usertable.
RECORDS=${RECORDS:-100000}; DURATION=${DURATION:-15}
JAVA=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
export BENCH_PG_OPTS="-c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all"
export YCSB_RECORDS=$RECORDS YCSB_READ_PCT=50 YCSB_QUERY= YCSB_FIXED_PATH= YCSB_PREFIX=/ycsb/usertable/
auth_enable
python3 "$BENCH_LIB/ycsb_records.py" "$RECORDS" >"$BENCH_TMP/records.ndjson"

pg_write_start_pg() { # a fresh PostgreSQL (PG_URL, PG_PRIMARY_PORT, PG_DIR) with pg_stat_statements
  start_pg 2>/dev/null
  pg_sql "$PG_PRIMARY_PORT" "create extension if not exists pg_stat_statements" >/dev/null
}
pg_write_start_weft() { # jar args...: Weft on PG_URL (WEFT_PID, WEFT_URL)
  local jar=$1; shift
  local port; port=$(free_port)
  $JAVA --enable-native-access=ALL-UNNAMED -XX:+UseSerialGC -Xmx2g -cp "$jar:$REPO/target/lib/*" \
    dev.weft.Main --port "$port" --data "$BENCH_TMP/data" --store "$PG_URL" "$@" >>"$BENCH_TMP/weft-$port.log" 2>&1 &
  WEFT_PID=$!; track_pid "$WEFT_PID"; WEFT_URL="http://127.0.0.1:$port"
  wait_http "$WEFT_URL/ping" 300 "$WEFT_PID" || { tail -20 "$BENCH_TMP/weft-$port.log" >&2; exit 1; }
}
pg_write_load() { # the records into /ycsb/usertable of the running Weft
  weft_call PUT /ycsb -H 'Content-Type: application/json' -d '{}' >/dev/null
  weft_call PUT /ycsb/usertable -H 'Content-Type: application/json' -d '{}' >/dev/null
  weft_call POST /ycsb/usertable -H 'Content-Type: application/x-ndjson' --data-binary "@$BENCH_TMP/records.ndjson" >/dev/null
}
