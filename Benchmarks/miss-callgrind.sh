#!/usr/bin/env bash
# Instructions per request of the 404 miss and of the one-mock hit, counted with callgrind
# (docs/matching.md#repeated-misses quotes its figures): a Catbird binary run under
# `valgrind --tool=callgrind --separate-threads=yes` with one worker thread, the tenants of
# miss-ab.sh (one equal mock; 100 and 1,000 wildcard+regexp mocks), and for each scenario one
# keep-alive connection (Python http.client) that sends WARM requests, has the counters zeroed,
# sends COUNT requests, waits for the journal writer to commit them, and has the counters dumped.
# Prints, per scenario, each thread's instructions over COUNT (the worker, which parses,
# matches and answers; the journal writer, which encodes and commits the rows; the rest), and
# the response bytes per request. Instruction counts do not depend on the machine's load, so
# two builds can be compared in one run each:
#
#   bash Benchmarks/miss-callgrind.sh BINARY [PORT] [SCENARIO…]
#
# Scenarios: hit (GET /bench, default tenant), miss1 (a new /miss/<7 letters> per request in a
# tenant with one equal mock), miss100, miss1k (the same with 100 and 1,000 wildcard+regexp
# mocks), repeated (one URL again and again, 100 mocks: the 404 memo answers it). Default: all.
# Environment: CG_WARM (default 50), CG_COUNT (default 200). Needs valgrind, objcopy (binutils), python3, curl.
set -euo pipefail

BIN="$1"; PORT="${2:-18150}"; shift $(( $# >= 2 ? 2 : 1 ))
SCENARIOS=("$@"); [ ${#SCENARIOS[@]} -gt 0 ] || SCENARIOS=(hit miss1 miss100 miss1k repeated)
WARM="${CG_WARM:-50}"; COUNT="${CG_COUNT:-200}"
BENCH_DIR="$(cd "$(dirname "$0")" && pwd)"
WORK="$(mktemp -d)"
PID=""
cleanup() { [ -n "$PID" ] && { kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; }; rm -rf "$WORK"; }
trap cleanup EXIT

# A copy without its DWARF (the symbol table, which names the functions, stays): valgrind 3.19
# (Debian 12) cannot read the DWARF 5 of Swift 6's release builds and gives up at start
# ("Possibly corrupted debuginfo file").
objcopy --strip-debug "$BIN" "$WORK/catbird"
valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$WORK/cg.%p" \
    "$WORK/catbird" serve --host 127.0.0.1 --port "$PORT" --db "$WORK/db.sqlite" --log-level warning --threads 1 \
    --journal-max-rows off --journal-max-age off --tenant-ttl off >"$WORK/server.log" 2>&1 &
PID=$!
for _ in $(seq 1 300); do
    curl -fsS -o /dev/null "http://127.0.0.1:$PORT/catbird/api/health" 2>/dev/null && break
    sleep 0.2
done
curl -fsS -o /dev/null "http://127.0.0.1:$PORT/catbird/api/health" || { tail -5 "$WORK/server.log" >&2; exit 1; }
control=(python3 "$BENCH_DIR/control.py" "$PORT")
"${control[@]}" mocks "" bench
"${control[@]}" mocks miss1 bench
"${control[@]}" mocks mix100 mix:100
"${control[@]}" mocks mix1k mix:1000

# drive SCENARIO PHASE: sends WARM (PHASE warm) or COUNT (PHASE count) requests of the
# scenario over one keep-alive connection; prints the mean response bytes (head and body).
drive() {
    python3 - "$PORT" "$1" "$2" "$WARM" "$COUNT" <<'PY'
import http.client, sys
port, scenario, phase, warm, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
tenant = {"hit": None, "miss1": "miss1", "miss100": "mix100", "miss1k": "mix1k", "repeated": "mix100"}[scenario]
letters = "abcdefghijklmnopqrstuvwxyz"
state = 7919 if phase == "warm" else 7919 * 3
def url():
    global state
    if scenario == "hit": return "/bench"
    if scenario == "repeated": return "/miss/always-the-same"
    word = ""
    for _ in range(7):
        state = (state * 16807) % 2147483647
        word += letters[state % 26]
    return "/miss/" + word
connection = http.client.HTTPConnection("127.0.0.1", int(port))
headers = {"X-Catbird-Parallel-Id": tenant} if tenant else {}
total = 0
n = warm if phase == "warm" else count
for _ in range(n):
    connection.request("GET", url(), headers=headers)
    response = connection.getresponse()
    body = response.read()
    expected = 200 if scenario == "hit" else 404
    if response.status != expected: sys.exit(f"{scenario}: status {response.status}")
    head = sum(len(k) + len(v) + 4 for k, v in response.getheaders()) + len("HTTP/1.1 200 OK\r\n\r\n")
    total += head + len(body)
print(round(total / n))
PY
}

printf '%-9s %10s %10s %10s %10s %9s\n' scenario worker writer other total bytes/req
for scenario in "${SCENARIOS[@]}"; do
    drive "$scenario" warm >/dev/null
    sleep 1  # the writer commits the warm-up's rows
    callgrind_control -z "$PID" >/dev/null 2>&1
    bytes="$(drive "$scenario" count)"
    sleep 1
    rm -f "$WORK"/cg.*-*
    callgrind_control --dump="$scenario" "$PID" >/dev/null 2>&1
    # Each thread's total; the worker is the busiest thread that ran libmicrohttpd's code, the
    # journal writer the busiest other one that ran SQLite's, the rest is summed as "other".
    worker=0; writer=0; other=0
    for file in "$WORK"/cg."$PID".*-*; do
        total="$(awk '/^(summary|totals):/ { print $2; exit }' "$file")"; total="${total:-0}"
        if grep -q 'MHD_' "$file" && [ "$total" -gt "$worker" ]; then
            other=$((other + worker)); worker=$total
        elif grep -q 'sqlite3VdbeExec' "$file" && [ "$total" -gt "$writer" ]; then
            other=$((other + writer)); writer=$total
        else other=$((other + total)); fi
    done
    printf '%-9s %10d %10d %10d %10d %9s\n' "$scenario" $((worker / COUNT)) $((writer / COUNT)) $((other / COUNT)) \
        $(((worker + writer + other) / COUNT)) "$bytes"
    if [ -n "${CG_KEEP:-}" ]; then
        mkdir -p "$CG_KEEP"
        for file in "$WORK"/cg."$PID".*-*; do cp "$file" "$CG_KEEP/$scenario.$(basename "$file")"; done
    fi
done
