# shellcheck shell=bash disable=SC2154  # the r_* figures are set by parse_wrk (printf -v)
# Sourced by run.sh (and by Tests/Operations/benchmark_smoke_test.py): scenarios judged by a
# ratio to a reference measured beside them, in the same invocation, on the same Catbird.
#
#   scenario NAME LABEL PATH EXPECT_404 TARGET [wrk args…]
#       declares one: 64 connections at CATBIRD_URL PATH (404s expected when EXPECT_404 is 1);
#       TARGET is the least median ratio it must reach, or "-" (reported only)
#   interleave REF NAME…
#       ROUNDS rounds of ROUND_SECONDS per wrk run, in the order
#           REF NAME1 REF NAME2 … REF NAME1 REF NAME2 … REF
#       (a reference run between every two scenario runs); each scenario run's ratio is its
#       req/s over the mean of the reference runs right before and right after it
#   flat_report
#       the table (median ratio of each scenario's rounds, each round's ratio, PASS/FAIL against
#       its TARGET; adds the misses to `failures`) and every round's figures
#
# Why: on a 2-core machine shared with other work, two 10-second runs minutes apart differ by
# 20-30 % with nothing changed, so a ratio to a reference measured minutes before swings with
# the machine. A reference seconds before and after each scenario run sees the same machine;
# the median of several rounds keeps one disturbed round from deciding; no round is dropped.
#
# Needs run_wrk and parse_wrk (wrk-run.sh), progress, CATBIRD_URL, WORK, ROUNDS,
# ROUND_SECONDS, and the counters socket_errors and unexpected_non2xx (added to).

declare -A flat
FLAT=()

scenario() {
    local name="$1"
    flat[$name,label]="$2"; flat[$name,path]="$3"; flat[$name,expect_404]="$4"; flat[$name,target]="$5"
    shift 5
    flat[$name,args]=""
    [ $# -eq 0 ] || flat[$name,args]="$(printf '%s\x1f' "$@")"
}

round_run() {  # round_run NAME TAG: one ROUND_SECONDS run of scenario NAME; sets r_* (parse_wrk)
    local name="$1" tag="$2" args=() out
    [ -z "${flat[$name,args]}" ] || IFS=$'\x1f' read -r -a args <<<"${flat[$name,args]}"
    out="$WORK/wrk-flat-$name-${tag// /-}.txt"
    run_wrk "${flat[$name,label]}: catbird ($tag)" "$CATBIRD_URL${flat[$name,path]}" 64 "$ROUND_SECONDS" "$out" \
        ${args[@]+"${args[@]}"}
    parse_wrk "$out" r
    socket_errors=$(( socket_errors + r_sockerr ))
    if [ "${flat[$name,expect_404]}" != 1 ]; then
        unexpected_non2xx=$(( unexpected_non2xx + r_non2xx ))
    elif [ "$r_non2xx" -lt "$r_done" ]; then
        unexpected_non2xx=$(( unexpected_non2xx + r_done - r_non2xx ))  # a miss that answered 2xx
    fi
}

interleave() {
    local reference="$1" round name before after scenario_rps; shift
    progress "interleaved: ${flat[$reference,label]} (reference) with $*: $ROUNDS round(s), ${ROUND_SECONDS}s per run"
    round_run "$reference" "reference"
    before="$r_rps"
    flat[$reference,reference_runs]="$before"
    for round in $(seq 1 "$ROUNDS"); do
        for name in "$@"; do
            round_run "$name" "round $round"
            scenario_rps="$r_rps"
            flat[$name,reference]="$reference"
            flat[$name,rps]+="$r_rps "; flat[$name,p50]+="$r_p50 "; flat[$name,p99]+="$r_p99 "
            round_run "$reference" "reference after $name, round $round"
            after="$r_rps"
            flat[$reference,reference_runs]+=" $after"
            flat[$name,ratios]+="$(awk -v s="$scenario_rps" -v a="$before" -v b="$after" 'BEGIN { printf "%.4f", s / ((a + b) / 2) }') "
            flat[$name,rounds]+="$(awk -v s="$scenario_rps" -v a="$before" -v b="$after" 'BEGIN { printf "%.0f (%.0f | %.0f) = %.2f", s, a, b, s / ((a + b) / 2) }');"
            before="$after"
        done
    done
    FLAT+=("$@")
}

median() {  # median VALUES…: the middle one (the mean of the two middle ones for an even count)
    printf '%s\n' "$@" | grep . | sort -g | awk '{ v[NR] = $1 }
        END { if (NR == 0) print "n/a"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# shellcheck disable=SC2086  # the fields are space-separated numbers
flat_median() { median ${flat[$1,$2]}; }  # flat_median NAME FIELD: the median of its rounds' FIELD
flat_ratio() { awk -v v="$(flat_median "$1" ratios)" 'BEGIN { if (v == "n/a") print v; else printf "%.2f", v }'; }

flat_report() {
    local name reference ratio target mark each ok
    echo "| scenario | reference | Catbird req/s (median) | reference req/s (median) | × reference, each round | × reference (median) | Catbird p50 / p99 (ms, medians) | target | result |"
    echo "|---|---|---:|---:|---|---:|---:|---|---|"
    for name in "${FLAT[@]}"; do
        reference="${flat[$name,reference]}"
        ratio="$(flat_ratio "$name")"
        target="— (reported only)"; mark="—"
        if [ "${flat[$name,target]}" != "-" ]; then
            target="≥ ${flat[$name,target]} × ${flat[$reference,label]}"
            ok="$(awk -v v="$ratio" -v t="${flat[$name,target]}" 'BEGIN { print (v != "n/a" && v + 0 >= t) ? 1 : 0 }')"
            if [ "$ok" = 1 ]; then mark=PASS; else mark=FAIL; failures=$(( failures + 1 )); fi
        fi
        # shellcheck disable=SC2086
        each="$(printf '%s\n' ${flat[$name,ratios]} | awk '{ printf "%s%.2f", (NR > 1 ? " " : ""), $1 }')"
        # shellcheck disable=SC2086
        printf '| %s | %s | %.0f | %.0f | %s | %s | %.2f / %.2f | %s | %s |\n' "${flat[$name,label]}" \
            "${flat[$reference,label]}" "$(flat_median "$name" rps)" "$(median ${flat[$reference,reference_runs]})" \
            "$each" "$ratio" "$(flat_median "$name" p50)" "$(flat_median "$name" p99)" "$target" "$mark"
    done
    echo
    echo "- every round, scenario req/s (reference run before | after) = ratio:"
    local text
    for name in "${FLAT[@]}"; do
        text="${flat[$name,rounds]%;}"
        echo "  - ${flat[$name,label]}: ${text//;/; }"
    done
}
