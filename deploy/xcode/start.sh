#!/usr/bin/env bash
# Starts a Catbird server in the background for a UI-test run, clears the mocks left by earlier
# runs, and returns once it answers GET /catbird/api/health (or fails loudly).
# deploy/xcode/stop.sh stops it.
#
#   start.sh [--port N] [--host ADDRESS] [--db PATH] [--timeout SECONDS] [--keep-mocks]
#
#   --port        port (default 8080)
#   --host        address to bind (default 127.0.0.1, which the simulator reaches too);
#                 0.0.0.0 lets a device on the network reach it (with a warning: anyone on
#                 that network can then read the journal and change mocks)
#   --db          database file (default ${TMPDIR:-/tmp}/catbird-<port>.sqlite; it persists)
#   --timeout     seconds to wait for the server to become healthy (default 30)
#   --keep-mocks  keep the mocks earlier runs left; by default every tenant's mocks are
#                 removed once the server is healthy (DELETE /catbird/api/mocks?all=true), so a mock
#                 left by an earlier (perhaps crashed) run never answers this one. Journals
#                 of earlier runs are kept and stay queryable.
#
# Binary: $CATBIRD_BINARY if set; otherwise start.sh builds catbird from this checkout with
# `swift build -c release --product catbird` ($CATBIRD_SWIFT, else swift from PATH, else
# /opt/swift/usr/bin/swift) and runs it from `--show-bin-path`. The build runs with the scheme's
# environment neutralised: only HOME, USER, LANG, TMPDIR, DEVELOPER_DIR, TOOLCHAINS and
# PKG_CONFIG_PATH are kept, and PATH is reset to the system's plus Homebrew's, so an iOS
# target's build settings (SDKROOT of the simulator, deployment targets, ARCHS, CC, CFLAGS…)
# cannot break the macOS build. The server runs `catbird serve --host H --port N --db PATH
# --log-level warning` under nohup; its pid goes to ${TMPDIR:-/tmp}/catbird-<port>.pid and its
# output to ${TMPDIR:-/tmp}/catbird-<port>.log.
#
# Already running: when the pid file names a live Catbird for this port that answers the health
# check, the script reuses it (prints a note; mocks are still cleared unless --keep-mocks): a
# run whose post-action never ran (Xcode stopped, a crash) must not block the next one. That
# server keeps the database and address it was started with. A stale pid file (process gone) is
# removed. Anything else already listening on the port is an error.
#
# Exit status: 0 serving; 1 the server could not be built, started or cleared (an "error:" line
# names the cause and shows the end of the log; a started process is killed and the pid file
# removed; on macOS a notification is also shown, since Xcode shows no output of scheme
# actions and runs the tests anyway; CATBIRD_NO_NOTIFICATION=1 turns it off); 2 bad usage.
#
# Wiring into an Xcode scheme (step by step in the README, "Xcode scheme set-up"):
#   Edit Scheme… → Test → Pre-actions → + → New Run Script Action
#     Provide build settings from: <the app target>
#     Script:  "$SRCROOT/path/to/catbird/deploy/xcode/start.sh" --port 8080 > "$TMPDIR/catbird-start.out" 2>&1
#   Edit Scheme… → Test → Post-actions → + → New Run Script Action (same build settings)
#     Script:  "$SRCROOT/path/to/catbird/deploy/xcode/stop.sh" --port 8080 > "$TMPDIR/catbird-stop.out" 2>&1
# With Catbird as a Swift package dependency of the project, its checkout is at
#   "${BUILD_DIR%Build/*}SourcePackages/checkouts/catbird/deploy/xcode/start.sh"
# (which is why the action needs build settings). Building the server on macOS needs
# libmicrohttpd and pkg-config (Homebrew); or set CATBIRD_BINARY to a catbird built elsewhere.
set -euo pipefail

usage() {
    sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'
}

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# Prints "error: start.sh: $1" on stderr (and, on macOS, as a notification: Xcode shows no
# output of scheme actions) and exits 1.
fail() {
    echo "error: start.sh: $1" >&2
    if [ "$(uname -s)" = Darwin ] && [ "${CATBIRD_NO_NOTIFICATION:-}" != 1 ] && command -v osascript > /dev/null 2>&1; then
        local text="${1//\\/\\\\}"
        text="${text//\"/\\\"}"
        osascript -e "display notification \"$text\" with title \"Catbird did not start\"" > /dev/null 2>&1 || true
    fi
    exit 1
}

port=8080
host=127.0.0.1
db=""
timeout=30
keep_mocks=0
while [ $# -gt 0 ]; do
    case "$1" in
        --port) [ $# -ge 2 ] || fail_usage "--port needs a value"; port="$2"; shift 2 ;;
        --port=*) port="${1#--port=}"; shift ;;
        --host) [ $# -ge 2 ] || fail_usage "--host needs a value"; host="$2"; shift 2 ;;
        --host=*) host="${1#--host=}"; shift ;;
        --db) [ $# -ge 2 ] || fail_usage "--db needs a value"; db="$2"; shift 2 ;;
        --db=*) db="${1#--db=}"; shift ;;
        --timeout) [ $# -ge 2 ] || fail_usage "--timeout needs a value"; timeout="$2"; shift 2 ;;
        --timeout=*) timeout="${1#--timeout=}"; shift ;;
        --keep-mocks) keep_mocks=1; shift ;;
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
case "$host" in
    ''|*[!0-9A-Za-z.:-]*) fail_usage "host must be an IP address or name such as 127.0.0.1 or 0.0.0.0, not '$host'" ;;
esac
# The address the health check and the clean-up talk to: loopback when bound to every address.
case "$host" in
    0.0.0.0|::) local_host=127.0.0.1 ;;
    *:*) local_host="[$host]" ;;
    *) local_host="$host" ;;
esac
if [ "$host" != 127.0.0.1 ] && [ "$host" != localhost ] && [ "$host" != ::1 ]; then
    echo "start.sh: warning: --host $host exposes Catbird beyond this machine: anyone who can reach $host:$port can read the journal (request bodies, tokens) and change mocks. Use it on a trusted network only." >&2
fi

command -v curl > /dev/null 2>&1 || fail "curl is needed for the health check and was not found on PATH."

state_dir=$(state_dir)
[ -n "$db" ] || db="$state_dir/catbird-$port.sqlite"
pid_file="$state_dir/catbird-$port.pid"
log_file="$state_dir/catbird-$port.log"
base_url="http://$local_host:$port"
health_url="$base_url/catbird/api/health"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"


# The HTTP status of the health check, 000 when nothing answered.
health_status() {
    curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$health_url" 2>/dev/null || true
}

# Removes every tenant's mocks (journals stay) unless --keep-mocks; fails loudly otherwise.
clear_mocks() {
    [ "$keep_mocks" = 0 ] || { echo "start.sh: --keep-mocks: mocks of earlier runs are kept."; return 0; }
    local answer
    # An admin action: with CATBIRD_ADMIN_TOKEN set (the server reads it too), send it as the bearer.
    local auth=()
    [ -z "${CATBIRD_ADMIN_TOKEN:-}" ] || auth=(-H "Authorization: Bearer $CATBIRD_ADMIN_TOKEN")
    if ! answer=$(curl -s -X DELETE --max-time 30 "${auth[@]}" -w ' %{http_code}' "$base_url/catbird/api/mocks?all=true" 2>&1) \
        || [ "${answer##* }" != 200 ]; then
        "$@"
        fail "could not remove the mocks of earlier runs (DELETE $base_url/catbird/api/mocks?all=true answered: ${answer:-nothing})."
    fi
    local removed
    removed=$(printf '%s' "${answer% *}" | tr -dc '0-9')
    echo "start.sh: removed ${removed:-?} mock(s) left by earlier runs; their journals are kept."
}

# --- An earlier server for this port? ---------------------------------------------------------
if [ -f "$pid_file" ]; then
    old_pid="$(tr -dc '0-9' < "$pid_file")"
    if [ -n "$old_pid" ] && is_running "$old_pid"; then
        if ps -ww -p "$old_pid" -o args= 2>/dev/null | grep -q -- "--port $port " && [ "$(health_status)" = "200" ]; then
            echo "start.sh: Catbird is already running on port $port (pid $old_pid, from $pid_file); reusing it."
            echo "start.sh: it keeps the database and address it was started with; stop.sh --port $port stops it."
            clear_mocks true
            exit 0
        fi
        fail "$pid_file names pid $old_pid, which is alive but is not a healthy Catbird on port $port; stop it (deploy/xcode/stop.sh --port $port) or remove the pid file."
    fi
    echo "start.sh: removing stale $pid_file (pid ${old_pid:-?} is gone)."
    rm -f "$pid_file"
fi

if [ "$(health_status)" != "000" ]; then
    fail "port $port on $local_host is already in use by another program (not started by start.sh); choose another --port."
fi

# --- The binary -------------------------------------------------------------------------------
if [ -n "${CATBIRD_BINARY:-}" ]; then
    binary="$CATBIRD_BINARY"
    [ -f "$binary" ] && [ -x "$binary" ] || fail "CATBIRD_BINARY '$binary' is not an executable file."
else
    swift_command="${CATBIRD_SWIFT:-$(command -v swift 2>/dev/null || true)}"
    if [ -z "$swift_command" ] && [ -x /opt/swift/usr/bin/swift ]; then
        swift_command=/opt/swift/usr/bin/swift
    fi
    [ -n "$swift_command" ] || fail "no swift was found (CATBIRD_SWIFT, PATH, /opt/swift/usr/bin) to build catbird; set CATBIRD_BINARY."
    # The scheme's environment (an iOS target's build settings: SDKROOT of the simulator,
    # deployment targets, ARCHS, CC, CFLAGS…) breaks a macOS build: keep only what a login
    # shell would have.
    clean_environment=(env -i "HOME=${HOME:-/}" "PATH=/usr/bin:/bin:/usr/sbin:/sbin:/opt/homebrew/bin:/usr/local/bin:/opt/swift/usr/bin:$(dirname "$swift_command")")
    for name in USER LANG TMPDIR DEVELOPER_DIR TOOLCHAINS PKG_CONFIG_PATH; do
        [ -z "${!name:-}" ] || clean_environment+=("$name=${!name}")
    done
    echo "start.sh: building catbird (swift build -c release --product catbird in $repo, scheme environment cleared)…"
    if ! (cd "$repo" && "${clean_environment[@]}" "$swift_command" build -c release --product catbird) >&2; then
        fail "building catbird failed (output above; on macOS: brew install libmicrohttpd pkg-config), or set CATBIRD_BINARY."
    fi
    bin_path=$(cd "$repo" && "${clean_environment[@]}" "$swift_command" build -c release --show-bin-path 2>/dev/null) || bin_path=""
    binary="$bin_path/catbird"
    [ -n "$bin_path" ] && [ -x "$binary" ] || fail "the build finished but '$binary' is not an executable file."
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
    exec nohup "$binary" serve --host "$host" --port "$port" --db "$db" --log-level warning > "$log_file" 2>&1 < /dev/null
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
        show_log
        rm -f "$pid_file"
        fail "catbird on port $port exited (status $status) before it became healthy (log above)."
    fi
    if [ "$(health_status)" = "200" ] && is_running "$pid"; then
        break
    fi
    if [ $((SECONDS - started)) -gt "$timeout" ]; then
        show_log
        abandon
        fail "timeout: catbird on port $port did not answer $health_url within $timeout s; killed it (pid $pid)."
    fi
    sleep 0.2
done

clear_mocks abandon
echo "start.sh: Catbird is serving on http://$host:$port (pid $pid, database $db, log $log_file)."
