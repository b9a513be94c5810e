# shellcheck shell=bash
# Sourced by run.sh (and by Tests/Operations/benchmark_smoke_test.py's interleave check): one
# wrk run and the figures read from its output. run_wrk needs WRK_MAX_THREADS (wrk threads at
# most), WRK_TIMEOUT and RAW_LOG (every run's output is appended to it).

to_ms() {  # wrk latency ("850.00us", "1.23ms", "2.01s", "1.5m") in milliseconds
    awk -v v="$1" 'BEGIN {
        n = v + 0
        if (v ~ /us$/) n = n / 1000; else if (v ~ /ms$/) n = n; else if (v ~ /m$/) n = n * 60000;
        else if (v ~ /h$/) n = n * 3600000; else if (v ~ /s$/) n = n * 1000
        printf "%.3f", n }'
}

# parse_wrk FILE PREFIX: sets PREFIX_rps, PREFIX_p50 and PREFIX_p99 (ms), PREFIX_done,
# PREFIX_non2xx, PREFIX_sockerr
parse_wrk() {
    local file="$1" prefix="$2" rps p50 p99 completed non2xx sockerr
    rps="$(awk '/^Requests\/sec:/ { print $2 }' "$file")"
    p50="$(awk '$1 == "50%" { print $2; exit }' "$file")"
    p99="$(awk '$1 == "99%" { print $2; exit }' "$file")"
    completed="$(awk '/ requests in / { print $1; exit }' "$file")"
    non2xx="$(awk '/Non-2xx or 3xx responses:/ { print $NF }' "$file")"
    sockerr="$(awk '/Socket errors:/ { gsub(",", ""); print $4 + $6 + $8 + $10 }' "$file")"
    [ -n "$rps" ] && [ -n "$p99" ] && [ -n "$completed" ] || {
        echo "run.sh: cannot parse wrk output $file:" >&2; cat "$file" >&2; return 1; }
    printf -v "${prefix}_rps" '%s' "$rps"
    printf -v "${prefix}_p50" '%s' "$(to_ms "$p50")"
    printf -v "${prefix}_p99" '%s' "$(to_ms "$p99")"
    printf -v "${prefix}_done" '%s' "$completed"
    printf -v "${prefix}_non2xx" '%s' "${non2xx:-0}"
    printf -v "${prefix}_sockerr" '%s' "${sockerr:-0}"
}

run_wrk() {  # run_wrk NAME URL CONNECTIONS SECONDS OUTFILE [wrk options…] [-- script args…]
    local name="$1" url="$2" connections="$3" seconds="$4" out="$5"; shift 5
    local threads=$(( connections < WRK_MAX_THREADS ? connections : WRK_MAX_THREADS ))
    local options=() script_args=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do options+=("$1"); shift; done
    [ $# -gt 0 ] && script_args=("$@")  # "--" and what follows go after the URL
    {
        echo "### $name, $connections connection(s), ${seconds}s"
        wrk "-t$threads" "-c$connections" "-d${seconds}s" --timeout "$WRK_TIMEOUT" --latency \
            ${options[@]+"${options[@]}"} "$url" ${script_args[@]+"${script_args[@]}"}
        echo
    } >"$out" 2>&1
    cat "$out" >>"$RAW_LOG"
}
