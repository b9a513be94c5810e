#!/usr/bin/env bash
# Side by side: --durability strict against the default (relaxed) Catbird, for two builds (A, the
# reference, and B) in one invocation: run.sh's `strict durability` line (one mock, GET /bench,
# 64 connections, strict right after relaxed) without the rest of run.sh, interleaved round by
# round (A then B in odd rounds, B then A in even ones) so both builds see the same machine.
# Each run prints its requests/s, its p99 and the server's CPU time per request (user + system
# of the whole process over the run, from /proc/PID/stat: less dependent on other load than
# requests/s); then per build the medians of the rounds and the median of the rounds' strict /
# relaxed ratios (issue 9's target: >= 0.7, p99 < 10 ms), and the strict server's rows per
# commit (/catbird/metrics).
#
#   bash Benchmarks/strict-ab.sh A_BINARY B_BINARY [FIRST_PORT]
#
# Ports FIRST_PORT .. FIRST_PORT+3 (default 19320). Environment: AB_ROUNDS (default 3),
# AB_SECONDS per run (default 5), AB_THREADS (Catbird --threads; default: nproc), AB_CHRT=1
# runs the servers and wrk at real-time priority (chrt -f 50; root), so other load on a shared
# machine counts less. Needs wrk, curl, python3. Loopback only; each server gets its own temp
# database, removed at the end.
set -euo pipefail

A_BIN="$1"; B_BIN="$2"; FIRST_PORT="${3:-19320}"
ROUNDS="${AB_ROUNDS:-3}"; SECONDS_PER_RUN="${AB_SECONDS:-5}"; THREADS="${AB_THREADS:-$(nproc)}"
BENCH_DIR="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=miss-common.sh
source "$BENCH_DIR/miss-common.sh"
PRIORITY=(); if [ "${AB_CHRT:-0}" = "1" ]; then PRIORITY=(chrt -f 50); fi

declare -A port pid
start() {  # start KEY BINARY PORT [OPTION…]: a Catbird (ab_start) with the one mock
    ab_start "$@"
    port[$1]="$3"; pid[$1]="${PIDS[-1]}"
    # Every thread the server has by now (its workers, acceptor and journal writer start before it answers).
    [ ${#PRIORITY[@]} -eq 0 ] || chrt -a -f -p 50 "${pid[$1]}" >/dev/null
    python3 "$BENCH_DIR/control.py" "$3" mocks "" bench
}
start_build() {  # start_build BUILD BINARY FIRST_PORT: its relaxed and strict servers
    start "$1.relaxed" "$2" "$3"
    start "$1.strict" "$2" "$(( $3 + 1 ))" --durability strict
}
start_build A "$A_BIN" "$FIRST_PORT"
start_build B "$B_BIN" "$(( FIRST_PORT + 2 ))"

cpu_ticks() {  # cpu_ticks PID: user + system clock ticks of the whole process so far
    awk '{ print $14 + $15 }' "/proc/$1/stat"
}
TICKS="$(getconf CLK_TCK)"
measure() {  # measure KEY SECONDS: "requests/s p99_ms cpu_us_per_request"
    local key="$1" before after out
    out="$WORK/wrk.txt"
    before="$(cpu_ticks "${pid[$key]}")"
    ${PRIORITY[@]+"${PRIORITY[@]}"} wrk -t2 -c64 "-d${2}s" --timeout 10s --latency "http://127.0.0.1:${port[$key]}/bench" >"$out" 2>&1
    after="$(cpu_ticks "${pid[$key]}")"
    awk -v ticks=$((after - before)) -v hz="$TICKS" '
        /^Requests\/sec:/ { rps = $2 }
        / requests in / { done = $1 }
        $1 == "99%" && !p99 { v = $2; n = v + 0
            if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n = n; else if (v ~ /s$/) n *= 1000
            p99 = n }
        /Non-2xx/ { bad = $NF }
        END { if (bad) print "strict-ab.sh: non-2xx answers: " bad > "/dev/stderr"
              printf "%.0f %.2f %.1f\n", rps, p99, done ? ticks / hz * 1e6 / done : 0 }' "$out"
}

for key in A.relaxed A.strict B.relaxed B.strict; do measure "$key" 2 >/dev/null; done  # warm-up
declare -A figures
echo "round build relaxed(req/s p99ms cpu-us/req) strict(req/s p99ms cpu-us/req) ratio  (load $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores)"
for round in $(seq 1 "$ROUNDS"); do
    order=(A B); [ $((round % 2)) -eq 0 ] && order=(B A)
    for build in "${order[@]}"; do
        read -r rr rp rc < <(measure "$build.relaxed" "$SECONDS_PER_RUN")
        read -r sr sp sc < <(measure "$build.strict" "$SECONDS_PER_RUN")
        ratio="$(awk -v s="$sr" -v r="$rr" 'BEGIN { printf "%.3f", s / r }')"
        for f in rr rp rc sr sp sc ratio; do figures[$build,$f]+="${!f} "; done
        echo "$round $build  $rr $rp $rc   $sr $sp $sc   $ratio"
    done
done
echo
echo "medians of $ROUNDS rounds:"
for build in A B; do
    line="$build:"
    for f in rr rp rc sr sp sc ratio; do line+=" $f=$(echo "${figures[$build,$f]}" | median)"; done
    rows="$(python3 "$BENCH_DIR/control.py" "${port[$build.strict]}" metrics | tr ' ' '\n' | awk -F= '$1 == "rows_per_commit" { print $2 }')"
    echo "$line strict_rows_per_commit=${rows:-?}"
done
echo "(rr/rp/rc: relaxed req/s, p99 ms, CPU us per request; sr/sp/sc: the same strict; ratio: strict / relaxed, per round)"
