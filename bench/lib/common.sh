# Sourced by Weft's benchmark scripts. Needs bash 4+, set -euo pipefail in the caller.
# Provides: bench_init, ensure_tools, find_jdk25, free_port, wait_http, start_weft, start_nginx,
# wrk_run (sets WRK_* variables), auth hook (AUTH_HEADER / curl_auth), versions, table helpers.

BENCH_LIB="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BENCH_DIR="$(dirname "$BENCH_LIB")"
REPO_ROOT="$(dirname "$BENCH_DIR")"
BENCH_PIDS=()
BENCH_TMP=""

log() { printf '%s\n' "$*" >&2; }
die() { printf 'bench: %s\n' "$*" >&2; exit 1; }

bench_cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  local pid
  for pid in "${BENCH_PIDS[@]}"; do
    kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "${BENCH_PIDS[@]}"; do
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  [ "${#PG_DIRS[@]}" -eq 0 ] || stop_pg_all
  if [ -n "$BENCH_TMP" ] && [ -d "$BENCH_TMP" ]; then
    if [ "${BENCH_KEEP:-0}" = 1 ]; then log "bench: kept $BENCH_TMP"; else rm -rf "$BENCH_TMP"; fi
  fi
  exit "$rc"
}

# bench_init NAME "$@": prints the command line, makes the temp dir, installs the trap.
bench_init() {
  local name=$1; shift
  printf '$ %s' "${BENCH_CMD:-./weft bench $name}"; [ $# -eq 0 ] || printf ' %q' "$@"; printf '\n'
  BENCH_TMP=$(mktemp -d "/tmp/weft-bench-$name.XXXXXX")
  trap bench_cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  # One benchmark at a time on this machine: two would share the cores and both figures would lie.
  exec 9>"${TMPDIR:-/tmp}/weft-bench.lock"
  if ! flock -n 9; then
    log "bench: another benchmark is running; waiting for it"
    flock 9
  fi
  ensure_tools
}

track_pid() { BENCH_PIDS+=("$1"); }

# Stops one tracked process now (TERM, then KILL after 10 s) and forgets it.
stop_pid() {
  local pid=$1 p keep=()
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  for p in "${BENCH_PIDS[@]}"; do [ "$p" = "$pid" ] || keep+=("$p"); done
  BENCH_PIDS=("${keep[@]}")
}

NGINX_BIN=""
ensure_tools() {
  local missing=()
  command -v wrk >/dev/null || missing+=(wrk)
  if command -v nginx >/dev/null; then NGINX_BIN=$(command -v nginx)
  elif [ -x /usr/sbin/nginx ]; then NGINX_BIN=/usr/sbin/nginx
  else missing+=(nginx); fi
  command -v curl >/dev/null || missing+=(curl)
  command -v python3 >/dev/null || missing+=(python3)
  if [ ${#missing[@]} -gt 0 ]; then
    log "bench: installing ${missing[*]} from Debian's packages"
    local sudo=(); [ "$(id -u)" = 0 ] || sudo=(sudo)
    "${sudo[@]}" apt-get install -y "${missing[@]}" >&2 \
      || { "${sudo[@]}" apt-get update >&2 && "${sudo[@]}" apt-get install -y "${missing[@]}" >&2; } \
      || die "could not install ${missing[*]}"
    NGINX_BIN=$(command -v nginx || echo /usr/sbin/nginx)
  fi
  # A Debian nginx install starts a system service on port 80; it is not ours and not in the way.
}

find_jdk25() {
  local c candidates=()
  [ -n "${JAVA_HOME:-}" ] && candidates+=("$JAVA_HOME")
  candidates+=(/usr/lib/jvm/temurin-25* /usr/lib/jvm/*-25-* /usr/lib/jvm/*25* /opt/java/*25*)
  for c in "${candidates[@]}"; do
    if [ -x "$c/bin/java" ] && "$c/bin/java" -version 2>&1 | grep -q 'version "25'; then
      echo "$c"; return 0
    fi
  done
  die "no JDK 25 found under /usr/lib/jvm; install temurin-25-jdk or set JAVA_HOME"
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# wait_http URL TIMEOUT_S [PID]: until URL answers 200; fails if PID dies or time runs out.
wait_http() {
  local url=$1 timeout=$2 pid=${3:-} deadline=$((SECONDS + $2))
  while [ $SECONDS -lt $deadline ]; do
    if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then return 1; fi
    if [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "${CURL_AUTH[@]}" "$url" 2>/dev/null)" = 200 ]; then
      return 0
    fi
    sleep 0.2
  done
  return 1
}

# --- authentication -------------------------------------------------------------------------
# Weft denies anonymous requests (docs/security.md), so every request of a benchmark (wrk and
# curl) carries Basic credentials of user admin. The benchmark's Weft starts on an empty data
# dir, so it creates admin with WEFT_ADMIN_PASSWORD: taken from the environment if set, else a
# random one made here and exported to Weft (start_weft calls auth_enable).
AUTH_HEADER=""
CURL_AUTH=()
WRK_AUTH=()
auth_enable() {
  if [ -z "${WEFT_ADMIN_PASSWORD:-}" ]; then
    WEFT_ADMIN_PASSWORD=$(python3 -c 'import secrets; print(secrets.token_urlsafe(24))')
  fi
  export WEFT_ADMIN_PASSWORD
  AUTH_HEADER="Authorization: Basic $(printf 'admin:%s' "$WEFT_ADMIN_PASSWORD" | base64 -w0)"
  CURL_AUTH=(-H "$AUTH_HEADER")
  WRK_AUTH=(-H "$AUTH_HEADER")
}

# use_auth_token: exports WEFT_AUTH (for the load clients of streams/hold) as Basic admin:<the
# Auth-Token Weft answers a password login with>. Thousands of connections opened at once with
# the password would each cost a password hash once the credential cache (auth-cache-ttl-ms)
# has expired, and be refused 503 past hash-wait-ms; the token is checked from memory, which is
# what a real client fleet does (RESTHeart's Auth-Token).
use_auth_token() {
  weft_call GET /ping >/dev/null
  local token; token=$(awk 'tolower($1) == "auth-token:" {print $2}' "$BENCH_TMP/last-headers" | tr -d '\r')
  [ -n "$token" ] || die "Weft answered no Auth-Token to a password login"
  export WEFT_AUTH="Basic $(printf 'admin:%s' "$token" | base64 -w0)"
}

# --- PostgreSQL ----------------------------------------------------------------------------
# start_pg: a throwaway primary of the benchmark's own (as scripts/test-env and the tests'
# PgCluster do): initdb as the postgres user (PostgreSQL refuses root) in a temp dir owned by
# postgres, a free port on 127.0.0.1, its unix socket in that dir, trust authentication. Sets
# PG_URL. start_pg_replica: a streaming hot standby of it (pg_basebackup -R); sets PG_REPLICA_URL.
# Both are stopped (pg_ctl -m immediate) and removed by the script's trap (bench_cleanup).
# Durability is the engine's default (fsync on) unless BENCH_PG_FSYNC=off. Installed from
# Debian's packages when missing.
PG_BIN=""; PG_URL=""; PG_REPLICA_URL=""; PG_DIRS=()
pg_find_bin() {
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -z "$d" ] || [ ! -x "$d/initdb" ]; then
    log "bench: installing postgresql from Debian's packages"
    local sudo=(); [ "$(id -u)" = 0 ] || sudo=(sudo)
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq postgresql >&2 \
      || { "${sudo[@]}" apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq postgresql >&2; } \
      || die "could not install postgresql"
    d=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
  fi
  PG_BIN=$d
}
as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"
  elif [ "$(id -un)" = postgres ]; then "$@"
  else sudo -u postgres -- "$@"; fi
}
PG_DIR=""
pg_dir() { # sets PG_DIR: a new temp dir owned by postgres, removed by the trap (not in $(...))
  PG_DIR=$(mktemp -d /tmp/weft-bench-pg.XXXXXX)
  PG_DIRS+=("$PG_DIR")
  if [ "$(id -u)" = 0 ]; then chown postgres: "$PG_DIR"; fi
  chmod 700 "$PG_DIR"
}
# BENCH_PG_OPTS: more server options ("-c name=value ..."), e.g. a preloaded library of a script
pg_server_start() { # dir port
  local dir=$1 port=$2
  as_pg "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 120 start \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=300 -c shared_buffers=${BENCH_PG_SHARED_BUFFERS:-256MB} -c fsync=${BENCH_PG_FSYNC:-on} -c wal_level=replica -c max_wal_senders=5 -c hot_standby=on -c wal_receiver_status_interval=1s ${BENCH_PG_OPTS:-}" \
    >/dev/null || { cat "$dir/server.log" >&2; die "PostgreSQL did not start in $dir"; }
}
start_pg() {
  [ -n "$PG_BIN" ] || pg_find_bin
  id postgres >/dev/null 2>&1 || die "no postgres user (install Debian's postgresql package)"
  pg_dir; local dir=$PG_DIR port; port=$(free_port)
  as_pg "$PG_BIN/initdb" -D "$dir/data" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; die "initdb failed"; }
  pg_server_start "$dir" "$port"
  PG_PRIMARY_PORT=$port
  PG_URL="postgresql://postgres@127.0.0.1:$port/postgres"
  log "bench: PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') primary at $PG_URL (dir $dir)"
}
start_pg_replica() {
  [ -n "${PG_PRIMARY_PORT:-}" ] || die "start_pg first"
  pg_dir; local dir=$PG_DIR port; port=$(free_port)
  as_pg "$PG_BIN/pg_basebackup" -h 127.0.0.1 -p "$PG_PRIMARY_PORT" -U postgres -D "$dir/data" -R -X stream -c fast \
    >"$dir/basebackup.log" 2>&1 || { cat "$dir/basebackup.log" >&2; die "pg_basebackup failed"; }
  pg_server_start "$dir" "$port"
  PG_REPLICA_PORT=$port
  PG_REPLICA_URL="postgresql://postgres@127.0.0.1:$port/postgres"
  log "bench: PostgreSQL streaming replica at $PG_REPLICA_URL (dir $dir)"
}
stop_pg_all() {
  local d
  for d in "${PG_DIRS[@]}"; do
    [ -d "$d/data" ] && as_pg "$PG_BIN/pg_ctl" -D "$d/data" -m immediate -w -t 30 stop >/dev/null 2>&1 || true
    rm -rf "$d"
  done
  PG_DIRS=(); PG_URL=""; PG_REPLICA_URL=""; PG_PRIMARY_PORT=""
}
# pg_sql PORT SQL: the result of one statement (unaligned, no headers), as postgres over TCP.
pg_sql() { as_pg "$PG_BIN/psql" -h 127.0.0.1 -p "$1" -U postgres -d postgres -XAtqc "$2"; }
pg_version() { [ -n "$PG_BIN" ] && "$PG_BIN/postgres" --version | awk '{print $3}'; }

# --store sqlite|postgresql of the scripts: bench_store KIND starts PostgreSQL when asked and sets
# WEFT_STORE_ARGS for start_weft.
BENCH_STORE=sqlite
WEFT_STORE_ARGS=()
bench_store() {
  BENCH_STORE=$1
  case "$BENCH_STORE" in
    sqlite) WEFT_STORE_ARGS=() ;;
    postgresql|postgres|pg) BENCH_STORE=postgresql; start_pg; WEFT_STORE_ARGS=(--store "$PG_URL") ;;
    *) die "--store is sqlite or postgresql, not $1" ;;
  esac
}

# --- Weft ----------------------------------------------------------------------------------
# start_weft [weft start args...]: e.g. --store URL --read-replica URL; WEFT_STORE_ARGS (set by
# bench_store) are passed first. A second call starts a second Weft (stop_weft the first).
WEFT_PORT=""; WEFT_PID=""; WEFT_URL=""; WEFT_SEQ=0
start_weft() {
  auth_enable
  WEFT_PORT=$(free_port)
  WEFT_SEQ=$((WEFT_SEQ + 1))
  local data="$BENCH_TMP/weft-data-$WEFT_SEQ"; mkdir -p "$data"
  local args=("${WEFT_STORE_ARGS[@]}" "$@")
  WEFT_LOG="$BENCH_TMP/weft.log"; [ "$WEFT_SEQ" = 1 ] || WEFT_LOG="$BENCH_TMP/weft-$WEFT_SEQ.log"
  log "bench: starting Weft on port $WEFT_PORT (data $data, ${args[*]:-sqlite}, log $WEFT_LOG)"
  # 9>&-: Weft must not inherit the benchmark lock (bench_init); a Weft left behind by a killed
  # script would otherwise hold it, and every later benchmark on the machine would wait forever.
  ( cd "$REPO_ROOT" && exec ./weft start --port "$WEFT_PORT" --data "$data" "${args[@]}" ) >"$WEFT_LOG" 2>&1 9>&- &
  WEFT_PID=$!; track_pid "$WEFT_PID"
  WEFT_URL="http://127.0.0.1:$WEFT_PORT"
  if ! wait_http "$WEFT_URL/ping" "${WEFT_START_TIMEOUT:-300}" "$WEFT_PID"; then
    tail -n 30 "$WEFT_LOG" >&2 || true
    die "Weft did not answer GET /ping with 200"
  fi
}

# weft_call METHOD PATH [curl args...]: prints the body; fails unless the status is 2xx.
# Sets CALL_STATUS. Body in $BENCH_TMP/last-body, headers in $BENCH_TMP/last-headers.
stop_weft() { [ -n "$WEFT_PID" ] && stop_pid "$WEFT_PID"; WEFT_PID=""; }

CALL_STATUS=""
weft_call() {
  local method=$1 path=$2; shift 2
  CALL_STATUS=$(curl -s -X "$method" -o "$BENCH_TMP/last-body" -D "$BENCH_TMP/last-headers" \
    -w '%{http_code}' --max-time "${CALL_TIMEOUT:-600}" "${CURL_AUTH[@]}" "$@" "$WEFT_URL$path") || true
  case "$CALL_STATUS" in
    2*) cat "$BENCH_TMP/last-body" ;;
    *) log "bench: $method $path answered ${CALL_STATUS:-nothing}: $(head -c 400 "$BENCH_TMP/last-body" 2>/dev/null)"; return 1 ;;
  esac
}

# --- nginx ---------------------------------------------------------------------------------
NGINX_WORKERS=${NGINX_WORKERS:-auto}
NGINX_PORT=""; NGINX_PID=""; NGINX_URL=""
# start_nginx ROUTES_FILE   (see nginx-conf.py for the route format; not in a pipe: it sets globals)
start_nginx() {
  local routes=$1
  NGINX_PORT=$(free_port)
  local dir="$BENCH_TMP/nginx"; rm -rf "$dir"; mkdir -p "$dir"; chmod 755 "$dir"
  python3 "$BENCH_LIB/nginx-conf.py" "$dir" "$NGINX_PORT" "$NGINX_WORKERS" <"$routes"
  "$NGINX_BIN" -t -q -p "$dir" -c "$dir/nginx.conf" 2>&1 | grep -v 'the "user" directive' >&2 || true
  "$NGINX_BIN" -p "$dir" -c "$dir/nginx.conf" 2>>"$dir/error.log" &
  NGINX_PID=$!; track_pid "$NGINX_PID"
  NGINX_URL="http://127.0.0.1:$NGINX_PORT"
  local deadline=$((SECONDS + 20))
  until curl -s -o /dev/null --max-time 1 "$NGINX_URL/" 2>/dev/null; do
    kill -0 "$NGINX_PID" 2>/dev/null || { cat "$dir/error.log" >&2; die "nginx did not start"; }
    [ $SECONDS -lt $deadline ] || die "nginx did not answer"
    sleep 0.1
  done
}

# --- wrk -----------------------------------------------------------------------------------
# wrk_run LUA_FILE_OR_EMPTY URL WRK_ARGS...: runs wrk with report.lua (plus the given script),
# sets WRK_RPS WRK_P50 WRK_P99 WRK_REQUESTS WRK_ERRORS WRK_NON2XX WRK_EXTRA_* and keeps the
# raw output in $BENCH_TMP/wrk-last.txt.
WRK_SEQ=0
# jit_ticks PORT: CPU ticks (1/100 s) the JIT compiler threads of the Weft on PORT have used so far.
jit_ticks() {
  local pid; pid=$(pgrep -n -f "dev\.weft\.Main --port $1( |$)") || { echo 0; return; }
  local t sum=0 stat rest
  for t in /proc/"$pid"/task/*; do
    stat=$(cat "$t/stat" 2>/dev/null) || continue
    case "$stat" in *"(C1 CompilerThre"*|*"(C2 CompilerThre"*) ;; *) continue ;; esac
    rest=${stat##*) }; set -- $rest; sum=$((sum + ${12} + ${13}))
  done
  echo "$sum"
}

# warm_weft SECONDS SCRIPT URL WRK_ARGS...: runs wrk (with SCRIPT, or none if "") on URL in 5 s
# rounds for at least SECONDS, then
# until Weft's JIT compilers are quiet (under 0.1 s of CPU in a round: 1% of the two cores), for
# at most 60 s or SECONDS if longer.
# A fixed 5-10 s warm-up left the compilers busy for a third of a core through the first measured
# rows (5.9 CPU s in a 15 s row of `bench engine`), so those rows measured the JIT too.
warm_weft() {
  local least=$1 script=$2 url=$3; shift 3
  local port=${url#*://*:}; port=${port%%/*}
  local most=$(( least > 60 ? least : 60 )) spent=0 before after
  while [ "$spent" -lt "$most" ]; do
    before=$(jit_ticks "$port")
    wrk_run "$script" "$url" "$@" -d5s
    after=$(jit_ticks "$port"); spent=$((spent + 5))
    [ "$spent" -ge "$least" ] && [ $((after - before)) -lt 10 ] && break
  done
  log "bench:   warm-up ${spent}s (JIT compilers used $((after - before)) ticks in the last 5 s)"
}

wrk_run() {
  local script=$1 url=$2; shift 2
  WRK_SEQ=$((WRK_SEQ + 1))
  local lua="$BENCH_TMP/wrk-$WRK_SEQ.lua" out="$BENCH_TMP/wrk-$WRK_SEQ.txt"
  cat "$BENCH_LIB/report.lua" > "$lua"
  [ -n "$script" ] && cat "$script" >> "$lua"
  log "bench:   wrk $* ${WRK_AUTH:+(auth)} $url"
  timeout --signal=INT --kill-after=30 "${WRK_TIMEOUT:-900}" \
    wrk "$@" "${WRK_AUTH[@]}" --latency -s "$lua" "$url" > "$out" 2>&1 || {
      cat "$out" >&2; die "wrk failed on $url"; }
  cp "$out" "$BENCH_TMP/wrk-last.txt"
  local line; line=$(grep '^WRKRESULT ' "$out" | tail -n 1) || { cat "$out" >&2; die "no result from wrk"; }
  WRK_RPS=""; WRK_P50=""; WRK_P99=""; WRK_REQUESTS=""; WRK_SECONDS=""
  local kv k v errs=0 kinds=""
  for kv in ${line#WRKRESULT }; do
    case "$kv" in err_*=0) ;; err_*) kinds="$kinds ${kv#err_}" ;; esac
    k=${kv%%=*}; v=${kv#*=}
    case "$k" in
      rps) WRK_RPS=$v ;; p50_ms) WRK_P50=$v ;; p99_ms) WRK_P99=$v ;;
      requests) WRK_REQUESTS=$v ;; seconds) WRK_SECONDS=$v ;;
      non2xx) WRK_NON2XX=$v ;;
      err_*) errs=$((errs + v)) ;;
      *) printf -v "WRK_EXTRA_$k" '%s' "$v" ;;
    esac
  done
  WRK_ERRORS=$errs
  if [ "${WRK_NON2XX:-0}" != 0 ] || [ "$errs" != 0 ]; then
    log "bench:   WARNING: $WRK_NON2XX non-2xx answers, $errs socket errors (${kinds# }) on $url"
    WRK_WARNINGS=$(( ${WRK_WARNINGS:-0} + 1 ))
  fi
}

# --- output --------------------------------------------------------------------------------
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "n/a" }'; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.0f%%", 100 * a / b; else printf "n/a" }'; }
fmt0() { awk -v a="$1" 'BEGIN { printf "%.0f", a }'; }
fmt2() { awk -v a="$1" 'BEGIN { printf "%.2f", a }'; }

print_machine() {
  local java_home; java_home=$(find_jdk25)
  echo "machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), $(uname -sr), $(awk '/MemTotal/ {printf "%.0f GiB RAM", $2/1048576}' /proc/meminfo)"
  echo "load generator: $(wrk -v 2>&1 | head -n1 | awk '{print $1, $2}') on the same cores; reference: nginx $("$NGINX_BIN" -v 2>&1 | sed 's/.*nginx\///'), worker_processes $NGINX_WORKERS, fixed bytes from memory"
  echo "java: $("$java_home/bin/java" -version 2>&1 | sed -n 2p)"
  [ -z "$PG_BIN" ] || echo "postgresql: $(pg_version) (throwaway cluster on the same cores, fsync=${BENCH_PG_FSYNC:-on}, shared_buffers=${BENCH_PG_SHARED_BUFFERS:-256MB})"
  echo "weft: $(git -C "$REPO_ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$REPO_ROOT" diff --quiet 2>/dev/null || echo ' (dirty)') $(git -C "$REPO_ROOT" rev-parse --abbrev-ref HEAD 2>/dev/null)"
  echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg) (the machine is shared: figures are comparable only within one run)"
}

# pg_cpu_ticks: CPU clock ticks (user + system) used so far by the primary started by start_pg:
# its postmaster, the children it has reaped (cutime, cstime: backends that exited) and those
# alive (backends, WAL writer, checkpointer...). A difference of two readings is PostgreSQL's CPU
# over that time.
pg_cpu_ticks() {
  local pm; pm=$(head -n 1 "${PG_DIRS[0]}/data/postmaster.pid")
  python3 - "$pm" <<'PY'
import os, sys
pm = sys.argv[1]
def stat(pid):
    s = open(f"/proc/{pid}/stat").read()
    return s[s.rindex(")") + 2:].split()
total = 0
f = stat(pm)
total += sum(int(x) for x in f[11:15])  # utime stime cutime cstime
for pid in os.listdir("/proc"):
    if not pid.isdigit() or pid == pm:
        continue
    try:
        f = stat(pid)
    except OSError:
        continue
    if f[1] == pm:
        total += int(f[11]) + int(f[12])
print(total)
PY
}
