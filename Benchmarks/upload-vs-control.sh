#!/usr/bin/env bash
# One tenant's uploads against another tenant's control changes (tester finding T15A-F2), two
# builds A/B in one invocation, interleaved:
#
#   Benchmarks/upload-vs-control.sh REFERENCE_BINARY BINARY [ROUNDS] [SECONDS] [PORT]
#
# Starts both servers (ports PORT and PORT+1, default 19210; 2 worker threads each, journal
# default), gives each a POST /upload mock ({"ok":true}), then ROUNDS times (default 3), for
# each server in turn:
#   upload   wrk -t2 -c64 -dSECONDS (default 4) of POST /upload with 16 KiB bodies (post.lua):
#            one tenant's upload speed, requests/s
#   flood    the same wrk run on tenant "loader" (no mock: 404s, journaled with their
#            bodies) while control-latency.py updates a mock of tenant "control" every 5 ms:
#            the updates' p50/p99/max in ms, and the flood's requests/s
# Needs wrk and python3.
set -u
REF="$1"; BIN="$2"; ROUNDS="${3:-3}"; SECONDS_PER_RUN="${4:-4}"; PORT="${5:-19210}"
HERE="$(cd "$(dirname "$0")" && pwd)"
WORK="$(mktemp -d /tmp/upload-vs-control.XXXX)"
PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
names=(ref new)
binaries=("$REF" "$BIN")
for i in 0 1; do
    "${binaries[$i]}" --port $((PORT + i)) --db "$WORK/${names[$i]}.sqlite" --threads 2 --log-level warning >"$WORK/${names[$i]}.log" 2>&1 &
    PIDS+=($!)
done
sleep 1.5
for i in 0 1; do python3 "$HERE/control.py" $((PORT + i)) mocks "" upload || exit 1; done
for round in $(seq 1 "$ROUNDS"); do
    for i in 0 1; do
        url="http://127.0.0.1:$((PORT + i))/upload"
        upload=$(wrk -t2 -c64 -d"${SECONDS_PER_RUN}s" -s "$HERE/post.lua" "$url" -- 16384 | awk '/Requests\/sec/{print $2}')
        wrk -t2 -c64 -d"${SECONDS_PER_RUN}s" -s "$HERE/post.lua" -H "X-Catbird-Parallel-Id: loader" "$url" -- 16384 >"$WORK/flood.txt" &
        flood=$!
        sleep 0.3
        control=$(python3 "$HERE/control-latency.py" $((PORT + i)) control "$(echo "$SECONDS_PER_RUN - 0.8" | bc)")
        wait "$flood"
        echo "round $round ${names[$i]}: upload_rps=$upload flood_rps=$(awk '/Requests\/sec/{print $2}' "$WORK/flood.txt") control: $control"
    done
done
