#!/usr/bin/env bash
# Builds the Catbird image from deploy/container/Containerfile:
#   1. the release binary with the Swift runtime linked in (--static-swift-stdlib), in its own
#      build folder (.build/container) so it does not disturb scripts/run's build;
#   2. an image tagged catbird:<version> (or --tag), with that binary as the only file of the
#      build context, by podman, docker or buildah (whichever is installed, in that order).
# Usage: deploy/container/build.sh [--tag NAME:TAG] [--base IMAGE] [-- TOOL OPTIONS…]
#   --base  the Debian 12 slim image to build on (default docker.io/library/debian:12-slim)
#   after --, options for the build tool itself (e.g. --isolation chroot --network host)
set -euo pipefail
cd "$(dirname "$0")/../.."
tag="" base=""
tool_options=()
while [ $# -gt 0 ]; do
    case "$1" in
        --) shift; tool_options=("$@"); break ;;
        --tag) tag=$2; shift 2 ;;
        --base) base=$2; shift 2 ;;
        -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "build.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
source scripts/setup.sh
swift build -c release --static-swift-stdlib --scratch-path .build/container --product catbird >&2
binary=$(swift build -c release --static-swift-stdlib --scratch-path .build/container --show-bin-path)/catbird
[ -n "$tag" ] || tag="catbird:$("$binary" --version | awk '{print $2}')"

tool=""
for candidate in podman docker buildah; do
    if command -v "$candidate" >/dev/null 2>&1; then tool=$candidate; break; fi
done
[ -n "$tool" ] || { echo "build.sh: no podman, docker or buildah (apt-get install podman)" >&2; exit 2; }

context=$(mktemp -d "${TMPDIR:-/tmp}/catbird-image.XXXXXX")
trap 'rm -rf "$context"' EXIT
cp "$binary" "$context/catbird"
build_args=()
[ -z "$base" ] || build_args+=(--build-arg "BASE_IMAGE=$base")
case "$tool" in
    # The docker format keeps HEALTHCHECK (the OCI image format has no such field).
    podman|buildah) format=(--format docker) ;;
    *) format=() ;;
esac
if [ "$tool" = buildah ]; then
    buildah bud "${format[@]}" "${build_args[@]}" "${tool_options[@]}" -f deploy/container/Containerfile -t "$tag" "$context"
else
    "$tool" build "${format[@]}" "${build_args[@]}" "${tool_options[@]}" -f deploy/container/Containerfile -t "$tag" "$context"
fi
echo "build.sh: built $tag with $tool" >&2
echo "$tag"
