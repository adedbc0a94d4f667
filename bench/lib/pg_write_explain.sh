#!/usr/bin/env bash
# Issue 17 (4): what PostgreSQL does for workload A's writes. Loads the YCSB records (100,000 of
# ~1 KB) into one Weft on a throwaway PostgreSQL, runs workload A (wrk -t2 -c128) for WARMUP then
# DURATION seconds, then prints EXPLAIN (ANALYZE, BUFFERS, WAL) of the statements a group of
# writes and the event reader send (each in a transaction rolled back), pg_stat_statements'
# heaviest statements of the measured run, and the event tables' live and dead rows.
#   pg_write_explain.sh JAR [WEFT ARGS...]
set -euo pipefail
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
source "$REPO/bench/lib/common.sh"
export WEFT_ADMIN_PASSWORD=pgwrite-pass-1
RECORDS=${RECORDS:-100000}; DURATION=${DURATION:-15}; WARMUP=${WARMUP:-20}
JAVA=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
jar=$1; shift
bench_init pg-write-explain "$jar" "$@"
auth_enable
export BENCH_PG_OPTS="-c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all"
python3 "$BENCH_LIB/ycsb_records.py" "$RECORDS" >"$BENCH_TMP/records.ndjson"
start_pg
port=$(free_port)
$JAVA --enable-native-access=ALL-UNNAMED -XX:+UseSerialGC -Xmx2g -cp "$jar:$REPO/target/lib/*" \
  dev.weft.Main --port "$port" --data "$BENCH_TMP/data" --store "$PG_URL" "$@" >"$BENCH_TMP/weft.log" 2>&1 &
WEFT_PID=$!; track_pid "$WEFT_PID"; WEFT_URL="http://127.0.0.1:$port"
wait_http "$WEFT_URL/ping" 300 "$WEFT_PID" || { tail -20 "$BENCH_TMP/weft.log" >&2; exit 1; }
weft_call PUT /ycsb -H 'Content-Type: application/json' -d '{}' >/dev/null
weft_call PUT /ycsb/usertable -H 'Content-Type: application/json' -d '{}' >/dev/null
weft_call POST /ycsb/usertable -H 'Content-Type: application/x-ndjson' --data-binary "@$BENCH_TMP/records.ndjson" >/dev/null
export YCSB_RECORDS=$RECORDS YCSB_READ_PCT=50 YCSB_QUERY= YCSB_FIXED_PATH= YCSB_PREFIX=/ycsb/usertable/
wrk_run "$BENCH_LIB/ycsb.lua" "$WEFT_URL" -t2 -c128 -d"${WARMUP}s"
pg_sql "$PG_PRIMARY_PORT" "create extension if not exists pg_stat_statements; select pg_stat_statements_reset()" >/dev/null
wrk_run "$BENCH_LIB/ycsb.lua" "$WEFT_URL" -t2 -c128 -d"${DURATION}s"
echo "# workload A: $WRK_RPS ops/s, load $(cut -d' ' -f1-3 /proc/loadavg)"
table=$(pg_sql "$PG_PRIMARY_PORT" "select 'd' || id from weft_colls where name = 'usertable'")
echo "## heaviest statements of the run (calls, exec ms, rows, WAL bytes, shared hit+read, dirtied)"
pg_sql "$PG_PRIMARY_PORT" "select calls, round(total_exec_time::numeric), rows, wal_bytes, shared_blks_hit + shared_blks_read, shared_blks_dirtied, left(regexp_replace(query, '\s+', ' ', 'g'), 110) from pg_stat_statements order by total_exec_time desc limit 10"
echo "## tables (live, dead rows, size, index size)"
pg_sql "$PG_PRIMARY_PORT" "select relname, n_live_tup, n_dead_tup, pg_size_pretty(pg_table_size(relid)), pg_size_pretty(pg_indexes_size(relid)), n_tup_upd, n_tup_hot_upd, autovacuum_count from pg_stat_user_tables order by relname"
stop_pid "$WEFT_PID"
ex() { echo "## $1"; pg_sql "$PG_PRIMARY_PORT" "begin; explain (analyze, buffers, wal) $2; rollback" ; }
ids=$(pg_sql "$PG_PRIMARY_PORT" "select 'array[' || string_agg(quote_literal(id::text) || '::bytea', ',') || ']' from (select id from $table order by random() limit 40) x")
ex "a group's read and lock of 40 documents" "SELECT id, body FROM $table WHERE id = ANY($ids) ORDER BY id FOR UPDATE"
ex "a group's update of 40 documents" "UPDATE $table t SET body = t.body FROM unnest($ids) AS u(i) WHERE t.id = u.i"
top=$(pg_sql "$PG_PRIMARY_PORT" "select value from weft_event_log where name = 'seq'")
pg_sql "$PG_PRIMARY_PORT" "insert into weft_event_pending select id from weft_event_seqs where seq > $top - 40" >/dev/null
ex "the sequencer's pending ids (40 pending)" "SELECT id FROM weft_event_pending ORDER BY id LIMIT 10000"
ex "the sequencer's delete of 40 pending ids" "DELETE FROM weft_event_pending WHERE id = ANY(ARRAY(SELECT id FROM weft_event_pending ORDER BY id LIMIT 10000)) RETURNING id"
echo "## sizes after: $(pg_sql "$PG_PRIMARY_PORT" "select pg_size_pretty(pg_relation_size('weft_event_pending')), pg_size_pretty(pg_relation_size('weft_event_pending_pkey'))")"
