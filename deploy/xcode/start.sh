#!/usr/bin/env bash
# Starts a Catbird server on 127.0.0.1 in the background for a UI-test run, and returns once it
# answers GET /catbird/api/health (or fails loudly). deploy/xcode/stop.sh stops it.
#
#   start.sh [--port N] [--db PATH] [--timeout SECONDS]
#
#   --port     port on 127.0.0.1 (default 8080)
#   --db       database file (default ${TMPDIR:-/tmp}/catbird-<port>.sqlite; it persists
#              between runs, so mocks left over from an earlier run are still there)
#   --timeout  seconds to wait for the server to become healthy (default 30)
#
# Binary: $CATBIRD_BINARY if set, else <repo>/.build/release/catbird, built with
# `swift build -c release --product catbird` from the repository root when missing (swift from
# PATH, else /opt/swift/usr/bin/swift). The server runs `catbird serve --port N --db PATH
# --log-level warning` under nohup; its pid goes to ${TMPDIR:-/tmp}/catbird-<port>.pid and its
# output to ${TMPDIR:-/tmp}/catbird-<port>.log.
#
# Already running: when the pid file names a live Catbird for this port that answers the health
# check, the script reuses it (prints a note, exits 0): a run whose post-action never ran (Xcode
# stopped, a crash) must not block the next one. That server keeps the database it was started
# with. A stale pid file (process gone) is removed. Anything else already listening on the port
# is an error.
#
# Exit status: 0 serving; 1 the server could not be started (the message names the port and
# shows the end of the log; the process is killed and the pid file removed); 2 bad usage.
#
# Wiring into an Xcode scheme (the app's scheme, or the UI-test target's):
#   Edit Scheme… → Test → Pre-actions → + → New Run Script Action
#     Provide build settings from: <the app target>
#     Script:  "$SRCROOT/path/to/catbird/deploy/xcode/start.sh" --port 8080 > "$TMPDIR/catbird-start.out" 2>&1
#   Edit Scheme… → Test → Post-actions → + → New Run Script Action (same build settings)
#     Script:  "$SRCROOT/path/to/catbird/deploy/xcode/stop.sh" --port 8080 > "$TMPDIR/catbird-stop.out" 2>&1
# With Catbird as a Swift package dependency of the project, its checkout is at
#   "${BUILD_DIR%Build/*}SourcePackages/checkouts/catbird/deploy/xcode/start.sh"
# (which is why the action needs build settings). Xcode shows no output of scheme actions and
# does not stop when one fails, hence the redirection: read that file when tests cannot reach
# Catbird. The UI tests then use http://127.0.0.1:8080, which the simulator reaches too.
# Building the server on macOS needs libmicrohttpd and pkg-config (Homebrew); or set
# CATBIRD_BINARY to a catbird built elsewhere.
set -euo pipefail

usage() {
    sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'
}

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

port=8080
db=""
timeout=30
while [ $# -gt 0 ]; do
    case "$1" in
        --port) [ $# -ge 2 ] || fail_usage "--port needs a value"; port="$2"; shift 2 ;;
        --port=*) port="${1#--port=}"; shift ;;
        --db) [ $# -ge 2 ] || fail_usage "--db needs a value"; db="$2"; shift 2 ;;
        --db=*) db="${1#--db=}"; shift ;;
        --timeout) [ $# -ge 2 ] || fail_usage "--timeout needs a value"; timeout="$2"; shift 2 ;;
        --timeout=*) timeout="${1#--timeout=}"; shift ;;
        -h|--help) usage; exit 0 ;;
        *) fail_usage "unknown argument '$1'" ;;
    esac
done

port=$(normalised_port "$port")
case "$timeout" in
    ''|*[!0-9]*) fail_usage "timeout must be a whole number of seconds, not '$timeout'" ;;
esac
[ "${#timeout}" -le 6 ] && [ "$((10#$timeout))" -ge 1 ] || fail_usage "timeout must be 1...999999 seconds, not '$timeout'"
timeout=$((10#$timeout))

command -v curl > /dev/null 2>&1 || { echo "start.sh: curl is needed for the health check and was not found on PATH." >&2; exit 1; }

state_dir=$(state_dir)
[ -n "$db" ] || db="$state_dir/catbird-$port.sqlite"
pid_file="$state_dir/catbird-$port.pid"
log_file="$state_dir/catbird-$port.log"
health_url="http://127.0.0.1:$port/catbird/api/health"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"


# The HTTP status of the health check, 000 when nothing answered.
health_status() {
    curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$health_url" 2>/dev/null || true
}

# --- An earlier server for this port? ---------------------------------------------------------
if [ -f "$pid_file" ]; then
    old_pid="$(tr -dc '0-9' < "$pid_file")"
    if [ -n "$old_pid" ] && is_running "$old_pid"; then
        if ps -ww -p "$old_pid" -o args= 2>/dev/null | grep -q -- "--port $port " && [ "$(health_status)" = "200" ]; then
            echo "start.sh: Catbird is already running on port $port (pid $old_pid, from $pid_file); reusing it."
            echo "start.sh: it keeps the database it was started with; stop.sh --port $port stops it."
            exit 0
        fi
        echo "start.sh: $pid_file names pid $old_pid, which is alive but is not a healthy Catbird on port $port." >&2
        echo "start.sh: stop it (deploy/xcode/stop.sh --port $port) or remove the pid file." >&2
        exit 1
    fi
    echo "start.sh: removing stale $pid_file (pid ${old_pid:-?} is gone)."
    rm -f "$pid_file"
fi

if [ "$(health_status)" != "000" ]; then
    echo "start.sh: port $port on 127.0.0.1 is already in use by another program (not started by start.sh); choose another --port." >&2
    exit 1
fi

# --- The binary -------------------------------------------------------------------------------
if [ -n "${CATBIRD_BINARY:-}" ]; then
    binary="$CATBIRD_BINARY"
    [ -f "$binary" ] && [ -x "$binary" ] || { echo "start.sh: CATBIRD_BINARY '$binary' is not an executable file." >&2; exit 1; }
else
    binary="$repo/.build/release/catbird"
    if [ ! -x "$binary" ]; then
        swift_command="$(command -v swift 2>/dev/null || true)"
        if [ -z "$swift_command" ] && [ -x /opt/swift/usr/bin/swift ]; then
            swift_command=/opt/swift/usr/bin/swift
        fi
        [ -n "$swift_command" ] || { echo "start.sh: $binary is missing and no swift was found (PATH, /opt/swift/usr/bin) to build it; set CATBIRD_BINARY." >&2; exit 1; }
        echo "start.sh: building $binary (swift build -c release --product catbird in $repo)…"
        if ! (cd "$repo" && "$swift_command" build -c release --product catbird) >&2; then
            echo "start.sh: building catbird failed (see above)." >&2
            exit 1
        fi
        [ -x "$binary" ] || { echo "start.sh: the build finished but $binary is not there." >&2; exit 1; }
    fi
fi

# --- Start and wait until healthy -------------------------------------------------------------
mkdir -p "$(dirname "$db")"
# Job control puts the server in a process group of its own: Ctrl-C in the terminal that ran
# start.sh does not reach it, and a failed start can kill everything it spawned. The server
# keeps no descriptor of ours open: a caller that waits for its pipes or sockets to close
# (Xcode running a scheme action, Foundation's Process) would otherwise wait until the
# server exits.
set -m
(
    for fd in $(ls /dev/fd 2> /dev/null); do
        case "$fd" in
            0|1|2|*[!0-9]*) ;;
            *) eval "exec $fd>&-" 2> /dev/null || true ;;
        esac
    done
    exec nohup "$binary" serve --port "$port" --db "$db" --log-level warning > "$log_file" 2>&1 < /dev/null
) &
pid=$!
set +m
echo "$pid" > "$pid_file"

# Stops what was started (SIGTERM, then SIGKILL after 5 s) and forgets its pid.
abandon() {
    stop_process "$pid" 5 group || true
    wait "$pid" 2>/dev/null || true
    rm -f "$pid_file"
}

show_log() {
    echo "start.sh: last lines of $log_file:" >&2
    tail -n 20 "$log_file" 2>/dev/null | sed 's/^/    /' >&2 || true
}

started=$SECONDS
while :; do
    if ! is_running "$pid"; then
        status=0
        wait "$pid" 2>/dev/null || status=$?
        echo "start.sh: catbird on port $port exited (status $status) before it became healthy." >&2
        show_log
        rm -f "$pid_file"
        exit 1
    fi
    if [ "$(health_status)" = "200" ] && is_running "$pid"; then
        break
    fi
    if [ $((SECONDS - started)) -gt "$timeout" ]; then
        echo "start.sh: timeout: catbird on port $port did not answer $health_url within $timeout s; killing it (pid $pid)." >&2
        show_log
        abandon
        exit 1
    fi
    sleep 0.2
done

echo "start.sh: Catbird is serving on http://127.0.0.1:$port (pid $pid, database $db, log $log_file)."
