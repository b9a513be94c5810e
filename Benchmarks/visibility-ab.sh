#!/usr/bin/env bash
# Side by side: control visibility and the c64 tail, for two Catbird builds (A, the reference,
# and B) in one invocation, interleaved round by round so both see the same machine conditions.
# Each round runs, for A then B (B then A in even rounds):
#   c64        wrk -c64 at /bench (one equal mock) for AB_SECONDS: requests/s, p50 and p99
#   visibility control.py visibility AB_UPDATES while wrk drives 64 connections at /bench, as
#              run.sh does: p50/p99 of the first GET that sees each update, beside the
#              reference (the same client's GET of a mock no update touches), each from the
#              GET's write to its answer's kernel receive time (run.sh's judged measure) and
#              on the client's own clock from the 201 read to the answer read; and, kernel-timed,
#              the reference sent after a pause as long as the update call (control.py's
#              wire_idle_reference: what a plain GET after the same pause costs)
# and prints each run's figures, then per build the median of the rounds.
#
#   bash Benchmarks/visibility-ab.sh A_BINARY B_BINARY [PORT_A PORT_B]
#
# A binary may be a wrapper script that sets the environment and runs `catbird "$@"`.
# Environment: AB_ROUNDS (default 3), AB_SECONDS per c64 run (default 5), AB_UPDATES per
# visibility run (default 1000), AB_THREADS (Catbird --threads; default: nproc). Needs wrk, curl,
# python3. Loopback only; each server gets its own temp database, removed at the end.
set -euo pipefail

A_BIN="$1"; B_BIN="$2"
PORT_A="${3:-19210}"; PORT_B="${4:-19211}"
ROUNDS="${AB_ROUNDS:-3}"; SECONDS_PER_RUN="${AB_SECONDS:-5}"; UPDATES="${AB_UPDATES:-1000}"
THREADS="${AB_THREADS:-$(nproc)}"
BENCH_DIR="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=ab-servers.sh
source "$BENCH_DIR/ab-servers.sh"

start() {  # start NAME BINARY PORT
    ab_start "$@"
    python3 "$BENCH_DIR/control.py" "$3" mocks "" bench
}
start A "$A_BIN" "$PORT_A"
start B "$B_BIN" "$PORT_B"

to_ms() {  # wrk latency ("850.00us", "1.23ms", "2.01s") in milliseconds
    awk -v v="$1" 'BEGIN { n = v + 0; if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n = n; else if (v ~ /s$/) n *= 1000; printf "%.3f", n }'
}
c64() {  # c64 PORT: "rps p50 p99" of one wrk run
    local out
    out="$(wrk -t2 -c64 "-d${SECONDS_PER_RUN}s" --latency "http://127.0.0.1:$1/bench")"
    printf '%s %s %s' "$(awk '/^Requests\/sec:/ { printf "%.0f", $2 }' <<<"$out")" \
        "$(to_ms "$(awk '$1 == "50%" { print $2; exit }' <<<"$out")")" "$(to_ms "$(awk '$1 == "99%" { print $2; exit }' <<<"$out")")"
}
visibility() {  # visibility PORT: control.py's line under 64 connections of load
    wrk -t2 -c64 -d600s "http://127.0.0.1:$1/bench" >/dev/null 2>&1 &
    LOAD_PID=$!
    sleep 1
    python3 "$BENCH_DIR/control.py" "$1" visibility "$UPDATES"
    kill -INT "$LOAD_PID" 2>/dev/null || true
    wait "$LOAD_PID" 2>/dev/null || true
    LOAD_PID=""
}
field() { tr ' ' '\n' | awk -F= -v k="$1" '$1 == k { print $2 }'; }  # field NAME < line

c64 "$PORT_A" >/dev/null; c64 "$PORT_B" >/dev/null  # warm-up
declare -A figures
echo "round build c64: req/s p50 p99 (ms) | visibility under c64, kernel-timed then client-timed: visible p50 p99, reference p50 p99, kernel-timed reference after a pause p50 p99 (ms) — load $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
for round in $(seq 1 "$ROUNDS"); do
    order=(A B); [ $(( round % 2 )) -eq 0 ] && order=(B A)
    for build in "${order[@]}"; do
        port="$PORT_A"; [ "$build" = B ] && port="$PORT_B"
        read -r rps p50 p99 <<<"$(c64 "$port")"
        line="$(visibility "$port")"
        wvp50="$(field wire_visible_p50 <<<"$line")"; wvp99="$(field wire_visible_p99 <<<"$line")"
        wrp50="$(field wire_reference_p50 <<<"$line")"; wrp99="$(field wire_reference_p99 <<<"$line")"
        wip50="$(field wire_idle_reference_p50 <<<"$line")"; wip99="$(field wire_idle_reference_p99 <<<"$line")"
        vp50="$(field visible_p50 <<<"$line")"; vp99="$(field visible_p99 <<<"$line")"
        rp50="$(field reference_p50 <<<"$line")"; rp99="$(field reference_p99 <<<"$line")"
        for name in rps p50 p99 wvp50 wvp99 wrp50 wrp99 wip50 wip99 vp50 vp99 rp50 rp99; do figures[$build,$name]+="${!name} "; done
        echo "$round $build c64: $rps $p50 $p99 | visibility, kernel-timed: $wvp50 $wvp99, reference $wrp50 $wrp99, after a pause $wip50 $wip99; client-timed: $vp50 $vp99, reference $rp50 $rp99 (gets_over_one $(field gets_over_one <<<"$line"))"
    done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo
echo "median of $ROUNDS rounds ($UPDATES updates per visibility run):"
for build in A B; do
    m() { echo "${figures[$build,$1]}" | median; }
    echo "$build: c64 $(m rps) req/s, p50 $(m p50) / p99 $(m p99) ms; visibility kernel-timed p50 $(m wvp50) / p99 $(m wvp99) ms, reference p50 $(m wrp50) / p99 $(m wrp99) ms, after a pause p50 $(m wip50) / p99 $(m wip99) ms; client-timed p50 $(m vp50) / p99 $(m vp99) ms, reference p50 $(m rp50) / p99 $(m rp99) ms"
done
