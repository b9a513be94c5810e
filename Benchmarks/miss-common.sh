# Sourced by Benchmarks/miss-ab.sh and miss-client.sh: ab-servers.sh's temp dir ($WORK) and
# servers (each stopped, the dir removed, when the script exits; needs THREADS set), plus
# wait_health and the median of rounds.
# shellcheck source=ab-servers.sh
source "$(dirname "${BASH_SOURCE[0]}")/ab-servers.sh"

wait_health() {  # wait_health PORT: until GET /catbird/api/health answers 2xx (at most 20 s)
    for _ in $(seq 1 100); do
        curl -fsS -o /dev/null "http://127.0.0.1:$1/catbird/api/health" 2>/dev/null && return
        sleep 0.2
    done
}

start_catbird() {  # start_catbird NAME BINARY PORT: ab_start (a Catbird on its own database, retention off)
    ab_start "$@"
}

median() {  # echo "3 1 2" | median: the median of the numbers read (the lower middle of an even count)
    tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
