#!/usr/bin/env bash
# Stops the Catbird server that deploy/xcode/start.sh started for a port.
#
#   stop.sh [--port N]
#
#   --port  the port given to start.sh (default 8080)
#
# Reads the pid from ${TMPDIR:-/tmp}/catbird-<port>.pid and sends SIGTERM: the server stops
# accepting, writes the queued journal, closes the database and exits. If it is still running
# after 10 s it gets SIGKILL, with a warning (the last journal batch may then be lost). The pid
# file is removed either way. Nothing running (no pid file, a stale one, or a pid that now
# belongs to some other program, which is left alone) is not an error: a note, exit 0.
#
# Exit status: 0 stopped or nothing to stop; 1 the process survived even SIGKILL; 2 bad usage.
#
# Wiring into an Xcode scheme: Edit Scheme… → Test → Post-actions → + → New Run Script Action,
# "Provide build settings from" the app target, script
#   "$SRCROOT/path/to/catbird/deploy/xcode/stop.sh" --port 8080 > "$TMPDIR/catbird-stop.out" 2>&1
# (see start.sh for the pre-action and for the path of a Swift package checkout).
set -euo pipefail

usage() {
    sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'
}

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

port=8080
while [ $# -gt 0 ]; do
    case "$1" in
        --port) [ $# -ge 2 ] || fail_usage "--port needs a value"; port="$2"; shift 2 ;;
        --port=*) port="${1#--port=}"; shift ;;
        -h|--help) usage; exit 0 ;;
        *) fail_usage "unknown argument '$1'" ;;
    esac
done
port=$(normalised_port "$port")

state_dir=$(state_dir)
pid_file="$state_dir/catbird-$port.pid"


if [ ! -f "$pid_file" ]; then
    echo "stop.sh: no Catbird recorded for port $port ($pid_file does not exist); nothing to stop."
    exit 0
fi
pid="$(tr -dc '0-9' < "$pid_file")"
if [ -z "$pid" ] || ! is_running "$pid"; then
    echo "stop.sh: Catbird for port $port is not running (pid ${pid:-?} is gone); removed the stale $pid_file."
    rm -f "$pid_file"
    exit 0
fi
if ! ps -ww -p "$pid" -o args= 2>/dev/null | grep -q -- "--port $port "; then
    echo "stop.sh: pid $pid from $pid_file is not a Catbird serving port $port (the pid was reused?); left it alone and removed the pid file." >&2
    rm -f "$pid_file"
    exit 0
fi

# SIGTERM: the server writes its queued journal and exits 0. After SIGKILL the last journal
# batch may be lost.
if ! stop_process "$pid" 10; then
    echo "stop.sh: pid $pid is still running after SIGKILL." >&2
    exit 1
fi
rm -f "$pid_file"
echo "stop.sh: stopped Catbird on port $port (pid $pid)."
