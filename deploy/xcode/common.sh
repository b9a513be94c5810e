# Sourced by start.sh and stop.sh: what both need. Expects `usage` to be defined; defines
# functions only.

# Prints "<script>: $1", the usage, and exits 2.
fail_usage() {
    echo "$(basename "$0"): $1" >&2
    usage >&2
    exit 2
}

# Checks the port in $1 (1...65535; leading zeros allowed) and prints it normalised.
normalised_port() {
    case "$1" in
        ''|*[!0-9]*) fail_usage "port must be 1...65535, not '$1'" ;;
    esac
    [ "${#1}" -le 5 ] && [ "$((10#$1))" -ge 1 ] && [ "$((10#$1))" -le 65535 ] || fail_usage "port must be 1...65535, not '$1'"
    echo $((10#$1))
}

# Where the pid and log files of the server on port $1 live: ${TMPDIR:-/tmp}.
state_dir() {
    local dir="${TMPDIR:-/tmp}"
    dir="${dir%/}"
    echo "${dir:-/}"
}

# True when $1 is a live process (a zombie that nobody reaped yet counts as gone).
is_running() {
    kill -0 "$1" 2>/dev/null || return 1
    case "$(ps -p "$1" -o stat= 2>/dev/null)" in
        Z*|'') return 1 ;;
    esac
}

# Waits up to $2 seconds for process $1 to be gone; false if it is still running.
wait_gone() {
    local pid="$1" tenths=$(($2 * 10))
    while is_running "$pid" && [ "$tenths" -gt 0 ]; do
        sleep 0.1
        tenths=$((tenths - 1))
    done
    ! is_running "$pid"
}

# Stops process $1: SIGTERM (to its whole process group when $3 is "group"), up to $2 seconds
# to exit, then SIGKILL and up to 5 seconds more. False if it is still running after that.
stop_process() {
    local pid="$1" grace="$2" target="$1"
    [ "${3:-}" = group ] && target="-$1"
    kill -TERM -- "$target" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
    wait_gone "$pid" "$grace" && return 0
    echo "$(basename "$0"): pid $pid did not exit within $grace s of SIGTERM; sending SIGKILL" >&2
    kill -KILL -- "$target" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
    wait_gone "$pid" 5
}
