#!/usr/bin/env bash
# Builds the image of deploy/container/Containerfile with deploy/container/build.sh and runs
# it: the server inside answers /catbird/api/health and serves a mock, runs as the image's
# non-root user, keeps its database on the volume path, and the image's own HEALTHCHECK
# command passes inside the container. The image gets a tag of this run's own and is removed
# at the end, so runs at the same time do not collide.
#
# Where a piece cannot be had, it says so and does that much less, never pretending:
# - no podman/buildah and none installable → skip (the Containerfile is still linted by
#   deploy_files_test.py);
# - the registry's debian:12-slim cannot be pulled (no network beyond Debian's archive and
#   PyPI) → the base is made from Debian 12's own packages with mmdebstrap (variant apt, the
#   content of the slim image) and the build says which base it used;
# - the build runs with chroot isolation and host networking, and the image is started with
#   `buildah run --isolation chroot` (its ENTRYPOINT command given explicitly), because
#   sandboxes like this one allow no OCI runtime (no cgroups, no setrlimit).
set -euo pipefail
cd "$(dirname "$0")/../.."
skip() { echo "container: SKIPPED, image not built: $*"; exit 0; }

sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
install() {
    $sudo apt-get update -qq >/dev/null 2>&1 || true
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null 2>&1
}
missing=()
for tool in podman buildah; do command -v "$tool" >/dev/null 2>&1 || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ]; then
    echo "container: installing ${missing[*]}" >&2
    install "${missing[@]}" || skip "cannot install ${missing[*]} from Debian"
fi

official=docker.io/library/debian:12-slim
local_base=localhost/catbird-base-debian:12
if timeout 60 podman pull -q "$official" >/dev/null 2>&1; then
    base=$official
    echo "container: base $official (from the registry)"
elif podman image exists "$local_base"; then
    base=$local_base
    echo "container: registry unreachable; base $local_base (Debian 12 made earlier by mmdebstrap)"
else
    echo "container: registry unreachable; making a Debian 12 base from Debian's archive with mmdebstrap" >&2
    command -v mmdebstrap >/dev/null 2>&1 || install mmdebstrap || skip "registry unreachable and mmdebstrap not installable"
    rootfs=$(mktemp -d "${TMPDIR:-/tmp}/catbird-rootfs.XXXXXX")
    mmdebstrap --quiet --variant=apt bookworm "$rootfs/rootfs.tar" || { rm -rf "$rootfs"; skip "mmdebstrap failed"; }
    podman import -q "$rootfs/rootfs.tar" "$local_base" >/dev/null
    rm -rf "$rootfs"
    base=$local_base
    echo "container: base $local_base (Debian 12 by mmdebstrap, not the registry's debian:12-slim)"
fi

# A tag of this run's own, removed at the end: runs at the same time (two worktrees, two CI
# jobs on one host) must neither build over nor run each other's image.
tag="localhost/catbird:test-$$-$(date +%s%N)"
container="" server_pid=""
server_log=$(mktemp "${TMPDIR:-/tmp}/catbird-container-log.XXXXXX")
cleanup() {
    [ -z "$server_pid" ] || { kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; }
    [ -z "$container" ] || buildah rm "$container" >/dev/null 2>&1 || true
    if podman image exists "$tag" 2>/dev/null; then podman rmi -f "$tag" >/dev/null 2>&1 || echo "container: could not remove $tag" >&2; fi
    rm -f "$server_log"
    server_pid="" container=""
}
trap cleanup EXIT
build_log=$(mktemp "${TMPDIR:-/tmp}/catbird-image-build.XXXXXX")
deploy/container/build.sh --tag "$tag" --base "$base" -- --isolation chroot --network host >"$build_log" 2>&1 \
    || { tail -40 "$build_log"; rm -f "$build_log"; echo "container: FAIL the image does not build"; exit 1; }
rm -f "$build_log"
echo "container: built $tag on $base"

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
container=$(buildah from -q "$tag")
inside() { buildah run --isolation chroot --network host --env "CATBIRD_PORT=$port" "$container" -- "$@"; }

passed=0 failed=0
check() {  # check NAME COMMAND…
    local name=$1; shift
    if "$@"; then passed=$((passed + 1)); echo "ok   $name"; else failed=$((failed + 1)); echo "FAIL $name"; fi
}

# The image's configuration: ENTRYPOINT and the HEALTHCHECK's command, as the build stored them.
config() {
    buildah inspect --type image "$tag" | python3 -c '
import json, shlex, sys
config = json.load(sys.stdin)["Docker"]["config"]
print(shlex.join(config["Entrypoint"] if sys.argv[1] == "entrypoint" else config["Healthcheck"]["Test"][1:]))' "$1"
}
read -r -a entrypoint <<<"$(config entrypoint)"
# Not through `inside`: a backgrounded function is a subshell, and killing it would leave
# buildah running; buildah itself ends the server when killed.
buildah run --isolation chroot --network host --env "CATBIRD_PORT=$port" "$container" -- "${entrypoint[@]}" >"$server_log" 2>&1 &
server_pid=$!
up=0
for _ in $(seq 1 100); do
    curl -fsS "http://127.0.0.1:$port/catbird/api/health" >/dev/null 2>&1 && { up=1; break; }
    sleep 0.1
done
check "the image's entry point serves /catbird/api/health" [ "$up" = 1 ]
[ "$up" = 1 ] || cat "$server_log"

health=$(config healthcheck)
check "the image's HEALTHCHECK command passes inside the container" eval "inside $health >/dev/null"
check "the server runs as uid 10001, not root" [ "$(inside id -u)" = 10001 ]
mock='{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/hello"},"headers":{}},"response":{"status":200,"headers":{},"body":"aGk="}}'
check "a mock is added" curl -fsS -o /dev/null -H 'Content-Type: application/json' -d "$mock" \
    "http://127.0.0.1:$port/catbird/api/mocks"
check "the mock answers" [ "$(curl -fsS "http://127.0.0.1:$port/hello")" = hi ]
check "the database is on the volume path" inside test -s /var/lib/catbird/catbird.sqlite

cleanup
check "this run's image ($tag) is removed after it" eval '! podman image exists "$tag"'

echo "container: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
