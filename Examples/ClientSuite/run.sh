#!/usr/bin/env bash
# Runs the client suite (Tests/ClientSuiteTests) against a Catbird started for it with
# deploy/xcode/start.sh on a free port of 127.0.0.1, and stops that server on any exit.
#
#   Examples/ClientSuite/run.sh [swift test options…]
#
# The server: $CATBIRD_BINARY if set, else start.sh builds one. scripts/test runs this with
# the debug build's catbird; the GitHub Actions workflow runs it on macOS.
set -euo pipefail
cd "$(dirname "$0")"
repo="$(cd ../.. && pwd)"

work=$(mktemp -d "${TMPDIR:-/tmp}/catbird-client-suite.XXXXXX")
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cleanup() {
    "$repo/deploy/xcode/stop.sh" --port "$port" > /dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"$repo/deploy/xcode/start.sh" --port "$port" --db "$work/client-suite.sqlite" --timeout 60
CATBIRD_TEST_URL="http://127.0.0.1:$port" swift test --package-path . "$@"
