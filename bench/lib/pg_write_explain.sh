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
WARMUP=${WARMUP:-20}
jar=$1; shift
BENCH_CMD=bench/lib/pg_write_explain.sh bench_init pg-write-explain "$jar" "$@"
source "$BENCH_LIB/pg_write_common.sh"
pg_write_start_pg
pg_write_start_weft "$jar" "$@"
pg_write_load
wrk_run "$BENCH_LIB/ycsb.lua" "$WEFT_URL" -t2 -c128 -d"${WARMUP}s"
pg_sql "$PG_PRIMARY_PORT" "select pg_stat_statements_reset()" >/dev/null
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
