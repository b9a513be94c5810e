#!/usr/bin/env bash
# Where a 404 miss's time goes under load, beside the one-mock hit: one Catbird (release build,
# --threads as run.sh's), the tenants of miss-ab.sh, and for each scenario a wrk run (64
# connections, miss.lua as in run.sh) after which each of the server's threads' CPU time
# (user and system, from /proc/PID/task/*/stat) and wrk's own are divided by the requests wrk
# completed. Unlike callgrind's instruction counts (Benchmarks/miss-callgrind.sh) this holds the
# kernel's part (sockets, the WAL's writes) and the cost of cache misses, so it says why a
# miss's requests/s ratio to the hit can be lower than its instruction ratio. Times vary with
# the machine's load; compare the scenarios of one invocation.
#
#   bash Benchmarks/miss-cpu.sh BINARY [PORT] [SCENARIO…]
#
# Scenarios as in miss-ab.sh: hit.lua, miss1, miss100, miss1k, repeated. Environment:
# CPU_SECONDS per run (default 5), CPU_THREADS (default nproc). Needs wrk, curl, python3.
set -euo pipefail

BIN="$1"; PORT="${2:-18160}"; shift $(( $# >= 2 ? 2 : 1 ))
SCENARIOS=("$@"); [ ${#SCENARIOS[@]} -gt 0 ] || SCENARIOS=(hit.lua miss1 miss100 miss1k repeated)
SECONDS_PER_RUN="${CPU_SECONDS:-5}"; THREADS="${CPU_THREADS:-$(nproc)}"
BENCH_DIR="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=ab-servers.sh
source "$BENCH_DIR/ab-servers.sh"
ab_start catbird "$BIN" "$PORT"
SERVER="${PIDS[0]}"
control=(python3 "$BENCH_DIR/control.py" "$PORT")
"${control[@]}" mocks "" bench
"${control[@]}" mocks miss1 bench
"${control[@]}" mocks mix100 mix:100
"${control[@]}" mocks mix1k mix:1000
TICK="$(getconf CLK_TCK)"

# Each thread's name and user and system ticks: "NAME UTIME STIME" per line (by thread id).
threads() {
    for task in /proc/"$SERVER"/task/*; do
        [ -r "$task/stat" ] || continue
        # comm may hold spaces: the fields after its closing parenthesis.
        awk -v id="$(basename "$task")" '{ sub(/^.*\) /, ""); print id, $12, $13 }' "$task/stat" | \
            while read -r tid utime stime; do echo "$tid $(tr ' ' '_' <"$task/comm") $utime $stime"; done
    done
}
# The scenario's wrk path and arguments, set as ARGS (an array: the tenant's header must keep
# the space after its colon, which wrk requires; `-H X-Catbird-Parallel-Id:miss1`, as this script
# passed it until 2026-12-02, was dropped by wrk, so every "miss" ran in the default tenant).
wrk_args() {
    case "$1" in
        hit.lua) ARGS=(/bench -s "$BENCH_DIR/miss.lua" -- hit) ;;
        miss1) ARGS=(/miss/x -H "X-Catbird-Parallel-Id: miss1" -s "$BENCH_DIR/miss.lua") ;;
        miss100) ARGS=(/miss/x -H "X-Catbird-Parallel-Id: mix100" -s "$BENCH_DIR/miss.lua") ;;
        miss1k) ARGS=(/miss/x -H "X-Catbird-Parallel-Id: mix1k" -s "$BENCH_DIR/miss.lua") ;;
        repeated) ARGS=(/miss/always-the-same -H "X-Catbird-Parallel-Id: mix100") ;;
    esac
}

# The requests journaled in TENANT ("" the default tenant): checked after each run, so that a
# scenario whose requests landed in another tenant stops the script instead of being reported.
journaled() {
    curl -fsS -H 'Host: 127.0.0.1' "http://127.0.0.1:$PORT/catbird/api/tenants" |
        python3 -c 'import json, sys; print(sum(t["requests"] for t in json.load(sys.stdin)["tenants"] if t["id"] == sys.argv[1]))' "$1"
}
tenant_of() {  # the tenant a scenario's requests are journaled in
    case "$1" in miss1) echo miss1 ;; miss100 | repeated) echo mix100 ;; miss1k) echo mix1k ;; *) echo "" ;; esac
}

printf '%-9s %9s %9s   %s\n' scenario req/s wrk_us "server threads: name user_us+system_us per request"
for scenario in "${SCENARIOS[@]}"; do
    wrk_args "$scenario"
    wrk -t2 -c64 -d1s "http://127.0.0.1:$PORT${ARGS[0]}" "${ARGS[@]:1}" >/dev/null  # warm-up
    tenant="$(tenant_of "$scenario")"
    journaled_before="$(journaled "$tenant")"
    before="$(threads)"
    /usr/bin/time -f '%U %S' -o "$WORK/time" wrk -t2 -c64 "-d${SECONDS_PER_RUN}s" "http://127.0.0.1:$PORT${ARGS[0]}" "${ARGS[@]:1}" >"$WORK/wrk"
    after="$(threads)"
    requests="$(awk '/requests in/ { print $1 }' "$WORK/wrk")"
    sleep 0.5  # the journal writer commits the run's last rows
    landed=$(( $(journaled "$tenant") - journaled_before ))
    if [ "$landed" -lt "$requests" ]; then
        echo "$scenario: $requests requests completed but $landed journaled in tenant \"$tenant\"" >&2
        exit 1
    fi
    rps="$(awk '/^Requests\/sec:/ { printf "%.0f", $2 }' "$WORK/wrk")"
    wrk_us="$(awk -v n="$requests" '{ printf "%.2f", ($1 + $2) * 1e6 / n }' "$WORK/time")"
    # Joined by thread id: "ID NAME UTIME STIME NAME UTIME STIME"; threads under 0.05 µs per
    # request left out, the others named by their name and id.
    per_thread="$(join <(sort <<<"$before") <(sort <<<"$after") | awk -v n="$requests" -v tick="$TICK" '
        { u = ($6 - $3) * 1e6 / tick / n; s = ($7 - $4) * 1e6 / tick / n; total += u + s
          if (u + s >= 0.05) printf "%s/%s %.2f+%.2f  ", $2, $1, u, s }
        END { printf "| total %.2f", total }')"
    printf '%-9s %9s %9s   %s\n' "$scenario" "$rps" "$wrk_us" "$per_thread"
done
