#!/usr/bin/env bash
# Sourced by scripts/run and scripts/test: installs the Debian packages Catbird builds against
# when any is missing, and puts the Swift toolchain on PATH.
#   libmicrohttpd-dev  HTTP server library          libsqlite3-dev  storage
#   pkg-config         finds both for SwiftPM       sqlite3         CLI, handy for querying the database
#   curl, python3      used by deploy/xcode/start.sh and the parallel-shard run; python3 also
#                      serves the upstream in the forwarding tests, curl is their proxy client
#   libcurl4-openssl-dev  outbound HTTP for redirect, proxy and record modes
#   zlib1g-dev         inflate, for request bodies sent with Content-Encoding gzip or deflate
#   media-types        /etc/mime.types: media types to file extensions for file mocks
#   openssl            makes the self-signed certificate of the HTTPS upstream test
#   faketime           steps one process's wall clock: the retention test of a clock step
# The caller's shell options are left as they were (no `set -e` leaks into an interactive
# shell that sources it); a failure says why on stderr and makes `source` return 1 (exit 1
# when run as a script), which stops a caller running under `set -e`.

catbird_setup() {
    local packages=(libmicrohttpd-dev libsqlite3-dev libcurl4-openssl-dev zlib1g-dev media-types pkg-config sqlite3 curl python3 openssl faketime)
    local missing=() package candidate sudo=""
    for package in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "setup: installing ${missing[*]}" >&2
        [ "$(id -u)" -eq 0 ] || sudo="sudo"
        $sudo apt-get update -qq || { echo "setup: apt-get update failed" >&2; return 1; }
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null \
            || { echo "setup: could not install ${missing[*]}" >&2; return 1; }
    fi

    if ! command -v swift >/dev/null 2>&1; then
        for candidate in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
            if [ -x "$candidate/swift" ]; then export PATH="$candidate:$PATH"; break; fi
        done
    fi
    if ! command -v swift >/dev/null 2>&1; then
        echo "setup: no Swift toolchain found (need Swift 6.0 or newer on PATH or in /opt/swift)" >&2
        return 1
    fi
}

if catbird_setup; then
    unset -f catbird_setup
else
    unset -f catbird_setup
    return 1 2>/dev/null || exit 1
fi
