#!/usr/bin/env bash
# Sourced by scripts/run and scripts/test: installs the Debian packages Catbird builds against
# when any is missing, and puts the Swift toolchain on PATH.
#   libmicrohttpd-dev  HTTP server library          libsqlite3-dev  storage
#   pkg-config         finds both for SwiftPM       sqlite3         CLI, handy for querying the database
#   curl, python3      used by deploy/xcode/start.sh and the parallel-shard run; python3 also
#                      serves the upstream in the forwarding tests, curl is their proxy client
#   libcurl4-openssl-dev  outbound HTTP for redirect, proxy and record modes
#   media-types        /etc/mime.types: media types to file extensions for file mocks
#   openssl            makes the self-signed certificate of the HTTPS upstream test
set -euo pipefail

catbird_packages=(libmicrohttpd-dev libsqlite3-dev libcurl4-openssl-dev media-types pkg-config sqlite3 curl python3 openssl)
catbird_missing=()
for package in "${catbird_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || catbird_missing+=("$package")
done
if [ ${#catbird_missing[@]} -gt 0 ]; then
    echo "setup: installing ${catbird_missing[*]}" >&2
    catbird_sudo=""
    [ "$(id -u)" -eq 0 ] || catbird_sudo="sudo"
    $catbird_sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $catbird_sudo apt-get install -y -qq "${catbird_missing[@]}" >/dev/null
fi

if ! command -v swift >/dev/null 2>&1; then
    for candidate in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
        if [ -x "$candidate/swift" ]; then export PATH="$candidate:$PATH"; break; fi
    done
fi
if ! command -v swift >/dev/null 2>&1; then
    echo "setup: no Swift toolchain found (need Swift 6.0 or newer on PATH or in /opt/swift)" >&2
    exit 1
fi
