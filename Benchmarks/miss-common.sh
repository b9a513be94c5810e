# Sourced by Benchmarks/miss-ab.sh and miss-client.sh: a temp dir ($WORK) and the servers they
# start, each stopped (by its pid) and the dir removed when the script exits (needs THREADS
# set), and the median of their rounds.
WORK="$(mktemp -d)"
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT

wait_health() {  # wait_health PORT: until GET /catbird/api/health answers 2xx (at most 20 s)
    for _ in $(seq 1 100); do
        curl -fsS -o /dev/null "http://127.0.0.1:$1/catbird/api/health" 2>/dev/null && return
        sleep 0.2
    done
}

start_catbird() {  # start_catbird NAME BINARY PORT: a Catbird on its own database, retention off
    "$2" serve --host 127.0.0.1 --port "$3" --db "$WORK/$1.sqlite" --log-level warning --threads "$THREADS" \
        --journal-max-rows off --journal-max-age off --tenant-ttl off >"$WORK/$1.log" 2>&1 &
    PIDS+=($!)
    wait_health "$3"
}

median() {  # echo "3 1 2" | median: the median of the numbers read (the lower middle of an even count)
    tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
