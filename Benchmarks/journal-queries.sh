#!/usr/bin/env bash
# Journal queries at scale: POST /catbird/api/requests/count over one tenant's journal of
# BENCH_JOURNAL_ROWS rows (default 1,500,000), for each pattern kind (equal, wildcard, regexp
# the small automaton answers, regexp only ICU answers, header patterns of each kind, url and
# header together), beside the same question asked as plain SQL in the sqlite3 CLI on the same
# file (the reference run, right after each count). Prints a markdown table with PASS/FAIL
# against the target (each count under 1 s, the same count as the SQL) and exits 1 on any FAIL.
# Besides the wall time it prints the CPU time the server spent on each count (utime + stime
# from /proc, the figure to compare between runs on a loaded machine) and the load average.
#
# The journal is written straight into the database file with SQLite (a recursive CTE, before
# the server starts, after it has migrated the file), not through HTTP, so building it takes
# seconds: rows of tenant "bench" with URLs /api/items/<n>?page=<n%50> (every tenth
# /api/users/<n>), an Accept header on every row and an X-Token on every third, plus 10% of
# rows in another tenant.
#
# With BENCH_BASELINE_BIN (another build, say the previous main's) it runs the same counts on
# the same file with both binaries, the baseline first, BENCH_ROUNDS times in alternation (one
# server at a time: a second catbird refuses the file), and prints both builds' times side by
# side with the reference; PASS/FAIL then judges this build's slowest round.
#
# Environment:
#   BENCH_JOURNAL_ROWS  rows of the benchmarked tenant (default 1500000)
#   BENCH_CATBIRD_BIN   the catbird binary to run (default: build, then .build/release/catbird)
#   BENCH_BASELINE_BIN  a second binary to compare with, side by side (default: none)
#   BENCH_ROUNDS        rounds of counts per binary with a baseline (default 2; 1 without)
#   BENCH_NO_BUILD=1    skip `swift build -c release` (use the existing .build/release/catbird)
#   BENCH_KEEP=1        keep the temp dir (database, log) after the run
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
ROWS="${BENCH_JOURNAL_ROWS:-1500000}"
TARGET_MS=1000
cd "$ROOT"
source scripts/setup.sh >/dev/null

if [ -n "${BENCH_CATBIRD_BIN:-}" ]; then
    BINARY="$BENCH_CATBIRD_BIN"
else
    if [ "${BENCH_NO_BUILD:-0}" != "1" ]; then swift build -c release --product catbird >/dev/null; fi
    BINARY="$(swift build -c release --show-bin-path)/catbird"
fi

WORK="$(mktemp -d)"
SERVER_PID=""
cleanup() {
    if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
    if [ "${BENCH_KEEP:-0}" = "1" ]; then echo "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
DB="$WORK/journal.sqlite"
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"

start_server() {
    # Retention off: the rows are written with an old time and exceed the default row cap.
    "$BINARY" --db "$DB" --port "$PORT" --log-level warning --journal-max-rows off --journal-max-age off \
        --tenant-ttl off >"$WORK/server.log" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 1 200); do
        curl -sf "http://127.0.0.1:$PORT/catbird/version" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    echo "catbird did not start:"; cat "$WORK/server.log"; exit 1
}
stop_server() { kill "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true; SERVER_PID=""; }

# Migrate the file, then fill the journal while the server is stopped.
start_server; stop_server
echo "building a journal of $ROWS rows for tenant 'bench'…"
fill_started=$(date +%s.%N)
sqlite3 "$DB" <<SQL
PRAGMA journal_mode=WAL;
INSERT INTO tenants (id, created_at, last_activity_at) VALUES
  ('bench', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'),
  ('other', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z');
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $ROWS + $ROWS / 10)
INSERT INTO journal_rows (time, tenant, method, url, request_headers, status, answered_by, duration_ms)
SELECT '2026-01-01T00:00:00.000Z',
       CASE WHEN i > $ROWS THEN 'other' ELSE 'bench' END,
       CASE WHEN i % 7 = 0 THEN 'POST' ELSE 'GET' END,
       CASE WHEN i % 10 = 0 THEN '/api/users/' || i ELSE '/api/items/' || i || '?page=' || (i % 50) END,
       CASE WHEN i % 3 = 0 THEN '{"Accept":"application/json","X-Token":"t' || (i % 5) || '"}'
            ELSE '{"Accept":"application/json"}' END,
       200, 'mock', 0.1
FROM n;
SQL
python3 -c "print('built in %.1f s' % ($(date +%s.%N) - $fill_started))"
start_server

# name # pattern JSON # the same question in SQL (reference)
BENCH="SELECT count(*) FROM requests WHERE tenant='bench' AND method='GET'"
TOKEN="json_extract(request_headers, '\$.\"X-Token\"')"
CASES=(
  "equal#{\"method\":\"GET\",\"url\":{\"kind\":\"equal\",\"value\":\"/api/users/100\"},\"headers\":{}}#$BENCH AND url='/api/users/100'"
  "wildcard#{\"method\":\"GET\",\"url\":{\"kind\":\"wildcard\",\"value\":\"/API/users/*\"},\"headers\":{}}#$BENCH AND url GLOB '/[Aa][Pp][Ii]/users/*'"
  "regexp#{\"method\":\"GET\",\"url\":{\"kind\":\"regexp\",\"value\":\"users/[0-9]+\"},\"headers\":{}}#$BENCH AND url GLOB '*users/[0-9]*'"
  "regexp users/\\d{3}\$#{\"method\":\"GET\",\"url\":{\"kind\":\"regexp\",\"value\":\"users/\\\\d{3}\$\"},\"headers\":{}}#$BENCH AND url GLOB '*users/[0-9][0-9][0-9]'"
  "regexp, ICU only: (?i), a group#{\"method\":\"GET\",\"url\":{\"kind\":\"regexp\",\"value\":\"(?i)users/(1|2)\\\\d*0\$\"},\"headers\":{}}#$BENCH AND url GLOB '*[Uu][Ss][Ee][Rr][Ss]/[12]*0'"
  "header equal#{\"method\":\"GET\",\"url\":{\"kind\":\"wildcard\",\"value\":\"*\"},\"headers\":{\"X-Token\":{\"kind\":\"equal\",\"value\":\"t1\"}}}#$BENCH AND $TOKEN = 't1'"
  "header wildcard#{\"method\":\"GET\",\"url\":{\"kind\":\"wildcard\",\"value\":\"*\"},\"headers\":{\"x-token\":{\"kind\":\"wildcard\",\"value\":\"T*\"}}}#$BENCH AND $TOKEN GLOB '[Tt]*'"
  "url + header regexp#{\"method\":\"GET\",\"url\":{\"kind\":\"regexp\",\"value\":\"items\"},\"headers\":{\"Accept\":{\"kind\":\"regexp\",\"value\":\"json\$\"}}}#$BENCH AND url GLOB '*[Ii][Tt][Ee][Mm][Ss]*' AND json_extract(request_headers, '\$.Accept') GLOB '*[Jj][Ss][Oo][Nn]'"
)

CLOCK_TICKS="$(getconf CLK_TCK)"
server_cpu_ms() { awk -v t="$CLOCK_TICKS" '{ print int(($14 + $15) * 1000 / t) }' "/proc/$SERVER_PID/stat"; }

# One pass over the cases on the running server: "label index ms cpu_ms status count" lines in
# $WORK/results, and (with `reference`) the SQL reference's "index ms count" in $WORK/references.
run_cases() {
    local label="$1" with_reference="$2" index=0
    for case in "${CASES[@]}"; do
        rest="${case#*#}"
        pattern="${rest%%#*}"; reference="${rest#*#}"
        cpu_before="$(server_cpu_ms)"
        answer="$(curl -s -o "$WORK/answer" -w '%{http_code} %{time_total}' -X POST \
            -H 'Content-Type: application/json' -H 'X-Catbird-Parallel-Id: bench' \
            --data "{\"pattern\":$pattern}" "http://127.0.0.1:$PORT/catbird/api/requests/count")"
        cpu_ms=$(( $(server_cpu_ms) - cpu_before ))
        ms="$(python3 -c "print(round(${answer##* } * 1000))")"
        count="$(python3 -c "import json,sys; print(json.load(open('$WORK/answer')).get('count', 'error'))" 2>/dev/null || cat "$WORK/answer")"
        echo "$label $index $ms $cpu_ms ${answer%% *} $count" >>"$WORK/results"
        if [ "$with_reference" = reference ]; then
            ref_started=$(date +%s%N)
            ref_count="$(sqlite3 "$DB" "$reference")"
            echo "$index $(( ($(date +%s%N) - ref_started) / 1000000 )) $ref_count" >>"$WORK/references"
        fi
        index=$((index + 1))
    done
}

echo
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
echo
: >"$WORK/results"; : >"$WORK/references"
if [ -z "${BENCH_BASELINE_BIN:-}" ]; then
    run_cases this reference
else
    echo "baseline: $BENCH_BASELINE_BIN; this build: $BINARY; ${BENCH_ROUNDS:-2} rounds each, in alternation"
    echo
    stop_server
    CANDIDATE="$BINARY"
    for _ in $(seq 1 "${BENCH_ROUNDS:-2}"); do
        BINARY="$BENCH_BASELINE_BIN"; start_server; run_cases baseline none; stop_server
        BINARY="$CANDIDATE"; start_server; run_cases this reference; stop_server
    done
fi
failed=0
python3 - "$WORK/results" "$WORK/references" "$TARGET_MS" "$ROWS" "${CASES[@]}" <<'PY' || failed=1
import sys
results_path, references_path, target, rows, *cases = sys.argv[1:]
target = int(target)
names = [case.split('#', 1)[0] for case in cases]
runs = {}
for line in open(results_path):
    label, index, ms, cpu, status, count = line.split(maxsplit=5)
    runs.setdefault((label, int(index)), []).append((int(ms), int(cpu), status, count.strip()))
references = {}
for line in open(references_path):
    index, ms, count = line.split(maxsplit=2)
    references.setdefault(int(index), []).append((int(ms), count.strip()))
side_by_side = any(label == 'baseline' for label, _ in runs)
def times(entries):
    return ' / '.join(str(ms) for ms, _, _, _ in entries)
def cpus(entries):
    return ' / '.join(str(cpu) for _, cpu, _, _ in entries)
if side_by_side:
    print(f"| count over {rows} rows | baseline ms | baseline CPU ms | this build ms | this build CPU ms | count | sqlite3 CLI ms (reference) | result |")
    print("|---|---:|---:|---:|---:|---|---:|---|")
else:
    print(f"| count over {rows} rows | catbird ms | catbird CPU ms | count | sqlite3 CLI ms (reference) | × reference | result |")
    print("|---|---:|---:|---|---:|---:|---|")
failed = False
for index, name in enumerate(names):
    mine = runs[('this', index)]
    refs = references[index]
    ref_count = refs[-1][1]
    counts = {count for _, _, _, count in mine} | ({count for _, _, _, count in runs[('baseline', index)]} if side_by_side else set())
    ok = all(status == '200' and ms < target for ms, _, status, _ in mine) and counts == {ref_count}
    failed = failed or not ok
    shown = ' / '.join(sorted(counts))
    ref_ms = ' / '.join(str(ms) for ms, _ in refs)
    result = 'PASS' if ok else 'FAIL'
    if side_by_side:
        base = runs[('baseline', index)]
        print(f"| {name} | {times(base)} | {cpus(base)} | {times(mine)} | {cpus(mine)} | {shown} (SQL: {ref_count}) | {ref_ms} | {result} |")
    else:
        ms = mine[0][0]
        ratio = f"{ms / refs[0][0]:.1f}" if refs[0][0] > 0 else "n/a"
        print(f"| {name} | {ms} | {mine[0][1]} | {shown} (SQL: {ref_count}) | {ref_ms} | {ratio} | {result} |")
sys.exit(1 if failed else 0)
PY
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "target: every count under $TARGET_MS ms with the same count as the SQL reference"
exit "$failed"
