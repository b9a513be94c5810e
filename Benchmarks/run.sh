#!/usr/bin/env bash
# Catbird vs nginx on loopback, with wrk. One run measures, at 1, 16 and 64 connections:
#   (a) a private nginx answering `return 200 '{"ok":true}'` (application/json), and
#   (b) Catbird answering a mock hit with the same body, every request journaled to SQLite,
# alternately (nginx, then Catbird, at each connection count) so both see the same machine
# conditions; then drives BENCH_RSS_REQUESTS journaled requests through Catbird and reads its
# peak RSS (VmHWM). Prints a markdown table and PASS/FAIL per floor; exits 1 on any FAIL.
#
# Floors:
#   throughput  at 64 connections Catbird >= 0.3 x nginx requests/s
#   journal     every request wrk counted as completed for Catbird is in the journal
#               (SELECT COUNT(*) FROM requests via POST /catbird/api/sql), and Catbird
#               answered no non-2xx/3xx and had no socket errors
#   memory      VmHWM < 100 MB after >= 1,000,000 journaled requests
#
# Environment:
#   BENCH_DURATION      wrk duration per measured run: 10s (default), 30s, 1m, or plain seconds
#   BENCH_QUICK=1       smoke run: 3s runs and 100,000 requests for the memory part
#   BENCH_RSS_REQUESTS  requests for the memory part (default 1000000; quick 100000)
#   BENCH_RSS_TIME_CAP  seconds the memory part may take at most (default 600)
#   BENCH_THREADS       Catbird --threads and nginx worker_processes (default: nproc)
#   BENCH_NO_BUILD=1    skip `swift build` (use the existing .build/release/catbird)
#   BENCH_KEEP=1        keep the temp dir (configs, logs, database) after the run
#
# Needs root to install wrk / nginx-light / curl when missing. Loopback (127.0.0.1) only.
# Results (summary and raw wrk output) are also written to Benchmarks/results/ (git-ignored).
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$BENCH_DIR/.." && pwd)"
HOST=127.0.0.1
BODY='{"ok":true}'
CONNECTION_COUNTS=(1 16 64)
THROUGHPUT_FLOOR=0.3
RSS_LIMIT_MB=100

# --- settings -----------------------------------------------------------------------------
QUICK="${BENCH_QUICK:-0}"
if [ "$QUICK" = "1" ]; then
    DEFAULT_DURATION=3s; DEFAULT_RSS_REQUESTS=100000; WARMUP_SECONDS=1
else
    DEFAULT_DURATION=10s; DEFAULT_RSS_REQUESTS=1000000; WARMUP_SECONDS=3
fi
DURATION_TEXT="${BENCH_DURATION:-$DEFAULT_DURATION}"
case "$DURATION_TEXT" in
    *[0-9]s) DURATION_SECONDS="${DURATION_TEXT%s}" ;;
    *[0-9]m) DURATION_SECONDS=$(( ${DURATION_TEXT%m} * 60 )) ;;
    *) DURATION_SECONDS="$DURATION_TEXT" ;;
esac
if ! [[ "$DURATION_SECONDS" =~ ^[0-9]+$ ]] || [ "$DURATION_SECONDS" -lt 1 ] || [ "$DURATION_SECONDS" -gt 3600 ]; then
    echo "run.sh: BENCH_DURATION must be 1s..3600s (got '$DURATION_TEXT')" >&2; exit 2
fi
RSS_REQUESTS="${BENCH_RSS_REQUESTS:-$DEFAULT_RSS_REQUESTS}"
RSS_TIME_CAP="${BENCH_RSS_TIME_CAP:-600}"
CORES="$(nproc)"
THREADS="${BENCH_THREADS:-$CORES}"
for value in "$RSS_REQUESTS" "$RSS_TIME_CAP" "$THREADS"; do
    [[ "$value" =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: not a positive integer: '$value'" >&2; exit 2; }
done
# wrk threads: one for one connection, else at most one per core (wrk shares the cores with
# the server under test; more threads than cores would only add context switches).
WRK_MAX_THREADS=$(( CORES < 2 ? 1 : 2 ))
WRK_TIMEOUT=10s   # a slow answer counts in the latency figures rather than as a timeout

# --- tools --------------------------------------------------------------------------------
find_nginx() {
    command -v nginx 2>/dev/null || { [ -x /usr/sbin/nginx ] && echo /usr/sbin/nginx; } || true
}
missing=()
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
[ -n "$(find_nginx)" ] || missing+=(nginx-light)
command -v curl >/dev/null 2>&1 || missing+=(curl)
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "run.sh: missing ${missing[*]}; run as root (or install them) first" >&2; exit 2
    fi
    echo "run.sh: installing ${missing[*]}" >&2
    # RUNLEVEL=1: keep the package's own nginx service from being started; we run a private one.
    if ! RUNLEVEL=1 DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null; then
        apt-get update -qq
        RUNLEVEL=1 DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
fi
NGINX="$(find_nginx)"
[ -n "$NGINX" ] || { echo "run.sh: nginx not found after install" >&2; exit 2; }

# Build dependencies (libmicrohttpd-dev, libsqlite3-dev, pkg-config) and swift on PATH.
# shellcheck source=../scripts/setup.sh
source "$ROOT/scripts/setup.sh"
cd "$ROOT"
if [ "${BENCH_NO_BUILD:-0}" != "1" ]; then
    echo "run.sh: building catbird (release)…" >&2
    swift build -c release --product catbird >&2
fi
CATBIRD_BIN="$(swift build -c release --show-bin-path)/catbird"
[ -x "$CATBIRD_BIN" ] || { echo "run.sh: $CATBIRD_BIN not found (build it first)" >&2; exit 2; }

# --- temp dir, cleanup ----------------------------------------------------------------------
WORK="$(mktemp -d "${TMPDIR:-/tmp}/catbird-bench.XXXXXX")"
RESULTS_DIR="$BENCH_DIR/results"
mkdir -p "$RESULTS_DIR"
STAMP="$(date -u +%Y%m%dT%H%M%SZ)"
RAW_LOG="$RESULTS_DIR/$STAMP-wrk.txt"
SUMMARY="$RESULTS_DIR/$STAMP-summary.md"
: >"$RAW_LOG"
NGINX_PID=""; CATBIRD_PID=""; WRK_PID=""

stop_pid() {  # stop_pid PID SIGNAL SECONDS: signal, wait up to SECONDS, then SIGKILL
    local pid="$1" signal="$2" seconds="$3" waited=0
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
    kill "-$signal" "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null && [ "$waited" -lt $(( seconds * 10 )) ]; do
        sleep 0.1; waited=$(( waited + 1 ))
    done
    if kill -0 "$pid" 2>/dev/null; then
        echo "run.sh: pid $pid did not exit within ${seconds}s of SIG$signal; sending SIGKILL" >&2
        kill -KILL "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
}
cleanup() {
    local status=$?
    trap - EXIT INT TERM
    progress "stopping the servers"
    stop_pid "$WRK_PID" INT 5
    stop_pid "$NGINX_PID" TERM 10      # the master stops its workers
    # On SIGTERM Catbird writes the queued journal and exits 0 (as deploy/xcode/stop.sh expects).
    stop_pid "$CATBIRD_PID" TERM 10
    progress "stopped"
    if [ "${BENCH_KEEP:-0}" = "1" ]; then
        echo "run.sh: kept $WORK" >&2
    else
        rm -rf "$WORK"
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- helpers ------------------------------------------------------------------------------
free_port() {
    if command -v python3 >/dev/null 2>&1; then
        python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' && return
    fi
    local port tries=0
    while [ "$tries" -lt 200 ]; do
        port=$(( 20000 + RANDOM % 30000 ))
        if ! ss -Htln "sport = :$port" 2>/dev/null | grep -q .; then echo "$port"; return; fi
        tries=$(( tries + 1 ))
    done
    echo "run.sh: no free port found" >&2; return 1
}

wait_http() {  # wait_http URL NAME PID: up to 15 s for a 2xx answer
    local url="$1" name="$2" pid="$3" i
    for i in $(seq 1 150); do
        curl -fsS -o /dev/null --max-time 1 "$url" 2>/dev/null && return 0
        kill -0 "$pid" 2>/dev/null || { echo "run.sh: $name exited while starting" >&2; return 1; }
        sleep 0.1
    done
    echo "run.sh: $name did not answer $url within 15 s" >&2; return 1
}

journal_count() {  # prints COUNT(*) of the journal (the SQL route flushes the writer first)
    local answer
    answer="$(curl -fsS --max-time 60 -X POST -H 'Content-Type: application/json' \
        --data '{"sql":"SELECT COUNT(*) FROM requests"}' "$CATBIRD_URL/catbird/api/sql")" || {
        echo "run.sh: SQL route failed" >&2; return 1; }
    echo "$answer" | grep -o '"rows":\[\[[0-9]*' | grep -o '[0-9]*$' || {
        echo "run.sh: unexpected SQL answer: $answer" >&2; return 1; }
}

vm_field_mb() {  # vm_field_mb PID FIELD: /proc/PID/status field (kB) in MB, one decimal
    awk -v field="$2:" '$1 == field { printf "%.1f", $2 / 1024 }' "/proc/$1/status"
}

to_ms() {  # wrk latency ("850.00us", "1.23ms", "2.01s", "1.5m") in milliseconds
    awk -v v="$1" 'BEGIN {
        n = v + 0
        if (v ~ /us$/) n = n / 1000; else if (v ~ /ms$/) n = n; else if (v ~ /m$/) n = n * 60000;
        else if (v ~ /h$/) n = n * 3600000; else if (v ~ /s$/) n = n * 1000
        printf "%.3f", n }'
}

# parse_wrk FILE PREFIX: sets PREFIX_rps, PREFIX_p99 (ms), PREFIX_done, PREFIX_non2xx, PREFIX_sockerr
parse_wrk() {
    local file="$1" prefix="$2" rps p99 completed non2xx sockerr
    rps="$(awk '/^Requests\/sec:/ { print $2 }' "$file")"
    p99="$(awk '$1 == "99%" { print $2; exit }' "$file")"
    completed="$(awk '/ requests in / { print $1; exit }' "$file")"
    non2xx="$(awk '/Non-2xx or 3xx responses:/ { print $NF }' "$file")"
    sockerr="$(awk '/Socket errors:/ { gsub(",", ""); print $4 + $6 + $8 + $10 }' "$file")"
    [ -n "$rps" ] && [ -n "$p99" ] && [ -n "$completed" ] || {
        echo "run.sh: cannot parse wrk output $file:" >&2; cat "$file" >&2; return 1; }
    printf -v "${prefix}_rps" '%s' "$rps"
    printf -v "${prefix}_p99" '%s' "$(to_ms "$p99")"
    printf -v "${prefix}_done" '%s' "$completed"
    printf -v "${prefix}_non2xx" '%s' "${non2xx:-0}"
    printf -v "${prefix}_sockerr" '%s' "${sockerr:-0}"
}

run_wrk() {  # run_wrk NAME URL CONNECTIONS SECONDS OUTFILE [extra wrk args…]
    local name="$1" url="$2" connections="$3" seconds="$4" out="$5"; shift 5
    local threads=$(( connections < WRK_MAX_THREADS ? connections : WRK_MAX_THREADS ))
    {
        echo "### $name, $connections connection(s), ${seconds}s"
        wrk "-t$threads" "-c$connections" "-d${seconds}s" --timeout "$WRK_TIMEOUT" --latency "$@" "$url"
        echo
    } >"$out" 2>&1
    cat "$out" >>"$RAW_LOG"
}

progress() { echo "run.sh [+${SECONDS}s] $*" >&2; }

load_note() {
    echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $CORES cores"
}

# --- servers --------------------------------------------------------------------------------
NGINX_PORT="$(free_port)"
CATBIRD_PORT="$(free_port)"
while [ "$CATBIRD_PORT" = "$NGINX_PORT" ]; do CATBIRD_PORT="$(free_port)"; done
NGINX_URL="http://$HOST:$NGINX_PORT"
CATBIRD_URL="http://$HOST:$CATBIRD_PORT"

temp_paths=""
nginx_build="$("$NGINX" -V 2>&1)"
for module in proxy fastcgi uwsgi scgi; do
    case "$nginx_build" in
        *"--without-http_${module}_module"*) ;;
        *) temp_paths+="    ${module}_temp_path $WORK/$module;"$'\n' ;;
    esac
done
template="$(cat "$BENCH_DIR/nginx.conf.template")"
template="${template//@PREFIX@/$WORK}"
template="${template//@PORT@/$NGINX_PORT}"
template="${template//@WORKERS@/$THREADS}"
template="${template//@TEMP_PATHS@/$temp_paths}"
printf '%s\n' "$template" >"$WORK/nginx.conf"
"$NGINX" -p "$WORK" -c "$WORK/nginx.conf" -e "$WORK/error.log" -t -q || {
    echo "run.sh: nginx rejects $WORK/nginx.conf" >&2; exit 2; }
"$NGINX" -p "$WORK" -c "$WORK/nginx.conf" -e "$WORK/error.log" >"$WORK/nginx.out" 2>&1 &
NGINX_PID=$!
wait_http "$NGINX_URL/bench" nginx "$NGINX_PID"

# Retention off: the journal floor counts every request, and the run writes more rows than the
# default --journal-max-rows (Benchmarks/soak.py measures retention).
"$CATBIRD_BIN" serve --host "$HOST" --port "$CATBIRD_PORT" --db "$WORK/bench.sqlite" \
    --log-level warning --threads "$THREADS" \
    --journal-max-rows off --journal-max-age off --tenant-ttl off >"$WORK/catbird.log" 2>&1 &
CATBIRD_PID=$!
wait_http "$CATBIRD_URL/catbird/api/health" catbird "$CATBIRD_PID"

body_base64="$(printf '%s' "$BODY" | base64 | tr -d '\n')"
mock_status="$(curl -sS -o "$WORK/mock-answer.json" -w '%{http_code}' --max-time 10 -X POST \
    -H 'Content-Type: application/json' "$CATBIRD_URL/catbird/api/mocks" --data \
    "{\"type\":\"update\",\"pattern\":{\"method\":\"GET\",\"url\":{\"kind\":\"equal\",\"value\":\"/bench\"},\"headers\":{}},\"response\":{\"status\":200,\"headers\":{\"Content-Type\":\"application/json\"},\"body\":\"$body_base64\"}}")"
[ "$mock_status" = "201" ] || {
    echo "run.sh: adding the mock answered $mock_status: $(cat "$WORK/mock-answer.json")" >&2; exit 1; }

for server in nginx catbird; do
    url="$NGINX_URL/bench"; [ "$server" = catbird ] && url="$CATBIRD_URL/bench"
    answer="$(curl -sS --max-time 5 -D "$WORK/$server.headers" "$url")"
    if [ "$answer" != "$BODY" ] || ! grep -qi '^content-type: *application/json' "$WORK/$server.headers"; then
        echo "run.sh: $server answered '$answer' (headers: $(tr -d '\r' <"$WORK/$server.headers" | tr '\n' ' '))" >&2
        exit 1
    fi
done

# --- measured runs ----------------------------------------------------------------------------
{
    echo "# Catbird vs nginx — $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo
    echo "- machine: $CORES cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo); $(load_note) before the run"
    echo "- wrk $(wrk -v 2>&1 | head -1 | awk '{ print $2 }'), ${DURATION_SECONDS}s per run, -t1 at 1 connection, -t$WRK_MAX_THREADS otherwise, --timeout $WRK_TIMEOUT"
    echo "- nginx $("$NGINX" -v 2>&1 | sed 's|.*/||'): worker_processes $THREADS, access_log off, return 200 '$BODY'"
    echo "- Catbird $("$CATBIRD_BIN" --version | awk '{ print $NF }') (release): --threads $THREADS, --log-level warning, retention off, journal in SQLite ($WORK/bench.sqlite)"
    echo
} | tee "$SUMMARY"

progress "warming up (${WARMUP_SECONDS}s each)"
run_wrk "nginx warm-up" "$NGINX_URL/bench" 16 "$WARMUP_SECONDS" "$WORK/warmup-nginx.txt"
run_wrk "catbird warm-up" "$CATBIRD_URL/bench" 16 "$WARMUP_SECONDS" "$WORK/warmup-catbird.txt"

journal_before="$(journal_count)"
catbird_completed=0; catbird_errors=0; nginx_errors=0
declare -A result
for connections in "${CONNECTION_COUNTS[@]}"; do
    for server in nginx catbird; do
        url="$NGINX_URL/bench"; [ "$server" = catbird ] && url="$CATBIRD_URL/bench"
        progress "$server, $connections connection(s), ${DURATION_SECONDS}s"
        out="$WORK/wrk-$server-c$connections.txt"
        run_wrk "$server" "$url" "$connections" "$DURATION_SECONDS" "$out"
        parse_wrk "$out" r
        result[$server,$connections,rps]="$r_rps"
        result[$server,$connections,p99]="$r_p99"
        result[$server,$connections,err]=$(( r_non2xx + r_sockerr ))
        if [ "$server" = catbird ]; then
            catbird_completed=$(( catbird_completed + r_done ))
            catbird_errors=$(( catbird_errors + r_non2xx + r_sockerr ))
        else
            nginx_errors=$(( nginx_errors + r_non2xx + r_sockerr ))
        fi
    done
done
progress "counting the journal"
journal_after="$(journal_count)"
journal_delta=$(( journal_after - journal_before ))
hwm_after_runs="$(vm_field_mb "$CATBIRD_PID" VmHWM)"

# --- memory part --------------------------------------------------------------------------------
rss_threads="$WRK_MAX_THREADS"
per_thread=$(( (RSS_REQUESTS + rss_threads - 1) / rss_threads ))
mkdir -p "$WORK/rss-done"
progress "memory part: $RSS_REQUESTS requests at 64 connections (cap ${RSS_TIME_CAP}s)"
rss_journal_before="$(journal_count)"
rss_started=$SECONDS
wrk "-t$rss_threads" -c64 "-d${RSS_TIME_CAP}s" --timeout "$WRK_TIMEOUT" --latency \
    -s "$BENCH_DIR/count.lua" "$CATBIRD_URL/bench" -- "$per_thread" "$WORK/rss-done" \
    >"$WORK/wrk-rss.txt" 2>&1 &
WRK_PID=$!
# Every thread drops a marker when it has its share; then SIGINT ends wrk's sleep at once.
while kill -0 "$WRK_PID" 2>/dev/null; do
    finished="$(find "$WORK/rss-done" -name 'done.*' | wc -l)"
    if [ "$finished" -ge "$rss_threads" ]; then kill -INT "$WRK_PID" 2>/dev/null || true; break; fi
    sleep 0.5
done
wait "$WRK_PID" || true
WRK_PID=""
rss_seconds=$(( SECONDS - rss_started ))
{ echo "### catbird memory part, 64 connections, $RSS_REQUESTS requests"; cat "$WORK/wrk-rss.txt"; echo; } >>"$RAW_LOG"
parse_wrk "$WORK/wrk-rss.txt" rss
progress "wrk done; counting the journal"
rss_journal_after="$(journal_count)"
rss_journal_delta=$(( rss_journal_after - rss_journal_before ))
hwm_mb="$(vm_field_mb "$CATBIRD_PID" VmHWM)"
rss_now_mb="$(vm_field_mb "$CATBIRD_PID" VmRSS)"
db_mb="$(du -cm "$WORK"/bench.sqlite* | awk 'END { print $1 }')"

# --- report ---------------------------------------------------------------------------------
verdict() { if [ "$1" = 1 ]; then echo PASS; else echo FAIL; fi; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
fmt_rps() { awk -v v="$1" 'BEGIN { printf "%.0f", v }'; }
fmt_ms() { awk -v v="$1" 'BEGIN { printf "%.2f", v }'; }

throughput_ratio="$(ratio "${result[catbird,64,rps]}" "${result[nginx,64,rps]}")"
throughput_ok="$(awk -v r="$throughput_ratio" -v f="$THROUGHPUT_FLOOR" 'BEGIN { print (r != "n/a" && r + 0 >= f) ? 1 : 0 }')"
journal_ok=$(( journal_delta >= catbird_completed ? 1 : 0 ))
errors_ok=$(( catbird_errors == 0 ? 1 : 0 ))
rss_count_ok=$(( rss_journal_delta >= RSS_REQUESTS && rss_journal_delta >= rss_done && rss_done >= RSS_REQUESTS ? 1 : 0 ))
rss_ok="$(awk -v m="$hwm_mb" -v l="$RSS_LIMIT_MB" -v c="$rss_count_ok" 'BEGIN { print (c == 1 && m + 0 < l) ? 1 : 0 }')"
failures=$(( 4 - throughput_ok - journal_ok - errors_ok - rss_ok ))

{
    echo "| connections | nginx req/s | Catbird req/s | Catbird/nginx | nginx p99 (ms) | Catbird p99 (ms) | p99 Catbird/nginx | errors nginx / Catbird |"
    echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
    for connections in "${CONNECTION_COUNTS[@]}"; do
        echo "| $connections | $(fmt_rps "${result[nginx,$connections,rps]}") | $(fmt_rps "${result[catbird,$connections,rps]}") | $(ratio "${result[catbird,$connections,rps]}" "${result[nginx,$connections,rps]}") | $(fmt_ms "${result[nginx,$connections,p99]}") | $(fmt_ms "${result[catbird,$connections,p99]}") | $(ratio "${result[catbird,$connections,p99]}" "${result[nginx,$connections,p99]}") | ${result[nginx,$connections,err]} / ${result[catbird,$connections,err]} |"
    done
    echo
    echo "Errors = wrk's non-2xx/3xx responses + socket errors (connect, read, write, timeout)."
    echo
    echo "- $(verdict "$throughput_ok") throughput: at 64 connections Catbird/nginx = $throughput_ratio (floor ≥ $THROUGHPUT_FLOOR)"
    echo "- $(verdict "$journal_ok") journal: wrk completed $catbird_completed Catbird requests in the measured runs; the journal grew by $journal_delta ($(( journal_delta - catbird_completed )) more = requests still in flight when wrk stopped)"
    echo "- $(verdict "$errors_ok") Catbird errors: $catbird_errors non-2xx/socket errors in the measured runs (nginx: $nginx_errors)"
    echo "- $(verdict "$rss_ok") memory: Catbird VmHWM $hwm_mb MB (floor < $RSS_LIMIT_MB MB) after $rss_done requests at 64 connections in ${rss_seconds}s ($(fmt_rps "$rss_rps") req/s, p99 $(fmt_ms "$rss_p99") ms, errors $(( rss_non2xx + rss_sockerr ))); journal grew by $rss_journal_delta to $rss_journal_after rows (need ≥ $RSS_REQUESTS); VmRSS now $rss_now_mb MB, VmHWM after the measured runs $hwm_after_runs MB; database files $db_mb MB"
    echo
    echo "- $(load_note) after the run"
    if [ "$failures" -eq 0 ]; then echo "- result: PASS"; else echo "- result: FAIL ($failures floor(s) missed)"; fi
} | tee -a "$SUMMARY"
echo "(summary: $SUMMARY, raw wrk output: $RAW_LOG)" >&2

[ "$failures" -eq 0 ] || exit 1
