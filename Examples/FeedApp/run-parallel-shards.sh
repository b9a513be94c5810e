#!/usr/bin/env bash
# Runs the FeedApp UI-test suite as parallel shards against ONE Catbird server, the way a CI
# fleet shares a host: SHARDS (default 8) separate test processes at once, each playing a
# simulator clone (shard-1 … shard-N), the same tests, mock URLs and different bodies. Every
# test has its own tenant (`Catbird.TestTenant`: `<TestClass>.<testMethod>@shard-N`). Every
# shard must pass (the suite checks that a test sees only its own requests), and afterwards
# no test's tenant may be left on the server: each was dropped in its test's tear-down.
#
# Needs the debug build with tests (`swift build --build-tests`; scripts/test does it first).
# Starts and stops the server with deploy/xcode/start.sh and stop.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."

shards=${SHARDS:-8}
bin=$(swift build --show-bin-path)
bundle="$bin/CatbirdPackageTests.xctest"
suites="FeedAppUITests.FeedFlowUITests,FeedAppUITests.LoginUITests"
[ -x "$bundle" ] && [ -x "$bin/catbird" ] && [ -x "$bin/FeedApp" ] || {
    echo "run-parallel-shards: build first with: swift build --build-tests" >&2
    exit 2
}

work=$(mktemp -d "${TMPDIR:-/tmp}/catbird-shards.XXXXXX")
# A free port on 127.0.0.1, chosen by the kernel.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export CATBIRD_BINARY="$bin/catbird"
pids=()
# On any exit, also an interrupted one: stop the shards still running, then the server.
cleanup() {
    [ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null || true
    wait 2>/dev/null || true
    deploy/xcode/stop.sh --port "$port" >/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
deploy/xcode/start.sh --port "$port" --db "$work/shards.sqlite" --timeout 30

echo "run-parallel-shards: $shards shards against http://127.0.0.1:$port"
for i in $(seq 1 "$shards"); do
    FEEDAPP_SHARD_URL="http://127.0.0.1:$port" FEEDAPP_SHARD="shard-$i" \
        timeout 300 "$bundle" "$suites" >"$work/shard-$i.log" 2>&1 &
    pids+=($!)
done

passed=0
failed=0
for i in $(seq 1 "$shards"); do
    if wait "${pids[$((i - 1))]}"; then
        passed=$((passed + 1))
        echo "shard-$i: $(grep -E 'Executed [0-9]+ tests' "$work/shard-$i.log" | tail -1 | sed 's/^[[:space:]]*//')"
    else
        failed=$((failed + 1))
        echo "shard-$i FAILED:"
        grep -E "error:|failed" "$work/shard-$i.log" | head -20 || tail -20 "$work/shard-$i.log"
    fi
done

# The admin's view of the shared server: only the default tenant is left, every test's own
# tenant having been dropped in its tear-down.
actual=$(curl -sf "http://127.0.0.1:$port/catbird/api/tenants" \
    | python3 -c 'import json, sys; print(" ".join(repr(t["id"]) for t in json.load(sys.stdin)["tenants"]))')
if [ "$actual" != "''" ]; then
    echo "tenants were left on the server after the run (expected only the default tenant ''): $actual"
    failed=$((failed + 1))
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
