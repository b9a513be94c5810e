# Sourced by the side-by-side scripts (visibility-ab.sh; miss-ab.sh and miss-client.sh through miss-common.sh): a temp dir ($WORK), and
# ab_start NAME BINARY PORT [OPTION…], which starts a Catbird with the benchmark's settings (its own
# database in $WORK, retention off, --threads $THREADS, then the options given) and waits until it answers. Every server
# started is stopped, and $WORK removed, on exit; so is a load generator whose pid is in
# $LOAD_PID (SIGINT).
WORK="$(mktemp -d)"
PIDS=()
LOAD_PID=""
ab_cleanup() {
    [ -n "$LOAD_PID" ] && { kill -INT "$LOAD_PID" 2>/dev/null || true; wait "$LOAD_PID" 2>/dev/null || true; }
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap ab_cleanup EXIT

ab_start() {  # ab_start NAME BINARY PORT [OPTION…]
    local name="$1" binary="$2" port="$3"; shift 3
    "$binary" serve --host 127.0.0.1 --port "$port" --db "$WORK/$name.sqlite" --log-level warning --threads "$THREADS" \
        --journal-max-rows off --journal-max-age off --tenant-ttl off "$@" >"$WORK/$name.log" 2>&1 &
    PIDS+=($!)
    for _ in $(seq 1 100); do
        curl -fsS -o /dev/null "http://127.0.0.1:$port/catbird/api/health" 2>/dev/null && break
        sleep 0.2
    done
}
