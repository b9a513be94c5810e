#!/usr/bin/env bash
# What wrk's own work per request costs a miss scenario's figure: in one invocation, interleaved
# round by round, the same server asked for the same response without a script and through
# each script form (docs/matching.md#measuring-a-miss):
#   nginx  plain          return 200, no script (run.sh's reference form)
#   nginx  built          miss.lua -- built: a new /miss/<letters> URL built in Lua per request
#                         (a table, 7 string.sub, a concat, wrk.format): miss.lua's form before
#                         it made its requests in init()
#   nginx  miss.lua       miss.lua: 4,096 distinct /miss/<letters> requests made in init(),
#                         request() returns the next
#   nginx  miss.lua hit   miss.lua -- hit: the same mechanics, every request the URL's path
#   Catbird plain / built-hit / miss.lua hit   the one-mock hit (GET /bench, journaled): without a
#                         script; through the built form's per-request work asking for /bench
#                         (`-- hit`); through miss.lua -- hit
# nginx answers every URL alike, so its rows differ only in what wrk does; Catbird's hit rows
# show the same on a server that uses more of the cores. Prints each run's requests/s and wrk's
# own CPU time (user + system) per request, then the median of the rounds with each form's ratio
# to the plain run of the same server. On a loaded machine the requests/s swing from run to run;
# wrk's CPU time per request says what each form costs the client.
#
#   bash Benchmarks/miss-client.sh CATBIRD_BINARY [NGINX_PORT CATBIRD_PORT]
#
# Environment: CLIENT_ROUNDS (default 3), CLIENT_SECONDS per run (default 5), CLIENT_THREADS
# (Catbird --threads and nginx workers; default: nproc). Needs wrk, nginx, curl, python3.
set -euo pipefail

CATBIRD_BIN="$1"
NGINX_PORT="${2:-19120}"; CATBIRD_PORT="${3:-19121}"
ROUNDS="${CLIENT_ROUNDS:-3}"; SECONDS_PER_RUN="${CLIENT_SECONDS:-5}"; THREADS="${CLIENT_THREADS:-$(nproc)}"
BENCH_DIR="$(cd "$(dirname "$0")" && pwd)"
NGINX="$(command -v nginx 2>/dev/null || echo /usr/sbin/nginx)"
# shellcheck source=miss-common.sh
source "$BENCH_DIR/miss-common.sh"

# nginx as run.sh starts it (Benchmarks/nginx.conf.template), without the 64 KiB file.
temp_paths=""
for module in proxy fastcgi uwsgi scgi; do
    case "$("$NGINX" -V 2>&1)" in
        *"--without-http_${module}_module"*) ;;
        *) temp_paths+="    ${module}_temp_path $WORK/$module;"$'\n' ;;
    esac
done
template="$(cat "$BENCH_DIR/nginx.conf.template")"
template="${template//@PREFIX@/$WORK}"; template="${template//@PORT@/$NGINX_PORT}"
template="${template//@WORKERS@/$THREADS}"; template="${template//@TEMP_PATHS@/$temp_paths}"
chmod 711 "$WORK"
printf '%s\n' "$template" >"$WORK/nginx.conf"
"$NGINX" -p "$WORK" -c "$WORK/nginx.conf" -e "$WORK/error.log" >"$WORK/nginx.out" 2>&1 &
PIDS+=($!)
wait_health "$NGINX_PORT"  # nginx answers every path with 200
start_catbird catbird "$CATBIRD_BIN" "$CATBIRD_PORT"
python3 "$BENCH_DIR/control.py" "$CATBIRD_PORT" mocks "" bench

rps() {  # rps PORT [SCRIPT [SCRIPT_ARGUMENT]]: "REQUESTS/S WRK_CPU_US" of one run of GET /bench,
    # the second wrk's own CPU time (user + system) per request, in microseconds
    local port="$1" script=() arguments=()
    [ -n "${2:-}" ] && script=(-s "$BENCH_DIR/$2")
    [ -n "${3:-}" ] && read -ra arguments <<<"-- $3"  # "built hit": two arguments
    /usr/bin/time -f '%U %S' -o "$WORK/time" \
        wrk -t2 -c64 "-d${SECONDS_PER_RUN}s" "${script[@]}" "http://127.0.0.1:$port/bench" "${arguments[@]}" >"$WORK/wrk"
    awk -v cpu="$(awk '{ print $1 + $2 }' "$WORK/time")" '
        /requests in/ { requests = $1 }
        /^Requests\/sec:/ { rps = $2 }
        END { printf "%.0f %.2f", rps, (requests > 0 ? cpu * 1e6 / requests : 0) }' "$WORK/wrk"
}
run() {  # run FORM
    case "$1" in
        nginx-plain) rps "$NGINX_PORT" ;;
        nginx-built) rps "$NGINX_PORT" miss.lua built ;;
        nginx-miss.lua) rps "$NGINX_PORT" miss.lua ;;
        nginx-miss.lua-hit) rps "$NGINX_PORT" miss.lua hit ;;
        catbird-plain) rps "$CATBIRD_PORT" ;;
        catbird-built-hit) rps "$CATBIRD_PORT" miss.lua "built hit" ;;
        catbird-miss.lua-hit) rps "$CATBIRD_PORT" miss.lua hit ;;
    esac
}

FORMS=(nginx-plain nginx-built nginx-miss.lua nginx-miss.lua-hit catbird-plain catbird-built-hit catbird-miss.lua-hit)
for form in nginx-plain catbird-plain; do run "$form" >/dev/null; done  # warm-up
declare -A figures cpu
echo "round form requests/s wrk-CPU-µs-per-request (load $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores)"
for round in $(seq 1 "$ROUNDS"); do
    for form in "${FORMS[@]}"; do
        read -r value client <<<"$(run "$form")"
        figures[$form]+="$value "; cpu[$form]+="$client "
        echo "$round $form $value $client"
    done
done
echo
echo "median of $ROUNDS rounds: requests/s (ratio to the same server's plain run), wrk's CPU µs per request:"
for server in nginx catbird; do
    plain="$(echo "${figures[$server-plain]}" | median)"
    line="$server: plain $plain, $(echo "${cpu[$server-plain]}" | median) µs"
    for form in "${FORMS[@]}"; do
        case "$form" in "$server"-plain|"$server"-*) [ "$form" = "$server-plain" ] && continue ;; *) continue ;; esac
        value="$(echo "${figures[$form]}" | median)"
        line+="; ${form#"$server"-} $value ($(awk -v m="$value" -v h="$plain" 'BEGIN { printf "%.2f", m / h }') x), $(echo "${cpu[$form]}" | median) µs"
    done
    echo "$line"
done
