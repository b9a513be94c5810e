#!/usr/bin/env bash
# The operational tests (run by scripts/test after the Swift build): real `catbird serve`
# processes on loopback, driven from Python.
#   scale_out_test.py     3 then 4 nodes behind a real nginx running deploy/nginx/catbird.conf
#   metrics_test.py       /catbird/metrics read with prometheus-client's parser, counts checked
#   retention_test.py     CATBIRD_JOURNAL_MAX_ROWS & co. on a restarted node: pruned, logged, counted
#   deploy_files_test.py  the Containerfile (hadolint, its promises, the libraries it installs)
#                         and deploy/k8s/catbird.yaml agree with each other and the binary
#   benchmark_smoke_test.py  Benchmarks/run.sh and miss-ab.sh parse and, with BENCH_NO_BUILD=1, names a release product not built; its control.py helper against a real node; interleave.sh's rounds with wrk (1 s runs); journal-queries.sh on 3,000 rows
#   container_test.sh     builds the image with deploy/container/build.sh and runs it
#                         (says clearly what it could not do where a piece is missing)
#
# Installs what they need when missing: nginx-light and wrk (Debian) and, in a virtual environment
# under .build/operations-venv, the PyPI packages in requirements.txt.
# Usage: Tests/Operations/run.sh [catbird binary]   (default: the debug build's)
set -euo pipefail
cd "$(dirname "$0")/../.."
here=Tests/Operations
catbird=${1:-$(swift build --show-bin-path)/catbird}
[ -x "$catbird" ] || { echo "operations: no catbird binary at $catbird; run swift build first" >&2; exit 2; }

missing=()
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
command -v wrk >/dev/null 2>&1 || missing+=(wrk)   # benchmark_smoke_test.py's interleaved rounds
if [ ${#missing[@]} -gt 0 ]; then
    echo "operations: installing ${missing[*]}" >&2
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    # RUNLEVEL=1: keep the package's own nginx service from starting; the tests run private ones.
    RUNLEVEL=1 DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

venv=.build/operations-venv
if ! "$venv/bin/python" -c 'import sys' 2>/dev/null; then
    python3 -m venv "$venv"
fi
python="$venv/bin/python"
"$python" -c 'import prometheus_client, yaml' 2>/dev/null && [ -x "$venv/bin/hadolint" ] \
    || "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"

"$python" "$here/scale_out_test.py" --catbird "$catbird"
"$python" "$here/metrics_test.py" --catbird "$catbird"
"$python" "$here/retention_test.py" --catbird "$catbird"
"$python" "$here/deploy_files_test.py" --catbird "$catbird" --hadolint "$venv/bin/hadolint"
"$python" "$here/benchmark_smoke_test.py" --catbird "$catbird"
"$here/container_test.sh"
