#!/usr/bin/env bash
# Catbird on loopback, with wrk, in one invocation, every figure judged against a reference
# measured in the same invocation (never against a figure from another run). The one-mock hit,
# its p50/p99, the 64 KiB and 16 KiB bodies run nginx then Catbird back to back and are
# reported as ratios to nginx's figure. The flat-scaling scenarios (many mocks, misses, 8
# tenants) run Catbird only, interleaved with their Catbird reference: BENCH_ROUNDS short rounds
# of reference, scenario, reference, next scenario, ..., each round's ratio taken against the
# reference runs right before and after it, the median of the rounds judged and every round
# printed (see interleave below and Benchmarks/README.md). Scenarios (issue 7):
#   hit c1/c16/c64   one mock (GET /bench, {"ok":true}), every request journaled to SQLite;
#                    p50/p99 at 1 and 64 connections (nginx beside)
#   ceiling c64      catbird-bare-mhd (Benchmarks/BareMHD): a bare libmicrohttpd handler started
#                    as Catbird's server starts its daemon, answering one response made at start
#                    (no journal): what libmicrohttpd and the kernel allow here, right after the
#                    one-mock 64-connection pair
#   strict c64       the same against a second Catbird started with --durability strict (issue 9),
#                    right after the default (relaxed) Catbird's 64-connection run
# interleaved with the one-mock hit (reference):
#   equal 1k / 10k   a tenant with 1,000 / 10,000 equal-URL mocks, hitting the last one added
#   mix 100 / 1k     a tenant with 100 / 1,000 mocks, half wildcard, half regexp: hitting the
#                    last one added
#   hit, miss.lua    the one-mock hit through miss.lua's request() (`-- hit`: every request is
#                    /bench; reported only: the misses' reference, with the same client work per
#                    request, a Lua call returning a request made in init(); its ratio to the
#                    plain hit is wrk's script cost, docs/matching.md#measuring-a-miss)
#   1 tenant, id     one tenant's mock with X-Catbird-Parallel-Id sent (reported only: the 8
#                    tenants' reference; its ratio to the plain hit is the header's cost)
# interleaved with the hit through miss.lua (reference):
#   mix misses       URLs none of the mix tenants' mocks matches (404; miss.lua: another
#                    /miss/<letters> per request, from 4,096 per wrk thread made in init())
#   1 mock, miss     the same misses in a tenant with one equal-URL mock (reported only: how the
#                    404's near-miss search scales from 1 to 100 to 1,000 mocks)
# interleaved with one tenant, id sent (reference):
#   8 tenants        64 connections spread over 8 tenants, each with its own mock
# then, nginx beside:
#   64 KiB body      a mock answering 65,536 bytes (nginx: a static file of the same size)
#   POST 16 KiB      a POST with a 16,384-byte body (nginx: return 200)
#   visibility       while wrk drives 64 connections at /bench: the time from a mock update's
#                    201 to the answer of the first request that sees it, beside a reference:
#                    the same client's GET of a mock no update touches, after each round (plain
#                    request latency under the same load), and that GET again after a pause as
#                    long as the round's update call (kernel-timed only: a plain request that
#                    follows a pause, as the visible one does); two measures of each (control.py):
#                    from writing the GET to the kernel's receive timestamp of its answer
#                    (judged), and the client's own clock from reading the 201 to reading the
#                    answer (which adds the measuring client's wake-ups on the loaded cores)
#   memory           a fresh Catbird (new process and database): BENCH_RSS_REQUESTS journaled
#                    requests, then its peak RSS (VmHWM)
#   journal queries  journal-queries.sh: POST /catbird/api/requests/count over a tenant journal
#                    of BENCH_JOURNAL_ROWS rows (written by SQL before its server starts) for
#                    each pattern kind, beside the same question as plain SQL (sqlite3 CLI)
# and the journal writer's longest queue and rows per commit (from /catbird/metrics).
#
# Targets (issue 7; PASS/FAIL each, exit 1 on any FAIL):
#   hit c64              Catbird ≥ 0.5 × nginx requests/s
#   strict c64           --durability strict ≥ 0.7 × the default (relaxed) Catbird's requests/s of
#                        the same run, and its p99 < 10 ms (issue 9); every answered request is in
#                        its journal
#   p99 c64              Catbird ≤ 2 × nginx's p99
#   equal / mix hits     the median of the rounds' ratios to the interleaved one-mock hit ≥ 0.8
#   mix misses           the same against the interleaved hit through miss.lua (the same client work)
#   8 tenants            the same against one tenant with the parallel id sent, interleaved
#   64 KiB, POST 16 KiB  reported only (issue 7 sets no target; the journal keeps up to 64 KiB
#                        of each body, so these measure the journal writer's bytes per second)
#   1 mock, miss         reported only (its ratio to the hit through miss.lua, beside the 100 / 1,000 misses')
#   visibility           p99 < 5 ms, from the GET's write to its answer's kernel receive time
#   memory               VmHWM < 64 MB after ≥ 1,000,000 journaled requests (quick: fewer)
#   journal              every request wrk completed against Catbird's one-mock runs is in the
#                        journal (SELECT COUNT(*) FROM requests via POST /catbird/api/sql)
#   errors               no socket errors anywhere, no non-2xx except the 404 scenarios'
#   journal queries      every count under 1 s, with the count the SQL reference gives
#
# Environment:
#   BENCH_DURATION      wrk duration per measured run: 10s (default), 30s, 1m, or plain seconds
#   BENCH_QUICK=1       smoke run: 2s runs, 2 interleaved rounds of 1s, 100,000 requests for the
#                       memory part, 100 visibility rounds, 1,000 instead of 10,000 equal mocks
#   BENCH_ROUNDS        interleaved rounds of the flat-scaling scenarios (default 5; quick 2)
#   BENCH_ROUND_SECONDS wrk duration of each interleaved run (default 3; quick 1)
#   BENCH_RSS_REQUESTS  requests for the memory part (default 1000000; quick 100000)
#   BENCH_RSS_TIME_CAP  seconds the memory part may take at most (default 600)
#   BENCH_JOURNAL_ROWS  rows of the counted tenant's journal (default 1500000; quick 300000)
#   BENCH_THREADS       Catbird --threads and nginx worker_processes (default: nproc)
#   BENCH_NO_BUILD=1    skip `swift build` (use the existing release catbird and catbird-bare-mhd:
#                       both must be built, `swift build -c release --product <name>`)
#   BENCH_KEEP=1        keep the temp dir (configs, logs, database) after the run
#
# Needs root to install wrk / nginx-light / curl / python3 when missing. Loopback only.
# Results (summary and raw wrk output) are also written to Benchmarks/results/ (git-ignored).
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$BENCH_DIR/.." && pwd)"
HOST=127.0.0.1
BODY='{"ok":true}'
CONNECTION_COUNTS=(1 16 64)
THROUGHPUT_TARGET=0.5      # × nginx at 64 connections
P99_TARGET=2               # Catbird p99 ≤ this × nginx p99 at 64 connections
FLAT_TARGET=0.8            # many mocks / tenants: ≥ this × the one-mock figure
VISIBILITY_TARGET_MS=5     # p99
RSS_LIMIT_MB=64
STRICT_TARGET=0.7          # --durability strict: ≥ this × the default (relaxed) Catbird at 64 connections
STRICT_P99_TARGET_MS=10    # --durability strict: p99 below this at 64 connections
BIG_BODY_BYTES=65536
UPLOAD_BYTES=16384

# --- settings -----------------------------------------------------------------------------
QUICK="${BENCH_QUICK:-0}"
if [ "$QUICK" = "1" ]; then
    DEFAULT_DURATION=2s; DEFAULT_RSS_REQUESTS=100000; WARMUP_SECONDS=1
    VISIBILITY_ROUNDS=100; MANY_EQUAL=1000; DEFAULT_JOURNAL_ROWS=300000
    DEFAULT_ROUNDS=2; DEFAULT_ROUND_SECONDS=1
else
    # 2,000 visibility rounds (about 15 s on an idle machine, plus the pauses before the idle reference: as long again as the update calls took): the p99 is then the 20th slowest
    # round rather than the 3rd of 300, which the last sessions' full runs put anywhere from 4.70 to 8.38 ms.
    DEFAULT_DURATION=10s; DEFAULT_RSS_REQUESTS=1000000; WARMUP_SECONDS=3
    VISIBILITY_ROUNDS=2000; MANY_EQUAL=10000; DEFAULT_JOURNAL_ROWS=1500000
    DEFAULT_ROUNDS=5; DEFAULT_ROUND_SECONDS=3
fi
JOURNAL_ROWS="${BENCH_JOURNAL_ROWS:-$DEFAULT_JOURNAL_ROWS}"
# The flat-scaling scenarios' interleaved rounds (interleave.sh): by default 5 rounds of 3 s.
ROUNDS="${BENCH_ROUNDS:-$DEFAULT_ROUNDS}"
ROUND_SECONDS="${BENCH_ROUND_SECONDS:-$DEFAULT_ROUND_SECONDS}"
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
for value in "$RSS_REQUESTS" "$RSS_TIME_CAP" "$THREADS" "$ROUNDS" "$ROUND_SECONDS"; do
    [[ "$value" =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: not a positive integer: '$value'" >&2; exit 2; }
done
# wrk threads: one for one connection, else at most one per core (wrk shares the cores with
# the server under test; more threads than cores would only add context switches).
WRK_MAX_THREADS=$(( CORES < 2 ? 1 : 2 ))
WRK_TIMEOUT=10s   # a slow answer counts in the latency figures rather than as a timeout

# --- products -----------------------------------------------------------------------------
# Build dependencies (libmicrohttpd-dev, libsqlite3-dev, pkg-config) and swift on PATH.
# shellcheck source=../scripts/setup.sh
source "$ROOT/scripts/setup.sh"
cd "$ROOT"
BIN_DIR="$(swift build -c release --show-bin-path)"
CATBIRD_BIN="$BIN_DIR/catbird"
BARE_BIN="$BIN_DIR/catbird-bare-mhd"
check_products() {  # exit 2 naming the first release product not built
    local binary
    for binary in "$CATBIRD_BIN" "$BARE_BIN"; do
        [ -x "$binary" ] || {
            echo "run.sh: $binary not found: BENCH_NO_BUILD=1 uses the built release products catbird and catbird-bare-mhd;" \
                "build it with: swift build -c release --product $(basename "$binary")" >&2
            exit 2
        }
    done
}
# Without a build the products must be there already: said before any benchmark tool is installed.
if [ "${BENCH_NO_BUILD:-0}" = "1" ]; then check_products; fi

# --- tools --------------------------------------------------------------------------------
find_nginx() {
    command -v nginx 2>/dev/null || { [ -x /usr/sbin/nginx ] && echo /usr/sbin/nginx; } || true
}
missing=()
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
[ -n "$(find_nginx)" ] || missing+=(nginx-light)
command -v curl >/dev/null 2>&1 || missing+=(curl)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
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

if [ "${BENCH_NO_BUILD:-0}" != "1" ]; then
    echo "run.sh: building catbird (release)…" >&2
    swift build -c release --product catbird >&2
    swift build -c release --product catbird-bare-mhd >&2
    check_products
fi

# --- temp dir, cleanup ----------------------------------------------------------------------
WORK="$(mktemp -d "${TMPDIR:-/tmp}/catbird-bench.XXXXXX")"
RESULTS_DIR="$BENCH_DIR/results"
mkdir -p "$RESULTS_DIR"
STAMP="$(date -u +%Y%m%dT%H%M%SZ)"
RAW_LOG="$RESULTS_DIR/$STAMP-wrk.txt"
SUMMARY="$RESULTS_DIR/$STAMP-summary.md"
: >"$RAW_LOG"
NGINX_PID=""; CATBIRD_PID=""; STRICT_PID=""; BARE_PID=""; WRK_PID=""; LOAD_PID=""

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
    stop_pid "$LOAD_PID" INT 5
    stop_pid "$NGINX_PID" TERM 10      # the master stops its workers
    # On SIGTERM Catbird writes the queued journal and exits 0 (as deploy/xcode/stop.sh expects).
    stop_pid "$CATBIRD_PID" TERM 10
    stop_pid "$STRICT_PID" TERM 10
    stop_pid "$BARE_PID" TERM 10
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

journal_count() {  # [URL]: prints COUNT(*) of the journal (the SQL route flushes the writer first)
    local answer
    answer="$(curl -fsS --max-time 60 -X POST -H 'Content-Type: application/json' \
        --data '{"sql":"SELECT COUNT(*) FROM requests"}' "${1:-$CATBIRD_URL}/catbird/api/sql")" || {
        echo "run.sh: SQL route failed" >&2; return 1; }
    echo "$answer" | grep -o '"rows":\[\[[0-9]*' | grep -o '[0-9]*$' || {
        echo "run.sh: unexpected SQL answer: $answer" >&2; return 1; }
}

vm_field_mb() {  # vm_field_mb PID FIELD: /proc/PID/status field (kB) in MB, one decimal
    awk -v field="$2:" '$1 == field { printf "%.1f", $2 / 1024 }' "/proc/$1/status"
}

# to_ms, parse_wrk, run_wrk (wrk-run.sh) and the interleaved rounds (interleave.sh).
# shellcheck source=wrk-run.sh
source "$BENCH_DIR/wrk-run.sh"
# shellcheck source=interleave.sh
source "$BENCH_DIR/interleave.sh"

progress() { echo "run.sh [+${SECONDS}s] $*" >&2; }

load_note() {
    echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $CORES cores"
}

# --- servers --------------------------------------------------------------------------------
NGINX_PORT="$(free_port)"
CATBIRD_PORT="$(free_port)"
while [ "$CATBIRD_PORT" = "$NGINX_PORT" ]; do CATBIRD_PORT="$(free_port)"; done
STRICT_PORT="$(free_port)"
while [ "$STRICT_PORT" = "$NGINX_PORT" ] || [ "$STRICT_PORT" = "$CATBIRD_PORT" ]; do STRICT_PORT="$(free_port)"; done
NGINX_URL="http://$HOST:$NGINX_PORT"
CATBIRD_URL="http://$HOST:$CATBIRD_PORT"
STRICT_URL="http://$HOST:$STRICT_PORT"
BARE_PORT="$(free_port)"
while [ "$BARE_PORT" = "$NGINX_PORT" ] || [ "$BARE_PORT" = "$CATBIRD_PORT" ] || [ "$BARE_PORT" = "$STRICT_PORT" ]; do BARE_PORT="$(free_port)"; done
BARE_URL="http://$HOST:$BARE_PORT"

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
# The 64 KiB scenario's file, the same bytes as Catbird's /big mock (control.py big:). nginx's
# workers run as an unprivileged user when started as root: they may pass through the temp dir
# (711, not list it) and read the file.
python3 -c 'import sys; sys.stdout.buffer.write(bytes(i * 31 % 251 for i in range(int(sys.argv[1]))))' \
    "$BIG_BODY_BYTES" >"$WORK/big.bin"
chmod 711 "$WORK"
chmod 644 "$WORK/big.bin"
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
# The same with --durability strict (an answer leaves once its journal row is committed), idle
# until its one run right after the default Catbird's 64-connection run.
"$CATBIRD_BIN" serve --host "$HOST" --port "$STRICT_PORT" --db "$WORK/strict.sqlite" \
    --log-level warning --threads "$THREADS" --durability strict \
    --journal-max-rows off --journal-max-age off --tenant-ttl off >"$WORK/catbird-strict.log" 2>&1 &
STRICT_PID=$!
wait_http "$STRICT_URL/catbird/api/health" "catbird --durability strict" "$STRICT_PID"
# The ceiling: a bare libmicrohttpd handler with Catbird's daemon settings, idle until its run.
"$BARE_BIN" "$BARE_PORT" "$THREADS" >"$WORK/bare.log" 2>&1 &
BARE_PID=$!
wait_http "$BARE_URL/bench" catbird-bare-mhd "$BARE_PID"

# --- mocks --------------------------------------------------------------------------------------
CONTROL=(python3 "$BENCH_DIR/control.py" "$CATBIRD_PORT")
progress "adding the scenarios' mocks"
"${CONTROL[@]}" mocks "" bench
"${CONTROL[@]}" mocks "" "big:$BIG_BODY_BYTES"
"${CONTROL[@]}" mocks "" upload
"${CONTROL[@]}" mocks equal1k equal:1000
[ "$MANY_EQUAL" = 1000 ] || "${CONTROL[@]}" mocks equalmany "equal:$MANY_EQUAL"
"${CONTROL[@]}" mocks miss1 bench
"${CONTROL[@]}" mocks mix100 mix:100
"${CONTROL[@]}" mocks mix1k mix:1000
for i in 0 1 2 3 4 5 6 7; do "${CONTROL[@]}" mocks "t$i" bench; done
python3 "$BENCH_DIR/control.py" "$STRICT_PORT" mocks "" bench
[ "$(curl -sS --max-time 5 "$STRICT_URL/bench")" = "$BODY" ] || { echo "run.sh: the strict Catbird's /bench answers differently" >&2; exit 1; }

for server in nginx catbird; do
    url="$NGINX_URL/bench"; [ "$server" = catbird ] && url="$CATBIRD_URL/bench"
    answer="$(curl -sS --max-time 5 -D "$WORK/$server.headers" "$url")"
    if [ "$answer" != "$BODY" ] || ! grep -qi '^content-type: *application/json' "$WORK/$server.headers"; then
        echo "run.sh: $server answered '$answer' (headers: $(tr -d '\r' <"$WORK/$server.headers" | tr '\n' ' '))" >&2
        exit 1
    fi
    url="$NGINX_URL/big"; [ "$server" = catbird ] && url="$CATBIRD_URL/big"
    cmp -s <(curl -sS --max-time 5 "$url") "$WORK/big.bin" || { echo "run.sh: $server's /big differs from big.bin" >&2; exit 1; }
done
# Each Catbird scenario's URL answers as planned before it is measured.
expect_status() {  # expect_status STATUS TENANT PATH
    local got
    got="$(curl -sS -o /dev/null -w '%{http_code}' --max-time 5 -H "X-Catbird-Parallel-Id: $2" "$CATBIRD_URL$3")"
    [ "$got" = "$1" ] || { echo "run.sh: GET $3 (tenant '$2') answered $got, expected $1" >&2; exit 1; }
}
expect_status 200 equal1k /m/999
[ "$MANY_EQUAL" = 1000 ] || expect_status 200 equalmany "/m/$(( MANY_EQUAL - 1 ))"
expect_status 200 mix100 /r/99/last
expect_status 200 mix1k /r/999/last
expect_status 404 mix1k /miss/nothing
expect_status 404 miss1 /miss/nothing
expect_status 200 t7 /bench

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

declare -A result
SCENARIOS=()
catbird_completed=0; socket_errors=0; unexpected_non2xx=0
# measure NAME LABEL CONNECTIONS NGINX_PATH CATBIRD_PATH EXPECT_404 [wrk args for both…]:
# nginx, then Catbird, with the same wrk arguments; results under result[NAME,server,…].
measure() {
    local name="$1" label="$2" connections="$3" nginx_path="$4" catbird_path="$5" expect_404="$6"; shift 6
    local server url out
    SCENARIOS+=("$name")
    result[$name,label]="$label"
    result[$name,connections]="$connections"
    for server in nginx catbird; do
        url="$NGINX_URL$nginx_path"; [ "$server" = catbird ] && url="$CATBIRD_URL$catbird_path"
        progress "$label: $server, $connections connection(s), ${DURATION_SECONDS}s"
        out="$WORK/wrk-$name-$server.txt"
        run_wrk "$label: $server" "$url" "$connections" "$DURATION_SECONDS" "$out" "$@"
        parse_wrk "$out" r
        result[$name,$server,rps]="$r_rps"
        result[$name,$server,p50]="$r_p50"
        result[$name,$server,p99]="$r_p99"
        socket_errors=$(( socket_errors + r_sockerr ))
        if [ "$server" = nginx ] || [ "$expect_404" != 1 ]; then
            unexpected_non2xx=$(( unexpected_non2xx + r_non2xx ))
        elif [ "$r_non2xx" -lt "$r_done" ]; then
            unexpected_non2xx=$(( unexpected_non2xx + r_done - r_non2xx ))  # a miss that answered 2xx
        fi
    done
}

journal_before="$(journal_count)"
for connections in "${CONNECTION_COUNTS[@]}"; do
    measure "hit$connections" "one mock, $connections conn." "$connections" /bench /bench 0
    catbird_completed=$(( catbird_completed + r_done ))
done
# The ceiling, right after the one-mock 64-connection pair, with the same wrk arguments.
run_wrk "bare warm-up" "$BARE_URL/bench" 16 "$WARMUP_SECONDS" "$WORK/warmup-bare.txt"
progress "one mock, 64 conn.: catbird-bare-mhd (ceiling), ${DURATION_SECONDS}s"
run_wrk "one mock, 64 conn.: catbird-bare-mhd (ceiling)" "$BARE_URL/bench" 64 "$DURATION_SECONDS" "$WORK/wrk-bare.txt"
parse_wrk "$WORK/wrk-bare.txt" bare
socket_errors=$(( socket_errors + bare_sockerr ))
unexpected_non2xx=$(( unexpected_non2xx + bare_non2xx ))
stop_pid "$BARE_PID" TERM 10
BARE_PID=""
progress "counting the journal"
journal_after="$(journal_count)"
journal_delta=$(( journal_after - journal_before ))
# Strict durability's cost: right after the default (relaxed) Catbird's 64-connection run (and
# its journal written, counted above), the same wrk run against the --durability strict Catbird.
run_wrk "strict warm-up" "$STRICT_URL/bench" 16 "$WARMUP_SECONDS" "$WORK/warmup-strict.txt"
strict_journal_before="$(journal_count "$STRICT_URL")"
progress "one mock, 64 conn.: catbird --durability strict, ${DURATION_SECONDS}s"
run_wrk "one mock, 64 conn.: catbird --durability strict" "$STRICT_URL/bench" 64 "$DURATION_SECONDS" "$WORK/wrk-strict.txt"
parse_wrk "$WORK/wrk-strict.txt" strict
socket_errors=$(( socket_errors + strict_sockerr ))
unexpected_non2xx=$(( unexpected_non2xx + strict_non2xx ))
strict_journal_delta=$(( $(journal_count "$STRICT_URL") - strict_journal_before ))
strict_commit_rows="$(python3 "$BENCH_DIR/control.py" "$STRICT_PORT" metrics | tr ' ' '\n' | awk -F= '$1 == "rows_per_commit" { print $2 }')"
stop_pid "$STRICT_PID" TERM 30
STRICT_PID=""

tenant() { echo "X-Catbird-Parallel-Id: $1"; }
# The flat-scaling scenarios, interleaved with their references (interleave.sh), Catbird only.
scenario hit "one mock" /bench 0 -
scenario equal1k "1,000 equal mocks, last" /m/999 0 "$FLAT_TARGET" -H "$(tenant equal1k)"
EQUAL_SCENARIOS=(equal1k)
if [ "$MANY_EQUAL" != 1000 ]; then
    scenario equalmany "$(printf "%'d" "$MANY_EQUAL") equal mocks, last" "/m/$(( MANY_EQUAL - 1 ))" 0 "$FLAT_TARGET" -H "$(tenant equalmany)"
    EQUAL_SCENARIOS+=(equalmany)
fi
scenario mix100hit "100 wildcard+regexp, last" /r/99/last 0 "$FLAT_TARGET" -H "$(tenant mix100)"
scenario mix1khit "1,000 wildcard+regexp, last" /r/999/last 0 "$FLAT_TARGET" -H "$(tenant mix1k)"
# The misses' reference: the one-mock hit through the misses' script (the same client work);
# in the first group too, so its own ratio to the plain hit (wrk's script cost) is measured.
scenario hitscript "one mock, through miss.lua" /bench 0 - -s "$BENCH_DIR/miss.lua" -- hit
# The 8 tenants' reference: one tenant's mock with the parallel id sent (the header's own cost,
# measured against the plain hit in the first group, is told apart from having 8 tenants).
scenario tenant1 "1 tenant, parallel id sent" /bench 0 - -H "$(tenant t0)"
scenario miss1 "1 equal mock, miss (404)" /miss/nothing 1 - -H "$(tenant miss1)" -s "$BENCH_DIR/miss.lua"
scenario mix100miss "100 wildcard+regexp, miss (404)" /miss/nothing 1 "$FLAT_TARGET" -H "$(tenant mix100)" -s "$BENCH_DIR/miss.lua"
scenario mix1kmiss "1,000 wildcard+regexp, miss (404)" /miss/nothing 1 "$FLAT_TARGET" -H "$(tenant mix1k)" -s "$BENCH_DIR/miss.lua"
scenario tenants "8 tenants at once" /bench 0 "$FLAT_TARGET" -s "$BENCH_DIR/tenants.lua"
interleave hit "${EQUAL_SCENARIOS[@]}" mix100hit mix1khit hitscript tenant1
interleave hitscript miss1 mix100miss mix1kmiss
interleave tenant1 tenants
measure big "64 KiB response body" 64 /big /big 0
measure upload "POST 16 KiB request body" 64 /upload /upload 0 -s "$BENCH_DIR/post.lua" -- "$UPLOAD_BYTES"

# --- control visibility under load ------------------------------------------------------------
progress "visibility: $VISIBILITY_ROUNDS mock updates while wrk drives 64 connections"
wrk "-t$WRK_MAX_THREADS" -c64 -d600s --timeout "$WRK_TIMEOUT" "$CATBIRD_URL/bench" >"$WORK/wrk-visibility-load.txt" 2>&1 &
LOAD_PID=$!
sleep 1
visibility_line="$("${CONTROL[@]}" visibility "$VISIBILITY_ROUNDS")"
stop_pid "$LOAD_PID" INT 5
LOAD_PID=""
for field in $visibility_line; do printf -v "vis_${field%%=*}" '%s' "${field#*=}"; done

scenario_writer_line="$("${CONTROL[@]}" metrics)"
for field in $scenario_writer_line; do printf -v "scenario_writer_${field%%=*}" '%s' "${field#*=}"; done

# --- memory part --------------------------------------------------------------------------------
# In a fresh Catbird (new process, new database), so that its peak RSS is the journaled hits',
# not the 64 KiB scenario's queued bodies.
progress "memory part: restarting Catbird on a fresh database"
stop_pid "$CATBIRD_PID" TERM 30
CATBIRD_PID=""
"$CATBIRD_BIN" serve --host "$HOST" --port "$CATBIRD_PORT" --db "$WORK/memory.sqlite" \
    --log-level warning --threads "$THREADS" \
    --journal-max-rows off --journal-max-age off --tenant-ttl off >"$WORK/catbird-memory.log" 2>&1 &
CATBIRD_PID=$!
wait_http "$CATBIRD_URL/catbird/api/health" catbird "$CATBIRD_PID"
"${CONTROL[@]}" mocks "" bench
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
db_mb="$(du -cm "$WORK"/memory.sqlite* | awk 'END { print $1 }')"
writer_line="$("${CONTROL[@]}" metrics)"
for field in $writer_line; do printf -v "writer_${field%%=*}" '%s' "${field#*=}"; done

# --- journal queries at scale --------------------------------------------------------------------
# Its own Catbird on its own database (the journal is written by SQL before it starts); the
# memory part's Catbird is idle meanwhile.
progress "journal queries: counts over a tenant journal of $JOURNAL_ROWS rows, each beside plain SQL"
journal_queries_ok=1
BENCH_CATBIRD_BIN="$CATBIRD_BIN" BENCH_JOURNAL_ROWS="$JOURNAL_ROWS" bash "$BENCH_DIR/journal-queries.sh" \
    >"$WORK/journal-queries.txt" 2>&1 || journal_queries_ok=0
{ echo "### journal queries"; cat "$WORK/journal-queries.txt"; echo; } >>"$RAW_LOG"

# --- report ---------------------------------------------------------------------------------
verdict() { if [ "$1" = 1 ]; then echo PASS; else echo FAIL; fi; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
at_least() { awk -v v="$1" -v t="$2" 'BEGIN { print (v != "n/a" && v + 0 >= t) ? 1 : 0 }'; }
at_most() { awk -v v="$1" -v t="$2" 'BEGIN { print (v != "n/a" && v + 0 <= t) ? 1 : 0 }'; }
fmt_rps() { awk -v v="$1" 'BEGIN { printf "%.0f", v }'; }
fmt_ms() { awk -v v="$1" 'BEGIN { printf "%.2f", v }'; }

failures=0
check() {  # check OK TEXT: prints the verdict line, counts a failure
    echo "- $(verdict "$1") $2"
    [ "$1" = 1 ] || failures=$(( failures + 1 ))
}
one_mock_rps="${result[hit64,catbird,rps]}"

{
    echo "| scenario | conn. | nginx req/s | Catbird req/s | × nginx | × one mock | nginx p50 / p99 (ms) | Catbird p50 / p99 (ms) | target | result |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---|---|"
    for name in "${SCENARIOS[@]}"; do
        nginx_rps="${result[$name,nginx,rps]}"; catbird_rps="${result[$name,catbird,rps]}"
        times_nginx="$(ratio "$catbird_rps" "$nginx_rps")"
        times_one="$(ratio "$catbird_rps" "$one_mock_rps")"
        case "$name" in
            hit64)      target="≥ $THROUGHPUT_TARGET × nginx"; ok="$(at_least "$times_nginx" "$THROUGHPUT_TARGET")" ;;
            big|upload) target="— (none in issue 7)"; ok="" ;;
            *)          target="—"; ok="" ;;
        esac
        mark="—"
        if [ -n "$ok" ]; then mark="$(verdict "$ok")"; [ "$ok" = 1 ] || failures=$(( failures + 1 )); fi
        echo "| ${result[$name,label]} | ${result[$name,connections]} | $(fmt_rps "$nginx_rps") | $(fmt_rps "$catbird_rps") | $times_nginx | $times_one | $(fmt_ms "${result[$name,nginx,p50]}") / $(fmt_ms "${result[$name,nginx,p99]}") | $(fmt_ms "${result[$name,catbird,p50]}") / $(fmt_ms "${result[$name,catbird,p99]}") | $target | $mark |"
    done
    echo
    echo "Flat scaling, 64 connections, Catbird only: each scenario interleaved with its reference in $ROUNDS rounds of ${ROUND_SECONDS}s (reference, scenario, reference, next scenario, …); a round's ratio is the scenario's req/s over the mean of the reference runs right before and right after it; the figure judged is the median of the rounds' ratios."
    echo
    flat_report
    # Derived (reported only): a ratio to the plain one-mock hit through the chain of interleaved
    # references, as the product of the two medians.
    chained() { awk -v a="$(flat_ratio "$1")" -v b="$(flat_ratio "$2")" 'BEGIN { if (a == "n/a" || b == "n/a") print "n/a"; else printf "%.2f", a * b }'; }
    echo "- 404 miss by the tenant's mock count (reported only; medians of the ratios to the one-mock hit through miss.lua, the same client work; in parentheses the product with that hit's median ratio to the plain one-mock hit, $(flat_ratio hitscript) ×): 1 equal mock $(flat_ratio miss1) × ($(chained miss1 hitscript) ×), 100 wildcard+regexp $(flat_ratio mix100miss) × ($(chained mix100miss hitscript) ×), 1,000 $(flat_ratio mix1kmiss) × ($(chained mix1kmiss hitscript) ×)"
    echo "- 8 tenants at once (reported only): the product of its median ratio to one tenant with the parallel id sent and that tenant's median ratio to the plain one-mock hit (the header's cost, $(flat_ratio tenant1) ×) is $(chained tenants tenant1) ×"
    echo "- the one-mock 64-connection run above ($(fmt_rps "$one_mock_rps") req/s, ${DURATION_SECONDS}s, minutes earlier) is the '× one mock' of the first table only"
    p99_ratio="$(ratio "${result[hit64,catbird,p99]}" "${result[hit64,nginx,p99]}")"
    check "$(at_most "$p99_ratio" "$P99_TARGET")" "p99 at 64 connections: Catbird $(fmt_ms "${result[hit64,catbird,p99]}") ms = $p99_ratio × nginx's $(fmt_ms "${result[hit64,nginx,p99]}") ms (target ≤ $P99_TARGET ×); at 1 connection p50 / p99 Catbird $(fmt_ms "${result[hit1,catbird,p50]}") / $(fmt_ms "${result[hit1,catbird,p99]}") ms, nginx $(fmt_ms "${result[hit1,nginx,p50]}") / $(fmt_ms "${result[hit1,nginx,p99]}") ms"
    echo "- ceiling (reported only): a bare libmicrohttpd handler with Catbird's daemon settings (catbird-bare-mhd: one response made at start, no journal) $(fmt_rps "$bare_rps") req/s = $(ratio "$bare_rps" "${result[hit64,nginx,rps]}") × nginx's $(fmt_rps "${result[hit64,nginx,rps]}") req/s, p50 / p99 $(fmt_ms "$bare_p50") / $(fmt_ms "$bare_p99") ms; Catbird's one mock at 64 connections = $(ratio "${result[hit64,catbird,rps]}" "$bare_rps") × this ceiling"
    check "$(at_most "${vis_wire_visible_p99:-n/a}" "$VISIBILITY_TARGET_MS")" "control visibility under 64-connection load, $VISIBILITY_ROUNDS updates (target p99 < $VISIBILITY_TARGET_MS ms, judged on the first measure): (1) from writing the first GET after a mock update's 201 to the kernel's receive time of the answer that shows the change (SO_TIMESTAMPNS; everything the server and the loopback do, not the measuring client's wake-up to read it): p50 $(fmt_ms "${vis_wire_visible_p50:-0}") / p99 $(fmt_ms "${vis_wire_visible_p99:-0}") / max $(fmt_ms "${vis_wire_visible_max:-0}") ms, beside its reference, the same client's GET of a mock no update touches after each round, timed the same way: p50 $(fmt_ms "${vis_wire_reference_p50:-0}") / p99 $(fmt_ms "${vis_wire_reference_p99:-0}") / max $(fmt_ms "${vis_wire_reference_max:-0}") ms, and sent after a pause as long as the round's update call (as the visible GET follows one): p50 $(fmt_ms "${vis_wire_idle_reference_p50:-0}") / p99 $(fmt_ms "${vis_wire_idle_reference_p99:-0}") / max $(fmt_ms "${vis_wire_idle_reference_max:-0}") ms; (2) the client's own clock, from reading the 201 to having read that answer (the former measure, with the client's wake-ups): p50 $(fmt_ms "${vis_visible_p50:-0}") / p99 $(fmt_ms "${vis_visible_p99:-0}") / max $(fmt_ms "${vis_visible_max:-0}") ms, its reference timed the same way p50 $(fmt_ms "${vis_reference_p50:-0}") / p99 $(fmt_ms "${vis_reference_p99:-0}") / max $(fmt_ms "${vis_reference_max:-0}") ms; the client's wake-up, an answer's receive time to its read, p50 $(fmt_ms "${vis_wakeup_p50:-0}") / p99 $(fmt_ms "${vis_wakeup_p99:-0}") ms; the update calls took p50 $(fmt_ms "${vis_control_p50:-0}") / p99 $(fmt_ms "${vis_control_p99:-0}") ms; rounds that needed more than one GET: ${vis_gets_over_one:-?}"
    rss_count_ok=$(( rss_journal_delta >= RSS_REQUESTS && rss_journal_delta >= rss_done && rss_done >= RSS_REQUESTS ? 1 : 0 ))
    rss_ok="$(awk -v m="$hwm_mb" -v l="$RSS_LIMIT_MB" -v c="$rss_count_ok" 'BEGIN { print (c == 1 && m + 0 < l) ? 1 : 0 }')"
    check "$rss_ok" "memory: a fresh Catbird's VmHWM $hwm_mb MB (target < $RSS_LIMIT_MB MB) after $rss_done journaled requests at 64 connections in ${rss_seconds}s ($(fmt_rps "$rss_rps") req/s, p99 $(fmt_ms "$rss_p99") ms); journal grew by $rss_journal_delta to $rss_journal_after rows (need ≥ $RSS_REQUESTS); VmRSS now $rss_now_mb MB; database files $db_mb MB"
    strict_ratio="$(ratio "$strict_rps" "${result[hit64,catbird,rps]}")"
    strict_ok="$(awk -v r="$strict_ratio" -v t="$STRICT_TARGET" -v p="$strict_p99" -v l="$STRICT_P99_TARGET_MS" -v j="$strict_journal_delta" -v d="$strict_done" \
        'BEGIN { print (r != "n/a" && r + 0 >= t && p + 0 < l && j + 0 >= d + 0) ? 1 : 0 }')"
    check "$strict_ok" "strict durability at 64 connections: --durability strict $(fmt_rps "$strict_rps") req/s = $strict_ratio × the default (relaxed) Catbird's $(fmt_rps "${result[hit64,catbird,rps]}") req/s just before (target ≥ $STRICT_TARGET ×); p50 / p99 $(fmt_ms "$strict_p50") / $(fmt_ms "$strict_p99") ms (target p99 < $STRICT_P99_TARGET_MS ms; relaxed $(fmt_ms "${result[hit64,catbird,p50]}") / $(fmt_ms "${result[hit64,catbird,p99]}") ms); its journal grew by $strict_journal_delta for $strict_done answered (need ≥); ${strict_commit_rows:-?} rows per commit over its runs"
    check $(( journal_delta >= catbird_completed ? 1 : 0 )) "journal: wrk completed $catbird_completed Catbird requests in the one-mock runs; the journal grew by $journal_delta ($(( journal_delta - catbird_completed )) more = requests in flight when wrk stopped)"
    check $(( socket_errors == 0 && unexpected_non2xx == 0 ? 1 : 0 )) "errors: $socket_errors socket errors, $unexpected_non2xx unexpected statuses (non-2xx outside the 404 scenarios, 2xx inside them), both servers"
    echo
    grep '^|' "$WORK/journal-queries.txt" || true
    echo
    check "$journal_queries_ok" "journal queries: every count over the $JOURNAL_ROWS-row tenant journal under 1 s with the SQL reference's count ($(grep -o 'load average before: [0-9., ]*' "$WORK/journal-queries.txt" | head -1 | sed 's/ *$//'))"
    echo "- journal writer over the scenarios: longest queue ${scenario_writer_longest_queue:-?} entries (${scenario_writer_longest_queue_bytes:-?} bytes), ${scenario_writer_rows:-?} rows in ${scenario_writer_commits:-?} commits = ${scenario_writer_rows_per_commit:-?} rows per commit, ${scenario_writer_dropped:-?} dropped"
    echo "- journal writer over the memory part: longest queue ${writer_longest_queue:-?} entries (${writer_longest_queue_bytes:-?} bytes), ${writer_rows:-?} rows in ${writer_commits:-?} commits = ${writer_rows_per_commit:-?} rows per commit, ${writer_dropped:-?} dropped"
    echo
    echo "- $(load_note) after the run"
    if [ "$failures" -eq 0 ]; then echo "- result: PASS"; else echo "- result: FAIL ($failures target(s) missed)"; fi
} | tee -a "$SUMMARY"
echo "(summary: $SUMMARY, raw wrk output: $RAW_LOG)" >&2

# The pipeline above ran in a subshell: count the failures again from the summary.
grep -q '^- result: PASS' "$SUMMARY" || exit 1
