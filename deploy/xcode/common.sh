# Sourced by start.sh and stop.sh: what both need. Expects `usage` to be defined and sets
# nothing until called, except the functions.

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
